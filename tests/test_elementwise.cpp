#include "support.hpp"

#include <limits>
#include <numeric>

using clalgo_test::context;
using clalgo_test::queue;

template <class T>
class ElementwiseTyped : public ::testing::Test {};
TYPED_TEST_SUITE(ElementwiseTyped, clalgo_test::ScalarTypes);

TYPED_TEST(ElementwiseTyped, LinearCombinationMatchesCpuForEveryTypeAndSize) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    const std::string t = clalgo::type_name<T>();
    clalgo::ElementwiseKernel kernel(context(), t + " a, const " + t + " *x, " + t + " b, const " + t + " *y, " + t + " *z",
                                     "z[i] = a*x[i] + b*y[i]");
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), (std::size_t(1) << 20) + 3}) {
        const auto hx = clalgo_test::random_values<T>(n, 1), hy = clalgo_test::random_values<T>(n, 2);
        auto x = clalgo::to_device(queue(), hx);
        auto y = clalgo::to_device(queue(), hy);
        clalgo::Array<T> z(queue(), n);
        const T a = T(3), b = T(2);
        kernel(queue(), a, x, b, y, z);
        const auto hz = z.to_host(queue());
        ASSERT_EQ(hz.size(), n);
        for (std::size_t k = 0; k < n; ++k) {
            const T expected = T(a * hx[k] + b * hy[k]);
            if constexpr (std::is_floating_point_v<T>)  // the device may contract a*x + b*y into an fma
                ASSERT_NEAR(hz[k], expected, 4 * std::numeric_limits<T>::epsilon()) << "n=" << n << " k=" << k;
            else
                ASSERT_EQ(hz[k], expected) << "n=" << n << " k=" << k;
        }
    }
}

TEST(Elementwise, RangeWithStepTouchesExactlyItsIndices) {
    clalgo::ElementwiseKernel mark(context(), "int *out", "out[i] = (int)(i * 2 + 1)");
    const std::size_t n = 1003;
    clalgo::Array<int> out(queue(), n);
    out.fill(queue(), -1);
    mark(queue(), clalgo::range(5, 1000, 7), out);
    const auto host = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        const bool touched = k >= 5 && k < 1000 && (k - 5) % 7 == 0;
        ASSERT_EQ(host[k], touched ? int(k * 2 + 1) : -1) << k;
    }
}
