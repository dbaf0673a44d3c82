// Ways to bring a reduction's one-value result back to the host, per call (n = 1024 and 2^20): a blocking read,
// a non-blocking read waited for, and reads into pinned host memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer).
// The "poll" lines flush the queue and spin on the last command's status (clGetEventInfo) in place of a blocking
// call or a wait, which on NVIDIA's OpenCL may put the thread to sleep.
// Build target read_back; docs/architecture.md ("Design notes") says what it found.
#include <clalgo/clalgo.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
using clock_ = std::chrono::steady_clock;
static void poll(const cl::Event& e) {
    while (e.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() > CL_COMPLETE) {
    }
}
static void measure(const char* name, const std::function<void()>& f) {
    for (int k = 0; k < 50; ++k) f();
    const int N = 1000;
    auto t0 = clock_::now();
    for (int k = 0; k < N; ++k) f();
    std::printf("%-40s %.2f us/call\n", name, std::chrono::duration<double>(clock_::now() - t0).count() / N * 1e6);
}
int main() {
    auto ctx = clalgo::Context::default_context();
    clalgo::Queue q(ctx);
    cl::CommandQueue& cq = const_cast<cl::CommandQueue&>(q.get());
    for (std::size_t n : {std::size_t(1024), std::size_t(1) << 20}) {
        std::printf("n=%zu\n", n);
        std::vector<int> h(n, 1);
        auto x = clalgo::to_device(q, h);
        clalgo::Array<int> one(q, 1);
        clalgo::ReductionKernel<int> sum(ctx, "0", "a+b", "x[i]", "const int *x");
        int result = 0;
        measure("current operator()", [&] { result = sum(q, x); });
        measure("into + event.wait (no read)", [&] { sum.into(q, one, x).wait(); });
        measure("into + finish (no read)", [&] { sum.into(q, one, x); cq.finish(); });
        measure("into + blocking read", [&] { sum.into(q, one, x); cq.enqueueReadBuffer(one.buffer(), CL_TRUE, 0, 4, &result); });
        measure("into + nonblocking read + finish", [&] { sum.into(q, one, x); cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, &result); cq.finish(); });
        measure("into + nonblocking read + event wait", [&] { sum.into(q, one, x); cl::Event e; cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, &result, nullptr, &e); e.wait(); });
        measure("into + flush + poll (no read)", [&] { cl::Event e = sum.into(q, one, x).get(); cq.flush(); poll(e); });
        measure("into + nonblocking read + flush + poll", [&] { sum.into(q, one, x); cl::Event e; cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, &result, nullptr, &e); cq.flush(); poll(e); });
        measure("into + flush + poll + blocking read", [&] { cl::Event e = sum.into(q, one, x).get(); cq.flush(); poll(e); cq.enqueueReadBuffer(one.buffer(), CL_TRUE, 0, 4, &result); });
        cl::Buffer pinned(ctx.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 64);
        int* mapped = static_cast<int*>(cq.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 64));
        measure("into + copy to pinned + finish, read map", [&] { sum.into(q, one, x); cq.enqueueCopyBuffer(one.buffer(), pinned, 0, 0, 4); cq.finish(); result = mapped[0]; });
        measure("into + read into pinned ptr + finish", [&] { sum.into(q, one, x); cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, mapped); cq.finish(); result = mapped[0]; });
        measure("into + blocking read into pinned ptr", [&] { sum.into(q, one, x); cq.enqueueReadBuffer(one.buffer(), CL_TRUE, 0, 4, mapped); result = mapped[0]; });
        measure("into + read into pinned ptr + flush + poll", [&] { sum.into(q, one, x); cl::Event e; cq.enqueueReadBuffer(one.buffer(), CL_FALSE, 0, 4, mapped, nullptr, &e); cq.flush(); poll(e); result = mapped[0]; });
        measure("into + copy to pinned + flush + poll", [&] { sum.into(q, one, x); cl::Event e; cq.enqueueCopyBuffer(one.buffer(), pinned, 0, 0, 4, nullptr, &e); cq.flush(); poll(e); result = mapped[0]; });
        cq.enqueueUnmapMemObject(pinned, mapped); cq.finish();
        std::printf("  result %d\n", result);
    }
}
