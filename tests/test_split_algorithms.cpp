// copy_if and SplitScanKernel over index ranges split across a DeviceSet of two queues on the test device (see
// test_device_set.cpp for why not two sub-devices on PoCL), against the host, for every weighting.
#include "support.hpp"

#include <clalgo/multi/split_algorithms.hpp>
#include <clalgo/multi/split_array.hpp>

#include <cstdint>
#include <vector>

namespace {

/// An affine map x -> mul * x + add (mod 2^64); composing them is associative but not commutative.
using clalgo_test::Affine;
using clalgo_test::register_affine;
using clalgo_test::then;

Affine affine_at(std::int64_t i) { return {std::uint64_t(i % 5 + 1), std::uint64_t(i % 7)}; }

clalgo::DeviceSet& two_queues() {
    static clalgo::DeviceSet set(std::vector<clalgo::Queue>{clalgo::Queue(clalgo_test::context()),
                                                            clalgo::Queue(clalgo_test::context())});
    return set;
}

const std::vector<std::vector<double>> weightings{{1, 1}, {3, 1}, {1, 7}, {1, 0}, {0, 1}};

TEST(SplitCopyIf, KeepsTheIndicesInOrderForEveryWeighting) {
    auto& devices = two_queues();
    // indices past 2^32 too
    const std::int64_t high = std::int64_t(1) << 40;
    for (const clalgo::IndexRange indices : {clalgo::IndexRange{0, 100003, 1}, clalgo::IndexRange{high, high + 77777, 3},
                                             clalgo::IndexRange{0, 0, 1}, clalgo::IndexRange{7, 8, 1}})
        for (const auto& weights : weightings) {
            devices.set_weights(weights);
            clalgo::SelectionOptions options;
            options.value_expr = "2 * i";
            const auto [kept, count] = clalgo::copy_if(devices, indices, "i % 7 == 0 || i % 11 == 3", options);
            std::vector<std::int64_t> expected;
            for (std::int64_t i = indices.start; i < indices.stop; i += indices.step)
                if (i % 7 == 0 || i % 11 == 3) expected.push_back(2 * i);
            const std::int64_t n = count.get(devices.queue(0));
            ASSERT_EQ(n, std::int64_t(expected.size())) << weights[0] << ":" << weights[1];
            EXPECT_EQ(kept.view(0, std::size_t(n)).to_host(devices.queue(0)), expected);
        }
}

TEST(SplitCopyIf, KeepsTheFirstItemsWhereTheCapacityIsSmaller) {
    auto& devices = two_queues();
    devices.set_weights({1, 1});
    clalgo::SelectionOptions options;
    options.capacity = 100;
    const auto [kept, count] = clalgo::copy_if(devices, clalgo::range(0, 10000), "i % 3 == 1", options);
    EXPECT_EQ(count.get(devices.queue(0)), 3333);
    ASSERT_EQ(kept.size(), 100u);
    const auto host = kept.to_host(devices.queue(0));
    for (std::int64_t k = 0; k < 100; ++k) EXPECT_EQ(host[k], 3 * k + 1);
}

TEST(SplitScan, SumsInclusiveAndExclusiveLikeTheHost) {
    auto& devices = two_queues();
    const clalgo::SplitScanKernel<std::int64_t> scan(devices, "long *inclusive, long *exclusive, long start", "i % 13",
                                                     "a + b", "0",
                                                     "inclusive[i - start] = item; exclusive[i - start] = prev_item");
    for (std::int64_t n : {0, 1, 2, 1000, 100003}) {
        for (const auto& weights : weightings) {
            devices.set_weights(weights);
            // each device writes its own part: the parts are split as the range is
            clalgo::SplitArray<std::int64_t> inclusive(devices, std::size_t(n)), exclusive(devices, std::size_t(n));
            scan(clalgo::range(0, n), inclusive, exclusive, clalgo::share_start);
            std::int64_t sum = 0, wrong = 0;
            const auto in = inclusive.to_host(devices), ex = exclusive.to_host(devices);
            for (std::int64_t i = 0; i < n; ++i) {
                wrong += ex[i] != sum;
                sum += i % 13;
                wrong += in[i] != sum;
            }
            EXPECT_EQ(wrong, 0) << weights[0] << ":" << weights[1] << " n " << n;
        }
    }
}

TEST(SplitScan, ComposesANonCommutativeOperatorInOrder) {
    register_affine();
    auto& devices = two_queues();
    const clalgo::SplitScanKernel<Affine> scan(devices, "affine *inclusive, affine *exclusive, long start",
                                               "(affine){(ulong)(i % 5 + 1), (ulong)(i % 7)}",
                                               "(affine){a.mul * b.mul, b.mul * a.add + b.add}", "(affine){1, 0}",
                                               "inclusive[i - start] = item; exclusive[i - start] = prev_item");
    const std::int64_t first = (std::int64_t(1) << 33) + 5, n = 50001;  // indices past 2^32
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        clalgo::SplitArray<Affine> inclusive(devices, std::size_t(n)), exclusive(devices, std::size_t(n));
        scan(clalgo::range(first, first + n), inclusive, exclusive, clalgo::share_start);
        const auto in = inclusive.to_host(devices), ex = exclusive.to_host(devices);
        Affine running{1, 0};
        std::int64_t wrong = 0;
        for (std::int64_t k = 0; k < n; ++k) {
            wrong += !(ex[k] == running);
            running = then(running, affine_at(first + k));
            wrong += !(in[k] == running);
        }
        EXPECT_EQ(wrong, 0) << weights[0] << ":" << weights[1];
    }
}

TEST(SplitScan, RefusesOnePlainOutputArrayOnSeveralDevices) {
    auto& devices = two_queues();
    const clalgo::SplitScanKernel<std::int64_t> scan(devices, "long *out", "i", "a + b", "0", "out[i] = item");
    clalgo::Array<std::int64_t> out(devices.queue(0), 100);
    devices.set_weights({1, 1});
    const std::string message = clalgo_test::message_of<std::invalid_argument>([&] { scan(clalgo::range(0, 100), out); });
    EXPECT_TRUE(clalgo_test::contains(message, "clalgo::SplitScanKernel: kernel 'scan', argument 1 'out'"));
    EXPECT_TRUE(clalgo_test::contains(message, "SplitArray"));
    devices.set_weights({0, 1});  // one device runs: the array is its own
    scan(clalgo::range(0, 100), out);
    const auto host = out.to_host(devices.queue(1));
    for (std::int64_t i = 0; i < 100; ++i) EXPECT_EQ(host[std::size_t(i)], i * (i + 1) / 2);
    devices.set_weights({1, 1});
}

TEST(SplitScan, RejectsWhatItCannotSplit) {
    clalgo::ScanOptions segmented;
    segmented.is_segment_start_expr = "i % 10 == 0";
    EXPECT_THROW(clalgo::SplitScanKernel<int>(two_queues(), "int *out", "1", "a + b", "0", "out[i] = item", segmented),
                 std::invalid_argument);
    EXPECT_THROW(clalgo::SplitScanKernel<int>(two_queues(), "int *out", "1", "a + b", "0", "out[i] = last_item"),
                 std::invalid_argument);
}

}  // namespace
