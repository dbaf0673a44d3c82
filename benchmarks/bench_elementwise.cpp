// ElementwiseKernel against std::transform: saxpy, z = a*x + y over float arrays.
// Bytes per run: x and y read, z written (3 x n x 4 bytes).
#include "bench_support.hpp"

#include <algorithm>
#include <cmath>

namespace {

using clalgo_bench::check;
using clalgo_bench::input;
using clalgo_bench::queue;

constexpr float a = 2.5f;

const clalgo::ElementwiseKernel& saxpy() {
    static const clalgo::ElementwiseKernel kernel(clalgo_bench::context(),
                                                  "float a, const float *restrict x, const float *restrict y, "
                                                  "float *restrict z",
                                                  "z[i] = a*x[i] + y[i]", clalgo_bench::elementwise_options("saxpy"));
    return kernel;
}

/// True where z = a*x + y to within the difference an fma makes.
bool is_saxpy(const std::vector<float>& z, const std::vector<float>& x, const std::vector<float>& y) {
    for (std::size_t k = 0; k < z.size(); ++k)
        if (std::fabs(z[k] - (a * x[k] + y[k])) > 1e-6f) return false;
    return z.size() == x.size();
}

void register_size(std::int64_t n) {
    const std::string size = "/" + std::to_string(n);
    const std::int64_t bytes = 3 * n * 4;

    clalgo_bench::register_device("elementwise/clalgo_saxpy" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<float>(n, 2);
        const auto& y = input<float>(n, 3);
        const clalgo::Array<float> z(queue(), n);
        saxpy()(queue(), a, x.device, y.device, z);
        if (!check(state, is_saxpy(z.to_host(queue()), x.host, y.host), "wrong saxpy")) return;
        clalgo_bench::time_device(state, [&] { saxpy()(queue(), a, x.device, y.device, z); });
        clalgo_bench::set_processed(state, n, bytes);
    });

    clalgo_bench::register_host("elementwise/std_transform_seq" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<float>(n, 2).host;
        const auto& y = input<float>(n, 3).host;
        std::vector<float> z(n);
        for (auto _ : state) {
            std::transform(x.begin(), x.end(), y.begin(), z.begin(), [](float xi, float yi) { return a * xi + yi; });
            benchmark::DoNotOptimize(z.data());
            benchmark::ClobberMemory();
        }
        clalgo_bench::set_processed(state, n, bytes);
    });

#if CLALGO_BENCH_HAVE_TBB
    clalgo_bench::register_host("elementwise/std_transform_par_unseq" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<float>(n, 2).host;
        const auto& y = input<float>(n, 3).host;
        std::vector<float> z(n);
        auto run = [&] {
            std::transform(std::execution::par_unseq, x.begin(), x.end(), y.begin(), z.begin(),
                           [](float xi, float yi) { return a * xi + yi; });
        };
        run();  // starts TBB's threads and touches z's pages
        for (auto _ : state) {
            run();
            benchmark::DoNotOptimize(z.data());
            benchmark::ClobberMemory();
        }
        clalgo_bench::set_processed(state, n, bytes);
    });
#endif
}

void register_all() {
    for (std::int64_t n : clalgo_bench::sizes()) register_size(n);
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
