// Host cost per call of the map, the reduction (and clalgo::sum, the same launch), the scan, copy_if and the
// compaction kernel for a small and a mid-size input: the time to enqueue a call (no wait), and per call back to
// back with one wait at the end.
// Where both are equal, the calls are bound by the host (the driver's launch and clalgo's own work), not by the
// device. Build target host_cost; docs/performance.md quotes its output.
#include <clalgo/clalgo.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
using clock_ = std::chrono::steady_clock;
static void measure(const char* name, clalgo::Queue& q, const std::function<void()>& f) {
    for (int k = 0; k < 50; ++k) f();
    q.finish();
    const int N = 2000;
    auto t0 = clock_::now();
    for (int k = 0; k < N; ++k) f();
    auto t1 = clock_::now();
    q.finish();
    auto t2 = clock_::now();
    std::printf("%-28s enqueue %.2f us/call, with finish %.2f us/call\n", name,
                std::chrono::duration<double>(t1 - t0).count() / N * 1e6, std::chrono::duration<double>(t2 - t0).count() / N * 1e6);
}
int main() {
    auto ctx = clalgo::Context::default_context();
    clalgo::Queue q(ctx);
    for (std::size_t n : {std::size_t(1024), std::size_t(1) << 20}) {
        std::printf("n=%zu\n", n);
        std::vector<int> h(n); for (std::size_t i = 0; i < n; ++i) h[i] = int(i * 7 % 13);
        auto x = clalgo::to_device(q, h);
        clalgo::Array<int> out(q, n), one(q, 1);
        clalgo::Array<std::int64_t> count(q, 1);
        clalgo::ElementwiseKernel copy(ctx, "const int *x, int *y", "y[i] = x[i]");
        clalgo::InclusiveScanKernel<int> scan(ctx, "a+b", "0");
        clalgo::ReductionKernel<int> sum(ctx, "0", "a+b", "x[i]", "const int *x");
        clalgo::detail::CompactionSpec spec; spec.value_type = "int"; spec.keep = "ary[i] % 2 == 0";
        clalgo::detail::CompactionKernel<cl_uint> compact(ctx, spec);
        measure("elementwise copy", q, [&] { copy(q, x, out); });
        measure("reduce into", q, [&] { sum.into(q, one, x); });
        measure("clalgo::sum into", q, [&] { clalgo::sum(q, x, count); });  // the same launch, found by type
        measure("inclusive scan", q, [&] { scan(q, x, out); });
        measure("copy_if into", q, [&] { clalgo::copy_if(q, x, out, count, "ary[i] % 2 == 0"); });
        measure("compaction kernel direct", q, [&] {
            compact.enqueue(q, std::nullopt, {clalgo::detail::bind(x), clalgo::detail::bind(out), clalgo::detail::bind(count),
                                              clalgo::detail::bind(static_cast<cl_long>(n))}, {}); });
        std::printf("  counts by ballots: %d\n", int(compact.counts_by_ballots()));
    }
}
