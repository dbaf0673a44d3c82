// OpenCL C template: the single-pass algorithm of GenericScanKernel (NVIDIA GPUs). Each work-group takes the
// next tile by ticket, scans it in local memory, finds the total of the tiles before it by decoupled look-back
// (scan_look_back.cl.hpp) and writes its outputs: about 2n memory traffic. Appended to scan_tile.cl.hpp's text
// and scan_look_back.cl.hpp's.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* scan_single_pass = R"CLC(
__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}_single_pass(
    ${signature}${parameters})
{
    ${array_pointers}
    __local clalgo_value_t clalgo_values[CLALGO_PADDED(CLALGO_TILE)];
    __local uchar clalgo_flags[CLALGO_SEGMENTED ? CLALGO_TILE : 1];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_scratch_flags[CLALGO_GROUP_SIZE];
    __local uint clalgo_window_kind[CLALGO_WINDOW];
    __local long clalgo_shared[2];
    ${kept_arrays}
    const uint clalgo_lid = get_local_id(0);
    const uint clalgo_tile = clalgo_take_ticket(clalgo_ticket, clalgo_tiles, clalgo_shared);
    const long clalgo_tile_first = (long)clalgo_tile * CLALGO_TILE;

    clalgo_load_tile(clalgo_tile_first, n, clalgo_start, clalgo_step, clalgo_values, clalgo_flags${kept_array_arguments}${function_arguments});
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_value_t clalgo_items[CLALGO_ITEMS];
    uint clalgo_item_flags[CLALGO_ITEMS];
    uint clalgo_thread_flag;
    const clalgo_value_t clalgo_thread_total = clalgo_thread_fold(clalgo_values, clalgo_flags, clalgo_items, clalgo_item_flags, &clalgo_thread_flag);
    uint clalgo_prefix_flag, clalgo_tile_flag;
    clalgo_value_t clalgo_tile_total;
    const clalgo_value_t clalgo_thread_prefix = clalgo_group_scan(clalgo_thread_total, clalgo_thread_flag, &clalgo_prefix_flag, &clalgo_tile_total, &clalgo_tile_flag,
                                                           clalgo_scratch, clalgo_scratch_flags);
    const clalgo_value_t clalgo_tile_prefix = clalgo_look_back(clalgo_tile, clalgo_epoch, clalgo_carry_in, clalgo_tile_total, clalgo_tile_flag, clalgo_status,
                                                        clalgo_aggregates, clalgo_inclusives, clalgo_scratch,
                                                        clalgo_window_kind, clalgo_scratch_flags, clalgo_shared);
    clalgo_thread_finish(clalgo_values, clalgo_items, clalgo_item_flags, clalgo_scan_op(clalgo_tile_prefix, clalgo_thread_prefix, clalgo_prefix_flag));
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_write_tile(clalgo_tile_first, n, clalgo_start, clalgo_step, clalgo_values, clalgo_flags, clalgo_tile_prefix,
                      clalgo_neutral(), clalgo_total${kept_array_arguments}${function_arguments});
    if (n == 0 && clalgo_lid == 0) {
        const clalgo_value_t clalgo_last_item = clalgo_carry_in;
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
        ${total_statement}
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
