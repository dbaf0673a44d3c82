// SplitArray: an array in parts across a DeviceSet of two queues on the test device, with map, reduce, scan and
// copy_if over its parts, against the host, for even, uneven and one-sided splits.
#include "support.hpp"

#include <clalgo/multi/split_array.hpp>

#include <cstdint>
#include <vector>

namespace {

const std::vector<std::vector<double>> weightings{{1, 1}, {3, 1}, {1, 7}, {1, 0}, {0, 1}};

clalgo::DeviceSet two_queues() {
    return clalgo::DeviceSet(std::vector<clalgo::Queue>{clalgo::Queue(clalgo_test::context()),
                                                        clalgo::Queue(clalgo_test::context())});
}

TEST(SplitArray, CopiesInAndOutInParts) {
    auto devices = two_queues();
    for (const auto& weights : weightings)
        for (std::size_t n : {0, 1, 5, 100003}) {
            devices.set_weights(weights);
            const auto host = clalgo_test::random_values<std::int32_t>(n);
            const clalgo::SplitArray<std::int32_t> x(devices, host);
            EXPECT_EQ(x.size(), n);
            ASSERT_EQ(x.parts(), 2u);
            EXPECT_EQ(x.offset(1), x.part(0).size());
            if (weights[1] == 0) {
                EXPECT_EQ(x.part(1).size(), 0u);
            }
            EXPECT_EQ(x.to_host(devices), host);
        }
}

TEST(SplitArray, MapsReducesScansAndSelectsLikeTheHost) {
    auto devices = two_queues();
    const clalgo::ElementwiseKernel twice_plus(devices.context(), "const int *x, int *y, int add", "y[i] = 2 * x[i] + add");
    const clalgo::ReductionKernel<std::int64_t> sum(devices.context(), "0", "a + b", "x[i]", "const int *x");
    const clalgo::SplitScanKernel<std::int64_t> cumsum(devices, "const int *x, long *out", "x[i]", "a + b", "0",
                                                       "out[i] = prev_item");
    for (const auto& weights : weightings)
        for (std::size_t n : {0, 1, 2, 1000, 100003}) {
            devices.set_weights(weights);
            const auto host = clalgo_test::random_values<std::int32_t>(n, 9);
            const clalgo::SplitArray<std::int32_t> x(devices, host);
            clalgo::SplitArray<std::int32_t> y(devices, n);
            clalgo::SplitArray<std::int64_t> out(devices, n);
            clalgo::map(devices, twice_plus, x, y, 5);
            std::vector<std::int32_t> mapped;
            std::int64_t total = 0;
            std::vector<std::int64_t> exclusive;
            for (auto v : host) {
                mapped.push_back(2 * v + 5);
                exclusive.push_back(total);
                total += v;
            }
            EXPECT_EQ(y.to_host(devices), mapped);
            EXPECT_EQ(clalgo::reduce(devices, sum, x), total);
            clalgo::scan(devices, cumsum, x, out);
            EXPECT_EQ(out.to_host(devices), exclusive);
            std::vector<std::int32_t> positive;
            for (auto v : host)
                if (v > 20) positive.push_back(v);
            const auto kept = clalgo::copy_if(devices, x, "ary[i] > 20");
            EXPECT_EQ(kept.to_host(devices), positive) << weights[0] << ":" << weights[1] << " n " << n;
        }
}

TEST(SplitArray, PassesEachDeviceItsPartAndThePartsOffset) {
    auto devices = two_queues();
    const clalgo::ElementwiseKernel number(devices.context(), "long *y, long start", "y[i] = 10 * (start + i)");
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        clalgo::SplitArray<std::int64_t> y(devices, 1001);
        clalgo::map(devices, number, y, clalgo::share_start);
        std::vector<std::int64_t> expected;
        for (std::int64_t k = 0; k < 1001; ++k) expected.push_back(10 * k);
        EXPECT_EQ(y.to_host(devices), expected) << weights[0] << ":" << weights[1];
    }
}

TEST(SplitArray, MakesPartsOfTheSizesAsked) {
    auto devices = two_queues();
    auto parts = clalgo::SplitArray<float>::with_part_sizes(devices, {3, 0});
    EXPECT_EQ(parts.part(0).size(), 3u);
    EXPECT_EQ(parts.part(1).size(), 0u);
    EXPECT_EQ(parts.size(), 3u);
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
                                          clalgo::SplitArray<float>::with_part_sizes(devices, {1, 2, 3});
                                      }),
                                      "3 sizes for a DeviceSet of 2 devices"));
}

TEST(SplitArray, RefusesAPlainArrayThatEveryDeviceWouldWrite) {
    auto devices = two_queues();
    const clalgo::ElementwiseKernel copy(devices.context(), "const int *x, int *y", "y[i] = x[i]");
    const clalgo::SplitArray<std::int32_t> x(devices, std::vector<std::int32_t>(100, 7));
    clalgo::Array<std::int32_t> y(devices.queue(0), 100);
    EXPECT_TRUE(clalgo_test::contains(
        clalgo_test::message_of<std::invalid_argument>([&] { clalgo::map(devices, copy, x, y); }),
        "clalgo::map: kernel 'elementwise', argument 2 'y' (int *) is one array that 2 devices would write"));
    // read by every device, a plain array may be shared
    const clalgo::ElementwiseKernel add(devices.context(), "const int *table, int *y", "y[i] = table[i % 4]");
    const auto table = clalgo::to_device(devices.queue(0), std::vector<std::int32_t>{1, 2, 3, 4});
    clalgo::SplitArray<std::int32_t> z(devices, 8);
    clalgo::map(devices, add, table, z);
    EXPECT_EQ(z.to_host(devices), (std::vector<std::int32_t>{1, 2, 3, 4, 1, 2, 3, 4}));
}

TEST(SplitArray, RejectsPartsThatDoNotMatchTheSet) {
    auto devices = two_queues();
    clalgo::DeviceSet three(std::vector<clalgo::Queue>{devices.queue(0), devices.queue(1), devices.queue(0)});
    const clalgo::SplitArray<std::int32_t> x(three, std::vector<std::int32_t>(10, 1));
    const clalgo::ReductionKernel<std::int64_t> sum(devices.context(), "0", "a + b", "x[i]", "const int *x");
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] { clalgo::reduce(devices, sum, x); }),
                                      "a SplitArray of 3 parts for a DeviceSet of 2 devices"));
}

}  // namespace
