// CUB and Thrust on the inputs of clalgo's GPU benchmarks, at 2^10 to 2^28 elements by factors of 4, timed the
// way clalgo's benchmarks time clalgo: calls back to back, in batches of at least 2 ms, the best of five batches.
// Prints one line per primitive and size: "<name> n=<n>: <ms> ms, <GB/s> GB/s, <G items/s> Gitems/s", which
// benchmarks/results.py reads beside clalgo's benchmark output. Not built by CMake: benchmarks/gpu/compare.py
// builds and runs it beside clalgo's benchmarks, or by hand, on a machine with the CUDA toolkit,
//   nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda benchmarks/gpu/cub_compare.cu -o cub_compare
// (CUDA 13 keeps CUB's headers under targets/<arch>/include/cccl: add that directory with -I where nvcc does not
// find <cub/cub.cuh> by itself).
#include <cub/cub.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t status_ = (call);                                                              \
        if (status_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_)); \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

namespace {

/// Milliseconds per call of `call`: batches doubled until one takes 2 ms, then the best of five such batches.
template <class Call>
double ms_per_call(Call call) {
    cudaEvent_t begin, end;
    CHECK(cudaEventCreate(&begin));
    CHECK(cudaEventCreate(&end));
    auto batch = [&](int calls) {
        CHECK(cudaEventRecord(begin));
        for (int c = 0; c < calls; ++c) call();
        CHECK(cudaEventRecord(end));
        CHECK(cudaEventSynchronize(end));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, begin, end));
        return double(ms);
    };
    call();  // first use: allocations, module loading
    CHECK(cudaDeviceSynchronize());
    int calls = 1;
    while (batch(calls) < 2.0 && calls < (1 << 20)) calls *= 2;
    double best = 1e30;
    for (int b = 0; b < 5; ++b) best = std::min(best, batch(calls) / calls);
    CHECK(cudaEventDestroy(begin));
    CHECK(cudaEventDestroy(end));
    return best;
}

struct Even {
    __device__ bool operator()(int x) const { return (x & 1) == 0; }
};
struct Sum {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct Axpy {
    float a;
    __device__ float operator()(float x, float y) const { return a * x + y; }
};
struct Product {
    __device__ float operator()(thrust::tuple<float, float> t) const { return thrust::get<0>(t) * thrust::get<1>(t); }
};

/// Device memory for the largest size, freed at exit.
template <class T>
T* device_array(std::size_t count) {
    T* p = nullptr;
    CHECK(cudaMalloc(&p, count * sizeof(T)));
    return p;
}

template <class T>
T* to_device(const std::vector<T>& host) {
    T* p = device_array<T>(host.size());
    CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

}  // namespace

int main() {
    cudaDeviceProp properties;
    CHECK(cudaGetDeviceProperties(&properties, 0));
    std::printf("device %s, %d SMs\n", properties.name, properties.multiProcessorCount);
    const std::size_t largest = std::size_t(1) << 28;

    // the inputs of clalgo's benchmarks: (i * 2654435761) & 1023 (alternating parity), uniform ints in
    // [-1000, 1000], uniform floats in [-1, 1), random 32- and 64-bit keys, keys in runs of 1 to 64
    std::mt19937 engine(42);
    std::vector<int> alternating(largest), uniform(largest);
    std::vector<float> floats(largest);
    std::uniform_int_distribution<int> ints(-1000, 1000);
    std::uniform_real_distribution<float> reals(-1.0f, 1.0f);
    for (std::size_t i = 0; i < largest; ++i) {
        alternating[i] = int(std::uint32_t(i) * 2654435761u) & 1023;
        uniform[i] = ints(engine);
        floats[i] = reals(engine);
    }
    std::vector<std::uint32_t> keys32(largest), run_keys(largest);
    std::vector<std::uint64_t> keys64(largest);
    for (auto& k : keys32) k = engine();
    for (auto& k : keys64) k = (std::uint64_t(engine()) << 32) | engine();
    std::uniform_int_distribution<int> run_length(1, 64);
    for (std::size_t i = 0, key = 0; i < largest; ++key)
        for (int r = run_length(engine); r > 0 && i < largest; --r) run_keys[i++] = std::uint32_t(key);
    std::vector<int> offsets(largest / 256 + 2);
    for (std::size_t s = 0; s < offsets.size(); ++s) offsets[s] = int(std::min(largest, s * 256));

    int* d_alternating = to_device(alternating);
    int* d_uniform = to_device(uniform);
    float* d_x = to_device(floats);
    float* d_y = to_device(floats);
    std::uint32_t* d_keys32 = to_device(keys32);
    std::uint64_t* d_keys64 = to_device(keys64);
    std::uint32_t* d_run_keys = to_device(run_keys);
    int* d_offsets = to_device(offsets);
    int* d_out = device_array<int>(largest);
    float* d_fout = device_array<float>(largest);
    std::uint32_t* d_keys32_out = device_array<std::uint32_t>(largest);
    std::uint32_t* d_values = device_array<std::uint32_t>(largest);
    std::uint32_t* d_values_out = device_array<std::uint32_t>(largest);
    std::uint64_t* d_keys64_out = device_array<std::uint64_t>(largest);
    int* d_int_result = device_array<int>(2);
    float* d_float_result = device_array<float>(2);
    int* d_count = device_array<int>(2);
    int* d_bins = device_array<int>(257);
    CHECK(cudaMemcpy(d_values, d_keys32, largest * 4, cudaMemcpyDeviceToDevice));

    std::size_t temp_bytes = 0;
    void* d_temp = nullptr;
    auto reserve = [&](std::size_t bytes) {
        if (bytes <= temp_bytes) return;
        if (d_temp) CHECK(cudaFree(d_temp));
        temp_bytes = bytes * 2;
        CHECK(cudaMalloc(&d_temp, temp_bytes));
    };

    for (std::size_t n = 1024; n <= largest; n *= 4) {
        const int count = int(n);
        auto report = [&](const char* name, double ms, double bytes) {
            std::printf("%s n=%zu: %.4f ms, %.1f GB/s, %.3f Gitems/s\n", name, n, ms, bytes / ms / 1e6, n / ms / 1e6);
        };
        // each primitive: ask for its temporary storage, then time it with storage that is large enough
        std::size_t bytes = 0;
        cub::DeviceReduce::Sum(nullptr, bytes, d_alternating, d_int_result, count);
        reserve(bytes);
        report("cub_reduce_sum_int32", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceReduce::Sum(d_temp, b, d_alternating, d_int_result, count);
               }), 4.0 * n);
        int host_sum = 0;
        report("cub_reduce_sum_int32_to_host", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceReduce::Sum(d_temp, b, d_alternating, d_int_result, count);
                   CHECK(cudaMemcpy(&host_sum, d_int_result, sizeof(int), cudaMemcpyDeviceToHost));
               }), 4.0 * n);
        cub::DeviceReduce::Sum(nullptr, bytes, d_x, d_float_result, count);
        reserve(bytes);
        report("cub_reduce_sum_float", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceReduce::Sum(d_temp, b, d_x, d_float_result, count);
               }), 4.0 * n);
        auto products = thrust::make_transform_iterator(thrust::make_zip_iterator(thrust::make_tuple(d_x, d_y)), Product{});
        cub::DeviceReduce::Sum(nullptr, bytes, products, d_float_result, count);
        reserve(bytes);
        report("cub_dot_float", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceReduce::Sum(d_temp, b, products, d_float_result, count);
               }), 8.0 * n);
        cub::DeviceScan::InclusiveSum(nullptr, bytes, d_alternating, d_out, count);
        reserve(bytes);
        report("cub_inclusive_scan_int32", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceScan::InclusiveSum(d_temp, b, d_alternating, d_out, count);
               }), 8.0 * n);
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, d_alternating, d_out, count);
        reserve(bytes);
        report("cub_exclusive_scan_int32", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceScan::ExclusiveSum(d_temp, b, d_alternating, d_out, count);
               }), 8.0 * n);
        cub::DeviceSelect::If(nullptr, bytes, d_alternating, d_out, d_count, count, Even{});
        reserve(bytes);
        report("cub_select_even_alternating", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceSelect::If(d_temp, b, d_alternating, d_out, d_count, count, Even{});
               }), 6.0 * n);
        report("cub_select_even_random", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceSelect::If(d_temp, b, d_uniform, d_out, d_count, count, Even{});
               }), 6.0 * n);
        report("thrust_saxpy_float", ms_per_call([&] {
                   thrust::transform(thrust::device, d_x, d_x + n, d_y, d_fout, Axpy{2.0f});
               }), 12.0 * n);
        report("cuda_memcpy_d2d_int32", ms_per_call([&] {
                   CHECK(cudaMemcpyAsync(d_out, d_alternating, n * 4, cudaMemcpyDeviceToDevice));
               }), 8.0 * n);
        cub::DeviceRadixSort::SortKeys(nullptr, bytes, d_keys32, d_keys32_out, count);
        reserve(bytes);
        report("cub_radix_sort_keys_uint32", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceRadixSort::SortKeys(d_temp, b, d_keys32, d_keys32_out, count);
               }), 8.0 * n);
        cub::DeviceRadixSort::SortPairs(nullptr, bytes, d_keys32, d_keys32_out, d_values, d_values_out, count);
        reserve(bytes);
        report("cub_radix_sort_pairs_uint32", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceRadixSort::SortPairs(d_temp, b, d_keys32, d_keys32_out, d_values, d_values_out, count);
               }), 16.0 * n);
        cub::DeviceRadixSort::SortKeys(nullptr, bytes, d_keys64, d_keys64_out, count);
        reserve(bytes);
        report("cub_radix_sort_keys_uint64", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceRadixSort::SortKeys(d_temp, b, d_keys64, d_keys64_out, count);
               }), 16.0 * n);
        cub::DeviceReduce::ReduceByKey(nullptr, bytes, d_run_keys, d_keys32_out, d_x, d_fout, d_count,
                                       Sum{}, count);
        reserve(bytes);
        report("cub_reduce_by_key_float", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceReduce::ReduceByKey(d_temp, b, d_run_keys, d_keys32_out, d_x, d_fout, d_count,
                                                  Sum{}, count);
               }), 8.0 * n);
        cub::DeviceHistogram::HistogramEven(nullptr, bytes, d_uniform, d_bins, 257, -1000, 1001, count);
        reserve(bytes);
        report("cub_histogram_256_int32", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceHistogram::HistogramEven(d_temp, b, d_uniform, d_bins, 257, -1000, 1001, count);
               }), 4.0 * n);
        const int segments = int((n + 255) / 256);
        cub::DeviceSegmentedReduce::Sum(nullptr, bytes, d_x, d_fout, segments, d_offsets, d_offsets + 1);
        reserve(bytes);
        report("cub_segmented_reduce_256_float", ms_per_call([&] {
                   std::size_t b = temp_bytes;
                   cub::DeviceSegmentedReduce::Sum(d_temp, b, d_x, d_fout, segments, d_offsets, d_offsets + 1);
               }), 4.0 * n);
        std::fflush(stdout);
    }
    return 0;
}
