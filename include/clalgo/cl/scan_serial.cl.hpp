// OpenCL C templates of the CPU's scans: a block's fold and scan by one work-item (scan_blocks), and the serial
// algorithm of GenericScanKernel, one work-item per contiguous block of clalgo_units_per_group items: pass 1
// reduces each block in order, pass 2 scans each block from the total of the blocks before it. Appended to
// scan_tile.cl.hpp's text (which they use for the user's functions); scan_serial after scan_blocks.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* scan_blocks = R"CLC(
/* CPU devices: the items [clalgo_first, clalgo_last) folded in order; *clalgo_run_flag: whether a segment starts
   among them. */
inline clalgo_value_t clalgo_fold_block(const long clalgo_first, const long clalgo_last, const long clalgo_start,
                                        const long clalgo_step, const long n, uint *clalgo_run_flag${function_parameters})
{
    clalgo_value_t clalgo_run = clalgo_neutral();
    uint clalgo_flags = 0;
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k) {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        uint clalgo_flag = 0;
#if CLALGO_SEGMENTED
        clalgo_flag = clalgo_is_segment_start(i, n${function_arguments});
#endif
        ${kept_fetches}
        clalgo_run = clalgo_scan_op(clalgo_run, clalgo_input(i, n, clalgo_k, clalgo_step${kept_arguments}${function_arguments}), clalgo_flag);
        clalgo_flags |= clalgo_flag;
    }
    *clalgo_run_flag = clalgo_flags;
    return clalgo_run;
}

/* The same items scanned from clalgo_carry (the scan of everything before them), each item's statements run.
   Returns the last item (clalgo_carry where there are none). */
inline clalgo_value_t clalgo_scan_block(const long clalgo_first, const long clalgo_last, const long clalgo_start,
                                        const long clalgo_step, const long n, clalgo_value_t clalgo_carry,
                                        const clalgo_value_t last_item${function_parameters})
{
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k) {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        uint clalgo_flag = 0;
#if CLALGO_SEGMENTED
        clalgo_flag = clalgo_is_segment_start(i, n${function_arguments});
#endif
        ${kept_fetches}
        const clalgo_value_t item = clalgo_scan_op(clalgo_carry, clalgo_input(i, n, clalgo_k, clalgo_step${kept_arguments}${function_arguments}), clalgo_flag);
        const clalgo_value_t prev_item = clalgo_flag ? clalgo_neutral() : clalgo_carry;
        ${item_statement}
        {
            ${output_statement};
        }
        clalgo_carry = item;
    }
    return clalgo_carry;
}
)CLC";

inline constexpr const char* scan_serial = R"CLC(
/* CPU devices: one work-item per contiguous block. Pass 1 reduces each block in order. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void ${name}_reduce_blocks(
    ${reduce_signature}${parameters})
{
    ${reduce_unpack}
    const long clalgo_first = min((long)get_group_id(0) * clalgo_units_per_group, n), clalgo_last = min(clalgo_first + clalgo_units_per_group, n);
    uint clalgo_run_flag;
    const clalgo_value_t clalgo_run = clalgo_fold_block(clalgo_first, clalgo_last, clalgo_start, clalgo_step, n, &clalgo_run_flag${function_arguments});
    clalgo_runs[get_group_id(0)] = clalgo_run;
    clalgo_run_flags[get_group_id(0)] = clalgo_run_flag;
}

/* Pass 2: each work-item scans its block, starting from the total of the blocks before it. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void ${name}_scan_blocks(
    ${scan_signature}${parameters})
{
    ${scan_unpack}
    const long clalgo_block_index = get_group_id(0);
    clalgo_value_t clalgo_carry = clalgo_carry_in;  /* the carry-in comes before everything */
    for (long clalgo_b = 0; clalgo_b < clalgo_block_index; ++clalgo_b)
        clalgo_carry = clalgo_scan_op(clalgo_carry, clalgo_runs[clalgo_b], clalgo_run_flags[clalgo_b]);
    clalgo_value_t last_item = clalgo_carry_in;
#if ${uses_last_item}
    for (long clalgo_b = 0; clalgo_b < clalgo_groups; ++clalgo_b)
        last_item = clalgo_scan_op(last_item, clalgo_runs[clalgo_b], clalgo_run_flags[clalgo_b]);
#endif
    const long clalgo_first = min(clalgo_block_index * clalgo_units_per_group, n), clalgo_last = min(clalgo_first + clalgo_units_per_group, n);
    clalgo_carry = clalgo_scan_block(clalgo_first, clalgo_last, clalgo_start, clalgo_step, n, clalgo_carry, last_item${function_arguments});
    if (clalgo_last == n && (clalgo_first < clalgo_last || n == 0)) {
        const clalgo_value_t clalgo_last_item = clalgo_carry;
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
        ${total_statement}
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
