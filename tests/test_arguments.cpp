// codegen/arguments.hpp: parsing argument declarations, and the check of a call's C++ arguments against them.
#include "support.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

/// The message parse_arguments throws for `declarations`.
std::string parse_error(const std::string& declarations) {
    return message_of<std::invalid_argument>([&] { clalgo::parse_arguments(declarations); });
}

}  // namespace

// ---- valid declarations ----

TEST(ArgumentDeclarations, EmptyOrBlankStringDeclaresNoArguments) {
    EXPECT_TRUE(clalgo::parse_arguments("").empty());
    EXPECT_TRUE(clalgo::parse_arguments("   \t\n ").empty());
}

TEST(ArgumentDeclarations, ScalarAndArrayKeepTheirOrderNamesAndTypes) {
    const auto parsed = clalgo::parse_arguments("float a, const float *x, long count, int *out");
    ASSERT_EQ(parsed.size(), 4u);
    const std::vector<std::string> names = {"a", "x", "count", "out"};
    const std::vector<std::string> types = {"float", "float", "long", "int"};
    const std::vector<bool> arrays = {false, true, false, true};
    const std::vector<bool> consts = {false, true, false, false};
    for (std::size_t k = 0; k < parsed.size(); ++k) {
        EXPECT_EQ(parsed[k].name, names[k]) << k;
        EXPECT_EQ(parsed[k].type, types[k]) << k;
        EXPECT_EQ(parsed[k].is_array, arrays[k]) << k;
        EXPECT_EQ(parsed[k].is_const, consts[k]) << k;
    }
    EXPECT_EQ(parsed[1].declared, "const float *x");
    EXPECT_EQ(parsed[1].type_text(), "const float *");
    EXPECT_EQ(parsed[2].type_text(), "long");
}

TEST(ArgumentDeclarations, AcceptsGlobalRestrictAndVolatileQualifiersInAnySpelling) {
    for (const std::string text : {"__global const float *x", "global const float *x", "const __global float *x",
                                   "__global const float * restrict x", "const float *__restrict x"}) {
        const auto parsed = clalgo::parse_arguments(text);
        ASSERT_EQ(parsed.size(), 1u) << text;
        EXPECT_EQ(parsed[0].name, "x") << text;
        EXPECT_EQ(parsed[0].type, "float") << text;
        EXPECT_TRUE(parsed[0].is_array) << text;
        EXPECT_TRUE(parsed[0].is_const) << text;
        EXPECT_EQ(parsed[0].is_restrict, text.find("restrict") != std::string::npos) << text;
    }
    const auto flag = clalgo::parse_arguments("volatile __global int *flag");
    ASSERT_EQ(flag.size(), 1u);
    EXPECT_TRUE(flag[0].is_volatile);
    EXPECT_TRUE(flag[0].is_array);
    EXPECT_FALSE(flag[0].is_const);
}

TEST(ArgumentDeclarations, CanonicalisesCAndFixedWidthSpellingsOfTypes) {
    const auto parsed = clalgo::parse_arguments(
        "unsigned int a, unsigned char b, unsigned short c, unsigned long d, int64_t e, uint8_t *f, cl_float g");
    const std::vector<std::string> expected = {clalgo::type_name<unsigned int>(),   clalgo::type_name<unsigned char>(),
                                               clalgo::type_name<unsigned short>(), clalgo::type_name<std::uint64_t>(),
                                               clalgo::type_name<std::int64_t>(),   clalgo::type_name<std::uint8_t>(),
                                               clalgo::type_name<cl_float>()};
    ASSERT_EQ(parsed.size(), expected.size());
    for (std::size_t k = 0; k < parsed.size(); ++k) EXPECT_EQ(parsed[k].type, expected[k]) << parsed[k].declared;
    EXPECT_EQ(parsed[0].type, "uint");
}

TEST(ArgumentDeclarations, AcceptsVectorTypesAsScalarsAndAsArrays) {
    const auto parsed = clalgo::parse_arguments("float4 v, const int2 *pairs, uchar16 mask, double8 *wide");
    ASSERT_EQ(parsed.size(), 4u);
    EXPECT_EQ(parsed[0].type, clalgo::type_name<cl_float4>());
    EXPECT_FALSE(parsed[0].is_array);
    EXPECT_EQ(parsed[1].type, clalgo::type_name<cl_int2>());
    EXPECT_TRUE(parsed[1].is_array);
    EXPECT_EQ(parsed[2].type, clalgo::type_name<cl_uchar16>());
    EXPECT_EQ(parsed[3].type, clalgo::type_name<cl_double8>());
}

TEST(ArgumentDeclarations, IgnoresWhitespaceAroundAndInsidePieces) {
    const auto tight = clalgo::parse_arguments("float a,const float*x,int*y");
    const auto loose = clalgo::parse_arguments("  float \t a ,\n  const   float  *  x ,\r\n int *\ty  ");
    ASSERT_EQ(tight.size(), 3u);
    ASSERT_EQ(loose.size(), tight.size());
    for (std::size_t k = 0; k < tight.size(); ++k) {
        EXPECT_EQ(loose[k].name, tight[k].name);
        EXPECT_EQ(loose[k].type_text(), tight[k].type_text());
    }
}

// ---- invalid declarations: std::invalid_argument naming the piece ----

TEST(ArgumentDeclarations, RejectsMissingNameNamingThePiece) {
    for (const std::string piece : {"float", "const float", "float *", "const __global int *"}) {
        const std::string message = parse_error("int ok, " + piece);
        EXPECT_TRUE(contains(message, "\"" + piece + "\"")) << piece;
    }
}

TEST(ArgumentDeclarations, RejectsStrayCommaNamingTheDeclaration) {
    for (const std::string text : {"float a,,int b", "float a, ,int b", "float a,", ", float a"}) {
        const std::string message = parse_error(text);
        EXPECT_TRUE(contains(message, "\"" + text + "\"")) << text;
        EXPECT_TRUE(contains(message, "empty")) << text;
    }
}

TEST(ArgumentDeclarations, RejectsUnknownTypeNamingThePiece) {
    const std::string message = parse_error("float a, foo *x");
    EXPECT_TRUE(contains(message, "\"foo *x\""));
    EXPECT_TRUE(contains(message, "'foo'"));
}

TEST(ArgumentDeclarations, RejectsAddressSpacesOtherThanGlobalNamingThem) {
    for (const std::string space : {"__local", "local", "__constant", "__private"}) {
        const std::string piece = space + " float *x";
        const std::string message = parse_error("int n2, " + piece);
        EXPECT_TRUE(contains(message, "\"" + piece + "\"")) << piece;
        EXPECT_TRUE(contains(message, "'" + space + "'")) << piece;
    }
}

TEST(ArgumentDeclarations, RejectsPointerToPointerNamingThePiece) {
    const std::string message = parse_error("int **p");
    EXPECT_TRUE(contains(message, "\"int **p\""));
    EXPECT_TRUE(contains(message, "pointer"));
}

TEST(ArgumentDeclarations, RejectsGlobalScalarNamingThePiece) {
    EXPECT_TRUE(contains(parse_error("__global float x"), "\"__global float x\""));
}

TEST(ArgumentDeclarations, RejectsDuplicatedNameNamingIt) {
    const std::string message = parse_error("float a, const int *b, int a");
    EXPECT_TRUE(contains(message, "\"int a\""));
    EXPECT_TRUE(contains(message, "'a'"));
    EXPECT_TRUE(contains(message, "twice"));
}

TEST(ArgumentDeclarations, RejectsReservedPrefixNamingTheName) {
    const std::string message = parse_error("float *clalgo_x");
    EXPECT_TRUE(contains(message, "\"float *clalgo_x\""));
    EXPECT_TRUE(contains(message, "clalgo_"));
}

TEST(ArgumentDeclarations, RejectsNamesThatAreNotIdentifiers) {
    for (const std::string piece : {"float 2x", "float x-y", "float x[4]"})
        EXPECT_TRUE(contains(parse_error(piece), "\"" + piece + "\"")) << piece;
}

TEST(ArgumentDeclarations, ElementwiseRejectsArgumentsNamedLikeItsOwnVariables) {
    for (const std::string name : {"i", "n"}) {
        const std::string message = message_of<std::invalid_argument>(
            [&] { clalgo::ElementwiseKernel(context(), "float *x, long " + name, "x[i] = 0"); });
        EXPECT_TRUE(contains(message, "'" + name + "'")) << name;
    }
}

// ---- call-time checks: the message names the argument, the declared and the given type ----

class ArgumentCall : public ::testing::Test {
protected:
    clalgo::ElementwiseKernel kernel{context(), "float a, const float *x, long count, float *y",
                                     "y[i] = a * x[i] + (float)count"};
    clalgo::Array<float> x = clalgo::to_device(queue(), clalgo_test::random_values<float>(16));
    clalgo::Array<float> y{queue(), 16};
};

TEST_F(ArgumentCall, CorrectlyTypedCallComputesTheOperation) {
    const auto hx = x.to_host(queue());
    kernel(queue(), 2.0f, x, std::int64_t(5), y);
    const auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) EXPECT_FLOAT_EQ(hy[k], 2.0f * hx[k] + 5.0f) << k;
}

TEST_F(ArgumentCall, WrongCountNamesBothCountsAndTheDeclarations) {
    const std::string message = message_of<std::invalid_argument>([&] { kernel(queue(), 2.0f, x, y); });
    EXPECT_TRUE(contains(message, "takes 4"));
    EXPECT_TRUE(contains(message, "3 were given"));
    EXPECT_TRUE(contains(message, "const float *x"));
}

TEST_F(ArgumentCall, ScalarGivenForArrayNamesArgumentAndTypes) {
    const std::string message =
        message_of<std::invalid_argument>([&] { kernel(queue(), 2.0f, 1.0f, std::int64_t(5), y); });
    EXPECT_TRUE(contains(message, "'x'"));
    EXPECT_TRUE(contains(message, "'const float *'"));
    EXPECT_TRUE(contains(message, "scalar float"));
}

TEST_F(ArgumentCall, ArrayGivenForScalarNamesArgumentAndTypes) {
    const std::string message = message_of<std::invalid_argument>([&] { kernel(queue(), x, x, std::int64_t(5), y); });
    EXPECT_TRUE(contains(message, "'a'"));
    EXPECT_TRUE(contains(message, "'float'"));
    EXPECT_TRUE(contains(message, "Array<float>"));
}

TEST_F(ArgumentCall, ArrayOfWrongElementTypeNamesArgumentAndTypes) {
    clalgo::Array<double> wrong(queue(), 16);
    const std::string message =
        message_of<std::invalid_argument>([&] { kernel(queue(), 2.0f, wrong, std::int64_t(5), y); });
    EXPECT_TRUE(contains(message, "'x'"));
    EXPECT_TRUE(contains(message, "'const float *'"));
    EXPECT_TRUE(contains(message, "Array<double>"));

    const std::string view_message =
        message_of<std::invalid_argument>([&] { kernel(queue(), 2.0f, x, std::int64_t(5), wrong.view(0, 16)); });
    EXPECT_TRUE(contains(view_message, "'y'"));
    EXPECT_TRUE(contains(view_message, "'float *'"));
    EXPECT_TRUE(contains(view_message, "ArrayView<double>"));
}

TEST_F(ArgumentCall, ExactValuesOfOtherArithmeticTypesAreConvertedToTheDeclaredType) {
    const auto hx = x.to_host(queue());
    // an int for float and for long, a double that is exactly a float
    kernel(queue(), 3, x, 5, y);
    auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) EXPECT_FLOAT_EQ(hy[k], 3.0f * hx[k] + 5.0f) << k;
    kernel(queue(), 0.5, x, std::uint8_t(7), y);
    hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) EXPECT_FLOAT_EQ(hy[k], 0.5f * hx[k] + 7.0f) << k;
    kernel(queue(), std::int64_t(1) << 24, x, std::uint64_t(9), y);  // 2^24 is a float; 9 fits in a long
    hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) EXPECT_FLOAT_EQ(hy[k], 16777216.0f * hx[k] + 9.0f) << k;
}

TEST_F(ArgumentCall, CallsOfOneThreadReuseTheirBoundArgumentsWithNothingLeftFromTheCallBefore) {
    // the thread's kept vector is rebound at each call: a converted scalar, a wrong call that throws half bound,
    // then calls of other lengths and kinds, each checked against the CPU
    const auto hx = x.to_host(queue());
    clalgo::ElementwiseKernel twice(context(), "const float *x, float *y", "y[i] = 2.0f * x[i]");
    kernel(queue(), 3, x, 5, y);  // converted in the kept vector: an int taken for float and for long
    const std::vector<clalgo::detail::BoundArgument>* first = nullptr;
    {
        const clalgo::detail::KeptArguments lease;
        first = &lease.get();
    }
    EXPECT_THROW(kernel(queue(), 2.0f, x, y), std::invalid_argument);
    EXPECT_THROW(kernel(queue(), x, x, std::int64_t(5), y), std::invalid_argument);
    {
        const clalgo::detail::KeptArguments lease;  // the calls that threw gave their vector back
        EXPECT_EQ(&lease.get(), first);
    }
    twice(queue(), x, y);
    auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) EXPECT_FLOAT_EQ(hy[k], 2.0f * hx[k]) << k;
    kernel(queue(), 0.5f, x.view(4, 8), std::int64_t(1), y.view(8, 8));
    hy = y.to_host(queue());
    for (std::size_t k = 0; k < 8; ++k) EXPECT_FLOAT_EQ(hy[8 + k], 0.5f * hx[4 + k] + 1.0f) << k;
    for (std::size_t k = 0; k < 8; ++k) EXPECT_FLOAT_EQ(hy[k], 2.0f * hx[k]) << k;
}

TEST(KeptArguments, ALeaseTakenWhileAnotherIsHeldGetsItsOwnVectorAndLeavesTheOtherWhereItWas) {
    namespace detail = clalgo::detail;
    clalgo::Array<float> x = clalgo::to_device(queue(), std::vector<float>{1.0f, 2.0f});
    const detail::KeptArguments outer;
    detail::CallOptions options;
    auto& bound = detail::bind_call(outer.get(), queue(), options, 1.5f, x, clalgo::range(0, 2));
    ASSERT_EQ(bound.size(), 2u);  // the range is an option, not an argument
    ASSERT_TRUE(options.range.has_value());
    std::vector<std::unique_ptr<detail::KeptArguments>> inner;
    for (int depth = 0; depth < 40; ++depth) {  // deeper than any call nests: new vectors are made meanwhile
        inner.push_back(std::make_unique<detail::KeptArguments>());
        EXPECT_NE(&inner.back()->get(), &outer.get());
        detail::CallOptions inner_options;
        detail::bind_call(inner.back()->get(), queue(), inner_options, depth, depth, depth);
    }
    EXPECT_EQ(&bound, &outer.get());
    ASSERT_EQ(bound.size(), 2u);
    EXPECT_EQ(bound[0].type, "float");
    float value = 0;
    std::memcpy(&value, bound[0].bytes.data(), sizeof value);
    EXPECT_EQ(value, 1.5f);
    EXPECT_TRUE(bound[1].is_array);
    EXPECT_EQ(bound[1].size, 2u);
    inner.clear();
    const detail::KeptArguments next;  // released leases are taken again, outside the one still held
    EXPECT_NE(&next.get(), &outer.get());
}

TEST(ArgumentCallScalars, WideVectorScalarsReachTheKernelWholeBesideNarrowOnes) {
    // a call keeps a scalar's bytes in place up to 64 bytes and on the heap beyond: a long8 is 64 bytes, a
    // long16 128; each is passed by value between narrow scalars, and each lane comes back
    clalgo::ElementwiseKernel kernel(context(), "char c, long16 w, int k, long8 l, long *out, long *out_narrow",
                                     "long ww[16]; long ll[8]; vstore16(w, 0, ww); vstore8(l, 0, ll);\n"
                                     "out[i] = ww[i] + c; out_narrow[i] = i < 8 ? ll[i] * k : k");
    cl_long16 w;
    cl_long8 l;
    for (int k = 0; k < 16; ++k) w.s[k] = (std::int64_t(k) << 35) - 1000;
    for (int k = 0; k < 8; ++k) l.s[k] = (std::int64_t(1) << 40) + k;
    clalgo::Array<std::int64_t> out(queue(), 16), out_narrow(queue(), 16);
    for (int round = 0; round < 2; ++round) {  // the second call sets the same values again, from a new binding
        kernel(queue(), static_cast<cl_char>(3 + round), w, 7, l, out, out_narrow);
        const auto host = out.to_host(queue());
        const auto host_narrow = out_narrow.to_host(queue());
        for (int k = 0; k < 16; ++k) {
            EXPECT_EQ(host[k], (std::int64_t(k) << 35) - 1000 + 3 + round) << k;
            EXPECT_EQ(host_narrow[k], k < 8 ? ((std::int64_t(1) << 40) + k) * 7 : 7) << k;
        }
    }
    // a wide scalar bound once and copied with the options that hold it (a predicate's extra argument)
    clalgo::SelectionOptions options;
    options.extra_args = {clalgo::Argument("w", w)};
    const clalgo::SelectionOptions copied = options;
    std::vector<std::int64_t> values(64);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = w.s[k % 16] + std::int64_t(k % 3);
    auto input = clalgo::to_device(queue(), values);
    auto [kept, count] = clalgo::copy_if(queue(), input, "ary[i] == ((const long *)&w)[i % 16]", copied);
    std::vector<std::int64_t> expected;
    for (std::size_t k = 0; k < values.size(); ++k)
        if (values[k] == w.s[k % 16]) expected.push_back(values[k]);
    ASSERT_EQ(count.get(queue()), static_cast<std::int64_t>(expected.size()));
    auto host_kept = kept.to_host(queue());
    host_kept.resize(expected.size());
    EXPECT_EQ(host_kept, expected);
}

TEST(ScalarConversion, AcceptsExactlyTheValuesTheDeclaredTypeHolds) {
    using clalgo::detail::ScalarValue;
    std::string why;
    auto converts = [&](const ScalarValue& value, const char* target) {
        why.clear();
        return clalgo::detail::convert_scalar(value, target, why).has_value();
    };
    EXPECT_TRUE(converts(ScalarValue::of(5), "float"));
    EXPECT_TRUE(converts(ScalarValue::of((1 << 24)), "float"));
    EXPECT_FALSE(converts(ScalarValue::of((1 << 24) + 1), "float"));
    EXPECT_TRUE(converts(ScalarValue::of((1 << 24) + 1), "double"));
    EXPECT_TRUE(converts(ScalarValue::of((std::int64_t(1) << 53)), "double"));
    EXPECT_FALSE(converts(ScalarValue::of((std::int64_t(1) << 53) + 1), "double"));
    EXPECT_FALSE(converts(ScalarValue::of(std::numeric_limits<std::int64_t>::max()), "double"));
    EXPECT_TRUE(converts(ScalarValue::of(std::numeric_limits<std::int64_t>::min()), "double"));  // -2^63
    EXPECT_FALSE(converts(ScalarValue::of(std::numeric_limits<std::uint64_t>::max()), "float"));
    EXPECT_TRUE(converts(ScalarValue::of(3), "long"));
    EXPECT_TRUE(converts(ScalarValue::of(255), "uchar"));
    EXPECT_FALSE(converts(ScalarValue::of(256), "uchar"));
    EXPECT_FALSE(converts(ScalarValue::of(-1), "uint"));
    EXPECT_FALSE(converts(ScalarValue::of(std::numeric_limits<std::uint64_t>::max()), "long"));
    EXPECT_TRUE(converts(ScalarValue::of(std::uint64_t(1) << 62), "long"));
    EXPECT_TRUE(converts(ScalarValue::of(0.25f), "double"));
    EXPECT_TRUE(converts(ScalarValue::of(0.25), "float"));
    EXPECT_TRUE(converts(ScalarValue::of(std::numeric_limits<double>::infinity()), "float"));
    EXPECT_FALSE(converts(ScalarValue::of(0.1), "float"));
    EXPECT_FALSE(converts(ScalarValue::of(1e300), "float"));
    EXPECT_FALSE(converts(ScalarValue::of(3.0), "int"));       // floating point never becomes an integer
    EXPECT_FALSE(converts(ScalarValue::of(3), "float4"));      // nor anything a vector or a struct
    // the converted bytes are the declared type's
    const auto bytes = clalgo::detail::convert_scalar(ScalarValue::of(-3), "short", why);
    ASSERT_TRUE(bytes.has_value());
    std::int16_t value = 0;
    ASSERT_EQ(bytes->size(), sizeof value);
    std::memcpy(&value, bytes->data(), sizeof value);
    EXPECT_EQ(value, -3);
}

TEST_F(ArgumentCall, AnIntegerAFloatCannotHoldIsRefusedWithItsValueAndTheNearestFloat) {
    const std::string message = message_of<std::invalid_argument>([&] { kernel(queue(), (1 << 24) + 1, x, 5, y); });
    EXPECT_TRUE(contains(message, "'a'"));
    EXPECT_TRUE(contains(message, "'float'"));
    EXPECT_TRUE(contains(message, "the int 16777217 was given"));
    EXPECT_TRUE(contains(message, "float cannot hold it exactly (the nearest float is 16777216)"));
    EXPECT_TRUE(contains(message, "cast the value"));
}

TEST_F(ArgumentCall, ADoubleThatIsNoFloatIsRefusedWithItsValue) {
    const std::string message = message_of<std::invalid_argument>([&] { kernel(queue(), 0.1, x, 5, y); });
    EXPECT_TRUE(contains(message, "'a'"));
    EXPECT_TRUE(contains(message, "'float'"));
    EXPECT_TRUE(contains(message, "the double 0.10000000000000001 was given"));
    EXPECT_TRUE(contains(message, "float cannot hold it exactly"));
}

TEST_F(ArgumentCall, AnIntegerOutsideTheDeclaredRangeIsRefused) {
    const std::string message = message_of<std::invalid_argument>(
        [&] { kernel(queue(), 2.0f, x, std::numeric_limits<std::uint64_t>::max(), y); });
    EXPECT_TRUE(contains(message, "'count'"));
    EXPECT_TRUE(contains(message, "'long'"));
    EXPECT_TRUE(contains(message, "the ulong 18446744073709551615 was given"));
    EXPECT_TRUE(contains(message, "outside the range of long"));
}

TEST(ArgumentConversion, AFloatingPointValueIsNeverTakenForAnInteger) {
    clalgo::ElementwiseOptions options;
    options.name = "shift_by";
    clalgo::ElementwiseKernel shift(context(), "int k, int *y", "y[i] = k", options);
    clalgo::Array<int> y(queue(), 4);
    const std::string message = message_of<std::invalid_argument>([&] { shift(queue(), 3.0, y); });
    EXPECT_TRUE(contains(message, "shift_by"));
    EXPECT_TRUE(contains(message, "'k'"));
    EXPECT_TRUE(contains(message, "not converted to the integer type int"));
    // and a vector must be given as itself
    clalgo::ElementwiseKernel fill(context(), "float2 v, float2 *y", "y[i] = v");
    clalgo::Array<cl_float2> pairs(queue(), 4);
    const std::string vector_message = message_of<std::invalid_argument>([&] { fill(queue(), 1.0f, pairs); });
    EXPECT_TRUE(contains(vector_message, "a float was given (cast the value to the declared type)"));
}

// ---- arrays checked before anything is enqueued (codegen/call_checks.hpp) ----

TEST(CallArrays, AnArrayMovedFromOrEmptyIsRefusedNamingTheKernelAndArgument) {
    clalgo::ElementwiseOptions options;
    options.name = "moved_axpy";
    clalgo::ElementwiseKernel axpy(context(), "const float *x, float *y", "y[i] = 2 * x[i]", options);
    auto x = clalgo::to_device(queue(), std::vector<float>(100, 1.0f));
    clalgo::Array<float> y(queue(), 100);
    clalgo::Array<float> taken = std::move(y);
    for (int reduction : {0, 1}) {
        const auto message = message_of<std::invalid_argument>([&] {
            if (reduction) {
                clalgo::ReductionKernel<float> sum(context(), "0", "a+b", "x[i] * y[i]", "const float *x, const float *y");
                sum(queue(), x, y);
            } else {
                axpy(queue(), x, y);
            }
        });
        EXPECT_TRUE(contains(message, "'y'")) << message;
        EXPECT_TRUE(contains(message, "moved from")) << message;
    }
    axpy(queue(), x, taken);  // the array it moved to works
    EXPECT_EQ(taken.to_host(queue()), std::vector<float>(100, 2.0f));
}

TEST(CallArrays, AnArrayShorterThanTheIndicesItIsReadOrWrittenAtIsRefused) {
    clalgo::ElementwiseOptions options;
    options.name = "short_add";
    clalgo::ElementwiseKernel add(context(), "const int *x, const int *y, int *z", "z[i] = x[i] + y[i]", options);
    auto x = clalgo::to_device(queue(), std::vector<int>(100, 1));
    auto short_y = clalgo::to_device(queue(), std::vector<int>(99, 1));
    clalgo::Array<int> z(queue(), 100), short_z(queue(), 50);
    auto message = message_of<std::invalid_argument>([&] { add(queue(), x, short_y, z); });
    EXPECT_TRUE(contains(message, "short_add")) << message;
    EXPECT_TRUE(contains(message, "'y'")) << message;
    EXPECT_TRUE(contains(message, "99 elements")) << message;
    message = message_of<std::invalid_argument>([&] { add(queue(), x, x, short_z); });
    EXPECT_TRUE(contains(message, "'z'")) << message;
    // over a range: every index of the range must be inside
    message = message_of<std::invalid_argument>([&] { add(queue(), clalgo::range(0, 101), x, x, z); });
    EXPECT_TRUE(contains(message, "[0, 100]")) << message;
    add(queue(), clalgo::range(10, 50), x, x, short_z);  // indices 10..49 fit in 50 elements
    EXPECT_EQ(short_z.view(10, 40).to_host(queue()), std::vector<int>(40, 2));
    // a scan's output and a reduction's second array, the same way
    clalgo::GenericScanKernel<int> scan(context(), "const int *x, int *out", "x[i]", "a+b", "0", "out[i] = item");
    message = message_of<std::invalid_argument>([&] { scan(queue(), x, short_z); });
    EXPECT_TRUE(contains(message, "'out'")) << message;
    clalgo::ReductionKernel<int> dot(context(), "0", "a+b", "x[i] * y[i]", "const int *x, const int *y");
    message = message_of<std::invalid_argument>([&] { dot(queue(), x, short_y); });
    EXPECT_TRUE(contains(message, "'y'")) << message;
}

TEST(CallArrays, ArraysIndexedOtherwiseAreLeftToTheUser) {
    // a lookup table read at computed places, and code that declares an i of its own: not checked (nor refused)
    clalgo::ElementwiseKernel lookup(context(), "const int *table, const int *x, int *y", "y[i] = table[x[i] % 4]");
    auto table = clalgo::to_device(queue(), std::vector<int>{10, 20, 30, 40});
    auto x = clalgo::to_device(queue(), std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    clalgo::Array<int> y(queue(), 10);
    lookup(queue(), clalgo::range(0, 10), table, x, y);  // the first array (the table) is not the size
    EXPECT_EQ(y.to_host(queue()), (std::vector<int>{10, 20, 30, 40, 10, 20, 30, 40, 10, 20}));
    const auto indexed = clalgo::detail::indexed_by_launch_index(
        clalgo::parse_arguments("const int *a, const int *b, int *c, int *d"),
        {"c[ i ] = a[i] + b[i+1];", "d[i] = 0;", "x = b[i];"});
    EXPECT_EQ(indexed, (std::vector<bool>{true, false, true, true}));
    EXPECT_EQ(clalgo::detail::indexed_by_launch_index(clalgo::parse_arguments("const int *a"),
                                                      {"for (int i = 0; i < 4; ++i) s += a[i];"}),
              std::vector<bool>{false});
}

TEST(CallArrays, AnArrayOfAnotherContextIsRefused) {
    clalgo::Context other(context().device());  // a second context on the same device
    clalgo::ElementwiseOptions options;
    options.name = "cross_context_copy";
    clalgo::ElementwiseKernel copy(context(), "const int *x, int *y", "y[i] = x[i]", options);
    auto x = clalgo::to_device(queue(), std::vector<int>(10, 1));
    clalgo::Array<int> foreign(clalgo::Queue(other), 10);
    const auto message = message_of<std::invalid_argument>([&] { copy(queue(), x, foreign); });
    EXPECT_TRUE(contains(message, "cross_context_copy")) << message;
    EXPECT_TRUE(contains(message, "'y'")) << message;
    EXPECT_TRUE(contains(message, "another context")) << message;
}

TEST(CallArrays, EveryArrayOfACallThatBelongsToAnotherContextIsRefusedByName) {
    // the arrays that calls take beside their kernels' declared arguments: results, totals, bins, segments
    clalgo::Context other(context().device());
    const clalgo::Queue there(other);
    auto x = clalgo::to_device(queue(), std::vector<int>(1024, 3));
    auto foreign_x = clalgo::to_device(there, std::vector<int>(1024, 3));
    auto values = clalgo::to_device(queue(), std::vector<float>(1024, 1.0f));
    auto foreign_values = clalgo::to_device(there, std::vector<float>(1024, 1.0f));
    const std::vector<std::int64_t> host_offsets{0, 256, 512, 768, 1024};
    auto offsets = clalgo::to_device(queue(), host_offsets);
    auto foreign_offsets = clalgo::to_device(there, host_offsets);
    clalgo::Array<float> sums(queue(), 4), foreign_sums(there, 4);
    clalgo::Array<std::int64_t> bins(queue(), 16), foreign_bins(there, 16), one(queue(), 1), foreign_one(there, 1);
    clalgo::Array<int> out(queue(), 1024), foreign_total(there, 1);
    clalgo::HistogramKernel<std::int64_t> by_remainder(context(), "const int *x", "x[i] % 16");
    clalgo::ReductionKernel<std::int64_t> total(context(), "0", "a+b", "x[i]", "const int *x");
    clalgo::InclusiveScanKernel<int> scan(context(), "a+b", "0");
    auto refused = [&](const char* call, const char* argument, const auto& run) {
        const std::string message = message_of<std::invalid_argument>(run);
        EXPECT_TRUE(contains(message, call)) << message;
        EXPECT_TRUE(contains(message, argument)) << message;
        EXPECT_TRUE(contains(message, "another context")) << message;
    };
    refused("clalgo::histogram: ", "'values'", [&] { clalgo::histogram(queue(), foreign_x, bins, {0, 16}); });
    refused("clalgo::histogram: ", "'bins'", [&] { clalgo::histogram(queue(), x, foreign_bins, {0, 16}); });
    refused("histogram", "'bins'", [&] { by_remainder(queue(), foreign_bins, x); });
    refused("clalgo::segmented_reduce: ", "'values'",
            [&] { clalgo::segmented_reduce(queue(), foreign_values, offsets, sums, "a+b", "0"); });
    refused("clalgo::segmented_reduce: ", "'offsets'",
            [&] { clalgo::segmented_reduce(queue(), values, foreign_offsets, sums, "a+b", "0"); });
    refused("clalgo::segmented_reduce: ", "'out'",
            [&] { clalgo::segmented_reduce(queue(), values, offsets, foreign_sums, "a+b", "0"); });
    refused("clalgo: ", "'destination'", [&] { total.into(queue(), foreign_one, x); });
    // the one-call reductions name themselves and their result, not the kernel they run
    clalgo::Array<std::int32_t> foreign_flag(there, 1);
    clalgo::Array<float> foreign_float(there, 1);
    const std::vector<std::int32_t> picks{0, 5, 9};
    auto indices = clalgo::to_device(queue(), picks);
    refused("clalgo: sum: ", "'result'", [&] { clalgo::sum(queue(), x, foreign_one); });
    refused("clalgo: dot: ", "'result'", [&] { clalgo::dot(queue(), values, values, foreign_float); });
    refused("clalgo: max: ", "'result'", [&] { clalgo::max(queue(), values, foreign_float); });
    refused("clalgo: count_if: ", "'result'", [&] { clalgo::count_if(queue(), x, foreign_one, "x[i] > 2"); });
    refused("clalgo: any_of: ", "'result'", [&] { clalgo::any_of(queue(), x, foreign_flag, "x[i] > 2"); });
    refused("clalgo: argmax: ", "'result'", [&] { clalgo::argmax(queue(), values, foreign_one); });
    refused("clalgo: subset_sum: ", "'result'", [&] { clalgo::subset_sum(queue(), values, indices, foreign_float); });
    refused("clalgo: min: ", "'result'", [&] { clalgo::min(queue(), values, foreign_float); });
    refused("clalgo: vdot: ", "'result'", [&] { clalgo::vdot(queue(), values, values, foreign_float); });
    refused("clalgo: all_of: ", "'result'", [&] { clalgo::all_of(queue(), x, foreign_flag, "x[i] > 2"); });
    refused("clalgo: argmin: ", "'result'", [&] { clalgo::argmin(queue(), values, foreign_one); });
    refused("clalgo: subset_min: ", "'result'", [&] { clalgo::subset_min(queue(), values, indices, foreign_float); });
    refused("clalgo: subset_max: ", "'result'", [&] { clalgo::subset_max(queue(), values, indices, foreign_float); });
    refused("clalgo: subset_dot: ", "'result'",
            [&] { clalgo::subset_dot(queue(), values, values, indices, foreign_float); });
    // the selections' and by-key calls' counts, with input and without (then no kernel runs to check them)
    const clalgo::Array<int> no_ints(queue(), 0);
    const clalgo::Array<float> no_floats(queue(), 0);
    clalgo::Array<float> values_out(queue(), 1024);
    refused("clalgo: copy_if: ", "'count'", [&] { clalgo::copy_if(queue(), x, out, foreign_one, "ary[i] > 2"); });
    refused("clalgo: copy_if: ", "'count'", [&] { clalgo::copy_if(queue(), no_ints, out, foreign_one, "ary[i] > 2"); });
    refused("clalgo::reduce_by_key: ", "'count'",
            [&] { clalgo::reduce_by_key(queue(), no_ints, no_floats, out, values_out, foreign_one, "a+b", "0"); });
    refused("reduce_by_key", "'keys_out'", [&] {
        clalgo::Array<int> foreign_keys_out(there, 1024);
        clalgo::reduce_by_key(queue(), x, values, foreign_keys_out, values_out, one, "a+b", "0");
    });
    refused("scan", "'total'", [&] { scan.with_total(queue(), x, out, foreign_total); });
    refused("scan", "'carry-in'", [&] { scan.with_carry(queue(), clalgo::CarryIn<int>(foreign_total), x, out); });
    // a thread remembers the buffers it found in the queue's context while they live: a buffer released, then one
    // of another context that the driver may give the same handle, is asked about again
    clalgo::ElementwiseKernel copy(context(), "const int *x, int *y", "y[i] = x[i]");
    for (int round = 0; round < 20; ++round) {
        {
            const cl::Buffer mine(context().get(), CL_MEM_READ_WRITE, 1024 * sizeof(int));
            copy(queue(), x, clalgo::ArrayView<int>(mine, 0, 1024));
            queue().finish();
        }
        const cl::Buffer theirs(other.get(), CL_MEM_READ_WRITE, 1024 * sizeof(int));
        refused("elementwise", "'y'", [&] { copy(queue(), x, clalgo::ArrayView<int>(theirs, 0, 1024)); });
    }
    // and the same calls with arrays of the queue's context still run, checked against the CPU
    clalgo::histogram(queue(), x, bins, {0, 16});
    const auto counted = bins.to_host(queue());
    for (std::size_t b = 0; b < counted.size(); ++b) EXPECT_EQ(counted[b], b == 3 ? 1024 : 0) << b;
    clalgo::segmented_reduce(queue(), values, offsets, sums, "a+b", "0");
    for (float sum : sums.to_host(queue())) EXPECT_EQ(sum, 256.0f);
    total.into(queue(), one, x);
    EXPECT_EQ(one.to_host(queue())[0], 3 * 1024);
    clalgo::count_if(queue(), x, one, "x[i] > 2");
    EXPECT_EQ(one.to_host(queue())[0], 1024);
    clalgo::Array<float> picked(queue(), 1);
    clalgo::subset_sum(queue(), values, indices, picked);
    EXPECT_EQ(picked.to_host(queue())[0], 3.0f);
    clalgo::copy_if(queue(), no_ints, out, one, "ary[i] > 2");
    EXPECT_EQ(one.to_host(queue())[0], 0);
    clalgo::reduce_by_key(queue(), x, values, out, values_out, one, "a+b", "0");
    EXPECT_EQ(one.to_host(queue())[0], 1);  // one run: every key is 3
    EXPECT_EQ(values_out.to_host(queue())[0], 1024.0f);
}
