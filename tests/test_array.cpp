// core/array.hpp: device arrays and views: transfers, fill, copy, clone, views as kernel arguments, moves.
#include "support.hpp"

#include <cstdint>
#include <limits>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

// 12 bytes: not a power of two, so clEnqueueFillBuffer cannot take it as a pattern.
struct Rgb {
    float r, g, b;
};
static_assert(sizeof(Rgb) == 12);

bool operator==(const Rgb& a, const Rgb& b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

void register_rgb() {
    clalgo::register_struct<Rgb>("rgb", "typedef struct { float r; float g; float b; } rgb;",
                                 {CLALGO_FIELD(Rgb, r), CLALGO_FIELD(Rgb, g), CLALGO_FIELD(Rgb, b)});
}

}  // namespace

template <class T>
class ArrayTyped : public ::testing::Test {};
TYPED_TEST_SUITE(ArrayTyped, clalgo_test::ScalarTypes);

TYPED_TEST(ArrayTyped, RoundTripReturnsTheSameValues) {
    using T = TypeParam;
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(12345)}) {
        const auto host = clalgo_test::random_values<T>(n, n);
        auto device = clalgo::to_device(queue(), host);
        EXPECT_EQ(device.size(), n);
        EXPECT_EQ(device.bytes(), n * sizeof(T));
        EXPECT_EQ(device.to_host(queue()), host) << "n=" << n;
    }
}

TYPED_TEST(ArrayTyped, FillSetsEveryElement) {
    using T = TypeParam;
    const T value = T(7);
    auto array = clalgo::to_device(queue(), clalgo_test::random_values<T>(1001));  // not what the fill writes
    array.fill(queue(), value).wait();
    EXPECT_EQ(array.to_host(queue()), std::vector<T>(1001, value));
}

TEST(Array, RoundTripOfVectorTypeKeepsEveryComponent) {
    std::vector<cl_float4> host(257);
    const auto values = clalgo_test::random_values<float>(host.size() * 4);
    std::memcpy(host.data(), values.data(), values.size() * sizeof(float));
    const auto back = clalgo::to_device(queue(), host).to_host(queue());
    ASSERT_EQ(back.size(), host.size());
    EXPECT_EQ(std::memcmp(back.data(), host.data(), host.size() * sizeof(cl_float4)), 0);
}

TEST(Array, EmptyArrayHasNoBufferAndEveryOperationIsANoOp) {
    clalgo::Array<float> empty(queue(), 0);
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.size(), 0u);
    EXPECT_EQ(empty.buffer()(), nullptr);
    EXPECT_TRUE(empty.to_host(queue()).empty());
    empty.write(queue(), std::vector<float>{});
    empty.fill(queue(), 1.0f).wait();
    clalgo::Array<float> other(queue(), 0);
    empty.copy_to(queue(), other).wait();
    auto copy = empty.clone(queue());
    EXPECT_TRUE(copy.empty());
    EXPECT_EQ(copy.buffer()(), nullptr);
    EXPECT_TRUE(empty.view(0, 0).empty());
    EXPECT_THROW(empty.read_at(queue(), 0), std::out_of_range);
    EXPECT_TRUE(clalgo::to_device(queue(), std::vector<int>{}).empty());
    EXPECT_TRUE(clalgo::Array<double>().empty());
}

TEST(Array, FillOfStructWhoseSizeIsNotAPowerOfTwoSetsEveryElement) {
    register_rgb();
    const std::size_t n = 200003;  // more than one 1 MiB block of the fallback's writes
    const Rgb value{0.5f, -2.0f, 3.25f};
    clalgo::Array<Rgb> array(queue(), n);
    array.fill(queue(), value).wait();
    const auto host = array.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) ASSERT_TRUE(host[k] == value) << k;

    // the device reads the filled elements as the registered struct
    clalgo::ElementwiseKernel weigh(context(), "const rgb *colour, float *out",
                                    "out[i] = colour[i].r + 2.0f * colour[i].g + 4.0f * colour[i].b");
    clalgo::Array<float> out(queue(), n);
    weigh(queue(), array, out);
    const auto weights = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(weights[k], value.r + 2.0f * value.g + 4.0f * value.b) << k;
}

TEST(Array, FillOfViewTouchesOnlyItsRange) {
    register_rgb();
    for (std::size_t n : {std::size_t(100), std::size_t(100001)}) {
        const std::size_t first = 7, length = n / 2;
        const Rgb outside{1, 2, 3}, inside{-1, -2, -3};
        clalgo::Array<Rgb> colours(queue(), n);
        colours.fill(queue(), outside);
        colours.view(first, length).fill(queue(), inside);
        clalgo::Array<int> numbers(queue(), n);
        numbers.fill(queue(), -1);
        numbers.view(first, length).fill(queue(), 9);
        const auto host_colours = colours.to_host(queue());
        const auto host_numbers = numbers.to_host(queue());
        for (std::size_t k = 0; k < n; ++k) {
            const bool in_view = k >= first && k < first + length;
            ASSERT_TRUE(host_colours[k] == (in_view ? inside : outside)) << "n=" << n << " k=" << k;
            ASSERT_EQ(host_numbers[k], in_view ? 9 : -1) << "n=" << n << " k=" << k;
        }
    }
}

TEST(Array, CopyToCopiesBetweenArraysAndBetweenViewsWithOffsets) {
    const auto source_host = clalgo_test::random_values<int>(500, 1);
    const auto target_host = clalgo_test::random_values<int>(600, 2);
    auto source = clalgo::to_device(queue(), source_host);
    auto whole = clalgo::Array<int>(queue(), source.size());
    source.copy_to(queue(), whole);
    EXPECT_EQ(whole.to_host(queue()), source_host);

    auto target = clalgo::to_device(queue(), target_host);
    source.view(10, 100).copy_to(queue(), target.view(250, 100));
    auto expected = target_host;
    std::copy(source_host.begin() + 10, source_host.begin() + 110, expected.begin() + 250);
    EXPECT_EQ(target.to_host(queue()), expected);
}

TEST(Array, CopyToOrWriteOfAnotherSizeThrows) {
    clalgo::Array<int> a(queue(), 10), b(queue(), 11);
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { a.copy_to(queue(), b); }), "10"));
    EXPECT_THROW(a.write(queue(), std::vector<int>(9)), std::invalid_argument);
}

TEST(Array, CloneIsAnIndependentCopy) {
    const auto host = clalgo_test::random_values<float>(300);
    auto original = clalgo::to_device(queue(), host);
    auto copy = original.clone(queue());
    original.fill(queue(), 42.0f);
    EXPECT_EQ(copy.to_host(queue()), host);
    EXPECT_NE(copy.buffer()(), original.buffer()());

    auto tail = clalgo::to_device(queue(), host).view(100, 50).clone(queue());
    EXPECT_EQ(tail.offset(), 0u);
    EXPECT_EQ(tail.to_host(queue()), std::vector<float>(host.begin() + 100, host.begin() + 150));
}

TEST(Array, ViewOutOfRangeThrowsOutOfRange) {
    clalgo::Array<int> array(queue(), 10);
    EXPECT_NO_THROW(array.view(10, 0));
    EXPECT_NO_THROW(array.view(0, 10));
    EXPECT_THROW(array.view(5, 6), std::out_of_range);
    EXPECT_THROW(array.view(11, 0), std::out_of_range);
    EXPECT_THROW(array.view(1, std::size_t(-1)), std::out_of_range);
    EXPECT_THROW(array.view(2, 6).view(3, 4), std::out_of_range);
    EXPECT_THROW(array.read_at(queue(), 10), std::out_of_range);
}

TEST(Array, ViewOfViewAddsOffsetsAndReadsTheRightElements) {
    const auto host = clalgo_test::random_values<std::int64_t>(100);
    auto array = clalgo::to_device(queue(), host);
    const auto inner = array.view(20, 50).view(5, 10);
    EXPECT_EQ(inner.offset(), 25u);
    EXPECT_EQ(inner.size(), 10u);
    EXPECT_EQ(inner.to_host(queue()), std::vector<std::int64_t>(host.begin() + 25, host.begin() + 35));
    for (std::size_t k : {std::size_t(0), std::size_t(9)}) EXPECT_EQ(inner.read_at(queue(), k), host[25 + k]);
}

TEST(Array, ReadAtReturnsEachElement) {
    const auto host = clalgo_test::random_values<double>(64);
    auto array = clalgo::to_device(queue(), host);
    for (std::size_t k = 0; k < host.size(); k += 7) EXPECT_EQ(array.read_at(queue(), k), host[k]) << k;
}

TEST(Array, KernelWritingIntoViewTouchesOnlyThatRange) {
    clalgo::ElementwiseKernel mark(context(), "int *out", "out[i] = (int)i");
    const std::size_t n = 1000, first = 123, length = 456;
    clalgo::Array<int> out(queue(), n);
    out.fill(queue(), -1);
    mark(queue(), out.view(first, length));
    const auto host = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        const bool in_view = k >= first && k < first + length;
        ASSERT_EQ(host[k], in_view ? int(k - first) : -1) << k;
    }
}

TEST(Array, KernelReadingThroughViewsWithOffsetsSeesTheRightElements) {
    clalgo::ElementwiseKernel add(context(), "const float *a, const float *b, float *sum", "sum[i] = a[i] + b[i]");
    const auto ha = clalgo_test::random_values<float>(1000, 1), hb = clalgo_test::random_values<float>(800, 2);
    auto a = clalgo::to_device(queue(), ha);
    auto b = clalgo::to_device(queue(), hb);
    clalgo::Array<float> sum(queue(), 300);
    add(queue(), a.view(600, 300), b.view(17, 300), sum);
    const auto host = sum.to_host(queue());
    for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(host[k], ha[600 + k] + hb[17 + k]) << k;
}

TEST(Array, MovedFromArrayIsEmptyAndTheTargetOwnsTheData) {
    const auto host = clalgo_test::random_values<int>(50);
    auto source = clalgo::to_device(queue(), host);
    const cl_mem buffer = source.buffer()();
    clalgo::Array<int> moved(std::move(source));
    EXPECT_TRUE(source.empty());
    EXPECT_EQ(source.buffer()(), nullptr);
    EXPECT_EQ(moved.buffer()(), buffer);
    EXPECT_EQ(moved.to_host(queue()), host);

    clalgo::Array<int> assigned(queue(), 5);
    assigned = std::move(moved);
    EXPECT_TRUE(moved.empty());
    EXPECT_EQ(moved.buffer()(), nullptr);
    EXPECT_EQ(assigned.size(), host.size());
    EXPECT_EQ(assigned.to_host(queue()), host);
}

TEST(Array, ViewKeepsTheBufferAliveAfterTheArrayIsGone) {
    const auto host = clalgo_test::random_values<int>(40);
    clalgo::ArrayView<int> view;
    {
        auto array = clalgo::to_device(queue(), host);
        view = array.view(10, 20);
    }
    EXPECT_EQ(view.to_host(queue()), std::vector<int>(host.begin() + 10, host.begin() + 30));
}

TEST(Array, AllocationBeyondTheDeviceLimitThrowsDeviceMemoryErrorNamingTheSize) {
    const std::size_t too_many = queue().info().max_allocation_bytes / sizeof(std::uint8_t) + 1;
    const std::string message =
        message_of<clalgo::DeviceMemoryError>([&] { clalgo::Array<std::uint8_t> huge(queue(), too_many); });
    EXPECT_TRUE(contains(message, std::to_string(too_many)));
    EXPECT_TRUE(contains(message, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
    EXPECT_TRUE(contains(message, queue().info().name));
}

TEST(IndexRange, SizesAreExactAcrossTheWhole64BitRangeAndMisuseThrows) {
    constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();
    // counted independently: the indices lowest + k * 2^62 below highest are k = 0, 1, 2, 3
    std::int64_t expected = 0;
    for (__int128 i = lowest; i < highest; i += (__int128(1) << 62)) ++expected;
    EXPECT_EQ(clalgo::range(lowest, highest, std::int64_t(1) << 62).size(), expected);
    EXPECT_EQ(clalgo::range(10, 0, lowest).size(), 1);
    EXPECT_EQ(clalgo::range(highest, lowest, -(std::int64_t(1) << 62)).size(), 4);
    EXPECT_EQ(clalgo::range(0, highest).size(), highest);
    EXPECT_EQ(clalgo::range(-5, 5, 3).size(), 4);   // -5, -2, 1, 4
    EXPECT_EQ(clalgo::range(5, -5, -3).size(), 4);  // 5, 2, -1, -4
    EXPECT_EQ(clalgo::range(3, 3).size(), 0);
    EXPECT_EQ(clalgo::range(3, 2).size(), 0);
    EXPECT_THROW(clalgo::range(lowest, highest).size(), std::overflow_error);
    EXPECT_THROW(clalgo::range(0, 1, 0), std::invalid_argument);
    const clalgo::IndexRange no_step{10, 0, 0};
    EXPECT_THROW(no_step.size(), std::invalid_argument);
}
