// first_kernel.cpp: squares a million numbers on the device, then sums them there.
#include <clalgo/clalgo.hpp>

#include <cstdio>
#include <vector>

int main() {
    auto ctx = clalgo::Context::default_context();  // the device CLALGO_DEVICE names, else the first GPU, else the CPU
    clalgo::Queue q(ctx);                           // an in-order queue on it
    std::printf("device: %s\n", q.info().description().c_str());

    const std::size_t n = 1 << 20;
    auto x = clalgo::to_device(q, std::vector<float>(n, 0.5f));  // copies a host vector to the device
    clalgo::Array<float> y(q, n);                                // n floats on the device, not initialised

    clalgo::ElementwiseKernel square(ctx, "const float *x, float *y", "y[i] = x[i] * x[i] + i % 2");
    square(q, x, y);  // i runs over [0, n): the size of the first array argument; enqueued, not waited for

    clalgo::ReductionKernel<float> sum(ctx, "0", "a+b", "y[i]", "const float *y");
    std::printf("sum = %.1f, expected %.1f\n", sum(q, y), 0.25 * n + 0.5 * n);  // sum(q, y) waits for its result

    std::vector<float> back = y.to_host(q);  // copies back to the host; blocks
    std::printf("y[0], y[1] = %.2f, %.2f\n", back[0], back[1]);
}
