// Radix sort (sort, sort_by_key, argsort, RadixSortKernel, RadixSort) against std::stable_sort on the CPU: every
// key type, both algorithms (blocks, the CPU's default, and onesweep forced onto the device with its portable
// ranking, whose tiles are small there), sizes around the tiles, descending order, bit ranges, special floats,
// stability through the values, views with offsets, and misuse. Plus the sort policy of every device class.
#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using clalgo::SortAlgorithm;
using clalgo::SortOptions;
using clalgo_test::context;
using clalgo_test::queue;

namespace {

const SortAlgorithm both_algorithms[] = {SortAlgorithm::blocks, SortAlgorithm::onesweep};

const char* name_of(SortAlgorithm algorithm) { return algorithm == SortAlgorithm::blocks ? "blocks" : "onesweep"; }

/// The order the sort documents, written independently of the library: for floating point -NaN < -inf < ... <
/// -0.0 < +0.0 < ... < +inf < +NaN; integers as they compare.
template <class Key>
bool ordered_before(Key a, Key b) {
    if constexpr (std::is_floating_point_v<Key>) {
        auto rank = [](Key x) { return std::isnan(x) ? (std::signbit(x) ? 0 : 3) : 1; };
        if (rank(a) != rank(b)) return rank(a) < rank(b);
        if (std::isnan(a)) return false;
        if (a == b) return std::signbit(a) && !std::signbit(b);
        return a < b;
    } else {
        return a < b;
    }
}

/// Only the bits [begin, end) of a key count: of an integer with its sign bit flipped (signed keys); of a
/// floating-point key's bits with the sign bit flipped where it is clear, every bit where it is set (the order the
/// sort documents).
template <class Key>
auto bits_of(Key key, int begin, int end) {
    constexpr int width = int(sizeof(Key)) * 8;
    using Bits = std::conditional_t<width == 64, std::uint64_t,
                                    std::conditional_t<width == 32, std::uint32_t,
                                                       std::conditional_t<width == 16, std::uint16_t, std::uint8_t>>>;
    Bits bits;
    std::memcpy(&bits, &key, sizeof(Key));
    const Bits sign = Bits(Bits(1) << (width - 1));
    if constexpr (std::is_floating_point_v<Key>)
        bits = (bits & sign) ? Bits(~bits) : Bits(bits ^ sign);
    else if constexpr (std::is_signed_v<Key>)
        bits ^= sign;
    const Bits mask = end - begin >= width ? Bits(~Bits(0)) : Bits((Bits(1) << (end - begin)) - 1);
    return Bits((bits >> begin) & mask);
}

/// Where std::stable_sort puts each position, with the library's order (and bit range for integers).
template <class Key>
std::vector<std::int64_t> expected_order(const std::vector<Key>& keys, const SortOptions& options) {
    std::vector<std::int64_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0);
    const int width = int(sizeof(Key)) * 8;
    const int end = options.end_bit < 0 ? width : options.end_bit;
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
        Key a = keys[x], b = keys[y];
        if (options.descending) std::swap(a, b);
        if (options.begin_bit != 0 || end != width) return bits_of(a, options.begin_bit, end) < bits_of(b, options.begin_bit, end);
        return ordered_before(a, b);
    });
    return order;
}

template <class Key>
std::vector<Key> random_keys(std::size_t n, std::uint64_t seed, std::uint64_t distinct = 0) {
    std::mt19937_64 random(seed);
    std::vector<Key> keys(n);
    for (auto& key : keys) {
        const std::uint64_t bits = distinct ? random() % distinct : random();
        if constexpr (std::is_floating_point_v<Key>)
            key = static_cast<Key>((static_cast<double>(bits % 2000001) - 1000000.0) / 7.0);
        else if (distinct)
            key = static_cast<Key>(static_cast<std::int64_t>(bits) - static_cast<std::int64_t>(distinct / 2));
        else
            key = static_cast<Key>(bits);
    }
    return keys;
}

template <class Key>
bool same_bits(Key a, Key b) {
    return std::memcmp(&a, &b, sizeof(Key)) == 0;
}

/// Sorts keys with their positions as values (of an integer type that holds them) and checks both against
/// std::stable_sort.
template <class Key, class Value>
void check_pairs(const clalgo::RadixSortKernel<Key, Value>& sorter, const std::vector<Key>& keys,
                 const SortOptions& options, const std::string& what) {
    std::vector<Value> positions(keys.size());
    std::iota(positions.begin(), positions.end(), Value(0));
    auto device_keys = clalgo::to_device(queue(), keys);
    auto device_values = clalgo::to_device(queue(), positions);
    sorter(queue(), device_keys, device_values, options);
    const auto got_keys = device_keys.to_host(queue());
    const auto got_values = device_values.to_host(queue());
    const auto order = expected_order(keys, options);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        ASSERT_TRUE(same_bits(got_keys[k], keys[order[k]])) << what << ": key at " << k << " of " << keys.size();
        ASSERT_EQ(got_values[k], order[k]) << what << ": value at " << k << " of " << keys.size() << " (stability)";
    }
}

template <class Key>
void check_keys(const clalgo::RadixSortKernel<Key>& sorter, const std::vector<Key>& keys, const SortOptions& options,
                const std::string& what) {
    auto device_keys = clalgo::to_device(queue(), keys);
    sorter(queue(), device_keys, options);
    const auto got = device_keys.to_host(queue());
    const auto order = expected_order(keys, options);
    for (std::size_t k = 0; k < keys.size(); ++k)
        ASSERT_TRUE(same_bits(got[k], keys[order[k]])) << what << ": key at " << k << " of " << keys.size();
}

std::vector<std::size_t> sizes_around(std::size_t tile) {
    std::vector<std::size_t> sizes{0, 1, 2, 255, 256, 257, 4097, tile - 1, tile, tile + 1, 2 * tile + 1, 37 * tile + 5};
    sizes.erase(std::remove(sizes.begin(), sizes.end(), std::size_t(0) - 1), sizes.end());
    return sizes;
}

template <class Key>
class SortTyped : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t,
                                  std::uint64_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(SortTyped, KeyTypes);

TYPED_TEST(SortTyped, KeysMatchStableSortAtEverySizeAroundTheTilesWithBothAlgorithms) {
    using Key = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(Key);
    for (SortAlgorithm algorithm : both_algorithms) {
        clalgo::RadixSortKernel<Key> sorter(context(), algorithm);
        for (std::size_t n : sizes_around(sorter.tile())) {
            const std::string what = std::string(name_of(algorithm)) + " n=" + std::to_string(n);
            check_keys(sorter, random_keys<Key>(n, n), {}, what + " ascending");
            check_keys(sorter, random_keys<Key>(n, n + 1, 50), {true}, what + " descending, few distinct");
        }
    }
}

TYPED_TEST(SortTyped, PairsKeepEqualKeysInOrder) {
    using Key = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(Key);
    for (SortAlgorithm algorithm : both_algorithms) {
        clalgo::RadixSortKernel<Key, std::int64_t> sorter(context(), algorithm);
        for (std::size_t n : {std::size_t(1), std::size_t(3), sorter.tile() + 1, std::size_t(20011)}) {
            const std::string what = std::string(name_of(algorithm)) + " n=" + std::to_string(n);
            check_pairs(sorter, random_keys<Key>(n, 7 * n, 20), {}, what);
            check_pairs(sorter, random_keys<Key>(n, 7 * n + 1, 20), {true}, what + " descending");
        }
    }
}

TYPED_TEST(SortTyped, OnesweepSortsViewsThatStartAnywhereInTheirBuffer) {
    // the histogram pass reads the keys as 16-byte vectors, and those before the first vector and after the last
    // one by one: views starting at several places within a vector, over every digit and over a bit range
    using Key = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(Key);
    constexpr int width = int(sizeof(Key)) * 8;
    clalgo::RadixSortKernel<Key> sorter(context(), SortAlgorithm::onesweep);
    const std::size_t vector_keys = 16 / sizeof(Key);
    for (std::size_t offset : {std::size_t(0), std::size_t(1), vector_keys / 2, vector_keys - 1, vector_keys + 1}) {
        for (std::size_t n : {sorter.tile() + 1, 3 * sorter.tile() + vector_keys + 3}) {
            for (const SortOptions options : {SortOptions{}, SortOptions{true, 1, width - 3}}) {
                const std::string what = "offset " + std::to_string(offset) + " n=" + std::to_string(n) +
                                         (options.descending ? " bits 1.." + std::to_string(width - 3) : "");
                const auto keys = random_keys<Key>(offset + n + 5, 31 * n + offset);
                auto device = clalgo::to_device(queue(), keys);
                sorter(queue(), device.view(offset, n), options);
                const auto got = device.to_host(queue());
                const std::vector<Key> middle(keys.begin() + std::ptrdiff_t(offset), keys.begin() + std::ptrdiff_t(offset + n));
                const auto order = expected_order(middle, options);
                for (std::size_t k = 0; k < keys.size(); ++k) {
                    const bool inside = k >= offset && k < offset + n;
                    ASSERT_TRUE(same_bits(got[k], inside ? middle[order[k - offset]] : keys[k])) << what << ": at " << k;
                }
            }
        }
    }
}

/// Sorts keys into their positions with RadixSortKernel::argsort (the positions made by the first pass) and checks
/// them and the sorted keys against std::stable_sort, and that the keys in are left as they were.
template <class Key>
void check_argsort(const clalgo::RadixSortKernel<Key, std::int64_t>& sorter, const std::vector<Key>& keys,
                   const SortOptions& options, const std::string& what) {
    auto keys_in = clalgo::to_device(queue(), keys);
    clalgo::Array<Key> keys_out(queue(), keys.size());
    clalgo::Array<std::int64_t> positions(queue(), keys.size());
    positions.fill(queue(), -1);
    sorter.argsort(queue(), keys_in, keys_out, positions, options);
    const auto got = positions.to_host(queue());
    const auto got_keys = keys_out.to_host(queue());
    const auto order = expected_order(keys, options);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        ASSERT_EQ(got[k], order[k]) << what << ": position at " << k << " of " << keys.size();
        ASSERT_TRUE(same_bits(got_keys[k], keys[order[k]])) << what << ": key at " << k << " of " << keys.size();
    }
    const auto after = keys_in.to_host(queue());
    for (std::size_t k = 0; k < keys.size(); ++k) ASSERT_TRUE(same_bits(after[k], keys[k])) << what << ": keys in changed";
}

TYPED_TEST(SortTyped, BitRangesAndArgsortMatchStableSortWithBothAlgorithms) {
    using Key = TypeParam;
    CLALGO_SKIP_WITHOUT_FP64(Key);
    constexpr int width = int(sizeof(Key)) * 8;
    for (SortAlgorithm algorithm : both_algorithms) {
        clalgo::RadixSortKernel<Key> keys_only(context(), algorithm);
        clalgo::RadixSortKernel<Key, std::int64_t> pairs(context(), algorithm, true);  // argsort's
        const std::size_t tile = keys_only.tile();
        // sizes whose programs the tests above build too: one tile or less, and several
        for (std::size_t n : {std::size_t(0), std::size_t(1), tile - 1, tile + 1, 3 * tile + 5}) {
            const std::string what = std::string(name_of(algorithm)) + " n=" + std::to_string(n);
            // the top bits but the sign bit's neighbour, then a middle range: digits shorter than 8 bits at either end
            check_keys(keys_only, random_keys<Key>(n, n + 2), {false, width / 2 - 3, width - 1}, what + " upper bits");
            check_keys(keys_only, random_keys<Key>(n, n + 3), {true, 1, width / 2 + 2}, what + " lower bits, descending");
            if (n == tile - 1) continue;  // a one-tile pair sort of its own
            check_argsort(pairs, random_keys<Key>(n, n + 4, 40), {}, what + " argsort");
            check_argsort(pairs, random_keys<Key>(n, n + 5, 40), {true}, what + " argsort descending");
            check_argsort(pairs, random_keys<Key>(n, n + 6, 40), {false, 3, 3}, what + " argsort of no bits");
        }
    }
}

/// The kernels `call` launches on this thread.
template <class Call>
std::uint64_t kernels_launched_by(const Call& call) {
    clalgo::detail::LaunchLog log;  // records this thread's launches while it lives
    call();
    return log.launches().size();
}

/// The kernels a sort of more than one tile takes with `passes` digits: blocks, three a digit (count, place,
/// scatter); onesweep, one a digit after the histogram of every digit.
std::uint64_t kernels_for(SortAlgorithm algorithm, std::uint64_t passes) {
    return algorithm == SortAlgorithm::blocks ? 3 * passes : 1 + passes;
}

template <class Key>
void expect_one_pass_per_byte(SortAlgorithm algorithm) {
    SCOPED_TRACE(std::string(name_of(algorithm)) + " " + clalgo::type_name<Key>());
    clalgo::RadixSortKernel<Key> keys_only(context(), algorithm);
    clalgo::RadixSortKernel<Key, std::int64_t> pairs(context(), algorithm, true);  // pairs, and argsort's positions
    const clalgo::RadixSortKernel<Key> automatic(context());  // what the free functions take
    const std::size_t n = 3 * std::max(keys_only.tile(), automatic.tile()) + 5;
    const auto host = random_keys<Key>(n, 21);
    auto keys = clalgo::to_device(queue(), host);
    clalgo::Array<Key> sorted(queue(), n);
    clalgo::Array<std::int64_t> values(queue(), n), positions(queue(), n);
    const std::uint64_t bytes = sizeof(Key);
    EXPECT_EQ(kernels_launched_by([&] { keys_only(queue(), keys, sorted); }), kernels_for(algorithm, bytes));
    EXPECT_EQ(kernels_launched_by([&] { keys_only(queue(), keys, sorted, {true}); }), kernels_for(algorithm, bytes))
        << "descending";
    EXPECT_EQ(kernels_launched_by([&] { pairs(queue(), keys, sorted, values, positions); }), kernels_for(algorithm, bytes))
        << "pairs";
    EXPECT_EQ(kernels_launched_by([&] { pairs.argsort(queue(), keys, sorted, positions); }), kernels_for(algorithm, bytes))
        << "argsort";
    // the free functions add nothing either
    EXPECT_EQ(kernels_launched_by([&] { clalgo::sort(queue(), keys.view(), sorted.view()); }),
              kernels_for(automatic.algorithm(), bytes)) << "clalgo::sort";
    // clalgo::argsort makes the positions in its first pass (it writes them first only over 2^32 keys)
    EXPECT_EQ(kernels_launched_by([&] { (void)clalgo::argsort(queue(), keys.view(), {true}); }),
              kernels_for(automatic.algorithm(), bytes)) << "clalgo::argsort";
    // a range of bits: one pass per 8 of them or fewer
    const int width = int(bytes) * 8;
    for (auto [begin, end] : {std::pair{0, width - 1}, std::pair{3, 4}, std::pair{width / 2, width}}) {
        const std::uint64_t passes = std::uint64_t(end - begin + 7) / 8;
        EXPECT_EQ(kernels_launched_by([&, first = begin, last = end] { keys_only(queue(), keys, sorted, {false, first, last}); }),
                  kernels_for(algorithm, passes)) << "bits " << begin << ".." << end;
    }
    EXPECT_EQ(kernels_launched_by([&] { keys_only(queue(), keys, {false, 5, 5}); }), 0u) << "no bits, in place";
    // and the last of those sorts sorted right
    const auto got = sorted.to_host(queue());
    const auto order = expected_order(host, {false, width / 2, width});
    for (std::size_t k = 0; k < n; ++k) ASSERT_TRUE(same_bits(got[k], host[order[k]])) << "at " << k;
}

TEST(Sort, EachSortLaunchesOnePassPerByteOfItsKeysOrOfItsBitRange) {
    // keys of every type, both algorithms (forced onto a CPU, onesweep's tiles are small), sorts of several tiles
    for (SortAlgorithm algorithm : both_algorithms) {
        expect_one_pass_per_byte<std::uint8_t>(algorithm);
        expect_one_pass_per_byte<std::int16_t>(algorithm);
        expect_one_pass_per_byte<std::uint32_t>(algorithm);
        expect_one_pass_per_byte<std::int32_t>(algorithm);
        expect_one_pass_per_byte<float>(algorithm);
        expect_one_pass_per_byte<std::int64_t>(algorithm);
        if (clalgo_test::has_fp64()) expect_one_pass_per_byte<double>(algorithm);
    }
    // 20 significant bits of 32-bit keys: three passes
    clalgo::RadixSortKernel<std::uint32_t> sorter(context(), SortAlgorithm::onesweep);
    auto keys = clalgo::to_device(queue(), random_keys<std::uint32_t>(4 * sorter.tile(), 22, 1u << 20));
    EXPECT_EQ(kernels_launched_by([&] { sorter(queue(), keys, {false, 0, 20}); }), 1u + 3u);
}

TEST(Sort, ALaunchLogThatAsksForEventsHasOneForEveryKernelOfTheSort) {
    // sort_kernels times each kernel of a sort by these events: one per launch, each finished with the sort, and
    // none made where the log does not ask for them
    clalgo::RadixSortKernel<std::uint32_t> sorter(context(), SortAlgorithm::onesweep);
    const auto host = random_keys<std::uint32_t>(3 * sorter.tile() + 5, 31);
    auto keys = clalgo::to_device(queue(), host);
    {
        clalgo::detail::LaunchLog log(true);
        sorter(queue(), keys);
        queue().finish();
        ASSERT_EQ(log.launches().size(), kernels_for(SortAlgorithm::onesweep, 4));
        for (const auto& launch : log.launches()) {
            ASSERT_NE(launch.event(), nullptr);
            EXPECT_EQ(launch.event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
        }
    }
    clalgo::detail::LaunchLog log;
    sorter(queue(), keys);
    for (const auto& launch : log.launches()) EXPECT_EQ(launch.event(), nullptr);
    auto sorted = host;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(keys.to_host(queue()), sorted);
}

TEST(Sort, AMillionKeysAndPairsWithBothAlgorithms) {
    const std::size_t n = (1u << 20) + 3;
    for (SortAlgorithm algorithm : both_algorithms) {
        check_keys(clalgo::RadixSortKernel<std::uint32_t>(context(), algorithm), random_keys<std::uint32_t>(n, 11), {},
                   name_of(algorithm));
        check_pairs(clalgo::RadixSortKernel<float, std::int64_t>(context(), algorithm), random_keys<float>(n, 12), {},
                    name_of(algorithm));
    }
}

/// Sorts int32 keys with their positions as values into other arrays; checks both against std::stable_sort and
/// that the inputs stay as they were.
void check_pairs_into(const clalgo::RadixSortKernel<std::int32_t, std::int64_t>& sorter, const std::vector<std::int32_t>& keys,
                      const SortOptions& options, const std::string& what) {
    const std::size_t n = keys.size();
    std::vector<std::int64_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0);
    auto keys_in = clalgo::to_device(queue(), keys);
    auto values_in = clalgo::to_device(queue(), positions);
    clalgo::Array<std::int32_t> keys_out(queue(), n);
    clalgo::Array<std::int64_t> values_out(queue(), n);
    sorter(queue(), keys_in, keys_out, values_in, values_out, options);
    const auto order = expected_order(keys, options);
    const auto got = keys_out.to_host(queue());
    const auto got_values = values_out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(got[k], keys[order[k]]) << what << " n=" << n << ": key at " << k;
        ASSERT_EQ(got_values[k], order[k]) << what << " n=" << n << ": value at " << k;
    }
    EXPECT_EQ(keys_in.to_host(queue()), keys) << what << ": the input keys changed";
    EXPECT_EQ(values_in.to_host(queue()), positions) << what << ": the input values changed";
}

/// The sizes around each one-tile size class of the onesweep policy of keys of key_size bytes with values of
/// value_size (as the sorters below make it): each class's keys, one fewer and one more, up to the tile.
std::vector<std::size_t> one_tile_sizes(std::size_t key_size, std::size_t value_size) {
    const auto policy = clalgo::detail::radix_sort_policy(queue().info(), key_size, value_size, SortAlgorithm::onesweep);
    std::vector<std::size_t> sizes{2};
    for (std::size_t k = 0; k == 0 || policy.one_tile_keys(k - 1) < policy.tile(); ++k) {
        const std::size_t keys = policy.one_tile_keys(k);
        for (std::size_t n : {keys - 1, keys, keys + 1})
            if (n <= policy.tile() && n > sizes.back()) sizes.push_back(n);
    }
    return sizes;
}

/// Sorts at every one-tile size: keys, 64-bit keys, pairs in place and into other arrays.
void one_tile_sorts_match_stable_sort(const std::string& config) {
    clalgo::RadixSortKernel<std::uint32_t> keys_only(context(), SortAlgorithm::onesweep);
    clalgo::RadixSortKernel<std::uint64_t> wide(context(), SortAlgorithm::onesweep);
    clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), SortAlgorithm::onesweep);
    clalgo::RadixSortKernel<std::uint32_t, std::uint32_t> narrow_pairs(context(), SortAlgorithm::onesweep);
    for (std::size_t n : one_tile_sizes(4, 0)) {
        const std::string what = config + "n=" + std::to_string(n);
        check_keys(keys_only, random_keys<std::uint32_t>(n, n), {}, what);
        check_keys(keys_only, random_keys<std::uint32_t>(n, n + 1, 30), {true}, what + " descending");
    }
    for (std::size_t n : one_tile_sizes(8, 0))
        check_keys(wide, random_keys<std::uint64_t>(n, 3 * n), {}, config + "uint64 n=" + std::to_string(n));
    for (std::size_t n : one_tile_sizes(4, 8)) {
        const std::string what = config + "pairs n=" + std::to_string(n);
        check_pairs(pairs, random_keys<std::int32_t>(n, 5 * n, 40), {}, what + " in place");
        check_pairs_into(pairs, random_keys<std::int32_t>(n, 5 * n + 1, 40), {}, what + " into other arrays");
    }
    // 32-bit values: their item numbers pass through the keys' local memory or a region of their own
    for (std::size_t n : one_tile_sizes(4, 4))
        check_pairs(narrow_pairs, random_keys<std::uint32_t>(n, 9 * n, 40), {},
                    config + "uint32 pairs n=" + std::to_string(n));
}

TEST(Sort, OneTileSortsTakeTheSmallestTileThatHoldsTheInput) {
    // at most one onesweep tile: one work-group sorts, in the smallest of its tiles that holds every key; the
    // policy's tiles, then tiles of 32 keys a work-item in groups of 32, whose largest size takes a group larger
    // than the policy's
    for (const bool larger_groups : {false, true}) {
        std::optional<clalgo_test::ScopedVariable> items, group, tile_group;
        if (larger_groups) {
            items.emplace("CLALGO_SORT_ITEMS", "32");
            group.emplace("CLALGO_SORT_GROUP", "32");
            tile_group.emplace("CLALGO_SORT_TILE_GROUP", "1024");
            // the largest of these tiles (32 x 32 keys) takes a group larger than the policy's
            const auto& info = queue().info();
            const auto policy = clalgo::detail::radix_sort_policy(info, 4, 0, SortAlgorithm::onesweep);
            std::size_t largest = 0;
            while (policy.one_tile_keys(largest) < policy.tile()) ++largest;
            EXPECT_GT(clalgo::detail::radix_tile_policy(info, policy, largest, 4, 0).group_size, policy.group_size);
        }
        one_tile_sorts_match_stable_sort(larger_groups ? "larger groups " : "");
    }
}

TEST(Sort, SmallerInputsSortInTheSmallerTilesOfTheirTier) {
    // tiers (CLALGO_SORT_TIERS): inputs of up to two tiles in tiles of 1 key a work-item, up to five tiles in tiles
    // of 2; past that, in the policy's tiles
    const std::size_t tile = clalgo::RadixSortKernel<std::uint32_t>(context(), SortAlgorithm::onesweep).tile();
    clalgo_test::ScopedVariable tiers("CLALGO_SORT_TIERS", "1:" + std::to_string(2 * tile) + ",2:" + std::to_string(5 * tile));
    clalgo::RadixSortKernel<std::uint32_t> keys_only(context(), SortAlgorithm::onesweep);
    clalgo::RadixSortKernel<std::uint64_t> wide(context(), SortAlgorithm::onesweep);
    clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), SortAlgorithm::onesweep);
    const auto policy = clalgo::detail::radix_sort_policy(queue().info(), 4, 0, SortAlgorithm::onesweep);
    ASSERT_EQ(policy.tiers.size(), 2u);
    EXPECT_EQ(policy.tier_of(tile), 0u);
    EXPECT_EQ(policy.tier_of(tile + 1), 1u);
    EXPECT_EQ(policy.tier_of(2 * tile + 1), 2u);
    EXPECT_EQ(policy.tier_of(5 * tile + 1), 0u);
    EXPECT_EQ(policy.with_tier(2).tile(), 2 * policy.group_size);
    for (std::size_t n : {tile + 1, 2 * tile, 2 * tile + 1, 5 * tile, 5 * tile + 1}) {
        const std::string what = "n=" + std::to_string(n);
        check_keys(keys_only, random_keys<std::uint32_t>(n, n), {}, what);
        check_keys(keys_only, random_keys<std::uint32_t>(n, n + 1, 30), {true}, what + " descending");
        check_keys(keys_only, random_keys<std::uint32_t>(n, n + 2), {false, 4, 21}, what + " bits 4-21");
        check_keys(wide, random_keys<std::uint64_t>(n, 3 * n), {}, "uint64 " + what);
        check_pairs(pairs, random_keys<std::int32_t>(n, 5 * n, 40), {}, "pairs " + what);
        check_pairs_into(pairs, random_keys<std::int32_t>(n, 5 * n + 1, 40), {true}, "pairs into other arrays " + what);
    }
}

TEST(Sort, EachCallBuildsTheOneProgramItsSizeTakes) {
    // nothing is compiled before a call needs it; each size compiles the one program it takes, once
    const std::size_t tile = clalgo::RadixSortKernel<std::uint32_t>(context(), SortAlgorithm::onesweep).tile();
    clalgo_test::ScopedVariable tiers("CLALGO_SORT_TIERS", "2:" + std::to_string(3 * tile));
    clalgo::RadixSortKernel<std::uint32_t> sorter(context(), SortAlgorithm::onesweep);
    const std::string group = std::to_string(sorter.group_size()), pair = std::to_string(2 * sorter.group_size());
    using Built = std::vector<std::string>;
    EXPECT_EQ(sorter.built_programs(), Built{});
    EXPECT_EQ(sorter.build_log(), "");
    check_keys(sorter, random_keys<std::uint32_t>(sorter.group_size(), 1), {}, "one group");
    EXPECT_EQ(sorter.built_programs(), (Built{"one tile of " + group + " keys"}));
    check_keys(sorter, random_keys<std::uint32_t>(sorter.group_size() + 1, 2), {}, "one group and one key");
    check_keys(sorter, random_keys<std::uint32_t>(2 * sorter.group_size(), 3), {}, "two groups");
    EXPECT_EQ(sorter.built_programs(), (Built{"one tile of " + group + " keys", "one tile of " + pair + " keys"}));
    check_keys(sorter, random_keys<std::uint32_t>(tile + 1, 4), {}, "one tile and one key");
    check_keys(sorter, random_keys<std::uint32_t>(3 * tile, 5), {}, "three tiles");
    EXPECT_EQ(sorter.built_programs(),
              (Built{"passes in tier 1", "one tile of " + group + " keys", "one tile of " + pair + " keys"}));
    check_keys(sorter, random_keys<std::uint32_t>(3 * tile + 1, 6), {}, "three tiles and one key");
    EXPECT_EQ(sorter.built_programs(), (Built{"passes", "passes in tier 1", "one tile of " + group + " keys",
                                              "one tile of " + pair + " keys"}));
}

TEST(Sort, ThreadsCallingFirstAtOnceBuildEachProgramOnceAndSortRight) {
    // each thread on its own queue; all reach the same unbuilt programs at once
    clalgo::RadixSortKernel<std::uint32_t, std::int64_t> sorter(context(), SortAlgorithm::onesweep);
    const std::vector<std::size_t> sizes{sorter.group_size(), sorter.tile() + 1, 3 * sorter.tile() + 5};
    std::atomic<int> wrong{0}, failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            try {
                clalgo::Queue q(context());
                for (std::size_t n : sizes) {
                    const auto keys = random_keys<std::uint32_t>(n, 100 * t + n, 1000);
                    std::vector<std::int64_t> positions(n);
                    std::iota(positions.begin(), positions.end(), 0);
                    auto device_keys = clalgo::to_device(q, keys);
                    auto device_values = clalgo::to_device(q, positions);
                    sorter(q, device_keys, device_values);
                    const auto order = expected_order(keys, {});
                    const auto got_keys = device_keys.to_host(q);
                    const auto got_values = device_values.to_host(q);
                    for (std::size_t k = 0; k < n; ++k)
                        if (got_keys[k] != keys[order[k]] || got_values[k] != order[k]) ++wrong;
                }
            } catch (const std::exception&) {
                ++failed;
            }
        });
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_EQ(wrong.load(), 0);
    // each size's program, once: one tile, and the passes of the larger sizes' tiers (or the policy's tiles)
    const auto policy = clalgo::detail::radix_sort_policy(queue().info(), 4, 8, SortAlgorithm::onesweep);
    const std::size_t passes = policy.tier_of(sizes[1]) == policy.tier_of(sizes[2]) ? 1 : 2;
    EXPECT_EQ(sorter.built_programs().size(), 1 + passes);
}

TEST(SortPolicy, OneTileSortsFitTheDevice) {
    using clalgo::DeviceClass;
    for (DeviceClass device : {DeviceClass::nvidia_gpu, DeviceClass::other_gpu, DeviceClass::cpu}) {
        auto info = clalgo::typical_device(device);
        info.has_int64_atomics = true;
        for (std::size_t key_size : {1, 2, 4, 8})
            for (std::size_t value_size : {0, 4, 8, 24}) {
                const auto policy = clalgo::detail::radix_sort_policy(info, key_size, value_size, SortAlgorithm::onesweep);
                for (std::size_t k = 0; k == 0 || policy.one_tile_keys(k - 1) < policy.tile(); ++k) {
                    const auto shape = clalgo::detail::radix_tile_policy(info, policy, k, key_size, value_size);
                    const std::string what = info.name + " keys " + std::to_string(key_size) + " values " +
                                             std::to_string(value_size) + " class " + std::to_string(k);
                    EXPECT_GE(shape.tile(), policy.one_tile_keys(k)) << what;
                    EXPECT_LE(shape.tile(), 65536u) << what;
                    EXPECT_GE(shape.group_size, policy.group_size) << what;
                    EXPECT_LE(shape.group_size, info.max_work_group_size) << what;
                    EXPECT_EQ(shape.group_size & (shape.group_size - 1), 0u) << what;
                    EXPECT_TRUE(shape.one_tile) << what;
                    EXPECT_LE(shape.local_bytes(key_size, value_size) + 2048, info.local_memory_bytes) << what;
                    // the ranking's counters apart only for NVIDIA's ranking, and only where they fit
                    if (shape.counters_apart) {
                        EXPECT_TRUE(shape.match_rank) << what;
                        EXPECT_LE(shape.local_bytes(key_size, value_size) + 2048, info.local_memory_bytes) << what;
                    }
                }
            }
    }
    // NVIDIA, 32-bit keys: classes of 256 x 1, 2, 4, 8 keys and then 4 more a work-item, up to the tile; each
    // with its counters apart where they fit, in the largest group of at most 16 keys a work-item; keys alone
    // whose counters cannot be apart in groups of 256, pairs in groups of 8 or more keys a work-item
    const auto nvidia = clalgo::typical_device(DeviceClass::nvidia_gpu);
    const auto policy = clalgo::detail::radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic);
    std::vector<std::size_t> classes;
    for (std::size_t k = 0; k == 0 || policy.one_tile_keys(k - 1) < policy.tile(); ++k)
        classes.push_back(policy.one_tile_keys(k));
    EXPECT_EQ(classes, (std::vector<std::size_t>{256, 512, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192, 9216, 9728}));
    // the shape of the smallest class that holds n keys
    auto shape_for = [&](const clalgo::detail::RadixSortPolicy& of, std::size_t n, std::size_t value_size) {
        std::size_t k = 0;
        while (of.one_tile_keys(k) < n) ++k;
        return clalgo::detail::radix_tile_policy(nvidia, of, k, 4, value_size);
    };
    struct Shape {
        std::size_t group, items;
        bool apart;
    };
    auto expect_shape = [&](const clalgo::detail::RadixSortPolicy& of, std::size_t n, std::size_t value_size, Shape want) {
        const auto got = shape_for(of, n, value_size);
        const std::string what = std::to_string(n) + " keys, values of " + std::to_string(value_size) + " bytes";
        EXPECT_EQ(got.group_size, want.group) << what;
        EXPECT_EQ(got.items, want.items) << what;
        EXPECT_EQ(got.counters_apart, want.apart) << what;
    };
    expect_shape(policy, 1024, 0, {256, 4, true});
    expect_shape(policy, 4096, 0, {256, 16, true});
    expect_shape(policy, 4500, 0, {256, 20, true});
    expect_shape(policy, 8192, 0, {256, 32, true});
    expect_shape(policy, 9000, 0, {256, 36, false});
    expect_shape(policy, policy.tile(), 0, {256, 38, false});
    EXPECT_FALSE(policy.counters_apart);  // the onesweep passes' counters share the keys' local memory
    const auto pairs_policy = clalgo::detail::radix_sort_policy(nvidia, 4, 4, SortAlgorithm::automatic);
    expect_shape(pairs_policy, 4096, 4, {256, 16, true});
    expect_shape(pairs_policy, 5000, 4, {256, 20, true});
    expect_shape(pairs_policy, 6000, 4, {512, 12, false});
    expect_shape(pairs_policy, 8192, 4, {1024, 8, false});
    expect_shape(pairs_policy, pairs_policy.tile(), 4, {512, 18, false});
    // pairs of 4096: the counters apart, and so the item numbers in a region of their own beside the keys
    const auto pairs_of_4096 = shape_for(pairs_policy, 4096, 4);
    EXPECT_EQ(pairs_of_4096.tile(), 4096u);
    // the item numbers' region (2 bytes a key) beside the keys' exchange, which is the same size as without values
    EXPECT_EQ(pairs_of_4096.local_bytes(4, 4) - pairs_of_4096.local_bytes(4, 0), pairs_of_4096.tile() * 2);
    // NVIDIA's full tiles: 32-bit keys alone 38 a work-item (as many as local memory holds), in local memory
    // before the look-back, ranked by the atomic match; pairs of them 36 in the same form (each place's digit in
    // registers, 31 where the digits take local memory), but with 64-bit values by ballots and warp barriers,
    // keys after the look-back, 19 a work-item (17 with the digits in local memory); 64-bit keys 30 before the
    // look-back
    EXPECT_EQ(policy.items, 38u);
    EXPECT_TRUE(policy.forms.keys_before_look_back && policy.forms.match_or && policy.forms.rank_atomics);
    const auto pairs = clalgo::detail::radix_sort_policy(nvidia, 4, 4, SortAlgorithm::automatic);
    EXPECT_EQ(pairs.items, 36u);
    EXPECT_TRUE(pairs.forms.keys_before_look_back && pairs.forms.match_or && pairs.forms.rank_atomics);
    const auto wide_values = clalgo::detail::radix_sort_policy(nvidia, 4, 8, SortAlgorithm::automatic);
    EXPECT_EQ(wide_values.items, 19u);
    EXPECT_TRUE(pairs.digits_in_registers && wide_values.digits_in_registers);
    EXPECT_FALSE(pairs.with_tier(pairs.tier_of(std::size_t(1) << 20)).digits_in_registers);
    EXPECT_LE(pairs.local_bytes(4, 4) + 2048, nvidia.local_memory_bytes);
    EXPECT_LE(wide_values.local_bytes(4, 8) + 2048, nvidia.local_memory_bytes);
    {
        clalgo_test::ScopedVariable local_digits("CLALGO_SORT_DIGITS_IN_REGISTERS", "0");
        EXPECT_EQ(clalgo::detail::radix_sort_policy(nvidia, 4, 4, SortAlgorithm::automatic).items, 31u);
        EXPECT_EQ(clalgo::detail::radix_sort_policy(nvidia, 4, 8, SortAlgorithm::automatic).items, 17u);
    }
    EXPECT_FALSE(wide_values.forms.keys_before_look_back || wide_values.forms.match_or || wide_values.forms.rank_atomics);
    // the values of pairs in that form asked into the L2 cache as a tile begins, in full tiles only
    EXPECT_TRUE(pairs.prefetch_values);
    EXPECT_FALSE(pairs.with_tier(pairs.tier_of(std::size_t(1) << 20)).prefetch_values);
    EXPECT_FALSE(policy.prefetch_values || wide_values.prefetch_values);
    const auto wide = clalgo::detail::radix_sort_policy(nvidia, 8, 0, SortAlgorithm::automatic);
    EXPECT_EQ(wide.items, 30u);
    EXPECT_TRUE(wide.forms.keys_before_look_back && wide.split_keys);
    EXPECT_FALSE(wide.forms.match_or || wide.forms.rank_atomics);
    // float keys alone take the form of 32-bit integer keys; double keys alone that of 64-bit integer keys (ballots,
    // warp barriers, keys before the look-back, full tiles written without tests, the tier of tiles of 20) in
    // tiles of 28; float keys with values keep ballots, warp barriers and keys after the look-back, in tiles of 28
    const auto floats = clalgo::detail::radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic, {}, true);
    EXPECT_EQ(floats.items, 38u);
    EXPECT_TRUE(floats.forms.keys_before_look_back && floats.forms.match_or && floats.forms.rank_atomics);
    const auto doubles = clalgo::detail::radix_sort_policy(nvidia, 8, 0, SortAlgorithm::automatic, {}, true);
    EXPECT_EQ(doubles.items, 28u);
    EXPECT_TRUE(doubles.forms.keys_before_look_back && doubles.split_keys);
    EXPECT_FALSE(doubles.forms.match_or || doubles.forms.rank_atomics);
    EXPECT_EQ(doubles.with_tier(doubles.tier_of(std::size_t(1) << 22)).items, 20u);
    const auto float_pairs = clalgo::detail::radix_sort_policy(nvidia, 4, 4, SortAlgorithm::automatic, {}, true);
    EXPECT_EQ(float_pairs.items, 28u);
    EXPECT_FALSE(float_pairs.forms.keys_before_look_back || float_pairs.forms.match_or || float_pairs.forms.rank_atomics);
    EXPECT_FALSE(float_pairs.prefetch_values || float_pairs.digits_in_registers || doubles.digits_in_registers);
    EXPECT_FALSE(policy.digits_in_registers);  // no values
    // a full tile's writes without tests: 64-bit keys alone and integer keys of up to 32 bits with values, in the
    // policy's tiles; keys of up to 32 bits alone keep the tests, as do the forms not timed so
    EXPECT_TRUE(pairs.full_tile_writes && wide_values.full_tile_writes && wide.full_tile_writes &&
                doubles.full_tile_writes);
    EXPECT_FALSE(policy.full_tile_writes || floats.full_tile_writes || float_pairs.full_tile_writes);
    EXPECT_FALSE(pairs.with_tier(pairs.tier_of(std::size_t(1) << 20)).full_tile_writes);
    EXPECT_FALSE(clalgo::detail::radix_tile_policy(nvidia, pairs, 4, 4, 4).full_tile_writes);
    // each digit's place in 64 bits for 64-bit integer keys alone or with values, in 32 bits for the others
    const auto wide_pairs = clalgo::detail::radix_sort_policy(nvidia, 8, 8, SortAlgorithm::automatic);
    EXPECT_TRUE(wide.wide_places && wide_pairs.wide_places);
    EXPECT_FALSE(policy.wide_places || pairs.wide_places || wide_values.wide_places || floats.wide_places ||
                 doubles.wide_places || float_pairs.wide_places);
    // a look-back of four tiles a step for pairs of integer keys and values of up to 32 bits in the policy's tiles;
    // eight for argsort's positions, the other sorts and the tiers
    const auto argsort_pairs = clalgo::detail::radix_sort_policy(nvidia, 4, 4, SortAlgorithm::automatic, {}, false, true);
    EXPECT_EQ(pairs.look_back_window, 4u);
    EXPECT_EQ(pairs.with_tier(pairs.tier_of(std::size_t(1) << 20)).look_back_window, 8u);
    const std::pair<const char*, const clalgo::detail::RadixSortPolicy*> eights[] = {
        {"argsort", &argsort_pairs}, {"uint32 keys", &policy},   {"64-bit values", &wide_values},
        {"uint64 keys", &wide},      {"float keys", &floats},    {"double keys", &doubles},
        {"float pairs", &float_pairs}, {"uint64 pairs", &wide_pairs}};
    for (const auto& [name, other] : eights) EXPECT_EQ(other->look_back_window, 8u) << name;
    {
        clalgo_test::ScopedVariable window("CLALGO_SORT_LOOK_BACK_WINDOW", "3");
        EXPECT_EQ(clalgo::detail::radix_sort_policy(nvidia, 8, 0, SortAlgorithm::automatic).look_back_window, 3u);
        const auto forced = clalgo::detail::radix_sort_policy(nvidia, 4, 4, SortAlgorithm::automatic);
        EXPECT_EQ(forced.look_back_window, 3u);
        EXPECT_EQ(forced.with_tier(forced.tier_of(std::size_t(1) << 20)).look_back_window, 8u) << "the tiers keep 8";
    }
    {  // past 2^32 keys no tier takes an input, whatever the variable asks: only the policy's passes widen places
        clalgo_test::ScopedVariable far("CLALGO_SORT_TIERS", "16:8589934592");
        const auto tiered = clalgo::detail::radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic);
        EXPECT_EQ(tiered.tier_of(std::uint64_t(1) << 32), 1u);
        EXPECT_EQ(tiered.tier_of((std::uint64_t(1) << 32) + 1), 0u);
    }
    // a group of 512 cannot hold the atomic match's words (3 KiB a warp) beside even one key a work-item: it keeps
    // its size and matches by ballots
    {
        clalgo_test::ScopedVariable group("CLALGO_SORT_GROUP", "512");
        const auto wide_group = clalgo::detail::radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic);
        EXPECT_EQ(wide_group.group_size, 512u);
        EXPECT_FALSE(wide_group.forms.match_or);
        EXPECT_LE(wide_group.local_bytes(4, 0) + 2048, nvidia.local_memory_bytes);
    }
    // tiles of fewer than 16 keys a work-item and the one-tile sort: ballots, warp barriers, keys after the look-back
    for (const auto& small : {policy.with_tier(policy.tier_of(policy.tile() + 1)),
                              clalgo::detail::radix_tile_policy(nvidia, policy, 4, 4, 0)})
        EXPECT_FALSE(small.forms.keys_before_look_back || small.forms.match_or || small.forms.rank_atomics);
    EXPECT_TRUE(policy.with_tier(policy.tier_of(std::size_t(1) << 21)).forms.match_or);
    for (const auto* shape : {&policy, &pairs, &wide})
        EXPECT_LE(shape->local_bytes(shape == &wide ? 8 : 4, shape == &pairs ? 4 : 0), nvidia.local_memory_bytes - 2048);
    // NVIDIA: up to 2^15 keys in tiles of 8 keys a work-item, up to 2^21 in tiles of 16; others: no tiers
    EXPECT_EQ(policy.tier_of(policy.tile()), 0u);
    EXPECT_EQ(policy.with_tier(policy.tier_of(policy.tile() + 1)).items, 8u);
    EXPECT_EQ(policy.with_tier(policy.tier_of(std::size_t(1) << 15)).items, 8u);
    EXPECT_EQ(policy.with_tier(policy.tier_of((std::size_t(1) << 15) + 1)).items, 16u);
    EXPECT_EQ(policy.with_tier(policy.tier_of(std::size_t(1) << 21)).items, 16u);
    EXPECT_EQ(policy.tier_of((std::size_t(1) << 21) + 1), 0u);
    // 64-bit keys alone and 64-bit integer keys with values: a third tier, tiles of 20 up to 2^22 (double keys with
    // values: two)
    EXPECT_EQ(wide.with_tier(wide.tier_of(std::size_t(1) << 21)).items, 16u);
    EXPECT_EQ(wide.with_tier(wide.tier_of(std::size_t(1) << 22)).items, 20u);
    EXPECT_EQ(wide.tier_of((std::size_t(1) << 22) + 1), 0u);
    EXPECT_EQ(clalgo::detail::radix_sort_policy(nvidia, 8, 0, SortAlgorithm::automatic, {}, true).tiers.size(), 3u);
    EXPECT_EQ(clalgo::detail::radix_sort_policy(nvidia, 8, 4, SortAlgorithm::automatic, {}).tiers.size(), 3u);
    EXPECT_EQ(clalgo::detail::radix_sort_policy(nvidia, 8, 4, SortAlgorithm::automatic, {}, true).tiers.size(), 2u);
    auto gpu = clalgo::typical_device(DeviceClass::other_gpu);
    gpu.has_int64_atomics = true;
    EXPECT_EQ(clalgo::detail::radix_sort_policy(gpu, 4, 0, SortAlgorithm::automatic).tier_of(20000), 0u);
    clalgo_test::ScopedVariable group("CLALGO_SORT_TILE_GROUP", "256");
    const auto kept = clalgo::detail::radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic);
    EXPECT_EQ(clalgo::detail::radix_tile_policy(nvidia, kept, 4, 4, 0).group_size, 256u);
}

TEST(Sort, OnesweepMovesValuesBothWaysThroughLocalMemoryOrByGathering) {
    // CLALGO_SORT_VALUES: values exchanged through the tile's local memory (the default: loaded while the keys
    // are written out; late: loaded after), or gathered by item
    for (const char* way : {"exchange", "late", "gather"}) {
        clalgo_test::ScopedVariable values("CLALGO_SORT_VALUES", way);
        clalgo::RadixSortKernel<std::uint32_t, std::int64_t> wide(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::uint64_t, std::uint8_t> narrow(context(), SortAlgorithm::onesweep);
        for (std::size_t n : {std::size_t(2), wide.tile() - 1, 3 * wide.tile() + 7, std::size_t(40009)}) {
            const std::string what = std::string(way) + " n=" + std::to_string(n);
            check_pairs(wide, random_keys<std::uint32_t>(n, 3 * n, 40), {}, what);
            check_pairs(wide, random_keys<std::uint32_t>(n, 3 * n + 1), {true}, what + " descending");
            // one-byte values beside eight-byte keys: the values' place in the tile is not the keys'
            const auto keys = random_keys<std::uint64_t>(n, 5 * n, 300);
            std::vector<std::uint8_t> bytes(n);
            for (std::size_t k = 0; k < n; ++k) bytes[k] = static_cast<std::uint8_t>(k * 7 + 3);
            auto device_keys = clalgo::to_device(queue(), keys);
            auto device_bytes = clalgo::to_device(queue(), bytes);
            narrow(queue(), device_keys, device_bytes);
            const auto got = device_bytes.to_host(queue());
            const auto order = expected_order(keys, {});
            for (std::size_t k = 0; k < n; ++k)
                ASSERT_EQ(got[k], bytes[order[k]]) << what << " uint8 values at " << k;
        }
    }
}

TEST(Sort, OnesweepTilesOfOtherGroupsAndEitherGroupScanSortRight) {
    // CLALGO_SORT_GROUP (as a tuned group would): the passes, the tiers and the one-tile sorts with groups of 32 to
    // 512, with the group scans by warp shuffles and in local memory (NVIDIA, where 96 and 384 are whole warps; elsewhere
    // always in local memory, and groups round down to powers of two)
    for (const char* group : {"32", "96", "128", "384", "512"}) {
        for (const char* shuffle : {"on", "off"}) {
            clalgo_test::ScopedVariable forced("CLALGO_SORT_GROUP", group);
            clalgo_test::ScopedVariable scan("CLALGO_SORT_SHUFFLE_SCAN", shuffle);
            clalgo_test::ScopedVariable items("CLALGO_SORT_ITEMS", "6");
            clalgo::RadixSortKernel<std::uint32_t> keys_only(context(), SortAlgorithm::onesweep);
            clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), SortAlgorithm::onesweep);
            const std::size_t asked = std::stoul(group);
            if (clalgo::device_class(queue().info()) == clalgo::DeviceClass::nvidia_gpu)
                EXPECT_EQ(keys_only.group_size(), asked) << "whole warps are taken as they are";
            else
                EXPECT_LE(keys_only.group_size(), asked);
            for (std::size_t n : {std::size_t(3), keys_only.tile() - 1, keys_only.tile() + 1, 5 * keys_only.tile() + 3,
                                  std::size_t(70001)}) {
                const std::string what = std::string("group ") + group + ", shuffle " + shuffle + ", n=" + std::to_string(n);
                check_keys(keys_only, random_keys<std::uint32_t>(n, 9 * n), {}, what);
                check_keys(keys_only, random_keys<std::uint32_t>(n, 9 * n + 1, 50), {true}, what + " descending");
                check_pairs(pairs, random_keys<std::int32_t>(n, 9 * n + 2, 40), {}, what + " pairs");
            }
        }
    }
}

TEST(Sort, OnesweepPublishesEachTilesCountsBeforeOrAfterPlacingItsKeys) {
    // CLALGO_SORT_EARLY_COUNTS: a tile's counts published as soon as they are counted (32-bit keys and narrower by
    // default) or once its keys are placed (64-bit keys); the look-back adds up either
    for (const char* early : {"1", "0"}) {
        clalgo_test::ScopedVariable variable("CLALGO_SORT_EARLY_COUNTS", early);
        clalgo::RadixSortKernel<std::uint32_t> keys_only(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::uint64_t, std::int64_t> wide_pairs(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::int16_t, std::int64_t> narrow_pairs(context(), SortAlgorithm::onesweep);
        EXPECT_EQ(keys_only.source().find("#define CLALGO_EARLY_COUNTS 1") != std::string::npos, early[0] == '1');
        for (std::size_t n : {std::size_t(1), keys_only.tile() + 1, 7 * keys_only.tile() + 5, std::size_t(50021),
                              (std::size_t(1) << 20) + 3}) {  // the last: hundreds of tiles, most found as aggregates
            const std::string what = std::string("early counts ") + early + " n=" + std::to_string(n);
            check_keys(keys_only, random_keys<std::uint32_t>(n, 3 * n), {}, what);
            check_keys(keys_only, random_keys<std::uint32_t>(n, 3 * n + 1, 30), {true, 4, 28}, what + " bits 4-28");
            check_pairs(wide_pairs, random_keys<std::uint64_t>(n, 3 * n + 2, 60), {}, what + " 64-bit pairs");
            check_pairs(narrow_pairs, random_keys<std::int16_t>(n, 3 * n + 3), {true}, what + " 16-bit pairs");
        }
    }
}

TEST(Sort, OnesweepWritesFullTilesWithOrWithoutTestingEachPlace) {
    // CLALGO_SORT_FULL_TILE_WRITES=1: a full tile's keys and values written without testing each place against the
    // tile's end (NVIDIA's default for 64-bit integer keys and for integer keys of up to 32 bits with values), the
    // last tile by a loop over its places (unrolled and tested with split keys), the policy's own tiles at every
    // size; keys alone, pairs with each place's digit in registers or in local memory, their values
    // exchanged early, late or gathered, 64-bit keys whole or in halves, argsort. Every test on a device whose
    // default tests each place (every one but NVIDIA's) sorts in the other form.
    {
        clalgo_test::ScopedVariable tested("CLALGO_SORT_FULL_TILE_WRITES", "0");
        clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), SortAlgorithm::onesweep);
        EXPECT_TRUE(clalgo_test::contains(pairs.source(), "#define CLALGO_FULL_TILE_WRITES 0"));
    }
    struct Forms {
        const char *digits, *values, *split;
    };
    clalgo_test::ScopedVariable variable("CLALGO_SORT_FULL_TILE_WRITES", "1");
    clalgo_test::ScopedVariable tiers("CLALGO_SORT_TIERS", "none");  // the policy's own tiles at every size
    for (const Forms forms : {Forms{"1", "exchange", "1"}, Forms{"0", "late", "0"}, Forms{"0", "gather", "1"}}) {
        clalgo_test::ScopedVariable kept("CLALGO_SORT_DIGITS_IN_REGISTERS", forms.digits);
        clalgo_test::ScopedVariable values("CLALGO_SORT_VALUES", forms.values);
        clalgo_test::ScopedVariable split("CLALGO_SORT_SPLIT_KEYS", forms.split);
        clalgo::RadixSortKernel<std::uint32_t> keys_only(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::uint64_t, std::int64_t> wide_pairs(context(), SortAlgorithm::onesweep, true);
        EXPECT_TRUE(clalgo_test::contains(pairs.source(), "#define CLALGO_FULL_TILE_WRITES 1"));
        const std::size_t tile = keys_only.tile();
        for (std::size_t n : {tile + 1, 2 * tile, 3 * tile - 1, 5 * tile + 7}) {
            const std::string what = std::string("digits in registers ") + forms.digits + ", values " + forms.values +
                                     ", split " + forms.split + ", n=" + std::to_string(n);
            check_keys(keys_only, random_keys<std::uint32_t>(n, n), {}, what);
            check_pairs(pairs, random_keys<std::int32_t>(n, n + 1, 100), {true}, what + " pairs, descending");
            // a last pass of 4 bits: digits above its mask have no places in the tile
            check_pairs(pairs, random_keys<std::int32_t>(n, n + 4), {false, 0, 20}, what + " pairs, bits 0-20");
            check_pairs(wide_pairs, random_keys<std::uint64_t>(n, n + 2), {}, what + " 64-bit pairs");
            check_argsort(wide_pairs, random_keys<std::uint64_t>(n, n + 3, 1000), {false, 0, 40}, what + " argsort");
        }
    }
}

TEST(Sort, OnesweepHoldsEachDigitsPlaceInThirtyTwoOrSixtyFourBits) {
    // CLALGO_SORT_WIDE_PLACES: each digit's place in the output in 32 bits (the default but for 64-bit integer keys)
    // or in 64 bits (inputs of more than 2^32 keys take a program of their own built so: the test of them below)
    clalgo_test::ScopedVariable tiers("CLALGO_SORT_TIERS", "none");  // the policy's own tiles at every size
    for (const char* wide : {"0", "1"}) {
        clalgo_test::ScopedVariable variable("CLALGO_SORT_WIDE_PLACES", wide);
        clalgo::RadixSortKernel<std::uint32_t> keys_only(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), SortAlgorithm::onesweep, true);
        clalgo::RadixSortKernel<std::uint64_t, std::int64_t> wide_pairs(context(), SortAlgorithm::onesweep);
        EXPECT_TRUE(clalgo_test::contains(pairs.source(), std::string("#define CLALGO_WIDE_PLACES ") + wide));
        const std::size_t tile = keys_only.tile();
        for (std::size_t n : {tile + 1, 3 * tile, 5 * tile + 7, std::size_t(40009)}) {
            const std::string what = std::string("wide places ") + wide + ", n=" + std::to_string(n);
            check_keys(keys_only, random_keys<std::uint32_t>(n, 7 * n), {}, what);
            check_keys(keys_only, random_keys<std::uint32_t>(n, 7 * n + 1, 20), {true}, what + " descending");
            check_pairs(pairs, random_keys<std::int32_t>(n, 7 * n + 2, 100), {}, what + " pairs");
            check_argsort(pairs, random_keys<std::int32_t>(n, 7 * n + 3, 1000), {true}, what + " argsort");
            check_pairs(wide_pairs, random_keys<std::uint64_t>(n, 7 * n + 4), {}, what + " 64-bit pairs");
        }
        const auto built = keys_only.built_programs();
        EXPECT_EQ(std::count(built.begin(), built.end(), "passes with wide places"), 0) << "2^32 keys or fewer";
    }
}

TEST(Sort, OnesweepLooksBackAnyNumberOfTilesAStep) {
    // CLALGO_SORT_LOOK_BACK_WINDOW: a tile reads the look-back words of that many tiles before it at once (by
    // default 4 for pairs of integer keys and values of up to 32 bits on NVIDIA, but argsort's; else 8). A window
    // of 1 walks back one tile a step; 3 ends a step within the tiles before the first; 32 is the most. Each must
    // sum the same counts. Up to hundreds of tiles (the policy's own, no tiers), so that tiles look back past a
    // window.
    clalgo_test::ScopedVariable tiers("CLALGO_SORT_TIERS", "none");
    {
        const bool nvidia = clalgo::device_class(queue().info()) == clalgo::DeviceClass::nvidia_gpu;
        clalgo::RadixSortKernel<std::uint32_t, std::uint32_t> pairs(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::uint32_t, std::uint32_t> argsort_pairs(context(), SortAlgorithm::onesweep, true);
        EXPECT_TRUE(clalgo_test::contains(pairs.source(), std::string("#define CLALGO_WINDOW ") + (nvidia ? "4" : "8")));
        EXPECT_TRUE(clalgo_test::contains(argsort_pairs.source(), "#define CLALGO_WINDOW 8"));
    }
    for (const char* window : {"1", "3", "32"}) {
        clalgo_test::ScopedVariable variable("CLALGO_SORT_LOOK_BACK_WINDOW", window);
        clalgo::RadixSortKernel<std::uint32_t> keys_only(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), SortAlgorithm::onesweep, true);
        EXPECT_TRUE(clalgo_test::contains(pairs.source(), std::string("#define CLALGO_WINDOW ") + window));
        const std::size_t tile = keys_only.tile();
        for (std::size_t n : {tile + 1, 4 * tile, 11 * tile + 3, 150 * tile + 17}) {
            const std::string what = std::string("window ") + window + ", n=" + std::to_string(n);
            check_keys(keys_only, random_keys<std::uint32_t>(n, 3 * n), {}, what);
            check_keys(keys_only, random_keys<std::uint32_t>(n, 3 * n + 1, 300), {true}, what + " descending");
            check_pairs(pairs, random_keys<std::int32_t>(n, 3 * n + 2, 100), {}, what + " pairs");
            check_argsort(pairs, random_keys<std::int32_t>(n, 3 * n + 3), {}, what + " argsort");
        }
    }
}

TEST(Sort, OnesweepMovesSixtyFourBitKeysWholeOrInHalves) {
    // CLALGO_SORT_SPLIT_KEYS: 64-bit keys through local memory in two 32-bit halves (NVIDIA's default) or whole,
    // in the digit passes and in the one-tile sort, keys alone and with values
    for (const char* split : {"1", "0"}) {
        clalgo_test::ScopedVariable variable("CLALGO_SORT_SPLIT_KEYS", split);
        clalgo::RadixSortKernel<std::uint64_t> keys_only(context(), SortAlgorithm::onesweep);
        clalgo::RadixSortKernel<std::int64_t, std::int64_t> signed_pairs(context(), SortAlgorithm::onesweep);
        CLALGO_SKIP_WITHOUT_FP64(double);
        clalgo::RadixSortKernel<double, std::int64_t> double_pairs(context(), SortAlgorithm::onesweep);
        EXPECT_EQ(keys_only.source().find("#define CLALGO_SPLIT_KEYS 1") != std::string::npos, split[0] == '1');
        for (std::size_t n : {std::size_t(1), std::size_t(2), keys_only.tile() - 1, keys_only.tile(), keys_only.tile() + 1,
                              3 * keys_only.tile() + 7, std::size_t(40009)}) {
            const std::string what = std::string("split ") + split + " n=" + std::to_string(n);
            check_keys(keys_only, random_keys<std::uint64_t>(n, n), {}, what);
            check_keys(keys_only, random_keys<std::uint64_t>(n, n + 1, 50), {true}, what + " descending");
            check_pairs(signed_pairs, random_keys<std::int64_t>(n, 2 * n, 20), {}, what + " pairs");
            check_pairs(double_pairs, random_keys<double>(n, 2 * n + 1), {}, what + " double pairs");
        }
    }
}

TEST(Sort, SortedReversedAndAllEqualInputs) {
    for (SortAlgorithm algorithm : both_algorithms) {
        clalgo::RadixSortKernel<std::int32_t, std::int64_t> sorter(context(), algorithm);
        const std::size_t n = 3 * sorter.tile() + 7;
        std::vector<std::int32_t> sorted(n), reversed(n), equal(n, -5);
        std::iota(sorted.begin(), sorted.end(), -1000);
        std::reverse_copy(sorted.begin(), sorted.end(), reversed.begin());
        check_pairs(sorter, sorted, {}, std::string(name_of(algorithm)) + " sorted");
        check_pairs(sorter, reversed, {}, std::string(name_of(algorithm)) + " reversed");
        check_pairs(sorter, equal, {}, std::string(name_of(algorithm)) + " all equal");
        check_pairs(sorter, equal, {true}, std::string(name_of(algorithm)) + " all equal, descending");
    }
}

TEST(Sort, BitRangesSortByThoseBitsAloneAndStably) {
    for (SortAlgorithm algorithm : both_algorithms) {
        clalgo::RadixSortKernel<std::uint32_t, std::int64_t> unsigned_sorter(context(), algorithm);
        clalgo::RadixSortKernel<std::int64_t, std::int64_t> signed_sorter(context(), algorithm);
        const std::size_t n = 5 * unsigned_sorter.tile() + 3;
        for (auto [begin, end] : {std::pair{0, 24}, std::pair{4, 20}, std::pair{8, 9}, std::pair{0, 32}, std::pair{31, 32}}) {
            const std::string what = std::string(name_of(algorithm)) + " bits " + std::to_string(begin) + ".." + std::to_string(end);
            check_pairs(unsigned_sorter, random_keys<std::uint32_t>(n, begin * 64 + end), {false, begin, end}, what);
            check_pairs(unsigned_sorter, random_keys<std::uint32_t>(n, begin * 64 + end + 1), {true, begin, end}, what + " desc");
        }
        check_pairs(signed_sorter, random_keys<std::int64_t>(n, 3), {false, 40, 64}, std::string(name_of(algorithm)) + " top bits");
        check_pairs(signed_sorter, random_keys<std::int64_t>(n, 4), {false, 0, 8}, std::string(name_of(algorithm)) + " low byte");
    }
}

TEST(Sort, SpecialFloatsGoWhereDocumented) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> specials{0.0f, -0.0f, inf, -inf, nan, -nan, 1.0f, -1.0f, std::numeric_limits<float>::denorm_min(),
                                -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::lowest()};
    std::vector<float> keys;
    for (int copy = 0; copy < 400; ++copy)
        for (float value : specials) keys.push_back(copy % 3 ? value : value * 3.0f);
    std::shuffle(keys.begin(), keys.end(), std::mt19937(5));
    for (SortAlgorithm algorithm : both_algorithms) {
        clalgo::RadixSortKernel<float, std::int64_t> sorter(context(), algorithm);
        check_pairs(sorter, keys, {}, std::string(name_of(algorithm)) + " ascending");
        check_pairs(sorter, keys, {true}, std::string(name_of(algorithm)) + " descending");
    }
    // and the documented ends: -NaN first, -0.0 before +0.0, +NaN last
    auto device = clalgo::to_device(queue(), keys);
    clalgo::sort(queue(), device);
    const auto sorted = device.to_host(queue());
    EXPECT_TRUE(std::isnan(sorted.front()) && std::signbit(sorted.front()));
    EXPECT_TRUE(std::isnan(sorted.back()) && !std::signbit(sorted.back()));
    const auto zero = std::find(sorted.begin(), sorted.end(), 0.0f);
    ASSERT_NE(zero, sorted.end());
    EXPECT_TRUE(std::signbit(*zero));
}

struct Particle {
    float x, y;
    std::int32_t id;
};

TEST(Sort, SortByKeyMovesStructValuesAndViewsWithOffsetsLeaveTheirNeighboursAlone) {
    clalgo::register_struct<Particle>("particle", "typedef struct { float x, y; int id; } particle;",
                                      {CLALGO_FIELD(Particle, x), CLALGO_FIELD(Particle, y), CLALGO_FIELD(Particle, id)});
    for (std::size_t n : {std::size_t(5), std::size_t(3000), std::size_t(70001)}) {
        auto keys = random_keys<std::uint16_t>(n + 20, n, 300);
        std::vector<Particle> particles(n + 20);
        for (std::size_t k = 0; k < particles.size(); ++k) particles[k] = {float(k) * 0.5f, -float(k), std::int32_t(k)};
        auto device_keys = clalgo::to_device(queue(), keys);
        auto device_particles = clalgo::to_device(queue(), particles);
        clalgo::sort_by_key(queue(), device_keys.view(10, n), device_particles.view(10, n));
        const auto got_keys = device_keys.to_host(queue());
        const auto got = device_particles.to_host(queue());
        const std::vector<std::uint16_t> middle(keys.begin() + 10, keys.begin() + 10 + n);
        const auto order = expected_order(middle, {});
        for (std::size_t k = 0; k < n + 20; ++k) {
            const bool inside = k >= 10 && k < 10 + n;
            const std::size_t from = inside ? 10 + order[k - 10] : k;
            ASSERT_EQ(got_keys[k], keys[from]) << "n=" << n << " at " << k;
            ASSERT_EQ(got[k].id, particles[from].id) << "n=" << n << " at " << k;
            ASSERT_EQ(got[k].x, particles[from].x);
        }
    }
}

TEST(Sort, IntoOtherArraysLeavesTheInputsAsTheyWere) {
    for (SortAlgorithm algorithm : both_algorithms) {
        clalgo::RadixSortKernel<std::int32_t, std::int64_t> pairs(context(), algorithm);
        clalgo::RadixSortKernel<std::uint16_t> keys_only(context(), algorithm);
        for (std::size_t n : {std::size_t(1), std::size_t(200), 3 * pairs.tile() + 1}) {
            for (auto options : {SortOptions{}, SortOptions{true, 0, 24}, SortOptions{false, 3, 3}}) {
                check_pairs_into(pairs, random_keys<std::int32_t>(n, n + 5, 1000), options, name_of(algorithm));
            }
            const auto keys = random_keys<std::uint16_t>(n, n);
            auto keys_in = clalgo::to_device(queue(), keys);
            clalgo::Array<std::uint16_t> keys_out(queue(), n);
            keys_only(queue(), keys_in, keys_out);
            auto expected = keys;
            std::sort(expected.begin(), expected.end());
            EXPECT_EQ(keys_out.to_host(queue()), expected);
            EXPECT_EQ(keys_in.to_host(queue()), keys);
        }
    }
}

TEST(Sort, SixtyFourBitKeysInHalvesWithTheKeysBeforeOrAfterTheLookBack) {
    // NVIDIA's onesweep passes move 64-bit keys through local memory as two 32-bit halves; forced here (onesweep,
    // no smaller tiers) so that every device builds that path, with the keys put into local memory before and
    // after the look-back
    for (const char* before : {"1", "0"}) {
        clalgo_test::ScopedVariable algorithm("CLALGO_SORT_ALGORITHM", "onesweep"), tiers("CLALGO_SORT_TIERS", "none"),
            split("CLALGO_SORT_SPLIT_KEYS", "1"), keys_before("CLALGO_SORT_KEYS_BEFORE_LOOK_BACK", before);
        const clalgo::RadixSortKernel<std::uint64_t> keys(clalgo_test::context());
        const clalgo::RadixSortKernel<double, std::int64_t> pairs(clalgo_test::context());
        const std::string what = std::string("keys before the look-back: ") + before;
        for (std::size_t n : {keys.tile() + 1, 3 * keys.tile() + 7}) {
            check_keys(keys, random_keys<std::uint64_t>(n, n + 3), {}, what);
            check_keys(keys, random_keys<std::uint64_t>(n, n + 5, 40), SortOptions{true}, what + ", descending");
        }
        for (std::size_t n : {pairs.tile() + 1, 2 * pairs.tile() + 9})
            check_pairs(pairs, random_keys<double>(n, n + 7, 50), {}, what + ", double keys with values");
    }
}

TEST(Sort, ArgsortOverFullOnesweepTilesMakesThePositionsInAFirstPassOfItsOwn) {
    // onesweep forced in a context of its own (its sorts read the variable when first made), with no smaller tiers:
    // inputs above one tile take the passes of full tiles, whose first pass makes the positions in a program of
    // its own; the passes after it read them, as a pair sort's do
    clalgo_test::ScopedVariable algorithm("CLALGO_SORT_ALGORITHM", "onesweep"), tiers("CLALGO_SORT_TIERS", "none");
    clalgo::Context ctx(clalgo_test::context().device());
    clalgo::Queue q(ctx);
    const clalgo::RadixSortKernel<std::uint32_t, std::int32_t> sorter(ctx, SortAlgorithm::automatic, true);
    const std::size_t tile = sorter.tile();
    auto first_pass_built = [&] {
        const auto built = sorter.built_programs();
        return std::count(built.begin(), built.end(), "first pass making positions") == 1;
    };
    for (std::size_t n : {tile, tile + 1, 3 * tile + 7}) {
        const auto keys = random_keys<std::uint32_t>(n, n + 11, 50);  // many equal keys: stability shows
        auto device = clalgo::to_device(q, keys);
        EXPECT_EQ(sorter.sorts_in_full_tiles(q, n), n > tile) << "n=" << n;
        EXPECT_FALSE(sorter.sorts_wide(q, n)) << "n=" << n;
        for (const SortOptions& options : {SortOptions{}, SortOptions{true}, SortOptions{false, 2, 19}, SortOptions{false, 5, 5}}) {
            const auto expected = expected_order(keys, options);
            const auto order = clalgo::argsort<std::int32_t>(q, device.view(), options).to_host(q);
            ASSERT_EQ(order.size(), n);
            for (std::size_t k = 0; k < n; ++k)
                ASSERT_EQ(order[k], expected[k]) << "n=" << n << " k=" << k << " bits " << options.begin_bit << ".."
                                                 << options.end_bit << (options.descending ? " descending" : "");
            EXPECT_EQ(device.to_host(q), keys);
            // the kernel's own argsort, sorted keys out, over an in-place copy
            auto copy = clalgo::to_device(q, keys);
            clalgo::Array<std::int32_t> positions(q, n);
            sorter.argsort(q, copy, copy, positions, options);
            const auto sorted = copy.to_host(q);
            const auto got = positions.to_host(q);
            for (std::size_t k = 0; k < n; ++k) {
                ASSERT_EQ(got[k], expected[k]) << "RadixSortKernel::argsort, n=" << n << " k=" << k;
                ASSERT_EQ(sorted[k], keys[expected[k]]) << "RadixSortKernel::argsort, n=" << n << " k=" << k;
            }
        }
        EXPECT_EQ(first_pass_built(), n > tile) << "n=" << n;
    }
}

TEST(Sort, ArgsortPositionsWritesNoKeysInItsLastPass) {
    // onesweep forced: in full tiles (no smaller tiers), then in a tier of tiles of 2 keys a work-item (inputs
    // above one full tile and up to four). 16-bit keys take two passes (as do 10 of their bits): the first writes
    // the keys into the sort's own spare copy, the last only the positions, so keys_work keeps what it held
    clalgo_test::ScopedVariable algorithm("CLALGO_SORT_ALGORITHM", "onesweep");
    const std::uint16_t untouched = 0xbeef;
    for (const bool tiered : {false, true}) {
        std::size_t tile = 0;
        {
            clalgo_test::ScopedVariable no_tiers("CLALGO_SORT_TIERS", "none");
            tile = clalgo::RadixSortKernel<std::uint16_t, std::int64_t>(context(), SortAlgorithm::automatic, true).tile();
        }
        const std::string tiers = tiered ? "2:" + std::to_string(4 * tile) : "none";
        clalgo_test::ScopedVariable tiers_variable("CLALGO_SORT_TIERS", tiers);
        clalgo::Context ctx(clalgo_test::context().device());
        clalgo::Queue q(ctx);
        const clalgo::RadixSortKernel<std::uint16_t, std::int64_t> sorter(ctx, SortAlgorithm::automatic, true);
        ASSERT_EQ(sorter.tile(), tile);
        for (std::size_t n : {tile + 1, 3 * tile + 7}) {
            const auto keys = random_keys<std::uint16_t>(n, n + 17, 300);  // many equal keys: stability shows
            auto device = clalgo::to_device(q, keys);
            for (const SortOptions& options : {SortOptions{}, SortOptions{true}, SortOptions{false, 4, 14}}) {
                const std::string what = "tiers " + tiers + " n=" + std::to_string(n) + " bits " +
                                         std::to_string(options.begin_bit) + ".." + std::to_string(options.end_bit) +
                                         (options.descending ? " descending" : "");
                const auto expected = expected_order(keys, options);
                clalgo::Array<std::uint16_t> work(q, n);
                work.fill(q, untouched);
                clalgo::Array<std::int64_t> positions(q, n);
                positions.fill(q, -1);
                sorter.argsort_positions(q, device, work, positions, options);
                EXPECT_EQ(positions.to_host(q), expected) << what;
                EXPECT_EQ(device.to_host(q), keys) << what << ": keys in changed";
                const auto left = work.to_host(q);
                EXPECT_EQ(std::count(left.begin(), left.end(), untouched), static_cast<std::ptrdiff_t>(n))
                    << what << ": keys written into keys_work";
                // in place: the keys are the work space
                auto copy = clalgo::to_device(q, keys);
                positions.fill(q, -1);
                sorter.argsort_positions(q, copy, copy, positions, options);
                EXPECT_EQ(positions.to_host(q), expected) << what << ", in place";
            }
            // in place over one pass: its output is the spare copy, whose values (not keys) are copied back
            const SortOptions one_pass{false, 2, 8};
            auto copy = clalgo::to_device(q, keys);
            clalgo::Array<std::int64_t> positions(q, n);
            sorter.argsort_positions(q, copy, copy, positions, one_pass);
            EXPECT_EQ(positions.to_host(q), expected_order(keys, one_pass)) << "tiers " << tiers << " n=" << n << ", one pass in place";
        }
        const auto built = sorter.built_programs();
        EXPECT_EQ(std::count(built.begin(), built.end(), "passes in tier 1"), tiered ? 1 : 0) << "tiers " << tiers;
        EXPECT_EQ(std::count_if(built.begin(), built.end(), [](const std::string& name) { return name.rfind("one tile", 0) == 0; }), 0)
            << "tiers " << tiers;
    }
}

TEST(Sort, ThreadsMakingTheirFirstArgsortAtOnceBuildItsTwoProgramsOnce) {
    // full onesweep tiles (forced, no smaller tiers): each thread on its own queue reaches the passes and the first
    // pass that makes the positions, both unbuilt, at once
    clalgo_test::ScopedVariable algorithm("CLALGO_SORT_ALGORITHM", "onesweep"), tiers("CLALGO_SORT_TIERS", "none");
    clalgo::Context ctx(clalgo_test::context().device());
    const clalgo::RadixSortKernel<std::uint32_t, std::int64_t> sorter(ctx, SortAlgorithm::automatic, true);
    const std::size_t n = 3 * sorter.tile() + 5;
    std::atomic<int> wrong{0}, failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            try {
                clalgo::Queue q(ctx);
                const auto keys = random_keys<std::uint32_t>(n, 300 + t, 1000);
                auto device_keys = clalgo::to_device(q, keys);
                clalgo::Array<std::int64_t> positions(q, n);
                sorter.argsort(q, device_keys, device_keys, positions);
                const auto order = expected_order(keys, {});
                const auto got_keys = device_keys.to_host(q);
                const auto got = positions.to_host(q);
                for (std::size_t k = 0; k < n; ++k)
                    if (got_keys[k] != keys[order[k]] || got[k] != static_cast<std::int64_t>(order[k])) ++wrong;
            } catch (const std::exception&) {
                ++failed;
            }
        });
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(sorter.built_programs(), (std::vector<std::string>{"passes", "first pass making positions"}));
}

TEST(Sort, RadixSortMakesItsOrderInTheFirstPassOnBothSidesOfTheTile) {
    // as argsort: onesweep forced in a context of its own, no smaller tiers; above one tile the order is made by
    // a first pass of its own, below it by the one-tile sort
    clalgo_test::ScopedVariable algorithm("CLALGO_SORT_ALGORITHM", "onesweep"), tiers("CLALGO_SORT_TIERS", "none");
    clalgo::Context ctx(clalgo_test::context().device());
    clalgo::Queue q(ctx);
    clalgo::RadixSort<std::uint32_t> by_key(ctx, "const uint *k, const int *v, int *v_out", "k[i] >> 3", {"v"});
    const std::size_t tile = clalgo::RadixSortKernel<std::uint32_t, std::int64_t>(ctx).tile();
    for (std::size_t n : {tile - 1, tile + 1, 3 * tile + 7}) {
        const auto keys = random_keys<std::uint32_t>(n, n + 13, 400);  // many equal keys: stability shows
        std::vector<std::uint32_t> computed(n);
        std::vector<std::int32_t> values(n);
        for (std::size_t k = 0; k < n; ++k) computed[k] = keys[k] >> 3, values[k] = static_cast<std::int32_t>(k);
        auto device_keys = clalgo::to_device(q, keys);
        auto device_values = clalgo::to_device(q, values);
        clalgo::Array<std::int32_t> out(q, n);
        for (const SortOptions& options : {SortOptions{}, SortOptions{true}, SortOptions{false, 1, 5}}) {
            by_key(q, options, device_keys, device_values, out);
            const auto got = out.to_host(q);
            const auto expected = expected_order(computed, options);
            for (std::size_t k = 0; k < n; ++k)
                ASSERT_EQ(got[k], static_cast<std::int32_t>(expected[k]))
                    << "n=" << n << " k=" << k << " bits " << options.begin_bit << ".." << options.end_bit
                    << (options.descending ? " descending" : "");
        }
    }
}

TEST(Sort, ArgsortLeavesTheKeysAndGivesTheStableOrder) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        const auto keys = random_keys<double>(n, n + 3, 100);
        if (!clalgo_test::has_fp64()) break;
        auto device = clalgo::to_device(queue(), keys);
        const auto order = clalgo::argsort(queue(), device).to_host(queue());
        EXPECT_EQ(order, expected_order(keys, {})) << "n=" << n;
        EXPECT_EQ(device.to_host(queue()), keys);
        const auto narrow = clalgo::argsort<std::int32_t>(queue(), device, {true}).to_host(queue());
        const auto descending = expected_order(keys, {true});
        ASSERT_EQ(narrow.size(), n);
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(narrow[k], descending[k]);
    }
}

TEST(Sort, RadixSortPermutesSeveralArraysByAKeyExpression) {
    clalgo::RadixSortOptions options;
    options.preamble = "inline uint cell_of(float x, float y) { return (uint)(y * 16.0f) * 16u + (uint)(x * 16.0f); }";
    clalgo::RadixSort<std::uint32_t> by_cell(context(), "const float *x, const float *y, float *x_out, float *y_out",
                                             "cell_of(x[i], y[i])", {"x", "y"}, options);
    const std::size_t n = 50000;
    std::mt19937 random(9);
    std::uniform_real_distribution<float> unit(0.0f, 0.999f);
    std::vector<float> x(n), y(n);
    for (std::size_t k = 0; k < n; ++k) x[k] = unit(random), y[k] = unit(random);
    auto dx = clalgo::to_device(queue(), x), dy = clalgo::to_device(queue(), y);
    clalgo::Array<float> x_out(queue(), n), y_out(queue(), n);
    by_cell(queue(), dx, dy, x_out, y_out);
    std::vector<std::uint32_t> cells(n);
    for (std::size_t k = 0; k < n; ++k) cells[k] = std::uint32_t(y[k] * 16.0f) * 16u + std::uint32_t(x[k] * 16.0f);
    const auto order = expected_order(cells, {});
    const auto got_x = x_out.to_host(queue()), got_y = y_out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(got_x[k], x[order[k]]) << k;
        ASSERT_EQ(got_y[k], y[order[k]]) << k;
    }
}

TEST(Sort, MisuseThrowsNamingTheProblem) {
    auto keys = clalgo::to_device(queue(), std::vector<std::uint32_t>{3, 1, 2});
    auto values = clalgo::to_device(queue(), std::vector<float>{1, 2});
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::sort_by_key(queue(), keys.view(), values.view());
    }), "clalgo: sort_by_key: values has 2 elements but keys has 3"));
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::sort(queue(), keys.view(), {false, 0, 33});
    }), "key's 32 bits"));
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::sort(queue(), keys.view(), {false, 9, 8});
    }), "[9, 8)"));
    auto more = clalgo::to_device(queue(), std::vector<std::uint32_t>{5, 4, 3, 2, 1});
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::sort(queue(), more.view(0, 3), more.view(1, 3));
    }), "clalgo: sort: keys_in and keys_out overlap"));
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::sort(queue(), more.view(0, 3), keys.view(0, 2));
    }), "clalgo: sort: keys_out has 2 elements but keys_in has 3"));
    {
        // into other arrays: each array is checked, values_in and values_out alike
        const std::size_t n = 1000;
        auto keys_in = clalgo::to_device(queue(), random_keys<std::uint32_t>(n, 1));
        clalgo::Array<std::uint32_t> keys_out(queue(), n);
        clalgo::Array<float> values_in(queue(), n), values_out(queue(), n - 1), values_long(queue(), n + 1);
        values_in.fill(queue(), 1.0f);
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::sort_by_key(queue(), keys_in.view(), keys_out.view(), values_in.view(), values_out.view());
        }), "clalgo: sort_by_key: values_out has 999 elements but keys_in has 1000"));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::sort_by_key(queue(), keys_in.view(), keys_out.view(), values_long.view(), values_in.view());
        }), "clalgo: sort_by_key: values_in has 1001 elements but keys_in has 1000"));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::RadixSortKernel<std::uint32_t, std::int32_t> sorter(context(), SortAlgorithm::automatic, true);
            clalgo::Array<std::int32_t> positions(queue(), n - 1);
            sorter.argsort(queue(), keys_in, keys_out, positions);
        }), "clalgo: argsort: order has 999 elements but keys has 1000"));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::RadixSortKernel<std::uint32_t, std::int8_t> sorter(context(), SortAlgorithm::automatic, true);
            clalgo::Array<std::int8_t> positions(queue(), n);
            sorter.argsort(queue(), keys_in, keys_out, positions);
        }), "clalgo: argsort: 1000 keys do not fit the index type 'char'"));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::RadixSortKernel<std::uint32_t, std::int32_t> pairs_only(context());
            clalgo::Array<std::int32_t> positions(queue(), n);
            pairs_only.argsort(queue(), keys_in, keys_out, positions);
        }), "RadixSortKernel::argsort: this kernel was made to sort pairs"));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::RadixSortKernel<std::uint32_t, std::int32_t> sorter(context(), SortAlgorithm::automatic, true);
            clalgo::Array<std::uint32_t> work(queue(), n + 1);
            clalgo::Array<std::int32_t> positions(queue(), n);
            sorter.argsort_positions(queue(), keys_in, work, positions);
        }), "clalgo: argsort_positions: keys_work has 1001 elements but keys has 1000"));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::RadixSortKernel<std::uint32_t, std::int32_t> pairs_only(context());
            clalgo::Array<std::int32_t> positions(queue(), n);
            pairs_only.argsort_positions(queue(), keys_in, keys_out, positions);
        }), "RadixSortKernel::argsort_positions: this kernel was made to sort pairs"));
        EXPECT_EQ(values_in.to_host(queue()), std::vector<float>(n, 1.0f));
    }
    {
        // RadixSort: every sorted array and every output holds as many elements as the first array
        clalgo::RadixSort<std::uint32_t> by_key(context(), "uint *ary, int *val, uint *ary_out, int *val_out", "ary[i]",
                                                {"ary", "val"});
        auto ary = clalgo::to_device(queue(), std::vector<std::uint32_t>{4, 3, 2, 1});
        auto val = clalgo::to_device(queue(), std::vector<std::int32_t>{10, 20, 30, 40});
        clalgo::Array<std::uint32_t> ary_out(queue(), 4);
        clalgo::Array<std::int32_t> val_out(queue(), 4), val_short(queue(), 3);
        val_out.fill(queue(), -1);
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            by_key(queue(), ary, val.view(0, 3), ary_out, val_out);
        }), "clalgo: RadixSort 'radix_sort', argument 2 'val': 3 elements, but the sort runs over 4 keys (the size of "
            "the first array, 'ary')"));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            by_key(queue(), ary, val, ary_out, val_short);
        }), "argument 4 'val_out': 3 elements, but the sort runs over 4 keys"));
        EXPECT_EQ(val_out.to_host(queue()), std::vector<std::int32_t>(4, -1));  // nothing written
        by_key(queue(), ary, val, ary_out, val_out);
        EXPECT_EQ(val_out.to_host(queue()), (std::vector<std::int32_t>{40, 30, 20, 10}));
    }
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::RadixSort<std::uint32_t>(context(), "const float *x", "x[i]", {"x"});
    }), "x_out"));
    EXPECT_EQ(keys.to_host(queue()), (std::vector<std::uint32_t>{3, 1, 2}));  // nothing half-done
    clalgo::sort(queue(), keys.view(), {false, 4, 4});                         // an empty range sorts nothing
    EXPECT_EQ(keys.to_host(queue()), (std::vector<std::uint32_t>{3, 1, 2}));
}

// More keys than 32 bits count, where the device holds them (GPUs with a few GiB free; skipped elsewhere, where it
// would only be slow): 2^32 + 4099 one-byte keys, whose places need the passes' program with 64-bit places, then the
// first 2^32 of them (the most whose places fit 32 bits) as a view; counts of every value and order checked on the
// host, and the keys past the view left as they were.
TEST(Sort, MoreThan2To32ByteKeysWhereTheDeviceHoldsThem) {
    const std::uint64_t most = std::uint64_t(1) << 32, n = most + 4099;
    const auto& info = queue().info();
    if (!info.is_gpu || info.max_allocation_bytes < n || info.global_memory_bytes < 4 * n)
        GTEST_SKIP() << "needs a GPU that holds 4 x 2^32 bytes";
    std::vector<std::uint8_t> keys(n);
    std::vector<std::uint64_t> counts(256), head_counts(256);
    auto make = [&] {
        std::uint64_t state = 1;
        std::fill(counts.begin(), counts.end(), 0);
        std::fill(head_counts.begin(), head_counts.end(), 0);
        for (std::uint64_t k = 0; k < n; ++k) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            keys[k] = std::uint8_t(state >> 56);
            ++counts[keys[k]];
            if (k < most) ++head_counts[keys[k]];
        }
    };
    clalgo::RadixSortKernel<std::uint8_t> sorter(context());
    auto built = [&](const std::string& program) {
        const auto programs = sorter.built_programs();
        return std::find(programs.begin(), programs.end(), program) != programs.end();
    };
    make();
    {
        auto device = clalgo::to_device(queue(), keys);
        sorter(queue(), device.view(), {true});
        device.read(queue(), keys.data());
    }
    std::uint64_t at = 0;
    for (int value = 255; value >= 0; --value)
        for (std::uint64_t k = 0; k < counts[value]; ++k, ++at)
            ASSERT_EQ(keys[at], value) << "all keys, at " << at;
    if (sorter.algorithm() == SortAlgorithm::onesweep) {
        EXPECT_TRUE(built("passes with wide places"));
    }
    make();
    const std::vector<std::uint8_t> tail(keys.begin() + most, keys.end());
    {
        auto device = clalgo::to_device(queue(), keys);
        sorter(queue(), device.view(0, most));
        device.read(queue(), keys.data());
    }
    at = 0;
    for (int value = 0; value < 256; ++value)
        for (std::uint64_t k = 0; k < head_counts[value]; ++k, ++at)
            ASSERT_EQ(keys[at], value) << "the first 2^32 keys, at " << at;
    EXPECT_TRUE(std::equal(tail.begin(), tail.end(), keys.begin() + most)) << "the keys past the view";
    if (sorter.algorithm() == SortAlgorithm::onesweep) {
        EXPECT_TRUE(built("passes"));
    }
}

TEST(Sort, DocumentedExample) {
    auto& q = queue();
    std::vector<std::int32_t> host_keys{5, -2, 9, -2, 0, 7};
    std::vector<float> host_values{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f};
    auto keys = clalgo::to_device(q, host_keys);
    auto values = clalgo::to_device(q, host_values);
    clalgo::Array<std::int64_t> order = clalgo::argsort(q, keys);  // positions that sort keys: 1 3 4 0 5 2
    clalgo::sort_by_key(q, keys, values);                          // keys -2 -2 0 5 7 9, values move along
    clalgo::sort(q, keys, {/*descending*/ true});                  // 9 7 5 0 -2 -2
    EXPECT_EQ(order.to_host(q), (std::vector<std::int64_t>{1, 3, 4, 0, 5, 2}));
    EXPECT_EQ(values.to_host(q), (std::vector<float>{1.5f, 3.5f, 4.5f, 0.5f, 5.5f, 2.5f}));
    EXPECT_EQ(keys.to_host(q), (std::vector<std::int32_t>{9, 7, 5, 0, -2, -2}));
}

TEST(SortPolicy, EveryDeviceClassGetsAnAlgorithmThatFitsIt) {
    using clalgo::DeviceClass;
    const auto cpu = clalgo::detail::radix_sort_policy(clalgo::typical_device(DeviceClass::cpu), 4, 0, SortAlgorithm::automatic);
    EXPECT_EQ(cpu.algorithm, SortAlgorithm::blocks);
    EXPECT_EQ(cpu.blocks_for(100), 1u);
    EXPECT_EQ(cpu.blocks_for(std::uint64_t(1) << 30), 16u);

    const auto nvidia_info = clalgo::typical_device(DeviceClass::nvidia_gpu);
    for (std::size_t key_size : {1, 2, 4, 8})
        for (std::size_t value_size : {0, 4, 8, 24}) {
            const auto nvidia = clalgo::detail::radix_sort_policy(nvidia_info, key_size, value_size, SortAlgorithm::automatic);
            EXPECT_EQ(nvidia.algorithm, SortAlgorithm::onesweep);
            EXPECT_TRUE(nvidia.match_rank);
            EXPECT_EQ(nvidia.group_size, 256u);
            EXPECT_LE(nvidia.local_bytes(key_size, value_size), nvidia_info.local_memory_bytes);
            EXPECT_LE(nvidia.tile(), 65536u);  // item numbers in a tile are 16-bit
        }
    const auto other = clalgo::typical_device(DeviceClass::other_gpu);  // no 64-bit atomics: no look-back words
    EXPECT_EQ(clalgo::detail::radix_sort_policy(other, 4, 0, SortAlgorithm::automatic).algorithm, SortAlgorithm::blocks);
    auto other_with_atomics = other;
    other_with_atomics.has_int64_atomics = true;
    const auto portable = clalgo::detail::radix_sort_policy(other_with_atomics, 8, 8, SortAlgorithm::automatic);
    EXPECT_EQ(portable.algorithm, SortAlgorithm::onesweep);
    EXPECT_FALSE(portable.match_rank);
    EXPECT_LE(portable.local_bytes(8, 8), other.local_memory_bytes);
}

namespace {

/// The local memory the compiler gave a kernel of the radix sort's program for `shape` on the test device (the
/// one-tile sort's with tile_program), for keys of Key and values of `value_type` (empty: none).
template <class Key>
std::uint64_t compiled_local_bytes(const clalgo::detail::RadixSortPolicy& shape, bool tile_program,
                                   const std::string& value_type) {
    const auto source = clalgo::detail::radix_sort_source<Key>(queue().info(), shape, tile_program, value_type);
    const cl::Program program = clalgo::detail::build_program(context(), queue().device(), source, "",
                                                              clalgo::detail::BuildLabel{"radix_sort", {}});
    const cl::Kernel kernel(program, tile_program ? "clalgo_radix_tile_sort" : "clalgo_radix_onesweep");
    return kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(queue().device());
}

}  // namespace

// The policies choose tiles by RadixSortPolicy::local_bytes: it is what the compiled kernels take, to the alignment
// of their arrays, for the passes and the one-tile sort, with and without values (whose items the one-tile sort
// moves through the keys' region, or through one of their own beside the counters apart).
TEST(SortPolicy, LocalBytesAreWhatTheKernelsTake) {
    const auto& info = queue().info();
    if (!info.has_int64_atomics) GTEST_SKIP() << "onesweep needs 64-bit atomics";
    auto check = [&](auto key, std::size_t value_size, const std::string& value_type) {
        using Key = decltype(key);
        const auto policy = clalgo::detail::radix_sort_policy(info, sizeof(Key), value_size, SortAlgorithm::onesweep);
        std::vector<std::pair<clalgo::detail::RadixSortPolicy, bool>> shapes{{policy, false}};
        for (std::size_t k = 0; k == 0 || policy.one_tile_keys(k - 1) < policy.tile(); ++k)
            shapes.push_back({clalgo::detail::radix_tile_policy(info, policy, k, sizeof(Key), value_size), true});
        for (auto [shape, tile_program] : shapes) {
            const std::uint64_t estimated = shape.local_bytes(sizeof(Key), value_size);
            const std::uint64_t compiled = compiled_local_bytes<Key>(shape, tile_program, value_type);
            const std::string what = std::string(tile_program ? "one tile of " : "passes in tiles of ") +
                                     std::to_string(shape.group_size) + " x " + std::to_string(shape.items) +
                                     ", keys of " + std::to_string(sizeof(Key)) + " bytes, values '" + value_type +
                                     "', counters apart " + std::to_string(shape.counters_apart);
            // PoCL's kernels take exactly the estimate. NVIDIA's compiler pads the arrays (by 128 to 384 bytes,
            // which the policies' 2 KiB to spare cover) and drops those the one-tile sort never reads (its tile's
            // counts, and the digits' starts where each work-item holds a digit's: 3 KiB)
            EXPECT_LE(compiled, estimated + 512) << what;
            EXPECT_LE(estimated, compiled + 3072) << what;
            EXPECT_LE(compiled, info.local_memory_bytes) << what;
        }
    };
    check(std::uint32_t{}, 0, "");
    check(std::uint32_t{}, 4, "uint");
    check(std::uint64_t{}, 8, "ulong");
    check(std::uint8_t{}, 2, "ushort");
}

TEST(SortPolicy, NvidiaTakesGroupsOfWholeWarpsOthersPowersOfTwo) {
    // the ballot ranking and the shuffle scans go a warp of 32 at a time: any number of whole warps on NVIDIA
    using clalgo::DeviceClass;
    clalgo_test::ScopedVariable forced("CLALGO_SORT_GROUP", "400");
    const auto nvidia_info = clalgo::typical_device(DeviceClass::nvidia_gpu);
    for (std::size_t value_size : {0, 4, 8}) {
        const auto nvidia = clalgo::detail::radix_sort_policy(nvidia_info, 4, value_size, SortAlgorithm::onesweep);
        EXPECT_EQ(nvidia.group_size, 384u) << value_size;
        EXPECT_TRUE(nvidia.match_rank);
        EXPECT_LE(nvidia.local_bytes(4, value_size), nvidia_info.local_memory_bytes - 2048);
        EXPECT_TRUE(nvidia.early_counts);
        EXPECT_FALSE(clalgo::detail::radix_sort_policy(nvidia_info, 8, value_size, SortAlgorithm::onesweep).early_counts);
    }
    EXPECT_EQ(clalgo::detail::radix_sort_policy(clalgo::typical_device(DeviceClass::cpu), 4, 0, SortAlgorithm::onesweep)
                  .group_size, 256u);
    {
        clalgo_test::ScopedVariable narrower("CLALGO_SORT_GROUP", "200");  // other GPUs take at most 256
        auto other = clalgo::typical_device(DeviceClass::other_gpu);
        other.has_int64_atomics = true;
        EXPECT_EQ(clalgo::detail::radix_sort_policy(other, 4, 0, SortAlgorithm::onesweep).group_size, 128u);
        EXPECT_EQ(clalgo::detail::radix_sort_policy(nvidia_info, 4, 0, SortAlgorithm::onesweep).group_size, 192u);
    }
    // where local memory runs short even at one key a work-item, whole warps are shed
    clalgo_test::ScopedVariable wide("CLALGO_SORT_GROUP", "992");
    auto small = nvidia_info;
    small.local_memory_bytes = 16384;
    const auto shrunk = clalgo::detail::radix_sort_policy(small, 8, 24, SortAlgorithm::onesweep);
    EXPECT_EQ(shrunk.items, 1u);
    EXPECT_EQ(shrunk.group_size, 224u);  // 992, 480, 224: halved to whole warps until the tile fits
    EXPECT_LE(shrunk.local_bytes(8, 24), small.local_memory_bytes - 2048);
}

TEST(SortPolicy, TuningVariablesAreCheckedAndNamed) {
    const auto cpu = clalgo::typical_device(clalgo::DeviceClass::cpu);
    clalgo_test::ScopedVariable forced("CLALGO_SORT_ALGORITHM", "onesweep");
    EXPECT_EQ(clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::automatic).algorithm, SortAlgorithm::onesweep);
    EXPECT_EQ(clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::blocks).algorithm, SortAlgorithm::blocks);
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_ALGORITHM", "quick");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::automatic);
        }), "CLALGO_SORT_ALGORITHM='quick'"));
    }
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_VALUES", "scatter");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 4, SortAlgorithm::onesweep);
        }), "CLALGO_SORT_VALUES='scatter'"));
    }
    for (const char* bad : {"8", "8:", ":100", "8:100,4:50", "33:100", "8:100;16:200", "-8:100", "8:1e9", "none,8:100"}) {
        clalgo_test::ScopedVariable tiers("CLALGO_SORT_TIERS", bad);
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep);
        }), std::string("CLALGO_SORT_TIERS='") + bad + "'")) << bad;
    }
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_EARLY_COUNTS", "soon");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep);
        }), "CLALGO_SORT_EARLY_COUNTS='soon'"));
    }
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_PREFETCH_VALUES", "later");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 4, SortAlgorithm::onesweep);
        }), "CLALGO_SORT_PREFETCH_VALUES='later'"));
    }
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_FULL_TILE_WRITES", "always");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 8, 4, SortAlgorithm::onesweep);
        }), "CLALGO_SORT_FULL_TILE_WRITES='always'"));
    }
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_WIDE_PLACES", "sometimes");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep);
        }), "CLALGO_SORT_WIDE_PLACES='sometimes'"));
    }
    for (const char* window : {"0", "33", "four"}) {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_LOOK_BACK_WINDOW", window);
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 4, SortAlgorithm::onesweep);
        }), std::string("CLALGO_SORT_LOOK_BACK_WINDOW='") + window + "'"));
    }
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_RANK", "fast");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep);
        }), "CLALGO_SORT_RANK='fast': expected one of sync, atomic"));
    }
    {
        // the atomic ranking is NVIDIA's (inline PTX): it reaches the generated source there, and nowhere else
        const auto nvidia = clalgo::typical_device(clalgo::DeviceClass::nvidia_gpu);
        auto source_of = [](const clalgo::DeviceInfo& info) {
            const auto policy = clalgo::detail::radix_sort_policy(info, 4, 0, SortAlgorithm::onesweep);
            return clalgo::detail::radix_sort_source<std::uint32_t>(info, policy, false, "").text;
        };
        EXPECT_TRUE(clalgo_test::contains(source_of(nvidia), "#define CLALGO_RANK_ATOMICS 1"));
        EXPECT_TRUE(clalgo_test::contains(source_of(nvidia), "#define CLALGO_MATCH_OR 1"));
        {
            clalgo_test::ScopedVariable sync("CLALGO_SORT_RANK", "sync");
            clalgo_test::ScopedVariable ballots("CLALGO_SORT_MATCH", "ballots");
            EXPECT_FALSE(clalgo::detail::radix_sort_policy(nvidia, 4, 0, SortAlgorithm::onesweep).forms.rank_atomics);
            EXPECT_TRUE(clalgo_test::contains(source_of(nvidia), "#define CLALGO_RANK_ATOMICS 0"));
            EXPECT_TRUE(clalgo_test::contains(source_of(nvidia), "#define CLALGO_MATCH_OR 0"));
        }
        clalgo_test::ScopedVariable atomic("CLALGO_SORT_RANK", "atomic");
        clalgo_test::ScopedVariable match("CLALGO_SORT_MATCH", "or");
        const auto forced = clalgo::detail::radix_sort_policy(nvidia, 4, 8, SortAlgorithm::onesweep);
        EXPECT_TRUE(forced.forms.rank_atomics && forced.forms.match_or);
        EXPECT_TRUE(forced.small_forms.rank_atomics && forced.small_forms.match_or);  // the variables reach every tile
        EXPECT_FALSE(clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep).forms.rank_atomics);
        EXPECT_FALSE(clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep).forms.match_or);
    }
    {
        clalgo_test::ScopedVariable bad("CLALGO_SORT_MATCH", "vote");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep);
        }), "CLALGO_SORT_MATCH='vote': expected one of ballots, or"));
    }
    {
        clalgo_test::ScopedVariable tiers("CLALGO_SORT_TIERS", "none");
        EXPECT_TRUE(clalgo::detail::radix_sort_policy(clalgo::typical_device(clalgo::DeviceClass::nvidia_gpu), 4, 0,
                                                      SortAlgorithm::automatic).tiers.empty());
    }
    clalgo_test::ScopedVariable items("CLALGO_SORT_ITEMS", "99");
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::detail::radix_sort_policy(cpu, 4, 0, SortAlgorithm::onesweep);
    }), "CLALGO_SORT_ITEMS='99': expected a whole number from 1 to 48"));
}

}  // namespace
