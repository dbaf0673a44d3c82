// OpenCL C shared by the radix sort's algorithms: keys as ordered unsigned bits, their digits, the values a pass
// reads (or makes, for argsort), and an exclusive scan of 256 per-digit values by a work-group (in local memory, or
// on NVIDIA by warp shuffles).
//   ordered bits: integer keys XOR `flip`, which is all ones for descending order, XOR-ed with the sign bit for
//   signed keys (RadixSortKernel), so that signed keys take the instructions of unsigned ones; floating-point keys
//   with the sign bit flipped where it is clear and every bit flipped where it is set (so -0.0 < +0.0, NaNs with
//   the sign bit clear after +inf, those with it set before -inf), then XOR `flip`. clalgo_key_of_bits undoes it.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* radix_sort_common = R"CLC(${prologue}
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

typedef ${key_type} clalgo_key_t;
typedef ${bits_type} clalgo_bits_t;
#define CLALGO_KEY_KIND ${key_kind}
#define CLALGO_KEY_BITS ${key_bits}
#define CLALGO_HAS_VALUES ${has_values}
#if CLALGO_HAS_VALUES
typedef ${value_type} clalgo_sort_value_t;
#endif
/* values of an integer type made from their keys' positions in the input rather than read (argsort's first pass):
   1 where clalgo_index_values says so, at every pass's cost of the branch; 2 always (a program of its own) */
#define CLALGO_INDEX_VALUES ${index_values}
#if CLALGO_INDEX_VALUES == 2
#define CLALGO_VALUE_IN(k) ((clalgo_sort_value_t)(k))
#elif CLALGO_INDEX_VALUES
#define CLALGO_VALUE_IN(k) (clalgo_index_values ? (clalgo_sort_value_t)(k) : clalgo_values_in[k])
#else
#define CLALGO_VALUE_IN(k) clalgo_values_in[k]
#endif
#define CLALGO_RADIX 256

/* the arrays a pass reads and writes, each a buffer and an element offset */
#if CLALGO_HAS_VALUES
#define CLALGO_MOVED_ARRAYS                                                                                   \
    __global const clalgo_key_t *clalgo_keys_in = clalgo_keys_in_base + clalgo_keys_in_offset;              \
    __global clalgo_key_t *clalgo_keys_out = clalgo_keys_out_base + clalgo_keys_out_offset;                 \
    __global const clalgo_sort_value_t *clalgo_values_in = clalgo_values_in_base + clalgo_values_in_offset; \
    __global clalgo_sort_value_t *clalgo_values_out = clalgo_values_out_base + clalgo_values_out_offset;
#else
#define CLALGO_MOVED_ARRAYS                                                                                   \
    __global const clalgo_key_t *clalgo_keys_in = clalgo_keys_in_base + clalgo_keys_in_offset;              \
    __global clalgo_key_t *clalgo_keys_out = clalgo_keys_out_base + clalgo_keys_out_offset;
#endif

/* a key's bits as they are (no instruction) */
inline clalgo_bits_t clalgo_raw_bits(const clalgo_key_t key)
{
    return as_${bits_type}(key);
}

/* 0: unsigned, 1: signed, 2: floating point; a signed key's sign bit is flipped by `flip` */
inline clalgo_bits_t clalgo_order_bits(clalgo_bits_t bits, const clalgo_bits_t flip)
{
#if CLALGO_KEY_KIND == 2
    const clalgo_bits_t sign = (clalgo_bits_t)((clalgo_bits_t)1 << (CLALGO_KEY_BITS - 1));
    bits ^= (bits & sign) ? (clalgo_bits_t)~(clalgo_bits_t)0 : sign;
#endif
    return bits ^ flip;
}

inline clalgo_bits_t clalgo_ordered_bits(const clalgo_key_t key, const clalgo_bits_t flip)
{
    return clalgo_order_bits(clalgo_raw_bits(key), flip);
}

inline uint clalgo_digit(const clalgo_key_t key, const clalgo_bits_t flip, const uint shift, const uint mask)
{
    return (uint)(clalgo_ordered_bits(key, flip) >> shift) & mask;
}

/* the key whose ordered bits are `bits` (clalgo_ordered_bits undone): the onesweep kernel holds keys of up to
   32 bits as ordered bits from the load to the write, so that a digit is a shift and a mask for every key type */
inline clalgo_key_t clalgo_key_of_bits(clalgo_bits_t bits, const clalgo_bits_t flip)
{
    bits ^= flip;
#if CLALGO_KEY_KIND == 2
    const clalgo_bits_t sign = (clalgo_bits_t)((clalgo_bits_t)1 << (CLALGO_KEY_BITS - 1));
    bits ^= (bits & sign) ? sign : (clalgo_bits_t)~(clalgo_bits_t)0;
#endif
    return as_${key_type}(bits);
}
)CLC";

/// Needs CLALGO_GROUP_SIZE (whole warps of 32 with CLALGO_SHUFFLE_SCAN or the NVIDIA ranking, else a power of two)
/// and CLALGO_SHUFFLE_SCAN (1: NVIDIA's warp shuffles).
inline constexpr const char* radix_digit_scan = R"CLC(
#define CLALGO_DIGITS_EACH ((CLALGO_RADIX + CLALGO_GROUP_SIZE - 1) / CLALGO_GROUP_SIZE)

#if CLALGO_SHUFFLE_SCAN
/* the word of the lane `delta` below; lanes below `delta` get their own back */
inline uint clalgo_shuffle_up_word(const uint value, const uint delta)
{
    uint moved;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(moved) : "r"(value), "r"(delta));
    return moved;
}

inline ulong clalgo_shuffle_up_ulong(const ulong value, const uint delta)
{
    const uint low = clalgo_shuffle_up_word((uint)value, delta), high = clalgo_shuffle_up_word((uint)(value >> 32), delta);
    return ((ulong)high << 32) | low;
}
#endif

/* Replaces sums[0 .. CLALGO_GROUP_SIZE), one per work-item, by their inclusive scan; every work-item of the group
   calls it, and it ends with a barrier. */
#if CLALGO_SHUFFLE_SCAN
/* NVIDIA, groups of whole warps: each warp scans its 32 sums by shuffles, then adds the totals of the warps before
   it (three barriers, where the scan in local memory takes two a step) */
inline void clalgo_scan_sums(__local ulong *sums)
{
    const uint lid = get_local_id(0), lane = lid & 31;
    ulong sum = sums[lid];
#pragma unroll
    for (uint delta = 1; delta < 32; delta <<= 1) {
        const ulong below = clalgo_shuffle_up_ulong(sum, delta);
        if (lane >= delta)
            sum += below;
    }
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong before = 0;
    for (uint warp = 0; warp < (lid >> 5); ++warp)
        before += sums[warp * 32 + 31];
    barrier(CLK_LOCAL_MEM_FENCE);
    sums[lid] = sum + before;
    barrier(CLK_LOCAL_MEM_FENCE);
}
#else
inline void clalgo_scan_sums(__local ulong *sums)
{
    const uint lid = get_local_id(0);
    for (uint delta = 1; delta < CLALGO_GROUP_SIZE; delta <<= 1) {
        const ulong left = lid >= delta ? sums[lid - delta] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        sums[lid] += left;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

/* Replaces values[0 .. CLALGO_RADIX) by their exclusive scan; `sums` holds CLALGO_GROUP_SIZE values. Every
   work-item of the group calls it; it ends with a barrier. With CLALGO_OWN_DIGIT_SCAN a work-item reads only
   values[its local id] before the first barrier, so a caller that wrote each value in that work-item needs none. */
#define CLALGO_OWN_DIGIT_SCAN (CLALGO_SHUFFLE_SCAN && CLALGO_GROUP_SIZE == CLALGO_RADIX)
#if CLALGO_OWN_DIGIT_SCAN
/* one digit a work-item (NVIDIA): each warp scans its 32 by shuffles, then adds the totals of the warps before it
   (two barriers, where clalgo_scan_sums and the steps around it take five) */
inline void clalgo_scan_digits(__local ulong *values, __local ulong *sums)
{
    const uint lid = get_local_id(0), lane = lid & 31;
    const ulong value = values[lid];
    ulong sum = value;
#pragma unroll
    for (uint delta = 1; delta < 32; delta <<= 1) {
        const ulong below = clalgo_shuffle_up_ulong(sum, delta);
        if (lane >= delta)
            sum += below;
    }
    if (lane == 31)
        sums[lid >> 5] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong before = 0;
    for (uint warp = 0; warp < (lid >> 5); ++warp)
        before += sums[warp];
    values[lid] = before + sum - value;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* the exclusive scan of one count a work-item, of at most 2^32 - 1 in all (a tile's digit counts), in 32 bits where
   clalgo_scan_digits takes 64: each warp's by shuffles, then the totals of the warps before it; `sums` holds one
   value a warp. One barrier, before which no work-item reads `sums`; the caller passes a barrier before it calls
   again. */
inline uint clalgo_scan_own_count(const uint count, __local ulong *sums)
{
    const uint lid = get_local_id(0), lane = lid & 31;
    uint sum = count;
#pragma unroll
    for (uint delta = 1; delta < 32; delta <<= 1) {
        const uint below = clalgo_shuffle_up_word(sum, delta);
        if (lane >= delta)
            sum += below;
    }
    if (lane == 31)
        sums[lid >> 5] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = 0;
    for (uint warp = 0; warp < (lid >> 5); ++warp)
        before += (uint)sums[warp];
    return before + sum - count;
}
#else
inline void clalgo_scan_digits(__local ulong *values, __local ulong *sums)
{
    const uint lid = get_local_id(0);
    const uint first = lid * CLALGO_DIGITS_EACH;
    ulong sum = 0;
    for (uint e = 0; e < CLALGO_DIGITS_EACH; ++e)
        if (first + e < CLALGO_RADIX)
            sum += values[first + e];
    sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_scan_sums(sums);
    ulong running = lid > 0 ? sums[lid - 1] : 0;
    for (uint e = 0; e < CLALGO_DIGITS_EACH; ++e)
        if (first + e < CLALGO_RADIX) {
            const ulong value = values[first + e];
            values[first + e] = running;
            running += value;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif
)CLC";

}  // namespace clalgo::detail::cl_source
