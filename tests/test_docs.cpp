// The C++ of README.md and docs/*.md, compiled and run. Each snippet sits here exactly as its doc shows it (up to
// indentation), between "// doc:" and "// end doc" lines, inside a test that first makes what the snippet uses
// and afterwards checks what it computed against the CPU. The doc names the test beside the block
// (<!-- tested in tests/test_docs.cpp: Docs.Name -->), and the ctest check_doc_snippets fails where a block is
// not found here word for word: edit a doc's code here first, then copy it to the doc.
// Complete programs of the docs live in tests/doc_snippets/ and run as ctest tests of their own.
#include "support.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace {

const clalgo::Context& context() { return clalgo_test::context(); }
const clalgo::Queue& queue() { return clalgo_test::queue(); }

bool has_platform(const std::string& part) {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    for (const auto& platform : platforms)
        if (clalgo::detail::lowercase(platform.getInfo<CL_PLATFORM_NAME>()).find(part) != std::string::npos) return true;
    return false;
}

std::vector<int> small_ints(std::size_t n, std::uint64_t seed) { return clalgo_test::random_values<int>(n, seed); }

}  // namespace

// ---------------------------------------------------------------------------------------------------- README.md

TEST(Docs, ReadmeFirstKernel) {
    // doc: README.md (its #include is at the top of this file)
    auto ctx = clalgo::Context::default_context();  // CLALGO_DEVICE, else the first GPU, else the first device
    clalgo::Queue q(ctx);
    auto x = clalgo::to_device(q, std::vector<float>(1000, 1.0f));
    auto y = clalgo::to_device(q, std::vector<float>(1000, 2.0f));
    clalgo::Array<float> z(q, 1000);
    clalgo::ElementwiseKernel lin_comb(ctx, "float a, const float *x, float b, const float *y, float *z",
                                       "z[i] = a*x[i] + b*y[i]");
    lin_comb(q, 5.0f, x, 6.0f, y, z);  // enqueued, not waited for: returns a clalgo::Event
    clalgo::ReductionKernel<float> sum(ctx, "0", "a+b", "z[i]", "const float *z");
    float total = sum(q, z);           // waits for the result: 1000 x (5*1 + 6*2) = 17000
    // end doc
    EXPECT_EQ(total, 17000.0f);
    EXPECT_EQ(z.to_host(q), std::vector<float>(1000, 17.0f));
}

// ------------------------------------------------------------------------------------- docs/getting-started.md

TEST(Docs, ChoosingADevice) {
    if (!has_platform("portable")) GTEST_SKIP() << "no PoCL platform";
    // doc: docs/getting-started.md
    auto pocl = clalgo::Context::from_spec("portable");  // the first platform whose name contains "portable"
    auto first = clalgo::Context::from_spec("0:0");      // platform 0, device 0
    clalgo::Queue q(pocl);
    std::printf("%s\n", q.info().description().c_str());
    // end doc
    EXPECT_TRUE(clalgo_test::contains(q.info().platform_name, "Portable"));
    EXPECT_FALSE(first.devices().empty());
}

TEST(Docs, WrapYourOwnOpenCLObjects) {
    // doc: docs/getting-started.md
    cl::Device device = cl::Device::getDefault();          // your program's own OpenCL objects...
    cl::Context mine(device);
    cl::CommandQueue my_queue(mine, device);
    cl::Buffer buffer(mine, CL_MEM_READ_WRITE, 100 * sizeof(float));

    clalgo::Context ctx(mine);                             // ...used by clalgo
    clalgo::Queue q(my_queue);
    clalgo::ArrayView<float> view(buffer, 0, 100);         // usable wherever an array is
    clalgo::ElementwiseKernel halve(ctx, "float *x", "x[i] = 0.5f * i");
    halve(q, view);
    // end doc
    const auto host = view.to_host(q);
    for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(host[k], 0.5f * float(k));
}

// ----------------------------------------------------------------------------------------------- docs/kernels.md

TEST(Docs, Arrays) {
    const clalgo::Queue& q = queue();
    // doc: docs/kernels.md
    auto x = clalgo::to_device(q, std::vector<float>{1, 2, 3, 4});  // copies; blocks until done
    clalgo::Array<float> y(q, x.size());                            // 4 floats, uninitialised
    x.copy_to(q, y);                                                // enqueued: returns a clalgo::Event
    y.fill(q, 0.0f);                                                // enqueued (after the copy: queues are in order)
    auto tail = x.view(1, 3);                                       // elements 1, 2, 3 of x: shares its buffer
    std::vector<float> back = tail.to_host(q);                      // {2, 3, 4}; blocks
    float last = x.read_at(q, 3);                                   // 4; blocks
    clalgo::Array<float> copy = x.clone(q);                         // a new array; Array itself is move-only
    // end doc
    EXPECT_EQ(back, (std::vector<float>{2, 3, 4}));
    EXPECT_EQ(last, 4.0f);
    EXPECT_EQ(y.to_host(q), std::vector<float>(4, 0.0f));
    EXPECT_EQ(copy.to_host(q), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Docs, Elementwise) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const std::size_t n = 1000;
    const auto hx = clalgo_test::random_values<float>(n, 1), hy = clalgo_test::random_values<float>(n, 2);
    auto x = clalgo::to_device(q, hx), y = clalgo::to_device(q, hy);
    clalgo::Array<float> z(q, n);
    // doc: docs/kernels.md
    clalgo::ElementwiseKernel lin_comb(ctx, "float a, const float *x, float b, const float *y, float *z",
                                       "z[i] = a*x[i] + b*y[i]");
    clalgo::Event done = lin_comb(q, 5.0f, x, 6.0f, y, z);  // i = 0, 1, ..., x.size() - 1
    lin_comb(q, clalgo::range(0, 1000, 2), 1.0f, x, 1.0f, y, z,
             clalgo::wait_for(done));                    // i = 0, 2, 4, ..., 998, once `done` has completed
    // end doc
    const auto hz = z.to_host(q);
    for (std::size_t k = 0; k < n; ++k) {
        const float expected = k % 2 == 0 ? 1.0f * hx[k] + 1.0f * hy[k] : 5.0f * hx[k] + 6.0f * hy[k];
        ASSERT_NEAR(hz[k], expected, 1e-5f) << k;
    }
}

TEST(Docs, ElementwiseOptions) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const auto host = clalgo_test::random_values<float>(777, 3);
    auto x = clalgo::to_device(q, host);
    // doc: docs/kernels.md
    clalgo::ElementwiseOptions options;
    options.name = "clamp_to_unit";  // in build errors and profilers
    options.preamble = "inline float clamp01(float v) { return fmin(fmax(v, 0.0f), 1.0f); }";
    clalgo::ElementwiseKernel clamp(ctx, "float *x", "x[i] = clamp01(x[i])", options);
    clamp(q, x);

    clalgo::Array<std::int64_t> indices(q, 10);
    clalgo::ElementwiseKernel iota(ctx, "long *out, long first", "out[i] = first + i");
    iota(q, indices, std::int64_t(100));  // 100, 101, ..., 109: n and i are 64-bit (long)
    // end doc
    const auto clamped = x.to_host(q);
    for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(clamped[k], std::min(std::max(host[k], 0.0f), 1.0f));
    std::vector<std::int64_t> expected(10);
    std::iota(expected.begin(), expected.end(), 100);
    EXPECT_EQ(indices.to_host(q), expected);
}

TEST(Docs, Reduction) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const auto hx = clalgo_test::random_values<float>(5000, 4), hy = clalgo_test::random_values<float>(5000, 5);
    auto x = clalgo::to_device(q, hx), y = clalgo::to_device(q, hy);
    // doc: docs/kernels.md
    clalgo::ReductionKernel<float> dot(ctx, "0", "a+b", "x[i]*y[i]", "const float *x, const float *y");
    float d = dot(q, x, y);                                  // blocks until the result is on the host
    clalgo::DeviceResult<float> later = dot.async(q, x, y);  // does not block: later.value is on the device
    clalgo::Array<float> result(q, 1);
    dot.into(q, result, x, y);                               // writes result[0]; does not block
    float d2 = later.get(q);                                 // waits for the async result

    clalgo::ReductionKernel<float> largest(ctx, "-INFINITY", "fmax(a, b)", "x[i]", "const float *x");
    float top = largest(q, x);
    clalgo::ReductionKernel<float> sum(ctx, "0", "a+b", "", "const float *x");  // empty map_expr: x[i]
    // end doc
    double reference = 0, absolute = 0;
    for (std::size_t k = 0; k < hx.size(); ++k) {
        reference += double(hx[k]) * hy[k];
        absolute += std::fabs(double(hx[k]) * hy[k]);
    }
    EXPECT_NEAR(d, reference, 1e-5 * absolute);
    EXPECT_EQ(d2, d);
    EXPECT_EQ(result.read_at(q, 0), d);
    EXPECT_EQ(top, *std::max_element(hx.begin(), hx.end()));
    EXPECT_NEAR(sum(q, x), std::accumulate(hx.begin(), hx.end(), 0.0), 1e-3);
}

TEST(Docs, ReductionOverARange) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    // doc: docs/kernels.md
    clalgo::ReductionOptions options;
    options.name = "count_primes";
    options.preamble = R"CLC(
inline bool is_prime(long m)
{
    if (m < 2)
        return false;
    for (long d = 2; d * d <= m; ++d)
        if (m % d == 0)
            return false;
    return true;
}
)CLC";
    clalgo::ReductionKernel<std::int64_t> count_primes(ctx, "0", "a+b", "is_prime(i) ? 1 : 0", "", options);
    std::int64_t primes = count_primes(q, clalgo::range(0, 100000));  // no array anywhere: 9592
    // end doc
    EXPECT_EQ(primes, 9592);
}

namespace {
// doc: docs/kernels.md
struct MinAt {
    float value;
    std::int64_t at;
};
// end doc
}  // namespace

TEST(Docs, ReductionOfAStruct) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    auto host = clalgo_test::random_values<float>(10000, 6);
    host[1234] = -5.0f;
    host[4321] = -5.0f;  // a tie: the first index wins
    auto x = clalgo::to_device(q, host);
    // doc: docs/kernels.md
    clalgo::register_struct<MinAt>("min_at", "typedef struct { float value; long at; } min_at;",
                                   {CLALGO_FIELD(MinAt, value), CLALGO_FIELD(MinAt, at)});
    clalgo::ReductionOptions options;
    options.preamble = R"CLC(
inline min_at min_at_make(float value, long at) { min_at m; m.value = value; m.at = at; return m; }
/* the smaller value; of equal values the first: associative and commutative */
inline min_at min_at_lower(min_at a, min_at b)
{
    return (b.value < a.value || (b.value == a.value && b.at < a.at)) ? b : a;
}
)CLC";
    clalgo::ReductionKernel<MinAt> argmin(ctx, "min_at_make(INFINITY, -1)", "min_at_lower(a, b)",
                                          "min_at_make(x[i], i)", "const float *x", options);
    MinAt smallest = argmin(q, x);  // {-5, 1234}
    // end doc
    EXPECT_EQ(smallest.value, -5.0f);
    EXPECT_EQ(smallest.at, 1234);
}

TEST(Docs, InclusiveAndExclusiveScans) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const auto host = small_ints(100000, 7);
    auto in = clalgo::to_device(q, host);
    clalgo::Array<int> out(q, host.size()), before(q, host.size());
    // doc: docs/kernels.md
    clalgo::InclusiveScanKernel<int> cumsum(ctx, "a+b", "0");
    cumsum(q, in, out);  // out[i] = in[0] + ... + in[i]; cumsum(q, in, in) scans in place

    clalgo::ExclusiveScanKernel<int> offsets(ctx, "a+b", "0");
    clalgo::Array<int> total(q, 1);
    offsets.with_total(q, in, before, total);  // before[i] = in[0] + ... + in[i-1], before[0] = 0; total[0] = the sum
    // end doc
    std::vector<int> inclusive(host.size()), exclusive(host.size());
    std::inclusive_scan(host.begin(), host.end(), inclusive.begin());
    std::exclusive_scan(host.begin(), host.end(), exclusive.begin(), 0);
    EXPECT_EQ(out.to_host(q), inclusive);
    EXPECT_EQ(before.to_host(q), exclusive);
    EXPECT_EQ(total.read_at(q, 0), inclusive.back());
}

TEST(Docs, ScanWithACarryIn) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const auto first_host = small_ints(1000, 3), second_host = small_ints(2000, 4);
    auto first = clalgo::to_device(q, first_host), second = clalgo::to_device(q, second_host);
    clalgo::Array<int> first_out(q, first_host.size()), second_out(q, second_host.size());
    // doc: docs/kernels.md
    clalgo::InclusiveScanKernel<int> cumsum(ctx, "a+b", "0");
    cumsum.with_carry(q, 100, first, first_out);  // first_out[i] = 100 + first[0] + ... + first[i]

    // one array in two parts: the second part carries on from the first part's last item, read on the device
    cumsum.with_carry(q, first_out.view(first_out.size() - 1, 1), second, second_out);
    // end doc
    std::vector<int> joined(first_host);
    joined.insert(joined.end(), second_host.begin(), second_host.end());
    std::vector<int> expected(joined.size());
    std::inclusive_scan(joined.begin(), joined.end(), expected.begin(), std::plus<>(), 100);
    auto device = first_out.to_host(q);
    const auto tail = second_out.to_host(q);
    device.insert(device.end(), tail.begin(), tail.end());
    EXPECT_EQ(device, expected);
}

TEST(Docs, SegmentedScan) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const std::size_t n = 50000;
    const auto host = small_ints(n, 8);
    std::vector<cl_uchar> host_starts(n);
    for (std::size_t k = 0; k < n; ++k) host_starts[k] = (k * 7919) % 97 == 0;
    auto x = clalgo::to_device(q, host);
    auto starts = clalgo::to_device(q, host_starts);
    clalgo::Array<int> out(q, n);
    // doc: docs/kernels.md
    clalgo::ScanOptions options;
    options.name = "segmented_sum";
    options.is_segment_start_expr = "starts[i] != 0";
    clalgo::GenericScanKernel<int> segmented_sum(ctx, "const int *x, const uchar *starts, int *out", "x[i]",
                                                 "across_seg_boundary ? b : a+b", "0", "out[i] = item", options);
    segmented_sum(q, x, starts, out);  // the running sum restarts wherever starts[i] != 0
    // end doc
    std::vector<int> expected(n);
    for (std::size_t k = 0; k < n; ++k) expected[k] = (k == 0 || host_starts[k]) ? host[k] : expected[k - 1] + host[k];
    EXPECT_EQ(out.to_host(q), expected);
}

TEST(Docs, NonCommutativeScan) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const std::size_t n = 30000;
    std::vector<cl_int2> host_maps(n);
    for (std::size_t k = 0; k < n; ++k) host_maps[k] = cl_int2{{(k % 3 == 0) ? -1 : 1, int(k % 5) - 2}};
    auto maps = clalgo::to_device(q, host_maps);
    clalgo::Array<int> x(q, n);
    // doc: docs/kernels.md
    // x[i] = m[i] * x[i-1] + c[i], with x[-1] = 0: each step is an affine map (m, c); a scan composes them,
    // left to right (composition is associative but not commutative)
    clalgo::ScanOptions options;
    options.preamble = "inline int2 then(int2 f, int2 g) { return (int2)(g.x * f.x, g.x * f.y + g.y); }";
    clalgo::GenericScanKernel<cl_int2> recurrence(ctx, "const int2 *maps, int *x", "maps[i]", "then(a, b)",
                                                  "(int2)(1, 0)", "x[i] = item.y", options);
    recurrence(q, maps, x);
    // end doc
    std::vector<int> expected(n);
    int previous = 0;
    for (std::size_t k = 0; k < n; ++k) expected[k] = previous = host_maps[k].s[0] * previous + host_maps[k].s[1];
    EXPECT_EQ(x.to_host(q), expected);
}

TEST(Docs, ScanOutputSeesPrevItemAndLastItem) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const std::size_t n = 20000;
    std::vector<cl_uchar> host_flags(n);
    std::vector<float> host_weights(n);
    for (std::size_t k = 0; k < n; ++k) {
        host_flags[k] = k % 7 == 3;
        host_weights[k] = float(k % 4);
    }
    auto marks = clalgo::to_device(q, host_flags);
    auto weights = clalgo::to_device(q, host_weights);
    clalgo::Array<std::int64_t> positions(q, n);
    clalgo::Array<float> cdf(q, n);
    // doc: docs/kernels.md
    // the indices of the marks, in order: item counts the marks up to i, prev_item those before i
    clalgo::GenericScanKernel<std::int64_t> where(ctx, "const uchar *marks, long *positions", "marks[i]", "a+b", "0",
                                                  "if (prev_item != item) positions[prev_item] = i;");
    where(q, marks, positions);

    // a cumulative distribution: last_item is the total
    clalgo::GenericScanKernel<float> distribution(ctx, "const float *weights, float *cdf", "weights[i]", "a+b", "0",
                                                  "cdf[i] = item / last_item");
    distribution(q, weights, cdf);
    // end doc
    const auto found = positions.to_host(q);
    std::size_t count = 0;
    for (std::size_t k = 0; k < n; ++k) {
        if (host_flags[k]) {
            ASSERT_EQ(found[count++], std::int64_t(k));
        }
    }
    const auto host_cdf = cdf.to_host(q);
    const double total = std::accumulate(host_weights.begin(), host_weights.end(), 0.0);
    double running = 0;
    for (std::size_t k = 0; k < n; ++k) {
        running += host_weights[k];
        ASSERT_NEAR(host_cdf[k], running / total, 1e-5) << k;
    }
}

TEST(Docs, ScanInputFetch) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const std::vector<cl_uchar> host = {1, 1, 1, 3, 2, 2, 2, 1, 1, 3};
    auto digits = clalgo::to_device(q, host);
    clalgo::Array<int> run_number(q, host.size());
    // doc: docs/kernels.md
    clalgo::ScanOptions options;
    options.input_fetch_exprs = {clalgo::InputFetch{"previous", "digits", -1}};  // previous = digits[i - 1]
    clalgo::GenericScanKernel<int> number_runs(ctx, "const uchar *digits, int *run_number",
                                               "(i == 0 || digits[i] != previous) ? 1 : 0", "a+b", "0",
                                               "run_number[i] = item - 1", options);
    number_runs(q, digits, run_number);  // digits 1113222113 -> run numbers 0001222334
    // end doc
    EXPECT_EQ(run_number.to_host(q), (std::vector<int>{0, 0, 0, 1, 2, 2, 2, 3, 3, 4}));
}

TEST(Docs, ScanCompaction) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    const auto host = small_ints(40000, 9);
    auto x = clalgo::to_device(q, host);
    clalgo::Array<int> kept(q, host.size());
    clalgo::Array<std::int64_t> count(q, 1);
    // doc: docs/kernels.md
    clalgo::ScanOptions options;
    options.compaction = clalgo::ScanCompaction{"kept", "x[i]", "capacity", "count"};
    clalgo::GenericScanKernel<cl_uint> keep_positive(ctx, "const int *x, int *kept, long capacity, long *count",
                                                     "x[i] > 0 ? 1 : 0", "a+b", "0", "", options);
    keep_positive(q, x, kept, static_cast<cl_long>(kept.size()), count);  // count[0]: how many were kept
    // end doc
    std::vector<int> expected;
    std::copy_if(host.begin(), host.end(), std::back_inserter(expected), [](int v) { return v > 0; });
    ASSERT_EQ(count.read_at(q, 0), std::int64_t(expected.size()));
    EXPECT_EQ(kept.view(0, expected.size()).to_host(q), expected);
}

TEST(Docs, CopyIfAndFriends) {
    const clalgo::Queue& q = queue();
    const auto host = small_ints(100000, 10);
    const auto host_weights = clalgo_test::random_values<float>(host.size(), 11);
    std::vector<int> host_sorted = host;
    std::sort(host_sorted.begin(), host_sorted.end());
    auto values = clalgo::to_device(q, host);
    auto weights = clalgo::to_device(q, host_weights);
    auto sorted = clalgo::to_device(q, host_sorted);
    // doc: docs/kernels.md
    auto [kept, count] = clalgo::copy_if(q, values, "ary[i] > 7");  // allocates room for values.size() items
    std::int64_t how_many = count.get(q);                            // waits; kept.view(0, how_many) holds them

    clalgo::SelectionOptions options;
    options.extra_args = {clalgo::Argument("threshold", 7.5f), clalgo::Argument("weights", weights)};
    auto [heavy, heavy_count] = clalgo::copy_if(q, values, "ary[i] * weights[i] > threshold", options);

    auto [rest, rest_count] = clalgo::remove_if(q, values, "ary[i] < 0");
    auto [evens, odds, even_count] = clalgo::partition(q, values, "ary[i] % 2 == 0");
    auto [firsts, first_count] = clalgo::unique(q, sorted);  // the first of each run of equal values
    // end doc
    auto expect = [&](const clalgo::ArrayView<int>& device, std::int64_t device_count, auto keep) {
        std::vector<int> expected;
        std::copy_if(host.begin(), host.end(), std::back_inserter(expected), keep);
        ASSERT_EQ(device_count, std::int64_t(expected.size()));
        EXPECT_EQ(device.view(0, expected.size()).to_host(q), expected);
    };
    expect(kept, how_many, [](int v) { return v > 7; });
    std::vector<int> expected_heavy;
    for (std::size_t k = 0; k < host.size(); ++k)
        if (host[k] * host_weights[k] > 7.5f) expected_heavy.push_back(host[k]);
    ASSERT_EQ(heavy_count.get(q), std::int64_t(expected_heavy.size()));
    EXPECT_EQ(heavy.view(0, expected_heavy.size()).to_host(q), expected_heavy);
    expect(rest, rest_count.get(q), [](int v) { return !(v < 0); });
    expect(evens, even_count.get(q), [](int v) { return v % 2 == 0; });
    std::vector<int> expected_odds;
    std::copy_if(host.begin(), host.end(), std::back_inserter(expected_odds), [](int v) { return v % 2 != 0; });
    EXPECT_EQ(odds.view(0, expected_odds.size()).to_host(q), expected_odds);
    std::vector<int> expected_firsts;
    std::unique_copy(host_sorted.begin(), host_sorted.end(), std::back_inserter(expected_firsts));
    ASSERT_EQ(first_count.get(q), std::int64_t(expected_firsts.size()));
    EXPECT_EQ(firsts.view(0, expected_firsts.size()).to_host(q), expected_firsts);
}

TEST(Docs, CopyIfIntoArraysAndOverRanges) {
    const clalgo::Queue& q = queue();
    const auto host = small_ints(100000, 12);
    auto values = clalgo::to_device(q, host);
    // doc: docs/kernels.md
    clalgo::Array<int> out(q, values.size());
    clalgo::Array<std::int64_t> out_count(q, 1);
    clalgo::Event done = clalgo::copy_if(q, values, out, out_count, "ary[i] % 2 == 0");  // allocates nothing

    clalgo::SelectionOptions first_ten;
    first_ten.capacity = 10;  // room for 10 items; the count still counts them all
    auto [some, all_count] = clalgo::copy_if(q, values, "ary[i] > 0", first_ten);

    const char* is_square = "(long)(sqrt((float)i) + 0.5f) * (long)(sqrt((float)i) + 0.5f) == i";  // rounded root
    auto [squares, square_count] = clalgo::copy_if(q, clalgo::range(0, 1000000), is_square);  // the kept indices
    clalgo::SelectionOptions as_roots;
    as_roots.value_expr = "(int)(sqrt((float)i) + 0.5f)";  // what to write for each kept index, instead of i
    auto [roots, root_count] = clalgo::copy_if<int>(q, clalgo::range(0, 1000000), is_square, as_roots);
    // end doc
    done.wait();
    std::vector<int> evens, positives;
    std::copy_if(host.begin(), host.end(), std::back_inserter(evens), [](int v) { return v % 2 == 0; });
    std::copy_if(host.begin(), host.end(), std::back_inserter(positives), [](int v) { return v > 0; });
    ASSERT_EQ(out_count.read_at(q, 0), std::int64_t(evens.size()));
    EXPECT_EQ(out.view(0, evens.size()).to_host(q), evens);
    ASSERT_EQ(some.size(), 10u);
    EXPECT_EQ(all_count.get(q), std::int64_t(positives.size()));
    EXPECT_EQ(some.to_host(q), std::vector<int>(positives.begin(), positives.begin() + 10));
    ASSERT_EQ(square_count.get(q), 1000);
    ASSERT_EQ(root_count.get(q), 1000);
    const auto host_squares = squares.view(0, 1000).to_host(q);
    const auto host_roots = roots.view(0, 1000).to_host(q);
    for (std::int64_t k = 0; k < 1000; ++k) {
        ASSERT_EQ(host_squares[k], k * k);
        ASSERT_EQ(host_roots[k], k);
    }
}

TEST(Docs, Philox) {
    const clalgo::Context& ctx = context();
    const clalgo::Queue& q = queue();
    // doc: docs/kernels.md
    clalgo::ReductionOptions options;
    options.preamble = std::string(clalgo::snippets::philox) + R"CLC(
/* 1 where the point that Philox draws from counter i lies inside the quarter circle */
inline long in_circle(long i, uint seed)
{
    const uint4 bits = philox4x32_10((uint4)((uint)i, (uint)(i >> 32), 0, 0), (uint2)(seed, 0));
    const float x = philox_uniform_float(bits.x), y = philox_uniform_float(bits.y);
    return x * x + y * y < 1.0f;
}
)CLC";
    clalgo::ReductionKernel<std::int64_t> hits(ctx, "0", "a+b", "in_circle(i, seed)", "uint seed", options);
    const std::int64_t samples = 1 << 22;
    double pi = 4.0 * hits(q, clalgo::range(0, samples), cl_uint(42)) / samples;
    // end doc
    EXPECT_NEAR(pi, 3.14159265, 5 * 4 * std::sqrt(0.25 * 0.75 / samples));
}

// ----------------------------------------------------------------------------- docs/caching-and-environment.md

TEST(Docs, SeeTheGeneratedSourceAndTheCache) {
    const clalgo::Context& ctx = context();
    // doc: docs/caching-and-environment.md
    clalgo::CacheStatistics before = clalgo::cache_statistics();
    clalgo::ElementwiseKernel square(ctx, "float *x", "x[i] = x[i] * x[i]");
    clalgo::ElementwiseKernel again(ctx, "float *x", "x[i] = x[i] * x[i]");  // the same program: not built again
    std::string source = square.source();  // the generated OpenCL C, for the context's first device
    clalgo::CacheStatistics after = clalgo::cache_statistics();
    std::printf("built from source: %llu, loaded from disk: %llu, found in memory: %llu\n",
                (unsigned long long)(after.source_builds - before.source_builds),
                (unsigned long long)(after.disk_hits - before.disk_hits),
                (unsigned long long)(after.memory_hits - before.memory_hits));
    // end doc
    EXPECT_TRUE(clalgo_test::contains(source, "x[i] = x[i] * x[i]"));
    EXPECT_GE(after.memory_hits - before.memory_hits, 1u);
}

// ------------------------------------------------------------------------------------ docs/troubleshooting.md

TEST(Docs, ReadABuildError) {
    const clalgo::Context& ctx = context();
    ::testing::internal::CaptureStderr();
    // doc: docs/troubleshooting.md
    try {
        clalgo::ElementwiseKernel scale(ctx, "float *x", "x[i] = factor * x[i]");  // `factor` is not declared
    } catch (const clalgo::BuildError& error) {
        std::fprintf(stderr, "%s", error.what());  // your code, the compiler's log and the numbered source
        // error.log(), error.source(), error.numbered_source() and error.kernel_name() hold the parts
    }
    // end doc
    const std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_TRUE(clalgo_test::contains(printed, "kernel 'elementwise' failed to build"));
    EXPECT_TRUE(clalgo_test::contains(printed, "your operation: x[i] = factor * x[i]"));
}

TEST(Docs, OutOfDeviceMemory) {
    const clalgo::Queue& q = queue();
    ::testing::internal::CaptureStderr();
    // doc: docs/troubleshooting.md
    try {
        clalgo::Array<double> huge(q, std::size_t(1) << 50);  // 8 PiB
    } catch (const clalgo::DeviceMemoryError& error) {
        std::fprintf(stderr, "%s\n", error.what());  // what was asked for, and what the device allows
    }
    // end doc
    EXPECT_TRUE(clalgo_test::contains(::testing::internal::GetCapturedStderr(), "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
}

// ---------------------------------------------------------------------------------------------- docs/scaling.md

TEST(Docs, SeveralDevices) {
    // two queues on the test device stand for two devices
    clalgo::DeviceSet devices(std::vector<clalgo::Queue>{clalgo::Queue(context()), clalgo::Queue(context())});
    // doc: docs/scaling.md
    clalgo::ReductionKernel<std::int64_t> count(devices.context(), "0", "a + b", "i % 7 == 3 ? 1 : 0", "");
    devices.set_weights({3, 1});                                       // the first device takes 3/4 of the range
    std::int64_t hits = devices.reduce(count, clalgo::range(0, 1000000));  // 142857

    clalgo::SplitScanKernel<std::int64_t> cumsum(devices, "long *out, long start", "i % 10", "a + b", "0",
                                                 "out[i - start] = item");   // start: the device's first index
    clalgo::SplitArray<std::int64_t> out(devices, 1000);              // part d on device d, split as the range
    cumsum(clalgo::range(0, 1000), out, clalgo::share_start);          // each device carried in from the ones before

    auto [kept, how_many] = clalgo::copy_if(devices, clalgo::range(0, 1000), "i % 100 == 0");  // 0, 100, ..., 900
    // end doc
    EXPECT_EQ(hits, 142857);
    const auto host = out.to_host(devices);
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < 1000; ++i) EXPECT_EQ(host[i], sum += i % 10);
    EXPECT_EQ(how_many.get(devices.queue(0)), 10);
    EXPECT_EQ(kept.view(0, 10).to_host(devices.queue(0)), (std::vector<std::int64_t>{0, 100, 200, 300, 400, 500, 600, 700, 800, 900}));
}
