// Host cost per call of the map, the reduction (and clalgo::sum, the same launch), the scan, copy_if, the
// compaction kernel, reduce_by_key, segmented_reduce, histogram and sort for a small and a mid-size input: the time to enqueue a call (no wait), and per call back to
// back with one wait at the end.
// Where both are equal, the calls are bound by the host (the driver's launch and clalgo's own work), not by the
// device. The scans and copy_if are timed with the device's own algorithm and with the single pass forced (the
// one NVIDIA runs, whose launch PoCL's serial default does not show). Last, a trivial kernel of 1 to 20 arguments
// launched straight through OpenCL: how the driver's launch cost grows with the number of arguments.
// Build target host_cost; docs/performance.md quotes its output.
#include <clalgo/clalgo.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
using clock_ = std::chrono::steady_clock;
// CPU time of the calling thread: clalgo's and the driver's work in the enqueue loop, without the time the
// thread waits or is preempted (on a busy machine, or where the driver's worker threads share its cores)
static double thread_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
static void measure(const char* name, clalgo::Queue& q, const std::function<void()>& f, int calls = 2000) {
    for (int k = 0; k < 50; ++k) f();
    q.finish();
    auto t0 = clock_::now();
    const double cpu0 = thread_seconds();
    for (int k = 0; k < calls; ++k) f();
    const double cpu1 = thread_seconds();
    auto t1 = clock_::now();
    q.finish();
    auto t2 = clock_::now();
    std::printf("%-40s enqueue %.2f us/call (thread CPU %.2f), with finish %.2f us/call\n", name,
                std::chrono::duration<double>(t1 - t0).count() / calls * 1e6, (cpu1 - cpu0) / calls * 1e6,
                std::chrono::duration<double>(t2 - t0).count() / calls * 1e6);
}

// kernel k<count>: argument 0 a buffer, then buffers and longs alternating (as a user's array and its offset)
static std::string raw_kernel_source(int count) {
    std::string text = "__kernel void k" + std::to_string(count) + "(__global long *out";
    std::string body = "    if (get_global_id(0) == 0) out[0] = 0";
    for (int a = 1; a < count; ++a) {
        if (a % 2) text += ", __global long *b" + std::to_string(a);
        else {
            text += ", long s" + std::to_string(a);
            body += " + s" + std::to_string(a);
        }
    }
    return text + ")\n{\n" + body + ";\n}\n";
}

static void raw_launches(const clalgo::Context& ctx, clalgo::Queue& q) {
    const int counts[] = {1, 4, 8, 12, 16, 20};
    std::string source;
    for (int count : counts) source += raw_kernel_source(count);
    cl::Program program(ctx.get(), source);
    program.build();
    cl::Buffer buffer(ctx.get(), CL_MEM_READ_WRITE, 64);
    for (int count : counts) {
        cl::Kernel kernel(program, ("k" + std::to_string(count)).c_str());
        auto set_all = [&] {
            for (int a = 0; a < count; ++a) {
                if (a % 2 == 0 && a > 0) kernel.setArg(a, cl_long(a));
                else kernel.setArg(a, buffer);
            }
        };
        set_all();
        const std::string label = "raw kernel, " + std::to_string(count) + " args";
        measure((label + ": launch").c_str(), q, [&] {
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64));
        });
        measure((label + ": set, launch, event").c_str(), q, [&] {
            set_all();
            cl::Event done;
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64), nullptr, &done);
        });
    }
}

int main() {
    auto ctx = clalgo::Context::default_context();
    clalgo::Queue q(ctx);
    const bool cpu = q.info().is_cpu;
    for (std::size_t n : {std::size_t(1024), std::size_t(1) << 20}) {
        std::printf("n=%zu\n", n);
        std::vector<int> h(n); for (std::size_t i = 0; i < n; ++i) h[i] = int(i * 7 % 13);
        auto x = clalgo::to_device(q, h);
        clalgo::Array<int> out(q, n), one(q, 1);
        clalgo::Array<std::int64_t> count(q, 1);
        clalgo::ElementwiseKernel copy(ctx, "const int *x, int *y", "y[i] = x[i]");
        clalgo::InclusiveScanKernel<int> scan(ctx, "a+b", "0");
        clalgo::ScanOptions single_pass_options;
        single_pass_options.name = "inclusive_scan_single_pass";
        single_pass_options.algorithm = clalgo::ScanAlgorithm::single_pass;
        clalgo::InclusiveScanKernel<int> single_pass_scan(ctx, "a+b", "0", single_pass_options);
        clalgo::ReductionKernel<int> sum(ctx, "0", "a+b", "x[i]", "const int *x");
        clalgo::detail::CompactionSpec spec; spec.value_type = "int"; spec.keep = "ary[i] % 2 == 0";
        clalgo::detail::CompactionKernel<cl_uint> compact(ctx, spec);
        clalgo::SelectionOptions single_pass_selection;
        single_pass_selection.algorithm = clalgo::ScanAlgorithm::single_pass;
        // the single pass spins on CPU devices: fewer calls there at the larger size
        const int single_pass_calls = cpu && n > 4096 ? 200 : 2000;
        measure("elementwise copy", q, [&] { copy(q, x, out); });
        measure("reduce into", q, [&] { sum.into(q, one, x); });
        measure("clalgo::sum into", q, [&] { clalgo::sum(q, x, count); });  // the same launch, found by type
        measure("inclusive scan", q, [&] { scan(q, x, out); });
        measure("inclusive scan, single pass", q, [&] { single_pass_scan(q, x, out); }, single_pass_calls);
        measure("copy_if into", q, [&] { clalgo::copy_if(q, x, out, count, "ary[i] % 2 == 0"); });
        measure("copy_if into, single pass", q,
                [&] { clalgo::copy_if(q, x, out, count, "ary[i] % 2 == 0", single_pass_selection); }, single_pass_calls);
        measure("compaction kernel direct", q, [&] {
            compact.enqueue(q, std::nullopt, {clalgo::detail::bind(x), clalgo::detail::bind(out), clalgo::detail::bind(count),
                                              clalgo::detail::bind(static_cast<cl_long>(n))}, {}); });
        std::printf("  counts by ballots: %d\n", int(compact.counts_by_ballots()));
        // the by-key family: float values, keys in runs of 8, segments of 256
        std::vector<int> run_keys(n);
        for (std::size_t i = 0; i < n; ++i) run_keys[i] = int(i / 8);
        auto keys = clalgo::to_device(q, run_keys);
        clalgo::Array<float> values(q, n), values_out(q, n), sums(q, n / 256);
        values.fill(q, 1.0f);
        std::vector<std::int64_t> host_offsets(n / 256 + 1);
        for (std::size_t s = 0; s < host_offsets.size(); ++s) host_offsets[s] = std::int64_t(s * 256);
        auto offsets = clalgo::to_device(q, host_offsets);
        clalgo::Array<std::int64_t> bins(q, 256);
        measure("reduce_by_key into", q, [&] { clalgo::reduce_by_key(q, keys, values, out, values_out, count, "a+b", "0"); });
        measure("segmented_reduce", q, [&] { clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0"); });
        measure("histogram", q, [&] { clalgo::histogram(q, x, bins, {0, 256}); });
        measure("sort uint32 into", q, [&] { clalgo::sort(q, keys, out); }, cpu ? 100 : 2000);
    }
    std::printf("raw launches (one work-group of 64)\n");
    raw_launches(ctx, q);
}
