// OpenCL C template of HistogramKernel: each work-group counts the bins of its items in local memory (atomic
// increments there), then adds each count to the result with one global atomic; with more bins than local
// memory holds, every item goes straight to a global atomic. CPUs count contiguous chunks, GPUs stride.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* histogram = R"CLC(${prologue}
${atomics_pragma}
${preamble}

typedef ${count_type} clalgo_count_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_CONTIGUOUS ${contiguous}
#define CLALGO_LOCAL_BINS ${local_bins}

inline void clalgo_add_count(__global clalgo_count_t *count, const uint amount)
{
    ${global_add};
}

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}(${signature}${parameters})
{
    ${array_pointers}
    __global clalgo_count_t *clalgo_bins = clalgo_bins_base + clalgo_bins_offset;
    __local uint clalgo_counts[CLALGO_LOCAL_BINS];
    const uint clalgo_lid = get_local_id(0);
    const bool clalgo_in_local = clalgo_nbins <= CLALGO_LOCAL_BINS;
    if (clalgo_in_local)
        for (long clalgo_b = clalgo_lid; clalgo_b < clalgo_nbins; clalgo_b += CLALGO_GROUP_SIZE)
            clalgo_counts[clalgo_b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLALGO_CONTIGUOUS
    const long clalgo_chunk = (n + (long)get_num_groups(0) - 1) / (long)get_num_groups(0);
    const long clalgo_first = (long)get_group_id(0) * clalgo_chunk;
    const long clalgo_last = min(clalgo_first + clalgo_chunk, n);
    for (long clalgo_k = clalgo_first + clalgo_lid; clalgo_k < clalgo_last; clalgo_k += CLALGO_GROUP_SIZE)
#else
    for (long clalgo_k = get_global_id(0); clalgo_k < n; clalgo_k += get_global_size(0))
#endif
    {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        const long clalgo_bin = (long)(${bin_expr});
        if (clalgo_bin >= 0 && clalgo_bin < clalgo_nbins) {
            if (clalgo_in_local)
#if CLALGO_GROUP_SIZE == 1
                ++clalgo_counts[clalgo_bin];  /* a group of one work-item: nothing to race with */
#else
                atomic_inc(&clalgo_counts[clalgo_bin]);
#endif
            else
                clalgo_add_count(&clalgo_bins[clalgo_bin], 1u);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (clalgo_in_local)
        for (long clalgo_b = clalgo_lid; clalgo_b < clalgo_nbins; clalgo_b += CLALGO_GROUP_SIZE)
            if (clalgo_counts[clalgo_b])
                clalgo_add_count(&clalgo_bins[clalgo_b], clalgo_counts[clalgo_b]);
}
)CLC";

}  // namespace clalgo::detail::cl_source
