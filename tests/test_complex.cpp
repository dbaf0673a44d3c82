// std::complex<float> and <double> as float2 and double2 (core/types.hpp), the complex functions of every
// generated program (codegen/complex.hpp), sum, dot and vdot of complex arrays (algorithm/reductions.hpp) and
// their subset_sum and subset_dot (algorithm/subset_reductions.hpp), each against std::complex on the CPU.
#include "support.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using clalgo_test::context;
using clalgo_test::queue;

namespace {

template <class F>
std::vector<std::complex<F>> random_complex(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<std::complex<F>> values(n);
    for (auto& v : values) v = {static_cast<F>(dist(engine)), static_cast<F>(dist(engine))};
    return values;
}

/// Whether a and b agree to a few units of F's precision, relative to `scale`.
template <class F>
::testing::AssertionResult near(std::complex<F> a, std::complex<F> b, double scale = 1.0) {
    const double tolerance = 64 * std::numeric_limits<F>::epsilon() * std::max(1.0, scale);
    if (std::abs(std::complex<double>(a) - std::complex<double>(b)) <= tolerance) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "(" << a.real() << ", " << a.imag() << ") vs (" << b.real() << ", "
                                         << b.imag() << ")";
}

template <class F>
class Complex : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Complex, Reals);

}  // namespace

TEST(ComplexTypes, AreTheTwoComponentVectorsOfTheirRealType) {
    EXPECT_EQ(clalgo::type_name<std::complex<float>>(), "float2");
    EXPECT_EQ(clalgo::type_name<std::complex<double>>(), "double2");
    EXPECT_TRUE(clalgo::is_builtin_type_v<std::complex<float>>);
    static_assert(sizeof(std::complex<float>) == sizeof(cl_float2));
    static_assert(sizeof(std::complex<double>) == sizeof(cl_double2));
}

TYPED_TEST(Complex, EveryFunctionInAMapMatchesStdComplex) {
    using F = TypeParam;
    using C = std::complex<F>;
    CLALGO_SKIP_WITHOUT_FP64(F);
    const std::string c = clalgo::type_name<C>(), real = clalgo::type_name<F>();
    clalgo::ElementwiseOptions options;
    options.name = "complex_functions";
    clalgo::ElementwiseKernel functions(
        context(), "const " + c + " *x, const " + c + " *y, " + c + " w, " + c + " *out, " + real + " *parts",
        "out[6 * i] = clalgo_cmul(x[i], y[i]);\n"
        "out[6 * i + 1] = clalgo_cdiv(x[i], y[i]);\n"
        "out[6 * i + 2] = clalgo_conj(x[i]);\n"
        "out[6 * i + 3] = clalgo_cexp(x[i]);\n"
        "out[6 * i + 4] = x[i] + y[i] * 2 - w;\n"
        "out[6 * i + 5] = clalgo_cmul(w, x[i]);\n"
        "parts[3 * i] = clalgo_cabs(x[i]);\n"
        "parts[3 * i + 1] = clalgo_creal(y[i]);\n"
        "parts[3 * i + 2] = clalgo_cimag(y[i]);",
        options);
    const std::size_t n = 1000;
    const auto hx = random_complex<F>(n, 1), hy = random_complex<F>(n, 2);
    const C w(F(0.5), F(-2));
    auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy);
    clalgo::Array<C> out(queue(), 6 * n);
    clalgo::Array<F> parts(queue(), 3 * n);
    functions(queue(), clalgo::range(0, n), x, y, w, out, parts);
    const auto hout = out.to_host(queue());
    const auto hparts = parts.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        const C expected[6] = {hx[k] * hy[k], hx[k] / hy[k], std::conj(hx[k]), std::exp(hx[k]),
                               hx[k] + hy[k] * F(2) - w, w * hx[k]};
        for (int f = 0; f < 6; ++f)
            EXPECT_TRUE(near(hout[6 * k + f], expected[f], std::abs(expected[f]))) << "function " << f << " at " << k;
        EXPECT_NEAR(hparts[3 * k], std::abs(hx[k]), 8 * std::numeric_limits<F>::epsilon()) << k;
        EXPECT_EQ(hparts[3 * k + 1], hy[k].real()) << k;
        EXPECT_EQ(hparts[3 * k + 2], hy[k].imag()) << k;
    }
}

TYPED_TEST(Complex, SumDotAndVdotMatchStdComplex) {
    using F = TypeParam;
    using C = std::complex<F>;
    CLALGO_SKIP_WITHOUT_FP64(F);
    static_assert(std::is_same_v<clalgo::sum_type_t<C>, C>);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
        const auto hx = random_complex<F>(n, n + 1), hy = random_complex<F>(n, n + 2);
        std::complex<double> sum = 0, dot = 0, vdot = 0;
        for (std::size_t k = 0; k < n; ++k) {
            sum += std::complex<double>(hx[k]);
            dot += std::complex<double>(hx[k]) * std::complex<double>(hy[k]);
            vdot += std::conj(std::complex<double>(hx[k])) * std::complex<double>(hy[k]);
        }
        auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy);
        // a sum of n terms of size about 1 rounds by about sqrt(n) ulps: allow n ulps
        const double scale = static_cast<double>(n) / 8;
        EXPECT_TRUE(near(clalgo::sum(queue(), x.view()), C(sum), scale)) << "n=" << n;
        EXPECT_TRUE(near(clalgo::dot(queue(), x.view(), y.view()), C(dot), scale)) << "n=" << n;
        EXPECT_TRUE(near(clalgo::vdot(queue(), x.view(), y.view()), C(vdot), scale)) << "n=" << n;
        clalgo::Array<C> on_device(queue(), 1);
        clalgo::vdot(queue(), x.view(), y.view(), on_device.view()).wait();
        EXPECT_TRUE(near(on_device.read_at(queue(), 0), C(vdot), scale)) << "n=" << n;
    }
    // vdot of real arrays is dot
    const auto reals = clalgo::to_device(queue(), std::vector<F>{1, 2, 3});
    EXPECT_EQ(clalgo::vdot(queue(), reals.view(), reals.view()), F(14));
}

TYPED_TEST(Complex, SubsetSumAndSubsetDotMatchStdComplexOverThePickedElements) {
    using F = TypeParam;
    using C = std::complex<F>;
    CLALGO_SKIP_WITHOUT_FP64(F);
    for (std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(257), std::size_t(100003)}) {
        const std::size_t size = count / 3 + 5;
        const auto hx = random_complex<F>(size, count + 1), hy = random_complex<F>(size, count + 2);
        std::mt19937_64 engine(count + 3);
        std::uniform_int_distribution<std::int64_t> at(0, static_cast<std::int64_t>(size) - 1);
        std::vector<std::int64_t> hidx(count);
        for (auto& index : hidx) index = at(engine);
        std::complex<double> sum = 0, dot = 0;
        for (std::int64_t k : hidx) {
            sum += std::complex<double>(hx[std::size_t(k)]);
            dot += std::complex<double>(hx[std::size_t(k)]) * std::complex<double>(hy[std::size_t(k)]);
        }
        const auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy);
        const auto idx = clalgo::to_device(queue(), hidx);
        const auto idx32 = clalgo::to_device(queue(), std::vector<std::int32_t>(hidx.begin(), hidx.end()));
        const double scale = static_cast<double>(count) / 8;
        EXPECT_TRUE(near(clalgo::subset_sum(queue(), x.view(), idx.view()), C(sum), scale)) << "n=" << count;
        EXPECT_TRUE(near(clalgo::subset_dot(queue(), x.view(), y.view(), idx32.view()), C(dot), scale)) << "n=" << count;
        clalgo::Array<C> on_device(queue(), 1);
        clalgo::subset_dot(queue(), x.view(), y.view(), idx.view(), on_device.view()).wait();
        EXPECT_TRUE(near(on_device.read_at(queue(), 0), C(dot), scale)) << "n=" << count;
    }
}

TYPED_TEST(Complex, AReductionKernelMultipliesAndAScanAddsComplexNumbersInOrder) {
    using F = TypeParam;
    using C = std::complex<F>;
    CLALGO_SKIP_WITHOUT_FP64(F);
    const std::string c = clalgo::type_name<C>();
    // the product of unit complex numbers e^(i t): the angles add up
    clalgo::ReductionKernel<C> product(context(), "(" + c + ")(1, 0)", "clalgo_cmul(a, b)",
                                       "clalgo_cexp((" + c + ")(0, t[i]))", "const " + clalgo::type_name<F>() + " *t");
    const std::size_t n = 5000;
    std::vector<F> angles(n);
    double total_angle = 0;
    for (std::size_t k = 0; k < n; ++k) total_angle += angles[k] = static_cast<F>(std::sin(double(k)) * 1e-3);
    const C expected(std::polar(1.0, total_angle));
    EXPECT_TRUE(near(product(queue(), clalgo::to_device(queue(), angles)), expected, 64.0));

    for (clalgo::ScanAlgorithm algorithm : clalgo_test::every_algorithm) {
        clalgo::ScanOptions options;
        options.algorithm = algorithm;
        options.name = std::string("complex_cumsum_") + clalgo_test::name_of(algorithm);
        clalgo::InclusiveScanKernel<C> cumsum(context(), "a+b", "0", options);
        const auto values = random_complex<F>(20000, 7);
        auto x = clalgo::to_device(queue(), values);
        clalgo::Array<C> y(queue(), values.size());
        cumsum(queue(), x, y);
        const auto scanned = y.to_host(queue());
        std::complex<double> running = 0;
        for (std::size_t k = 0; k < values.size(); ++k) {
            running += std::complex<double>(values[k]);
            ASSERT_TRUE(near(scanned[k], C(running), 2500.0)) << clalgo_test::name_of(algorithm) << " at " << k;
        }
    }
}
