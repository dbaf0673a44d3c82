// Must not compile: long double has no OpenCL C type (tests/CMakeLists.txt checks the compiler's message).
#include <clalgo/clalgo.hpp>

int main() {
    clalgo::ElementwiseKernel scale(clalgo::Context::default_context(), "double a, double *y", "y[i] *= a");
    clalgo::Queue q(clalgo::Context::default_context());
    clalgo::Array<double> y(q, 4);
    scale(q, 2.0L, y);
}
