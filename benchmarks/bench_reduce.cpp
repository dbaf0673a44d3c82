// ReductionKernel against std::reduce: an int32 sum (returned to the host, and left on the device with .into,
// the form comparable with CUB's device-only timings), a float sum and a float dot product.
// Bytes per run: the input read once (n x 4 bytes; 2 x n x 4 for the dot product); the one result is not counted.
#include "bench_support.hpp"

#include <cmath>
#include <functional>
#include <numeric>

namespace {

using clalgo_bench::check;
using clalgo_bench::input;
using clalgo_bench::queue;

const clalgo::ReductionKernel<std::int32_t>& int_sum() {
    static const clalgo::ReductionKernel<std::int32_t> kernel(clalgo_bench::context(), "0", "a+b", "x[i]",
                                                              "const int *x", clalgo_bench::reduction_options("sum_int32"));
    return kernel;
}

const clalgo::ReductionKernel<float>& float_sum() {
    static const clalgo::ReductionKernel<float> kernel(clalgo_bench::context(), "0", "a+b", "x[i]", "const float *x",
                                                       clalgo_bench::reduction_options("sum_float"));
    return kernel;
}

const clalgo::ReductionKernel<float>& float_dot() {
    static const clalgo::ReductionKernel<float> kernel(clalgo_bench::context(), "0", "a+b", "x[i]*y[i]",
                                                       "const float *x, const float *y", clalgo_bench::reduction_options("dot_float"));
    return kernel;
}

/// A float result is right where it lies within 1e-5 x sum |terms| of the sum in double (the device adds in
/// another order).
bool close(double device, double reference, double absolute_sum) {
    return std::fabs(device - reference) <= 1e-5 * absolute_sum;
}

double absolute_sum(const std::vector<float>& x) {
    double sum = 0;
    for (float v : x) sum += std::fabs(v);
    return sum;
}

void register_int32(std::int64_t n) {
    const std::string size = "/" + std::to_string(n);
    const std::int64_t bytes = n * 4;

    clalgo_bench::register_device("reduce/clalgo_sum_int32" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1);
        const std::int32_t expected = std::reduce(x.host.begin(), x.host.end());
        if (!check(state, int_sum()(queue(), x.device) == expected, "wrong sum")) return;
        clalgo_bench::time_device(state, [&] { benchmark::DoNotOptimize(int_sum()(queue(), x.device)); });
        clalgo_bench::set_processed(state, n, bytes);
    });

    clalgo_bench::register_device("reduce/clalgo_sum_int32_into" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1);
        const clalgo::Array<std::int32_t> result(queue(), 1);
        int_sum().into(queue(), result, x.device);
        if (!check(state, result.read_at(queue(), 0) == std::reduce(x.host.begin(), x.host.end()), "wrong sum"))
            return;
        clalgo_bench::time_device(state, [&] { int_sum().into(queue(), result, x.device); });
        clalgo_bench::set_processed(state, n, bytes);
    });

    clalgo_bench::register_host("reduce/std_reduce_seq" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1).host;
        for (auto _ : state) benchmark::DoNotOptimize(std::reduce(x.begin(), x.end()));
        clalgo_bench::set_processed(state, n, bytes);
    });

#if CLALGO_BENCH_HAVE_TBB
    clalgo_bench::register_host("reduce/std_reduce_par" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1).host;
        benchmark::DoNotOptimize(std::reduce(std::execution::par, x.begin(), x.end()));  // starts TBB's threads
        for (auto _ : state) benchmark::DoNotOptimize(std::reduce(std::execution::par, x.begin(), x.end()));
        clalgo_bench::set_processed(state, n, bytes);
    });

    clalgo_bench::register_host("reduce/std_reduce_par_unseq" + size, [n, bytes](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1).host;
        benchmark::DoNotOptimize(std::reduce(std::execution::par_unseq, x.begin(), x.end()));
        for (auto _ : state) benchmark::DoNotOptimize(std::reduce(std::execution::par_unseq, x.begin(), x.end()));
        clalgo_bench::set_processed(state, n, bytes);
    });
#endif
}

void register_float(std::int64_t n) {
    const std::string size = "/" + std::to_string(n);

    clalgo_bench::register_device("reduce/clalgo_sum_float_into" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 2);
        const clalgo::Array<float> result(queue(), 1);
        float_sum().into(queue(), result, x.device);
        const double reference = std::accumulate(x.host.begin(), x.host.end(), 0.0);
        if (!check(state, close(result.read_at(queue(), 0), reference, absolute_sum(x.host)), "wrong sum")) return;
        clalgo_bench::time_device(state, [&] { float_sum().into(queue(), result, x.device); });
        clalgo_bench::set_processed(state, n, n * 4);
    });

    clalgo_bench::register_device("reduce/clalgo_dot_float_into" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 2);
        const auto& y = input<float>(n, 3);
        const clalgo::Array<float> result(queue(), 1);
        float_dot().into(queue(), result, x.device, y.device);
        double reference = 0, absolute = 0;
        for (std::size_t k = 0; k < x.host.size(); ++k) {
            reference += double(x.host[k]) * y.host[k];
            absolute += std::fabs(double(x.host[k]) * y.host[k]);
        }
        if (!check(state, close(result.read_at(queue(), 0), reference, absolute), "wrong dot product")) return;
        clalgo_bench::time_device(state, [&] { float_dot().into(queue(), result, x.device, y.device); });
        clalgo_bench::set_processed(state, n, 2 * n * 4);
    });

    clalgo_bench::register_host("reduce/std_reduce_float_seq" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 2).host;
        for (auto _ : state) benchmark::DoNotOptimize(std::reduce(x.begin(), x.end()));
        clalgo_bench::set_processed(state, n, n * 4);
    });

    clalgo_bench::register_host("reduce/std_transform_reduce_dot_float_seq" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 2).host;
        const auto& y = input<float>(n, 3).host;
        for (auto _ : state) benchmark::DoNotOptimize(std::transform_reduce(x.begin(), x.end(), y.begin(), 0.0f));
        clalgo_bench::set_processed(state, n, 2 * n * 4);
    });

#if CLALGO_BENCH_HAVE_TBB
    clalgo_bench::register_host("reduce/std_reduce_float_par_unseq" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 2).host;
        benchmark::DoNotOptimize(std::reduce(std::execution::par_unseq, x.begin(), x.end()));
        for (auto _ : state) benchmark::DoNotOptimize(std::reduce(std::execution::par_unseq, x.begin(), x.end()));
        clalgo_bench::set_processed(state, n, n * 4);
    });

    clalgo_bench::register_host("reduce/std_transform_reduce_dot_float_par_unseq" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 2).host;
        const auto& y = input<float>(n, 3).host;
        auto dot = [&] { return std::transform_reduce(std::execution::par_unseq, x.begin(), x.end(), y.begin(), 0.0f); };
        benchmark::DoNotOptimize(dot());
        for (auto _ : state) benchmark::DoNotOptimize(dot());
        clalgo_bench::set_processed(state, n, 2 * n * 4);
    });
#endif
}

void register_all() {
    for (std::int64_t n : clalgo_bench::sizes()) {
        register_int32(n);
        register_float(n);
    }
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
