// OpenCL C template of segmented_reduce, reduce_by_key and unique_by_key: work-group g folds segments g,
// g + groups, ...; segment s is [offsets[s], offsets[s+1]) (the last one ends at clalgo_total where that is set).
// Each work-item folds one contiguous slice of the segment, and the slices are combined pairwise in order, so
// the operator need not be commutative. Offsets out of order or out of range are clamped: never an access
// outside the arrays.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* segmented_reduce = R"CLC(${prologue}
${preamble}

typedef ${value_type} clalgo_value_t;
typedef ${key_type} clalgo_key_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_FOLD ${fold}
#define CLALGO_BY_KEY ${by_key}

#if CLALGO_FOLD
inline clalgo_value_t clalgo_neutral(void)
{
    return ${neutral};
}

inline clalgo_value_t clalgo_reduce(clalgo_value_t a, clalgo_value_t b)
{
    return ${reduce_expr};
}
#endif

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}(
    ${signature})
{
    __global const long *clalgo_offs = clalgo_offsets + clalgo_offsets_offset;
    __global const clalgo_value_t *clalgo_in = clalgo_values + clalgo_values_offset;
    __global clalgo_value_t *clalgo_result = clalgo_out + clalgo_out_offset;
#if CLALGO_BY_KEY
    __global const clalgo_key_t *clalgo_key_in = clalgo_keys + clalgo_keys_offset;
    __global clalgo_key_t *clalgo_key_result = clalgo_keys_out + clalgo_keys_out_offset;
#endif
    /* a segment count on the device (reduce_by_key's runs) is capped by the room in the results */
    const long clalgo_segments = clalgo_segment_count < 0 ? min(clalgo_count[0], clalgo_segment_room) : clalgo_segment_count;
    const uint clalgo_lid = get_local_id(0);
#if CLALGO_FOLD && CLALGO_GROUP_SIZE > 1
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
#endif
    for (long clalgo_s = get_group_id(0); clalgo_s < clalgo_segments; clalgo_s += get_num_groups(0)) {
        const long clalgo_first = clamp(clalgo_offs[clalgo_s], 0L, clalgo_value_count);
        const long clalgo_end_at = (clalgo_total >= 0 && clalgo_s + 1 == clalgo_segments) ? clalgo_total
                                                                                         : clalgo_offs[clalgo_s + 1];
        const long clalgo_end = clamp(clalgo_end_at, clalgo_first, clalgo_value_count);
#if CLALGO_FOLD
        const long clalgo_slice = (clalgo_end - clalgo_first + CLALGO_GROUP_SIZE - 1) / CLALGO_GROUP_SIZE;
        const long clalgo_from = min(clalgo_first + clalgo_lid * clalgo_slice, clalgo_end);
        const long clalgo_to = min(clalgo_from + clalgo_slice, clalgo_end);
        clalgo_value_t clalgo_acc = clalgo_neutral();
        for (long clalgo_k = clalgo_from; clalgo_k < clalgo_to; ++clalgo_k)
            clalgo_acc = clalgo_reduce(clalgo_acc, clalgo_in[clalgo_k]);
#if CLALGO_GROUP_SIZE > 1
        /* neighbours combine pairwise, left operand first: slice order is kept */
        clalgo_scratch[clalgo_lid] = clalgo_acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint clalgo_width = 1; clalgo_width < CLALGO_GROUP_SIZE; clalgo_width <<= 1) {
            if ((clalgo_lid & (2 * clalgo_width - 1)) == 0)
                clalgo_scratch[clalgo_lid] = clalgo_reduce(clalgo_scratch[clalgo_lid], clalgo_scratch[clalgo_lid + clalgo_width]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        clalgo_acc = clalgo_scratch[0];
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        if (clalgo_lid == 0)
            clalgo_result[clalgo_s] = clalgo_acc;
#else
        /* unique_by_key: the first value of each run */
        if (clalgo_lid == 0 && clalgo_first < clalgo_end)
            clalgo_result[clalgo_s] = clalgo_in[clalgo_first];
#endif
#if CLALGO_BY_KEY
        if (clalgo_lid == 0 && clalgo_first < clalgo_end)
            clalgo_key_result[clalgo_s] = clalgo_key_in[clalgo_first];
#endif
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
