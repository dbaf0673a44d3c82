// Philox4x32-10, the counter-based random number generator of Random123 (Salmon, Moraes, Dror, Shaw, SC'11),
// as OpenCL C to put in any kernel's preamble. It keeps no state: the same (counter, key) always gives the same
// four 32-bit numbers, so a kernel can draw the numbers of sample i from counter i inside a map or reduction.
//   clalgo::ReductionOptions options;
//   options.preamble = clalgo::snippets::philox;
//   // map: uint4 r = philox4x32_10((uint4)(i, i >> 32, 0, 0), (uint2)(seed, 0)); float x = philox_uniform_float(r.x);
#pragma once

namespace clalgo::snippets {

/// OpenCL C for a preamble: philox4x32_10(counter, key), philox_uniform_float(bits) and, with fp64,
/// philox_uniform_double(high, low).
inline constexpr const char* philox = R"CLC(
/* Philox4x32-10: ten rounds of multiply-and-xor over a 128-bit counter, keyed by 64 bits */
inline uint4 philox4x32_10(uint4 counter, uint2 key)
{
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            key.x += 0x9E3779B9u;  /* the key schedule: golden ratio and sqrt(3) - 1, in 32 bits */
            key.y += 0xBB67AE85u;
        }
        /* each 32 x 32 -> 64-bit product in one multiplication (mul.wide on NVIDIA; mul_hi and a separate low
           product cost PoCL about three times as much) */
        const ulong product0 = (ulong)0xD2511F53u * counter.x;
        const ulong product1 = (ulong)0xCD9E8D57u * counter.z;
        counter = (uint4)((uint)(product1 >> 32) ^ counter.y ^ key.x, (uint)product1,
                          (uint)(product0 >> 32) ^ counter.w ^ key.y, (uint)product0);
    }
    return counter;
}

/* 32 random bits to a float uniform in [0, 1), with 23 random bits: they fill the mantissa of a float in
   [1, 2), and 1 is taken off (no integer-to-float conversion, which is slow on GPUs) */
inline float philox_uniform_float(uint bits)
{
    return as_float(0x3F800000u | (bits >> 9)) - 1.0f;
}

#ifdef cl_khr_fp64
/* 64 random bits to a double uniform in [0, 1), with 53 random bits */
inline double philox_uniform_double(uint high, uint low)
{
    return (double)(((ulong)high << 21) ^ (ulong)(low >> 11)) * (1.0 / 9007199254740992.0);
}
#endif
)CLC";

}  // namespace clalgo::snippets
