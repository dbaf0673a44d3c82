// clalgo::sort and clalgo::sort_by_key by a less expression, and MergeSortKernel, each checked against
// std::stable_sort with the same comparison on the CPU: registered structs by one field with many equal keys
// (stability seen through a field that records each item's original place), descending orders, floats with
// negatives, vector types through a helper in the preamble, sorted, reversed and all-equal inputs, at sizes that
// straddle the policy's tile and reach a million. The policy is checked for each device class without a device.
#include "support.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using clalgo::ComparisonSortPolicy;
using clalgo::DeviceClass;
using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

struct Record {
    std::int32_t key;
    std::int32_t position;  ///< where the record stood before sorting
    float weight;
};

struct Particle {
    float x, y, z;
    std::int32_t id;
};

void register_record() {
    static const bool registered = [] {
        clalgo::register_struct<Record>("record", "typedef struct { int key; int position; float weight; } record;",
                                        {CLALGO_FIELD(Record, key), CLALGO_FIELD(Record, position),
                                         CLALGO_FIELD(Record, weight)});
        return true;
    }();
    (void)registered;
}

/// 0, 1, 2, around a CPU work-group, a few tiles, the policy's tile and its neighbours, a million and a bit.
std::vector<std::size_t> sizes_for(std::size_t key_bytes, std::size_t value_bytes, bool with_large = true) {
    const std::size_t tile = clalgo::comparison_sort_policy(queue().info(), key_bytes, value_bytes).tile_size;
    std::vector<std::size_t> sizes{0, 1, 2, 255, 256, 257, 4097, tile - 1, tile, tile + 1, 3 * tile + 5};
    if (with_large) sizes.push_back((std::size_t(1) << 20) + 3);
    return sizes;
}

std::vector<Record> random_records(std::size_t n, int distinct_keys, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> key(0, distinct_keys - 1);
    std::vector<Record> records(n);
    for (std::size_t k = 0; k < n; ++k) records[k] = Record{key(engine), static_cast<std::int32_t>(k), float(k % 7)};
    return records;
}

bool same(const Record& a, const Record& b) {
    return a.key == b.key && a.position == b.position && a.weight == b.weight;
}
bool key_less(const Record& a, const Record& b) { return a.key < b.key; }
template <class T>
bool same(const T& a, const T& b) { return a == b; }

std::string show(const Record& r) {
    std::ostringstream out;
    out << "{key " << r.key << ", position " << r.position << "}";
    return out.str();
}
template <class T>
std::string show(const T& value) {
    std::ostringstream out;
    out << +value;
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

/// clalgo::sort of `input` by `less` against std::stable_sort by `cpu_less`.
template <class T, class Less>
::testing::AssertionResult sorts_like_std(const std::vector<T>& input, const std::string& less, Less cpu_less) {
    auto device = clalgo::to_device(queue(), input);
    clalgo::sort(queue(), device, less).wait();
    std::vector<T> expected = input;
    std::stable_sort(expected.begin(), expected.end(), cpu_less);
    return equal_vectors(device.to_host(queue()), expected) << " (n = " << input.size() << ", less \"" << less << "\")";
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// The policy, for each device class

TEST(ComparisonSortPolicy, FitsEachDeviceClassAndItsLocalMemory) {
    for (DeviceClass device : {DeviceClass::cpu, DeviceClass::nvidia_gpu, DeviceClass::other_gpu}) {
        SCOPED_TRACE(clalgo::to_string(device));
        const clalgo::DeviceInfo info = clalgo::typical_device(device);
        for (std::size_t key_bytes : {1, 4, 8, 64, 1000}) {
            for (std::size_t value_bytes : {0, 4, 12}) {
                const ComparisonSortPolicy policy = clalgo::comparison_sort_policy(info, key_bytes, value_bytes);
                EXPECT_GE(policy.tile_size, 1u);
                EXPECT_EQ(policy.tile_size & (policy.tile_size - 1), 0u) << "a power of two";
                EXPECT_LE(policy.tile_local_bytes(key_bytes, value_bytes), info.local_memory_bytes);
                EXPECT_GE(policy.tile_group_size, 1u);
                EXPECT_LE(policy.tile_group_size, std::min(info.max_work_group_size, policy.tile_size));
                EXPECT_LE(policy.merge_group_size, info.max_work_group_size);
                for (std::int64_t n : {std::int64_t(2), std::int64_t(1000), std::int64_t(1) << 20,
                                       std::int64_t(1) << 33})
                    for (std::int64_t width = std::int64_t(policy.tile_size); width < n; width *= 2) {
                        const std::int64_t items = policy.merge_items_for(n, width);
                        EXPECT_GE(items, 1);
                        EXPECT_EQ((2 * width) % items, 0) << "no work-item crosses a merged pair's end";
                    }
            }
        }
        // larger elements never get larger tiles; ints fill a tile of at least 1024 everywhere
        EXPECT_GE(clalgo::comparison_sort_policy(info, 4, 0).tile_size, 1024u);
        EXPECT_GE(clalgo::comparison_sort_policy(info, 4, 0).tile_size,
                  clalgo::comparison_sort_policy(info, 64, 0).tile_size);
        EXPECT_EQ(clalgo::comparison_sort_policy(info, info.local_memory_bytes, 0).tile_size, 1u)
            << "an element as large as local memory: no tile sort, merge passes only";
    }
}

TEST(ComparisonSortPolicy, AClassCanBeForcedThroughTheEnvironment) {
    const clalgo::DeviceInfo cpu = clalgo::typical_device(DeviceClass::cpu);
    ::setenv("CLALGO_COMPARISON_SORT_CLASS", "other_gpu", 1);
    EXPECT_FALSE(clalgo::comparison_sort_policy(cpu, 4, 0).serial_tile);
    ::setenv("CLALGO_COMPARISON_SORT_CLASS", "fast", 1);
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::comparison_sort_policy(cpu, 4, 0); }),
                         "CLALGO_COMPARISON_SORT_CLASS"));
    ::unsetenv("CLALGO_COMPARISON_SORT_CLASS");
    EXPECT_TRUE(clalgo::comparison_sort_policy(cpu, 4, 0).serial_tile);
}

TEST(ComparisonSortPolicy, CpuSortsTilesAloneAndMergesContiguousChunks) {
    const ComparisonSortPolicy cpu = clalgo::comparison_sort_policy(clalgo::typical_device(DeviceClass::cpu), 4, 0);
    EXPECT_TRUE(cpu.serial_tile);
    EXPECT_EQ(cpu.tile_group_size, 1u);
    EXPECT_EQ(cpu.merge_group_size, 1u);
    EXPECT_EQ(cpu.tile_size, 8192u);
    // 2 cores x 8 chunks: 2^20 items in chunks of 2^16, never more than a merged pair
    EXPECT_EQ(cpu.merge_items_for(std::int64_t(1) << 20, std::int64_t(1) << 19), std::int64_t(1) << 16);
    EXPECT_EQ(cpu.merge_items_for(std::int64_t(1) << 20, 8192), std::int64_t(1) << 14);
    EXPECT_EQ(cpu.merge_items_for(std::int64_t(1) << 30, 8192), std::int64_t(1) << 14);

    for (DeviceClass gpu : {DeviceClass::nvidia_gpu, DeviceClass::other_gpu}) {
        const ComparisonSortPolicy policy = clalgo::comparison_sort_policy(clalgo::typical_device(gpu), 4, 0);
        EXPECT_FALSE(policy.serial_tile);
        EXPECT_EQ(policy.merge_chunks, 0);
        EXPECT_EQ(policy.merge_items_for(std::int64_t(1) << 20, 1 << 12), 8);
    }
    EXPECT_EQ(clalgo::comparison_sort_policy(clalgo::typical_device(DeviceClass::nvidia_gpu), 4, 0).tile_size, 2048u);
    EXPECT_EQ(clalgo::comparison_sort_policy(clalgo::typical_device(DeviceClass::other_gpu), 4, 0).tile_size, 1024u);
}

// ---------------------------------------------------------------------------------------------------------------
// sort

TEST(ComparisonSort, RegisteredStructByOneFieldKeepsEqualKeysInOrder) {
    register_record();
    for (std::size_t n : sizes_for(sizeof(Record), 0)) {
        const auto input = random_records(n, 50, n);
        EXPECT_TRUE(sorts_like_std(input, "a.key < b.key", key_less));
    }
}

TEST(ComparisonSort, DescendingIntAndDouble) {
    for (std::size_t n : sizes_for(sizeof(std::int32_t), 0)) {
        const auto ints = clalgo_test::random_values<std::int32_t>(n, n);
        EXPECT_TRUE(sorts_like_std(ints, "a > b", std::greater<std::int32_t>()));
    }
    if (!clalgo_test::has_fp64()) GTEST_SKIP() << "no fp64";
    for (std::size_t n : sizes_for(sizeof(double), 0, false)) {
        const auto doubles = clalgo_test::random_values<double>(n, n + 1);
        EXPECT_TRUE(sorts_like_std(doubles, "a > b", std::greater<double>()));
    }
}

TEST(ComparisonSort, FloatsWithNegatives) {
    for (std::size_t n : sizes_for(sizeof(float), 0)) {
        auto floats = clalgo_test::random_values<float>(n, n + 2);  // in [-1, 1)
        for (std::size_t k = 0; k < n; k += 3) floats[k] *= -1000.0f;
        EXPECT_TRUE(sorts_like_std(floats, "a < b", std::less<float>()));
    }
}

TEST(ComparisonSort, SortedReversedAndAllEqualInputs) {
    register_record();
    for (std::size_t n : {std::size_t(257), std::size_t(3 * 8192 + 5), (std::size_t(1) << 20) + 3}) {
        auto records = random_records(n, 1000, n);
        std::stable_sort(records.begin(), records.end(), key_less);
        for (std::size_t k = 0; k < n; ++k) records[k].position = std::int32_t(k);
        EXPECT_TRUE(sorts_like_std(records, "a.key < b.key", key_less)) << "already sorted";
        std::reverse(records.begin(), records.end());
        EXPECT_TRUE(sorts_like_std(records, "a.key < b.key", key_less)) << "reversed";
        for (std::size_t k = 0; k < n; ++k) records[k].key = 7;
        EXPECT_TRUE(sorts_like_std(records, "a.key < b.key", key_less)) << "all equal: the order stays as it is";
    }
}

TEST(ComparisonSort, RepeatedCallsReuseTheKernel) {
    const auto& first = clalgo::detail::cached_merge_sort<std::int32_t, void>(context(), "a > b", {});
    const auto& again = clalgo::detail::cached_merge_sort<std::int32_t, void>(context(), "a > b", {});
    EXPECT_EQ(&first, &again);
    const auto builds = clalgo::detail::CacheCounters::instance().source_builds.load();
    const auto disk_hits = clalgo::detail::CacheCounters::instance().disk_hits.load();
    auto device = clalgo::to_device(queue(), clalgo_test::random_values<std::int32_t>(1000));
    clalgo::sort(queue(), device, "a > b");
    clalgo::sort(queue(), device, std::string("a > b")).wait();
    EXPECT_EQ(clalgo::detail::CacheCounters::instance().source_builds.load(), builds);
    EXPECT_EQ(clalgo::detail::CacheCounters::instance().disk_hits.load(), disk_hits);
}

// ---------------------------------------------------------------------------------------------------------------
// sort_by_key

TEST(ComparisonSortByKey, StructValuesMoveWithTheirKeysInStableOrder) {
    register_record();
    for (std::size_t n : sizes_for(sizeof(std::int32_t), sizeof(Record))) {
        const auto records = random_records(n, 30, n + 3);
        std::vector<std::int32_t> keys(n);
        for (std::size_t k = 0; k < n; ++k) keys[k] = records[k].key;
        auto device_keys = clalgo::to_device(queue(), keys);
        auto device_values = clalgo::to_device(queue(), records);
        clalgo::sort_by_key(queue(), device_keys, device_values, "a < b").wait();

        std::vector<Record> expected = records;
        std::stable_sort(expected.begin(), expected.end(), key_less);
        std::vector<std::int32_t> expected_keys(n);
        for (std::size_t k = 0; k < n; ++k) expected_keys[k] = expected[k].key;
        EXPECT_TRUE(equal_vectors(device_keys.to_host(queue()), expected_keys)) << "n = " << n;
        EXPECT_TRUE(equal_vectors(device_values.to_host(queue()), expected)) << "n = " << n;
    }
}

TEST(ComparisonSortByKey, DifferentLengthsThrowInvalidArgumentNamingBoth) {
    clalgo::Array<std::int32_t> keys(queue(), 10);
    clalgo::Array<float> values(queue(), 9);
    const std::string message =
        message_of<std::invalid_argument>([&] { clalgo::sort_by_key(queue(), keys, values, "a < b"); });
    EXPECT_TRUE(contains(message, "sort_by_key"));
    EXPECT_TRUE(contains(message, "keys has 10"));
    EXPECT_TRUE(contains(message, "values 9"));
}

// ---------------------------------------------------------------------------------------------------------------
// MergeSortKernel

TEST(MergeSortKernel, VectorTypeByAHelperOfThePreambleOnAViewLeavesTheRestAlone) {
    clalgo::ComparisonSortOptions options;
    options.name = "by_weight";
    options.preamble = "inline float weight(float4 v) { return v.w; }";
    clalgo::MergeSortKernel<cl_float4> by_weight(context(), "weight(a) < weight(b)", options);
    EXPECT_TRUE(contains(by_weight.source(), "weight(a) < weight(b)"));
    const std::size_t n = 3 * by_weight.policy().tile_size + 11;
    std::mt19937 engine(5);
    std::uniform_int_distribution<int> weight(-20, 20);
    std::vector<cl_float4> input(n);
    for (std::size_t k = 0; k < n; ++k) input[k] = cl_float4{{float(k), 0.0f, 0.0f, float(weight(engine))}};
    auto device = clalgo::to_device(queue(), input);
    for (int call = 0; call < 2; ++call) {  // the second call sorts sorted data with the same kernel
        by_weight(queue(), device.view(5, n - 10)).wait();
        std::vector<cl_float4> expected = input;
        std::stable_sort(expected.begin() + 5, expected.end() - 5,
                         [](const cl_float4& a, const cl_float4& b) { return a.s[3] < b.s[3]; });
        const auto got = device.to_host(queue());
        for (std::size_t k = 0; k < n; ++k)
            ASSERT_TRUE(got[k].s[0] == expected[k].s[0] && got[k].s[3] == expected[k].s[3])
                << "call " << call << ", first difference at " << k << ": " << got[k].s[0] << ", expected "
                << expected[k].s[0];
    }
}

TEST(MergeSortKernel, GpuPathSortsStablyToo) {
    // the work-group tile sort and merge-path passes of GPUs, run on this device (PoCL on CI)
    register_record();
    ::setenv("CLALGO_COMPARISON_SORT_CLASS", "other_gpu", 1);
    clalgo::ComparisonSortOptions options;
    options.name = "gpu_path_sort";
    clalgo::MergeSortKernel<Record> keys_only(context(), "a.key < b.key", options);
    options.name = "gpu_path_sort_by_key";
    clalgo::MergeSortKernel<std::int32_t, Record> by_key(context(), "a < b", options);
    ::unsetenv("CLALGO_COMPARISON_SORT_CLASS");
    EXPECT_FALSE(keys_only.policy().serial_tile);
    const std::size_t tile = keys_only.policy().tile_size;
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(255), std::size_t(257), tile - 1, tile, tile + 1,
                          3 * tile + 5, std::size_t(100003)}) {
        const auto records = random_records(n, 40, n + 7);
        std::vector<Record> expected = records;
        std::stable_sort(expected.begin(), expected.end(), key_less);

        auto device = clalgo::to_device(queue(), records);
        keys_only(queue(), device).wait();
        EXPECT_TRUE(equal_vectors(device.to_host(queue()), expected)) << "n = " << n;

        std::vector<std::int32_t> keys(n), expected_keys(n);
        for (std::size_t k = 0; k < n; ++k) keys[k] = records[k].key, expected_keys[k] = expected[k].key;
        auto device_keys = clalgo::to_device(queue(), keys);
        auto device_values = clalgo::to_device(queue(), records);
        by_key(queue(), device_keys, device_values).wait();
        EXPECT_TRUE(equal_vectors(device_keys.to_host(queue()), expected_keys)) << "n = " << n;
        EXPECT_TRUE(equal_vectors(device_values.to_host(queue()), expected)) << "n = " << n;
    }
}

TEST(MergeSortKernel, TinyTilesAndNoTileSortLeaveTheResultInPlace) {
    // tiles of 1 (elements too large for local memory: merge passes only, from a copy where their count is odd)
    // and of 2, for sizes with an odd and an even number of passes
    register_record();
    for (const char* tile : {"1", "2"}) {
        SCOPED_TRACE(std::string("tile ") + tile);
        ::setenv("CLALGO_COMPARISON_SORT_TILE", tile, 1);
        clalgo::ComparisonSortOptions options;
        options.name = std::string("tile_") + tile + "_sort";
        clalgo::MergeSortKernel<Record> keys_only(context(), "a.key < b.key", options);
        options.name = std::string("tile_") + tile + "_sort_by_key";
        clalgo::MergeSortKernel<std::int32_t, Record> by_key(context(), "a < b", options);
        ::unsetenv("CLALGO_COMPARISON_SORT_TILE");
        EXPECT_EQ(keys_only.policy().tile_size, std::size_t(tile[0] - '0'));
        for (std::size_t n : {std::size_t(2), std::size_t(3), std::size_t(4), std::size_t(5), std::size_t(8),
                              std::size_t(9), std::size_t(1000), std::size_t(2049)}) {
            const auto records = random_records(n, 10, n + 11);
            std::vector<Record> expected = records;
            std::stable_sort(expected.begin(), expected.end(), key_less);
            auto device = clalgo::to_device(queue(), records);
            keys_only(queue(), device).wait();
            EXPECT_TRUE(equal_vectors(device.to_host(queue()), expected)) << "n = " << n;

            std::vector<std::int32_t> keys(n);
            for (std::size_t k = 0; k < n; ++k) keys[k] = records[k].key;
            auto device_keys = clalgo::to_device(queue(), keys);
            auto device_values = clalgo::to_device(queue(), records);
            by_key(queue(), device_keys, device_values).wait();
            EXPECT_TRUE(equal_vectors(device_values.to_host(queue()), expected)) << "n = " << n;
        }
    }
}

TEST(MergeSortKernel, LessThatDoesNotCompileThrowsBuildErrorMarkingIt) {
    clalgo::ComparisonSortOptions options;
    options.name = "broken_sort";
    try {
        clalgo::MergeSortKernel<std::int32_t> broken(context(), "a < < b", options);
        FAIL() << "a less expression that does not compile built";
    } catch (const clalgo::BuildError& error) {
        EXPECT_EQ(error.kernel_name(), "broken_sort");
        EXPECT_TRUE(contains(error.what(), "a < < b"));
        EXPECT_TRUE(contains(error.numbered_source(), "<- your less"));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The example of docs/kernels.md

TEST(ComparisonSortDocs, SortsAndKernel) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    std::vector<Particle> host_particles{{0, 0, 2.0f, 0}, {0, 0, 1.0f, 1}, {0, 0, 2.0f, 2}, {0, 0, -1.0f, 3}};
    auto distances = clalgo::to_device(q, std::vector<float>{1.5f, 9.0f, 1.5f, 4.0f});
    auto ids = clalgo::to_device(q, std::vector<std::int32_t>{0, 1, 2, 3});
    auto points = clalgo::to_device(q, std::vector<cl_float4>{{{0, 0, 0, 3}}, {{1, 0, 0, 1}}, {{2, 0, 0, 2}}});

clalgo::register_struct<Particle>("particle", "typedef struct { float x, y, z; int id; } particle;",
                                  {CLALGO_FIELD(Particle, x), CLALGO_FIELD(Particle, y), CLALGO_FIELD(Particle, z),
                                   CLALGO_FIELD(Particle, id)});
auto particles = clalgo::to_device(q, host_particles);
clalgo::sort(q, particles, "a.z < b.z");                  // in place, asynchronous; equal z keep their order
clalgo::sort_by_key(q, distances, ids, "a > b");          // ids move with their distances, farthest first
clalgo::MergeSortKernel<cl_float4> by_w(ctx, "a.w < b.w"); // built once, called any number of times
by_w(q, points).wait();

    std::vector<std::int32_t> order;
    for (const Particle& p : particles.to_host(q)) order.push_back(p.id);
    EXPECT_EQ(order, (std::vector<std::int32_t>{3, 1, 0, 2}));
    EXPECT_EQ(ids.to_host(q), (std::vector<std::int32_t>{1, 3, 0, 2}));
    std::vector<float> xs;
    for (const cl_float4& p : points.to_host(q)) xs.push_back(p.s[0]);
    EXPECT_EQ(xs, (std::vector<float>{1, 2, 0}));
}
