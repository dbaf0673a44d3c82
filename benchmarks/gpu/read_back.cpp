// Ways to bring a one-value result back to the host after a kernel, and what each costs as the kernel's own time
// grows: a kernel that spins for 0 to 12 us (NVIDIA's %globaltimer, inline PTX: NVIDIA only), then the reduction's
// own kernel (`ReductionKernel::into`) at 2^10 to 2^24 items, each followed by every way in turn (us per call,
// back to back, the median of five batches). "blocking read" is what `ReductionKernel::operator()` does; "poll"
// flushes the queue and spins on the read's status; "pinned" reads into a mapped CL_MEM_ALLOC_HOST_PTR buffer;
// "copy to pinned" copies into such a buffer while it is mapped (which OpenCL leaves undefined: measured, not
// used). A "!" after a figure: the result read back was wrong.
// Build target read_back (not part of run_benchmarks); docs/performance.md ("A blocking result") says what it found.
#include <clalgo/clalgo.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>
using clock_ = std::chrono::steady_clock;
static double measure(const std::function<void()>& f, int N = 300) {
    for (int k = 0; k < 30; ++k) f();
    std::vector<double> r;
    for (int b = 0; b < 5; ++b) {
        auto t0 = clock_::now();
        for (int k = 0; k < N; ++k) f();
        r.push_back(std::chrono::duration<double>(clock_::now() - t0).count() / N * 1e6);
    }
    std::sort(r.begin(), r.end());
    return r[2];
}
static void poll(const cl::Event& e) {
    while (e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() > CL_COMPLETE) {
    }
}
int main() {
    auto ctx = clalgo::Context::default_context();
    clalgo::Queue q(ctx);
    cl::CommandQueue& cq = const_cast<cl::CommandQueue&>(q.get());
    const char* src = R"(
__kernel void spin(__global int *out, ulong ns) {
    ulong t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
    if (get_global_id(0) == 0) out[0] = (int)(t - t0);
}
)";
    cl::Program prog(ctx.get(), src);
    prog.build();
    cl::Kernel spin(prog, "spin");
    clalgo::Array<int> one(q, 1);
    spin.setArg(0, one.buffer());
    int result = 0;
    cl::Buffer pinned(ctx.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64);
    int* mapped = static_cast<int*>(cq.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64));
    std::vector<std::pair<const char*, std::function<void()>>> methods = {
        {"blocking read", [&] { cq.enqueueReadBuffer(one.buffer(), CL_TRUE, 0, 4, &result); }},
        {"read + finish", [&] { cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, &result); cq.finish(); }},
        {"read + event wait", [&] { cl::Event e; cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, &result, nullptr, &e); e.wait(); }},
        {"read + flush + poll", [&] { cl::Event e; cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, &result, nullptr, &e); cq.flush(); poll(e); }},
        {"read pinned + finish", [&] { cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, mapped); cq.finish(); result = mapped[0]; }},
        {"blocking read pinned", [&] { cq.enqueueReadBuffer(one.buffer(), CL_TRUE, 0, 4, mapped); result = mapped[0]; }},
        {"copy to pinned + finish", [&] { cq.enqueueCopyBuffer(one.buffer(), pinned, 0, 0, 4); cq.finish(); result = mapped[0]; }},
        {"finish, blocking read", [&] { cq.finish(); cq.enqueueReadBuffer(one.buffer(), CL_TRUE, 0, 4, &result); }},
        {"finish, read + finish", [&] { cq.finish(); cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, &result); cq.finish(); }},
    };
    std::printf("%-28s", "kernel \\ method");
    for (auto& m : methods) std::printf(" | %s", m.first);
    std::printf("\n");
    for (cl_ulong ns : {0ul, 1000ul, 2000ul, 4000ul, 8000ul, 12000ul}) {
        spin.setArg(1, ns);
        std::printf("spin %5lu ns               ", (unsigned long)ns);
        for (auto& m : methods)
            std::printf(" | %6.2f", measure([&] { cq.enqueueNDRangeKernel(spin, cl::NullRange, cl::NDRange(256), cl::NDRange(256)); m.second(); }));
        std::printf("\n");
    }
    clalgo::ReductionKernel<int> sum(ctx, "0", "a+b", "x[i]", "const int *x");
    for (int lg = 10; lg <= 24; lg += 2) {
        const std::size_t n = std::size_t(1) << lg;
        std::vector<int> h(n, 1);
        auto x = clalgo::to_device(q, h);
        std::printf("reduce 2^%-2d call %6.2f     ", lg, measure([&] { result = sum(q, x); }));
        for (auto& m : methods) {
            const double t = measure([&] { sum.into(q, one, x); m.second(); });
            std::printf(" | %6.2f%s", t, result == int(n) ? "" : "!");
        }
        std::printf("\n");
    }
    cq.enqueueUnmapMemObject(pinned, mapped);
    cq.finish();
}
