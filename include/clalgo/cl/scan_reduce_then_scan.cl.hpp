// OpenCL C template: the reduce-then-scan algorithm of GenericScanKernel, for GPUs without the single pass's
// forward-progress needs. Each work-group reduces a run of tiles (pass 1), then rescans them from the total of
// the runs before it (pass 2): about 3n memory traffic, no waiting between work-groups, and `last_item` known
// before any output. Appended to scan_tile.cl.hpp's text.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* scan_reduce_then_scan = R"CLC(
/* The ordered total of runs[0 .. count), computed by the whole group (each work-item folds a contiguous
   part, the group scan combines the parts in order). */
inline clalgo_value_t clalgo_group_fold(__global const clalgo_value_t *runs, __global const uint *run_flags, const long count,
                                        uint *flag, __local clalgo_value_t *scratch, __local uint *scratch_flags)
{
    const long part = (count + CLALGO_GROUP_SIZE - 1) / CLALGO_GROUP_SIZE;
    const long first = min((long)get_local_id(0) * part, count), last = min(first + part, count);
    clalgo_value_t value = clalgo_neutral();
    uint value_flag = 0;
    for (long r = first; r < last; ++r) {
        value = clalgo_scan_op(value, runs[r], run_flags[r]);
        value_flag |= run_flags[r];
    }
    uint prefix_flag;
    clalgo_value_t total;
    clalgo_group_scan(value, value_flag, &prefix_flag, &total, flag, scratch, scratch_flags);
    return total;
}

/* Pass 1: each work-group reduces its run of tiles, in order. */
__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}_reduce_tiles(
    ${reduce_signature}${parameters})
{
    ${reduce_unpack}
    __local clalgo_value_t clalgo_values[CLALGO_PADDED(CLALGO_TILE)];
    __local uchar clalgo_flags[CLALGO_SEGMENTED ? CLALGO_TILE : 1];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_scratch_flags[CLALGO_GROUP_SIZE];
    ${kept_arrays}
    clalgo_value_t clalgo_run = clalgo_neutral();
    uint clalgo_run_flag = 0;
    const long clalgo_first_tile = get_group_id(0) * clalgo_units_per_group;
    const long clalgo_end_tile = min(clalgo_first_tile + clalgo_units_per_group, (n + CLALGO_TILE - 1) / CLALGO_TILE);
    for (long clalgo_tile = clalgo_first_tile; clalgo_tile < clalgo_end_tile; ++clalgo_tile) {
        clalgo_load_tile(clalgo_tile * CLALGO_TILE, n, clalgo_start, clalgo_step, clalgo_values, clalgo_flags${kept_array_arguments}${function_arguments});
        barrier(CLK_LOCAL_MEM_FENCE);
        clalgo_value_t clalgo_items[CLALGO_ITEMS];
        uint clalgo_item_flags[CLALGO_ITEMS];
        uint clalgo_thread_flag, clalgo_prefix_flag, clalgo_tile_flag;
        clalgo_value_t clalgo_tile_total;
        const clalgo_value_t clalgo_thread_total = clalgo_thread_fold(clalgo_values, clalgo_flags, clalgo_items, clalgo_item_flags, &clalgo_thread_flag);
        clalgo_group_scan(clalgo_thread_total, clalgo_thread_flag, &clalgo_prefix_flag, &clalgo_tile_total, &clalgo_tile_flag, clalgo_scratch, clalgo_scratch_flags);
        clalgo_run = clalgo_scan_op(clalgo_run, clalgo_tile_total, clalgo_tile_flag);
        clalgo_run_flag |= clalgo_tile_flag;
    }
    if (get_local_id(0) == 0) {
        clalgo_runs[get_group_id(0)] = clalgo_run;
        clalgo_run_flags[get_group_id(0)] = clalgo_run_flag;
    }
}

/* Pass 2: each work-group rescans its run of tiles, starting from the total of the runs before it. */
__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}_scan_tiles(
    ${scan_signature}${parameters})
{
    ${scan_unpack}
    __local clalgo_value_t clalgo_values[CLALGO_PADDED(CLALGO_TILE)];
    __local uchar clalgo_flags[CLALGO_SEGMENTED ? CLALGO_TILE : 1];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_scratch_flags[CLALGO_GROUP_SIZE];
    ${kept_arrays}
    uint clalgo_carry_flag, clalgo_last_flag;
    /* the carry-in comes before everything */
    const clalgo_value_t clalgo_runs_before = clalgo_group_fold(clalgo_runs, clalgo_run_flags, get_group_id(0), &clalgo_carry_flag,
                                                                clalgo_scratch, clalgo_scratch_flags);
    clalgo_value_t clalgo_carry = clalgo_scan_op(clalgo_carry_in, clalgo_runs_before, clalgo_carry_flag);
    clalgo_value_t last_item = clalgo_carry_in;
#if ${uses_last_item}
    last_item = clalgo_group_fold(clalgo_runs, clalgo_run_flags, clalgo_groups, &clalgo_last_flag, clalgo_scratch, clalgo_scratch_flags);
    last_item = clalgo_scan_op(clalgo_carry_in, last_item, clalgo_last_flag);
#endif
    const long clalgo_first_tile = get_group_id(0) * clalgo_units_per_group;
    const long clalgo_end_tile = min(clalgo_first_tile + clalgo_units_per_group, (n + CLALGO_TILE - 1) / CLALGO_TILE);
    for (long clalgo_tile = clalgo_first_tile; clalgo_tile < clalgo_end_tile; ++clalgo_tile) {
        clalgo_load_tile(clalgo_tile * CLALGO_TILE, n, clalgo_start, clalgo_step, clalgo_values, clalgo_flags${kept_array_arguments}${function_arguments});
        barrier(CLK_LOCAL_MEM_FENCE);
        clalgo_value_t clalgo_items[CLALGO_ITEMS];
        uint clalgo_item_flags[CLALGO_ITEMS];
        uint clalgo_thread_flag, clalgo_prefix_flag, clalgo_tile_flag;
        clalgo_value_t clalgo_tile_total;
        const clalgo_value_t clalgo_thread_total = clalgo_thread_fold(clalgo_values, clalgo_flags, clalgo_items, clalgo_item_flags, &clalgo_thread_flag);
        const clalgo_value_t clalgo_thread_prefix = clalgo_group_scan(clalgo_thread_total, clalgo_thread_flag, &clalgo_prefix_flag, &clalgo_tile_total, &clalgo_tile_flag,
                                                               clalgo_scratch, clalgo_scratch_flags);
        clalgo_thread_finish(clalgo_values, clalgo_items, clalgo_item_flags, clalgo_scan_op(clalgo_carry, clalgo_thread_prefix, clalgo_prefix_flag));
        barrier(CLK_LOCAL_MEM_FENCE);
        clalgo_write_tile(clalgo_tile * CLALGO_TILE, n, clalgo_start, clalgo_step, clalgo_values, clalgo_flags, clalgo_carry,
                          last_item, clalgo_total${kept_array_arguments}${function_arguments});
        barrier(CLK_LOCAL_MEM_FENCE);
        clalgo_carry = clalgo_scan_op(clalgo_carry, clalgo_tile_total, clalgo_tile_flag);
    }
    if (n == 0 && get_group_id(0) == 0 && get_local_id(0) == 0) {
        const clalgo_value_t clalgo_last_item = clalgo_carry_in;
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
        ${total_statement}
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
