// Must not compile: bool has no OpenCL C type (tests/CMakeLists.txt checks the compiler's message).
#include <clalgo/clalgo.hpp>

int main() {
    clalgo::ElementwiseKernel flag(clalgo::Context::default_context(), "const int *x, int *y", "y[i] = x[i]");
    clalgo::Queue q(clalgo::Context::default_context());
    clalgo::Array<bool> flags(q, 4);
    clalgo::Array<int> y(q, 4);
    flag(q, flags, y);
}
