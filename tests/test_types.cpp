// core/types.hpp: OpenCL C names of C++ types, and user structs registered with their OpenCL C definition.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

/// One C++ type as the device should see it: its OpenCL C name, size and signedness.
struct TypeFacts {
    std::string name;
    std::size_t size;
    bool is_signed;
};

template <class T>
TypeFacts facts() {
    return TypeFacts{clalgo::type_name<T>(), sizeof(T), std::is_signed_v<T>};
}

/// The device's sizeof for each name and, for scalars, whether (name)-1 < 0, read back through one kernel.
std::vector<std::pair<std::uint64_t, std::uint64_t>> device_facts(const std::vector<TypeFacts>& types,
                                                                   bool with_sign) {
    std::string operation;
    for (std::size_t k = 0; k < types.size(); ++k) {
        operation += "sizes[" + std::to_string(k) + "] = sizeof(" + types[k].name + "); ";
        operation += "signs[" + std::to_string(k) + "] = " +
                     (with_sign ? "((" + types[k].name + ")-1 < (" + types[k].name + ")0)" : std::string("0")) + "; ";
    }
    clalgo::ElementwiseKernel kernel(context(), "ulong *sizes, ulong *signs", operation);
    clalgo::Array<std::uint64_t> sizes(queue(), types.size()), signs(queue(), types.size());
    kernel(queue(), clalgo::range(0, 1), sizes, signs);
    const auto host_sizes = sizes.to_host(queue()), host_signs = signs.to_host(queue());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (std::size_t k = 0; k < types.size(); ++k) out.emplace_back(host_sizes[k], host_signs[k]);
    return out;
}

// A struct whose C++ layout matches its OpenCL C definition.
struct MinMax {
    float lo;
    float hi;
    std::int64_t where;
};

void register_min_max() {
    clalgo::register_struct<MinMax>("min_max", "typedef struct { float lo; float hi; long where; } min_max;",
                                    {CLALGO_FIELD(MinMax, lo), CLALGO_FIELD(MinMax, hi), CLALGO_FIELD(MinMax, where)});
}

// C++ pads `x` to offset 4; the OpenCL C definition is packed, so there `x` is at offset 1.
struct Padded {
    char c;
    int x;
};
struct __attribute__((packed)) PackedMirror {  // what the device's layout is, in C++
    char c;
    int x;
};

// Same fields, declared in the other order in OpenCL C.
struct Swapped {
    float a;
    int b;
};

// Same field offsets, but the OpenCL C definition drops the trailing padding.
struct TrailingPadding {
    std::int64_t a;
    int b;
};
struct __attribute__((packed)) TrailingPaddingMirror {
    std::int64_t a;
    int b;
};

struct NeverRegistered {
    int value;
};

}  // namespace

TEST(TypeName, NamesEveryFixedWidthIntegerBySizeAndSignedness) {
    EXPECT_EQ(clalgo::type_name<std::int8_t>(), "char");
    EXPECT_EQ(clalgo::type_name<std::uint8_t>(), "uchar");
    EXPECT_EQ(clalgo::type_name<std::int16_t>(), "short");
    EXPECT_EQ(clalgo::type_name<std::uint16_t>(), "ushort");
    EXPECT_EQ(clalgo::type_name<std::int32_t>(), "int");
    EXPECT_EQ(clalgo::type_name<std::uint32_t>(), "uint");
    EXPECT_EQ(clalgo::type_name<std::int64_t>(), "long");
    EXPECT_EQ(clalgo::type_name<std::uint64_t>(), "ulong");
    EXPECT_EQ(clalgo::type_name<float>(), "float");
    EXPECT_EQ(clalgo::type_name<double>(), "double");
}

TEST(TypeName, NamesPlainCTypesByTheirWidthNotTheirSpelling) {
    EXPECT_EQ(clalgo::type_name<long long>(), clalgo::type_name<std::int64_t>());
    EXPECT_EQ(clalgo::type_name<unsigned long long>(), clalgo::type_name<std::uint64_t>());
    EXPECT_EQ(clalgo::type_name<long>(), sizeof(long) == 8 ? "long" : "int");
    EXPECT_EQ(clalgo::type_name<char>(), std::is_signed_v<char> ? "char" : "uchar");
    EXPECT_EQ(clalgo::type_name<signed char>(), "char");
    EXPECT_EQ(clalgo::type_name<unsigned char>(), "uchar");
    EXPECT_EQ(clalgo::type_name<const float>(), "float");
    EXPECT_EQ(clalgo::type_name<volatile int>(), "int");
}

TEST(TypeName, NamesOpenClVectorTypes) {
    EXPECT_EQ(clalgo::type_name<cl_float4>(), "float4");
    EXPECT_EQ(clalgo::type_name<cl_uchar16>(), "uchar16");
    EXPECT_EQ(clalgo::type_name<cl_long2>(), "long2");
    EXPECT_EQ(clalgo::type_name<cl_double2>(), "double2");
    EXPECT_EQ(clalgo::type_name<cl_char8>(), "char8");
    EXPECT_EQ(clalgo::type_name<cl_ushort2>(), "ushort2");
    EXPECT_EQ(clalgo::type_name<cl_int16>(), "int16");
    EXPECT_EQ(clalgo::type_name<cl_ulong4>(), "ulong4");
    EXPECT_EQ(clalgo::type_name<cl_uint8>(), "uint8");
    EXPECT_EQ(clalgo::type_name<cl_short4>(), "short4");
}

TEST(TypeName, ScalarNamesHaveTheCppSizeAndSignednessOnTheDevice) {
    std::vector<TypeFacts> types = {facts<std::int8_t>(),  facts<std::uint8_t>(),  facts<std::int16_t>(),
                                    facts<std::uint16_t>(), facts<std::int32_t>(), facts<std::uint32_t>(),
                                    facts<std::int64_t>(),  facts<std::uint64_t>(), facts<float>(),
                                    facts<long long>(),     facts<char>()};
    if (clalgo_test::has_fp64()) types.push_back(facts<double>());
    const auto on_device = device_facts(types, true);
    for (std::size_t k = 0; k < types.size(); ++k) {
        EXPECT_EQ(on_device[k].first, types[k].size) << types[k].name;
        EXPECT_EQ(on_device[k].second != 0, types[k].is_signed) << types[k].name;
    }
}

TEST(TypeName, VectorNamesHaveTheCppSizeOnTheDevice) {
    std::vector<TypeFacts> types = {facts<cl_float4>(), facts<cl_uchar16>(), facts<cl_long2>(),  facts<cl_char8>(),
                                    facts<cl_ushort2>(), facts<cl_int16>(),  facts<cl_ulong4>(), facts<cl_short4>()};
    if (clalgo_test::has_fp64()) types.push_back(facts<cl_double2>());
    const auto on_device = device_facts(types, false);
    for (std::size_t k = 0; k < types.size(); ++k) EXPECT_EQ(on_device[k].first, types[k].size) << types[k].name;
}

TEST(TypeName, ThrowsForUnregisteredStruct) {
    // (bool, long double and std::complex<long double> do not compile: tests/compile_errors/)
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([] { clalgo::type_name<NeverRegistered>(); }),
                         "register_struct"));
}

TEST(RegisteredStruct, WorksAsScalarArgumentAndAsArrayElement) {
    register_min_max();
    EXPECT_EQ(clalgo::type_name<MinMax>(), "min_max");
    clalgo::ElementwiseKernel bound(context(), "min_max limits, const float *x, min_max *out",
                                    "out[i].lo = fmin(x[i], limits.lo); "
                                    "out[i].hi = fmax(x[i], limits.hi); "
                                    "out[i].where = i + limits.where");
    const std::size_t n = 1000;
    const auto hx = clalgo_test::random_values<float>(n, 7);
    const MinMax limits{-0.25f, 0.5f, std::int64_t(1) << 40};
    auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<MinMax> out(queue(), n);
    bound(queue(), limits, x, out);
    const auto host = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        ASSERT_EQ(host[k].lo, std::fmin(hx[k], limits.lo)) << k;
        ASSERT_EQ(host[k].hi, std::fmax(hx[k], limits.hi)) << k;
        ASSERT_EQ(host[k].where, std::int64_t(k) + limits.where) << k;
    }
}

TEST(RegisteredStruct, ArrayWrittenOnTheHostReadsTheSameOnTheDevice) {
    if (!clalgo_test::has_fp64()) GTEST_SKIP() << "no fp64";
    register_min_max();
    clalgo::ElementwiseKernel width(context(), "const min_max *in, double *out",
                                    "out[i] = (double)(in[i].hi - in[i].lo) + (double)in[i].where");
    const std::size_t n = 777;
    const auto lows = clalgo_test::random_values<float>(n, 1), highs = clalgo_test::random_values<float>(n, 2);
    std::vector<MinMax> host(n);
    for (std::size_t k = 0; k < n; ++k) host[k] = MinMax{lows[k], highs[k], std::int64_t(k) * 3 - 100};
    auto in = clalgo::to_device(queue(), host);
    clalgo::Array<double> out(queue(), n);
    width(queue(), in, out);
    const auto result = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k)
        ASSERT_EQ(result[k], double(host[k].hi - host[k].lo) + double(host[k].where)) << k;
}

TEST(RegisteredStruct, PaddingMismatchThrowsNamingTheFieldAndBothOffsets) {
    clalgo::register_struct<Padded>("packed_pair",
                                    "typedef struct __attribute__((packed)) { char c; int x; } packed_pair;",
                                    {CLALGO_FIELD(Padded, c), CLALGO_FIELD(Padded, x)});
    const std::string message = message_of<std::invalid_argument>(
        [] { clalgo::ElementwiseKernel(context(), "const packed_pair *p, int *out", "out[i] = p[i].x"); });
    EXPECT_TRUE(contains(message, "'packed_pair'"));
    EXPECT_TRUE(contains(message, "'x'"));
    EXPECT_TRUE(contains(message, "offset " + std::to_string(offsetof(PackedMirror, x)) + " on the device"));
    EXPECT_TRUE(contains(message, std::to_string(offsetof(Padded, x)) + " in C++"));
}

TEST(RegisteredStruct, FieldOrderMismatchThrowsNamingTheFieldAndBothOffsets) {
    clalgo::register_struct<Swapped>("swapped", "typedef struct { int b; float a; } swapped;",
                                     {CLALGO_FIELD(Swapped, a), CLALGO_FIELD(Swapped, b)});
    const std::string message = message_of<std::invalid_argument>(
        [] { clalgo::ElementwiseKernel(context(), "swapped s, float *out", "out[i] = s.a"); });
    EXPECT_TRUE(contains(message, "'a'"));
    EXPECT_TRUE(contains(message, "offset " + std::to_string(sizeof(int)) + " on the device"));
    EXPECT_TRUE(contains(message, std::to_string(offsetof(Swapped, a)) + " in C++"));
}

TEST(RegisteredStruct, SizeMismatchThrowsNamingBothSizes) {
    clalgo::register_struct<TrailingPadding>(
        "trailing", "typedef struct __attribute__((packed)) { long a; int b; } trailing;",
        {CLALGO_FIELD(TrailingPadding, a), CLALGO_FIELD(TrailingPadding, b)});
    const std::string message = message_of<std::invalid_argument>(
        [] { clalgo::ElementwiseKernel(context(), "const trailing *t, int *out", "out[i] = t[i].b"); });
    EXPECT_TRUE(contains(message, "'trailing'"));
    EXPECT_TRUE(contains(message, "sizeof is " + std::to_string(sizeof(TrailingPaddingMirror)) + " on the device"));
    EXPECT_TRUE(contains(message, std::to_string(sizeof(TrailingPadding)) + " in C++"));
}

TEST(RegisteredStruct, RegistrationRejectsDefinitionWithoutTheNameAndNameTakenByAnotherType) {
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([] {
                             clalgo::register_struct<NeverRegistered>("wanted", "typedef struct { int value; } other;",
                                                                      {CLALGO_FIELD(NeverRegistered, value)});
                         }),
                         "'wanted'"));
    register_min_max();
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([] {
                             clalgo::register_struct<NeverRegistered>(
                                 "min_max", "typedef struct { int value; } min_max;",
                                 {CLALGO_FIELD(NeverRegistered, value)});
                         }),
                         "'min_max'"));
    EXPECT_THROW(clalgo::type_name<NeverRegistered>(), std::invalid_argument);
}

TEST(RegisteredStruct, UnregisteredStructArrayIsRejectedAtTheCall) {
    register_min_max();
    clalgo::ElementwiseKernel kernel(context(), "min_max *out", "out[i].where = i");
    clalgo::Array<NeverRegistered> wrong(queue(), 4);
    const std::string message = message_of<std::invalid_argument>([&] { kernel(queue(), wrong); });
    EXPECT_TRUE(contains(message, "'out'"));
    EXPECT_TRUE(contains(message, "'min_max *'"));
    EXPECT_TRUE(contains(message, "unregistered"));
}

// ---- structs declared once: adapt_struct writes the OpenCL C definition ----

namespace {

struct Vec2 {
    float x, y;
};

struct Particle {
    cl_float4 position;
    Vec2 heading;            // a struct adapted before this one
    float mass;
    std::int64_t id;
    std::uint8_t flags[3];   // an array member
    alignas(8) std::complex<float> phase;  // float2 is 8-aligned in OpenCL C
};

void adapt_particle() {
    clalgo::adapt_struct<Vec2>("vec2", {CLALGO_FIELD(Vec2, x), CLALGO_FIELD(Vec2, y)});
    clalgo::adapt_struct<Particle>("particle",
                                   {CLALGO_FIELD(Particle, position), CLALGO_FIELD(Particle, heading),
                                    CLALGO_FIELD(Particle, mass), CLALGO_FIELD(Particle, id),
                                    CLALGO_FIELD(Particle, flags), CLALGO_FIELD(Particle, phase)});
}

}  // namespace

TEST(AdaptedStruct, TheDefinitionIsWrittenFromTheCppFieldTypes) {
    adapt_particle();
    EXPECT_EQ(clalgo::type_name<Particle>(), "particle");
    const auto info = clalgo::detail::StructRegistry::instance().find("particle");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->definition,
              "typedef struct {\n    float4 position;\n    vec2 heading;\n    float mass;\n    long id;\n"
              "    uchar flags[3];\n    float2 phase;\n} particle;");
}

TEST(AdaptedStruct, WorksInAMapAndAReductionWithTheLayoutOfCpp) {
    adapt_particle();
    const std::size_t n = 1000;
    std::vector<Particle> host(n);
    for (std::size_t k = 0; k < n; ++k) {
        const float f = static_cast<float>(k);
        host[k].position = cl_float4{{f, 2 * f, 3 * f, 1}};
        host[k].heading = Vec2{f / 2, -f};
        host[k].mass = 1 + f / 1000;
        host[k].id = static_cast<std::int64_t>(k) << 33;
        host[k].flags[0] = 1, host[k].flags[1] = static_cast<std::uint8_t>(k % 200), host[k].flags[2] = 3;
        host[k].phase = {f, -f};
    }
    auto particles = clalgo::to_device(queue(), host);
    clalgo::ElementwiseKernel step(context(), "particle *p, float dt",
                                   "p[i].position.x += dt * p[i].heading.x; p[i].mass *= 2; p[i].flags[1] += 1; "
                                   "p[i].phase = clalgo_conj(p[i].phase); p[i].id += 1;");
    step(queue(), particles, 0.5f);
    const auto stepped = particles.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        EXPECT_EQ(stepped[k].position.s[0], host[k].position.s[0] + 0.5f * host[k].heading.x) << k;
        EXPECT_EQ(stepped[k].position.s[1], host[k].position.s[1]) << k;
        EXPECT_EQ(stepped[k].mass, 2 * host[k].mass) << k;
        EXPECT_EQ(stepped[k].id, host[k].id + 1) << k;
        EXPECT_EQ(stepped[k].flags[1], host[k].flags[1] + 1) << k;
        EXPECT_EQ(stepped[k].flags[2], 3) << k;
        EXPECT_EQ(stepped[k].phase, std::conj(host[k].phase)) << k;
    }
    clalgo::ReductionKernel<std::int64_t> ids(context(), "0", "a + b", "p[i].id + p[i].flags[0]", "const particle *p");
    std::int64_t expected = 0;
    for (const auto& p : stepped) expected += p.id + p.flags[0];
    EXPECT_EQ(ids(queue(), particles), expected);
}

TEST(AdaptedStruct, RefusesFieldsWithNoOpenClTypeOrOutOfOrderAndReportsLayoutDifferences) {
    struct WithBool {
        float x;
        bool flag;
    };
    auto message = message_of<std::invalid_argument>([] {
        clalgo::adapt_struct<WithBool>("with_bool", {CLALGO_FIELD(WithBool, x), CLALGO_FIELD(WithBool, flag)});
    });
    EXPECT_TRUE(contains(message, "field 'flag'"));
    EXPECT_TRUE(contains(message, "register_struct"));
    message = message_of<std::invalid_argument>([] {
        clalgo::adapt_struct<Vec2>("vec2_reversed", {CLALGO_FIELD(Vec2, y), CLALGO_FIELD(Vec2, x)});
    });
    EXPECT_TRUE(contains(message, "in the order of the struct"));
    // std::complex<float> is 4-aligned in C++, float2 8-aligned in OpenCL C: the device check finds it
    struct Misaligned {
        float a;
        std::complex<float> z;
    };
    clalgo::adapt_struct<Misaligned>("misaligned", {CLALGO_FIELD(Misaligned, a), CLALGO_FIELD(Misaligned, z)});
    message = message_of<std::invalid_argument>(
        [] { clalgo::ElementwiseKernel touch(context(), "misaligned *m", "m[i].a = 0"); });
    EXPECT_TRUE(contains(message, "field 'z' is at offset 8 on the device and 4 in C++"));
}
