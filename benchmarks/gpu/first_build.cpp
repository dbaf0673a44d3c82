// The first build of each kind of kernel: the first call of each algorithm (which generates, compiles and runs
// its kernels) less a second, identical call (which only runs them). Run with clalgo's disk cache off
// (CLALGO_NO_CACHE=1) and, on NVIDIA, the driver's own cache of compiled programs off (CUDA_CACHE_DISABLE=1), so
// that every kernel is compiled from source; each line is one kind of kernel, built once per process. The look-and-say example prints its own scan's build time (`kernels:`).
// Build target first_build; docs/performance.md quotes its output.
#include <clalgo/clalgo.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

using clock_ = std::chrono::steady_clock;

double seconds_of(const clalgo::Queue& q, const std::function<void()>& call) {
    const auto start = clock_::now();
    call();
    q.finish();
    return std::chrono::duration<double>(clock_::now() - start).count();
}

/// One line: the first call, the second, and their difference (the build).
void first_build(const char* name, const clalgo::Queue& q, const std::function<void()>& call) {
    const double first = seconds_of(q, call);
    const double second = seconds_of(q, call);
    std::printf("%-34s first call %8.1f ms, second %7.2f ms, build %8.1f ms\n", name, first * 1e3, second * 1e3,
                (first - second) * 1e3);
}

}  // namespace

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    auto ctx = clalgo::Context::default_context();
    clalgo::Queue q(ctx);
    std::printf("device: %s\n", q.info().description().c_str());
    const std::size_t n = std::size_t(1) << 20;
    std::vector<std::uint32_t> host_keys(n);
    std::vector<float> host_values(n);
    for (std::size_t i = 0; i < n; ++i) {
        host_keys[i] = static_cast<std::uint32_t>((i * 2654435761u) >> 7);
        host_values[i] = static_cast<float>(i % 1000) * 0.5f;
    }
    auto keys = clalgo::to_device(q, host_keys);
    auto values = clalgo::to_device(q, host_values);
    clalgo::Array<std::uint32_t> keys_work(q, n);
    clalgo::Array<float> values_work(q, n), out(q, n);

    first_build("ElementwiseKernel (saxpy)", q, [&] {
        clalgo::ElementwiseKernel saxpy(ctx, "float a, const float *x, float *y", "y[i] = a*x[i] + y[i]");
        saxpy(q, 2.0f, values, out);
    });
    first_build("ReductionKernel<float> (sum)", q, [&] {
        clalgo::ReductionKernel<float> sum(ctx, "0", "a+b", "x[i]", "const float *x");
        (void)sum(q, values);
    });
    first_build("clalgo::sum", q, [&] { (void)clalgo::sum(q, values); });
    first_build("InclusiveScanKernel<int>", q, [&] {
        clalgo::InclusiveScanKernel<std::uint32_t> scan(ctx, "a+b", "0");
        scan(q, keys, keys_work);
    });
    first_build("ExclusiveScanKernel<long>", q, [&] {
        clalgo::Array<std::int64_t> wide(q, n);
        clalgo::ExclusiveScanKernel<std::int64_t> scan(ctx, "a+b", "0");
        scan(q, wide, wide);
    });
    first_build("copy_if (allocating)", q, [&] { (void)clalgo::copy_if(q, values, "ary[i] > 100.0f"); });
    first_build("unique", q, [&] { (void)clalgo::unique(q, keys); });
    // one tile of keys first: its own small program; then 2^20 keys build the passes of their size alone (on
    // NVIDIA, those of the tier of tiles of 16 keys a work-item)
    first_build("sort 1000 uint32 keys (one tile)", q, [&] {
        clalgo::Array<std::uint32_t> few(q, 1000);
        keys.view(0, 1000).copy_to(q, few);
        clalgo::sort(q, few);
    });
    first_build("sort uint32 keys", q, [&] {
        keys.copy_to(q, keys_work);
        clalgo::sort(q, keys_work);
    });
    first_build("sort_by_key uint32 -> float", q, [&] {
        keys.copy_to(q, keys_work);
        values.copy_to(q, values_work);
        clalgo::sort_by_key(q, keys_work, values_work);
    });
    // 64-bit keys made before the first call, so that the conversion's own build is not counted as the sort's
    clalgo::Array<std::uint64_t> wide_keys(q, n), wide(q, n);
    clalgo::astype(q, keys, wide_keys);
    first_build("sort uint64 keys", q, [&] {
        wide_keys.copy_to(q, wide);
        clalgo::sort(q, wide);
    });
    first_build("sort float keys", q, [&] {
        values.copy_to(q, values_work);
        clalgo::sort(q, values_work);
    });
    first_build("argsort uint32", q, [&] { (void)clalgo::argsort(q, keys); });
    // 2^22 keys: the passes of the largest tiles (on NVIDIA, 30 to 38 keys a work-item), which the sizes above never take
    const std::size_t large = std::size_t(1) << 22;
    clalgo::Array<std::uint32_t> large_keys(q, large);
    clalgo::Array<std::uint64_t> large_wide(q, large);
    clalgo::Array<float> large_values(q, large);
    auto fill_large = [&] {
        for (std::size_t at = 0; at < large; at += n) keys.copy_to(q, large_keys.view(at, n));
    };
    auto fill_large_wide = [&] {
        for (std::size_t at = 0; at < large; at += n) wide_keys.copy_to(q, large_wide.view(at, n));
    };
    first_build("sort 2^22 uint32 keys", q, [&] {
        fill_large();
        clalgo::sort(q, large_keys);
    });
    first_build("sort_by_key 2^22 uint32 -> float", q, [&] {
        fill_large();
        large_values.fill(q, 1.0f);
        clalgo::sort_by_key(q, large_keys, large_values);
    });
    first_build("sort 2^22 uint64 keys", q, [&] {
        fill_large_wide();
        clalgo::sort(q, large_wide);
    });
    // argsort in full tiles: the passes of uint32 keys with int64 positions, and their first pass, which makes them
    first_build("argsort 2^22 uint32", q, [&] {
        fill_large();
        (void)clalgo::argsort(q, large_keys);
    });
    first_build("sort float4 by \"a.w < b.w\"", q, [&] {
        clalgo::Array<cl_float4> points(q, std::size_t(1) << 16);
        points.fill(q, cl_float4{{1, 2, 3, 4}});
        clalgo::sort(q, points, "a.w < b.w");
    });
    first_build("reduce_by_key uint32, float", q, [&] {
        clalgo::Array<std::int64_t> count(q, 1);
        clalgo::reduce_by_key(q, keys, values, keys_work, out, count, "a+b", "0");
    });
    first_build("histogram 256 bins", q, [&] {
        clalgo::Array<std::uint32_t> bins(q, 256);
        clalgo::histogram(q, values, bins, {0, 512});
    });
    first_build("segmented_reduce", q, [&] {
        std::vector<std::int64_t> host_offsets;
        for (std::size_t at = 0; at < n; at += 256) host_offsets.push_back(static_cast<std::int64_t>(at));
        host_offsets.push_back(static_cast<std::int64_t>(n));
        auto offsets = clalgo::to_device(q, host_offsets);
        clalgo::Array<float> sums(q, host_offsets.size() - 1);
        clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0");
    });
    return 0;
}
