// Must not compile: std::complex has no OpenCL C type (tests/CMakeLists.txt checks the compiler's message).
#include <clalgo/clalgo.hpp>

#include <complex>

int main() {
    clalgo::Queue q(clalgo::Context::default_context());
    clalgo::ReductionKernel<std::complex<float>> sum(clalgo::Context::default_context(), "0", "a+b", "x[i]",
                                                     "const float2 *x");
    (void)q;
}
