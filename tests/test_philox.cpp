// clalgo::snippets::philox: Philox4x32-10 in OpenCL C. Checked against Random123's known-answer vectors, against an
// independent host implementation of the algorithm (Salmon et al., SC'11) over many random inputs, and for the
// range and mean of the uniform numbers made from its output.
#include "support.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using clalgo_test::context;
using clalgo_test::queue;

namespace {

/// Philox4x32-10 on the host, written from the paper: ten rounds of two 32x32->64 multiplications, the high
/// halves xored with the other words and the key, which is bumped by the Weyl constants between rounds.
std::array<std::uint32_t, 4> host_philox(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) {
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k[0] += 0x9E3779B9u;
            k[1] += 0xBB67AE85u;
        }
        const std::uint64_t p0 = std::uint64_t(0xD2511F53u) * c[0];
        const std::uint64_t p1 = std::uint64_t(0xCD9E8D57u) * c[2];
        c = {std::uint32_t(p1 >> 32) ^ c[1] ^ k[0], std::uint32_t(p1), std::uint32_t(p0 >> 32) ^ c[3] ^ k[1],
             std::uint32_t(p0)};
    }
    return c;
}

/// The device's philox4x32_10 of each (counter, key).
std::vector<cl_uint4> device_philox(const std::vector<cl_uint4>& counters, const std::vector<cl_uint2>& keys) {
    clalgo::ElementwiseOptions options;
    options.name = "philox_kat";
    options.preamble = clalgo::snippets::philox;
    static const clalgo::ElementwiseKernel philox(context(), "const uint4 *counter, const uint2 *key, uint4 *out",
                                                  "out[i] = philox4x32_10(counter[i], key[i])", options);
    auto counter = clalgo::to_device(queue(), counters);
    auto key = clalgo::to_device(queue(), keys);
    clalgo::Array<cl_uint4> out(queue(), counters.size());
    philox(queue(), counter, key, out);
    return out.to_host(queue());
}

std::array<std::uint32_t, 4> words(const cl_uint4& v) { return {v.s[0], v.s[1], v.s[2], v.s[3]}; }

}  // namespace

TEST(Philox, MatchesRandom123KnownAnswerVectors) {
    // Random123's kat_vectors for philox4x32-10: counter, key -> output
    const std::vector<cl_uint4> counters{{{0, 0, 0, 0}},
                                         {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
                                         {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}};
    const std::vector<cl_uint2> keys{{{0, 0}}, {{0xffffffffu, 0xffffffffu}}, {{0xa4093822u, 0x299f31d0u}}};
    const std::vector<std::array<std::uint32_t, 4>> expected{{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
                                                             {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
                                                             {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}};
    const auto out = device_philox(counters, keys);
    for (std::size_t k = 0; k < expected.size(); ++k) {
        EXPECT_EQ(words(out[k]), expected[k]) << "vector " << k;
        EXPECT_EQ(host_philox(words(counters[k]), {keys[k].s[0], keys[k].s[1]}), expected[k]) << "host, vector " << k;
    }
}

TEST(Philox, MatchesHostImplementationOnRandomCountersAndKeys) {
    std::mt19937 engine(7);
    const std::size_t n = 100000;
    std::vector<cl_uint4> counters(n);
    std::vector<cl_uint2> keys(n);
    for (std::size_t k = 0; k < n; ++k) {
        for (auto& word : counters[k].s) word = engine();
        for (auto& word : keys[k].s) word = engine();
    }
    const auto out = device_philox(counters, keys);
    for (std::size_t k = 0; k < n; ++k)
        ASSERT_EQ(words(out[k]), host_philox(words(counters[k]), {keys[k].s[0], keys[k].s[1]})) << k;
}

TEST(Philox, UniformFloatsLieInUnitIntervalWithMeanAndVarianceOfUniform) {
    // four floats from each of 250,000 counters, the way a Monte Carlo kernel draws them
    const std::size_t counters = 250000, n = 4 * counters;
    clalgo::ElementwiseOptions options;
    options.name = "philox_floats";
    options.preamble = clalgo::snippets::philox;
    clalgo::ElementwiseKernel draw(context(), "uint2 key, float *out",
                                   "const uint4 bits = philox4x32_10((uint4)((uint)i, (uint)(i >> 32), 0, 0), key);\n"
                                   "out[4 * i] = philox_uniform_float(bits.x);\n"
                                   "out[4 * i + 1] = philox_uniform_float(bits.y);\n"
                                   "out[4 * i + 2] = philox_uniform_float(bits.z);\n"
                                   "out[4 * i + 3] = philox_uniform_float(bits.w)",
                                   options);
    clalgo::Array<float> out(queue(), n);
    draw(queue(), clalgo::range(0, static_cast<std::int64_t>(counters)), cl_uint2{{42, 0}}, out);
    const auto values = out.to_host(queue());
    double sum = 0, sum_of_squares = 0;
    for (std::size_t k = 0; k < n; ++k) {
        ASSERT_GE(values[k], 0.0f) << k;
        ASSERT_LT(values[k], 1.0f) << k;
        sum += values[k];
        sum_of_squares += double(values[k]) * values[k];
    }
    // uniform on [0, 1): mean 1/2 (standard error sqrt(1/12/n) = 0.00029), variance 1/12
    const double mean = sum / double(n), variance = sum_of_squares / double(n) - mean * mean;
    EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / double(n)));
    EXPECT_NEAR(variance, 1.0 / 12, 0.002);
}

TEST(Philox, UniformFloatAndDoubleMapTheExtremesInsideUnitInterval) {
    clalgo::ElementwiseOptions options;
    options.name = "philox_extremes";
    options.preamble = clalgo::snippets::philox;
    const std::vector<cl_uint> bits{0u, 1u, 0x80000000u, 0xffffffffu};
    auto device_bits = clalgo::to_device(queue(), bits);
    clalgo::Array<float> floats(queue(), bits.size());
    clalgo::ElementwiseKernel to_float(context(), "const uint *bits, float *out", "out[i] = philox_uniform_float(bits[i])",
                                       options);
    to_float(queue(), device_bits, floats);
    const auto f = floats.to_host(queue());
    EXPECT_EQ(f[0], 0.0f);
    EXPECT_EQ(f[1], 0.0f);  // the low 9 bits are dropped: 23 random bits
    EXPECT_EQ(f[2], 0.5f);
    EXPECT_EQ(f[3], 1.0f - std::ldexp(1.0f, -23));

    if (!clalgo_test::has_fp64()) GTEST_SKIP() << "no fp64";
    options.name = "philox_extremes_double";
    clalgo::Array<double> doubles(queue(), bits.size());
    clalgo::ElementwiseKernel to_double(context(), "const uint *bits, double *out",
                                        "out[i] = philox_uniform_double(bits[i], bits[i])", options);
    to_double(queue(), device_bits, doubles);
    const auto d = doubles.to_host(queue());
    // 53 bits: the high word's 32 above the low word's top 21
    EXPECT_EQ(d[0], 0.0);
    EXPECT_EQ(d[1], std::ldexp(1.0, -32));
    EXPECT_EQ(d[2], 0.5 + std::ldexp(1.0, -33));
    EXPECT_EQ(d[3], 1.0 - std::ldexp(1.0, -53));
    for (double value : d) {
        EXPECT_GE(value, 0.0);
        EXPECT_LT(value, 1.0);
    }
}
