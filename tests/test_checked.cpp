// Checked mode (codegen/checked.hpp): with CLALGO_CHECKED=1 or a kernel's `checked` option, every access
// name[index] of the user's code to an array argument is bounds-checked on the device, and a call that went out of
// bounds throws OutOfBoundsError naming the kernel, the argument, the index and the size. Off, the generated source
// has nothing of it.
#include "support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

using ScopedEnvironment = clalgo_test::ScopedVariable;

clalgo::ElementwiseOptions checked_map(const std::string& name, bool checked = true) {
    clalgo::ElementwiseOptions options;
    options.name = name;
    options.checked = checked;
    return options;
}

/// Passes where `message` names the kernel, the argument (1-based position and name), the index and the size.
::testing::AssertionResult names_violation(const std::string& message, const std::string& kernel, int argument,
                                           const std::string& name, std::int64_t index, std::size_t size) {
    for (const std::string& part : {"kernel '" + kernel + "'", "argument " + std::to_string(argument) + " '" + name + "'",
                                   "index " + std::to_string(index) + " is out of bounds",
                                   "the array has " + std::to_string(size) + " elements"})
        if (!contains(message, part)) return ::testing::AssertionFailure() << "'" << part << "' is not in: " << message;
    return ::testing::AssertionSuccess();
}

}  // namespace

// ---- the rewriting of the user's code ----

TEST(CheckedRewrite, EveryAccessToADeclaredArrayAndNothingElse) {
    const auto declarations = clalgo::parse_arguments("const float *x, int *idx, float s, float4 *v");
    const clalgo::detail::Checked checked(declarations, true);
    EXPECT_EQ(checked.text("x[i] + x [ i + 1 ]"), "clalgo_at_x(i) + clalgo_at_x( i + 1 )");
    EXPECT_EQ(checked.text("x[idx[i]]"), "clalgo_at_x(clalgo_at_idx(i))");
    EXPECT_EQ(checked.text("x[f(i, 2)] + x[(i, 3)]"), "clalgo_at_x(f(i, 2)) + clalgo_at_x((i, 3))");
    EXPECT_EQ(checked.text("v[i].x + s.x[1] + p->idx[2] + s"), "clalgo_at_v(i).x + s.x[1] + p->idx[2] + s");
    EXPECT_EQ(checked.text("xs[i] + ax[i] + 0x1f + 1e5f"), "xs[i] + ax[i] + 0x1f + 1e5f");
    EXPECT_EQ(checked.text("x[i] /* x[0] */ + 1 // idx[0]"), "clalgo_at_x(i) /* x[0] */ + 1 // idx[0]");
    EXPECT_EQ(checked.text("printf(\"x[%d]\", idx[i])"), "printf(\"x[%d]\", clalgo_at_idx(i))");
    EXPECT_EQ(checked.text("x + 1"), "x + 1") << "only subscripts are checked";
    const clalgo::detail::Checked off(declarations, false);
    EXPECT_EQ(off.text("x[idx[i]]"), "x[idx[i]]");
    EXPECT_EQ(off.helpers(), "");
    EXPECT_EQ(off.parameters(), "");
}

// ---- ElementwiseKernel ----

TEST(CheckedElementwise, OffGeneratesTheSameSourceAsBeforeAndOnAddsTheChecks) {
    ScopedEnvironment unset("CLALGO_CHECKED", std::nullopt);
    clalgo::ElementwiseKernel plain(context(), "const int *x, int *y", "y[i] = x[i] + 1", checked_map("plus_one", false));
    clalgo::ElementwiseKernel checked(context(), "const int *x, int *y", "y[i] = x[i] + 1", checked_map("plus_one"));
    for (const char* part : {"clalgo_violation", "clalgo_at_", "clalgo_check_", "clalgo_x_size"})
        EXPECT_FALSE(contains(plain.source(), part)) << part;
    EXPECT_TRUE(contains(checked.source(), "clalgo_at_y(i) = clalgo_at_x(i) + 1"));
    ScopedEnvironment off("CLALGO_CHECKED", "0");
    clalgo::ElementwiseKernel switched_off(context(), "const int *x, int *y", "y[i] = x[i] + 1", checked_map("plus_one", false));
    EXPECT_EQ(switched_off.source(), plain.source());
}

TEST(CheckedElementwise, InBoundsUseGivesTheSameResults) {
    const auto hx = clalgo_test::random_values<int>(1000);
    const auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<int> y(queue(), hx.size());
    clalgo::ElementwiseKernel neighbours(context(), "const int *x, int *y",
                                         "y[i] = x[i] + (i + 1 < n ? x[i + 1] : 0) - (i > 0 ? x[i - 1] : 0)",
                                         checked_map("neighbours"));
    neighbours(queue(), x, y);
    const auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k)
        ASSERT_EQ(hy[k], hx[k] + (k + 1 < hx.size() ? hx[k + 1] : 0) - (k > 0 ? hx[k - 1] : 0)) << k;
}

TEST(CheckedElementwise, ReadsAndWritesOutOfBoundsThrowNamingKernelArgumentIndexAndSize) {
    const std::size_t n = 100;
    const auto x = clalgo::to_device(queue(), std::vector<int>(n, 1));
    clalgo::Array<int> y(queue(), n);
    clalgo::ElementwiseKernel read_after(context(), "const int *x, int *y", "y[i] = x[i + 1]", checked_map("read_after"));
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { read_after(queue(), x, y); }), "read_after",
                                1, "x", n, n));
    clalgo::ElementwiseKernel read_before(context(), "const int *x, int *y", "y[i] = x[i - 1]", checked_map("read_before"));
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { read_before(queue(), x, y); }),
                                "read_before", 1, "x", -1, n));
    clalgo::ElementwiseKernel write_far(context(), "const int *x, int *y", "y[2 * i] = x[i]", checked_map("write_far"));
    const auto message = message_of<clalgo::OutOfBoundsError>([&] { write_far(queue(), clalgo::range(0, 60), x, y); });
    EXPECT_TRUE(contains(message, "argument 2 'y'")) << message;
    EXPECT_TRUE(contains(message, "the array has 100 elements")) << message;
    // a gather through an index array: the index is the value read
    std::vector<int> hidx(n);
    std::iota(hidx.begin(), hidx.end(), 0);
    hidx[37] = 1000;
    const auto idx = clalgo::to_device(queue(), hidx);
    clalgo::ElementwiseKernel gather(context(), "const int *x, const int *idx, int *y", "y[i] = x[idx[i]]",
                                     checked_map("gather"));
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { gather(queue(), x, idx, y); }), "gather", 1,
                                "x", 1000, n));
    // a view: its own size is the bound, not its buffer's
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>(
                                    [&] { read_after(queue(), x.view(10, 20), y.view(0, 20)); }),
                                "read_after", 1, "x", 20, 20));
}

TEST(CheckedElementwise, TheEnvironmentVariableChecksEveryKernelAndRejectsBadValues) {
    {
        ScopedEnvironment on("CLALGO_CHECKED", "1");
        clalgo::ElementwiseKernel kernel(context(), "int *y", "y[i + 1] = 1", checked_map("by_environment", false));
        clalgo::Array<int> y(queue(), 10);
        EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { kernel(queue(), y); }), "by_environment",
                                    1, "y", 10, 10));
    }
    ScopedEnvironment bad("CLALGO_CHECKED", "maybe");
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] {
                             clalgo::ElementwiseKernel(context(), "int *y", "y[i] = 1", checked_map("bad_value", false));
                         }),
                         "CLALGO_CHECKED='maybe'"));
}

// ---- ReductionKernel ----

TEST(CheckedReduction, InBoundsSumsAreRightAndAnOutOfBoundsMapThrows) {
    const auto hx = clalgo_test::random_values<std::int64_t>(5000);
    const auto x = clalgo::to_device(queue(), hx);
    clalgo::ReductionOptions options;
    options.name = "checked_sum";
    options.checked = true;
    clalgo::ReductionKernel<std::int64_t> sum(context(), "0", "a+b", "x[i] * x[n - 1 - i]", "const long *x", options);
    std::int64_t expected = 0;
    for (std::size_t k = 0; k < hx.size(); ++k) expected += hx[k] * hx[hx.size() - 1 - k];
    EXPECT_EQ(sum(queue(), x), expected);
    EXPECT_EQ(sum.async(queue(), x).get(queue()), expected);
    options.name = "checked_shifted_sum";
    clalgo::ReductionKernel<std::int64_t> shifted(context(), "0", "a+b", "x[i + 2]", "const long *x", options);
    const auto message = message_of<clalgo::OutOfBoundsError>([&] { shifted(queue(), x); });
    // i = n - 2 and n - 1 both read past the end: whichever work-item comes first is recorded
    EXPECT_TRUE(names_violation(message, "checked_shifted_sum", 1, "x", 5000, 5000) ||
                names_violation(message, "checked_shifted_sum", 1, "x", 5001, 5000))
        << message;
}

// ---- GenericScanKernel ----

TEST(CheckedScan, EveryAlgorithmScansRightInBoundsAndThrowsOutOfBounds) {
    const auto hx = clalgo_test::random_values<int>(3000);
    const auto x = clalgo::to_device(queue(), hx);
    std::vector<int> expected(hx.size());
    std::partial_sum(hx.begin(), hx.end(), expected.begin());
    for (auto algorithm : {clalgo::ScanAlgorithm::serial, clalgo::ScanAlgorithm::reduce_then_scan,
                           clalgo::ScanAlgorithm::single_pass, clalgo::ScanAlgorithm::chained}) {
        SCOPED_TRACE(static_cast<int>(algorithm));
        clalgo::ScanOptions options;
        options.algorithm = algorithm;
        options.checked = true;
        options.name = "checked_scan";
        clalgo::GenericScanKernel<int> scan(context(), "const int *x, int *out", "x[i]", "a+b", "0", "out[i] = item",
                                            options);
        clalgo::Array<int> out(queue(), hx.size());
        scan(queue(), x, out);
        EXPECT_EQ(out.to_host(queue()), expected);
        options.name = "checked_scan_input";
        clalgo::GenericScanKernel<int> input(context(), "const int *x, int *out", "x[i + 1]", "a+b", "0",
                                             "out[i] = item", options);
        EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { input(queue(), x, out); }),
                                    "checked_scan_input", 1, "x", 3000, 3000));
        options.name = "checked_scan_output";
        clalgo::GenericScanKernel<int> output(context(), "const int *x, int *out", "x[i]", "a+b", "0",
                                              "out[item] = 1", options);
        const auto message = message_of<clalgo::OutOfBoundsError>([&] { output(queue(), x, out.view(0, 10)); });
        EXPECT_TRUE(contains(message, "argument 2 'out'")) << message;
        EXPECT_TRUE(contains(message, "the array has 10 elements")) << message;
    }
}

// ---- HistogramKernel ----

TEST(CheckedHistogram, InBoundsCountsAreRightAndAnOutOfBoundsBinExpressionThrows) {
    const auto hx = clalgo_test::random_values<int>(5000);
    const auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<std::uint32_t> bins(queue(), 10);
    clalgo::HistogramOptions options;
    options.name = "checked_histogram";
    options.checked = true;
    clalgo::HistogramKernel<std::uint32_t> by_digit(context(), "const int *x", "abs(x[i] % 10)", options);
    by_digit(queue(), bins, x);
    std::vector<std::uint32_t> expected(10, 0);
    for (int v : hx) ++expected[static_cast<std::size_t>(std::abs(v % 10))];
    EXPECT_EQ(bins.to_host(queue()), expected);
    by_digit(queue(), bins, clalgo::range(4999, -1, -1), x);  // a descending range stays within the array too
    EXPECT_EQ(bins.to_host(queue()), expected);
    options.name = "checked_histogram_after";
    clalgo::HistogramKernel<std::uint32_t> after(context(), "const int *x", "abs(x[i + 1] % 10)", options);
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { after(queue(), bins, x); }),
                                "checked_histogram_after", 1, "x", 5000, 5000));
}

// ---- ListOfListsBuilder ----

TEST(CheckedListBuilder, InBoundsListsAreRightAndOutOfBoundsThrowsFromEitherPass) {
    const auto hx = clalgo_test::random_values<int>(3000);
    const auto x = clalgo::to_device(queue(), hx);
    clalgo::ListOfListsOptions options;
    options.name = "checked_lists";
    options.checked = true;
    clalgo::ListOfListsBuilder positives(context(), {{"positive", "int"}},
                                         "if (x[i] > 0) APPEND_positive(x[i]);\n"
                                         "if (i > 0 && x[i - 1] > 0) APPEND_positive(-x[i - 1]);",
                                         "const int *x", options);
    const auto lists = positives(queue(), x);
    const auto positive = lists.get<int>("positive");
    std::vector<int> items;
    std::vector<std::int64_t> offsets{0};
    for (std::size_t k = 0; k < hx.size(); ++k) {
        if (hx[k] > 0) items.push_back(hx[k]);
        if (k > 0 && hx[k - 1] > 0) items.push_back(-hx[k - 1]);
        offsets.push_back(static_cast<std::int64_t>(items.size()));
    }
    ASSERT_EQ(positive.count, static_cast<std::int64_t>(items.size()));
    EXPECT_EQ(positive.offsets.to_host(queue()), offsets);
    EXPECT_EQ(positive.items.to_host(queue()), items);
    // read by the count pass (a condition): thrown before the items are written
    options.name = "checked_lists_condition";
    clalgo::ListOfListsBuilder condition(context(), {{"values", "int"}}, "if (x[i + 1] > 0) APPEND_values(1);",
                                         "const int *x", options);
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { condition(queue(), x); }),
                                "checked_lists_condition_count", 1, "x", 3000, 3000));
    // read by the write pass only (the appended value)
    options.name = "checked_lists_value";
    clalgo::ListOfListsBuilder value(context(), {{"values", "int"}}, "APPEND_values(x[i - 1]);", "const int *x",
                                     options);
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { value(queue(), x); }),
                                "checked_lists_value_write", 1, "x", -1, 3000));
}

// ---- RadixSort (its key expression) ----

TEST(CheckedRadixSort, InBoundsSortIsRightAndAnOutOfBoundsKeyExpressionThrows) {
    const std::size_t n = 4000;
    const auto hx = clalgo_test::random_values<int>(n), hy = clalgo_test::random_values<int>(n, 7);
    const auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy);
    clalgo::Array<int> x_out(queue(), n), y_out(queue(), n);
    clalgo::RadixSortOptions options;
    options.name = "checked_by_low_bits";
    options.checked = true;
    clalgo::RadixSort<std::uint32_t> by_low_bits(context(), "const int *x, const int *y, int *x_out, int *y_out",
                                                 "(uint)(x[i] ^ y[i]) & 0xfffu", {"x", "y"}, options);
    by_low_bits(queue(), x, y, x_out, y_out);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto key = [&](std::size_t k) { return static_cast<std::uint32_t>(hx[k] ^ hy[k]) & 0xfffu; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    const auto got_x = x_out.to_host(queue()), got_y = y_out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(got_x[k], hx[order[k]]) << k;
        ASSERT_EQ(got_y[k], hy[order[k]]) << k;
    }
    options.name = "checked_by_next";
    clalgo::RadixSort<std::uint32_t> by_next(context(), "const int *x, const int *y, int *x_out, int *y_out",
                                             "(uint)y[i + 1]", {"x", "y"}, options);
    EXPECT_TRUE(names_violation(message_of<clalgo::OutOfBoundsError>([&] { by_next(queue(), x, y, x_out, y_out); }),
                                "checked_by_next_keys", 2, "y", static_cast<std::int64_t>(n), n));
}
