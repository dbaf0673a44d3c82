// DeviceSet: ranges split across the devices of a set, results combined in device order. The set is the device's
// two sub-devices (clCreateSubDevices) where the platform gives a context over them, else two queues on the one
// device (PoCL 3.1: its context over two sub-devices reports one device).
#include "support.hpp"

#include <clalgo/multi/device_set.hpp>
#include <clalgo/multi/split_array.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using clalgo::IndexRange;

/// An affine map x -> mul * x + add (mod 2^64); composing them is associative but not commutative.
using clalgo_test::Affine;
using clalgo_test::register_affine;
using clalgo_test::then;

Affine affine_at(std::int64_t i) { return {std::uint64_t(i % 5 + 2), std::uint64_t(i % 7)}; }

/// Two devices: the device's two halves where the platform can, else two queues on it.
clalgo::DeviceSet& two_devices() {
    static clalgo::DeviceSet set = [] {
        const cl::Device& device = clalgo_test::context().device();
        try {
            if (device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>() >= 2) return clalgo::DeviceSet::sub_devices(device, 2);
        } catch (const std::exception&) {
        }
        return clalgo::DeviceSet(std::vector<clalgo::Queue>{clalgo::Queue(clalgo_test::context()),
                                                            clalgo::Queue(clalgo_test::context())});
    }();
    return set;
}

const std::vector<std::vector<double>> weightings{{1, 1}, {3, 1}, {1, 7}, {1, 0}, {0, 1}};

TEST(DeviceSet, SplitsRangesIntoConsecutiveSharesInProportion) {
    const std::vector<IndexRange> ranges{{0, 1000, 1}, {5, 1006, 3}, {100, -7, -4}, {0, 0, 1}, {0, 1, 1},
                                         {-(std::int64_t(1) << 62), (std::int64_t(1) << 62) - 1, 1}};
    for (const auto& indices : ranges)
        for (const auto& weights : std::vector<std::vector<double>>{{1}, {1, 1}, {3, 1}, {0, 1, 0}, {1, 2, 3, 0}}) {
            const auto shares = clalgo::detail::split_range(indices, weights);
            ASSERT_EQ(shares.size(), weights.size());
            // the shares' indices, one after another, are the range's
            std::int64_t expected = indices.start, count = 0;
            double total = 0;
            for (double w : weights) total += w;
            for (std::size_t d = 0; d < shares.size(); ++d) {
                const std::int64_t size = shares[d].size();
                if (size > 0) {
                    EXPECT_EQ(shares[d].start, expected);
                }
                EXPECT_EQ(shares[d].step, indices.step);
                const double exact = double(indices.size()) * weights[d] / total;
                EXPECT_LE(std::abs(double(size) - exact), 1.0 + exact * 1e-5) << d;
                if (weights[d] == 0) {
                    EXPECT_EQ(size, 0);
                }
                expected = std::int64_t(std::uint64_t(expected) + std::uint64_t(size) * std::uint64_t(indices.step));
                count += size;
            }
            EXPECT_EQ(count, indices.size());
        }
    EXPECT_THROW(clalgo::detail::split_range({0, 10, 1}, {0, 0}), std::invalid_argument);
    EXPECT_THROW(clalgo::detail::split_range({0, 10, 1}, {1, -1}), std::invalid_argument);
    EXPECT_THROW(two_devices().set_weights({1, 1, 1}), std::invalid_argument);
}

TEST(DeviceSet, ReducesEveryWeightingLikeTheHost) {
    auto& devices = two_devices();
    ASSERT_EQ(devices.size(), 2u);
    const clalgo::ReductionKernel<std::int64_t> sum(devices.context(), "0", "a + b", "(i % 1000) * (i & 3)", "");
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        for (const IndexRange indices : {IndexRange{0, 0, 1}, IndexRange{0, 1, 1}, IndexRange{3, 1000003, 1},
                                         IndexRange{1000000, -5, -3}}) {
            std::int64_t expected = 0;
            for (std::int64_t k = 0; k < indices.size(); ++k) {
                const std::int64_t i = indices.start + k * indices.step;
                expected += (i % 1000) * (i & 3);
            }
            EXPECT_EQ(devices.reduce(sum, indices), expected) << weights[0] << ":" << weights[1] << " n " << indices.size();
        }
    }
}

TEST(DeviceSet, ReducesArraysOverARangeLikeTheHost) {
    auto& devices = two_devices();
    const std::size_t n = 200003;
    const auto x = clalgo_test::random_values<std::int32_t>(n, 1), y = clalgo_test::random_values<std::int32_t>(n, 2);
    auto x_device = clalgo::to_device(devices.queue(0), x), y_device = clalgo::to_device(devices.queue(0), y);
    const clalgo::ReductionKernel<std::int64_t> dot(devices.context(), "0", "a + b", "(long)x[i] * y[i]",
                                                    "const int *x, const int *y");
    std::int64_t expected = 0;
    for (std::size_t i = 1; i < n; i += 2) expected += std::int64_t(x[i]) * y[i];
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        EXPECT_EQ(devices.reduce(dot, clalgo::range(1, std::int64_t(n), 2), x_device, y_device), expected);
    }
}

TEST(DeviceSet, KeepsTheOrderOfANonCommutativeOperator) {
    register_affine();
    auto& devices = two_devices();
    const clalgo::ReductionKernel<Affine> compose(devices.context(), "(affine){1, 0}",
                                                  "(affine){a.mul * b.mul, b.mul * a.add + b.add}",
                                                  "(affine){(ulong)(i % 5 + 2), (ulong)(i % 7)}", "");
    // a ReductionKernel may combine items in any order within a device (its contract); across devices the order
    // is kept: with one item a device, the result is the ordered product
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        for (std::int64_t n : {1, 2}) {
            Affine expected{1, 0};
            for (std::int64_t i = 0; i < n; ++i) expected = then(expected, affine_at(i));
            EXPECT_EQ(devices.reduce(compose, clalgo::range(0, n)), expected) << weights[0] << ":" << weights[1] << " n " << n;
        }
    }
    // the combination alone, on more partials than one work-item sees
    std::vector<Affine> partials;
    Affine expected{1, 0};
    for (std::int64_t i = 0; i < 5000; ++i) expected = then(expected, partials.emplace_back(affine_at(i * 13)));
    EXPECT_EQ(clalgo::detail::combine_in_order(devices.queue(0), partials, "(affine){1, 0}",
                                               "(affine){a.mul * b.mul, b.mul * a.add + b.add}", "", ""),
              expected);
}

TEST(DeviceSet, CountsOverARangePast2To32) {
    auto& devices = two_devices();
    devices.set_weights({1, 1});
    const clalgo::ReductionKernel<std::int64_t> count(devices.context(), "0", "a + b", "i % 7 == 3 ? 1 : 0", "");
    const std::int64_t start = 5, stop = start + (std::int64_t(1) << 33);
    // i % 7 == 3 for i = 3 + 7k, start <= i < stop
    auto below = [](std::int64_t x) { return x <= 3 ? 0 : (x - 3 + 6) / 7; };  // how many 3 + 7k < x, k >= 0
    EXPECT_EQ(devices.reduce(count, clalgo::range(start, stop)), below(stop) - below(start));
}

TEST(DeviceSet, RunsAnElementwiseKernelOverEveryShareIntoItsOwnPart) {
    auto& devices = two_devices();
    const clalgo::ElementwiseKernel mark(devices.context(), "long *out, long start", "out[i - start] = 3 * i + 1");
    const std::int64_t n = 100003;
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        clalgo::SplitArray<std::int64_t> out(devices, std::size_t(n));  // split as the range is, by the weights
        devices.run(mark, clalgo::range(0, n), out, clalgo::share_start);
        const auto host = out.to_host(devices);
        std::int64_t wrong = 0;
        for (std::int64_t i = 0; i < n; ++i) wrong += host[i] != 3 * i + 1;
        EXPECT_EQ(wrong, 0) << weights[0] << ":" << weights[1];
    }
}

TEST(DeviceSet, CombinesOnTheHostOnlyThePlainForms) {
    using clalgo::detail::HostOperator;
    using clalgo::detail::host_operator;
    EXPECT_EQ(host_operator<std::int64_t>("a + b"), HostOperator::sum);
    EXPECT_EQ(host_operator<double>(" b+a "), HostOperator::sum);
    EXPECT_EQ(host_operator<float>("fmax(a, b)"), HostOperator::max);
    EXPECT_EQ(host_operator<std::int32_t>("min(b,a)"), HostOperator::min);
    for (const char* other : {"a - b", "a + b + 1", "a * b", "max(a, b) + 0", "(a + b)", "a+bb", "fmin(a,c)"})
        EXPECT_EQ(host_operator<std::int64_t>(other), HostOperator::none) << other;
    EXPECT_EQ(host_operator<cl_long2>("a + b"), HostOperator::none);  // vectors go to the device
}

TEST(DeviceSet, CombinesSumsMinimaAndMaximaOfEveryShareInOrder) {
    auto& devices = two_devices();
    const std::int64_t n = 100003;
    // unsigned sums wrap, as on the device; minima and maxima of floats and integers, in their spellings
    const clalgo::ReductionKernel<std::uint32_t> wrapping(devices.context(), "0", "a + b", "(uint)i * 2654435761u", "");
    const clalgo::ReductionKernel<float> largest(devices.context(), "-INFINITY", "fmax(a, b)",
                                                 "(float)((i * 7919) % 1000) - 500.0f", "");
    const clalgo::ReductionKernel<std::int32_t> smallest(devices.context(), "INT_MAX", "min(b,a)",
                                                         "(int)((i * 7919) % 100003) - 50000", "");
    std::uint32_t sum = 0;
    float most = -INFINITY;
    std::int32_t least = INT32_MAX;
    for (std::int64_t i = 0; i < n; ++i) {
        sum += std::uint32_t(i) * 2654435761u;
        most = std::max(most, float((i * 7919) % 1000) - 500.0f);
        least = std::min(least, std::int32_t((i * 7919) % 100003) - 50000);
    }
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        EXPECT_EQ(devices.reduce(wrapping, clalgo::range(0, n)), sum) << weights[0] << ":" << weights[1];
        EXPECT_EQ(devices.reduce(largest, clalgo::range(0, n)), most) << weights[0] << ":" << weights[1];
        EXPECT_EQ(devices.reduce(smallest, clalgo::range(0, n)), least) << weights[0] << ":" << weights[1];
    }
    devices.set_weights({1, 1});
}

TEST(DeviceSet, RefusesOnePlainArrayThatSeveralDevicesWouldWrite) {
    auto& devices = two_devices();
    const clalgo::ElementwiseKernel mark(devices.context(), "const long *in, long *out", "out[i] = in[i] + 1");
    // out is declared without const: the kernel may write it
    const clalgo::ReductionKernel<std::int64_t> sum(devices.context(), "0", "a + b", "in[i] + out[i]",
                                                    "const long *in, long *out");
    const std::int64_t n = 1000;
    clalgo::Array<std::int64_t> in(devices.queue(0), n), out(devices.queue(0), n);
    in.fill(devices.queue(0), 4);
    devices.queue(0).finish();
    devices.set_weights({1, 1});
    const std::string run = clalgo_test::message_of<std::invalid_argument>(
        [&] { devices.run(mark, clalgo::range(0, n), in, out); });
    for (const char* part : {"clalgo::DeviceSet::run", "kernel 'elementwise'", "argument 2 'out'", "long *",
                             "2 devices", "SplitArray", "share_start"})
        EXPECT_TRUE(clalgo_test::contains(run, part)) << part << " in: " << run;
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>(
                                          [&] { devices.reduce(sum, clalgo::range(0, n), in, out); }),
                                      "clalgo::DeviceSet::reduce: kernel 'reduce', argument 2 'out'"));
    // with one device running, one array is that device's own (and a const one may be read by every device)
    devices.set_weights({1, 0});
    out.fill(devices.queue(0), 0);
    devices.run(mark, clalgo::range(0, n), in, out);
    EXPECT_EQ(out.to_host(devices.queue(0)), std::vector<std::int64_t>(std::size_t(n), 5));
    devices.set_weights({1, 1});
}

TEST(DeviceSet, RunsWorkOnEachDeviceWithItsShareAndWaits) {
    auto& devices = two_devices();
    const clalgo::ElementwiseKernel mark(devices.context(), "long *out, long start", "out[i - start] = 2 * i");
    for (const auto& weights : weightings) {
        devices.set_weights(weights);
        const std::int64_t n = 10007;
        const auto shares = devices.split(clalgo::range(0, n));
        std::vector<std::size_t> sizes;
        for (const auto& share : shares) sizes.push_back(std::size_t(share.size()));
        auto parts = clalgo::SplitArray<std::int64_t>::with_part_sizes(devices, sizes);
        std::vector<std::size_t> called;
        devices.each(clalgo::range(0, n), [&](std::size_t d, const clalgo::Queue& queue, clalgo::IndexRange share) {
            EXPECT_EQ(queue.get()(), devices.queue(d).get()());
            EXPECT_EQ(share.start, shares[d].start);
            EXPECT_GT(share.size(), 0);
            called.push_back(d);
            mark(queue, share, parts.part(d), share.start);
        });
        std::vector<std::size_t> expected;
        for (std::size_t d = 0; d < shares.size(); ++d)
            if (shares[d].size() > 0) expected.push_back(d);
        EXPECT_EQ(called, expected);
        const auto host = parts.to_host(devices);
        std::int64_t wrong = 0;
        for (std::int64_t i = 0; i < n; ++i) wrong += host[std::size_t(i)] != 2 * i;
        EXPECT_EQ(wrong, 0) << weights[0] << ":" << weights[1];
    }
}

TEST(DeviceSet, CalibratesItsWeightsToTheMeasuredSpeeds) {
    clalgo::DeviceSet devices(std::vector<clalgo::Queue>{clalgo_test::queue(), clalgo::Queue(clalgo_test::context())});
    const clalgo::ReductionKernel<std::int64_t> sum(devices.context(), "0", "a + b", "i & 1", "");
    std::vector<std::int64_t> seen;
    devices.calibrate([&](const clalgo::Queue& queue, clalgo::IndexRange indices) {
        seen.push_back(sum(queue, indices));  // blocks until done
    }, 1 << 20);
    EXPECT_EQ(seen, std::vector<std::int64_t>(4, 1 << 19));  // a warm-up and a timed run on each device
    ASSERT_EQ(devices.weights().size(), 2u);
    for (double weight : devices.weights()) EXPECT_GT(weight, 0);
    EXPECT_EQ(devices.reduce(sum, clalgo::range(0, 1000001)), 500000);
}

TEST(DeviceSet, TakesEveryDeviceOfAContext) {
    clalgo::DeviceSet devices(clalgo_test::context());
    EXPECT_EQ(devices.size(), clalgo_test::context().devices().size());
    EXPECT_EQ(devices.weights()[0], double(clalgo_test::queue().info().compute_units));
}

TEST(DeviceSet, OneQueueIsTheSingleDeviceCall) {
    clalgo::DeviceSet one(std::vector<clalgo::Queue>{clalgo_test::queue()});
    const clalgo::ReductionKernel<std::int64_t> sum(one.context(), "0", "a + b", "i", "");
    EXPECT_EQ(one.reduce(sum, clalgo::range(0, 1000)), 499500);
    EXPECT_EQ(one.weights().size(), 1u);
}

TEST(DeviceSet, TakesTheDevicesCLALGO_DEVICEListsAndTheDefaultIsTheFirst) {
    const char* before = std::getenv("CLALGO_DEVICE");
    const std::string saved = before ? before : "";
    ::setenv("CLALGO_DEVICE", "0:0,0:0", 1);
    const auto set = clalgo::DeviceSet::from_environment();
    const cl::Device first = clalgo::detail::default_device();
    if (before) {
        ::setenv("CLALGO_DEVICE", saved.c_str(), 1);
    } else {
        ::unsetenv("CLALGO_DEVICE");
    }
    EXPECT_EQ(set.size(), 2u);
    EXPECT_EQ(first(), clalgo::detail::select_device("0:0")());
}

TEST(DeviceSet, SplitsADeviceIntoSubDevicesOrSaysWhyNot) {
    const cl::Device& device = clalgo_test::context().device();
    const unsigned units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    EXPECT_TRUE(clalgo_test::contains(
        clalgo_test::message_of<std::invalid_argument>([&] { clalgo::DeviceSet::sub_devices(device, units + 1); }),
        "into " + std::to_string(units + 1)));
    if (units < 2) GTEST_SKIP() << "one compute unit";
    try {
        const auto halves = clalgo::DeviceSet::sub_devices(device, 2);
        EXPECT_EQ(halves.size(), 2u);
    } catch (const clalgo::Error& error) {
        // PoCL 3.1: its context over the sub-devices reports one device
        EXPECT_TRUE(clalgo_test::contains(error.what(), "sub-devices"));
    }
}

TEST(DeviceSet, NamesADeviceTwiceForTwoQueues) {
    auto set = clalgo::DeviceSet::from_spec("0:0,0:0");
    ASSERT_EQ(set.size(), 2u);
    set.set_weights({2, 1});
    const clalgo::ReductionKernel<std::int64_t> sum(set.context(), "0", "a + b", "i", "");
    EXPECT_EQ(set.reduce(sum, clalgo::range(0, 100000)), std::int64_t(100000) * 99999 / 2);
    EXPECT_THROW(clalgo::DeviceSet::from_spec("0:0,99:0"), std::invalid_argument);
}

}  // namespace
