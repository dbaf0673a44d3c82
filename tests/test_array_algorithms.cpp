// The array-level calls of algorithm/reductions.hpp, subset_reductions.hpp and transforms.hpp, each checked
// against an independent CPU computation (std::accumulate, std::min_element, std::count_if, plain loops) on random
// data: every integer width, float and double (where the device has fp64), at 0, 1, around one work-group (255, 256,
// 257), 4097 and, for a few types, (1 << 20) + 3 elements; over views at an offset; with the result left on the
// device; NaNs; the subset reductions over int32 and int64 indices, an index outside x clamped (or reported in
// checked mode); take, scatter and reverse of a registered struct; the kernels kept per context (a second call
// builds nothing); and the errors a wrong size raises.
#include "support.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using clalgo_test::context;
using clalgo_test::contains;
using clalgo_test::highest;
using clalgo_test::lowest;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

constexpr std::size_t big = (std::size_t(1) << 20) + 3;

/// The sizes a type runs at: all of them for a few types, the small ones for the others (run time on CPUs).
template <class T>
std::vector<std::size_t> sizes_for() {
    std::vector<std::size_t> sizes{0, 1, 255, 256, 257, 4097};
    if (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, float> ||
        std::is_same_v<T, std::uint64_t>)
        sizes.push_back(big);
    return sizes;
}

/// Random values with T's lowest and highest among them (n >= 8), for min, max, argmin and argmax.
template <class T>
std::vector<T> with_extremes(std::size_t n, std::uint64_t seed) {
    auto values = clalgo_test::random_values<T>(n, seed);
    if (n >= 8) {
        std::mt19937_64 engine(seed + 1);
        std::uniform_int_distribution<std::size_t> at(0, n - 1);
        for (int k = 0; k < 2; ++k) {
            values[at(engine)] = std::numeric_limits<T>::lowest();
            values[at(engine)] = std::numeric_limits<T>::max();
        }
    }
    return values;
}

/// The CPU sum in sum_type_t<T> (integers) or double (floating point).
template <class T>
auto cpu_sum(const std::vector<T>& values) {
    using Sum = std::conditional_t<std::is_floating_point_v<T>, double, clalgo::sum_type_t<T>>;
    return std::accumulate(values.begin(), values.end(), Sum(0), [](Sum a, T b) { return a + Sum(b); });
}

/// For floating point: |got - expected| within a few ulps of T per unit of sum |x| (a tree's rounding error).
template <class T>
::testing::AssertionResult close_sum(T got, double expected, double magnitude) {
    const double tolerance = (std::is_same_v<T, float> ? 1e-5 : 1e-12) * (magnitude + 1);
    if (std::fabs(double(got) - expected) <= tolerance) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", expected " << expected << " within " << tolerance;
}

template <class T>
double magnitude(const std::vector<T>& values) {
    double total = 0;
    for (T v : values) total += std::fabs(double(v));
    return total;
}

/// A threshold in the middle of random_values's range, written for OpenCL C and as a T.
template <class T>
std::pair<std::string, T> middle() {
    if constexpr (std::is_floating_point_v<T>) return {"0.25", T(0.25)};
    else return {"25", T(25)};
}

template <class T>
class ArrayReductions : public ::testing::Test {};
using ReductionTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::int32_t, std::uint32_t,
                                        std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(ArrayReductions, ReductionTypes);

TYPED_TEST(ArrayReductions, SumMatchesTheCpuAndIntegersSumIn64Bits) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    static_assert(std::is_same_v<decltype(clalgo::sum(queue(), std::declval<clalgo::ArrayView<T>>())),
                                 std::conditional_t<std::is_floating_point_v<T>, T,
                                                    std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>>);
    for (std::size_t n : sizes_for<T>()) {
        const auto host = clalgo_test::random_values<T>(n, n + 11);
        const auto x = clalgo::to_device(queue(), host);
        if constexpr (std::is_floating_point_v<T>) {
            EXPECT_TRUE(close_sum(clalgo::sum(queue(), x), cpu_sum(host), magnitude(host))) << "n=" << n;
        } else {
            EXPECT_EQ(clalgo::sum(queue(), x), cpu_sum(host)) << "n=" << n;
        }
    }
    if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) {
        // a million of T's highest value: far beyond T's range, exact in 64 bits
        const std::vector<T> host(big, std::numeric_limits<T>::max());
        EXPECT_EQ(clalgo::sum(queue(), clalgo::to_device(queue(), host)), cpu_sum(host));
    }
}

TYPED_TEST(ArrayReductions, MinMaxArgminArgmaxFindTheFirstExtremeLikeStdMinElement) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        // few distinct values: many ties, so "the first" is tested
        const auto host = with_extremes<T>(n, 3 * n + 1);
        const auto x = clalgo::to_device(queue(), host);
        if (n == 0) {
            EXPECT_EQ(clalgo::min(queue(), x), highest<T>());
            EXPECT_EQ(clalgo::max(queue(), x), lowest<T>());
            EXPECT_EQ(clalgo::argmin(queue(), x), -1);
            EXPECT_EQ(clalgo::argmax(queue(), x), -1);
            continue;
        }
        const auto smallest = std::min_element(host.begin(), host.end());
        const auto largest = std::max_element(host.begin(), host.end());
        EXPECT_EQ(clalgo::min(queue(), x), *smallest) << "n=" << n;
        EXPECT_EQ(clalgo::max(queue(), x), *largest) << "n=" << n;
        EXPECT_EQ(clalgo::argmin(queue(), x), smallest - host.begin()) << "n=" << n;
        EXPECT_EQ(clalgo::argmax(queue(), x), largest - host.begin()) << "n=" << n;
    }
}

TYPED_TEST(ArrayReductions, DotMatchesTheCpuWithProductsInTheSumType) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        const auto hx = clalgo_test::random_values<T>(n, n + 5), hy = clalgo_test::random_values<T>(n, n + 6);
        using Sum = std::conditional_t<std::is_floating_point_v<T>, double, clalgo::sum_type_t<T>>;
        Sum expected = 0;
        double size = 0;
        for (std::size_t k = 0; k < n; ++k) {
            expected += Sum(hx[k]) * Sum(hy[k]);
            size += std::fabs(double(hx[k]) * double(hy[k]));
        }
        const auto got = clalgo::dot(queue(), clalgo::to_device(queue(), hx), clalgo::to_device(queue(), hy));
        if constexpr (std::is_floating_point_v<T>) EXPECT_TRUE(close_sum(got, expected, size)) << "n=" << n;
        else EXPECT_EQ(got, expected) << "n=" << n;
    }
}

TYPED_TEST(ArrayReductions, CountIfAnyOfAllOfAgreeWithTheStdAlgorithms) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    const auto [text, threshold] = middle<T>();
    for (std::size_t n : sizes_for<T>()) {
        const auto host = clalgo_test::random_values<T>(n, n + 17);
        const auto x = clalgo::to_device(queue(), host);
        const auto above = [t = threshold](T v) { return v > t; };
        EXPECT_EQ(clalgo::count_if(queue(), x, "x[i] > " + text), std::count_if(host.begin(), host.end(), above))
            << "n=" << n;
        EXPECT_EQ(clalgo::any_of(queue(), x, "x[i] > " + text), std::any_of(host.begin(), host.end(), above)) << "n=" << n;
        EXPECT_EQ(clalgo::all_of(queue(), x, "x[i] > " + text), std::all_of(host.begin(), host.end(), above)) << "n=" << n;
        // the predicate sees i and n: elements equal to their mirror image
        std::int64_t mirrored = 0;
        for (std::size_t k = 0; k < n; ++k) mirrored += host[k] == host[n - 1 - k];
        EXPECT_EQ(clalgo::count_if(queue(), x, "x[i] == x[n - 1 - i]"), mirrored) << "n=" << n;
        // exactly one element holds, then all do (the same predicate: one kernel per type)
        if (n > 0) {
            std::vector<T> one(n, T(0));
            one[n / 2] = T(100);
            const auto y = clalgo::to_device(queue(), one);
            EXPECT_EQ(clalgo::count_if(queue(), y, "x[i] > " + text), 1) << "n=" << n;
            EXPECT_TRUE(clalgo::any_of(queue(), y, "x[i] > " + text)) << "n=" << n;
            EXPECT_EQ(clalgo::all_of(queue(), y, "x[i] > " + text), n == 1) << "n=" << n;
            const auto z = clalgo::to_device(queue(), std::vector<T>(n, T(100)));
            EXPECT_TRUE(clalgo::all_of(queue(), z, "x[i] > " + text)) << "n=" << n;
            EXPECT_EQ(clalgo::count_if(queue(), z, "x[i] > " + text), std::int64_t(n)) << "n=" << n;
        }
    }
}

TYPED_TEST(ArrayReductions, ResultsLeftOnTheDeviceEqualTheBlockingOnesAndTheCpu) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    using Sum = clalgo::sum_type_t<T>;
    const std::size_t n = 4097;
    const auto [text, threshold] = middle<T>();
    const auto above = [t = threshold](T v) { return v > t; };
    const auto host = with_extremes<T>(n, 99);
    const auto small = clalgo_test::random_values<T>(n, 100);
    const auto x = clalgo::to_device(queue(), host), s = clalgo::to_device(queue(), small);
    // results at offsets inside larger arrays: the offset must be honoured
    clalgo::Array<Sum> sums(queue(), 4);
    clalgo::Array<T> extremes(queue(), 3);
    clalgo::Array<std::int64_t> indices(queue(), 5);
    clalgo::Array<std::int32_t> flags(queue(), 3);
    clalgo::sum(queue(), s, sums.view(1, 1));
    clalgo::dot(queue(), s, s, sums.view(2, 1));
    clalgo::min(queue(), x, extremes.view(1, 1));
    clalgo::max(queue(), x, extremes.view(2, 1));
    clalgo::argmin(queue(), x, indices.view(1, 1));
    clalgo::argmax(queue(), x, indices.view(2, 1));
    clalgo::count_if(queue(), s, indices.view(3, 1), "x[i] > " + text);
    clalgo::argmin(queue(), x.view(0, 0), indices.view(4, 1));
    clalgo::any_of(queue(), s, flags.view(1, 1), "x[i] > " + text);
    cl::Event last = clalgo::all_of(queue(), s, flags.view(2, 1), "x[i] > " + text);
    last.wait();
    const auto sum_back = sums.to_host(queue());
    const auto extremes_back = extremes.to_host(queue());
    const auto indices_back = indices.to_host(queue());
    const auto flags_back = flags.to_host(queue());
    if constexpr (std::is_floating_point_v<T>) {
        EXPECT_TRUE(close_sum(sum_back[1], cpu_sum(small), magnitude(small)));
    } else {
        EXPECT_EQ(sum_back[1], cpu_sum(small));
    }
    EXPECT_EQ(sum_back[2], clalgo::dot(queue(), s, s));
    EXPECT_EQ(extremes_back[1], *std::min_element(host.begin(), host.end()));
    EXPECT_EQ(extremes_back[2], *std::max_element(host.begin(), host.end()));
    EXPECT_EQ(indices_back[1], std::min_element(host.begin(), host.end()) - host.begin());
    EXPECT_EQ(indices_back[2], std::max_element(host.begin(), host.end()) - host.begin());
    EXPECT_EQ(indices_back[3], std::count_if(small.begin(), small.end(), above));
    EXPECT_EQ(indices_back[4], -1);
    EXPECT_EQ(flags_back[1], std::any_of(small.begin(), small.end(), above) ? 1 : 0);
    EXPECT_EQ(flags_back[2], std::all_of(small.begin(), small.end(), above) ? 1 : 0);
}

TYPED_TEST(ArrayReductions, ViewsAtAnOffsetAreReducedOverTheirOwnElementsOnly) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    const std::size_t n = 4097, offset = 3, length = n - 10;
    const auto host = with_extremes<T>(n, 5);
    const auto x = clalgo::to_device(queue(), host);
    const std::vector<T> part(host.begin() + offset, host.begin() + offset + length);
    const auto view = x.view(offset, length);
    EXPECT_EQ(clalgo::min(queue(), view), *std::min_element(part.begin(), part.end()));
    EXPECT_EQ(clalgo::max(queue(), view), *std::max_element(part.begin(), part.end()));
    EXPECT_EQ(clalgo::argmin(queue(), view), std::min_element(part.begin(), part.end()) - part.begin());
    EXPECT_EQ(clalgo::argmax(queue(), view), std::max_element(part.begin(), part.end()) - part.begin());
    const auto small = clalgo_test::random_values<T>(n, 6);
    const std::vector<T> small_part(small.begin() + offset, small.begin() + offset + length);
    const auto s = clalgo::to_device(queue(), small);
    if constexpr (std::is_floating_point_v<T>) {
        EXPECT_TRUE(close_sum(clalgo::sum(queue(), s.view(offset, length)), cpu_sum(small_part), magnitude(small_part)));
    } else {
        EXPECT_EQ(clalgo::sum(queue(), s.view(offset, length)), cpu_sum(small_part));
    }
    // the predicate's i and n count from the view's first element
    std::int64_t mirrored = 0;
    for (std::size_t k = 0; k < length; ++k) mirrored += small_part[k] == small_part[length - 1 - k];
    EXPECT_EQ(clalgo::count_if(queue(), s.view(offset, length), "x[i] == x[n - 1 - i]"), mirrored);
}

TEST(ArrayReductions, ANaNIsTheMinAndMaxAndArgminArgmaxReturnTheFirstNaNAsInNumpy) {
    auto host = clalgo_test::random_values<float>(1000, 8);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    host[700] = nan;
    host[400] = nan;
    const auto x = clalgo::to_device(queue(), host);
    EXPECT_TRUE(std::isnan(clalgo::min(queue(), x)));
    EXPECT_TRUE(std::isnan(clalgo::max(queue(), x)));
    EXPECT_EQ(clalgo::argmin(queue(), x), 400);
    EXPECT_EQ(clalgo::argmax(queue(), x), 400);
    // without NaNs, infinities are ordinary values
    host[700] = std::numeric_limits<float>::infinity();
    host[400] = -std::numeric_limits<float>::infinity();
    const auto y = clalgo::to_device(queue(), host);
    EXPECT_EQ(clalgo::argmin(queue(), y), 400);
    EXPECT_EQ(clalgo::argmax(queue(), y), 700);
    EXPECT_EQ(clalgo::max(queue(), y), std::numeric_limits<float>::infinity());
}

TEST(ArrayReductions, WrongSizesThrowInvalidArgumentNamingTheCallAndTheArgument) {
    const auto x = clalgo::to_device(queue(), std::vector<std::int32_t>(6, 1));
    const auto y = clalgo::to_device(queue(), std::vector<std::int32_t>(5, 1));
    clalgo::Array<std::int64_t> two(queue(), 2);
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::dot(queue(), x, y); }),
                         "clalgo: dot: y has 5 elements but x has 6"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::sum(queue(), x, two); }),
                         "clalgo: sum: result has 2 elements"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::argmax(queue(), x, two); }),
                         "clalgo: argmax: result has 2 elements"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::count_if(queue(), x, two, "x[i] > 0"); }),
                         "clalgo: count_if: result has 2 elements"));
}

template <class T>
class ArrayTransforms : public ::testing::Test {};
using TransformTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::int32_t, std::uint32_t,
                                        std::int64_t, float, double>;
TYPED_TEST_SUITE(ArrayTransforms, TransformTypes);

template <class T>
::testing::AssertionResult same_elements(const std::vector<T>& got, const std::vector<T>& expected) {
    if (got.size() != expected.size())
        return ::testing::AssertionFailure() << "size " << got.size() << ", expected " << expected.size();
    for (std::size_t k = 0; k < got.size(); ++k)
        if (!(got[k] == expected[k]))
            return ::testing::AssertionFailure() << "first difference at " << k << " of " << got.size() << ": "
                                                 << +got[k] << ", expected " << +expected[k];
    return ::testing::AssertionSuccess();
}

TYPED_TEST(ArrayTransforms, IotaAndArangeCountLikeALoop) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        clalgo::Array<T> x(queue(), n);
        clalgo::iota(queue(), x, 3);
        std::vector<T> expected(n);
        for (std::size_t k = 0; k < n; ++k) expected[k] = static_cast<T>(T(3) + static_cast<T>(k));
        EXPECT_TRUE(same_elements(x.to_host(queue()), expected)) << "n=" << n;
    }
    // arange: up, and down where T is signed; the count is ceil((stop - start) / step)
    std::vector<std::array<T, 3>> bounds{{T(5), T(100), T(7)}, {T(5), T(5), T(1)}, {T(9), T(5), T(1)}};
    if constexpr (std::is_signed_v<T>) bounds.push_back({T(100), T(-20), T(-3)});
    if constexpr (std::is_floating_point_v<T>) bounds.push_back({T(0), T(1), T(0.1)});
    for (const auto& [start, stop, step] : bounds) {
        std::vector<T> expected;
        for (std::int64_t k = 0;; ++k) {
            const double value = double(start) + double(k) * double(step);
            if (step > T(0) ? !(value < double(stop)) : !(value > double(stop))) break;
            expected.push_back(static_cast<T>(value));
        }
        const auto got = clalgo::arange<T>(queue(), start, stop, step).to_host(queue());
        ASSERT_EQ(got.size(), expected.size()) << +start << " " << +stop << " " << +step;
        for (std::size_t k = 0; k < got.size(); ++k)
            EXPECT_NEAR(double(got[k]), double(expected[k]), std::is_floating_point_v<T> ? 1e-6 : 0.0) << k;
    }
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::arange<T>(queue(), T(0), T(5), T(0)); }),
                         "clalgo: arange: step must not be 0"));
}

TYPED_TEST(ArrayTransforms, FillSetsOnlyTheViewsElements) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    // the device's own way, then the GPUs' (a map kernel; CLALGO_MAP_ITEMS gives CPUs the GPUs' map policy)
    for (const char* forced : {"", "4"}) {
        setenv("CLALGO_MAP_ITEMS", forced, 1);
        for (std::size_t n : {std::size_t(2), std::size_t(4097)}) {
            auto host = clalgo_test::random_values<T>(n, n);
            const auto x = clalgo::to_device(queue(), host);
            clalgo::fill(queue(), x.view(1, n - 2), 42);
            std::fill(host.begin() + 1, host.end() - 1, T(42));
            EXPECT_TRUE(same_elements(x.to_host(queue()), host)) << "n=" << n << " CLALGO_MAP_ITEMS=" << forced;
        }
        unsetenv("CLALGO_MAP_ITEMS");
    }
}

TYPED_TEST(ArrayTransforms, TakeGathersAndClampsIndicesOutsideTheArray) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        const auto host = clalgo_test::random_values<T>(n, n + 21);
        const auto x = clalgo::to_device(queue(), host);
        std::vector<std::int64_t> indices(n == 0 ? 0 : n + 7);
        std::mt19937_64 engine(n);
        std::uniform_int_distribution<std::int64_t> dist(0, n == 0 ? 0 : std::int64_t(n) - 1);
        for (auto& index : indices) index = dist(engine);
        if (indices.size() > 2) indices[0] = -5, indices[1] = std::int64_t(n) + 3;
        std::vector<T> expected(indices.size());
        for (std::size_t k = 0; k < indices.size(); ++k)
            expected[k] = host[std::clamp<std::int64_t>(indices[k], 0, std::int64_t(n) - 1)];
        const auto got = clalgo::take(queue(), x, clalgo::to_device(queue(), indices));
        EXPECT_TRUE(same_elements(got.to_host(queue()), expected)) << "n=" << n;
    }
}

TYPED_TEST(ArrayTransforms, ScatterWritesEachElementAtItsIndexAndSkipsIndicesOutsideTheOutput) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        const auto host = clalgo_test::random_values<T>(n, n + 31);
        std::vector<std::int64_t> indices(n);
        std::iota(indices.begin(), indices.end(), 0);
        std::shuffle(indices.begin(), indices.end(), std::mt19937_64(n));
        if (n > 2) indices[0] = -1, indices[1] = std::int64_t(n);
        std::vector<T> expected(n, T(77));
        for (std::size_t k = 0; k < n; ++k)
            if (indices[k] >= 0 && indices[k] < std::int64_t(n)) expected[indices[k]] = host[k];
        const auto out = clalgo::to_device(queue(), std::vector<T>(n, T(77)));
        clalgo::scatter(queue(), clalgo::to_device(queue(), host), clalgo::to_device(queue(), indices), out);
        EXPECT_TRUE(same_elements(out.to_host(queue()), expected)) << "n=" << n;
    }
}

TYPED_TEST(ArrayTransforms, ReverseInPlaceAndIntoAnotherArrayMatchStdReverse) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        const auto host = clalgo_test::random_values<T>(n, n + 41);
        auto expected = host;
        std::reverse(expected.begin(), expected.end());
        const auto x = clalgo::to_device(queue(), host);
        clalgo::Array<T> out(queue(), n);
        clalgo::reverse(queue(), x, out);
        EXPECT_TRUE(same_elements(out.to_host(queue()), expected)) << "into, n=" << n;
        clalgo::reverse(queue(), x);
        EXPECT_TRUE(same_elements(x.to_host(queue()), expected)) << "in place, n=" << n;
        if (n >= 4) {  // a view: the elements outside it stay
            auto part = host;
            std::reverse(part.begin() + 1, part.end() - 2);
            const auto y = clalgo::to_device(queue(), host);
            clalgo::reverse(queue(), y.view(1, n - 3));
            EXPECT_TRUE(same_elements(y.to_host(queue()), part)) << "view, n=" << n;
        }
    }
}

TYPED_TEST(ArrayTransforms, AstypeMaximumMinimumAndWhereMatchALoop) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        const auto hx = clalgo_test::random_values<T>(n, n + 51), hy = clalgo_test::random_values<T>(n, n + 52);
        const auto hc = clalgo_test::random_values<std::uint8_t>(n, n + 53);  // 0 to 100: mostly true
        std::vector<float> as_float(n);
        std::vector<T> larger(n), smaller(n), chosen(n);
        for (std::size_t k = 0; k < n; ++k) {
            as_float[k] = static_cast<float>(hx[k]);
            larger[k] = hx[k] < hy[k] ? hy[k] : hx[k];
            smaller[k] = hy[k] < hx[k] ? hy[k] : hx[k];
            chosen[k] = hc[k] % 3 ? hx[k] : hy[k];
        }
        std::vector<std::uint8_t> condition(n);
        for (std::size_t k = 0; k < n; ++k) condition[k] = hc[k] % 3;
        const auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy);
        EXPECT_TRUE(same_elements(clalgo::astype<float>(queue(), x).to_host(queue()), as_float)) << "n=" << n;
        EXPECT_TRUE(same_elements(clalgo::maximum(queue(), x, y).to_host(queue()), larger)) << "n=" << n;
        EXPECT_TRUE(same_elements(clalgo::minimum(queue(), x, y).to_host(queue()), smaller)) << "n=" << n;
        EXPECT_TRUE(same_elements(clalgo::where(queue(), clalgo::to_device(queue(), condition), x, y).to_host(queue()), chosen))
            << "n=" << n;
    }
}

TYPED_TEST(ArrayTransforms, TransformAppliesAnExpressionOverOneOrTwoArrays) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : sizes_for<T>()) {
        const auto hx = clalgo_test::random_values<T>(n, n + 61), hy = clalgo_test::random_values<T>(n, n + 62);
        std::vector<T> twice(n);
        std::vector<double> difference(n);
        for (std::size_t k = 0; k < n; ++k) {
            twice[k] = static_cast<T>(hx[k] * 2 + 1);
            difference[k] = double(hx[k]) - double(hy[k]) + double(k);
        }
        const auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy);
        clalgo::Array<float> out(queue(), n);
        clalgo::transform(queue(), x, y, out, "(float)x[i] - (float)y[i] + (float)i");
        const auto got = out.to_host(queue());
        for (std::size_t k = 0; k < n; ++k)
            ASSERT_NEAR(got[k], difference[k], 1e-6 * (std::fabs(difference[k]) + 1)) << "n=" << n << " k=" << k;
        clalgo::transform(queue(), x, x, "x[i] * 2 + 1");  // in place
        EXPECT_TRUE(same_elements(x.to_host(queue()), twice)) << "n=" << n;
    }
}

TEST(ArrayTransforms, TakeWith32BitIndicesAndAstypeTruncateTowardZeroLikeCpp) {
    const std::vector<float> host{2.7f, -2.7f, 0.5f, -0.5f, 1e6f, 3.0f};
    const auto x = clalgo::to_device(queue(), host);
    std::vector<std::int32_t> expected(host.size());
    for (std::size_t k = 0; k < host.size(); ++k) expected[k] = static_cast<std::int32_t>(host[k]);
    EXPECT_TRUE(same_elements(clalgo::astype<std::int32_t>(queue(), x).to_host(queue()), expected));
    const std::vector<std::int32_t> indices{5, 0, 0, 4, -3, 99};
    std::vector<float> picked;
    for (std::int32_t index : indices) picked.push_back(host[std::clamp(index, 0, 5)]);
    EXPECT_TRUE(same_elements(clalgo::take(queue(), x, clalgo::to_device(queue(), indices)).to_host(queue()), picked));
}

TEST(ArrayTransforms, WrongSizesThrowInvalidArgumentNamingTheCallAndTheArgument) {
    const auto six = clalgo::to_device(queue(), std::vector<std::int32_t>(6, 1));
    const auto five = clalgo::to_device(queue(), std::vector<std::int32_t>(5, 1));
    const auto indices = clalgo::to_device(queue(), std::vector<std::int64_t>(5, 0));
    const clalgo::Array<std::int32_t> empty;
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::take(queue(), six, indices, six); }),
                         "clalgo: take: out has 6 elements but indices has 5"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::take(queue(), empty, indices); }),
                         "clalgo: take: x is empty but indices has 5 elements"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::scatter(queue(), six, indices, six); }),
                         "clalgo: scatter: indices has 5 elements but x has 6"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::reverse(queue(), six, five); }),
                         "clalgo: reverse: out has 5 elements but x has 6"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::maximum(queue(), six, five); }),
                         "clalgo: maximum: y has 5 elements but x has 6"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::where(queue(), six, six, five); }),
                         "clalgo: where: y has 5 elements but cond has 6"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::transform(queue(), six, five, "x[i]"); }),
                         "clalgo: transform: out has 5 elements but x has 6"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::astype(queue(), six, five); }),
                         "clalgo: astype: out has 5 elements but x has 6"));
}

struct Particle {
    float x, y;
    std::int32_t id;
};

TEST(ArrayTransforms, TakeScatterAndReverseMoveRegisteredStructs) {
    static const bool registered = [] {
        clalgo::register_struct<Particle>("particle", "typedef struct { float x, y; int id; } particle;",
                                          {CLALGO_FIELD(Particle, x), CLALGO_FIELD(Particle, y), CLALGO_FIELD(Particle, id)});
        return true;
    }();
    (void)registered;
    const std::size_t n = 257;
    std::vector<Particle> host(n);
    for (std::size_t k = 0; k < n; ++k) host[k] = {float(k) / 2, -float(k), std::int32_t(k * 7)};
    const auto x = clalgo::to_device(queue(), host);
    std::vector<std::int64_t> indices(n);
    for (std::size_t k = 0; k < n; ++k) indices[k] = std::int64_t((k * 31) % n);  // a permutation: 31 and 257 are coprime
    const auto picked = clalgo::take(queue(), x, clalgo::to_device(queue(), indices)).to_host(queue());
    clalgo::Array<Particle> scattered(queue(), n);
    clalgo::scatter(queue(), x, clalgo::to_device(queue(), indices), scattered);
    const auto scattered_back = scattered.to_host(queue());
    clalgo::reverse(queue(), x);
    const auto reversed = x.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        EXPECT_EQ(picked[k].id, host[indices[k]].id) << k;
        EXPECT_EQ(picked[k].x, host[indices[k]].x) << k;
        EXPECT_EQ(scattered_back[indices[k]].id, host[k].id) << k;
        EXPECT_EQ(scattered_back[indices[k]].y, host[k].y) << k;
        EXPECT_EQ(reversed[k].id, host[n - 1 - k].id) << k;
    }
}

// ---- subset_sum, subset_min, subset_max, subset_dot (algorithm/subset_reductions.hpp) ----

template <class T>
class SubsetReductions : public ::testing::Test {};
TYPED_TEST_SUITE(SubsetReductions, clalgo_test::ScalarTypes);

/// `count` random indices into an array of `size` elements (repeats among them).
template <class Index>
std::vector<Index> random_indices(std::size_t count, std::size_t size, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<std::size_t> at(0, size == 0 ? 0 : size - 1);
    std::vector<Index> indices(count);
    for (auto& index : indices) index = static_cast<Index>(at(engine));
    return indices;
}

/// The four subset reductions of x and y over `count` random indices, each against a loop over x[indices[k]].
template <class T, class Index>
void check_subsets(std::size_t count) {
    using Sum = std::conditional_t<std::is_floating_point_v<T>, double, clalgo::sum_type_t<T>>;
    const std::size_t size = count == 0 ? 0 : count / 2 + 7;  // fewer elements than indices: repeats
    const auto hx = clalgo_test::random_values<T>(size, count + 1), hy = clalgo_test::random_values<T>(size, count + 2);
    const auto hm = with_extremes<T>(size, count + 4);  // for min and max
    const auto hidx = random_indices<Index>(count, size, count + 3);
    std::vector<T> picked;
    Sum sum = 0, dot = 0;
    double sum_size = 0, dot_size = 0;
    for (Index k : hidx) {
        picked.push_back(hm[std::size_t(k)]);
        sum += Sum(hx[std::size_t(k)]);
        dot += Sum(hx[std::size_t(k)]) * Sum(hy[std::size_t(k)]);
        sum_size += std::fabs(double(hx[std::size_t(k)]));
        dot_size += std::fabs(double(hx[std::size_t(k)]) * double(hy[std::size_t(k)]));
    }
    const auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy), m = clalgo::to_device(queue(), hm);
    const auto idx = clalgo::to_device(queue(), hidx);
    const std::string where = "n=" + std::to_string(count) + " index " + clalgo::type_name<Index>();
    if constexpr (std::is_floating_point_v<T>) {
        EXPECT_TRUE(close_sum(clalgo::subset_sum(queue(), x, idx), sum, sum_size)) << where;
        EXPECT_TRUE(close_sum(clalgo::subset_dot(queue(), x, y, idx), dot, dot_size)) << where;
    } else {
        EXPECT_EQ(clalgo::subset_sum(queue(), x, idx), sum) << where;
        EXPECT_EQ(clalgo::subset_dot(queue(), x, y, idx), dot) << where;
    }
    EXPECT_EQ(clalgo::subset_min(queue(), m, idx),
              picked.empty() ? highest<T>() : *std::min_element(picked.begin(), picked.end())) << where;
    EXPECT_EQ(clalgo::subset_max(queue(), m, idx),
              picked.empty() ? lowest<T>() : *std::max_element(picked.begin(), picked.end())) << where;
}

TYPED_TEST(SubsetReductions, SumMinMaxAndDotMatchALoopOverThePickedElementsForBothIndexTypes) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t count : {0, 1, 255, 256, 257, 4097}) {
        check_subsets<T, std::int32_t>(count);
        check_subsets<T, std::int64_t>(count);
    }
    if (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint16_t> || std::is_same_v<T, float>) {
        check_subsets<T, std::int64_t>(big);
        check_subsets<T, std::int32_t>(big);
    }
}

TYPED_TEST(SubsetReductions, ResultsLeftOnTheDeviceEqualTheBlockingOnes) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    using Sum = clalgo::sum_type_t<T>;
    const auto x = clalgo::to_device(queue(), clalgo_test::random_values<T>(1000, 7));
    const auto y = clalgo::to_device(queue(), clalgo_test::random_values<T>(1000, 8));
    const auto idx = clalgo::to_device(queue(), random_indices<std::int64_t>(4097, 1000, 9));
    // results at offsets inside larger arrays: the offset must be honoured
    clalgo::Array<Sum> sums(queue(), 3);
    clalgo::Array<T> extremes(queue(), 3);
    clalgo::subset_sum(queue(), x, idx, sums.view(1, 1));
    clalgo::subset_dot(queue(), x, y, idx, sums.view(2, 1));
    clalgo::subset_min(queue(), x, idx, extremes.view(1, 1));
    clalgo::subset_max(queue(), x, idx, extremes.view(2, 1)).wait();
    const auto sums_back = sums.to_host(queue());
    const auto extremes_back = extremes.to_host(queue());
    EXPECT_EQ(sums_back[1], clalgo::subset_sum(queue(), x, idx));
    EXPECT_EQ(sums_back[2], clalgo::subset_dot(queue(), x, y, idx));
    EXPECT_EQ(extremes_back[1], clalgo::subset_min(queue(), x, idx));
    EXPECT_EQ(extremes_back[2], clalgo::subset_max(queue(), x, idx));
}

TEST(SubsetReductions, IndicesOutsideXAreClampedAsTakeClampsThem) {
    const auto hx = clalgo_test::random_values<std::int32_t>(100, 4);
    const std::vector<std::int64_t> hidx{-1, 5, 100, -1000000000000, 99, 1000000000000, 0};
    std::int64_t sum = 0;
    for (std::int64_t k : hidx) sum += hx[std::size_t(std::clamp<std::int64_t>(k, 0, 99))];
    const auto x = clalgo::to_device(queue(), hx);
    const auto idx = clalgo::to_device(queue(), hidx);
    EXPECT_EQ(clalgo::subset_sum(queue(), x, idx), sum);
    EXPECT_EQ(clalgo::subset_sum(queue(), x, idx), clalgo::sum(queue(), clalgo::take(queue(), x, idx)));
    EXPECT_EQ(clalgo::subset_max(queue(), x, idx), clalgo::max(queue(), clalgo::take(queue(), x, idx)));
}

TEST(SubsetReductions, CheckedModeReportsAnIndexOutsideXNamingTheKernelXTheIndexAndTheSize) {
    clalgo_test::ScopedVariable on("CLALGO_CHECKED", "1");
    const auto x = clalgo::to_device(queue(), clalgo_test::random_values<float>(100, 4));
    const auto idx = clalgo::to_device(queue(), std::vector<std::int32_t>{3, 100, 7});
    const std::string message = message_of<clalgo::OutOfBoundsError>([&] { clalgo::subset_sum(queue(), x, idx); });
    for (const char* part : {"kernel 'clalgo_subset_sum'", "'x'", "index 100 is out of bounds", "the array has 100 elements"})
        EXPECT_TRUE(contains(message, part)) << message;
    // in bounds, checked mode gives the same sum
    const auto good = clalgo::to_device(queue(), std::vector<std::int32_t>{3, 99, 7});
    const auto hx = x.to_host(queue());
    EXPECT_EQ(clalgo::subset_max(queue(), x, good), std::max({hx[3], hx[99], hx[7]}));
}

TEST(SubsetReductions, ANaNAmongThePickedElementsIsTheMinAndMax) {
    auto hx = clalgo_test::random_values<double>(50, 3);
    if (!clalgo_test::has_fp64()) GTEST_SKIP() << "no fp64";
    hx[10] = std::numeric_limits<double>::quiet_NaN();
    const auto x = clalgo::to_device(queue(), hx);
    const auto with_nan = clalgo::to_device(queue(), std::vector<std::int32_t>{1, 10, 2});
    const auto without = clalgo::to_device(queue(), std::vector<std::int32_t>{1, 11, 2});
    EXPECT_TRUE(std::isnan(clalgo::subset_min(queue(), x, with_nan)));
    EXPECT_TRUE(std::isnan(clalgo::subset_max(queue(), x, with_nan)));
    EXPECT_EQ(clalgo::subset_min(queue(), x, without), std::min({hx[1], hx[11], hx[2]}));
}

TEST(SubsetReductions, WrongSizesAndIndicesIntoAnEmptyArrayThrowInvalidArgumentNamingTheCall) {
    const auto x = clalgo::to_device(queue(), std::vector<std::int32_t>(6, 1));
    const auto y = clalgo::to_device(queue(), std::vector<std::int32_t>(5, 1));
    const auto idx = clalgo::to_device(queue(), std::vector<std::int64_t>{0, 1});
    clalgo::Array<std::int64_t> two(queue(), 2);
    clalgo::Array<std::int32_t> empty(queue(), 0);
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::subset_dot(queue(), x, y, idx); }),
                         "clalgo: subset_dot: y has 5 elements but x has 6"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::subset_sum(queue(), x, idx, two); }),
                         "clalgo: subset_sum: result has 2 elements"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::subset_min(queue(), empty, idx); }),
                         "clalgo: subset_min: x is empty but indices has 2 elements"));
}

TEST(ArrayAlgorithmsDocs, SubsetReductions) {
    clalgo::Queue& q = queue();
    auto x = clalgo::arange<float>(q, 0.0f, 10.0f);  // 0, 1, ..., 9
    auto indices = clalgo::to_device(q, std::vector<std::int32_t>{2, 7, 7, 4});
    float picked = clalgo::subset_sum(q, x, indices);      // x[2] + x[7] + x[7] + x[4] = 20
    float smallest = clalgo::subset_min(q, x, indices);    // 2
    clalgo::Array<float> on_device(q, 1);
    clalgo::subset_dot(q, x, x, indices, on_device).wait();  // 4 + 49 + 49 + 16 = 118
    const std::vector<float> hx = x.to_host(q);
    EXPECT_EQ(picked, hx[2] + hx[7] + hx[7] + hx[4]);
    EXPECT_EQ(smallest, std::min({hx[2], hx[7], hx[4]}));
    EXPECT_EQ(on_device.read_at(q, 0), hx[2] * hx[2] + 2 * hx[7] * hx[7] + hx[4] * hx[4]);
}

TEST(ArrayAlgorithmsDocs, OneCallEach) {
    clalgo::Queue& q = queue();
    const auto indices = clalgo::to_device(q, std::vector<std::int32_t>{7, 0, 3});
    auto x = clalgo::arange<float>(q, -1.0f, 1.0f, 0.25f);  // -1, -0.75, ..., 0.75
    float total = clalgo::sum(q, x);
    std::int64_t largest_at = clalgo::argmax(q, x);
    std::int64_t positive = clalgo::count_if(q, x, "x[i] > 0");
    clalgo::Array<float> squares(q, x.size());
    clalgo::transform(q, x, squares, "x[i] * x[i]");
    auto picked = clalgo::take(q, squares, indices);  // picked[k] = squares[indices[k]]
    std::vector<float> expected;
    for (int k = 0; k < 8; ++k) expected.push_back(-1.0f + 0.25f * float(k));
    EXPECT_EQ(x.to_host(q), expected);
    EXPECT_EQ(total, std::accumulate(expected.begin(), expected.end(), 0.0f));
    EXPECT_EQ(largest_at, std::max_element(expected.begin(), expected.end()) - expected.begin());
    EXPECT_EQ(positive, std::count_if(expected.begin(), expected.end(), [](float v) { return v > 0; }));
    const std::vector<float> picked_expected{expected[7] * expected[7], expected[0] * expected[0], expected[3] * expected[3]};
    EXPECT_EQ(picked.to_host(q), picked_expected);
}

TEST(ArrayAlgorithms, ASecondCallBuildsNothingAndANewPredicateBuildsOneProgram) {
    const auto x = clalgo::to_device(queue(), clalgo_test::random_values<std::int16_t>(300, 9));
    clalgo::Array<std::int16_t> out(queue(), 300);
    auto every_call = [&] {
        clalgo::sum(queue(), x);
        clalgo::argmin(queue(), x);
        clalgo::count_if(queue(), x, "x[i] < 3");
        clalgo::transform(queue(), x, out, "x[i] + 3");
        clalgo::reverse(queue(), x, out);
    };
    every_call();
    const auto before = clalgo::cache_statistics();
    every_call();
    const auto after = clalgo::cache_statistics();
    EXPECT_EQ(after.source_builds + after.disk_hits + after.memory_hits,
              before.source_builds + before.disk_hits + before.memory_hits);
    clalgo::count_if(queue(), x, "x[i] < 4");
    const auto another = clalgo::cache_statistics();
    EXPECT_EQ(another.source_builds + another.disk_hits + another.memory_hits,
              after.source_builds + after.disk_hits + after.memory_hits + context().devices().size());
}

}  // namespace
