// InclusiveScanKernel and ExclusiveScanKernel against std::inclusive_scan and std::exclusive_scan: an int32 sum
// ("a+b", neutral "0") from one array into another, on the device and on the host.
// Bytes per run: the input read once and the output written once (2 x n x 4 bytes). What the algorithm moves
// besides (a reduce-then-scan reads the input twice; look-back status words, per-block partials) is not counted,
// as in CUB's figures.
#include "bench_support.hpp"

#include <numeric>

namespace {

using clalgo_bench::check;
using clalgo_bench::input;
using clalgo_bench::queue;

template <class Kernel>
const Kernel& sum_scan() {
    static const Kernel kernel(clalgo_bench::context(), "a+b", "0");
    return kernel;
}

/// One scan on the device (`Kernel`) and with the standard library: `host_scan(first, last, out)` is the
/// sequential algorithm, `host_scan(std::execution::par, first, last, out)` the parallel one.
template <class Kernel, class HostScan>
void register_scan(const std::string& primitive, const std::string& std_name, std::int64_t n, HostScan host_scan) {
    const std::string size = "/" + std::to_string(n);
    const std::int64_t bytes = 2 * n * 4;

    clalgo_bench::register_device(primitive + "/clalgo_int32" + size, [=](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1);
        const clalgo::Array<std::int32_t> out(queue(), n);
        sum_scan<Kernel>()(queue(), x.device, out);
        std::vector<std::int32_t> expected(n);
        host_scan(x.host.begin(), x.host.end(), expected.begin());
        if (!check(state, out.to_host(queue()) == expected, "wrong scan")) return;
        clalgo_bench::time_device(state, [&] { sum_scan<Kernel>()(queue(), x.device, out); });
        clalgo_bench::set_processed(state, n, bytes);
    });

    clalgo_bench::register_host(primitive + "/" + std_name + "_seq" + size, [=](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1).host;
        std::vector<std::int32_t> out(n);
        clalgo_bench::time_host(state, [&] { return host_scan(x.begin(), x.end(), out.begin()); });
        clalgo_bench::set_processed(state, n, bytes);
    });

#if CLALGO_BENCH_HAVE_TBB
    clalgo_bench::register_host(primitive + "/" + std_name + "_par" + size, [=](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 1).host;
        std::vector<std::int32_t> out(n);
        clalgo_bench::time_host(state,
                                [&] { return host_scan(std::execution::par, x.begin(), x.end(), out.begin()); });
        clalgo_bench::set_processed(state, n, bytes);
    });
#endif
}

void register_all() {
    for (std::int64_t n : clalgo_bench::sizes()) {
        register_scan<clalgo::InclusiveScanKernel<std::int32_t>>(
            "inclusive_scan", "std_inclusive_scan", n, [](auto... arguments) { return std::inclusive_scan(arguments...); });
        register_scan<clalgo::ExclusiveScanKernel<std::int32_t>>(
            "exclusive_scan", "std_exclusive_scan", n,
            [](auto... arguments) { return std::exclusive_scan(arguments..., std::int32_t(0)); });
    }
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
