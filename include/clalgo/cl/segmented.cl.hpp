// OpenCL C template of segmented_reduce: a work-group holds teams of clalgo_team_size work-items (a power of
// two), each team folds one segment at a time (grid-stride over segments); segment s is [offsets[s], offsets[s+1]).
// Each work-item folds one contiguous slice of its segment (CLALGO_ITEMS loads at a time), and a team's slices are
// combined pairwise in order (warp shuffles on NVIDIA for teams of up to 32, local memory otherwise), so the
// operator need not be commutative. Offsets out of order or out of range are clamped: never an access
// outside the arrays.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* segmented_reduce = R"CLC(${prologue}
${preamble}

typedef ${value_type} clalgo_value_t;
/* the call's scalars, laid out as detail::SegmentedArgs */
typedef struct {
    long team_size, segment_count, value_count, offsets_offset, values_offset, out_offset;
} clalgo_segmented_args_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_ITEMS ${items}
#define CLALGO_WARP_SHUFFLE ${warp_shuffle}

inline clalgo_value_t clalgo_neutral(void)
{
    return ${neutral};
}

inline clalgo_value_t clalgo_reduce(clalgo_value_t a, clalgo_value_t b)
{
    return ${reduce_expr};
}
${warp_shuffle_functions}

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}(
    ${signature})
{
    __global const long *clalgo_offs = clalgo_offsets + clalgo_args.offsets_offset;
    __global const clalgo_value_t *clalgo_in = clalgo_values + clalgo_args.values_offset;
    __global clalgo_value_t *clalgo_result = clalgo_out + clalgo_args.out_offset;
    const long clalgo_segments = clalgo_args.segment_count;
    const long clalgo_value_count = clalgo_args.value_count;
    const uint clalgo_lid = get_local_id(0);
    const uint clalgo_lanes = (uint)clalgo_args.team_size;
    const uint clalgo_lane = clalgo_lid & (clalgo_lanes - 1);
    const long clalgo_teams = CLALGO_GROUP_SIZE / clalgo_lanes;
#if CLALGO_GROUP_SIZE > 1
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
#endif
    /* the trip count is the same for the whole group: every work-item reaches every barrier and shuffle */
    for (long clalgo_base = get_group_id(0) * clalgo_teams; clalgo_base < clalgo_segments;
         clalgo_base += get_num_groups(0) * clalgo_teams) {
        const long clalgo_s = clalgo_base + clalgo_lid / clalgo_lanes;
        const int clalgo_real = clalgo_s < clalgo_segments;
        const long clalgo_first = clalgo_real ? clamp(clalgo_offs[clalgo_s], 0L, clalgo_value_count) : 0;
        const long clalgo_end = clalgo_real ? clamp(clalgo_offs[clalgo_s + 1], clalgo_first, clalgo_value_count) : 0;
        const long clalgo_slice = (clalgo_end - clalgo_first + clalgo_lanes - 1) / clalgo_lanes;
        const long clalgo_from = min(clalgo_first + clalgo_lane * clalgo_slice, clalgo_end);
        const long clalgo_to = min(clalgo_from + clalgo_slice, clalgo_end);
        /* CLALGO_ITEMS loads in flight at a time, then folded in order */
        clalgo_value_t clalgo_acc = clalgo_neutral();
        for (long clalgo_k = clalgo_from; clalgo_k < clalgo_to; clalgo_k += CLALGO_ITEMS) {
            clalgo_value_t clalgo_loaded[CLALGO_ITEMS];
#pragma unroll
            for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j)
                if (clalgo_k + clalgo_j < clalgo_to)
                    clalgo_loaded[clalgo_j] = clalgo_in[clalgo_k + clalgo_j];
#pragma unroll
            for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j)
                if (clalgo_k + clalgo_j < clalgo_to)
                    clalgo_acc = clalgo_reduce(clalgo_acc, clalgo_loaded[clalgo_j]);
        }
        /* neighbours in a team combine pairwise, left operand first: slice order is kept */
#if CLALGO_WARP_SHUFFLE
        if (clalgo_lanes <= 32) {
            /* lane l, l a multiple of 2w, takes lane l + w's value: the tree's other lanes compute unused values */
            for (uint clalgo_width = 1; clalgo_width < clalgo_lanes; clalgo_width <<= 1)
                clalgo_acc = clalgo_reduce(clalgo_acc, clalgo_shuffle_xor(clalgo_acc, clalgo_width));
        } else
#endif
        {
#if CLALGO_GROUP_SIZE > 1
            clalgo_scratch[clalgo_lid] = clalgo_acc;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint clalgo_width = 1; clalgo_width < clalgo_lanes; clalgo_width <<= 1) {
                if ((clalgo_lane & (2 * clalgo_width - 1)) == 0)
                    clalgo_scratch[clalgo_lid] = clalgo_reduce(clalgo_scratch[clalgo_lid], clalgo_scratch[clalgo_lid + clalgo_width]);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            clalgo_acc = clalgo_scratch[clalgo_lid];
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
        }
        if (clalgo_lane == 0 && clalgo_real)
            clalgo_result[clalgo_s] = clalgo_acc;
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
