// copy_if, remove_if, partition and unique over arrays and index ranges, each checked against the std:: algorithm
// on the CPU (std::copy_if, std::remove_copy_if, std::stable_partition, std::unique_copy): the kept items in their
// original order, and their count read both through DeviceCount::get and straight from the device array. Each
// runs with none, about half and all of the items kept, at sizes that straddle the scan's tiles (256 items on a
// CPU device, up to 4096 on a GPU) and at about a million; copy_if, partition and unique also run with each scan
// algorithm forced through SelectionOptions::algorithm.
#include "support.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using clalgo::ScanAlgorithm;
using clalgo_test::context;
using clalgo_test::every_algorithm;
using clalgo_test::name_of;
using clalgo_test::queue;

namespace {

constexpr std::size_t million = 1000003;

/// 0, 1, around one CPU tile, several tiles plus an odd number, several GPU tiles.
std::vector<std::size_t> small_sizes() { return {0, 1, 255, 256, 257, 5 * 256 + 3, 3 * 4096 + 17}; }

std::vector<std::size_t> all_sizes() {
    auto sizes = small_sizes();
    sizes.push_back(million);
    return sizes;
}

struct Point {
    std::int32_t x, y;
    float weight;
};

void register_point() {
    static const bool registered = [] {
        clalgo::register_struct<Point>("point", "typedef struct { int x, y; float weight; } point;",
                                       {CLALGO_FIELD(Point, x), CLALGO_FIELD(Point, y), CLALGO_FIELD(Point, weight)});
        return true;
    }();
    (void)registered;
}

template <class T>
bool same(const T& a, const T& b) {
    if constexpr (std::is_same_v<T, Point>) return a.x == b.x && a.y == b.y && a.weight == b.weight;
    else return a == b;
}

template <class T>
std::string show(const T& value) {
    std::ostringstream out;
    if constexpr (std::is_same_v<T, Point>) out << "{" << value.x << ", " << value.y << ", " << value.weight << "}";
    else out << +value;
    return out.str();
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

/// The count, read through get() and from the device array (they must agree), against the expected one.
::testing::AssertionResult count_is(const clalgo::DeviceCount& count, std::size_t expected) {
    const std::int64_t got = count.get(queue());
    const std::int64_t on_device = count.device.to_host(queue()).at(0);
    if (got == std::int64_t(expected) && on_device == got) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "count.get() " << got << ", count.device " << on_device << ", expected "
                                         << expected;
}

/// A selection's result: the count and the first `count` values.
template <class T>
::testing::AssertionResult holds(const clalgo::Selection<T>& result, const std::vector<T>& expected) {
    if (auto counted = count_is(result.count, expected.size()); !counted) return counted;
    return equal_vectors(result.values.view(0, expected.size()).to_host(queue()), expected);
}

/// Thresholds for "ary[i] < threshold" that keep none, about half (the median) and all of `values`.
template <class T>
std::vector<std::pair<std::string, T>> thresholds(std::vector<T> values) {
    T median = T(0);
    if (!values.empty()) {
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        median = values[values.size() / 2];
    }
    return {{"none", std::numeric_limits<T>::lowest()}, {"half", median}, {"all", std::numeric_limits<T>::max()}};
}

template <class T>
clalgo::SelectionOptions with_threshold(T threshold, ScanAlgorithm algorithm = ScanAlgorithm::automatic) {
    clalgo::SelectionOptions options;
    options.extra_args = {clalgo::Argument("threshold", threshold)};
    options.algorithm = algorithm;
    return options;
}

/// The indices of a range, in order.
std::vector<std::int64_t> indices_of(const clalgo::IndexRange& indices) {
    std::vector<std::int64_t> all;
    for (std::int64_t k = 0; k < indices.size(); ++k) all.push_back(indices.start + k * indices.step);
    return all;
}

/// Over a range, "(i % 4) < quarters" keeps none (0), half (2) or all (4) of the non-negative indices (for
/// negative ones % truncates toward zero in C++ and OpenCL C alike).
clalgo::SelectionOptions with_quarters(std::int64_t quarters, ScanAlgorithm algorithm = ScanAlgorithm::automatic) {
    clalgo::SelectionOptions options;
    options.extra_args = {clalgo::Argument("quarters", static_cast<cl_long>(quarters))};
    options.algorithm = algorithm;
    return options;
}

bool kept_quarter(std::int64_t i, std::int64_t quarters) { return i % 4 < quarters; }

}  // namespace

// -------------------------------------------------------------------------------------------------------------
// copy_if

template <class T>
class CopyIfTyped : public ::testing::Test {};
using CopyIfTypes = ::testing::Types<std::uint8_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(CopyIfTyped, CopyIfTypes);

TYPED_TEST(CopyIfTyped, KeepsOrderAndCountForNoneHalfAndAll) {
    using T = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(T);
    for (std::size_t n : all_sizes()) {
        const auto host = clalgo_test::random_values<T>(n, n + 1);
        const auto input = clalgo::to_device(queue(), host);
        for (const auto& [kept, chosen] : thresholds(host)) {
            const auto threshold = chosen;  // a copy: C++17 lambdas cannot capture structured bindings
            SCOPED_TRACE("n=" + std::to_string(n) + " keeping " + kept);
            std::vector<T> expected;
            std::copy_if(host.begin(), host.end(), std::back_inserter(expected), [&](T v) { return v < threshold; });
            const auto result = clalgo::copy_if(queue(), input, "ary[i] < threshold", with_threshold(threshold));
            EXPECT_EQ(result.values.size(), n);  // room for all by default
            EXPECT_TRUE(holds(result, expected));
        }
    }
}

TEST(CopyIf, EveryScanAlgorithmKeepsOrderAndCount) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        for (std::size_t n : all_sizes()) {
            const auto host = clalgo_test::random_values<std::int32_t>(n, n + 2);
            const auto input = clalgo::to_device(queue(), host);
            for (const auto& [kept, chosen] : thresholds(host)) {
                const auto threshold = chosen;
                SCOPED_TRACE("n=" + std::to_string(n) + " keeping " + kept);
                std::vector<std::int32_t> expected;
                std::copy_if(host.begin(), host.end(), std::back_inserter(expected),
                             [&](std::int32_t v) { return v < threshold; });
                EXPECT_TRUE(holds(clalgo::copy_if(queue(), input, "ary[i] < threshold", with_threshold(threshold, algorithm)),
                                  expected));
            }
        }
    }
}

TEST(CopyIf, ChainedBlocksBeyondTheBitsAWorkItemHoldsKeepAndPartitionEveryItem) {
    // The chained compaction holds the kept bits of a block's first 4,096 x 64 = 262,144 items between its two
    // passes and tests any further items again. Blocks of 300,007 items cross that bound where each work-item
    // (one a compute unit) gets four of them: a context of its own builds the kernels under the variable.
    clalgo_test::ScopedVariable block("CLALGO_SCAN_BLOCK", "300007");
    const clalgo::Context own(context().device());
    const clalgo::Queue own_queue(own);
    clalgo::detail::CompactionSpec spec;
    spec.value_type = "int";
    spec.keep = "ary[i] < 0";
    spec.algorithm = ScanAlgorithm::chained;
    const clalgo::detail::CompactionKernel<cl_uint> kernel(own, spec);
    EXPECT_NE(kernel.source().find("clalgo_kept_word"), std::string::npos) << "not the chained compaction";
    EXPECT_NE(kernel.source().find("#define CLALGO_HELD_WORDS 4096"), std::string::npos);
    const std::size_t units = own.info().compute_units;
    if (units > 4) GTEST_SKIP() << "blocks of 300,007 items need 4 x 300,007 items a compute unit; this device has " << units;
    const std::size_t n = 4 * units * 300007 + 17;
    const auto host = clalgo_test::random_values<std::int32_t>(n, 43);
    const auto input = clalgo::to_device(own_queue, host);
    for (const auto& [kept, chosen] : thresholds(host)) {
        SCOPED_TRACE("keeping " + kept);
        std::vector<std::int32_t> expected;
        std::copy_if(host.begin(), host.end(), std::back_inserter(expected), [&, limit = chosen](std::int32_t v) { return v < limit; });
        const auto result = clalgo::copy_if(own_queue, input, "ary[i] < threshold", with_threshold(chosen, ScanAlgorithm::chained));
        ASSERT_EQ(result.count.get(own_queue), std::int64_t(expected.size()));
        EXPECT_TRUE(equal_vectors(result.values.view(0, expected.size()).to_host(own_queue), expected));
    }
    // a partition: the kept items, then the rejected ones (the clear bits), each in order
    spec.placement = clalgo::detail::Placement::kept_and_rejected;
    const clalgo::detail::CompactionKernel<cl_uint> partition_kernel(own, spec);
    EXPECT_NE(partition_kernel.source().find("#define CLALGO_PLACES_REJECTED 1"), std::string::npos);
    {
        const auto threshold = thresholds(host)[1].second;
        std::vector<std::int32_t> expected = host;
        const auto middle = std::stable_partition(expected.begin(), expected.end(), [&](std::int32_t v) { return v < threshold; });
        const std::size_t kept = static_cast<std::size_t>(middle - expected.begin());
        const auto parts = clalgo::partition(own_queue, input, "ary[i] < threshold", with_threshold(threshold, ScanAlgorithm::chained));
        ASSERT_EQ(parts.count.get(own_queue), std::int64_t(kept));
        EXPECT_TRUE(equal_vectors(parts.kept.view(0, kept).to_host(own_queue), std::vector<std::int32_t>(expected.begin(), middle)));
        EXPECT_TRUE(equal_vectors(parts.rejected.view(0, n - kept).to_host(own_queue), std::vector<std::int32_t>(middle, expected.end())));
    }
    // over a range of step 3: the kept indices
    const auto indices = clalgo::range(5, 5 + 3 * std::int64_t(n), 3);
    std::vector<std::int64_t> expected;
    for (std::int64_t i : indices_of(indices))
        if (i % 7 < 3) expected.push_back(i);
    clalgo::SelectionOptions options;
    options.algorithm = ScanAlgorithm::chained;
    const auto result = clalgo::copy_if(own_queue, indices, "i % 7 < 3", options);
    ASSERT_EQ(result.count.get(own_queue), std::int64_t(expected.size()));
    EXPECT_TRUE(equal_vectors(result.values.view(0, expected.size()).to_host(own_queue), expected));
}

TEST(CopyIf, OverARangeKeepsIndicesOrTheirValueExpr) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        for (std::size_t n : all_sizes()) {
            for (const auto indices : {clalgo::range(7, 7 + 3 * std::int64_t(n), 3),
                                       clalgo::range(1000, 1000 - 5 * std::int64_t(n), -5)}) {
                for (std::int64_t quarters : {0, 2, 4}) {
                    SCOPED_TRACE("n=" + std::to_string(n) + " start=" + std::to_string(indices.start) +
                                 " quarters=" + std::to_string(quarters));
                    std::vector<std::int64_t> expected;
                    for (std::int64_t i : indices_of(indices))
                        if (kept_quarter(i, quarters)) expected.push_back(i);
                    EXPECT_TRUE(holds(clalgo::copy_if(queue(), indices, "(i % 4) < quarters", with_quarters(quarters, algorithm)),
                                      expected));
                }
            }
        }
    }
    // value_expr, written as Value: here a float of each kept index (small integers and halves: exact)
    for (std::size_t n : small_sizes()) {
        const auto indices = clalgo::range(-11, -11 + 2 * std::int64_t(n), 2);
        for (std::int64_t quarters : {0, 2, 4}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " quarters=" + std::to_string(quarters));
            auto options = with_quarters(quarters);
            options.value_expr = "i * 0.5f + 1";
            std::vector<float> expected;
            for (std::int64_t i : indices_of(indices))
                if (kept_quarter(i, quarters)) expected.push_back(static_cast<float>(i) * 0.5f + 1);
            EXPECT_TRUE(holds(clalgo::copy_if<float>(queue(), indices, "(i % 4) < quarters", options), expected));
        }
    }
}

TEST(CopyIf, ExtraScalarAndArrayArgumentsAndPercentInPredicateAndPreamble) {
    clalgo::SelectionOptions options;
    // `%` in the user's text reaches the compiler as it is
    options.preamble = R"(/* keeps 100% of the multiples; printf("%d%%") stays a comment */
inline bool is_multiple(int v, int d)
{
    return v % d == 0;
})";
    for (std::size_t n : all_sizes()) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const auto host = clalgo_test::random_values<std::int32_t>(n, n + 3);
        std::vector<float> host_weights(n);
        std::mt19937_64 engine(n + 4);
        for (auto& w : host_weights) w = static_cast<float>(engine() % 100) / 100.0f;
        const auto weights = clalgo::to_device(queue(), host_weights);
        options.extra_args = {clalgo::Argument("divisor", std::int32_t(3)), clalgo::Argument("threshold", 0.25f),
                              clalgo::Argument("weights", weights)};
        std::vector<std::int32_t> expected;
        for (std::size_t k = 0; k < n; ++k)
            if (host[k] % 3 == 0 && host_weights[k] > 0.25f && k % 2 == 0) expected.push_back(host[k]);
        const auto result = clalgo::copy_if(queue(), clalgo::to_device(queue(), host),
                                            "is_multiple(ary[i], divisor) && weights[i] > threshold && i % 2 == 0", options);
        EXPECT_TRUE(holds(result, expected));
    }
}

TEST(CopyIf, CapacitySmallerThanTheCountWritesOnlyCapacityItemsButCountsAll) {
    const std::int32_t sentinel = -999999;  // random_values never produces it
    for (std::size_t n : {std::size_t(1), std::size_t(257), 5 * std::size_t(256) + 3, 3 * std::size_t(4096) + 17}) {
        const auto host = clalgo_test::random_values<std::int32_t>(n, n + 5);
        const auto input = clalgo::to_device(queue(), host);
        const std::int32_t threshold = 40;
        std::vector<std::int32_t> expected;
        std::copy_if(host.begin(), host.end(), std::back_inserter(expected), [&](std::int32_t v) { return v < threshold; });
        const std::size_t kept = expected.size();
        for (std::size_t capacity : {std::size_t(0), std::size_t(1), kept / 2, kept > 0 ? kept - 1 : 0, kept, kept + 5}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " kept=" + std::to_string(kept) + " capacity=" + std::to_string(capacity));
            const std::size_t written = std::min(capacity, kept);
            std::vector<std::int32_t> expected_output(capacity + 16, sentinel);
            std::copy(expected.begin(), expected.begin() + written, expected_output.begin());

            // into arrays the caller keeps: only output[0, capacity) may change, and only the count in `counts`
            clalgo::Array<std::int32_t> output(queue(), capacity + 16);
            output.fill(queue(), sentinel);
            clalgo::Array<std::int64_t> counts(queue(), 3);
            counts.fill(queue(), -1);
            clalgo::copy_if(queue(), input, output.view(0, capacity), counts.view(1, 1), "ary[i] < threshold",
                            with_threshold(threshold));
            EXPECT_TRUE(equal_vectors(counts.to_host(queue()), std::vector<std::int64_t>{-1, std::int64_t(kept), -1}));
            EXPECT_TRUE(equal_vectors(output.to_host(queue()), expected_output));

            // a new result with room for `capacity` items
            auto options = with_threshold(threshold);
            options.capacity = static_cast<std::int64_t>(capacity);
            const auto result = clalgo::copy_if(queue(), input, "ary[i] < threshold", options);
            EXPECT_EQ(result.values.size(), capacity);
            EXPECT_TRUE(count_is(result.count, kept));
            EXPECT_TRUE(equal_vectors(result.values.view(0, written).to_host(queue()),
                                      std::vector<std::int32_t>(expected.begin(), expected.begin() + written)));
        }
    }
}

TEST(CopyIf, IntoArraysOverARangeWritesTheKeptIndices) {
    const auto indices = clalgo::range(3, 3 + 4 * 5000, 4);
    clalgo::Array<std::int64_t> output(queue(), 5000), count(queue(), 1);
    clalgo::copy_if(queue(), indices, output.view(), count.view(), "(i % 3) == 0");
    std::vector<std::int64_t> expected;
    for (std::int64_t i : indices_of(indices))
        if (i % 3 == 0) expected.push_back(i);
    ASSERT_EQ(count.read_at(queue(), 0), std::int64_t(expected.size()));
    EXPECT_TRUE(equal_vectors(output.view(0, expected.size()).to_host(queue()), expected));
}

TEST(CopyIf, CallsThatDifferOnlyInTheirTextsOrOptionsEachGetTheirOwnKernel) {
    // a call like the thread's last one finds that call's kernel without building a key: its predicate, preamble,
    // options and placement must still tell calls apart, alternating
    const std::size_t n = 5000;
    std::vector<std::int32_t> host(n);
    for (std::size_t k = 0; k < n; ++k) host[k] = std::int32_t((k * 7919) % 1000);
    const auto input = clalgo::to_device(queue(), host);
    clalgo::Array<std::int32_t> kept(queue(), n);
    clalgo::Array<std::int64_t> count(queue(), 1);
    auto expect = [&](const std::string& what, int divisor) {
        std::vector<std::int32_t> expected;
        for (std::int32_t v : host)
            if (v % divisor == 0) expected.push_back(v);
        ASSERT_EQ(count.read_at(queue(), 0), std::int64_t(expected.size())) << what;
        EXPECT_TRUE(equal_vectors(kept.view(0, expected.size()).to_host(queue()), expected)) << what;
    };
    clalgo::SelectionOptions helper;
    helper.preamble = "int divides(int a, int b) { return a % b == 0; }";
    clalgo::SelectionOptions other_helper;
    other_helper.preamble = "int divides(int a, int b) { return a % (b + 1) == 0; }";
    for (int round = 0; round < 2; ++round) {
        clalgo::copy_if(queue(), input, kept.view(), count.view(), "ary[i] % 2 == 0");
        expect("halves", 2);
        clalgo::copy_if(queue(), input, kept.view(), count.view(), "ary[i] % 3 == 0");
        expect("thirds", 3);
        clalgo::copy_if(queue(), input, kept.view(), count.view(), "divides(ary[i], 4)", helper);
        expect("quarters", 4);
        clalgo::copy_if(queue(), input, kept.view(), count.view(), "divides(ary[i], 4)", other_helper);
        expect("fifths", 5);
        // over a range (the same types, another flag): the indices themselves
        clalgo::copy_if(queue(), clalgo::range(0, std::int64_t(n)), kept.view(), count.view(), "i % 3 == 0");
        ASSERT_EQ(count.read_at(queue(), 0), std::int64_t((n + 2) / 3));
        const auto indices = kept.view(0, (n + 2) / 3).to_host(queue());
        for (std::size_t k = 0; k < indices.size(); ++k) ASSERT_EQ(indices[k], std::int32_t(3 * k));
        // a call with an extra argument, then a partition (two outputs): the thread's bound arguments differ in
        // number from one call to the next
        clalgo::copy_if(queue(), input, kept.view(), count.view(), "ary[i] < threshold", with_threshold(250));
        std::vector<std::int32_t> below;
        std::copy_if(host.begin(), host.end(), std::back_inserter(below), [](std::int32_t v) { return v < 250; });
        ASSERT_EQ(count.read_at(queue(), 0), std::int64_t(below.size()));
        EXPECT_TRUE(equal_vectors(kept.view(0, below.size()).to_host(queue()), below));
        const auto parts = clalgo::partition(queue(), input, "ary[i] % 2 == 0");
        std::vector<std::int32_t> split = host;
        const auto middle = std::stable_partition(split.begin(), split.end(), [](std::int32_t v) { return v % 2 == 0; });
        const std::size_t evens = static_cast<std::size_t>(middle - split.begin());
        ASSERT_EQ(parts.count.get(queue()), std::int64_t(evens));
        EXPECT_TRUE(equal_vectors(parts.kept.view(0, evens).to_host(queue()), std::vector<std::int32_t>(split.begin(), middle)));
        EXPECT_TRUE(equal_vectors(parts.rejected.view(0, n - evens).to_host(queue()),
                                  std::vector<std::int32_t>(middle, split.end())));
        clalgo::copy_if(queue(), input, kept.view(), count.view(), "ary[i] % 3 == 0");
        expect("thirds again", 3);
    }
}

// -------------------------------------------------------------------------------------------------------------
// remove_if

TEST(RemoveIf, KeepsTheItemsThePredicateRejectsInOrder) {
    for (std::size_t n : all_sizes()) {
        const auto host = clalgo_test::random_values<std::int32_t>(n, n + 6);
        const auto input = clalgo::to_device(queue(), host);
        for (const auto& [removed, chosen] : thresholds(host)) {
            const auto threshold = chosen;
            SCOPED_TRACE("n=" + std::to_string(n) + " removing " + removed);
            std::vector<std::int32_t> expected;
            std::remove_copy_if(host.begin(), host.end(), std::back_inserter(expected),
                                [&](std::int32_t v) { return v < threshold; });
            EXPECT_TRUE(holds(clalgo::remove_if(queue(), input, "ary[i] < threshold", with_threshold(threshold)), expected));
        }
    }
}

TEST(RemoveIf, OverARangeKeepsTheIndicesThePredicateRejects) {
    for (std::size_t n : all_sizes()) {
        const auto indices = clalgo::range(-50, -50 + 7 * std::int64_t(n), 7);
        for (std::int64_t quarters : {0, 2, 4}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " quarters=" + std::to_string(quarters));
            const auto all = indices_of(indices);
            std::vector<std::int64_t> expected;
            std::remove_copy_if(all.begin(), all.end(), std::back_inserter(expected),
                                [&](std::int64_t i) { return kept_quarter(i, quarters); });
            EXPECT_TRUE(holds(clalgo::remove_if(queue(), indices, "(i % 4) < quarters", with_quarters(quarters)), expected));
        }
    }
}

// -------------------------------------------------------------------------------------------------------------
// partition

namespace {

template <class T, class Keep>
::testing::AssertionResult splits_stably(const clalgo::Partition<T>& result, const std::vector<T>& host, Keep keep) {
    std::vector<T> expected = host;
    const auto middle = std::stable_partition(expected.begin(), expected.end(), keep);
    const std::size_t kept = static_cast<std::size_t>(middle - expected.begin());
    if (auto counted = count_is(result.count, kept); !counted) return counted;
    if (auto front = equal_vectors(result.kept.view(0, kept).to_host(queue()),
                                   std::vector<T>(expected.begin(), middle));
        !front)
        return front << " (kept)";
    if (auto back = equal_vectors(result.rejected.view(0, host.size() - kept).to_host(queue()),
                                  std::vector<T>(middle, expected.end()));
        !back)
        return back << " (rejected)";
    return ::testing::AssertionSuccess();
}

}  // namespace

TEST(Partition, EveryScanAlgorithmSplitsStablyWithTheCount) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        for (std::size_t n : all_sizes()) {
            const auto host = clalgo_test::random_values<std::int32_t>(n, n + 7);
            const auto input = clalgo::to_device(queue(), host);
            for (const auto& [kept, chosen] : thresholds(host)) {
                const auto threshold = chosen;
                SCOPED_TRACE("n=" + std::to_string(n) + " keeping " + kept);
                const auto result = clalgo::partition(queue(), input, "ary[i] < threshold", with_threshold(threshold, algorithm));
                EXPECT_TRUE(splits_stably(result, host, [&](std::int32_t v) { return v < threshold; }));
            }
        }
    }
}

TEST(Partition, FloatsAndRangesSplitStably) {
    for (std::size_t n : small_sizes()) {
        const auto host = clalgo_test::random_values<float>(n, n + 8);
        const auto input = clalgo::to_device(queue(), host);
        for (const auto& [kept, chosen] : thresholds(host)) {
            const auto threshold = chosen;
            SCOPED_TRACE("n=" + std::to_string(n) + " keeping " + kept);
            EXPECT_TRUE(splits_stably(clalgo::partition(queue(), input, "ary[i] < threshold", with_threshold(threshold)),
                                      host, [&](float v) { return v < threshold; }));
        }
        const auto indices = clalgo::range(2, 2 + 3 * std::int64_t(n), 3);
        for (std::int64_t quarters : {0, 2, 4}) {
            SCOPED_TRACE("range, n=" + std::to_string(n) + " quarters=" + std::to_string(quarters));
            auto options = with_quarters(quarters);
            options.value_expr = "10 * i";
            std::vector<std::int64_t> values;
            for (std::int64_t i : indices_of(indices)) values.push_back(10 * i);
            EXPECT_TRUE(splits_stably(clalgo::partition(queue(), indices, "(i % 4) < quarters", options), values,
                                      [&](std::int64_t v) { return kept_quarter(v / 10, quarters); }));
        }
    }
}

// -------------------------------------------------------------------------------------------------------------
// unique

namespace {

/// Runs of equal values whose lengths are drawn from [1, longest]: longest 1 keeps every item, 3 about half,
/// and runs far longer than a tile cross tile boundaries; n = 0 aside, at least the first item is kept.
std::vector<std::int32_t> runs_of(std::size_t n, std::size_t longest, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::vector<std::int32_t> values;
    std::int32_t value = -1000;
    while (values.size() < n) {
        value += 1 + static_cast<std::int32_t>(engine() % 3);
        const std::size_t length = std::min<std::size_t>(n - values.size(), 1 + engine() % longest);
        values.insert(values.end(), length, value);
    }
    return values;
}

}  // namespace

TEST(Unique, EveryScanAlgorithmKeepsTheFirstOfEachRun) {
    for (ScanAlgorithm algorithm : every_algorithm) {
        SCOPED_TRACE(name_of(algorithm));
        clalgo::SelectionOptions options;
        options.algorithm = algorithm;
        for (std::size_t n : all_sizes()) {
            for (std::size_t longest : {std::size_t(1), std::size_t(3), std::size_t(700), n + 1}) {
                SCOPED_TRACE("n=" + std::to_string(n) + " runs up to " + std::to_string(longest));
                const auto host = runs_of(n, longest, n + longest);
                std::vector<std::int32_t> expected;
                std::unique_copy(host.begin(), host.end(), std::back_inserter(expected));
                EXPECT_TRUE(holds(clalgo::unique(queue(), clalgo::to_device(queue(), host), "a == b", options), expected));
            }
        }
    }
}

TEST(Unique, FloatsAndRegisteredStructsWithACustomEquality) {
    register_point();
    for (std::size_t n : small_sizes()) {
        for (std::size_t longest : {std::size_t(1), std::size_t(3), std::size_t(700)}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " runs up to " + std::to_string(longest));
            const auto ints = runs_of(n, longest, 3 * n + longest);
            std::vector<float> floats(ints.begin(), ints.end());
            std::vector<float> expected_floats;
            std::unique_copy(floats.begin(), floats.end(), std::back_inserter(expected_floats));
            EXPECT_TRUE(holds(clalgo::unique(queue(), clalgo::to_device(queue(), floats)), expected_floats));

            // points equal in x and y form a run whatever their weights: the first of each run is kept
            std::vector<Point> points(n);
            for (std::size_t k = 0; k < n; ++k) points[k] = {ints[k], -ints[k], static_cast<float>(k)};
            std::vector<Point> expected_points;
            std::unique_copy(points.begin(), points.end(), std::back_inserter(expected_points),
                             [](const Point& a, const Point& b) { return a.x == b.x && a.y == b.y; });
            EXPECT_TRUE(holds(clalgo::unique(queue(), clalgo::to_device(queue(), points), "a.x == b.x && a.y == b.y"),
                              expected_points));
        }
    }
}

TEST(Unique, OverARangeKeepsTheFirstIndexOfEachRunOfValueExpr) {
    for (std::size_t n : all_sizes()) {
        for (const auto indices : {clalgo::range(0, std::int64_t(n)), clalgo::range(5, 5 + 2 * std::int64_t(n), 2)}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " start=" + std::to_string(indices.start));
            clalgo::SelectionOptions options;
            options.value_expr = "i / 6";  // runs of 6 consecutive integers, 3 items of a step-2 range
            std::vector<std::int64_t> values;
            for (std::int64_t i : indices_of(indices)) values.push_back(i / 6);
            std::vector<std::int64_t> expected;
            std::unique_copy(values.begin(), values.end(), std::back_inserter(expected));
            EXPECT_TRUE(holds(clalgo::unique(queue(), indices, "a == b", options), expected));
        }
    }
}
