// histogram (even bins and HistogramKernel), segmented_reduce and reduce_by_key / unique_by_key against plain CPU
// loops: every size class, integer and floating-point values, values outside the bins, empty and huge segments,
// all-equal and all-distinct keys, and non-commutative operators (composition of affine maps x -> m*x + c on
// 32-bit unsigned integers, exact on both sides), plus their policies on every device class and misuse.
#include "support.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using clalgo_test::context;
using clalgo_test::queue;

namespace {

const std::vector<std::size_t> sizes{0, 1, 2, 255, 256, 257, 4097, (1u << 20) + 3};

/// Affine maps x -> x.s0 * x + x.s1, composed left to right: `then(f, g)` applies f, then g. Not commutative.
cl_uint2 then(cl_uint2 f, cl_uint2 g) {
    cl_uint2 h;
    h.s[0] = f.s[0] * g.s[0];
    h.s[1] = f.s[1] * g.s[0] + g.s[1];
    return h;
}
const char* then_expr = "(uint2)(a.x * b.x, a.y * b.x + b.y)";
const char* identity_map = "(uint2)(1, 0)";

std::vector<cl_uint2> random_maps(std::size_t n, unsigned seed) {
    std::mt19937 random(seed);
    std::vector<cl_uint2> maps(n);
    for (auto& map : maps) map.s[0] = random() | 1u, map.s[1] = random();
    return maps;
}

bool same(cl_uint2 a, cl_uint2 b) { return a.s[0] == b.s[0] && a.s[1] == b.s[1]; }

template <class T>
void check_even_histogram(std::size_t n, std::size_t bin_count, double lower, double upper, unsigned seed) {
    std::mt19937_64 random(seed);
    std::vector<T> values(n);
    for (auto& value : values) {
        if constexpr (std::is_floating_point_v<T>)
            value = static_cast<T>(lower + (upper - lower) * (static_cast<double>(random() % 1400) / 1000.0 - 0.2));
        else
            value = static_cast<T>(static_cast<std::int64_t>(lower) - 20 +
                                   static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(upper - lower + 40)));
    }
    if constexpr (std::is_floating_point_v<T>)
        if (n > 3) values[n / 2] = std::numeric_limits<T>::quiet_NaN();
    std::vector<std::uint32_t> expected(bin_count, 0);
    for (T value : values) {
        if constexpr (std::is_floating_point_v<T>) {
            const T low = static_cast<T>(lower), high = static_cast<T>(upper);
            const T scale = static_cast<T>(bin_count) / (high - low);
            if (value >= low && value < high)
                ++expected[std::min<std::int64_t>(static_cast<std::int64_t>((value - low) * scale), bin_count - 1)];
        } else {
            const auto v = static_cast<std::int64_t>(value), low = static_cast<std::int64_t>(lower),
                       high = static_cast<std::int64_t>(upper);
            if (v >= low && v < high)
                ++expected[static_cast<std::uint64_t>(v - low) * bin_count / static_cast<std::uint64_t>(high - low)];
        }
    }
    auto device = clalgo::to_device(queue(), values);
    clalgo::Array<std::uint32_t> bins(queue(), bin_count);
    bins.fill(queue(), 77);  // replaced, not added to
    clalgo::histogram(queue(), device.view(), bins.view(), {lower, upper});
    EXPECT_EQ(bins.to_host(queue()), expected) << clalgo::type_name<T>() << " n=" << n << " bins=" << bin_count;
}

TEST(Histogram, EvenBinsCountEveryValueInsideAndNoneOutside) {
    for (std::size_t n : sizes) {
        check_even_histogram<std::int32_t>(n, 256, -1000, 1001, unsigned(n));
        check_even_histogram<float>(n, 100, -2.5, 7.5, unsigned(n) + 1);
    }
    check_even_histogram<std::int8_t>(5000, 10, -100, 100, 3);
    check_even_histogram<std::uint16_t>(5000, 7, 10, 60000, 4);
    check_even_histogram<std::int64_t>(5000, 1, -5, 5, 5);
    check_even_histogram<std::uint8_t>(5000, 300, 0, 256, 6);
    if (clalgo_test::has_fp64()) check_even_histogram<double>(100003, 1000, -1e6, 1e6, 7);
}

TEST(Histogram, KernelCountsABinExpressionOverArraysAndRangesIn64BitCounts) {
    clalgo::HistogramKernel<std::uint64_t> digits(context(), "const uint *x, uint base", "(long)(x[i] % base)");
    clalgo::HistogramKernel<std::int32_t> over_range(context(), "", "(i % 3 == 0) ? (i / 3) % 5 : -1");
    for (std::size_t n : sizes) {
        std::vector<cl_uint> x(n);
        for (std::size_t k = 0; k < n; ++k) x[k] = cl_uint(k * 2654435761u);
        std::vector<std::uint64_t> expected(7, 0);
        for (cl_uint value : x) ++expected[value % 7];
        auto device = clalgo::to_device(queue(), x);
        clalgo::Array<std::uint64_t> bins(queue(), 7);
        digits(queue(), bins, device, cl_uint(7));
        EXPECT_EQ(bins.to_host(queue()), expected) << "n=" << n;

        std::vector<std::int32_t> range_expected(5, 0);
        for (std::int64_t i = 10; i < 10 + std::int64_t(n); i += 2)
            if (i % 3 == 0) ++range_expected[(i / 3) % 5];
        clalgo::Array<std::int32_t> range_bins(queue(), 5);
        over_range(queue(), range_bins, clalgo::range(10, 10 + std::int64_t(n), 2));
        EXPECT_EQ(range_bins.to_host(queue()), range_expected) << "n=" << n;
    }
}

TEST(Histogram, MisuseThrowsNamingTheProblem) {
    auto values = clalgo::to_device(queue(), std::vector<float>{1, 2, 3});
    clalgo::Array<std::uint32_t> bins(queue(), 4), none;
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::histogram(queue(), values.view(), bins.view(), {5, 5});
    }), "lower (5.000000) must be below upper"));
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::histogram(queue(), values.view(), none.view(), {0, 5});
    }), "bins array is empty"));
    auto ints = clalgo::to_device(queue(), std::vector<std::int32_t>{1, 2, 3});
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::histogram(queue(), ints.view(), bins.view(), {0.5, 5});
    }), "whole numbers"));
}

TEST(SegmentedReduce, EverySegmentInOrderWithEmptyAndHugeSegments) {
    for (std::size_t n : sizes) {
        const auto maps = random_maps(n, unsigned(n) + 9);
        // segments: an empty one first, then lengths cycling 0, 1, 5, 300, and the rest as one huge segment
        std::vector<std::int64_t> offsets{0, 0};
        const std::size_t lengths[] = {0, 1, 5, 300};
        for (std::size_t k = 0; offsets.back() < std::int64_t(n) / 2; ++k)
            offsets.push_back(std::min<std::int64_t>(offsets.back() + lengths[k % 4], n));
        offsets.push_back(n);
        offsets.push_back(n);
        std::vector<cl_uint2> expected;
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
            cl_uint2 total{{1, 0}};
            for (std::int64_t k = offsets[s]; k < offsets[s + 1]; ++k) total = then(total, maps[k]);
            expected.push_back(total);
        }
        auto device = clalgo::to_device(queue(), maps);
        auto device_offsets = clalgo::to_device(queue(), offsets);
        clalgo::Array<cl_uint2> out(queue(), offsets.size() - 1);
        clalgo::segmented_reduce(queue(), device.view(), device_offsets.view(), out.view(), then_expr, identity_map);
        const auto got = out.to_host(queue());
        for (std::size_t s = 0; s < expected.size(); ++s) ASSERT_TRUE(same(got[s], expected[s])) << "n=" << n << " segment " << s;
    }
}

TEST(SegmentedReduce, SumsOfSegmentsOf256With32BitOffsetsAndMisuse) {
    const std::size_t n = 100000;
    std::vector<float> values(n);
    for (std::size_t k = 0; k < n; ++k) values[k] = float(k % 17) - 8.0f;
    std::vector<std::int32_t> offsets;
    for (std::size_t k = 0; k <= n; k += 256) offsets.push_back(std::int32_t(k));
    offsets.push_back(std::int32_t(n));
    std::vector<float> expected;
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
        float total = 0;
        for (std::int32_t k = offsets[s]; k < offsets[s + 1]; ++k) total += values[k];
        expected.push_back(total);
    }
    auto device = clalgo::to_device(queue(), values);
    auto device_offsets = clalgo::to_device(queue(), offsets);
    clalgo::Array<float> out(queue(), offsets.size() - 1);
    clalgo::segmented_reduce(queue(), device.view(), device_offsets.view(), out.view(), "a+b", "0");
    EXPECT_EQ(out.to_host(queue()), expected);  // small integers: exact in any order
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::segmented_reduce(queue(), device.view(), device_offsets.view(), out.view(0, 3), "a+b", "0");
    }), "segments but an output of 3"));
}

TEST(ReduceByKey, RunsOfEqualKeysReduceInOrderAtEverySize) {
    for (std::size_t n : sizes) {
        for (std::uint64_t distinct : {1, 3, 1000000}) {
            std::mt19937 random(unsigned(n + distinct));
            std::vector<std::int32_t> keys(n);
            std::int32_t key = 0;
            for (std::size_t k = 0; k < n; ++k) {
                if (distinct == 1000000 || random() % 4 == 0) key = std::int32_t(random() % distinct);
                keys[k] = key;
            }
            const auto maps = random_maps(n, unsigned(n) + 1);
            std::vector<std::int32_t> expected_keys;
            std::vector<cl_uint2> expected_maps;
            for (std::size_t k = 0; k < n; ++k) {
                if (k == 0 || keys[k] != keys[k - 1]) expected_keys.push_back(keys[k]), expected_maps.push_back({{1, 0}});
                expected_maps.back() = then(expected_maps.back(), maps[k]);
            }
            auto device_keys = clalgo::to_device(queue(), keys);
            auto device_maps = clalgo::to_device(queue(), maps);
            auto [keys_out, maps_out, runs] = clalgo::reduce_by_key(queue(), device_keys.view(), device_maps.view(), then_expr, identity_map);
            const std::int64_t count = runs.get(queue());
            ASSERT_EQ(count, std::int64_t(expected_keys.size())) << "n=" << n << " distinct=" << distinct;
            const auto got_keys = keys_out.to_host(queue());
            const auto got_maps = maps_out.to_host(queue());
            for (std::int64_t r = 0; r < count; ++r) {
                ASSERT_EQ(got_keys[r], expected_keys[r]) << "n=" << n << " run " << r;
                ASSERT_TRUE(same(got_maps[r], expected_maps[r])) << "n=" << n << " run " << r;
            }
            // unique_by_key: the first value of each run
            auto [first_keys, first_maps, first_count] = clalgo::unique_by_key(queue(), device_keys.view(), device_maps.view());
            ASSERT_EQ(first_count.get(queue()), count);
            const auto got_first = first_maps.to_host(queue());
            std::vector<std::size_t> heads;
            for (std::size_t k = 0; k < n; ++k)
                if (k == 0 || keys[k] != keys[k - 1]) heads.push_back(k);
            for (std::int64_t r = 0; r < count; ++r)
                ASSERT_TRUE(same(got_first[r], maps[heads[r]])) << "n=" << n << " run " << r;
        }
    }
}

TEST(ReduceByKey, IntoArraysTooSmallWritesOnlyWhatFitsButCountsAll) {
    std::vector<float> keys{1, 1, 2, 3, 3, 3, 4}, values{1, 2, 3, 4, 5, 6, 7};
    auto device_keys = clalgo::to_device(queue(), keys);
    auto device_values = clalgo::to_device(queue(), values);
    clalgo::Array<float> keys_out(queue(), 2), sums(queue(), 2);
    clalgo::Array<std::int64_t> count(queue(), 1);
    clalgo::reduce_by_key(queue(), device_keys.view(), device_values.view(), keys_out.view(), sums.view(), count.view(), "a+b", "0");
    EXPECT_EQ(count.to_host(queue()), std::vector<std::int64_t>{4});
    EXPECT_EQ(keys_out.to_host(queue()), (std::vector<float>{1, 2}));
    EXPECT_EQ(sums.to_host(queue()), (std::vector<float>{3, 3}));
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::reduce_by_key(queue(), device_keys.view(), device_values.view(0, 6), "a+b", "0");
    }), "7 keys but 6 values"));
}

TEST(ByKeyPolicy, EveryDeviceClass) {
    using clalgo::DeviceClass;
    const auto cpu = clalgo::typical_device(DeviceClass::cpu);
    EXPECT_TRUE(clalgo::detail::histogram_policy(cpu).contiguous);
    EXPECT_EQ(clalgo::detail::histogram_policy(cpu).group_size, 1u);
    EXPECT_TRUE(clalgo::detail::segmented_reduce_policy(cpu, 4).segment_per_item);
    for (auto device : {DeviceClass::nvidia_gpu, DeviceClass::other_gpu}) {
        const auto info = clalgo::typical_device(device);
        const auto histogram = clalgo::detail::histogram_policy(info);
        EXPECT_FALSE(histogram.contiguous);
        EXPECT_LE(histogram.local_bins * 4, info.local_memory_bytes);
        EXPECT_GE(histogram.groups_for(std::uint64_t(1) << 40), std::size_t(1) << 9);  // 32-bit local counters
        const auto segmented = clalgo::detail::segmented_reduce_policy(info, 64);
        EXPECT_FALSE(segmented.segment_per_item);
        EXPECT_LE(segmented.group_size * 64, info.local_memory_bytes);
    }
}

}  // namespace
