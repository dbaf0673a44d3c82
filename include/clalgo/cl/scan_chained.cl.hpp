// OpenCL C template: the chained algorithm of GenericScanKernel, for CPU devices. One work-item per core takes
// the next block of clalgo_block_items items by ticket, folds it (which brings it into the core's cache), finds
// the total of the blocks before it by look-back over their status words (scan_look_back.cl.hpp's), and scans the
// block again from the cache: the input comes from memory once, where the serial algorithm reads it twice.
// scan_chain_prefix (blocks by ticket, and a block's look-back) is appended to scan_tile.cl.hpp's text (the
// user's functions), scan_look_back.cl.hpp's (the status words) and scan_serial.cl.hpp's scan_blocks (a block's
// fold and scan); then scan_chained, the kernel (or compaction.cl.hpp's compaction_chained, a compaction's).
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* scan_chain_prefix = R"CLC(
/* The next block, by ticket, in *block; false once every block is taken. Every work-item takes one ticket past
   the last block and stops; the last of those leaves the counter at 0, ready for the next call. */
inline bool clalgo_next_block(__global uint *ticket, const uint blocks, uint *block)
{
    *block = atomic_inc(ticket);
    if (*block < blocks)
        return true;
    if (*block == blocks + (uint)get_num_groups(0) - 1)
        atomic_xchg(ticket, 0u);
    return false;
}

/* The scan of everything before `block`, once the blocks before it have published: publishes the block's own
   total, combines the totals of the blocks before it, nearest first, until one that holds its inclusive prefix,
   and publishes the block's inclusive prefix. Block 0 starts from `first_prefix` (the carry-in). Blocks are taken
   by ticket, so every block waited on belongs to a work-item that is running and publishes without waiting. */
inline clalgo_value_t clalgo_chain_prefix(const uint block, const uint epoch, const clalgo_value_t first_prefix,
                                          const clalgo_value_t aggregate, const uint aggregate_flag, CLALGO_LOOK_BACK_STATE)
{
    if (block == 0) {
        clalgo_publish(status, aggregates, inclusives, 0, epoch, CLALGO_INCLUSIVE,
                       clalgo_scan_op(first_prefix, aggregate, aggregate_flag), aggregate_flag);
        return first_prefix;
    }
    clalgo_publish(status, aggregates, inclusives, block, epoch, CLALGO_AGGREGATE, aggregate, aggregate_flag);
    clalgo_value_t before = clalgo_neutral();
    uint before_flag = 0;
    for (uint predecessor = block - 1;; --predecessor) {
        clalgo_value_t value;
        uint flag = 0, kind;
        while ((kind = clalgo_read_status(status, aggregates, inclusives, predecessor, epoch, &value, &flag)) ==
               CLALGO_NOT_PUBLISHED)
            ;
        before = clalgo_scan_op(value, before, before_flag);
        before_flag |= flag;
        if (kind == CLALGO_INCLUSIVE)
            break;
    }
    clalgo_publish(status, aggregates, inclusives, block, epoch, CLALGO_INCLUSIVE,
                   clalgo_scan_op(before, aggregate, aggregate_flag), before_flag | aggregate_flag);
    return before;
}
)CLC";

inline constexpr const char* scan_chained = R"CLC(
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void ${name}_chained(
    ${signature}${parameters})
{
    ${chained_unpack}
    uint clalgo_block;
    while (clalgo_next_block(clalgo_ticket, clalgo_tiles, &clalgo_block)) {
        const long clalgo_first = min((long)clalgo_block * clalgo_block_items, n);
        const long clalgo_last = min(clalgo_first + clalgo_block_items, n);

        /* fold the block, take the total of the blocks before it, scan the block again from the cache */
        uint clalgo_run_flag;
        const clalgo_value_t clalgo_run = clalgo_fold_block(clalgo_first, clalgo_last, clalgo_start, clalgo_step, n, &clalgo_run_flag${function_arguments});
        clalgo_value_t clalgo_carry = clalgo_chain_prefix(clalgo_block, clalgo_epoch, clalgo_carry_in, clalgo_run, clalgo_run_flag,
                                                          clalgo_status, clalgo_aggregates, clalgo_inclusives);
        clalgo_carry = clalgo_scan_block(clalgo_first, clalgo_last, clalgo_start, clalgo_step, n, clalgo_carry, clalgo_neutral()${function_arguments});
        if (clalgo_last == n) {
            const clalgo_value_t clalgo_last_item = clalgo_carry;
            if (clalgo_total)
                *clalgo_total = clalgo_last_item;
            ${total_statement}
        }
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
