// Uses clalgo as an outside project would: one ElementwiseKernel, its result checked against the CPU.
#include <clalgo/clalgo.hpp>

#include <cstdio>
#include <vector>

int main() {
    auto context = clalgo::Context::default_context();
    clalgo::Queue queue(context);
    clalgo::ElementwiseKernel lin_comb(context, "float a, const float *x, float b, const float *y, float *z",
                                       "z[i] = a*x[i] + b*y[i]");
    const std::size_t n = 1000;
    std::vector<float> hx(n), hy(n);
    for (std::size_t k = 0; k < n; ++k) {
        hx[k] = 0.5f * float(k);  // small integers and halves: every result is exact in float
        hy[k] = float(n - k);
    }
    auto x = clalgo::to_device(queue, hx);
    auto y = clalgo::to_device(queue, hy);
    clalgo::Array<float> z(queue, n);
    lin_comb(queue, 2.0f, x, 3.0f, y, z);
    const auto hz = z.to_host(queue);
    for (std::size_t k = 0; k < n; ++k)
        if (hz[k] != 2.0f * hx[k] + 3.0f * hy[k]) {
            std::printf("clalgo consumer: z[%zu] = %g, expected %g\n", k, hz[k], 2.0f * hx[k] + 3.0f * hy[k]);
            return 1;
        }
    std::printf("clalgo consumer: %zu results correct on %s\n", n, queue.info().description().c_str());
    return 0;
}
