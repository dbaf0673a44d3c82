// GenericScanKernel, InclusiveScanKernel and ExclusiveScanKernel, each result checked against an independent CPU
// scan. Every test runs all four scan algorithms, forced through ScanOptions::algorithm (chained: the CPU
// default; serial: the CPU's where the output uses last_item; reduce_then_scan: the default of GPUs other than
// NVIDIA's; single_pass: decoupled look-back, the NVIDIA default), so that PoCL runs every code path; sizes
// straddle the tiles of the tiled algorithms (64 x 4 = 256 items on a CPU device; up to 4096 on a GPU), the
// blocks of the serial one and the chained one's (64 items where it is forced).
//
// Comparisons are exact. Integer scans wrap in their own type on the device and on the CPU alike (the CPU
// reference adds and multiplies in the unsigned type of the same width, so it has no undefined behaviour; the
// data keep int and long, whose overflow is undefined in OpenCL C, from overflowing). Floating-point data are
// small integers for sums (every partial sum below 2^23: exact in any order, checked), +-1 with a few +-2 and
// +-0.5 for products (powers of two: exact), anything for min and max.
//
// Building the programs dominates the run time on PoCL (one program per type, operator and algorithm, about 1 s
// for the serial algorithm and 3 to 5 s for the tiled ones with a cold cache); the largest size (2^22 + 7) runs
// for int and float sums only.
#include "support.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using clalgo::ScanAlgorithm;
using clalgo_test::cl_limits;
using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::every_algorithm;
using clalgo_test::highest;
using clalgo_test::lowest;
using clalgo_test::message_of;
using clalgo_test::name_of;
using clalgo_test::queue;

namespace {

clalgo::ScanOptions options_for(ScanAlgorithm algorithm, const std::string& name) {
    clalgo::ScanOptions options;
    options.name = name;
    options.algorithm = algorithm;
    return options;
}

constexpr std::size_t cpu_tile = 256;       // 64 work-items x 4 items: the tiled algorithms on a CPU device
constexpr std::size_t largest_tile = 4096;  // 256 work-items x 16 items: 4-byte values on a GPU
constexpr std::size_t big_size = (std::size_t(1) << 22) + 7;

/// 0, 1, and one below, at and above the tile sizes of CPU and GPU devices, several tiles plus an odd number,
/// and enough tiles that reduce_then_scan gives each work-group several of them.
std::vector<std::size_t> boundary_sizes() {
    return {0,    1,    2,    63,   64,   65,   cpu_tile - 1, cpu_tile, cpu_tile + 1, 1000, 5 * cpu_tile + 3,
            2047, 2048, 2049, largest_tile - 1, largest_tile, largest_tile + 1, 37 * cpu_tile + 5,
            3 * largest_tile + 17};
}

// ----- values as the device computes them: wrapping integer arithmetic in the type itself

template <class T>
T wrapping_add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
        return a + b;
    }
}

template <class T>
T wrapping_multiply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no promotion to int
        return static_cast<T>(static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b))));
    } else {
        return a * b;
    }
}


// ----- comparing results: the first difference, readably

template <class T>
std::string show(const T& value) {
    std::ostringstream out;
    if constexpr (std::is_same_v<T, cl_int2>) out << "(" << value.s[0] << ", " << value.s[1] << ")";
    else out << +value;  // +: int8_t prints as a number
    return out.str();
}

template <class T>
bool same(const T& a, const T& b) {
    if constexpr (std::is_same_v<T, cl_int2>) return a.s[0] == b.s[0] && a.s[1] == b.s[1];
    else return a == b;
}

template <class T>
::testing::AssertionResult equal_vectors(const std::vector<T>& device, const std::vector<T>& expected) {
    if (device.size() != expected.size())
        return ::testing::AssertionFailure() << "size " << device.size() << ", expected " << expected.size();
    for (std::size_t k = 0; k < device.size(); ++k)
        if (!same(device[k], expected[k]))
            return ::testing::AssertionFailure() << "first difference at " << k << " of " << device.size() << ": "
                                                 << show(device[k]) << ", expected " << show(expected[k]);
    return ::testing::AssertionSuccess();
}

// ----- CPU references

template <class T, class Op>
std::vector<T> cpu_inclusive_scan(const std::vector<T>& values, Op op) {
    std::vector<T> result(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) result[k] = k == 0 ? values[0] : op(result[k - 1], values[k]);
    return result;
}

template <class T, class Op>
std::vector<T> cpu_exclusive_scan(const std::vector<T>& values, T neutral, Op op) {
    std::vector<T> result(values.size());
    T running = neutral;
    for (std::size_t k = 0; k < values.size(); ++k) {
        result[k] = running;
        running = op(running, values[k]);
    }
    return result;
}

// ----- test data

/// Integers for sums: random_values (which wrap 1- and 2-byte sums many times and cannot overflow int or long);
/// small integers for floating point, whose partial sums the test checks to stay exact.
template <class T>
std::vector<T> sum_values(std::size_t n, std::uint64_t seed) {
    if constexpr (std::is_integral_v<T>) {
        return clalgo_test::random_values<T>(n, seed);
    } else {
        std::mt19937_64 engine(seed);
        std::uniform_int_distribution<int> dist(-8, 8);
        std::vector<T> values(n);
        for (auto& v : values) v = static_cast<T>(dist(engine));
        return values;
    }
}

/// Factors whose products the device computes exactly like the CPU: odd numbers for unsigned types (their
/// products wrap but never reach 0), +-1 with at most 12 factors of +-3 for signed ones (int and long never
/// overflow; char and short wrap when converted back from int, like the CPU reference), +-1 with at most 12
/// factors of +-2 or +-0.5 for floating point (exact powers of two).
template <class T>
std::vector<T> product_values(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::vector<T> values(n);
    if constexpr (std::is_unsigned_v<T>) {
        std::uniform_int_distribution<int> dist(0, 49);
        for (auto& v : values) v = static_cast<T>(2 * dist(engine) + 1);
    } else {
        for (auto& v : values) v = (engine() & 1) ? T(1) : T(-1);
        for (int k = 0; k < 12 && n > 0; ++k) {
            T factor;
            if constexpr (std::is_floating_point_v<T>) factor = (engine() & 1) ? T(2) : T(0.5);
            else factor = T(3);
            values[engine() % n] = (engine() & 1) ? factor : T(-factor);
        }
    }
    return values;
}

/// Runs `scan_expr` over every size with each algorithm, one GenericScanKernel writing both the inclusive scan
/// (`item`, what InclusiveScanKernel writes) and the exclusive one (`prev_item`, what ExclusiveScanKernel
/// writes), and compares both with the CPU.
template <class T, class Op, class MakeValues>
void check_scan(const std::string& name, const std::string& scan_expr, const std::string& neutral_text, T neutral, Op op,
                MakeValues make_values, const std::vector<std::size_t>& sizes) {
    const std::string t = clalgo::type_name<T>();
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::GenericScanKernel<T> scan(context(), "const " + t + " *x, " + t + " *inclusive, " + t + " *exclusive",
                                          "x[i]", scan_expr, neutral_text,
                                          "inclusive[i] = item; exclusive[i] = prev_item", options_for(algorithm, name));
        ASSERT_EQ(scan.algorithm(), algorithm);
        for (std::size_t n : sizes) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const std::vector<T> host = make_values(n, 1000 * n + 7);
            const auto x = clalgo::to_device(queue(), host);
            clalgo::Array<T> inclusive(queue(), n), exclusive(queue(), n);
            scan(queue(), x, inclusive, exclusive);
            EXPECT_TRUE(equal_vectors(inclusive.to_host(queue()), cpu_inclusive_scan(host, op)));
            EXPECT_TRUE(equal_vectors(exclusive.to_host(queue()), cpu_exclusive_scan(host, neutral, op)));
        }
    }
}

// ----- the affine maps x -> p*x + q (mod 2^64): composition is associative, not commutative

struct AffineMap {
    std::uint64_t p, q;
};

bool operator==(const AffineMap& a, const AffineMap& b) { return a.p == b.p && a.q == b.q; }
std::ostream& operator<<(std::ostream& out, const AffineMap& m) { return out << "{p=" << m.p << ", q=" << m.q << "}"; }

/// `first`, then `second`: x -> second.p * (first.p * x + first.q) + second.q.
AffineMap compose(const AffineMap& first, const AffineMap& second) {
    return {second.p * first.p, second.p * first.q + second.q};
}

void register_affine_map() {
    static const bool registered = [] {
        clalgo::register_struct<AffineMap>("affine_map", "typedef struct { ulong p, q; } affine_map;",
                                           {CLALGO_FIELD(AffineMap, p), CLALGO_FIELD(AffineMap, q)});
        return true;
    }();
    (void)registered;
}

}  // namespace

// -------------------------------------------------------------------------------------------------------------
// Sum, max, min and product over every scalar type, inclusive and exclusive, every algorithm and size

template <class T>
class ScanTyped : public ::testing::Test {};
TYPED_TEST_SUITE(ScanTyped, clalgo_test::ScalarTypes);

TYPED_TEST(ScanTyped, SumWrapsLikeTheCpuInEveryAlgorithmAndSize) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    std::vector<std::size_t> sizes = boundary_sizes();
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>) sizes.push_back(big_size);
    if constexpr (std::is_floating_point_v<T>) {
        // the precondition of exact float sums: every partial sum of the test data (and so every sum of a run of
        // items, whatever the device combines) stays below 2^24 in magnitude
        for (std::size_t n : sizes) {
            const auto values = sum_values<T>(n, 1000 * n + 7);
            long long partial = 0, largest = 0;
            for (T v : values) largest = std::max(largest, std::abs(partial += static_cast<long long>(v)));
            ASSERT_LT(largest, 1 << 23) << "n=" << n;
        }
    }
    check_scan<T>("sum", "a+b", "0", T(0), wrapping_add<T>, sum_values<T>, sizes);
}

TYPED_TEST(ScanTyped, MaxHasTheLowestValueAsNeutral) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    // OpenCL's max is undefined for infinities: floating point uses fmax
    const std::string expr = std::is_floating_point_v<T> ? "fmax(a, b)" : "max(a, b)";
    check_scan<T>("largest", expr, cl_limits<T>().first, lowest<T>(), [](T a, T b) { return std::max(a, b); },
                  clalgo_test::random_values<T>, boundary_sizes());
}

TYPED_TEST(ScanTyped, MinHasTheHighestValueAsNeutral) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    const std::string expr = std::is_floating_point_v<T> ? "fmin(a, b)" : "min(a, b)";
    check_scan<T>("smallest", expr, cl_limits<T>().second, highest<T>(), [](T a, T b) { return std::min(a, b); },
                  clalgo_test::random_values<T>, boundary_sizes());
}

TYPED_TEST(ScanTyped, ProductHasNeutralOneAndWrapsLikeTheCpu) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    check_scan<T>("product", "a*b", "1", T(1), wrapping_multiply<T>, product_values<T>, boundary_sizes());
}

// -------------------------------------------------------------------------------------------------------------
// The named kernels: non-zero neutral elements, in-place scans, totals, 1- and 2-byte and vector types

TEST(ExclusiveScan, NonZeroNeutralIsTheFirstItemAndCarriesAcrossManyTiles) {
    std::vector<std::size_t> sizes = boundary_sizes();
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::ExclusiveScanKernel<std::int64_t> product(context(), "a*b", "1", options_for(algorithm, "product"));
        clalgo::ExclusiveScanKernel<std::int32_t> largest(context(), "max(a, b)", "INT_MIN",
                                                          options_for(algorithm, "largest"));
        for (std::size_t n : sizes) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const auto factors = product_values<std::int64_t>(n, n + 3);
            clalgo::Array<std::int64_t> products(queue(), n);
            product(queue(), clalgo::to_device(queue(), factors), products);
            EXPECT_TRUE(equal_vectors(products.to_host(queue()),
                                      cpu_exclusive_scan(factors, std::int64_t(1), std::multiplies<std::int64_t>())));

            // all negative: a neutral of 0 would show everywhere
            std::vector<std::int32_t> negatives(n);
            std::mt19937_64 engine(n);
            for (auto& v : negatives) v = -1 - static_cast<std::int32_t>(engine() % 2000000000);
            clalgo::Array<std::int32_t> maxima(queue(), n);
            largest(queue(), clalgo::to_device(queue(), negatives), maxima);
            EXPECT_TRUE(equal_vectors(maxima.to_host(queue()),
                                      cpu_exclusive_scan(negatives, std::numeric_limits<std::int32_t>::min(),
                                                     [](std::int32_t a, std::int32_t b) { return std::max(a, b); })));
        }
    }
}

TEST(InclusiveScan, SumOfFourMillionIntsIsExactInEveryAlgorithm) {
    const auto host = clalgo_test::random_values<std::int32_t>(big_size, 99);
    const auto input = clalgo::to_device(queue(), host);
    const auto expected = cpu_inclusive_scan(host, wrapping_add<std::int32_t>);
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::InclusiveScanKernel<std::int32_t> sum(context(), "a+b", "0", options_for(algorithm, "inclusive_sum"));
        clalgo::Array<std::int32_t> output(queue(), big_size);
        sum(queue(), input, output);
        EXPECT_TRUE(equal_vectors(output.to_host(queue()), expected));
    }
}

TEST(Scan, InPlaceInclusiveAndExclusiveScansReadEachItemBeforeOverwritingIt) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::InclusiveScanKernel<std::int32_t> sum(context(), "a+b", "0", options_for(algorithm, "inclusive_sum"));
        clalgo::ExclusiveScanKernel<std::int64_t> product(context(), "a*b", "1", options_for(algorithm, "product"));
        for (std::size_t n : boundary_sizes()) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const auto values = clalgo_test::random_values<std::int32_t>(n, n + 11);
            auto data = clalgo::to_device(queue(), values);
            sum(queue(), data, data);
            EXPECT_TRUE(equal_vectors(data.to_host(queue()), cpu_inclusive_scan(values, wrapping_add<std::int32_t>)));

            const auto factors = product_values<std::int64_t>(n, n + 12);
            auto products = clalgo::to_device(queue(), factors);
            product(queue(), products, products);
            EXPECT_TRUE(equal_vectors(products.to_host(queue()),
                                      cpu_exclusive_scan(factors, std::int64_t(1), std::multiplies<std::int64_t>())));
        }
    }
}

TEST(Scan, WithTotalWritesTheLastInclusiveItemOrTheNeutralForAnEmptyInput) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::InclusiveScanKernel<std::int32_t> sum(context(), "a+b", "0", options_for(algorithm, "inclusive_sum"));
        clalgo::ExclusiveScanKernel<std::int64_t> product(context(), "a*b", "1", options_for(algorithm, "product"));
        clalgo::ExclusiveScanKernel<std::int32_t> largest(context(), "max(a, b)", "INT_MIN",
                                                          options_for(algorithm, "largest"));
        clalgo::Array<std::int32_t> int_total(queue(), 1);
        clalgo::Array<std::int64_t> long_total(queue(), 1);
        for (std::size_t n : boundary_sizes()) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const auto values = clalgo_test::random_values<std::int32_t>(n, n + 21);
            const auto input = clalgo::to_device(queue(), values);
            clalgo::Array<std::int32_t> ints(queue(), n);

            int_total.fill(queue(), -12345);  // a sentinel the total must replace, even where n = 0
            sum.with_total(queue(), input, ints, int_total);
            EXPECT_EQ(int_total.read_at(queue(), 0),
                      std::accumulate(values.begin(), values.end(), std::int32_t(0), wrapping_add<std::int32_t>));
            EXPECT_TRUE(equal_vectors(ints.to_host(queue()), cpu_inclusive_scan(values, wrapping_add<std::int32_t>)));

            // an exclusive scan's total is still the inclusive one: the item at n-1, not prev_item
            int_total.fill(queue(), -12345);
            largest.with_total(queue(), input, ints, int_total);
            EXPECT_EQ(int_total.read_at(queue(), 0),
                      n == 0 ? std::numeric_limits<std::int32_t>::min() : *std::max_element(values.begin(), values.end()));

            const auto factors = product_values<std::int64_t>(n, n + 22);
            clalgo::Array<std::int64_t> longs(queue(), n);
            long_total.fill(queue(), -12345);
            product.with_total(queue(), clalgo::to_device(queue(), factors), longs, long_total);
            EXPECT_EQ(long_total.read_at(queue(), 0),
                      std::accumulate(factors.begin(), factors.end(), std::int64_t(1), std::multiplies<std::int64_t>()));
        }
    }
}

TEST(Scan, OneAndTwoByteTypesScanWithTheNamedKernels) {
    // PyOpenCL rejects scans of char and short; clalgo scans them in their own type, wrapping like the CPU
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::InclusiveScanKernel<std::int8_t> sum(context(), "a+b", "0", options_for(algorithm, "char_sum"));
        clalgo::ExclusiveScanKernel<std::uint16_t> smallest(context(), "min(a, b)", "USHRT_MAX",
                                                            options_for(algorithm, "ushort_min"));
        for (std::size_t n : boundary_sizes()) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const auto chars = clalgo_test::random_values<std::int8_t>(n, n + 31);
            clalgo::Array<std::int8_t> char_sums(queue(), n);
            sum(queue(), clalgo::to_device(queue(), chars), char_sums);
            EXPECT_TRUE(equal_vectors(char_sums.to_host(queue()), cpu_inclusive_scan(chars, wrapping_add<std::int8_t>)));

            std::vector<std::uint16_t> shorts(n);
            std::mt19937_64 engine(n + 32);
            for (auto& v : shorts) v = static_cast<std::uint16_t>(1000 + engine() % 60000);
            auto minima = clalgo::to_device(queue(), shorts);
            smallest(queue(), minima, minima);  // in place
            EXPECT_TRUE(equal_vectors(minima.to_host(queue()),
                                      cpu_exclusive_scan(shorts, std::uint16_t(USHRT_MAX),
                                                     [](std::uint16_t a, std::uint16_t b) { return std::min(a, b); })));
        }
    }
}

TEST(InclusiveScan, VectorTypeSumsComponentwise) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::InclusiveScanKernel<cl_int2> sum(context(), "a+b", "(int2)(0, 0)", options_for(algorithm, "int2_sum"));
        for (std::size_t n : boundary_sizes()) {
            SCOPED_TRACE("n=" + std::to_string(n));
            std::vector<cl_int2> values(n);
            std::mt19937_64 engine(n + 41);
            for (auto& v : values) {
                v.s[0] = static_cast<cl_int>(engine() % 201) - 100;
                v.s[1] = static_cast<cl_int>(engine() % 1000);
            }
            clalgo::Array<cl_int2> sums(queue(), n);
            sum(queue(), clalgo::to_device(queue(), values), sums);
            const auto expected = cpu_inclusive_scan(values, [](cl_int2 a, cl_int2 b) {
                cl_int2 c;
                c.s[0] = a.s[0] + b.s[0];
                c.s[1] = a.s[1] + b.s[1];
                return c;
            });
            EXPECT_TRUE(equal_vectors(sums.to_host(queue()), expected));
        }
    }
}

// -------------------------------------------------------------------------------------------------------------
// Operators: non-commutative, segmented

TEST(Scan, NonCommutativeCompositionOfAffineMapsIsCombinedInOrder) {
    register_affine_map();
    const std::string preamble = R"(inline affine_map identity_map(void)
{
    affine_map m;
    m.p = 1;
    m.q = 0;
    return m;
}

/* first, then second: x -> second.p * (first.p * x + first.q) + second.q */
inline affine_map compose(affine_map first, affine_map second)
{
    affine_map m;
    m.p = second.p * first.p;
    m.q = second.p * first.q + second.q;
    return m;
})";
    const AffineMap identity{1, 0};
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::ScanOptions options = options_for(algorithm, "compose_maps");
        options.preamble = preamble;
        clalgo::GenericScanKernel<AffineMap> scan(context(), "const affine_map *maps, affine_map *inclusive, affine_map *exclusive",
                                                  "maps[i]", "compose(a, b)", "identity_map()",
                                                  "inclusive[i] = item; exclusive[i] = prev_item", options);
        for (std::size_t n : boundary_sizes()) {
            SCOPED_TRACE("n=" + std::to_string(n));
            std::vector<AffineMap> maps(n);
            std::mt19937_64 engine(n + 51);
            for (auto& m : maps) m = {engine() | 1, engine()};  // odd factors: products never become 0
            const auto expected = cpu_inclusive_scan(maps, compose);
            if (n >= 2) {  // the data tell the order apart: composing the other way round gives another map
                AffineMap reversed = maps[0];
                for (std::size_t k = 1; k < n; ++k) reversed = compose(maps[k], reversed);
                ASSERT_FALSE(reversed == expected.back());
            }
            clalgo::Array<AffineMap> inclusive(queue(), n), exclusive(queue(), n);
            scan(queue(), clalgo::to_device(queue(), maps), inclusive, exclusive);
            const auto device_inclusive = inclusive.to_host(queue());
            const auto device_exclusive = exclusive.to_host(queue());
            const auto expected_exclusive = cpu_exclusive_scan(maps, identity, compose);
            for (std::size_t k = 0; k < n; ++k) {
                ASSERT_EQ(device_inclusive[k], expected[k]) << "inclusive, k=" << k;
                ASSERT_EQ(device_exclusive[k], expected_exclusive[k]) << "exclusive, k=" << k;
            }
        }
    }
}

namespace {

/// Segment starts for a scan of n items, in patterns that stress the tiles: random starts (i = 0 and every tile
/// start among them), starts only far apart (segments longer than several tiles), a start at every item, none
/// at all, and starts just before and after tile boundaries.
std::vector<std::vector<std::uint8_t>> segment_patterns(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::vector<std::vector<std::uint8_t>> patterns(5, std::vector<std::uint8_t>(n, 0));
    for (std::size_t k = 0; k < n; ++k) {
        patterns[0][k] = k == 0 || k % cpu_tile == 0 || k % largest_tile == 0 || engine() % 20 == 0;
        patterns[1][k] = k % 1300 == 7;
        patterns[2][k] = 1;
        patterns[4][k] = k % cpu_tile == cpu_tile - 1 || k % cpu_tile == 1 || k % 64 == 63;
    }
    return patterns;
}

}  // namespace

TEST(SegmentedScan, RestartsAtEverySegmentStartWithTheNeutralAsPrevItem) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::ScanOptions options = options_for(algorithm, "segmented_sum");
        options.is_segment_start_expr = "starts[i]";
        clalgo::GenericScanKernel<std::int64_t> sum(context(),
                                                    "const long *x, const uchar *starts, long *inclusive, long *exclusive",
                                                    "x[i]", "across_seg_boundary ? b : a+b", "0",
                                                    "inclusive[i] = item; exclusive[i] = prev_item", options);
        // an exclusive segmented scan with a non-zero neutral: prev_item is INT_MIN at each segment start
        clalgo::ScanOptions max_options = options_for(algorithm, "segmented_max");
        max_options.is_segment_start_expr = "starts[i] != 0";
        clalgo::GenericScanKernel<std::int32_t> largest(context(), "const int *x, const uchar *starts, int *out", "x[i]",
                                                        "across_seg_boundary ? b : max(a, b)", "INT_MIN",
                                                        "out[i] = prev_item", max_options);
        for (std::size_t n : boundary_sizes()) {
            const auto values = clalgo_test::random_values<std::int64_t>(n, n + 61);
            const auto x = clalgo::to_device(queue(), values);
            std::vector<std::int32_t> ints(n);
            for (std::size_t k = 0; k < n; ++k) ints[k] = static_cast<std::int32_t>(values[k]) - 1000;  // all negative
            const auto x_ints = clalgo::to_device(queue(), ints);
            const auto patterns = segment_patterns(n, n + 62);
            for (std::size_t pattern = 0; pattern < patterns.size(); ++pattern) {
                SCOPED_TRACE("n=" + std::to_string(n) + " pattern " + std::to_string(pattern));
                const auto& starts = patterns[pattern];
                std::vector<std::int64_t> inclusive(n), exclusive(n);
                std::vector<std::int32_t> exclusive_max(n);
                for (std::size_t k = 0; k < n; ++k) {
                    const bool restart = k == 0 || starts[k];
                    exclusive[k] = restart ? 0 : inclusive[k - 1];
                    inclusive[k] = exclusive[k] + values[k];
                    exclusive_max[k] = restart ? std::numeric_limits<std::int32_t>::min()
                                               : std::max(exclusive_max[k - 1], ints[k - 1]);
                }
                const auto flags = clalgo::to_device(queue(), starts);
                clalgo::Array<std::int64_t> device_inclusive(queue(), n), device_exclusive(queue(), n);
                sum(queue(), x, flags, device_inclusive, device_exclusive);
                EXPECT_TRUE(equal_vectors(device_inclusive.to_host(queue()), inclusive));
                EXPECT_TRUE(equal_vectors(device_exclusive.to_host(queue()), exclusive));
                clalgo::Array<std::int32_t> device_max(queue(), n);
                largest(queue(), x_ints, flags, device_max);
                EXPECT_TRUE(equal_vectors(device_max.to_host(queue()), exclusive_max));
            }
        }
    }
}

// -------------------------------------------------------------------------------------------------------------
// Output statements, inputs without arrays, input fetches

TEST(GenericScan, LastItemMinusPrevItemIsTheSumFromEachItemOn) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        auto make = [&] {
            return clalgo::GenericScanKernel<std::int64_t>(context(), "const long *x, long *out", "x[i]", "a+b", "0",
                                                           "out[i] = last_item - prev_item",
                                                           options_for(algorithm, "suffix_sums"));
        };
        if (algorithm == ScanAlgorithm::single_pass || algorithm == ScanAlgorithm::chained) {
            // the single pass and the chained blocks write each tile before later tiles are scanned: they cannot
            // know the total
            EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { make(); }), "last_item"));
            continue;
        }
        const auto scan = make();
        for (std::size_t n : boundary_sizes()) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const auto values = clalgo_test::random_values<std::int64_t>(n, n + 71);
            std::vector<std::int64_t> expected(n);
            std::int64_t suffix = 0;
            for (std::size_t k = n; k-- > 0;) expected[k] = suffix += values[k];
            clalgo::Array<std::int64_t> out(queue(), n);
            scan(queue(), clalgo::to_device(queue(), values), out);
            EXPECT_TRUE(equal_vectors(out.to_host(queue()), expected));
        }
    }
}

TEST(GenericScan, ScansAnIndexRangeWithStartAndStepAndPercentInExpressionsAndPreamble) {
    // `%` in the user's text reaches the compiler as it is (PyOpenCL's %-formatting would choke on it)
    const std::string preamble = R"(/* 100% of the digits; printf("%d%%") stays a comment */
inline long digit_sum(long v)
{
    long s = 0;
    for (v = v < 0 ? -v : v; v > 0; v /= 10)
        s += v % 10;
    return s;
}

/* the output through a preamble function: the scan's write loops are then not unrolled */
inline void store_at(__global long *out, long k, long value)
{
    out[k] = value;
})";
    auto input = [](std::int64_t i) {
        std::int64_t s = 0;
        for (std::int64_t v = i < 0 ? -i : i; v > 0; v /= 10) s += v % 10;
        return s % 7 + i % 3;  // C++ and OpenCL C both truncate toward zero
    };
    struct Case {
        std::int64_t start, step;
    };
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::ScanOptions options = options_for(algorithm, "digits");
        options.preamble = preamble;
        clalgo::GenericScanKernel<std::int64_t> scan(context(), "long *out, long range_start, long range_step",
                                                     "digit_sum(i) % 7 + i % 3", "a+b", "0",
                                                     "store_at(out, (i - range_start) / range_step, item)", options);
        // both heavy (a loop in input_expr's function, a call in the output statement): neither loop unrolled
        EXPECT_NE(scan.source().find("#define CLALGO_UNROLL_INPUT 0"), std::string::npos);
        EXPECT_NE(scan.source().find("#define CLALGO_UNROLL_OUTPUT 0"), std::string::npos);
        clalgo::Array<std::int64_t> total(queue(), 1);
        for (const Case c : {Case{5, 3}, Case{-1000, 7}, Case{123456789, -2}}) {
            for (std::size_t n : {std::size_t(0), std::size_t(1), cpu_tile + 1, 5 * cpu_tile + 3, 3 * largest_tile + 17}) {
                SCOPED_TRACE("start=" + std::to_string(c.start) + " step=" + std::to_string(c.step) +
                             " n=" + std::to_string(n));
                const auto indices = clalgo::range(c.start, c.start + c.step * std::int64_t(n), c.step);
                ASSERT_EQ(indices.size(), std::int64_t(n));
                std::vector<std::int64_t> expected(n);
                std::int64_t running = 0;
                for (std::size_t k = 0; k < n; ++k) expected[k] = running += input(c.start + c.step * std::int64_t(k));
                clalgo::Array<std::int64_t> out(queue(), n);
                total.fill(queue(), -1);
                scan.with_total(queue(), total, indices, out, c.start, c.step);
                EXPECT_TRUE(equal_vectors(out.to_host(queue()), expected));
                EXPECT_EQ(total.read_at(queue(), 0), running);
            }
        }
    }
}

TEST(GenericScan, InputFetchSeesThePreviousItemAndTheFirstItemItself) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::ScanOptions options = options_for(algorithm, "count_changes");
        options.input_fetch_exprs = {{"prev", "x", -1}};
        // at i = 0 there is no previous item: prev holds x[0] itself, so the first item is never a change
        clalgo::GenericScanKernel<std::int64_t> changes(context(), "const int *x, long *out", "x[i] != prev ? 1 : 0",
                                                        "a+b", "0", "out[i] = item", options);
        for (std::size_t n : boundary_sizes()) {
            SCOPED_TRACE("n=" + std::to_string(n));
            std::vector<std::int32_t> values(n);
            std::mt19937_64 engine(n + 81);
            for (auto& v : values) v = static_cast<std::int32_t>(engine() % 3);
            std::vector<std::int64_t> expected(n);
            for (std::size_t k = 0; k < n; ++k)
                expected[k] = (k == 0 ? 0 : expected[k - 1]) + (k > 0 && values[k] != values[k - 1] ? 1 : 0);
            clalgo::Array<std::int64_t> out(queue(), n);
            changes(queue(), clalgo::to_device(queue(), values), out);
            EXPECT_TRUE(equal_vectors(out.to_host(queue()), expected));
        }
    }
}

TEST(GenericScan, InputFetchOverADescendingRangeStaysInsideTheArray) {
    // over i = n-1, n-2, ..., 0 the fetch at offset -1 reads x[i - 1], the next item in scan order; at i = 0 it
    // would be x[-1]: it must hold x[0] instead. x is a view that starts one element into its buffer, whose
    // element before it is a sentinel: a read outside the view would show as a wrong count.
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::ScanOptions options = options_for(algorithm, "descending_fetch");
        options.input_fetch_exprs = {{"before", "x", -1}};
        clalgo::GenericScanKernel<std::int64_t> scan(context(), "const int *x, long *out", "x[i] != before ? 1 : 0",
                                                     "a+b", "0", "out[i] = item", options);
        for (std::size_t n : boundary_sizes()) {
            if (n == 0) continue;
            SCOPED_TRACE("n=" + std::to_string(n));
            std::vector<std::int32_t> stored(n + 1);
            std::mt19937_64 engine(n + 83);
            for (auto& v : stored) v = static_cast<std::int32_t>(engine() % 3);
            stored[0] = 1000000;  // the sentinel before the view
            auto buffer = clalgo::to_device(queue(), stored);
            const auto x = buffer.view(1, n);
            std::vector<std::int64_t> expected(n);
            std::int64_t running = 0;
            for (std::int64_t i = std::int64_t(n) - 1; i >= 0; --i) {
                const std::int32_t before = stored[1 + (i > 0 ? i - 1 : i)];
                running += stored[1 + i] != before ? 1 : 0;
                expected[i] = running;
            }
            clalgo::Array<std::int64_t> out(queue(), n);
            scan(queue(), clalgo::range(std::int64_t(n) - 1, -1, -1), x, out);
            EXPECT_TRUE(equal_vectors(out.to_host(queue()), expected));
        }
    }
}

TEST(GenericScan, ArgumentNamesNeverClashWithTheGeneratedCode) {
    // the user's names are the user's: `values` and `flags` (PyOpenCL's own examples use them), `last`, `block`,
    // `flag`, `tile`, `k`, ... must neither fail to build nor be shadowed by the scan's internal variables (the
    // scalars are all 0: a shadowed one would show as a wrong sum)
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::ScanOptions options = options_for(algorithm, "user_names");
        options.is_segment_start_expr = "flags[i] == flag";
        std::string message;
        try {
            clalgo::GenericScanKernel<std::int64_t> scan(
                context(),
                "const long *values, const uchar *flags, const uchar flag, long *last, const long block, "
                "const int tile, const int k, const int p, const int j, const int lid, const int carry, const int first",
                "values[i] + block + tile + k + p + j + lid + carry + first", "across_seg_boundary ? b : a+b", "0",
                "last[i] = item + tile + k + p + j + lid + carry + first", options);
            for (std::size_t n : {std::size_t(1), 5 * cpu_tile + 3, 3 * largest_tile + 17}) {
                SCOPED_TRACE("n=" + std::to_string(n));
                const auto values = clalgo_test::random_values<std::int64_t>(n, n + 91);
                std::vector<std::uint8_t> flags(n);
                std::mt19937_64 engine(n + 92);
                for (auto& f : flags) f = static_cast<std::uint8_t>(engine() % 8);  // segments start where flags[i] == 3
                std::vector<std::int64_t> expected(n);
                for (std::size_t k = 0; k < n; ++k)
                    expected[k] = (k == 0 || flags[k] == 3 ? 0 : expected[k - 1]) + values[k] + 100;
                clalgo::Array<std::int64_t> last(queue(), n);
                scan(queue(), clalgo::to_device(queue(), values), clalgo::to_device(queue(), flags), std::uint8_t(3),
                     last, std::int64_t(100), 0, 0, 0, 0, 0, 0, 0);
                EXPECT_TRUE(equal_vectors(last.to_host(queue()), expected));
            }
        } catch (const clalgo::BuildError& error) {
            ADD_FAILURE() << "a user's argument name clashes with the generated code:\n" << error.log();
        }
    }
}

// -------------------------------------------------------------------------------------------------------------
// Errors

TEST(GenericScan, ArgumentsNamedAAndBAreTheUsersInInputAndOutputAndTheOperandsInScanExpr) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        clalgo::GenericScanKernel<std::int64_t> scan(context(), "const long *a, long *b, long across_seg_boundary",
                                                     "a[i] * across_seg_boundary", "a+b", "0", "b[i] = item",
                                                     options_for(algorithm, "scan_named_a_b"));
        for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
            const auto values = clalgo_test::random_values<std::int64_t>(n, n + 3);
            auto a = clalgo::to_device(queue(), values);
            clalgo::Array<std::int64_t> b(queue(), n);
            scan(queue(), a, b, 2);
            std::vector<std::int64_t> expected(n);
            std::int64_t running = 0;
            for (std::size_t k = 0; k < n; ++k) expected[k] = running += 2 * values[k];
            EXPECT_EQ(b.to_host(queue()), expected) << name_of(algorithm) << " n=" << n;
        }
    }
}

TEST(GenericScan, MismatchedArgumentsThrowInvalidArgumentNamingTheArgument) {
    clalgo::GenericScanKernel<std::int64_t> scan(context(), "const int *x, long *out", "x[i]", "a+b", "0",
                                                 "out[i] = item", options_for(ScanAlgorithm::serial, "checked"));
    const auto ints = clalgo::to_device(queue(), std::vector<std::int32_t>{1, 2, 3});
    const auto longs = clalgo::to_device(queue(), std::vector<std::int64_t>{1, 2, 3});
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { scan(queue(), longs, longs); }), "'x'"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { scan(queue(), ints, ints); }), "'out'"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { scan(queue(), ints); }), "2 argument"));
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { scan(queue(), ints, std::int64_t(5)); }), "scalar"));
    clalgo::Array<std::int64_t> two(queue(), 2);
    EXPECT_THROW(scan.with_total(queue(), two, ints, longs), std::invalid_argument);

    clalgo::InclusiveScanKernel<std::int32_t> sum(context(), "a+b", "0", options_for(ScanAlgorithm::serial, "inclusive_sum"));
    clalgo::Array<std::int32_t> short_output(queue(), 2);
    EXPECT_THROW(sum(queue(), ints, short_output), std::invalid_argument);
}

TEST(GenericScan, BadDeclarationsThrowInvalidArgumentBeforeBuilding) {
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([] {
                             clalgo::GenericScanKernel<int>(context(), "const int *item, int *out", "item[i]", "a+b",
                                                            "0", "out[i] = item");
                         }),
                         "item"));
    EXPECT_THROW((clalgo::GenericScanKernel<int>(context(), "int x, int *out", "x", "a+b", "0", "out[i] = item",
                                                 [] {
                                                     clalgo::ScanOptions options;
                                                     options.input_fetch_exprs = {{"prev", "x", -1}};
                                                     return options;
                                                 }())),
                 std::invalid_argument);
    EXPECT_THROW((clalgo::GenericScanKernel<int>(context(), "int *out", "i", "a+b", "0", "out[i] = item",
                                                 options_for(ScanAlgorithm::serial, "not a name"))),
                 std::invalid_argument);
}

TEST(GenericScan, BadScanExpressionThrowsBuildErrorQuotingIt) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        const std::string message = message_of<clalgo::BuildError>([&] {
            clalgo::InclusiveScanKernel<std::int32_t>(context(), "a +* b", "0", options_for(algorithm, "broken"));
        });
        EXPECT_TRUE(contains(message, "a +* b"));
        EXPECT_TRUE(contains(message, "broken"));
    }
}

TEST(GenericScan, SinglePassCarriesEightByteValuesInOneWideStatusWord) {
    // CLALGO_SCAN_WIDE_STATUS=1: the look-back publishes a tile's status and its 8-byte total in one 16-byte word
    // (NVIDIA's default for such values); the scans must match the CPU's over many tiles, call after call
    clalgo_test::ScopedVariable wide("CLALGO_SCAN_WIDE_STATUS", "1");
    const clalgo::InclusiveScanKernel<std::int64_t> longs(context(), "a+b", "0",
                                                          options_for(ScanAlgorithm::single_pass, "wide_long_scan"));
    EXPECT_NE(longs.source().find("#define CLALGO_PACKED 2"), std::string::npos);
    for (std::size_t n : boundary_sizes()) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const auto values = clalgo_test::random_values<std::int64_t>(n, n + 91);
        std::vector<std::int64_t> expected(n);
        std::int64_t sum = 0;
        for (std::size_t k = 0; k < n; ++k) expected[k] = sum += values[k];
        auto device = clalgo::to_device(queue(), values);
        clalgo::Array<std::int64_t> out(queue(), n);
        for (int call = 0; call < 2; ++call) {
            longs(queue(), device, out);
            ASSERT_EQ(out.to_host(queue()), expected);
        }
    }
}

// -------------------------------------------------------------------------------------------------------------
// Carry-in: a value combined on the left of every item

TEST(Scan, CarryInFromTheHostOrTheDeviceIsCombinedOnTheLeftOfEveryItemInOrder) {
    using clalgo_test::Affine;
    clalgo_test::register_affine();
    const std::string neutral = "(affine){1, 0}";
    std::vector<std::size_t> sizes{0, 1, 2, cpu_tile - 1, cpu_tile, cpu_tile + 1, largest_tile, largest_tile + 1,
                                   3 * largest_tile + 17, (std::size_t(1) << 20) + 3};
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        const clalgo::InclusiveScanKernel<Affine> inclusive(context(), clalgo_test::affine_then, neutral,
                                                            options_for(algorithm, "carried_inclusive"));
        const clalgo::ExclusiveScanKernel<Affine> exclusive(context(), clalgo_test::affine_then, neutral,
                                                            options_for(algorithm, "carried_exclusive"));
        const clalgo::GenericScanKernel<Affine> totalled(context(), "const affine *x, affine *y", "x[i]",
                                                         clalgo_test::affine_then, neutral, "y[i] = item",
                                                         options_for(algorithm, "carried_total"));
        for (std::size_t n : sizes) {
            SCOPED_TRACE("n=" + std::to_string(n));
            std::mt19937_64 engine(n + 77);
            std::vector<Affine> maps(n);
            for (auto& m : maps) m = {engine() | 1, engine()};
            const Affine carry{engine() | 1, engine()};
            // the order shows: the carry composed on the right instead gives another map
            ASSERT_FALSE(n > 0 && clalgo_test::then(carry, maps[0]) == clalgo_test::then(maps[0], carry));
            std::vector<Affine> expected_inclusive(n), expected_exclusive(n);
            Affine running = carry;
            for (std::size_t k = 0; k < n; ++k) {
                expected_exclusive[k] = running;
                running = clalgo_test::then(running, maps[k]);
                expected_inclusive[k] = running;
            }
            const auto input = clalgo::to_device(queue(), maps);
            clalgo::Array<Affine> out(queue(), n);
            inclusive.with_carry(queue(), carry, input, out);
            EXPECT_EQ(out.to_host(queue()), expected_inclusive) << "inclusive, carry from the host";
            exclusive.with_carry(queue(), carry, input, out);
            EXPECT_EQ(out.to_host(queue()), expected_exclusive) << "exclusive, carry from the host";

            // from one element of a device array (at an offset), and in place
            const std::vector<Affine> carries{{3, 4}, {5, 6}, carry, {7, 8}};
            const auto on_device = clalgo::to_device(queue(), carries);
            auto in_place = clalgo::to_device(queue(), maps);
            inclusive.with_carry(queue(), on_device.view(2, 1), in_place, in_place);
            EXPECT_EQ(in_place.to_host(queue()), expected_inclusive) << "inclusive, carry from the device, in place";
            in_place = clalgo::to_device(queue(), maps);
            exclusive.with_carry(queue(), on_device.view(2, 1), in_place, in_place);
            EXPECT_EQ(in_place.to_host(queue()), expected_exclusive) << "exclusive, carry from the device, in place";

            // the total includes the carry (it is the carry itself for n = 0)
            clalgo::Array<Affine> total(queue(), 1);
            totalled.with_carry_and_total(queue(), on_device.view(2, 1), total, input, out);
            EXPECT_EQ(total.to_host(queue())[0], running) << "total";
            EXPECT_EQ(out.to_host(queue()), expected_inclusive) << "generic scan with a total";

            // a call without a carry after calls with one starts from the neutral element again
            inclusive(queue(), input, out);
            if (n > 0) {
                EXPECT_EQ(out.to_host(queue())[0], maps[0]) << "no carry";
            }
        }
    }
}

TEST(Scan, CarryInOfFourByteValuesTravelsThroughThePackedLookBackAndStopsAtASegmentStart) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        const clalgo::InclusiveScanKernel<std::int32_t> inclusive(context(), "a+b", "0", options_for(algorithm, "carried_sum"));
        clalgo::ScanOptions segmented = options_for(algorithm, "carried_segments");
        segmented.is_segment_start_expr = "starts[i]";
        const clalgo::GenericScanKernel<std::int32_t> by_segment(context(), "const int *x, const uchar *starts, int *y",
                                                                 "x[i]", "across_seg_boundary ? b : a+b", "0",
                                                                 "y[i] = prev_item", segmented);
        for (std::size_t n : {std::size_t(0), std::size_t(1), cpu_tile + 1, largest_tile + 1, (std::size_t(1) << 20) + 3}) {
            SCOPED_TRACE("n=" + std::to_string(n));
            std::vector<std::int32_t> values(n);
            std::vector<std::uint8_t> starts(n);
            std::mt19937_64 engine(n + 5);
            for (std::size_t k = 0; k < n; ++k) {
                values[k] = static_cast<std::int32_t>(engine() % 1000) - 500;
                starts[k] = k > 0 && k % 1500 == 0;
            }
            const std::int32_t carry = -123456;
            std::vector<std::int32_t> expected(n), expected_segmented(n);
            std::int32_t running = carry, segment_running = carry;
            for (std::size_t k = 0; k < n; ++k) {
                running += values[k];
                expected[k] = running;
                if (starts[k]) segment_running = 0;
                expected_segmented[k] = segment_running;  // prev_item
                segment_running += values[k];
            }
            auto data = clalgo::to_device(queue(), values);
            inclusive.with_carry(queue(), carry, data, data);
            EXPECT_TRUE(equal_vectors(data.to_host(queue()), expected)) << "inclusive in place";
            clalgo::Array<std::int32_t> out(queue(), n);
            by_segment.with_carry(queue(), carry, clalgo::to_device(queue(), values), clalgo::to_device(queue(), starts), out);
            EXPECT_TRUE(equal_vectors(out.to_host(queue()), expected_segmented)) << "segmented, prev_item";
        }
    }
}
