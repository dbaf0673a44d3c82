// kernels/raw_kernel.hpp: hand-written OpenCL C built through the caches, after the library's prologue (the fp64
// pragma, the complex functions) unless the source has its own, its kernels' calls checked against the parameters
// read from the source (codegen/kernel_signature.hpp), each result against the CPU.
#include "support.hpp"

#include <complex>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

const char* const saxpy_source = R"CLC(
/* y = a x + y, and a block sum through local memory */
__kernel void saxpy(const float a, __global const float *x, __global float *restrict y, const long n)
{
    const long i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// one partial sum per work-group
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void block_sums(__global const int *values, __global long *sums, __local long *scratch, uint count)
{
    const uint lid = get_local_id(0), gid = get_global_id(0);
    scratch[lid] = gid < count ? values[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = 32; width > 0; width /= 2) {
        if (lid < width)
            scratch[lid] += scratch[lid + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
)CLC";

}  // namespace

TEST(KernelSignatures, AreReadWithTheirAddressSpacesTypesAndNamesPastCommentsAndAttributes) {
    const auto kernels = clalgo::detail::read_kernel_signatures(saxpy_source);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[0].name, "saxpy");
    ASSERT_EQ(kernels[0].parameters.size(), 4u);
    EXPECT_EQ(kernels[0].parameters[0].type, "float");
    EXPECT_FALSE(kernels[0].parameters[0].is_pointer);
    EXPECT_EQ(kernels[0].parameters[2].name, "y");
    EXPECT_TRUE(kernels[0].parameters[2].is_pointer);
    EXPECT_EQ(kernels[0].parameters[2].space, clalgo::KernelParameter::Space::global);
    EXPECT_TRUE(kernels[0].parameters[1].is_const);
    EXPECT_EQ(kernels[1].name, "block_sums");
    ASSERT_EQ(kernels[1].parameters.size(), 4u);
    EXPECT_EQ(kernels[1].parameters[2].space, clalgo::KernelParameter::Space::local);
    EXPECT_EQ(kernels[1].parameters[3].type, "uint");
    const auto spelled = clalgo::detail::read_kernel_signatures(
        "__kernel void f(unsigned int k, __constant float4 *table, my_type t, global uchar x[])\n{ }\n"
        "__kernel void g(void) { }");
    ASSERT_EQ(spelled.size(), 2u);
    EXPECT_EQ(spelled[0].parameters[0].type, "uint");
    EXPECT_EQ(spelled[0].parameters[1].space, clalgo::KernelParameter::Space::constant);
    EXPECT_EQ(spelled[0].parameters[1].type, "float4");
    EXPECT_FALSE(spelled[0].parameters[2].is_known());
    EXPECT_TRUE(spelled[0].parameters[3].is_pointer);
    EXPECT_TRUE(spelled[1].parameters.empty());
}

TEST(RawKernel, SaxpyAndALocalMemoryBlockSumMatchTheCpu) {
    clalgo::RawProgram program(context(), saxpy_source);
    EXPECT_EQ(program.kernel_names(), (std::vector<std::string>{"saxpy", "block_sums"}));
    clalgo::RawKernel saxpy = program.kernel("saxpy");
    const std::size_t n = 10000;
    const auto hx = clalgo_test::random_values<float>(n, 1), hy = clalgo_test::random_values<float>(n, 2);
    auto x = clalgo::to_device(queue(), hx), y = clalgo::to_device(queue(), hy);
    // 3 is converted to the declared float, n to the declared long; the global size is rounded up to 64s
    saxpy(queue(), (n + 63) / 64 * 64, 64, 3, x, y, n);
    const auto result = y.to_host(queue());
    // the device may fuse the multiply and add: one rounding fewer
    for (std::size_t k = 0; k < n; ++k) EXPECT_NEAR(result[k], 3.0f * hx[k] + hy[k], 1e-6f) << k;

    auto block_sums = program.kernel("block_sums");
    const auto values = clalgo_test::random_values<std::int32_t>(n, 3);
    const std::size_t groups = (n + 63) / 64;
    clalgo::Array<std::int64_t> sums(queue(), groups);
    block_sums(queue(), groups * 64, 64, clalgo::to_device(queue(), values), sums,
               clalgo::local_memory<std::int64_t>(64), std::uint32_t(n));
    const auto host_sums = sums.to_host(queue());
    for (std::size_t g = 0; g < groups; ++g) {
        std::int64_t expected = 0;
        for (std::size_t k = g * 64; k < std::min(n, g * 64 + 64); ++k) expected += values[k];
        EXPECT_EQ(host_sums[g], expected) << g;
    }
}

TEST(RawKernel, TwoDimensionalLaunchesAndViewsThatStartInsideTheirBufferWork) {
    clalgo::RawProgram program(context(), R"CLC(
__kernel void transpose(__global const int *in, __global int *out, int rows, int columns)
{
    const int r = get_global_id(1), c = get_global_id(0);
    out[c * rows + r] = in[r * columns + c];
}
__kernel void add_one(__global int *x) { x[get_global_id(0)] += 1; }
)CLC");
    const int rows = 37, columns = 50;
    std::vector<int> matrix(rows * columns);
    std::iota(matrix.begin(), matrix.end(), 0);
    auto in = clalgo::to_device(queue(), matrix);
    clalgo::Array<int> out(queue(), matrix.size());
    program.kernel("transpose")(queue(), cl::NDRange(columns, rows), clalgo::no_local_size, in, out, rows, columns);
    const auto transposed = out.to_host(queue());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < columns; ++c) EXPECT_EQ(transposed[c * rows + r], matrix[r * columns + c]);

    // a view 1024 elements in (4096 bytes, aligned on every device) becomes a sub-buffer
    auto add_one = program.kernel("add_one");
    clalgo::Array<int> x(queue(), 3000);
    x.fill(queue(), 5);
    add_one(queue(), 100, clalgo::no_local_size, x.view(1024, 100));
    const auto host = x.to_host(queue());
    for (std::size_t k = 0; k < host.size(); ++k) EXPECT_EQ(host[k], k >= 1024 && k < 1124 ? 6 : 5) << k;
}

TEST(RawKernel, CallsAreCheckedAgainstTheSourcesParametersWithElementwiseKernelsMessages) {
    clalgo::RawProgram program(context(), saxpy_source);
    auto saxpy = program.kernel("saxpy");
    clalgo::Array<float> x(queue(), 64), y(queue(), 64);
    clalgo::Array<double> doubles(queue(), 64);
    auto message = message_of<std::invalid_argument>([&] { saxpy(queue(), 64, 64, 2.0f, doubles, y, 64); });
    EXPECT_TRUE(contains(message, "kernel 'saxpy', argument 2 'x' is declared 'const float *' but an Array<double>"));
    message = message_of<std::invalid_argument>([&] { saxpy(queue(), 64, 64, 0.1, x, y, 64); });
    EXPECT_TRUE(contains(message, "argument 1 'a'"));
    EXPECT_TRUE(contains(message, "the double 0.10000000000000001 was given, and float cannot hold it exactly"));
    message = message_of<std::invalid_argument>([&] { saxpy(queue(), 64, 64, 2.0f, x, y); });
    EXPECT_TRUE(contains(message, "takes 4 argument(s)"));
    message = message_of<std::invalid_argument>([&] { saxpy(queue(), 64, 64, 2.0f, 1.0f, y, 64); });
    EXPECT_TRUE(contains(message, "'x'"));
    EXPECT_TRUE(contains(message, "scalar float"));
    auto block_sums = program.kernel("block_sums");
    clalgo::Array<int> ints(queue(), 64);
    clalgo::Array<std::int64_t> sums(queue(), 1);
    message = message_of<std::invalid_argument>([&] { block_sums(queue(), 64, 64, ints, sums, sums, 64u); });
    EXPECT_TRUE(contains(message, "'scratch'"));
    EXPECT_TRUE(contains(message, "local_memory"));
    clalgo::Array<int> moved(queue(), 64), taken = std::move(moved);
    message = message_of<std::invalid_argument>(
        [&] { block_sums(queue(), 64, 64, moved, sums, clalgo::local_memory<std::int64_t>(64), 64u); });
    EXPECT_TRUE(contains(message, "'values'"));
    EXPECT_TRUE(contains(message, "moved from"));
    message = message_of<std::invalid_argument>([&] { program.kernel("nothing"); });
    EXPECT_TRUE(contains(message, "no kernel 'nothing'"));
    EXPECT_TRUE(contains(message, "'saxpy', 'block_sums'"));
}

TEST(RawProgram, BuildsOnceThroughTheCacheAndThrowsBuildErrorWithTheNumberedSource) {
    const std::string source = "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }\n";
    clalgo::RawProgram first(context(), source);
    const auto before = clalgo::cache_statistics();
    clalgo::RawProgram second(context(), source);
    const auto after = clalgo::cache_statistics();
    EXPECT_EQ(after.memory_hits, before.memory_hits + 1);
    EXPECT_EQ(after.source_builds, before.source_builds);
    const std::string broken = "__kernel void broken(__global int *x)\n{\n    x[0] = undefined_name;\n}\n";
    // after the prologue: the source's lines are marked as the user's
    const auto error = message_of<clalgo::BuildError>([&] { clalgo::RawProgram program(context(), broken); });
    EXPECT_TRUE(contains(error, "kernel 'broken' failed to build"));
    EXPECT_TRUE(contains(error, "undefined_name"));
    EXPECT_TRUE(contains(error, " > |     x[0] = undefined_name;    <- your source"));
    // without it, the lines are the source's own
    const auto bare = message_of<clalgo::BuildError>([&] {
        clalgo::RawProgram program(context(), broken, clalgo::RawProgramOptions{"", false});
    });
    EXPECT_TRUE(contains(bare, "    3   |     x[0] = undefined_name;"));
}

// ---- the prologue: the fp64 pragma and the complex functions of generated programs ----

const char* const complex_source = R"CLC(
__kernel void conj_times(__global const float2 *z, __global float2 *out, const float2 w)
{
    const size_t i = get_global_id(0);
    out[i] = clalgo_cmul(clalgo_conj(z[i]), w);
}
)CLC";

/// conj(z) * w of random complex floats, as the conj_times kernel of `program` computes it, against std::complex.
::testing::AssertionResult computes_conj_times(const clalgo::RawProgram& program) {
    const std::size_t n = 1000;
    const auto re = clalgo_test::random_values<float>(n, 1), im = clalgo_test::random_values<float>(n, 2);
    std::vector<std::complex<float>> hz(n);
    for (std::size_t k = 0; k < n; ++k) hz[k] = {re[k], im[k]};
    const std::complex<float> w(0.5f, -2.0f);
    const auto z = clalgo::to_device(queue(), hz);
    clalgo::Array<std::complex<float>> out(queue(), n);
    program.kernel("conj_times")(queue(), n, clalgo::no_local_size, z, out, w);
    const auto got = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        const std::complex<float> expected = std::conj(hz[k]) * w;
        if (std::abs(got[k] - expected) > 1e-5f)
            return ::testing::AssertionFailure() << k << ": (" << got[k].real() << ", " << got[k].imag() << ") vs ("
                                                 << expected.real() << ", " << expected.imag() << ")";
    }
    return ::testing::AssertionSuccess();
}

std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
}

TEST(RawProgram, GetsTheComplexFunctionsAndTheFp64PragmaOfGeneratedPrograms) {
    clalgo::RawProgram program(context(), complex_source);
    EXPECT_TRUE(computes_conj_times(program));
    EXPECT_EQ(program.source(), complex_source);
    const std::string& built = program.built_source();
    EXPECT_EQ(contains(built, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), clalgo_test::has_fp64());
    EXPECT_TRUE(contains(built, std::string(complex_source).substr(1)));
    if (!clalgo_test::has_fp64()) return;
    // double precision without a pragma of its own, complex doubles included
    clalgo::RawProgram doubles(context(), R"CLC(
__kernel void magnitudes(__global const double2 *z, __global double *out)
{
    out[get_global_id(0)] = clalgo_cabs(clalgo_cmul(z[get_global_id(0)], z[get_global_id(0)]));
}
)CLC");
    const std::vector<std::complex<double>> hz{{3, 4}, {-1, 0.5}, {0, 0}};
    clalgo::Array<double> out(queue(), hz.size());
    doubles.kernel("magnitudes")(queue(), hz.size(), clalgo::no_local_size, clalgo::to_device(queue(), hz), out);
    const auto got = out.to_host(queue());
    for (std::size_t k = 0; k < hz.size(); ++k) EXPECT_NEAR(got[k], std::abs(hz[k] * hz[k]), 1e-12) << k;
}

TEST(RawProgram, ASourceWithItsOwnPragmaOrComplexFunctionsBuildsAndKeepsItsOwn) {
    // its own pragma: a second enable is harmless
    if (clalgo_test::has_fp64()) {
        clalgo::RawProgram program(context(), "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" +
                                                  std::string("__kernel void halve(__global double *x) { x[get_global_id(0)] *= 0.5; }\n"));
        auto x = clalgo::to_device(queue(), std::vector<double>{3, 5});
        program.kernel("halve")(queue(), 2, clalgo::no_local_size, x);
        EXPECT_EQ(x.to_host(queue()), (std::vector<double>{1.5, 2.5}));
    }
    // the complex functions copied from a generated program's source: they are not added a second time
    const std::string copied = clalgo::detail::complex_prologue(clalgo_test::has_fp64()) + complex_source;
    clalgo::RawProgram with_copy(context(), copied);
    EXPECT_TRUE(computes_conj_times(with_copy));
    EXPECT_EQ(count_of(with_copy.built_source(), "clalgo_cmul(const float2 a"), count_of(copied, "clalgo_cmul(const float2 a"));
    // a function of its own under one of the names: its own is called (here conj is the identity)
    clalgo::RawProgram own(context(), "float2 clalgo_conj(float2 z) { return z; }\n"
                                      "float2 clalgo_cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }\n"
                                      "__kernel void twice(__global float2 *z) { z[get_global_id(0)] = clalgo_cmul(clalgo_conj(z[0]), (float2)(2, 0)); }\n");
    auto z = clalgo::to_device(queue(), std::vector<std::complex<float>>{{1, 1}});
    own.kernel("twice")(queue(), 1, clalgo::no_local_size, z);
    EXPECT_EQ(z.read_at(queue(), 0), std::complex<float>(2, 2));
    // a macro of one of the names comes after the library's functions and replaces it
    clalgo::RawProgram macro(context(), std::string("#define clalgo_conj(z) (z)\n") + complex_source);
    EXPECT_FALSE(computes_conj_times(macro)) << "the macro, not the library's conj, must be used";
}

TEST(RawProgramDocs, ComplexFunctionsInAHandWrittenKernel) {
    clalgo::Queue& q = queue();
    const clalgo::Context& ctx = context();
    const std::vector<std::complex<float>> host{{1, 2}, {3, -1}, {0, 0.5f}};
    auto z = clalgo::to_device(q, host);
    clalgo::RawProgram program(ctx, R"CLC(
__kernel void square_all(__global float2 *z)
{
    z[get_global_id(0)] = clalgo_cmul(z[get_global_id(0)], z[get_global_id(0)]);
}
)CLC");
    program.kernel("square_all")(q, z.size(), clalgo::no_local_size, z);  // z[k] = z[k] * z[k]
    const auto squared = z.to_host(q);
    for (std::size_t k = 0; k < host.size(); ++k) EXPECT_EQ(squared[k], host[k] * host[k]) << k;
}

TEST(RawProgram, TellsADeclarationOfAComplexFunctionFromAUse) {
    const auto& names = clalgo::detail::complex_function_names();
    for (const auto& name : names) EXPECT_TRUE(contains(clalgo::detail::complex_prologue(true), " " + name + "(")) << name;
    for (const char* use : {"x = clalgo_cmul(a, b);", "return clalgo_cmul(a, b);", "f(clalgo_conj(z))",
                            "#define clalgo_cmul(a, b) ((a) * (b))", "/* float2 clalgo_cmul(float2 a) */ x = 1;",
                            "float2 my_clalgo_cmul(float2 a);", "(float2)clalgo_cexp(z)", "else clalgo_cabs(z);"})
        EXPECT_FALSE(clalgo::detail::declares_any(use, names)) << use;
    for (const char* declaration : {"float2 clalgo_cmul(float2 a, float2 b) { return a; }", "float2 clalgo_conj(float2);",
                                    "inline float\nclalgo_cabs (float2 z) { return 0; }",
                                    "__attribute__((overloadable)) double2 clalgo_cexp(double2 z);"})
        EXPECT_TRUE(clalgo::detail::declares_any(declaration, names)) << declaration;
}

TEST(RawProgram, WithoutThePrologueTheSourceIsBuiltAsGiven) {
    clalgo::RawProgram program(context(), saxpy_source, clalgo::RawProgramOptions{"", false});
    EXPECT_EQ(program.built_source(), saxpy_source);
    const auto error = message_of<clalgo::BuildError>(
        [] { clalgo::RawProgram program(context(), complex_source, clalgo::RawProgramOptions{"", false}); });
    EXPECT_TRUE(contains(error, "clalgo_cmul"));
}
