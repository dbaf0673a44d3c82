// reduce_by_key, unique_by_key, segmented_reduce, histogram and ListOfListsBuilder against independent CPU
// computations (grouping runs with a loop and std::map, std::accumulate per segment, a plain histogram loop), at
// sizes around one and several work-groups and about a million; the policies on every device class.
#include "support.hpp"

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

const std::vector<std::size_t> sizes{0, 1, 2, 255, 256, 257, 4097, (std::size_t(1) << 20) + 3};

/// An affine map x -> mul * x + add (mod 2^64); composing them is associative but not commutative.
using clalgo_test::Affine;
using clalgo_test::affine_then;
using clalgo_test::register_affine;
using clalgo_test::then;


/// Keys in runs of random length 1..max_run (max_run 0: all equal; 1: all distinct).
template <class K>
std::vector<K> run_keys(std::size_t n, int max_run, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::vector<K> keys(n);
    K key = 0;
    std::size_t left = 0;
    for (auto& k : keys) {
        if (max_run != 0 && left == 0) {
            key = static_cast<K>(key + 1 + engine() % 3);  // wraps for small types: neighbours still differ
            left = 1 + engine() % max_run;
        }
        k = key;
        if (left) --left;
    }
    return keys;
}

/// The runs of equal consecutive keys, folded left to right with op (std::map numbers the runs).
template <class K, class V, class Op>
std::pair<std::vector<K>, std::vector<V>> cpu_by_key(const std::vector<K>& keys, const std::vector<V>& values, Op op,
                                                     bool fold) {
    std::map<std::size_t, std::pair<K, V>> runs;
    std::size_t run = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (k > 0 && keys[k] != keys[k - 1]) ++run;
        auto found = runs.find(run);
        if (found == runs.end()) runs.emplace(run, std::make_pair(keys[k], values[k]));
        else if (fold) found->second.second = op(found->second.second, values[k]);
    }
    std::pair<std::vector<K>, std::vector<V>> out;
    for (const auto& [index, kv] : runs) {
        out.first.push_back(kv.first);
        out.second.push_back(kv.second);
    }
    return out;
}

template <class K, class V, class Op, class Same>
void check_by_key(const std::vector<K>& keys, const std::vector<V>& values, const char* expr, const char* neutral,
                  Op op, Same same, bool fold = true) {
    const auto expected = cpu_by_key(keys, values, op, fold);
    auto d_keys = clalgo::to_device(queue(), keys);
    auto d_values = clalgo::to_device(queue(), values);
    auto [keys_out, values_out, count] = fold ? clalgo::reduce_by_key(queue(), d_keys, d_values, expr, neutral)
                                              : clalgo::unique_by_key(queue(), d_keys, d_values);
    const std::int64_t runs = count.get(queue());
    ASSERT_EQ(runs, static_cast<std::int64_t>(expected.first.size())) << "n = " << keys.size();
    const auto got_keys = keys_out.view(0, runs).to_host(queue());
    const auto got_values = values_out.view(0, runs).to_host(queue());
    for (std::int64_t r = 0; r < runs; ++r) {
        ASSERT_EQ(got_keys[r], expected.first[r]) << "run " << r << " of " << runs << ", n = " << keys.size();
        ASSERT_TRUE(same(got_values[r], expected.second[r])) << "run " << r << " of " << runs << ", n = " << keys.size();
    }
}

auto equal = [](auto a, auto b) { return a == b; };

}  // namespace

TEST(ReduceByKey, SumsRunsOfInt32KeysWithFloatValues) {
    for (std::size_t n : sizes)
        for (int max_run : {64, 0, 1}) {
            // small integers: every partial sum of up to 2^20 + 3 of them is exact in float, in any grouping
            std::vector<float> values;
            for (std::int32_t v : clalgo_test::random_values<std::int32_t>(n, n)) values.push_back(float(v % 9));
            check_by_key(run_keys<std::int32_t>(n, max_run, n), values, "a+b",
                         "0", [](float a, float b) { return a + b; }, equal);
        }
}

TEST(ReduceByKey, SmallAndWideKeyAndValueTypes) {
    for (std::size_t n : sizes) {
        check_by_key(run_keys<std::int8_t>(n, 5, n), clalgo_test::random_values<std::int64_t>(n, n), "a+b", "0",
                     [](std::int64_t a, std::int64_t b) { return a + b; }, equal);
        if (clalgo_test::has_fp64())
            check_by_key(run_keys<std::int16_t>(n, 300, n), clalgo_test::random_values<double>(n, n), "max(a, b)",
                         "-INFINITY", [](double a, double b) { return std::max(a, b); }, equal);
    }
}

TEST(ReduceByKey, KeepsOrderOfANonCommutativeOperatorOnAStruct) {
    register_affine();
    for (std::size_t n : sizes)
        for (int max_run : {64, 0}) {
            std::mt19937_64 engine(n);
            std::vector<Affine> values(n);
            for (auto& v : values) v = {engine() % 7 + 1, engine() % 1000};
            check_by_key(run_keys<std::int64_t>(n, max_run, n), values, affine_then, "(affine){1, 0}", then,
                         [](Affine a, Affine b) { return a.mul == b.mul && a.add == b.add; });
        }
}

TEST(UniqueByKey, KeepsTheFirstKeyAndValueOfEachRun) {
    for (std::size_t n : sizes)
        check_by_key(run_keys<std::uint32_t>(n, 9, n), clalgo_test::random_values<std::int32_t>(n, n), "", "",
                     [](std::int32_t a, std::int32_t) { return a; }, equal, false);
}

/// The by-key kernel itself under every scan algorithm (each device picks one; the others are forced here), with
/// 32- and 64-bit run counts, vector keys and a non-commutative struct operator.
template <class Count>
void check_by_key_kernel(clalgo::ScanAlgorithm algorithm) {
    register_affine();
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(257), std::size_t(70001)})
        for (int max_run : {64, 0, 1}) {
            std::mt19937_64 engine(n + max_run);
            const auto scalar_keys = run_keys<std::int32_t>(n, max_run, n + 7);
            std::vector<cl_int2> keys(n);
            for (std::size_t k = 0; k < n; ++k) keys[k] = cl_int2{{scalar_keys[k] % 3, scalar_keys[k] / 3}};
            std::vector<Affine> values(n);
            for (auto& v : values) v = {engine() % 7 + 1, engine() % 1000};
            for (bool fold : {true, false}) {
                clalgo::detail::ByKeySpec spec;
                spec.name = fold ? "reduce_by_key_test" : "unique_by_key_test";
                spec.key_type = "int2";
                spec.value_type = "affine";
                spec.fold = fold;
                spec.reduce_expr = affine_then;
                spec.neutral = "(affine){1, 0}";
                spec.algorithm = algorithm;
                const clalgo::detail::ByKeyKernel<Count, Affine> kernel(context(), spec);
                auto d_keys = clalgo::to_device(queue(), keys);
                auto d_values = clalgo::to_device(queue(), values);
                clalgo::Array<cl_int2> keys_out(queue(), n + 1);
                clalgo::Array<Affine> values_out(queue(), n + 1);
                clalgo::Array<std::int64_t> count(queue(), 1);
                kernel.enqueue(queue(), d_keys.view(), d_values.view(), keys_out.view(), values_out.view(), count.view());
                // the CPU groups by the scalar keys, which differ exactly where the int2 keys do
                const auto expected = cpu_by_key(scalar_keys, values, then, fold);
                const std::int64_t runs = count.to_host(queue())[0];
                ASSERT_EQ(runs, static_cast<std::int64_t>(expected.first.size())) << "n = " << n << ", fold " << fold;
                const auto got_keys = keys_out.to_host(queue());
                const auto got_values = values_out.to_host(queue());
                for (std::int64_t r = 0; r < runs; ++r) {
                    ASSERT_EQ(got_keys[r].s[0], expected.first[r] % 3) << "run " << r << ", n = " << n;
                    ASSERT_EQ(got_keys[r].s[1], expected.first[r] / 3) << "run " << r << ", n = " << n;
                    ASSERT_EQ(got_values[r].mul, expected.second[r].mul) << "run " << r << ", n = " << n << ", fold " << fold;
                    ASSERT_EQ(got_values[r].add, expected.second[r].add) << "run " << r << ", n = " << n << ", fold " << fold;
                }
            }
        }
}

TEST(ReduceByKey, EveryScanAlgorithmWithNarrowAndWideRunCounts) {
    for (auto algorithm : {clalgo::ScanAlgorithm::automatic, clalgo::ScanAlgorithm::single_pass,
                           clalgo::ScanAlgorithm::reduce_then_scan, clalgo::ScanAlgorithm::serial,
                           clalgo::ScanAlgorithm::chained}) {
        SCOPED_TRACE(static_cast<int>(algorithm));
        check_by_key_kernel<cl_uint>(algorithm);
        check_by_key_kernel<cl_ulong>(algorithm);
    }
}

TEST(ReduceByKey, SinglePassWithTheStatusAndEightByteValueInOneWideWordOrApart) {
    // (run count, float) pairs are 8 bytes: CLALGO_SCAN_WIDE_STATUS=1 publishes them with the look-back status in
    // one 16-byte word (NVIDIA's default), 0 apart from it behind a device fence
    for (const char* wide : {"1", "0"}) {
        clalgo_test::ScopedVariable variable("CLALGO_SCAN_WIDE_STATUS", wide);
        clalgo::detail::ByKeySpec spec;
        spec.name = std::string("reduce_by_key_wide_") + wide;
        spec.key_type = "int";
        spec.value_type = "float";
        spec.reduce_expr = "a+b";
        spec.neutral = "0";
        spec.algorithm = clalgo::ScanAlgorithm::single_pass;
        const clalgo::detail::ByKeyKernel<cl_uint, float> kernel(context(), spec);
        EXPECT_EQ(kernel.source().find("#define CLALGO_PACKED 2") != std::string::npos, wide[0] == '1');
        for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(255), std::size_t(257), std::size_t(4097),
                              std::size_t(100003)}) {
            const auto keys = run_keys<std::int32_t>(n, 64, n + 3);
            std::vector<float> values;
            for (std::int32_t v : clalgo_test::random_values<std::int32_t>(n, n + 5)) values.push_back(float(v % 9));
            const auto expected = cpu_by_key(keys, values, [](float a, float b) { return a + b; }, true);
            auto d_keys = clalgo::to_device(queue(), keys);
            auto d_values = clalgo::to_device(queue(), values);
            clalgo::Array<std::int32_t> keys_out(queue(), n);
            clalgo::Array<float> sums(queue(), n);
            clalgo::Array<std::int64_t> count(queue(), 1);
            for (int call = 0; call < 2; ++call) {  // the second call reads words the first left, of an older epoch
                kernel.enqueue(queue(), d_keys.view(), d_values.view(), keys_out.view(), sums.view(), count.view());
                const std::int64_t runs = count.to_host(queue())[0];
                ASSERT_EQ(runs, static_cast<std::int64_t>(expected.first.size())) << "wide " << wide << ", n = " << n;
                const auto got_keys = keys_out.to_host(queue());
                const auto got_sums = sums.to_host(queue());
                for (std::int64_t r = 0; r < runs; ++r) {
                    ASSERT_EQ(got_keys[r], expected.first[r]) << "wide " << wide << ", n = " << n << ", run " << r;
                    ASSERT_EQ(got_sums[r], expected.second[r]) << "wide " << wide << ", n = " << n << ", run " << r;
                }
            }
        }
    }
}

TEST(ReduceByKey, TileKernelOnEveryTypeSizeAndItemCount) {
    // the tile kernel (GPUs' default) forced onto this device, at its tile edges (256 work-items times the items)
    clalgo_test::ScopedVariable tile("CLALGO_REDUCE_BY_KEY", "tile");
    for (const char* items : {"", "1", "3", "32"}) {
        clalgo_test::ScopedVariable forced_items("CLALGO_REDUCE_BY_KEY_ITEMS", items);
        const std::size_t per_tile = 256 * (items[0] ? std::strtoul(items, nullptr, 10) : 16);
        std::vector<std::size_t> edges{0, 1, 2, 255, 257, per_tile - 1, per_tile, per_tile + 1, 3 * per_tile + 5};
        if (items[0] == 0) edges.push_back((std::size_t(1) << 20) + 3);
        for (std::size_t n : edges) {
            SCOPED_TRACE(std::string("items '") + items + "', n = " + std::to_string(n));
            for (int max_run : {64, 0, 1}) {
                std::vector<float> values;
                for (std::int32_t v : clalgo_test::random_values<std::int32_t>(n, n)) values.push_back(float(v % 9));
                check_by_key(run_keys<std::int32_t>(n, max_run, n + max_run), values, "a+b", "0",
                             [](float a, float b) { return a + b; }, equal);
            }
            check_by_key(run_keys<std::int8_t>(n, 5, n), clalgo_test::random_values<std::int64_t>(n, n), "a+b", "0",
                         [](std::int64_t a, std::int64_t b) { return a + b; }, equal);
            if (clalgo_test::has_fp64())
                check_by_key(run_keys<std::int16_t>(n, 300, n), clalgo_test::random_values<double>(n, n), "max(a, b)",
                             "-INFINITY", [](double a, double b) { return std::max(a, b); }, equal);
            register_affine();
            std::mt19937_64 engine(n);
            std::vector<Affine> affines(n);
            for (auto& v : affines) v = {engine() % 7 + 1, engine() % 1000};
            check_by_key(run_keys<std::int64_t>(n, 64, n), affines, affine_then, "(affine){1, 0}", then,
                         [](Affine a, Affine b) { return a.mul == b.mul && a.add == b.add; });
        }
    }
    // vector keys, 32- and 64-bit run counts, with the look-back's pairs in one 16-byte word and apart
    for (const char* wide : {"1", "0"}) {
        clalgo_test::ScopedVariable variable("CLALGO_SCAN_WIDE_STATUS", wide);
        check_by_key_kernel<cl_uint>(clalgo::ScanAlgorithm::automatic);
        check_by_key_kernel<cl_ulong>(clalgo::ScanAlgorithm::automatic);
        clalgo::detail::ByKeySpec spec;
        spec.name = std::string("reduce_by_key_tile_") + wide;
        spec.key_type = "int";
        spec.value_type = "float";
        spec.reduce_expr = "a+b";
        spec.neutral = "0";
        const clalgo::detail::ByKeyKernel<cl_uint, float> kernel(context(), spec);
        EXPECT_TRUE(kernel.tile_at(0));
        EXPECT_NE(kernel.source().find("clalgo_by_key_args_t"), std::string::npos);
        EXPECT_EQ(kernel.source().find("#define CLALGO_PACKED 2") != std::string::npos, wide[0] == '1');
    }
}

// The tile kernel's look-back state stays put between calls on a queue: where its parts moved with each call's
// tiles, a call of more tiles than the one before read that call's values as status words, and a value can read
// as a status of the new call's epoch. Runs of tile / 17.5 keys give each tile 17 or 18 runs, which read as
// statuses of epoch 2 (the second call on a new queue's state); each round takes a new queue.
TEST(ReduceByKey, TheTileKernelsStateStaysPutBetweenCallsOfDifferentSizes) {
    clalgo_test::ScopedVariable forced("CLALGO_REDUCE_BY_KEY", "tile");
    const auto policy = clalgo::reduce_by_key_policy(queue().info(), 8, 8);
    const std::size_t tile = policy.group_size * policy.items, run = std::max<std::size_t>(1, tile * 2 / 35);
    for (int round = 0; round < 24; ++round) {
        clalgo::Queue q(context());
        for (const std::size_t tiles : {60, 100}) {
            const std::size_t n = tiles * tile;
            std::vector<std::int32_t> keys(n);
            for (std::size_t k = 0; k < n; ++k) keys[k] = std::int32_t(k / run);
            auto d_keys = clalgo::to_device(q, keys);
            auto d_values = clalgo::to_device(q, std::vector<float>(n, 1.0f));
            auto result = clalgo::reduce_by_key(q, d_keys, d_values, "a+b", "0");
            const std::size_t runs = (n + run - 1) / run;
            ASSERT_EQ(result.count.get(q), std::int64_t(runs)) << "round " << round << ", " << tiles << " tiles";
            const auto sums = result.values.view(0, runs).to_host(q);
            for (std::size_t r = 0; r + 1 < runs; ++r) ASSERT_EQ(sums[r], float(run)) << r;
            EXPECT_EQ(sums.back(), float(n - (runs - 1) * run));
        }
    }
}

TEST(ReduceByKey, IntoArraysThatAreTooShortKeepsTheCountExact) {
    const auto keys = run_keys<std::int32_t>(1000, 1, 3);  // 1000 runs
    auto d_keys = clalgo::to_device(queue(), keys);
    auto d_values = clalgo::to_device(queue(), std::vector<float>(1000, 1.0f));
    clalgo::Array<std::int32_t> keys_out(queue(), 10);
    clalgo::Array<float> sums(queue(), 10);
    clalgo::Array<std::int64_t> count(queue(), 1);
    clalgo::reduce_by_key(queue(), d_keys, d_values, keys_out, sums, count, "a+b", "0");
    EXPECT_EQ(count.to_host(queue())[0], 1000);
    EXPECT_EQ(keys_out.to_host(queue()), std::vector<std::int32_t>(keys.begin(), keys.begin() + 10));
}

TEST(ReduceByKey, RejectsMismatchedLengths) {
    auto keys = clalgo::to_device(queue(), std::vector<std::int32_t>(5, 1));
    auto values = clalgo::to_device(queue(), std::vector<float>(4, 1.0f));
    const auto message = message_of<std::invalid_argument>([&] { clalgo::reduce_by_key(queue(), keys, values, "a+b", "0"); });
    EXPECT_TRUE(clalgo_test::contains(message, "reduce_by_key"));
    EXPECT_TRUE(clalgo_test::contains(message, "'values'"));
}

TEST(SegmentedReduce, EmptySegmentsGiveTheNeutralAndOneHugeSegmentIsSummed) {
    const std::size_t n = (std::size_t(1) << 20) + 3;
    // small integers: every partial sum is exact in float, so any grouping of the additions gives the same sum
    std::vector<float> values;
    for (std::int32_t v : clalgo_test::random_values<std::int32_t>(n, 7)) values.push_back(float(v % 9));
    std::vector<std::vector<std::int64_t>> layouts{
        {0, 0, 0},                                                      // empty segments
        {0, static_cast<std::int64_t>(n)},                              // one huge segment
        {0, 0, 1, 1, 2, 257, 257, 4354, static_cast<std::int64_t>(n)},  // a mix
        {5},                                                            // no segment
    };
    std::vector<std::int64_t> regular;
    for (std::int64_t at = 0; at <= static_cast<std::int64_t>(n); at += 256) regular.push_back(at);
    layouts.push_back(regular);
    auto d_values = clalgo::to_device(queue(), values);
    for (const auto& offsets : layouts) {
        auto d_offsets = clalgo::to_device(queue(), offsets);
        clalgo::Array<float> out(queue(), offsets.size() - 1);
        clalgo::segmented_reduce(queue(), d_values, d_offsets, out, "a+b", "0");
        const auto got = out.to_host(queue());
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
            ASSERT_EQ(got[s], std::accumulate(values.begin() + offsets[s], values.begin() + offsets[s + 1], 0.0f))
                << "segment " << s;
    }
}

/// Sets CLALGO_SEGMENT_GROUP_SIZE for its lifetime: the work-group path (teams, barriers) on a CPU device too.
struct ForcedSegmentGroupSize {
    explicit ForcedSegmentGroupSize(const char* size) { setenv("CLALGO_SEGMENT_GROUP_SIZE", size, 1); }
    ~ForcedSegmentGroupSize() { unsetenv("CLALGO_SEGMENT_GROUP_SIZE"); }
};

TEST(SegmentedReduce, WorkGroupTeamsKeepTheOrderOfANonCommutativeOperator) {
    register_affine();
    ForcedSegmentGroupSize forced("64");
    for (std::size_t n : {std::size_t(0), std::size_t(257), std::size_t(4097), (std::size_t(1) << 20) + 3}) {
        std::mt19937_64 engine(n);
        std::vector<Affine> values(n);
        for (auto& v : values) v = {engine() % 7 + 1, engine() % 1000};
        // short runs (teams of 32 in a group of 64), one run, and segments of about 256 and of 1..3 items
        check_by_key(run_keys<std::int64_t>(n, 64, n), values, affine_then, "(affine){1, 0}", then,
                     [](Affine a, Affine b) { return a.mul == b.mul && a.add == b.add; });
        check_by_key(run_keys<std::int64_t>(n, 0, n), values, affine_then, "(affine){1, 0}", then,
                     [](Affine a, Affine b) { return a.mul == b.mul && a.add == b.add; });
        for (std::int64_t length : {3, 256}) {
            std::vector<std::int64_t> offsets{0};
            while (offsets.back() < static_cast<std::int64_t>(n))
                offsets.push_back(std::min<std::int64_t>(n, offsets.back() + 1 + std::int64_t(engine() % length)));
            offsets.push_back(static_cast<std::int64_t>(n));  // and an empty last segment
            auto d_values = clalgo::to_device(queue(), values);
            auto d_offsets = clalgo::to_device(queue(), offsets);
            clalgo::Array<Affine> out(queue(), offsets.size() - 1);
            clalgo::segmented_reduce(queue(), d_values, d_offsets, out, affine_then, "(affine){1, 0}");
            const auto got = out.to_host(queue());
            for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
                const Affine expected = std::accumulate(values.begin() + offsets[s], values.begin() + offsets[s + 1],
                                                        Affine{1, 0}, then);
                ASSERT_TRUE(got[s].mul == expected.mul && got[s].add == expected.add) << "segment " << s << ", n = " << n;
            }
        }
    }
    check_by_key(run_keys<std::uint32_t>(4097, 9, 1), clalgo_test::random_values<std::int32_t>(4097, 1), "", "",
                 [](std::int32_t a, std::int32_t) { return a; }, equal, false);
}

TEST(SegmentedReduce, CallingAgainBuildsNothing) {
    auto values = clalgo::to_device(queue(), std::vector<float>(10, 1.0f));
    auto offsets = clalgo::to_device(queue(), std::vector<std::int64_t>{0, 4, 10});
    clalgo::Array<float> out(queue(), 2);
    auto& cache = context().state().attachment<clalgo::detail::SegmentedCache>();
    clalgo::segmented_reduce(queue(), values, offsets, out, "a+b", "0");
    const std::size_t kernels = cache.kernels.size();
    clalgo::segmented_reduce(queue(), values, offsets, out, "a+b", "0");
    EXPECT_EQ(cache.kernels.size(), kernels);
    EXPECT_EQ(out.to_host(queue()), (std::vector<float>{4, 6}));
}

TEST(SegmentedReduce, CallsThatDifferOnlyInTheirTextsOrTheEnvironmentEachGetTheirOwnKernel) {
    // a call like the thread's last one finds that call's kernel without building a key: the operator, the
    // neutral, the preamble and the CLALGO_* variables must still tell calls apart
    const std::size_t n = 5000;
    std::vector<std::int32_t> values(n);
    for (std::size_t k = 0; k < n; ++k) values[k] = std::int32_t((k * 37) % 101) - 50;
    std::vector<std::int64_t> offsets{0};
    for (std::int64_t length = 1; offsets.back() < std::int64_t(n); length = length % 300 + 7)
        offsets.push_back(std::min<std::int64_t>(std::int64_t(n), offsets.back() + length));
    const auto d_values = clalgo::to_device(queue(), values);
    const auto d_offsets = clalgo::to_device(queue(), offsets);
    clalgo::Array<std::int32_t> out(queue(), offsets.size() - 1);
    auto expect = [&](const std::string& what, std::int32_t neutral,
                      const std::function<std::int32_t(std::int32_t, std::int32_t)>& op) {
        std::vector<std::int32_t> expected;
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
            expected.push_back(std::accumulate(values.begin() + offsets[s], values.begin() + offsets[s + 1], neutral, op));
        EXPECT_EQ(out.to_host(queue()), expected) << what;
    };
    auto sum = [&] { clalgo::segmented_reduce(queue(), d_values, d_offsets, out, "a+b", "0"); };
    clalgo::SegmentOptions added, xored;  // operators a work-group may apply in any grouping
    added.preamble = "int op(int a, int b) { return a + b; }";
    xored.preamble = "int op(int a, int b) { return a ^ b; }";
    for (int round = 0; round < 2; ++round) {
        sum();
        expect("a+b", 0, std::plus<>());
        clalgo::segmented_reduce(queue(), d_values, d_offsets, out, "max(a, b)", "INT_MIN");
        expect("max", std::numeric_limits<std::int32_t>::min(), [](std::int32_t a, std::int32_t b) { return std::max(a, b); });
        clalgo::segmented_reduce(queue(), d_values, d_offsets, out, "max(a, b)", "0");
        expect("max from 0", 0, [](std::int32_t a, std::int32_t b) { return std::max(a, b); });
        clalgo::segmented_reduce(queue(), d_values, d_offsets, out, "op(a, b)", "0", added);
        expect("op: a + b", 0, std::plus<>());
        clalgo::segmented_reduce(queue(), d_values, d_offsets, out, "op(a, b)", "0", xored);
        expect("op: a ^ b", 0, std::bit_xor<>());
    }
    // the variable that sets the work-group size, changed between two calls alike
    auto group_size = [&] {
        clalgo::detail::LaunchLog log;
        sum();
        return log.launches().at(0).local;
    };
    const std::size_t before = group_size();
    {
        ForcedSegmentGroupSize forced(before == 64 ? "128" : "64");
        EXPECT_EQ(group_size(), before == 64 ? 128u : 64u);
        expect("a+b, forced group size", 0, std::plus<>());
    }
    EXPECT_EQ(group_size(), before);
    expect("a+b again", 0, std::plus<>());
}

TEST(SegmentedReduce, AnOperatorThatDoesNotBuildFailsAgainOnTheNextCall) {
    auto values = clalgo::to_device(queue(), std::vector<float>(10, 1.0f));
    auto offsets = clalgo::to_device(queue(), std::vector<std::int64_t>{0, 4, 10});
    clalgo::Array<float> out(queue(), 2);
    for (int call = 0; call < 2; ++call)
        EXPECT_THROW(clalgo::segmented_reduce(queue(), values, offsets, out, "a +* b", "0"), clalgo::BuildError)
            << call;
    clalgo::segmented_reduce(queue(), values, offsets, out, "a+b", "0");
    EXPECT_EQ(out.to_host(queue()), (std::vector<float>{4, 6}));
}

TEST(SegmentedReduce, RejectsOffsetsThatDoNotMatchTheOutput) {
    auto values = clalgo::to_device(queue(), std::vector<float>(4, 1.0f));
    auto offsets = clalgo::to_device(queue(), std::vector<std::int64_t>{0, 4});
    clalgo::Array<float> out(queue(), 2);
    EXPECT_TRUE(clalgo_test::contains(message_of<std::invalid_argument>([&] {
        clalgo::segmented_reduce(queue(), values, offsets, out, "a+b", "0"); }), "'offsets'"));
}

TEST(Histogram, CountsEvenBinsAndLeavesOutValuesOutside) {
    for (std::size_t n : sizes) {
        std::mt19937_64 engine(n);
        std::vector<std::int32_t> values(n);
        for (auto& v : values) v = static_cast<std::int32_t>(engine() % 2400) - 1200;  // some outside [-1000, 1001)
        std::vector<std::uint32_t> expected(256, 0);
        for (auto v : values)
            if (v >= -1000 && v < 1001) ++expected[(std::int64_t(v) + 1000) * 256 / 2001];
        auto d_values = clalgo::to_device(queue(), values);
        clalgo::Array<std::uint32_t> bins(queue(), 256);
        clalgo::histogram(queue(), d_values, bins, {-1000, 1001});
        ASSERT_EQ(bins.to_host(queue()), expected) << "n = " << n;
    }
}

/// Every value of a span, in bins that do not divide it, through both integer paths (32-bit arithmetic where
/// span * bins < 2^32 and bins <= 2^22, 64-bit otherwise): each value lands in floor((v - lower) * bins / span).
TEST(Histogram, IntegerBinsAreExactAtEveryBoundary) {
    struct Case {
        std::int64_t lower, span;
        std::size_t bins;
    };
    for (const Case& c : {Case{-1000, 2001, 256}, Case{5, 7, 3}, Case{-3, 1000003, 999983},
                          Case{std::int64_t(2147483600), 4000, 13}, Case{-2147483648LL, 4294967295LL, 4099},
                          Case{0, 65536, 1 << 16}, Case{7, 1000, 4000000}}) {
        // the whole span where it is small, evenly spread values and the two ends otherwise
        std::vector<std::int64_t> values;
        const std::int64_t stride = std::max<std::int64_t>(1, c.span / 200000);
        for (std::int64_t v = c.lower - 2; v < c.lower + c.span + 2; v += stride) values.push_back(v);
        values.push_back(c.lower + c.span - 1);
        std::vector<std::uint32_t> expected(c.bins, 0);
        std::vector<std::int32_t> as_int;
        std::vector<std::uint32_t> as_uint;
        for (std::int64_t v : values) {
            const bool fits_int = v >= INT32_MIN && v <= INT32_MAX, fits_uint = v >= 0 && v <= UINT32_MAX;
            const bool use = c.lower >= 0 ? fits_uint : fits_int;
            if (!use) continue;
            if (c.lower >= 0) as_uint.push_back(static_cast<std::uint32_t>(v));
            else as_int.push_back(static_cast<std::int32_t>(v));
            if (v >= c.lower && v < c.lower + c.span)
                ++expected[static_cast<std::size_t>(
                    static_cast<unsigned __int128>(v - c.lower) * c.bins / static_cast<unsigned __int128>(c.span))];
        }
        clalgo::Array<std::uint32_t> bins(queue(), c.bins);
        const clalgo::HistogramRange range{double(c.lower), double(c.lower + c.span)};
        if (c.lower >= 0) clalgo::histogram(queue(), clalgo::to_device(queue(), as_uint), bins, range);
        else clalgo::histogram(queue(), clalgo::to_device(queue(), as_int), bins, range);
        ASSERT_EQ(bins.to_host(queue()), expected) << "lower " << c.lower << ", span " << c.span << ", bins " << c.bins;
    }
}

TEST(Histogram, FloatValuesInt64CountsAndOneBin) {
    for (std::size_t n : {std::size_t(0), std::size_t(257), (std::size_t(1) << 20) + 3}) {
        auto values = clalgo_test::random_values<float>(n, 5);  // in [-1, 1)
        if (n > 0) values[0] = NAN;
        for (std::size_t bin_count : {std::size_t(1), std::size_t(10)}) {
            const float lower = -0.5f, upper = 0.75f, scale = float(double(bin_count) / (0.75 - -0.5));
            std::vector<std::int64_t> expected(bin_count, 0);
            for (float v : values)
                if (v >= lower && v < upper)
                    ++expected[std::min<std::int64_t>(std::int64_t((v - lower) * scale), bin_count - 1)];
            auto d_values = clalgo::to_device(queue(), values);
            clalgo::Array<std::int64_t> bins(queue(), bin_count);
            clalgo::histogram(queue(), d_values, bins, {-0.5, 0.75});
            ASSERT_EQ(bins.to_host(queue()), expected) << "n = " << n << ", bins = " << bin_count;
        }
    }
}

TEST(Histogram, BinExpressionOverDeclaredArguments) {
    const std::size_t n = 4097;
    const auto values = clalgo_test::random_values<std::int32_t>(n, 3);
    clalgo::HistogramKernel<std::int32_t> by_digit(context(), "const int *x, int base", "abs(x[i]) % base");
    auto d_values = clalgo::to_device(queue(), values);
    clalgo::Array<std::int32_t> bins(queue(), 7);
    by_digit(queue(), bins, d_values, 9);  // bins 7 and 8 are outside: not counted
    std::vector<std::int32_t> expected(7, 0);
    for (auto v : values)
        if (std::abs(v) % 9 < 7) ++expected[std::abs(v) % 9];
    EXPECT_EQ(bins.to_host(queue()), expected);
    by_digit(queue(), bins, clalgo::range(0, 100), d_values, 9);
    std::fill(expected.begin(), expected.end(), 0);
    for (std::size_t i = 0; i < 100; ++i)
        if (std::abs(values[i]) % 9 < 7) ++expected[std::abs(values[i]) % 9];
    EXPECT_EQ(bins.to_host(queue()), expected);
}

TEST(Histogram, RangesOfEveryStepCountTheirOwnIndices) {
    // a step of 1 takes the kernel's 32-bit loop, any other step (and starts past 0) the general one
    const std::size_t n = 20011;
    const auto values = clalgo_test::random_values<std::int32_t>(n, 5);
    clalgo::HistogramKernel<std::int32_t> by_digit(context(), "const int *x", "abs(x[i]) % 10");
    auto d_values = clalgo::to_device(queue(), values);
    clalgo::Array<std::int32_t> bins(queue(), 10);
    const std::int64_t ranges[][3] = {{0, 20011, 1}, {17, 19999, 1}, {3, 20011, 3}, {20010, -1, -2}, {5, 6, 7}};
    for (const auto& r : ranges) {
        by_digit(queue(), bins, clalgo::range(r[0], r[1], r[2]), d_values);
        std::vector<std::int32_t> expected(10, 0);
        for (std::int64_t i = r[0]; r[2] > 0 ? i < r[1] : i > r[1]; i += r[2]) ++expected[std::abs(values[i]) % 10];
        EXPECT_EQ(bins.to_host(queue()), expected) << "range(" << r[0] << ", " << r[1] << ", " << r[2] << ")";
    }
}

TEST(Histogram, WorkGroupPathWithLocalAtomicsAndGlobalFallback) {
    setenv("CLALGO_HISTOGRAM_GROUP_SIZE", "64", 1);
    // inputs of one item, of part of a group's round of reads, around one group's 8 and 16 items a work-item, of a
    // few groups, and of many rounds
    for (const std::size_t n : {std::size_t(1), std::size_t(17), std::size_t(64 * 8 - 1), std::size_t(64 * 8 + 1),
                                std::size_t(64 * 16 - 1), std::size_t(64 * 16 + 1), std::size_t(3 * 64 * 16 + 5),
                                (std::size_t(1) << 20) + 3}) {
        std::mt19937_64 engine(n);
        std::vector<std::int32_t> values(n);
        for (auto& v : values) v = static_cast<std::int32_t>(engine() % 12000) - 6000;
        auto d_values = clalgo::to_device(queue(), values);
        for (std::size_t bin_count : {std::size_t(1), std::size_t(256), std::size_t(10000)}) {  // 10000: beyond local memory
            std::vector<std::uint32_t> expected(bin_count, 0);
            for (auto v : values)
                if (v >= -5000 && v < 5000) ++expected[(std::int64_t(v) + 5000) * std::int64_t(bin_count) / 10000];
            // twice: the first call must leave every copy of the running sums zero for the second
            for (int call = 0; call < 2; ++call) {
                clalgo::Array<std::uint32_t> bins(queue(), bin_count);
                clalgo::histogram(queue(), d_values, bins, {-5000, 5000});
                EXPECT_EQ(bins.to_host(queue()), expected)
                    << "n = " << n << ", bins = " << bin_count << ", call " << call;
            }
        }
    }
    unsetenv("CLALGO_HISTOGRAM_GROUP_SIZE");
}

TEST(Histogram, RejectsAnEmptyRange) {
    auto values = clalgo::to_device(queue(), std::vector<std::int32_t>(4, 1));
    clalgo::Array<std::uint32_t> bins(queue(), 4);
    EXPECT_TRUE(clalgo_test::contains(message_of<std::invalid_argument>([&] {
        clalgo::histogram(queue(), values, bins, {5, 5}); }), "lower"));
}

TEST(ListOfListsBuilder, EmptyListsAndListsOfSeveralItems) {
    clalgo::ListOfListsBuilder builder(context(), {{"multiples", "long"}, {"halves", "float"}},
                                       "for (long m = 0; m < i % 4; ++m) APPEND_multiples(m * scale);\n"
                                       "if (i % 2 == 0) APPEND_halves(x[i] / 2);",
                                       "const float *x, long scale");
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(257), std::size_t(4097)}) {
        const auto x = clalgo_test::random_values<float>(n, 9);
        auto d_x = clalgo::to_device(queue(), x);
        auto lists = builder(queue(), d_x, std::int64_t(3));
        std::vector<std::int64_t> multiples, multiple_offsets{0}, half_offsets{0};
        std::vector<float> halves;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t m = 0; m < i % 4; ++m) multiples.push_back(std::int64_t(m) * 3);
            if (i % 2 == 0) halves.push_back(x[i] / 2);
            multiple_offsets.push_back(static_cast<std::int64_t>(multiples.size()));
            half_offsets.push_back(static_cast<std::int64_t>(halves.size()));
        }
        const auto got_multiples = lists.get<std::int64_t>("multiples");
        const auto got_halves = lists.get<float>("halves");
        EXPECT_EQ(got_multiples.count, static_cast<std::int64_t>(multiples.size()));
        EXPECT_EQ(got_multiples.items.to_host(queue()), multiples);
        EXPECT_EQ(got_multiples.offsets.to_host(queue()), multiple_offsets);
        EXPECT_EQ(got_halves.items.to_host(queue()), halves);
        EXPECT_EQ(got_halves.offsets.to_host(queue()), half_offsets);
    }
    // over a range, with the same kernels
    auto d_x = clalgo::to_device(queue(), std::vector<float>(10, 4.0f));
    auto lists = builder(queue(), clalgo::range(2, 10, 2), d_x, std::int64_t(1));
    EXPECT_EQ(lists.get<std::int64_t>("multiples").items.to_host(queue()), (std::vector<std::int64_t>{0, 1, 0, 1}));
    EXPECT_EQ(lists.get<float>("halves").count, 4);
}

TEST(Policies, EveryDeviceClassGetsSensibleShapes) {
    for (auto device : {clalgo::DeviceClass::cpu, clalgo::DeviceClass::nvidia_gpu, clalgo::DeviceClass::other_gpu}) {
        const auto info = clalgo::typical_device(device);
        const auto segmented = clalgo::segmented_reduce_policy(info);
        EXPECT_LE(segmented.group_size, info.max_work_group_size);
        EXPECT_EQ(segmented.group_size & (segmented.group_size - 1), 0u);
        EXPECT_EQ(segmented.team_size(1), 1u);
        // teams leave each work-item `items` of a segment: 32 work-items for 256 items of 8
        EXPECT_EQ(segmented.team_size(std::int64_t(segmented.items) * 32),
                  std::min<std::size_t>(32, segmented.group_size));
        EXPECT_EQ(segmented.team_size(std::int64_t(1) << 40), segmented.group_size);
        EXPECT_EQ(segmented.warp_shuffle, device == clalgo::DeviceClass::nvidia_gpu);
        for (std::int64_t n : {std::int64_t(0), std::int64_t(1) << 20, std::int64_t(1) << 36}) {
            const auto histogram = clalgo::histogram_policy(info, n);
            EXPECT_GE(histogram.groups, 1u);
            EXPECT_LE(static_cast<double>(n) / double(histogram.groups), double(std::int64_t(1) << 31));
            EXPECT_LE(histogram.local_bins * 4, info.local_memory_bytes);
            EXPECT_EQ(histogram.contiguous_chunks, device == clalgo::DeviceClass::cpu);
            // GPUs spread the running sums of a few bins over copies; a CPU's few work-groups keep one
            EXPECT_EQ(histogram.sum_copies_for(256) > 1, device != clalgo::DeviceClass::cpu);
            EXPECT_EQ(histogram.sum_copies_for(histogram.spread_bins + 1), 1u);
            EXPECT_GE(clalgo::list_builder_policy(info, n).groups, 1u);
        }
    }
}

// The examples of docs/kernels.md ("By key, segments, histograms, lists"), word for word, with their results.
namespace {

TEST(ByKeyDocs, ReduceByKey) {
    auto& q = queue();
    auto keys = clalgo::to_device(q, std::vector<std::int32_t>{7, 7, 2, 5, 5, 5});
    auto values = clalgo::to_device(q, std::vector<float>{1, 2, 3, 4, 5, 6});
    auto [keys_out, sums, nruns] = clalgo::reduce_by_key(q, keys, values, "a+b", "0");
    std::int64_t runs = nruns.get(q);               // keys_out.view(0, runs), sums.view(0, runs)
    auto [first_keys, first_values, first_count] = clalgo::unique_by_key(q, keys, values);
    ASSERT_EQ(runs, 3);
    EXPECT_EQ(keys_out.view(0, 3).to_host(q), (std::vector<std::int32_t>{7, 2, 5}));
    EXPECT_EQ(sums.view(0, 3).to_host(q), (std::vector<float>{3, 3, 15}));
    ASSERT_EQ(first_count.get(q), 3);
    EXPECT_EQ(first_values.view(0, 3).to_host(q), (std::vector<float>{1, 3, 4}));
}

TEST(ByKeyDocs, SegmentedReduce) {
    auto& q = queue();
    auto values = clalgo::to_device(q, std::vector<float>{1, 2, 3, 4, 5});
    auto offsets = clalgo::to_device(q, std::vector<std::int64_t>{0, 2, 2, 5});
    clalgo::Array<float> sums(q, 3);
    clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0");
    EXPECT_EQ(sums.to_host(q), (std::vector<float>{3, 0, 12}));
}

TEST(ByKeyDocs, Histogram) {
    auto& q = queue();
    auto& ctx = context();
    auto values = clalgo::to_device(q, std::vector<std::int32_t>{-1000, 0, 999, 1000, 1001, -1001});
    auto x = clalgo::to_device(q, std::vector<int>{-13, 7, 21, 40, 5});
    clalgo::Array<std::uint32_t> bins(q, 10);
    clalgo::histogram(q, values, bins, {-1000, 1001});
    std::vector<std::uint32_t> expected(10, 0);
    for (std::int32_t v : {-1000, 0, 999, 1000}) ++expected[std::uint64_t(v + 1000) * 10 / 2001];
    EXPECT_EQ(bins.to_host(q), expected);
    clalgo::HistogramKernel<std::uint32_t> by_digit(ctx, "const int *x, int base", "abs(x[i]) % base");
    by_digit(q, bins, x, 10);
    EXPECT_EQ(bins.to_host(q), (std::vector<std::uint32_t>{1, 1, 0, 1, 0, 1, 0, 1, 0, 0}));
}

TEST(ByKeyDocs, ListOfListsBuilder) {
    auto& q = queue();
    auto& ctx = context();
    auto x = clalgo::to_device(q, std::vector<float>{2, 4, 6, 8, 10});
    clalgo::ListOfListsBuilder builder(ctx, {{"multiples", "long"}, {"halves", "float"}},
        "for (long m = 0; m < i % 4; ++m) APPEND_multiples(m * scale);\n"
        "if (i % 2 == 0) APPEND_halves(x[i] / 2);",
        "const float *x, long scale");
    auto lists = builder(q, x, std::int64_t(3));        // or builder(q, clalgo::range(0, n), x, std::int64_t(3))
    auto multiples = lists.get<std::int64_t>("multiples");  // .items, .offsets, .count
    EXPECT_EQ(multiples.items.view(0, 6).to_host(q), (std::vector<std::int64_t>{0, 0, 3, 0, 3, 6}));
    auto halves = lists.get<float>("halves");
    EXPECT_EQ(halves.items.view(0, 3).to_host(q), (std::vector<float>{1, 3, 5}));
}

}  // namespace

TEST(ReduceByKey, CallsThatDifferOnlyInTheirTextsOrTheEnvironmentEachGetTheirOwnKernel) {
    // a call like the thread's last one finds that call's kernel without building a key: every text, the fold and
    // the CLALGO_* variables must still tell calls apart
    const std::size_t n = 3000;
    const auto keys = run_keys<std::int32_t>(n, 7, n);
    std::vector<std::int32_t> values(n);
    for (std::size_t k = 0; k < n; ++k) values[k] = std::int32_t((k * 37) % 101) - 50;
    const auto d_keys = clalgo::to_device(queue(), keys);
    const auto d_values = clalgo::to_device(queue(), values);
    clalgo::Array<std::int32_t> keys_out(queue(), n), values_out(queue(), n);
    clalgo::Array<std::int64_t> count(queue(), 1);
    auto expect_runs = [&](const std::string& what, const std::function<std::int32_t(std::int32_t, std::int32_t)>& op,
                           bool fold) {
        std::vector<std::int32_t> first_keys, folded;
        for (std::size_t k = 0; k < n; ++k) {
            if (k == 0 || keys[k] != keys[k - 1]) {
                first_keys.push_back(keys[k]);
                folded.push_back(values[k]);
            } else if (fold) {
                folded.back() = op(folded.back(), values[k]);
            }
        }
        const auto runs = count.view(0, 1).to_host(queue())[0];
        ASSERT_EQ(runs, std::int64_t(first_keys.size())) << what;
        EXPECT_EQ(keys_out.view(0, std::size_t(runs)).to_host(queue()), first_keys) << what;
        EXPECT_EQ(values_out.view(0, std::size_t(runs)).to_host(queue()), folded) << what;
    };
    auto kernel_names = [&](const std::function<void()>& call) {
        clalgo::detail::LaunchLog log;
        call();
        std::vector<std::string> names;
        for (const auto& launch : log.launches()) names.push_back(launch.kernel.getInfo<CL_KERNEL_FUNCTION_NAME>());
        return names;
    };
    auto sum = [&] { clalgo::reduce_by_key(queue(), d_keys, d_values, keys_out, values_out, count, "a+b", "0"); };
    auto largest = [&] {
        clalgo::reduce_by_key(queue(), d_keys, d_values, keys_out, values_out, count, "max(a, b)", "INT_MIN");
    };
    for (int round = 0; round < 2; ++round) {
        sum();
        expect_runs("a+b", [](std::int32_t a, std::int32_t b) { return a + b; }, true);
        largest();
        expect_runs("max", [](std::int32_t a, std::int32_t b) { return std::max(a, b); }, true);
        clalgo::unique_by_key(queue(), d_keys, d_values, keys_out, values_out, count);
        expect_runs("unique", {}, false);
        largest();
        expect_runs("max again", [](std::int32_t a, std::int32_t b) { return std::max(a, b); }, true);
    }
    // the variable that chooses the kernel, changed between two calls alike
    std::vector<std::string> scanned, tiled;
    {
        clalgo_test::ScopedVariable scan("CLALGO_REDUCE_BY_KEY", "scan");
        scanned = kernel_names(sum);
    }
    {
        clalgo_test::ScopedVariable tile("CLALGO_REDUCE_BY_KEY", "tile");
        tiled = kernel_names(sum);
        expect_runs("tile", [](std::int32_t a, std::int32_t b) { return a + b; }, true);
    }
    clalgo_test::ScopedVariable scan("CLALGO_REDUCE_BY_KEY", "scan");
    EXPECT_NE(scanned, tiled);
    EXPECT_EQ(kernel_names(sum), scanned);
    expect_runs("scan", [](std::int32_t a, std::int32_t b) { return a + b; }, true);
}
