// CUB's DeviceRadixSort on the inputs of clalgo's bench_sort, at the sizes given (default 2^24 and 2^28), timed as
// cub_compare.cu times it: calls back to back, in batches of at least 2 ms, the best of five batches. Beside the
// three sorts of cub_compare.cu (uint32 keys, uint32 pairs, uint64 keys), the sorts that clalgo's other key types,
// orders and bit ranges are measured against: int32 and float keys, uint32 keys descending, 20-bit keys by their
// 20 bits, and argsort as CUB writes it (pairs whose values are the positions 0, 1, 2, ...). Prints one line per
// sort and size, "<name> n=<n>: <ms> ms, <GB/s> GB/s, <G items/s> Gitems/s" (sort_variants.py reads
// them). With `--calls N` first, each sort is instead called N times, untimed, for a profiler to time its kernels
// (Nsight Compute: ncu --clock-control none --metrics gpu__time_duration.sum --csv ./cub_sort --calls 3 16777216).
// Not built by CMake: on a machine with the CUDA toolkit,
//   nvcc -O3 -arch=sm_90 -std=c++17 -I/usr/local/cuda/targets/x86_64-linux/include/cccl \
//        benchmarks/gpu/cub_sort.cu -o cub_sort
//   ./cub_sort 16777216 268435456
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
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

/// splitmix64, as bench_sort makes its keys.
std::uint64_t mix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <class T>
T* device_copy(const std::vector<T>& host) {
    T* p = nullptr;
    CHECK(cudaMalloc(&p, host.size() * sizeof(T)));
    CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

template <class T>
T* device_array(std::size_t count) {
    T* p = nullptr;
    CHECK(cudaMalloc(&p, count * sizeof(T)));
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> sizes;
    int untimed_calls = 0;  // --calls N: each sort called N times, untimed
    for (int a = 1; a < argc; ++a) {
        if (std::string(argv[a]) == "--calls" && a + 1 < argc)
            untimed_calls = std::atoi(argv[++a]);
        else
            sizes.push_back(std::strtoull(argv[a], nullptr, 10));
    }
    if (sizes.empty()) sizes = {std::size_t(1) << 24, std::size_t(1) << 28};
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
    cudaDeviceProp properties;
    CHECK(cudaGetDeviceProperties(&properties, 0));
    std::printf("device %s, %d SMs\n", properties.name, properties.multiProcessorCount);

    std::uint64_t state = 0x5EED;
    std::vector<std::uint32_t> keys32(largest), low20(largest), positions(largest);
    std::vector<std::uint64_t> keys64(largest);
    std::vector<float> floats(largest);
    for (std::size_t i = 0; i < largest; ++i) {
        const std::uint64_t z = mix(state);
        keys32[i] = std::uint32_t(z);
        keys64[i] = z ^ (mix(state) << 1);
        low20[i] = keys32[i] & 0xFFFFFu;
        floats[i] = float(std::int64_t(z % 2000001) - 1000000) / 1e6f;
        positions[i] = std::uint32_t(i);
    }
    std::uint32_t* d_keys32 = device_copy(keys32);
    // the pairs' values in an array of their own, as cub_compare.cu's and bench_sort's (values read from the keys'
    // own array would find them in the L2 cache in the first pass)
    std::uint32_t* d_values32 = device_copy(keys32);
    std::int32_t* d_int32 = reinterpret_cast<std::int32_t*>(d_keys32);
    std::uint32_t* d_low20 = device_copy(low20);
    std::uint32_t* d_positions = device_copy(positions);
    std::uint64_t* d_keys64 = device_copy(keys64);
    float* d_floats = device_copy(floats);
    std::uint32_t* d_keys32_out = device_array<std::uint32_t>(largest);
    std::uint32_t* d_values_out = device_array<std::uint32_t>(largest);
    std::uint64_t* d_keys64_out = device_array<std::uint64_t>(largest);

    std::size_t temp_bytes = 0;
    void* d_temp = nullptr;
    auto reserve = [&](std::size_t bytes) {
        if (bytes <= temp_bytes) return;
        if (d_temp) CHECK(cudaFree(d_temp));
        temp_bytes = bytes * 2;
        CHECK(cudaMalloc(&d_temp, temp_bytes));
    };

    for (std::size_t n : sizes) {
        const int count = int(n);
        auto report = [&](const char* name, double ms, double bytes) {
            std::printf("%s n=%zu: %.4f ms, %.1f GB/s, %.3f Gitems/s\n", name, n, ms, bytes / ms / 1e6, n / ms / 1e6);
            std::fflush(stdout);
        };
        // each sort: ask for its temporary storage, then time it with storage that is large enough
        auto time = [&](const char* name, double bytes, auto sort) {
            std::size_t needed = 0;
            sort(static_cast<void*>(nullptr), needed);
            reserve(needed);
            if (untimed_calls > 0) {
                for (int c = 0; c < untimed_calls; ++c) {
                    std::size_t b = temp_bytes;
                    sort(d_temp, b);
                }
                CHECK(cudaDeviceSynchronize());
                std::printf("%s n=%zu: %d calls\n", name, n, untimed_calls);
                return;
            }
            report(name, ms_per_call([&] {
                       std::size_t b = temp_bytes;
                       sort(d_temp, b);
                   }), bytes);
        };
        time("cub_radix_sort_keys_uint32", 8.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortKeys(t, b, d_keys32, d_keys32_out, count));
        });
        time("cub_radix_sort_pairs_uint32", 16.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortPairs(t, b, d_keys32, d_keys32_out, d_values32, d_values_out, count));
        });
        time("cub_radix_sort_keys_uint64", 16.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortKeys(t, b, d_keys64, d_keys64_out, count));
        });
        time("cub_radix_sort_keys_int32", 8.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortKeys(t, b, d_int32, reinterpret_cast<std::int32_t*>(d_keys32_out), count));
        });
        time("cub_radix_sort_keys_float", 8.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortKeys(t, b, d_floats, reinterpret_cast<float*>(d_keys32_out), count));
        });
        time("cub_radix_sort_keys_uint32_descending", 8.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortKeysDescending(t, b, d_keys32, d_keys32_out, count));
        });
        time("cub_radix_sort_keys_uint32_20_bits", 8.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortKeys(t, b, d_low20, d_keys32_out, count, 0, 20));
        });
        time("cub_radix_sort_argsort_uint32", 8.0 * n, [&](void* t, std::size_t& b) {
            CHECK(cub::DeviceRadixSort::SortPairs(t, b, d_keys32, d_keys32_out, d_positions, d_values_out, count));
        });
    }
    return 0;
}
