// ReductionKernel: map + reduce over arrays, array views and index ranges, checked against independent CPU
// computations. Integer results must be exact; floating-point sums are compared with a compensated CPU sum
// (tolerances stated at float_tolerance). The reduce operators here are all associative and commutative, as
// ReductionKernel's contract requires.
#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using clalgo_test::cl_limits;
using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::highest;
using clalgo_test::lowest;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

constexpr std::size_t big_size = (std::size_t(1) << 24) + 1;
constexpr std::size_t prime_near_million = 999983;

/// The CPU reference for floating-point sums: long double with Neumaier's compensation, exact to far below
/// the tolerances the device results are held to.
template <class T>
long double compensated_sum(const std::vector<T>& values) {
    long double sum = 0, compensation = 0;
    for (T value : values) {
        const long double x = value, t = sum + x;
        compensation += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
        sum = t;
    }
    return sum + compensation;
}

template <class T>
long double absolute_sum(const std::vector<T>& values) {
    long double sum = 0;
    for (T value : values) sum += std::fabs(static_cast<long double>(value));
    return sum;
}

/// How far a device's floating-point sum may lie from the exact one, relative to sum |x_i|. The device adds in
/// its own order (8 chunks per core and 8 accumulators each on a CPU, a grid-stride tree on a GPU); for the
/// random signed data used here the rounding error stays orders of magnitude below these bounds, which are
/// still far tighter than any error of logic that drops or doubles a share of the items. (Lost single items
/// are caught exactly by the integer cases and by the float sums of small integers below.)
template <class T>
constexpr double float_tolerance() {
    return std::is_same_v<T, float> ? 1e-5 : 1e-13;
}

template <class T>
::testing::AssertionResult sum_is_close(T device, const std::vector<T>& values) {
    const long double reference = compensated_sum(values);
    const long double allowed = float_tolerance<T>() * absolute_sum(values);
    const long double error = std::fabs(static_cast<long double>(device) - reference);
    if (std::isfinite(static_cast<double>(device)) && error <= allowed) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "device sum " << static_cast<double>(device) << ", exact "
                                         << static_cast<double>(reference) << ", error " << static_cast<double>(error)
                                         << " > allowed " << static_cast<double>(allowed) << " (n=" << values.size()
                                         << ")";
}

/// Sum in T with T's own wrap-around (the device's char and short sums wrap the same way); exact for wider
/// types, whose test values are too small to overflow.
template <class T>
T wrapping_sum(const std::vector<T>& values) {
    T sum = 0;
    for (T value : values) sum = static_cast<T>(sum + value);
    return sum;
}


/// The sizes every type is reduced at; the big one (2^24 + 1 items) only for a few types, to keep the suite fast.
template <class T>
std::vector<std::size_t> sizes_for() {
    std::vector<std::size_t> sizes{0, 1, 2, 255, 256, 257, prime_near_million};
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>) sizes.push_back(big_size);
    return sizes;
}

template <class T>
std::uint32_t bits_of(T value) {
    static_assert(sizeof(T) == sizeof(std::uint32_t));
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> dist(0, 255);
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(dist(engine));
    return bytes;
}

clalgo::ReductionOptions named(const std::string& name, const std::string& preamble = "") {
    clalgo::ReductionOptions options;
    options.name = name;
    options.preamble = preamble;
    return options;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Every scalar type, every size

template <class T>
class ReductionTyped : public ::testing::Test {};
TYPED_TEST_SUITE(ReductionTyped, clalgo_test::ScalarTypes);

TYPED_TEST(ReductionTyped, SumIsExactForIntegersAndWithinToleranceForFloatsAtEverySize) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    const std::string t = clalgo::type_name<T>();
    clalgo::ReductionKernel<T> sum(context(), "0", "a+b", "x[i]", "const " + t + " *x", named("sum"));
    for (std::size_t n : sizes_for<T>()) {
        const auto host = clalgo_test::random_values<T>(n, n + 1);
        const auto x = clalgo::to_device(queue(), host);
        const T result = sum(queue(), x);
        if constexpr (std::is_floating_point_v<T>) {
            EXPECT_TRUE(sum_is_close(result, host));
        } else {
            EXPECT_EQ(result, wrapping_sum(host)) << "n=" << n;
        }
    }
    if constexpr (std::is_floating_point_v<T>) {
        // small integers in a float: every partial sum stays below 2^24, so the sum is exact and a single lost
        // or doubled item shows
        for (std::size_t n : {std::size_t(257), prime_near_million}) {
            std::vector<T> host(n);
            std::mt19937_64 engine(n);
            std::uniform_int_distribution<int> dist(-8, 8);
            for (auto& v : host) v = static_cast<T>(dist(engine));
            const T result = sum(queue(), clalgo::to_device(queue(), host));
            EXPECT_EQ(result, static_cast<T>(compensated_sum(host))) << "n=" << n;
        }
    }
}

TYPED_TEST(ReductionTyped, MinAndMaxAreExactAndAnEmptyInputGivesTheNeutralLimit) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    const std::string t = clalgo::type_name<T>();
    const auto [lowest_text, highest_text] = cl_limits<T>();
    // OpenCL's min/max are undefined for infinities: floats use fmin/fmax
    const bool is_float = std::is_floating_point_v<T>;
    clalgo::ReductionKernel<T> smallest(context(), highest_text, is_float ? "fmin(a, b)" : "min(a, b)", "x[i]",
                                        "const " + t + " *x", named("smallest"));
    clalgo::ReductionKernel<T> largest(context(), lowest_text, is_float ? "fmax(a, b)" : "max(a, b)", "x[i]",
                                       "const " + t + " *x", named("largest"));
    for (std::size_t n : sizes_for<T>()) {
        const auto host = clalgo_test::random_values<T>(n, 7 * n + 3);
        const auto x = clalgo::to_device(queue(), host);
        const T expected_min = n == 0 ? highest<T>() : *std::min_element(host.begin(), host.end());
        const T expected_max = n == 0 ? lowest<T>() : *std::max_element(host.begin(), host.end());
        EXPECT_EQ(smallest(queue(), x), expected_min) << "n=" << n;
        EXPECT_EQ(largest(queue(), x), expected_max) << "n=" << n;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Neutral elements and operators

TEST(Reduction, EmptyInputReturnsTheNeutralElement) {
    clalgo::ReductionKernel<std::int64_t> product(context(), "1", "a*b", "x[i]", "const long *x", named("product"));
    clalgo::ReductionKernel<std::int32_t> largest(context(), "INT_MIN", "max(a, b)", "x[i]", "const int *x",
                                                  named("largest"));
    const clalgo::Array<std::int64_t> no_longs(queue(), 0);
    const clalgo::Array<std::int32_t> no_ints(queue(), 0);
    EXPECT_EQ(product(queue(), no_longs), 1);
    EXPECT_EQ(largest(queue(), no_ints), std::numeric_limits<std::int32_t>::min());
    // an empty view of a non-empty array and an empty range are empty inputs too
    const auto ints = clalgo::to_device(queue(), std::vector<std::int32_t>{5, 6, 7});
    EXPECT_EQ(largest(queue(), ints.view(3, 0)), std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(largest(queue(), clalgo::range(2, 2), ints), std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(product(queue(), clalgo::range(10, 3, 2), no_longs), 1);
}

TEST(Reduction, ProductOfIntegersIsExact) {
    clalgo::ReductionKernel<std::int64_t> product(context(), "1", "a*b", "x[i]", "const long *x", named("product"));
    std::vector<std::int64_t> host(1000, 1);
    std::mt19937_64 engine(5);
    for (int k = 0; k < 40; ++k) host[engine() % host.size()] = 2 + static_cast<std::int64_t>(engine() % 2);
    const std::int64_t expected =
        std::accumulate(host.begin(), host.end(), std::int64_t(1), std::multiplies<std::int64_t>());
    EXPECT_EQ(product(queue(), clalgo::to_device(queue(), host)), expected);
}

TEST(Reduction, MaxWithMinusInfinityNeutralFindsTheLargestOfAllNegativeFloats) {
    clalgo::ReductionKernel<float> largest(context(), "-INFINITY", "fmax(a, b)", "x[i]", "const float *x",
                                           named("largest"));
    auto host = clalgo_test::random_values<float>(prime_near_million, 11);
    for (auto& v : host) v -= 2.0f;  // all in [-3, -1): a neutral of 0 would win
    EXPECT_EQ(largest(queue(), clalgo::to_device(queue(), host)), *std::max_element(host.begin(), host.end()));
    EXPECT_EQ(largest(queue(), clalgo::Array<float>(queue(), 0)), -std::numeric_limits<float>::infinity());
}

TEST(Reduction, MaxWithIntMinNeutralFindsTheLargestOfAllNegativeInts) {
    clalgo::ReductionKernel<std::int32_t> largest(context(), "INT_MIN", "max(a, b)", "x[i]", "const int *x",
                                                  named("largest"));
    std::vector<std::int32_t> host(prime_near_million);
    std::mt19937_64 engine(12);
    for (auto& v : host) v = -1 - static_cast<std::int32_t>(engine() % 2000000000);
    EXPECT_EQ(largest(queue(), clalgo::to_device(queue(), host)), *std::max_element(host.begin(), host.end()));
}

TEST(Reduction, EmptyMapReadsTheFirstArray) {
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "", "const long *x", named("sum"));
    const auto host = clalgo_test::random_values<std::int64_t>(prime_near_million, 13);
    EXPECT_EQ(sum(queue(), clalgo::to_device(queue(), host)), wrapping_sum(host));
}

// ---------------------------------------------------------------------------------------------------------------
// Maps: type conversion, several arrays, preambles

TEST(Reduction, SumOfUint8IntoInt64IsExactBeyondTwoToThe32) {
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const uchar *x", named("byte_sum"));
    const auto host = random_bytes(big_size, 14);  // sums to about 2^31: a 32-bit or 8-bit accumulator would wrap
    const std::int64_t expected = std::accumulate(host.begin(), host.end(), std::int64_t(0));
    EXPECT_EQ(sum(queue(), clalgo::to_device(queue(), host)), expected);
}

TEST(Reduction, DotProductOfTwoArraysMatchesCpu) {
    {
        clalgo::ReductionKernel<float> dot(context(), "0", "a+b", "x[i]*y[i]", "const float *x, const float *y",
                                           named("dot"));
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(257), prime_near_million}) {
            const auto hx = clalgo_test::random_values<float>(n, 21), hy = clalgo_test::random_values<float>(n, 22);
            std::vector<double> exact(n);
            for (std::size_t k = 0; k < n; ++k) exact[k] = double(hx[k]) * double(hy[k]);
            const float result = dot(queue(), clalgo::to_device(queue(), hx), clalgo::to_device(queue(), hy));
            const long double reference = compensated_sum(exact);
            // the products are rounded to float (or fused into an fma) before they are added: one more float
            // rounding per item, inside the same relative tolerance
            EXPECT_LE(std::fabs(result - reference), float_tolerance<float>() * absolute_sum(exact)) << "n=" << n;
        }
    }
    if (clalgo_test::has_fp64()) {
        clalgo::ReductionKernel<double> dot(context(), "0", "a+b", "x[i]*y[i]", "const double *x, const double *y",
                                            named("dot"));
        const auto hx = clalgo_test::random_values<double>(prime_near_million, 23);
        const auto hy = clalgo_test::random_values<double>(prime_near_million, 24);
        std::vector<long double> exact(hx.size());
        for (std::size_t k = 0; k < hx.size(); ++k) exact[k] = static_cast<long double>(hx[k]) * hy[k];
        const double result = dot(queue(), clalgo::to_device(queue(), hx), clalgo::to_device(queue(), hy));
        EXPECT_LE(std::fabs(result - compensated_sum(exact)), float_tolerance<double>() * absolute_sum(exact));
    }
    {
        clalgo::ReductionKernel<std::int64_t> dot(context(), "0", "a+b", "(long)x[i]*y[i]", "const int *x, const int *y",
                                                  named("dot"));
        const auto hx = clalgo_test::random_values<std::int32_t>(prime_near_million, 25);
        const auto hy = clalgo_test::random_values<std::int32_t>(prime_near_million, 26);
        const std::int64_t expected = std::inner_product(hx.begin(), hx.end(), hy.begin(), std::int64_t(0));
        EXPECT_EQ(dot(queue(), clalgo::to_device(queue(), hx), clalgo::to_device(queue(), hy)), expected);
    }
}

TEST(Reduction, PreambleFunctionsAndUserTextWithPercentAndDollarSignsAreUsedVerbatim) {
    const std::string preamble = R"(/* 100% of the digits; printf("%d %s"); ${not_a_hole} */
inline long digit_sum(long v)
{
    long s = 0;
    for (; v > 0; v /= 10)
        s += v % 10;
    return s;
})";
    clalgo::ReductionKernel<std::int64_t> digits(context(), "0", "a+b", "digit_sum(i) % 7", "", named("digits", preamble));
    std::int64_t expected = 0;
    for (std::int64_t i = 12345; i < 1012345; i += 3) {
        std::int64_t s = 0;
        for (std::int64_t v = i; v > 0; v /= 10) s += v % 10;
        expected += s % 7;
    }
    EXPECT_EQ(digits(queue(), clalgo::range(12345, 1012345, 3)), expected);
    EXPECT_TRUE(contains(digits.source(), "${not_a_hole}"));
}

// ---------------------------------------------------------------------------------------------------------------
// Index ranges

TEST(ReductionRange, SumsExactlyTheIndicesOfRangesWithAnyStartAndStep) {
    clalgo::ReductionKernel<std::int64_t> sum_of_i(context(), "0", "a+b", "i", "", named("sum_of_i"));
    struct Case {
        std::int64_t start, stop, step;
    };
    for (const Case c : {Case{0, 1, 1}, Case{7, 100000, 3}, Case{-500, 1000, 7}, Case{1000, -5, -7}, Case{5, 5, 1},
                         Case{10, 3, 2}, Case{3, 1000003, 1000}, Case{1, 3000001, 2}, Case{-3, 3, 1}}) {
        std::int64_t expected = 0;
        if (c.step > 0)
            for (std::int64_t i = c.start; i < c.stop; i += c.step) expected += i;
        else
            for (std::int64_t i = c.start; i > c.stop; i += c.step) expected += i;
        EXPECT_EQ(sum_of_i(queue(), clalgo::range(c.start, c.stop, c.step)), expected)
            << "range(" << c.start << ", " << c.stop << ", " << c.step << ")";
    }
}

TEST(ReductionRange, IndicesBeyondTwoToThe32AreExactIn64Bits) {
    clalgo::ReductionKernel<std::int64_t> sum_of_i(context(), "0", "a+b", "i", "", named("sum_of_i"));
    std::int64_t expected = 0;
    for (std::int64_t i = 5'000'000'000; i < 5'000'001'000; i += 3) expected += i;
    EXPECT_EQ(sum_of_i(queue(), clalgo::range(5'000'000'000, 5'000'001'000, 3)), expected);
}

TEST(ReductionRange, MapSeesTheNumberOfIndicesAsN) {
    clalgo::ReductionKernel<std::int64_t> sum_of_n(context(), "0", "a+b", "n", "", named("sum_of_n"));
    const auto indices = clalgo::range(3, 100000, 4);
    EXPECT_EQ(sum_of_n(queue(), indices), indices.size() * indices.size());
}

TEST(ReductionRange, StridedRangeOverAnArrayReadsOnlyItsIndices) {
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const int *x", named("sum"));
    const auto host = clalgo_test::random_values<std::int32_t>(prime_near_million, 31);
    const auto x = clalgo::to_device(queue(), host);
    for (std::int64_t start : {0, 1, 5})
        for (std::int64_t step : {1, 2, 5, 1000}) {
            std::int64_t expected = 0;
            for (std::int64_t i = start; i < std::int64_t(host.size()) - 3; i += step) expected += host[i];
            EXPECT_EQ(sum(queue(), clalgo::range(start, std::int64_t(host.size()) - 3, step), x), expected)
                << "start=" << start << " step=" << step;
        }
}

// ---------------------------------------------------------------------------------------------------------------
// Views: every alignment of the first item (GPUs read aligned vectors and the unaligned head and tail one by one;
// CPUs read item by item: both must see exactly the view)

template <class Element, class Result>
void check_every_offset_and_length(const std::string& element_type, const std::vector<Element>& host) {
    clalgo::ReductionKernel<Result> sum(context(), "0", "a+b", "x[i]", "const " + element_type + " *x", named("sum"));
    const auto x = clalgo::to_device(queue(), host);
    for (std::size_t offset = 0; offset < 8; ++offset)
        for (std::size_t length : {0, 1, 2, 15, 16, 17, 63, 64, 65, 129, 1000}) {
            const auto view = x.view(offset, length);
            Result expected = 0;
            for (std::size_t k = offset; k < offset + length; ++k) expected += static_cast<Result>(host[k]);
            EXPECT_EQ(sum(queue(), view), expected) << element_type << " offset=" << offset << " length=" << length;
            // a range starting inside the view moves the first item once more
            for (std::int64_t start : {1, 3})
                if (std::int64_t(length) > start) {
                    const Result skipped = std::accumulate(host.begin() + offset, host.begin() + offset + start, Result(0),
                                                           [](Result a, Element b) { return a + static_cast<Result>(b); });
                    EXPECT_EQ(sum(queue(), clalgo::range(start, std::int64_t(length)), view), expected - skipped)
                        << element_type << " offset=" << offset << " length=" << length << " start=" << start;
                }
        }
}

TEST(ReductionViews, SumOfAViewIsExactForEveryOffsetAndLength) {
    check_every_offset_and_length<std::int32_t, std::int32_t>("int", clalgo_test::random_values<std::int32_t>(1100, 41));
    check_every_offset_and_length<std::uint8_t, std::int64_t>("uchar", random_bytes(1100, 42));
    check_every_offset_and_length<std::int16_t, std::int64_t>("short", clalgo_test::random_values<std::int16_t>(1100, 43));
    if (clalgo_test::has_fp64()) {
        // small integers in a double: exact sums whatever the order
        std::vector<double> host(1100);
        for (std::size_t k = 0; k < host.size(); ++k) host[k] = double(int(k * 7919 % 201) - 100);
        check_every_offset_and_length<double, double>("double", host);
    }
}

TEST(ReductionViews, ViewOfAViewAddsBothOffsets) {
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const long *x", named("sum"));
    const auto host = clalgo_test::random_values<std::int64_t>(5000, 44);
    const auto x = clalgo::to_device(queue(), host);
    const auto inner = x.view(3, 4000).view(5, 2001);
    EXPECT_EQ(sum(queue(), inner), std::accumulate(host.begin() + 8, host.begin() + 8 + 2001, std::int64_t(0)));
}

// ---------------------------------------------------------------------------------------------------------------
// Struct results

namespace {

struct MinMaxArg {
    float lo;
    float hi;
    std::int64_t where;  ///< index of the first occurrence of lo
};

struct KahanSum {
    float sum;
    float compensation;
};

void register_structs() {
    clalgo::register_struct<MinMaxArg>("min_max_arg", "typedef struct { float lo; float hi; long where; } min_max_arg;",
                                       {CLALGO_FIELD(MinMaxArg, lo), CLALGO_FIELD(MinMaxArg, hi),
                                        CLALGO_FIELD(MinMaxArg, where)});
    clalgo::register_struct<KahanSum>("kahan_sum", "typedef struct { float sum; float compensation; } kahan_sum;",
                                      {CLALGO_FIELD(KahanSum, sum), CLALGO_FIELD(KahanSum, compensation)});
}

const char* const min_max_arg_preamble = R"(
inline min_max_arg mma_of(float v, long i)
{
    min_max_arg r;
    r.lo = v;
    r.hi = v;
    r.where = i;
    return r;
}

inline min_max_arg mma_neutral(void)
{
    min_max_arg r;
    r.lo = INFINITY;
    r.hi = -INFINITY;
    r.where = LONG_MAX;
    return r;
}

/* on equal minima the lower index wins, so the result does not depend on the order of combination */
inline min_max_arg mma_combine(min_max_arg a, min_max_arg b)
{
    const bool take_b = b.lo < a.lo || (b.lo == a.lo && b.where < a.where);
    min_max_arg r;
    r.lo = take_b ? b.lo : a.lo;
    r.where = take_b ? b.where : a.where;
    r.hi = fmax(a.hi, b.hi);
    return r;
}
)";

const char* const kahan_preamble = R"(
inline kahan_sum kahan_of(float v)
{
    kahan_sum r;
    r.sum = v;
    r.compensation = 0.0f;
    return r;
}

/* adds two compensated sums; TwoSum yields the exact rounding error of a.sum + b.sum in either order */
inline kahan_sum kahan_add(kahan_sum a, kahan_sum b)
{
    const float s = a.sum + b.sum;
    const float b_part = s - a.sum;
    const float error = (a.sum - (s - b_part)) + (b.sum - b_part);
    kahan_sum r;
    r.sum = s;
    r.compensation = (a.compensation + b.compensation) + error;
    return r;
}
)";

}  // namespace

TEST(ReductionStruct, MinMaxAndArgminOfFloatsWithTiesMatchCpu) {
    register_structs();
    clalgo::ReductionKernel<MinMaxArg> extremes(context(), "mma_neutral()", "mma_combine(a, b)", "mma_of(x[i], i)",
                                                "const float *x", named("extremes", min_max_arg_preamble));
    for (std::size_t n : {std::size_t(1), std::size_t(257), prime_near_million}) {
        // quarters in [-5, 5]: the minimum occurs many times and argmin must name its first occurrence
        std::vector<float> host(n);
        std::mt19937_64 engine(n);
        std::uniform_int_distribution<int> dist(-20, 20);
        for (auto& v : host) v = float(dist(engine)) / 4;
        const auto lo = std::min_element(host.begin(), host.end());
        const MinMaxArg result = extremes(queue(), clalgo::to_device(queue(), host));
        EXPECT_EQ(result.lo, *lo) << "n=" << n;
        EXPECT_EQ(result.hi, *std::max_element(host.begin(), host.end())) << "n=" << n;
        EXPECT_EQ(result.where, lo - host.begin()) << "n=" << n;
    }
    const MinMaxArg empty = extremes(queue(), clalgo::Array<float>(queue(), 0));
    EXPECT_EQ(empty.lo, std::numeric_limits<float>::infinity());
    EXPECT_EQ(empty.hi, -std::numeric_limits<float>::infinity());
    EXPECT_EQ(empty.where, std::numeric_limits<std::int64_t>::max());
}

TEST(ReductionStruct, KahanCompensatedFloatSumIsWithinOneFloatUlpOfTheExactSum) {
    register_structs();
    clalgo::ReductionKernel<KahanSum> kahan(context(), "kahan_of(0.0f)", "kahan_add(a, b)", "kahan_of(x[i])",
                                            "const float *x", named("kahan", kahan_preamble));
    // values near 1 with random low bits: a plain float sum of 2^22 of them rounds away about a unit
    const std::size_t n = std::size_t(1) << 22;
    std::vector<float> host(n);
    std::mt19937_64 engine(51);
    std::uniform_real_distribution<float> dist(1.0f, 1.5f);
    for (auto& v : host) v = dist(engine);
    const KahanSum result = kahan(queue(), clalgo::to_device(queue(), host));
    const long double exact = compensated_sum(host);
    const long double compensated = static_cast<long double>(result.sum) + result.compensation;
    // FLT_EPSILON x the sum, about 0.6 here: one float ulp of the exact sum
    EXPECT_LE(std::fabs(compensated - exact), std::numeric_limits<float>::epsilon() * exact)
        << "sum " << result.sum << " + compensation " << result.compensation << " vs exact " << double(exact);
}

// ---------------------------------------------------------------------------------------------------------------
// Results left on the device

TEST(ReductionAsync, DeviceResultCanBeReadOrPassedToAnotherKernel) {
    clalgo::ReductionKernel<std::int64_t> total(context(), "0", "a+b", "x[i]", "const long *x", named("sum"));
    // x comes first: an elementwise kernel runs over its first array's indices
    clalgo::ElementwiseKernel center(context(), "const long *x, const long *total, long *centered",
                                     "centered[i] = x[i] * n - total[0]");
    const auto host = clalgo_test::random_values<std::int64_t>(100003, 61);
    const std::int64_t expected_total = std::accumulate(host.begin(), host.end(), std::int64_t(0));
    const auto x = clalgo::to_device(queue(), host);

    const clalgo::DeviceResult<std::int64_t> result = total.async(queue(), x);
    ASSERT_EQ(result.value.size(), 1u);
    clalgo::Array<std::int64_t> centered(queue(), host.size());
    center(queue(), x, result.value, centered, clalgo::wait_for(result.event));
    const auto host_centered = centered.to_host(queue());
    for (std::size_t k = 0; k < host.size(); ++k)
        ASSERT_EQ(host_centered[k], host[k] * std::int64_t(host.size()) - expected_total) << k;
    EXPECT_EQ(result.get(queue()), expected_total);

    // on an empty input the device result holds the neutral element
    EXPECT_EQ(total.async(queue(), clalgo::Array<std::int64_t>(queue(), 0)).get(queue()), 0);
}

TEST(ReductionAsync, IntoWritesOnlyItsSlotOfALargerArray) {
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const long *x", named("sum"));
    clalgo::Array<std::int64_t> slots(queue(), 6);
    slots.fill(queue(), -1);
    std::vector<std::int64_t> expected(6, -1);
    std::vector<clalgo::Array<std::int64_t>> inputs;
    for (std::size_t slot : {0, 2, 3, 5}) {
        const auto host = clalgo_test::random_values<std::int64_t>(1000 * slot + 17, 70 + slot);
        inputs.push_back(clalgo::to_device(queue(), host));
        sum.into(queue(), slots.view(slot, 1), inputs.back());
        expected[slot] = std::accumulate(host.begin(), host.end(), std::int64_t(0));
    }
    // slot 4, through a view of a view; an empty input writes the neutral element
    sum.into(queue(), slots.view(1, 5).view(3, 1), clalgo::Array<std::int64_t>(queue(), 0));
    expected[4] = 0;
    EXPECT_EQ(slots.to_host(queue()), expected);
}

TEST(ReductionAsync, OneWorkGroupAndSeveralGiveTheirResultsInEveryFormAtTheBoundary) {
    // a launch of one work-group writes its total as the result; more combine partials through the scratch
    // buffer. GPUs give a work-group 4,096 items, CPUs 2^20: sizes on both sides of both, called in turns, each
    // result blocking, left in a slot of a device array, and in a device result of its own
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const int *x", named("sum"));
    const std::vector<std::size_t> sizes{4095, 4096, 4097, 8193, 1, (std::size_t(1) << 20), (std::size_t(1) << 20) + 1};
    std::vector<clalgo::Array<std::int32_t>> inputs;
    std::vector<std::int64_t> expected;
    for (std::size_t n : sizes) {
        const auto host = clalgo_test::random_values<std::int32_t>(n, 90 + n);
        inputs.push_back(clalgo::to_device(queue(), host));
        expected.push_back(std::accumulate(host.begin(), host.end(), std::int64_t(0)));
    }
    clalgo::Array<std::int64_t> slots(queue(), sizes.size() + 2);
    slots.fill(queue(), -1);
    std::vector<std::int64_t> expected_slots(sizes.size() + 2, -1);
    for (int round = 0; round < 3; ++round) {
        for (std::size_t k = 0; k < sizes.size(); ++k) {
            ASSERT_EQ(sum(queue(), inputs[k]), expected[k]) << "n = " << sizes[k] << ", round " << round;
            sum.into(queue(), slots.view(k + 1, 1), inputs[k]);
            expected_slots[k + 1] = expected[k];
            ASSERT_EQ(sum.async(queue(), inputs[k]).get(queue()), expected[k]) << "n = " << sizes[k];
        }
        EXPECT_EQ(slots.to_host(queue()), expected_slots) << "round " << round;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Errors

TEST(ReductionErrors, BadReduceExpressionThrowsBuildErrorThatQuotesIt) {
    try {
        clalgo::ReductionKernel<std::int32_t> broken(context(), "0", "a + * b", "x[i]", "const int *x",
                                                     named("broken_sum"));
        FAIL() << "a reduce_expr that does not compile built";
    } catch (const clalgo::BuildError& error) {
        EXPECT_EQ(error.kernel_name(), "broken_sum");
        EXPECT_FALSE(error.log().empty());
        EXPECT_TRUE(contains(error.what(), "a + * b"));
        EXPECT_TRUE(contains(error.what(), "reduce_expr"));
        EXPECT_TRUE(contains(error.numbered_source(), "<- your reduce_expr"));
    }
    EXPECT_FALSE(message_of<clalgo::BuildError>([] {
                     clalgo::ReductionKernel<std::int32_t>(context(), "0", "a+b", "x[i] +", "const int *x",
                                                           named("broken_map"));
                 }).empty());
}

TEST(ReductionErrors, ArgumentMismatchThrowsInvalidArgumentNamingTheArgumentAndBothTypes) {
    clalgo::ReductionKernel<float> scaled(context(), "0", "a+b", "x[i] * scale", "const float *x, float scale",
                                          named("scaled_sum"));
    const clalgo::Array<float> floats(queue(), 10);
    const clalgo::Array<std::int32_t> ints(queue(), 10);

    std::string message = message_of<std::invalid_argument>([&] { scaled(queue(), ints, 2.0f); });
    EXPECT_TRUE(contains(message, "'x'"));
    EXPECT_TRUE(contains(message, "const float *"));
    EXPECT_TRUE(contains(message, "Array<int>"));

    message = message_of<std::invalid_argument>([&] { scaled(queue(), floats, 0.1); });  // 2.0 would be converted
    EXPECT_TRUE(contains(message, "'scale'"));
    EXPECT_TRUE(contains(message, "double 0.1"));

    message = message_of<std::invalid_argument>([&] { scaled(queue(), floats); });
    EXPECT_TRUE(contains(message, "takes 2 argument(s)"));

    message = message_of<std::invalid_argument>([&] { scaled.async(queue(), 2.0f, floats); });
    EXPECT_TRUE(contains(message, "scalar"));

    clalgo::Array<float> two(queue(), 2);
    message = message_of<std::invalid_argument>([&] { scaled.into(queue(), two, floats, 2.0f); });
    EXPECT_TRUE(contains(message, "one element"));

    clalgo::ReductionKernel<std::int64_t> sum_of_i(context(), "0", "a+b", "i", "", named("sum_of_i"));
    message = message_of<std::invalid_argument>([&] { sum_of_i(queue()); });
    EXPECT_TRUE(contains(message, "clalgo::range"));
}

TEST(ReductionErrors, ArgumentsMayNotTakeTheNamesOfTheIndexVariables) {
    for (const char* name : {"i", "n"}) {
        const std::string message = message_of<std::invalid_argument>([&] {
            clalgo::ReductionKernel<std::int32_t>(context(), "0", "a+b", "1", std::string("const int *") + name);
        });
        EXPECT_TRUE(contains(message, std::string("'") + name + "'"));
    }
}

TEST(Reduction, ArgumentsNamedAAndBAreTheUsersInMapExprAndTheOperandsInReduceExpr) {
    // dot product of arrays a and b, plus a scalar named a in another kernel: reduce_expr's a and b stay its operands
    clalgo::ReductionKernel<std::int64_t> dot(context(), "0", "a+b", "a[i] * b[i]", "const long *a, const long *b");
    clalgo::ReductionKernel<std::int64_t> scaled_max(context(), "LONG_MIN", "max(a, b)", "x[i] * a",
                                                     "const long *x, long a");
    clalgo::ReductionKernel<std::int64_t> first_array(context(), "0", "a+b", "", "const long *b");  // map b[i]
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
        const auto x = clalgo_test::random_values<std::int64_t>(n, n + 1);
        const auto y = clalgo_test::random_values<std::int64_t>(n, n + 2);
        std::int64_t expected_dot = 0, expected_max = std::numeric_limits<std::int64_t>::min(), expected_sum = 0;
        for (std::size_t k = 0; k < n; ++k) {
            expected_dot += x[k] * y[k];
            expected_max = std::max(expected_max, x[k] * -3);
            expected_sum += y[k];
        }
        const auto dx = clalgo::to_device(queue(), x), dy = clalgo::to_device(queue(), y);
        EXPECT_EQ(dot(queue(), dx, dy), expected_dot) << "n=" << n;
        EXPECT_EQ(scaled_max(queue(), dx, std::int64_t(-3)), expected_max) << "n=" << n;
        EXPECT_EQ(first_array(queue(), dy), expected_sum) << "n=" << n;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Repeated, concurrent and deterministic calls

TEST(ReductionCalls, SameKernelCalledRepeatedlyGivesTheRightResultEachTime) {
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const int *x", named("sum"));
    std::vector<clalgo::Array<std::int32_t>> inputs;
    std::vector<std::int64_t> expected;
    for (std::size_t n : {std::size_t(300000), std::size_t(7), std::size_t(0), std::size_t(65537)}) {
        const auto host = clalgo_test::random_values<std::int32_t>(n, 80 + n);
        inputs.push_back(clalgo::to_device(queue(), host));
        expected.push_back(std::accumulate(host.begin(), host.end(), std::int64_t(0)));
    }
    for (int round = 0; round < 25; ++round)
        for (std::size_t k = 0; k < inputs.size(); ++k) ASSERT_EQ(sum(queue(), inputs[k]), expected[k]) << round;
}

TEST(ReductionCalls, OneKernelUsedFromTwoThreadsOnTwoQueuesAtOnceGivesRightResults) {
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const int *x", named("sum"));
    clalgo::Queue second(context());
    const auto host_a = clalgo_test::random_values<std::int32_t>(1000003, 91);
    const auto host_b = clalgo_test::random_values<std::int32_t>(777777, 92);
    const std::int64_t expected_a = std::accumulate(host_a.begin(), host_a.end(), std::int64_t(0));
    const std::int64_t expected_b = std::accumulate(host_b.begin(), host_b.end(), std::int64_t(0));
    const auto a = clalgo::to_device(queue(), host_a);
    const auto b = clalgo::to_device(queue(), host_b);

    std::atomic<int> wrong{0};
    auto work = [&](const clalgo::Queue& q, const clalgo::Array<std::int32_t>& x, std::int64_t expected) {
        for (int round = 0; round < 40; ++round) {
            if (sum(q, x) != expected) ++wrong;
            if (sum.async(q, x).get(q) != expected) ++wrong;
        }
    };
    std::thread first_thread(work, std::cref(queue()), std::cref(a), expected_a);
    std::thread second_thread(work, std::cref(second), std::cref(b), expected_b);
    first_thread.join();
    second_thread.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST(ReductionCalls, OneKernelUsedFromTwoThreadsOnOneQueueGivesEachThreadItsOwnResult) {
    // the blocking call reads its result from the queue's scratch buffer: the other thread's next call must not
    // overwrite it first
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i]", "const int *x", named("sum"));
    const auto host_a = clalgo_test::random_values<std::int32_t>(1000, 93);
    const auto host_b = clalgo_test::random_values<std::int32_t>(50000, 94);
    const std::int64_t expected_a = std::accumulate(host_a.begin(), host_a.end(), std::int64_t(0));
    const std::int64_t expected_b = std::accumulate(host_b.begin(), host_b.end(), std::int64_t(0));
    ASSERT_NE(expected_a, expected_b);
    const auto a = clalgo::to_device(queue(), host_a);
    const auto b = clalgo::to_device(queue(), host_b);

    std::atomic<int> wrong{0};
    auto work = [&](const clalgo::Array<std::int32_t>& x, std::int64_t expected) {
        for (int round = 0; round < 1000; ++round)
            if (sum(queue(), x) != expected) ++wrong;
    };
    std::thread first_thread(work, std::cref(a), expected_a);
    std::thread second_thread(work, std::cref(b), expected_b);
    first_thread.join();
    second_thread.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST(ReductionCalls, FloatSumIsBitwiseTheSameOnEveryRun) {
    clalgo::ReductionKernel<float> sum(context(), "0", "a+b", "x[i]", "const float *x", named("sum"));
    clalgo::ReductionKernel<float> same(context(), "0", "a+b", "x[i]", "const float *x", named("sum"));
    clalgo::Queue second(context());
    const auto host = clalgo_test::random_values<float>(prime_near_million, 101);
    const auto x = clalgo::to_device(queue(), host);
    const auto copy = clalgo::to_device(queue(), host);
    const std::uint32_t first = bits_of(sum(queue(), x));
    EXPECT_EQ(bits_of(sum(queue(), x)), first);
    EXPECT_EQ(bits_of(sum(queue(), copy)), first);
    EXPECT_EQ(bits_of(same(queue(), x)), first);
    EXPECT_EQ(bits_of(sum(second, x)), first);
    EXPECT_EQ(bits_of(sum.async(queue(), x).get(queue())), first);
}

TEST(Reduction, ArgumentNamesNeverClashWithTheGeneratedCode) {
    // loop variables of the generated code (u, c, k) must not shadow the user's arguments of the same names
    clalgo::ReductionKernel<std::int64_t> weighted(context(), "0", "a+b", "x[i] * u + k + c",
                                                   "const long *x, const long u, const long k, const long c");
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
        const auto values = clalgo_test::random_values<std::int64_t>(n, n + 5);
        std::int64_t expected = 0;
        for (auto v : values) expected += v * 3 + 5 + 7;
        EXPECT_EQ(weighted(queue(), clalgo::to_device(queue(), values), std::int64_t(3), std::int64_t(5), std::int64_t(7)),
                  expected)
            << "n=" << n;
    }
}
