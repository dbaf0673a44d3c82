// experiment: map kernel shapes against clEnqueueCopyBuffer / FillBuffer
#include <clalgo/clalgo.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
using clk = std::chrono::steady_clock;
static double per_call(cl::CommandQueue& q, const std::function<void()>& f) {
    for (int k = 0; k < 3; ++k) f();
    q.finish();
    double best = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
        int calls = 0;
        auto t0 = clk::now();
        double s = 0;
        do { for (int k = 0; k < 10; ++k) f(); calls += 10; q.finish(); s = std::chrono::duration<double>(clk::now() - t0).count(); } while (s < 0.004);
        best = std::min(best, s / calls);
    }
    return best;
}
static const char* src = R"CLC(
__kernel void cur(__global const float *restrict x, __global float *restrict y, long n) {
    const long stride = get_global_size(0);
    long k = get_global_id(0);
    for (; k + 3 * stride < n; k += 4 * stride) {
#pragma unroll
        for (int u = 0; u < 4; ++u) { const long i = k + u * stride; y[i] = x[i]; }
    }
    for (; k < n; k += stride) y[k] = x[k];
}
__kernel void cur_int(__global const float *restrict x, __global float *restrict y, long nl) {
    const int n = (int)nl;
    const int stride = get_global_size(0);
    int k = get_global_id(0);
    for (; k + 3 * stride < n; k += 4 * stride) {
#pragma unroll
        for (int u = 0; u < 4; ++u) { const int i = k + u * stride; y[i] = x[i]; }
    }
    for (; k < n; k += stride) y[k] = x[k];
}
__kernel void one_long(__global const float *restrict x, __global float *restrict y, long n) {
    const long i = get_global_id(0);
    if (i < n) y[i] = x[i];
}
__kernel void one_int(__global const float *restrict x, __global float *restrict y, long n) {
    const uint i = get_global_id(0);
    if (i < (uint)n) y[i] = x[i];
}
__kernel void vec4(__global const float4 *restrict x, __global float4 *restrict y, long n4) {
    const uint i = get_global_id(0);
    if (i < (uint)n4) y[i] = x[i];
}
__kernel void tile4(__global const float *restrict x, __global float *restrict y, long n) {
    const long base = (long)get_group_id(0) * 1024 + get_local_id(0);
    if (base + 768 < n) {
        float v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = x[base + u * 256];
#pragma unroll
        for (int u = 0; u < 4; ++u) y[base + u * 256] = v[u];
    } else {
        for (int u = 0; u < 4; ++u) if (base + u * 256 < n) y[base + u * 256] = x[base + u * 256];
    }
}
__kernel void tile8(__global const float *restrict x, __global float *restrict y, long n) {
    const long base = (long)get_group_id(0) * 2048 + get_local_id(0);
    if (base + 7 * 256 < n) {
        float v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) v[u] = x[base + u * 256];
#pragma unroll
        for (int u = 0; u < 8; ++u) y[base + u * 256] = v[u];
    } else {
        for (int u = 0; u < 8; ++u) if (base + u * 256 < n) y[base + u * 256] = x[base + u * 256];
    }
}
__kernel void gs_vec4(__global const float4 *restrict x, __global float4 *restrict y, long n4) {
    const long stride = get_global_size(0);
    for (long k = get_global_id(0); k < n4; k += stride) y[k] = x[k];
}
__kernel void fill_one(__global float *y, long n, float v) {
    const uint i = get_global_id(0);
    if (i < (uint)n) y[i] = v;
}
__kernel void fill_vec4(__global float4 *y, long n4, float v) {
    const uint i = get_global_id(0);
    if (i < (uint)n4) y[i] = (float4)(v);
}
__kernel void fill_cur(__global float *restrict y, long n, float v) {
    const long stride = get_global_size(0);
    long k = get_global_id(0);
    for (; k + 3 * stride < n; k += 4 * stride) {
#pragma unroll
        for (int u = 0; u < 4; ++u) y[k + u * stride] = v;
    }
    for (; k < n; k += stride) y[k] = v;
}
__kernel void fill_tile4(__global float *restrict y, long n, float v) {
    const long base = (long)get_group_id(0) * 1024 + get_local_id(0);
    for (int u = 0; u < 4; ++u) if (base + u * 256 < n) y[base + u * 256] = v;
}
__kernel void take_cur(__global const float *restrict x, __global const int *restrict idx, __global float *restrict y, long n, long m) {
    const long stride = get_global_size(0);
    long k = get_global_id(0);
    for (; k + 3 * stride < n; k += 4 * stride) {
#pragma unroll
        for (int u = 0; u < 4; ++u) { const long i = k + u * stride; y[i] = x[clamp((long)idx[i], 0L, m - 1)]; }
    }
    for (; k < n; k += stride) y[k] = x[clamp((long)idx[k], 0L, m - 1)];
}
__kernel void take_tile4(__global const float *restrict x, __global const int *restrict idx, __global float *restrict y, long n, long m) {
    const long base = (long)get_group_id(0) * 1024 + get_local_id(0);
    int j[4];
    for (int u = 0; u < 4; ++u) j[u] = base + u * 256 < n ? idx[base + u * 256] : 0;
    float v[4];
    for (int u = 0; u < 4; ++u) v[u] = x[clamp((long)j[u], 0L, m - 1)];
    for (int u = 0; u < 4; ++u) if (base + u * 256 < n) y[base + u * 256] = v[u];
}
__kernel void nop(__global float *a, __global float *b, long n, long m) { if (get_global_id(0) == 0 && n < 0) a[0] = b[m]; }
)CLC";
int main() {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const long maxn = getenv("MAPEXP_MAX") ? atol(getenv("MAPEXP_MAX")) : (1L << 28);
    auto ctx = clalgo::Context::default_context();
    clalgo::Queue cq(ctx);
    cl::CommandQueue& q = const_cast<cl::CommandQueue&>(cq.get());
    const auto& info = cq.info();
    std::printf("device: %s, %u CUs\n", info.name.c_str(), info.compute_units);
    cl::Program program(ctx.get(), src);
    try { program.build("-cl-std=CL1.2"); } catch (...) { std::printf("%s\n", program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(ctx.get().getInfo<CL_CONTEXT_DEVICES>()[0]).c_str()); return 1; }
    const std::size_t cu = info.compute_units;
    for (long n : {1L << 20, 1L << 24, 1L << 28}) {
        if (n > maxn) break;
        cl::Buffer x(ctx.get(), CL_MEM_READ_WRITE, n * 4), y(ctx.get(), CL_MEM_READ_WRITE, n * 4), idx(ctx.get(), CL_MEM_READ_WRITE, n * 4);
        q.enqueueFillBuffer(x, 1.0f, 0, n * 4);
        { std::vector<int> h(n); for (long i = 0; i < n; ++i) h[i] = int(i); q.enqueueWriteBuffer(idx, CL_TRUE, 0, n * 4, h.data()); }
        const double dma = per_call(q, [&] { q.enqueueCopyBuffer(x, y, 0, 0, n * 4); });
        std::printf("n=2^%d dma copy %.1f us %.0f GB/s\n", __builtin_ctzl(n), dma * 1e6, 8.0 * n / dma * 1e-9);
        auto run = [&](const char* name, std::size_t global, std::size_t local, double bytes, int nargs, bool take = false) {
            cl::Kernel k(program, name);
            k.setArg(0, x);
            if (take) { k.setArg(1, idx); k.setArg(2, y); k.setArg(3, cl_long(n)); k.setArg(4, cl_long(n)); }
            else if (std::string(name).rfind("fill", 0) == 0) { k.setArg(0, y); k.setArg(1, cl_long(std::string(name) == "fill_vec4" ? n / 4 : n)); k.setArg(2, 2.5f); }
            else { k.setArg(1, y); k.setArg(2, cl_long(std::string(name).find("vec4") != std::string::npos ? n / 4 : n)); }
            const double t = per_call(q, [&] { q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(global), cl::NDRange(local)); });
            std::printf("  %-10s g=%-10zu %.1f us %.0f GB/s (%.3f of dma)\n", name, global, t * 1e6, bytes / t * 1e-9, bytes / t * 1e-9 / (8.0 * n / dma * 1e-9));
        };
        const double cp = 8.0 * n;
        const std::size_t n256 = (n + 255) / 256 * 256;
        run("cur", std::min<std::size_t>(n256, cu * 64 * 256), 256, cp, 3);
        run("cur", std::min<std::size_t>(n256, cu * 16 * 256), 256, cp, 3);
        run("cur", std::min<std::size_t>(n256, cu * 256 * 256), 256, cp, 3);
        run("cur_int", std::min<std::size_t>(n256, cu * 64 * 256), 256, cp, 3);
        run("one_long", n256, 256, cp, 3);
        run("one_int", n256, 256, cp, 3);
        run("one_int", (n + 127) / 128 * 128, 128, cp, 3);
        run("vec4", n / 4, 256, cp, 3);
        run("gs_vec4", std::min<std::size_t>(n / 4, cu * 64 * 256), 256, cp, 3);
        run("tile4", (n + 1023) / 1024 * 256, 256, cp, 3);
        run("tile8", (n + 2047) / 2048 * 256, 256, cp, 3);
        const double fill_dma = per_call(q, [&] { q.enqueueFillBuffer(y, 2.5f, 0, n * 4); });
        std::printf("  FillBuffer %.1f us %.0f GB/s (%.3f of dma)\n", fill_dma * 1e6, 4.0 * n / fill_dma * 1e-9, 4.0 * n / fill_dma * 1e-9 / (8.0 * n / dma * 1e-9));
        run("fill_one", n256, 256, 4.0 * n, 3);
        run("fill_vec4", n / 4, 256, 4.0 * n, 3);
        run("fill_cur", std::min<std::size_t>(n256, cu * 64 * 256), 256, 4.0 * n, 3);
        run("fill_tile4", (n + 1023) / 1024 * 256, 256, 4.0 * n, 3);
        run("take_cur", std::min<std::size_t>(n256, cu * 64 * 256), 256, 12.0 * n, 0, true);
        run("take_tile4", (n + 1023) / 1024 * 256, 256, 12.0 * n, 0, true);
    }
    // launch cost: with / without event, args unchanged
    cl::Buffer a(ctx.get(), CL_MEM_READ_WRITE, 64);
    cl::Kernel k(program, "nop");
    k.setArg(0, a); k.setArg(1, a); k.setArg(2, cl_long(1)); k.setArg(3, cl_long(0));
    auto host = [&](const char* name, const std::function<void()>& f) {
        for (int i = 0; i < 100; ++i) f();
        q.finish();
        auto t0 = clk::now();
        for (int i = 0; i < 4000; ++i) f();
        auto t1 = clk::now();
        q.finish();
        std::printf("%-30s %.2f us/call enqueue\n", name, std::chrono::duration<double>(t1 - t0).count() / 4000 * 1e6);
    };
    for (int r = 0; r < 2; ++r) {
        host("nop 4 args, no event", [&] { q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NDRange(64)); });
        host("nop 4 args, event", [&] { cl::Event e; q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NDRange(64), nullptr, &e); });
        host("nop 4 args, set 1 + no event", [&] { k.setArg(2, cl_long(1)); q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(64), cl::NDRange(64)); });
        host("nop global 2^20, no event", [&] { q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(1 << 20), cl::NDRange(256)); });
    }
}
