// OpenCL C template of histogram and HistogramKernel: each work-group counts the bins of its indices into a
// private histogram in local memory (32-bit counters; plain increments where the group is one work-item), then
// adds each non-zero bin to a running sum in scratch memory with one global atomic. Bins beyond the local
// histogram's room are counted there with a global atomic each. Up to CLALGO_SPREAD_BINS bins, the running sums
// have CLALGO_SUM_COPIES copies, work-group g adding into copy g % copies, so that fewer work-groups wait on one
// counter's atomic. The last work-group to finish adds the copies up into the result and leaves them zero for the
// next call, so the result needs no fill before the kernel.
// A bin outside [0, bins) is not counted.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* histogram = R"CLC(${prologue}
${atomics_pragma}
${preamble}

typedef ${count_type} clalgo_count_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_LOCAL_BINS ${local_bins}
#define CLALGO_CONTIGUOUS_CHUNKS ${contiguous_chunks}
#define CLALGO_UNROLL 4
#define CLALGO_SUM_COPIES ${sum_copies}
#define CLALGO_SPREAD_BINS ${spread_bins}
#if CLALGO_GROUP_SIZE == 1
#define CLALGO_LOCAL_INC(p) ++*(p)
#else
#define CLALGO_LOCAL_INC(p) atomic_inc(p)
#endif
#define clalgo_global_add(p, v) ${global_add}
#define clalgo_global_take(p) ${global_take}
#if ${nvidia}
/* NVIDIA's mem_fence(CLK_GLOBAL_MEM_FENCE) orders within a work-group only; membar.gl orders device-wide */
#define CLALGO_DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define CLALGO_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

/* the scratch buffer: the count of finished work-groups at byte 0, the running sums' copies from byte 128 on (a
   launch costs more for every buffer argument on NVIDIA, so the two share one) */
#define CLALGO_SUMS_AT 128

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}(
    ${signature}${parameters})
{
    ${array_pointers}
    __global uint *clalgo_done = (__global uint *)clalgo_memory;
    /* the copies of the running sums (bins beyond local memory count into the first) */
    __global clalgo_count_t *clalgo_sums = (__global clalgo_count_t *)(clalgo_memory + CLALGO_SUMS_AT);
    __global clalgo_count_t *clalgo_out = clalgo_counts + clalgo_counts_offset;
    const int clalgo_local = clalgo_bins <= CLALGO_LOCAL_BINS;
    const uint clalgo_lid = get_local_id(0);
    __local uint clalgo_private[CLALGO_LOCAL_BINS];
    __local uint clalgo_last_group;
    if (clalgo_local) {
        for (long clalgo_b = clalgo_lid; clalgo_b < clalgo_bins; clalgo_b += CLALGO_GROUP_SIZE)
            clalgo_private[clalgo_b] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if CLALGO_CONTIGUOUS_CHUNKS
    const long clalgo_chunk = (n + (long)get_global_size(0) - 1) / (long)get_global_size(0);
    const long clalgo_begin = min((long)get_global_id(0) * clalgo_chunk, n);
    const long clalgo_end = min(clalgo_begin + clalgo_chunk, n);
    const long clalgo_stride = 1;
#else
    const long clalgo_begin = get_global_id(0), clalgo_end = n, clalgo_stride = get_global_size(0);
#endif
    /* CLALGO_UNROLL bins computed (their reads in flight together), then counted. (Moving the index by additions
       instead of computing it from clalgo_k measured about 45 % slower at 2^24-2^28 on an H100.) Steps of 1 over
       fewer than 2^31 indices (every histogram of an array) take a loop with 32-bit counters and no
       multiplication; the bin expression is written in both loops. */
#define CLALGO_COUNT(clalgo_b)                                                       \
    if ((ulong)(clalgo_b) < (ulong)clalgo_bins) {                                    \
        if (clalgo_local)                                                            \
            CLALGO_LOCAL_INC(&clalgo_private[clalgo_b]);                             \
        else                                                                         \
            clalgo_global_add(&clalgo_sums[clalgo_b], (clalgo_count_t)1);            \
    }
    if (clalgo_step == 1 && clalgo_end < (long)INT_MAX - (long)CLALGO_UNROLL * clalgo_stride) {
        const uint clalgo_unit_stride = (uint)clalgo_stride, clalgo_unit_end = (uint)clalgo_end;
        for (uint clalgo_base = (uint)clalgo_begin; clalgo_base < clalgo_unit_end;
             clalgo_base += CLALGO_UNROLL * clalgo_unit_stride) {
            long clalgo_bin[CLALGO_UNROLL];
#pragma unroll
            for (uint clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u) {
                const uint clalgo_k = clalgo_base + clalgo_u * clalgo_unit_stride;
                clalgo_bin[clalgo_u] = -1;
                if (clalgo_k < clalgo_unit_end) {
                    const long i = clalgo_start + (long)clalgo_k;
                    clalgo_bin[clalgo_u] = (long)(${bin_expr});
                }
            }
#pragma unroll
            for (uint clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
                CLALGO_COUNT(clalgo_bin[clalgo_u])
        }
    } else {
        for (long clalgo_base = clalgo_begin; clalgo_base < clalgo_end; clalgo_base += CLALGO_UNROLL * clalgo_stride) {
            long clalgo_bin[CLALGO_UNROLL];
#pragma unroll
            for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u) {
                const long clalgo_k = clalgo_base + clalgo_u * clalgo_stride;
                clalgo_bin[clalgo_u] = -1;
                if (clalgo_k < clalgo_end) {
                    const long i = clalgo_start + clalgo_k * clalgo_step;
                    clalgo_bin[clalgo_u] = (long)(${bin_expr});
                }
            }
#pragma unroll
            for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
                CLALGO_COUNT(clalgo_bin[clalgo_u])
        }
    }
    /* the group's copy is found here, after the loop: found before it, the kernel took 1.5 times as long from
       2^24 items on an H200 (as it is, NVIDIA's compiler gives it 32 registers, the most that keeps 2,048
       work-items an SM resident) */
    const uint clalgo_copy_count = clalgo_bins <= CLALGO_SPREAD_BINS ? CLALGO_SUM_COPIES : 1;
    if (clalgo_local) {
        __global clalgo_count_t *clalgo_copy = clalgo_sums + (get_group_id(0) % clalgo_copy_count) * clalgo_bins;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (long clalgo_b = clalgo_lid; clalgo_b < clalgo_bins; clalgo_b += CLALGO_GROUP_SIZE)
            if (clalgo_private[clalgo_b] != 0)
                clalgo_global_add(&clalgo_copy[clalgo_b], (clalgo_count_t)clalgo_private[clalgo_b]);
    }
    /* the last work-group to finish adds the copies up into the result, zeroing them for the next call */
    CLALGO_DEVICE_FENCE();
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (clalgo_lid == 0) {
        clalgo_last_group = atomic_inc(clalgo_done) == get_num_groups(0) - 1;
        if (clalgo_last_group)
            atomic_xchg(clalgo_done, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!clalgo_last_group)
        return;
    CLALGO_DEVICE_FENCE();
    for (long clalgo_b = clalgo_lid; clalgo_b < clalgo_bins; clalgo_b += CLALGO_GROUP_SIZE) {
        clalgo_count_t clalgo_total = 0;
        for (uint clalgo_c = 0; clalgo_c < clalgo_copy_count; ++clalgo_c)
            clalgo_total += clalgo_global_take(&clalgo_sums[clalgo_c * clalgo_bins + clalgo_b]);
        clalgo_out[clalgo_b] = clalgo_total;
    }
}
)CLC";

/// The bin of x among `bins` even bins over [lower, upper): exact integer arithmetic for integers up to 32 bits
/// (`scale` then says whether 32 bits suffice), floating point (clamped to the last bin against rounding) otherwise; -1 outside.
inline constexpr const char* even_bins = R"CLC(
inline long clalgo_even_bin(${value_type} x, ${bound_type} lower, ${bound_type} upper, ${bound_type} scale, long bins)
{
#if ${exact}
    /* scale is 1 where (upper - lower) * bins < 2^32 and bins <= 2^22: 32-bit arithmetic, one unsigned test for
       both bounds, and the quotient from a float estimate corrected by one step (the estimate is off by less
       than one there), far cheaper than a division */
    if (scale) {
        const ulong offset = (ulong)((long)x - lower);
        const uint span = (uint)(upper - lower);
        if (offset >= (ulong)span)
            return -1;
        const uint scaled = (uint)offset * (uint)bins;
        uint bin = (uint)((float)scaled * (1.0f / (float)span));
        if ((ulong)bin * span > scaled)
            --bin;
        else if ((ulong)(bin + 1) * span <= scaled)
            ++bin;
        return (long)bin;
    }
    const ${bound_type} v = (${bound_type})x;
    if (!(v >= lower && v < upper))
        return -1;
    return (v - lower) * bins / (upper - lower);
#else
    const ${bound_type} v = (${bound_type})x;
    if (!(v >= lower && v < upper))
        return -1;
    return min((long)((v - lower) * scale), bins - 1);
#endif
}
)CLC";

}  // namespace clalgo::detail::cl_source
