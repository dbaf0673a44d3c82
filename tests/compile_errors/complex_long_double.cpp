// Must not compile: std::complex<long double> has no OpenCL C type (tests/CMakeLists.txt checks the compiler's
// message); std::complex<float> and <double> are float2 and double2.
#include <clalgo/clalgo.hpp>

#include <complex>

int main() {
    clalgo::Queue q(clalgo::Context::default_context());
    clalgo::ReductionKernel<std::complex<long double>> sum(clalgo::Context::default_context(), "0", "a+b", "x[i]",
                                                           "const double2 *x");
    (void)q;
}
