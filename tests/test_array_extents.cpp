// Every array whose extent a call knows is checked before anything is enqueued, always (not only in checked
// mode): a too-short array in each call family is refused with std::invalid_argument naming the call, the
// argument and both sizes, and nothing is written. Outputs whose room is theirs to choose (copy_if's, the by-key
// calls') are written up to their room, with the count exact.
#include "support.hpp"

namespace {

using clalgo::Array;
using clalgo_test::contains;
using clalgo_test::message_of;
using clalgo_test::queue;

/// Passes where `message` holds every one of `parts`.
::testing::AssertionResult says(const std::string& message, std::initializer_list<std::string> parts) {
    for (const auto& part : parts)
        if (message.find(part) == std::string::npos)
            return ::testing::AssertionFailure() << "\"" << part << "\" is not in:\n" << message;
    return ::testing::AssertionSuccess();
}

template <class T>
Array<T> filled(std::size_t n, T value) {
    return clalgo::to_device(queue(), std::vector<T>(n, value));
}

TEST(ArrayExtents, ElementwiseKernelRefusesAnArrayShorterThanTheIndicesItIsWrittenAt) {
    clalgo::ElementwiseKernel copy(clalgo_test::context(), "const float *x, float *y", "y[i] = x[i]");
    const auto x = filled<float>(10, 1.0f);
    auto y = filled<float>(7, 5.0f);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { copy(queue(), x, y); }),
                     {"kernel 'elementwise'", "argument 2 'y'", "for i in [0, 9]", "it has 7 elements"}));
    EXPECT_EQ(y.to_host(queue()), std::vector<float>(7, 5.0f));  // nothing written
}

TEST(ArrayExtents, ReductionKernelRefusesASecondArrayShorterThanTheFirst) {
    clalgo::ReductionKernel<float> dot(clalgo_test::context(), "0", "a+b", "x[i]*y[i]", "const float *x, const float *y");
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { dot(queue(), filled<float>(100, 1), filled<float>(99, 1)); }),
                     {"kernel 'reduce'", "argument 2 'y'", "for i in [0, 99]", "it has 99 elements"}));
    const Array<float> two(queue(), 2);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { dot.into(queue(), two, filled<float>(3, 1), filled<float>(3, 1)); }),
                     {"reduce.into", "one element, not 2"}));
}

TEST(ArrayExtents, ScansRefuseAnOutputShorterThanTheInputAndATotalOfOtherThanOneElement) {
    clalgo::InclusiveScanKernel<std::int32_t> scan(clalgo_test::context(), "a+b", "0");
    const auto in = filled<std::int32_t>(50, 1);
    auto out = filled<std::int32_t>(49, 0);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { scan(queue(), in, out); }),
                     {"kernel 'inclusive_scan'", "'output' has 49 elements but 'input' has 50"}));
    EXPECT_EQ(out.to_host(queue()), std::vector<std::int32_t>(49, 0));
    auto total = filled<std::int32_t>(2, 0);
    auto full = filled<std::int32_t>(50, 0);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { scan.with_total(queue(), in, full, total); }),
                     {"inclusive_scan", "'total' has 2 elements but must have one"}));
}

TEST(ArrayExtents, HistogramKernelAndTheListBuilderRefuseArraysShorterThanTheirRange) {
    clalgo::HistogramKernel<std::uint32_t> digits(clalgo_test::context(), "const int *x", "x[i] % 10");
    auto bins = filled<std::uint32_t>(10, 0);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { digits(queue(), bins, filled<std::int32_t>(5, 1), clalgo::range(0, 8)); }),
                     {"kernel 'histogram'", "argument 1 'x'", "for i in [0, 7]", "it has 5 elements"}));
    clalgo::ListOfListsBuilder lists(clalgo_test::context(), {{"kept", "int"}}, "if (x[i] > 0) APPEND_kept(x[i]);", "const int *x");
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { lists(queue(), filled<std::int32_t>(5, 1), clalgo::range(2, 9)); }),
                     {"kernel 'build_lists'", "argument 1 'x'", "for i in [2, 8]", "it has 5 elements"}));
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] {
                         clalgo::ListOfListsBuilder(clalgo_test::context(), {{"a", "int"}, {"a", "long"}}, "APPEND_a(1);", "");
                     }),
                     {"ListOfListsBuilder 'build_lists'", "two lists are named 'a'"}));
}

TEST(ArrayExtents, RawKernelsRefuseArraysShorterThanTheExtentTheirParametersDeclare) {
    clalgo::RawProgram program(clalgo_test::context(),
                               "__kernel void first_four(__global const int values[4], __global int out[0x4],\n"
                               "                         __local int scratch[8u]) {\n"
                               "    const int k = get_global_id(0);\n"
                               "    scratch[k] = values[k];\n"
                               "    out[k] = 2 * scratch[k];\n"
                               "}\n");
    const auto kernel = program.kernel("first_four");
    EXPECT_EQ(kernel.parameters()[0].extent, 4u);
    EXPECT_EQ(kernel.parameters()[1].extent, 4u);
    EXPECT_EQ(kernel.parameters()[2].extent, 8u);
    const auto values = clalgo::to_device(queue(), std::vector<std::int32_t>{1, 2, 3, 4, 5});
    auto out = filled<std::int32_t>(4, 0);
    kernel(queue(), 4, 4, values, out, clalgo::local_memory<std::int32_t>(8));
    EXPECT_EQ(out.to_host(queue()), (std::vector<std::int32_t>{2, 4, 6, 8}));
    auto short_out = filled<std::int32_t>(3, 0);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] {
                         kernel(queue(), 4, 4, values, short_out, clalgo::local_memory<std::int32_t>(8));
                     }),
                     {"kernel 'first_four'", "argument 2 'out'", "the Array<int> has 3 elements, fewer than the 4 it declares"}));
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] {
                         kernel(queue(), 4, 4, values, out, clalgo::local_memory<std::int32_t>(7));
                     }),
                     {"kernel 'first_four'", "argument 3 'scratch'", "local_memory of 28 bytes", "the 32 bytes of its 8 elements"}));
    EXPECT_EQ(short_out.to_host(queue()), std::vector<std::int32_t>(3, 0));
    // extents a macro or an expression spells are not read
    EXPECT_EQ(clalgo::detail::declared_extent("N"), 0u);
    EXPECT_EQ(clalgo::detail::declared_extent("2 * 3"), 0u);
    EXPECT_EQ(clalgo::detail::declared_extent(" 010 "), 8u);
}

TEST(ArrayExtents, SelectionsRefuseACountOfOtherThanOneElementAndWriteNoFurtherThanTheirOutput) {
    const auto input = clalgo::to_device(queue(), std::vector<std::int32_t>{5, 1, 7, 2, 9});
    auto output = filled<std::int32_t>(2, -1);
    auto count = filled<std::int64_t>(2, 0);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { clalgo::copy_if(queue(), input, output, count, "ary[i] > 4"); }),
                     {"copy_if", "'count' has 2 elements but must have one"}));
    auto one = filled<std::int64_t>(1, 0);
    clalgo::copy_if(queue(), input, output, one, "ary[i] > 4");
    EXPECT_EQ(one.to_host(queue())[0], 3);                                    // every kept item is counted
    EXPECT_EQ(output.to_host(queue()), (std::vector<std::int32_t>{5, 7}));    // as many as there is room for
}

TEST(ArrayExtents, ByKeyCallsRefuseValuesOutputsAndCountsOfTheWrongSize) {
    const auto keys = clalgo::to_device(queue(), std::vector<std::int32_t>{1, 1, 2, 3, 3});
    const auto values = filled<float>(4, 1.0f);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { clalgo::reduce_by_key(queue(), keys, values, "a+b", "0"); }),
                     {"clalgo::reduce_by_key", "'keys' has 5 elements but 'values' has 4"}));
    const auto five = filled<float>(5, 1.0f);
    auto keys_out = filled<std::int32_t>(3, 0);
    auto values_out = filled<float>(2, 0.0f);
    auto count = filled<std::int64_t>(1, 0);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] {
                         clalgo::reduce_by_key(queue(), keys, five, keys_out, values_out, count, "a+b", "0");
                     }),
                     {"clalgo::reduce_by_key", "'keys_out' has 3 elements but 'values_out' has 2"}));
    auto no_count = Array<std::int64_t>();
    auto sums = filled<float>(3, 0.0f);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] {
                         clalgo::unique_by_key(queue(), keys, five, keys_out, sums, no_count);
                     }),
                     {"clalgo::unique_by_key", "'count' has 0 elements but must have one"}));
    clalgo::reduce_by_key(queue(), keys, five, keys_out, sums, count, "a+b", "0");
    EXPECT_EQ(count.to_host(queue())[0], 3);
    EXPECT_EQ(sums.to_host(queue()), (std::vector<float>{2, 1, 2}));
}

TEST(ArrayExtents, SegmentedReduceAndHistogramRefuseOutputsOfTheWrongSize) {
    const auto values = filled<float>(10, 1.0f);
    const auto offsets = clalgo::to_device(queue(), std::vector<std::int64_t>{0, 4, 10});
    auto out = filled<float>(1, 0.0f);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { clalgo::segmented_reduce(queue(), values, offsets, out, "a+b", "0"); }),
                     {"clalgo::segmented_reduce", "'out' has 1 elements but 'offsets' describes 2 segments"}));
    Array<std::uint32_t> no_bins;
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { clalgo::histogram(queue(), values, no_bins, {0, 1}); }),
                     {"clalgo::histogram", "'bins' has no elements"}));
}

TEST(ArrayExtents, SortsByKeyAndArrayAlgorithmsRefuseArraysOfDifferentSizes) {
    auto keys = filled<float>(6, 1.0f);
    auto values = filled<std::int32_t>(5, 1);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { clalgo::sort_by_key(queue(), keys, values, "a < b"); }),
                     {"sort_by_key", "keys has 6 elements and values 5"}));
    auto out = filled<float>(5, 0.0f);
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { clalgo::maximum(queue(), keys, keys, out); }),
                     {"clalgo: maximum", "out has 5 elements but x has 6"}));
    const auto indices = clalgo::to_device(queue(), std::vector<std::int64_t>{0, 1});
    EXPECT_TRUE(says(message_of<std::invalid_argument>([&] { clalgo::subset_sum(queue(), keys, indices, filled<float>(2, 0.0f)); }),
                     {"clalgo: subset_sum", "result has 2 elements"}));
}

}  // namespace
