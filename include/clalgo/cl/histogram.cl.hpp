// OpenCL C template of histogram and HistogramKernel: each work-group counts the bins of its indices into a
// private histogram in local memory (32-bit counters; plain increments where the group is one work-item), then
// adds each non-zero bin to the result with one global atomic. Bins beyond the local histogram's room are
// counted with a global atomic each. A bin outside [0, bins) is not counted.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* histogram = R"CLC(${prologue}
${atomics_pragma}
${preamble}

typedef ${count_type} clalgo_count_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_LOCAL_BINS ${local_bins}
#define CLALGO_CONTIGUOUS_CHUNKS ${contiguous_chunks}
#define clalgo_global_add(p, v) ${global_add}

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}(
    ${signature}${parameters})
{
    ${array_pointers}
    __global clalgo_count_t *clalgo_out = clalgo_counts + clalgo_counts_offset;
    const int clalgo_local = clalgo_bins <= CLALGO_LOCAL_BINS;
    const uint clalgo_lid = get_local_id(0);
    __local uint clalgo_private[CLALGO_LOCAL_BINS];
    if (clalgo_local) {
        for (long clalgo_b = clalgo_lid; clalgo_b < clalgo_bins; clalgo_b += CLALGO_GROUP_SIZE)
            clalgo_private[clalgo_b] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if CLALGO_CONTIGUOUS_CHUNKS
    const long clalgo_chunk = (n + (long)get_global_size(0) - 1) / (long)get_global_size(0);
    const long clalgo_first = min((long)get_global_id(0) * clalgo_chunk, n);
    const long clalgo_last = min(clalgo_first + clalgo_chunk, n);
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k)
#else
    for (long clalgo_k = get_global_id(0); clalgo_k < n; clalgo_k += (long)get_global_size(0))
#endif
    {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        const long clalgo_bin = (long)(${bin_expr});
        if (clalgo_bin >= 0 && clalgo_bin < clalgo_bins) {
            if (clalgo_local) {
#if CLALGO_GROUP_SIZE == 1
                ++clalgo_private[clalgo_bin];
#else
                atomic_inc(&clalgo_private[clalgo_bin]);
#endif
            } else {
                clalgo_global_add(&clalgo_out[clalgo_bin], (clalgo_count_t)1);
            }
        }
    }
    if (clalgo_local) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (long clalgo_b = clalgo_lid; clalgo_b < clalgo_bins; clalgo_b += CLALGO_GROUP_SIZE)
            if (clalgo_private[clalgo_b] != 0)
                clalgo_global_add(&clalgo_out[clalgo_b], (clalgo_count_t)clalgo_private[clalgo_b]);
    }
}
)CLC";

/// The bin of x among `bins` even bins over [lower, upper): exact integer arithmetic for integers up to 32 bits,
/// floating point (clamped to the last bin against rounding) otherwise; -1 outside.
inline constexpr const char* even_bins = R"CLC(
inline long clalgo_even_bin(${value_type} x, ${bound_type} lower, ${bound_type} upper, ${bound_type} scale, long bins)
{
    const ${bound_type} v = (${bound_type})x;
    if (!(v >= lower && v < upper))
        return -1;
#if ${exact}
    return (v - lower) * bins / (upper - lower);
#else
    return min((long)((v - lower) * scale), bins - 1);
#endif
}
)CLC";

}  // namespace clalgo::detail::cl_source
