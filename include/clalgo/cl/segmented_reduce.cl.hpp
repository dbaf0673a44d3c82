// OpenCL C template of SegmentedReductionKernel: segment s is values[offsets[s] .. offsets[s+1]) (offsets clamped
// to [0, n], so malformed ones cannot reach outside the values), reduced in order from the neutral element. On
// GPUs a work-group takes a segment, each work-item folds a contiguous part and an ordered tree combines the
// parts; on CPUs each work-item folds whole segments.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* segmented_reduce = R"CLC(${prologue}
${preamble}

typedef ${value_type} clalgo_value_t;
typedef ${offset_type} clalgo_offset_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_SEGMENT_PER_ITEM ${segment_per_item}

inline clalgo_value_t clalgo_neutral(void)
{
    return ${neutral};
}

inline clalgo_value_t clalgo_reduce(clalgo_value_t a, clalgo_value_t b)
{
    return ${reduce_expr};
}

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}(${signature})
{
    __global const clalgo_value_t *values = clalgo_values_base + clalgo_values_offset;
    __global const clalgo_offset_t *offsets = clalgo_offsets_base + clalgo_offsets_offset;
    __global clalgo_value_t *out = clalgo_out_base + clalgo_out_offset;
#if CLALGO_SEGMENT_PER_ITEM
    for (long s = get_global_id(0); s < clalgo_segments; s += get_global_size(0)) {
        const long first = clamp((long)offsets[s], 0L, n), last = clamp((long)offsets[s + 1], first, n);
        clalgo_value_t total = clalgo_neutral();
        for (long k = first; k < last; ++k)
            total = clalgo_reduce(total, values[k]);
        out[s] = total;
    }
#else
    __local clalgo_value_t parts[CLALGO_GROUP_SIZE];
    const uint lid = get_local_id(0);
    for (long s = get_group_id(0); s < clalgo_segments; s += get_num_groups(0)) {
        const long first = clamp((long)offsets[s], 0L, n), last = clamp((long)offsets[s + 1], first, n);
        const long each = (last - first + CLALGO_GROUP_SIZE - 1) / CLALGO_GROUP_SIZE;
        const long mine = min(first + lid * each, last), end = min(mine + each, last);
        clalgo_value_t part = clalgo_neutral();
        for (long k = mine; k < end; ++k)
            part = clalgo_reduce(part, values[k]);
        parts[lid] = part;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* ordered tree: each step combines neighbours, left operand first */
        for (uint width = 1; width < CLALGO_GROUP_SIZE; width <<= 1) {
            if ((lid & (2 * width - 1)) == 0)
                parts[lid] = clalgo_reduce(parts[lid], parts[lid + width]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            out[s] = parts[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}
)CLC";

}  // namespace clalgo::detail::cl_source
