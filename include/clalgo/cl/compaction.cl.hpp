// OpenCL C templates of CompactionKernel's own paths. Its scan counts 0/1 "kept" flags with a sum, and each kept
// item goes to its place (`kept_statement`, which sees i, the arguments and `long prev_item`, the place):
//   compaction_ballot (NVIDIA): no values go through local memory: each warp takes one ballot per row of the
//     tile, the group scans the rows' counts, the tiles find their offsets by decoupled look-back. Appended to
//     scan_tile.cl.hpp's text and scan_look_back.cl.hpp's; same parameters as the single-pass kernel.
//   compaction_chained (CPUs): the chained scan's blocks (scan_chained.cl.hpp); its first pass tests a block's
//     items 64 to a word of bits, branch-free, and counts them; after the look-back its second pass visits only
//     the set bits: no branch a coin-toss predicate mispredicts item by item. Appended where scan_chained would be
//     (after scan_chain_prefix); the same kernel name and parameters. Needs CLALGO_HELD_WORDS (the words of bits
//     a work-item holds between the passes). A partition visits the clear bits too (`rejected_statement`, which
//     sees i, clalgo_k and `long prev_item`, the kept items before it).
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* compaction_ballot = R"CLC(
#define CLALGO_WARPS (CLALGO_GROUP_SIZE / 32)
#define CLALGO_ROWS (CLALGO_ITEMS * CLALGO_WARPS)

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}_compact(
    ${signature}${parameters})
{
    ${array_pointers}
    __local uint clalgo_row_masks[CLALGO_ROWS];
    __local uint clalgo_row_starts[CLALGO_ROWS];
    __local uchar clalgo_flags[CLALGO_SEGMENTED ? CLALGO_TILE : 1];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_scratch_flags[CLALGO_GROUP_SIZE];
    __local uint clalgo_window_kind[CLALGO_WINDOW];
    __local long clalgo_shared[2];
    ${kept_arrays}
    const uint clalgo_lid = get_local_id(0);
    const uint clalgo_tile = clalgo_take_ticket(clalgo_ticket, clalgo_tiles, clalgo_shared);
    const long clalgo_tile_first = (long)clalgo_tile * CLALGO_TILE;

    /* Compaction without scanning values in local memory. Row j of the tile is its items j * CLALGO_GROUP_SIZE
       + local id; each warp takes one ballot of "kept" per row, whose population count is how many of its 32
       items of the row are kept. The group scans those counts in tile order (row by row, warp by warp), and a
       kept item's place is the prefix of the tiles before, plus its row and warp's count prefix, plus the kept
       lanes below it in its ballot. Stores of neighbouring kept items land side by side. */
    const uint clalgo_lane = clalgo_lid & 31, clalgo_warp = clalgo_lid >> 5;
    const bool clalgo_full = clalgo_tile_first + CLALGO_TILE <= n;
    const long clalgo_first_i = clalgo_start + (clalgo_tile_first + (long)clalgo_lid) * clalgo_step;
    const long clalgo_i_stride = CLALGO_GROUP_SIZE * clalgo_step;
    ulong clalgo_kept_bits = 0;  /* bit j: this work-item's item of row j is kept */
    /* the loop twice, full tiles without the bounds check (see clalgo_load_tile) */
    if (clalgo_full) {
#if CLALGO_UNROLL_INPUT
#pragma unroll
#else
#pragma unroll 1
#endif
        for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
            const long clalgo_k = clalgo_tile_first + clalgo_j * CLALGO_GROUP_SIZE + clalgo_lid;
            const long i = clalgo_first_i + (long)clalgo_j * clalgo_i_stride;
            ${kept_loads}
            if (clalgo_input(i, n, clalgo_k, clalgo_step${kept_arguments}${function_arguments}) != 0)
                clalgo_kept_bits |= (ulong)1 << clalgo_j;
        }
    } else {
#if CLALGO_UNROLL_INPUT
#pragma unroll
#else
#pragma unroll 1
#endif
        for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
            const long clalgo_k = clalgo_tile_first + clalgo_j * CLALGO_GROUP_SIZE + clalgo_lid;
            if (clalgo_k < n) {
                const long i = clalgo_first_i + (long)clalgo_j * clalgo_i_stride;
                ${kept_loads}
                if (clalgo_input(i, n, clalgo_k, clalgo_step${kept_arguments}${function_arguments}) != 0)
                    clalgo_kept_bits |= (ulong)1 << clalgo_j;
            }
        }
    }
    for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
        const uint clalgo_mask = clalgo_ballot((uint)(clalgo_kept_bits >> clalgo_j) & 1u);
        if (clalgo_lane == 0)
            clalgo_row_masks[clalgo_j * CLALGO_WARPS + clalgo_warp] = clalgo_mask;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* each work-item counts a run of rows, the group scans the runs' counts, each work-item places its rows */
    const uint clalgo_rows_each = (CLALGO_ROWS + CLALGO_GROUP_SIZE - 1) / CLALGO_GROUP_SIZE;
    const uint clalgo_first_row = min(clalgo_lid * clalgo_rows_each, (uint)CLALGO_ROWS);
    const uint clalgo_end_row = min(clalgo_first_row + clalgo_rows_each, (uint)CLALGO_ROWS);
    uint clalgo_count = 0;
    for (uint clalgo_r = clalgo_first_row; clalgo_r < clalgo_end_row; ++clalgo_r)
        clalgo_count += popcount(clalgo_row_masks[clalgo_r]);
    uint clalgo_prefix_flag, clalgo_tile_flag;
    clalgo_value_t clalgo_tile_total;
    uint clalgo_row_start = (uint)clalgo_group_scan((clalgo_value_t)clalgo_count, 0, &clalgo_prefix_flag, &clalgo_tile_total,
                                                    &clalgo_tile_flag, clalgo_scratch, clalgo_scratch_flags);
    for (uint clalgo_r = clalgo_first_row; clalgo_r < clalgo_end_row; ++clalgo_r) {
        clalgo_row_starts[clalgo_r] = clalgo_row_start;
        clalgo_row_start += popcount(clalgo_row_masks[clalgo_r]);
    }
    const clalgo_value_t clalgo_tile_prefix = clalgo_look_back(clalgo_tile, clalgo_epoch, clalgo_carry_in, clalgo_tile_total, 0, clalgo_status,
                                                               clalgo_aggregates, clalgo_inclusives, clalgo_scratch,
                                                               clalgo_window_kind, clalgo_scratch_flags, clalgo_shared);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint clalgo_lanes_below = (1u << clalgo_lane) - 1u;
#pragma unroll
    for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
        if ((clalgo_kept_bits >> clalgo_j) & 1) {
            const uint clalgo_r = clalgo_j * CLALGO_WARPS + clalgo_warp;
            const long clalgo_k = clalgo_tile_first + clalgo_j * CLALGO_GROUP_SIZE + clalgo_lid;
            const long i = clalgo_first_i + (long)clalgo_j * clalgo_i_stride;
            const long prev_item = (long)clalgo_tile_prefix + clalgo_row_starts[clalgo_r] +
                                   popcount(clalgo_row_masks[clalgo_r] & clalgo_lanes_below);
            ${kept_reads}
            ${kept_statement}
        }
    }
    /* the last tile writes the count (and the total) */
    if (clalgo_lid == 0 && n - clalgo_tile_first <= CLALGO_TILE && n > clalgo_tile_first) {
        const clalgo_value_t clalgo_last_item = clalgo_tile_prefix + clalgo_tile_total;
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
        ${total_statement}
    }
    if (n == 0 && clalgo_lid == 0) {
        const clalgo_value_t clalgo_last_item = clalgo_carry_in;
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
        ${total_statement}
    }
}
)CLC";

inline constexpr const char* compaction_chained = R"CLC(
/* the index of the lowest set bit of a nonzero word */
#if __OPENCL_C_VERSION__ >= 200
#define CLALGO_LOWEST_BIT(word) ctz(word)
#else
#define CLALGO_LOWEST_BIT(word) (63 - clz((word) & (~(word) + 1)))
#endif
/* the first CLALGO_HELD_WORDS words of a block's bits are held between its two passes; any beyond are tested
   again */
#define CLALGO_HELD_WORDS ${held_words}
/* a partition: the rejected items are placed too (rejected_statement) */
#define CLALGO_PLACES_REJECTED ${places_rejected}

/* bit b set where the item at clalgo_word + b (b < clalgo_items) is kept */
inline ulong clalgo_kept_word(const long clalgo_word, const uint clalgo_items, const long clalgo_start,
                              const long clalgo_step, const long n${function_parameters})
{
    ulong clalgo_kept = 0;
    for (uint clalgo_b = 0; clalgo_b < clalgo_items; ++clalgo_b) {
        const long clalgo_k = clalgo_word + clalgo_b;
        const long i = clalgo_start + clalgo_k * clalgo_step;
        ${kept_fetches}
        clalgo_kept |= (ulong)(clalgo_input(i, n, clalgo_k, clalgo_step${kept_arguments}${function_arguments}) != 0) << clalgo_b;
    }
    return clalgo_kept;
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void ${name}_chained(
    ${signature}${parameters})
{
    ${chained_unpack}
    ulong clalgo_held[CLALGO_HELD_WORDS];
    uint clalgo_block;
    while (clalgo_next_block(clalgo_ticket, clalgo_tiles, &clalgo_block)) {  /* as the chained scan takes them */
        const long clalgo_first = min((long)clalgo_block * clalgo_block_items, n);
        const long clalgo_last = min(clalgo_first + clalgo_block_items, n);

        /* test the block's items 64 to a word, branch-free, and count the kept ones (which brings the block into
           the core's cache); take the count before the block */
        clalgo_value_t clalgo_run = 0;
        for (long clalgo_word = clalgo_first; clalgo_word < clalgo_last; clalgo_word += 64) {
            const ulong clalgo_kept = clalgo_kept_word(clalgo_word, (uint)min(64l, clalgo_last - clalgo_word), clalgo_start,
                                                       clalgo_step, n${function_arguments});
            const long clalgo_w = (clalgo_word - clalgo_first) >> 6;
            if (clalgo_w < CLALGO_HELD_WORDS)
                clalgo_held[clalgo_w] = clalgo_kept;
            clalgo_run += (clalgo_value_t)popcount(clalgo_kept);
        }
        const clalgo_value_t clalgo_before = clalgo_chain_prefix(clalgo_block, clalgo_epoch, clalgo_carry_in, clalgo_run, 0,
                                                                 clalgo_status, clalgo_aggregates, clalgo_inclusives);
        long prev_item = (long)clalgo_before;
        for (long clalgo_word = clalgo_first; clalgo_word < clalgo_last; clalgo_word += 64) {
            const long clalgo_w = (clalgo_word - clalgo_first) >> 6;
            const uint clalgo_items = (uint)min(64l, clalgo_last - clalgo_word);
            const ulong clalgo_bits = clalgo_w < CLALGO_HELD_WORDS
                                          ? clalgo_held[clalgo_w]
                                          : clalgo_kept_word(clalgo_word, clalgo_items, clalgo_start, clalgo_step, n${function_arguments});
#if CLALGO_PLACES_REJECTED
            /* the rejected items (the clear bits): prev_item, the kept items before one, is its position less the
               rejected ones before it */
            long clalgo_rejected_before = clalgo_word - prev_item;
            ulong clalgo_rejected = ~clalgo_bits & (clalgo_items == 64 ? ~0ul : (1ul << clalgo_items) - 1ul);
            while (clalgo_rejected != 0) {
                const uint clalgo_b = (uint)CLALGO_LOWEST_BIT(clalgo_rejected);
                clalgo_rejected &= clalgo_rejected - 1;
                const long clalgo_k = clalgo_word + clalgo_b;
                const long i = clalgo_start + clalgo_k * clalgo_step;
                const long prev_item = clalgo_k - clalgo_rejected_before++;
                ${kept_fetches}
                ${rejected_statement}
            }
#endif
            ulong clalgo_kept = clalgo_bits;
            /* the set bits, lowest first: the kept items in order (a loop of its own where the items are
               consecutive, which spares a multiplication an item) */
            if (clalgo_step == 1) {
                const long clalgo_first_i = clalgo_start + clalgo_word;
                while (clalgo_kept != 0) {
                    const uint clalgo_b = (uint)CLALGO_LOWEST_BIT(clalgo_kept);
                    const long clalgo_k = clalgo_word + clalgo_b;
                    const long i = clalgo_first_i + clalgo_b;
                    clalgo_kept &= clalgo_kept - 1;
                    ${kept_fetches}
                    ${kept_statement}
                    ++prev_item;
                }
            } else {
                while (clalgo_kept != 0) {
                    const long clalgo_k = clalgo_word + (long)CLALGO_LOWEST_BIT(clalgo_kept);
                    const long i = clalgo_start + clalgo_k * clalgo_step;
                    clalgo_kept &= clalgo_kept - 1;
                    ${kept_fetches}
                    ${kept_statement}
                    ++prev_item;
                }
            }
        }
        if (clalgo_last == n) {
            const clalgo_value_t clalgo_last_item = clalgo_scan_op(clalgo_before, clalgo_run, 0);
            if (clalgo_total)
                *clalgo_total = clalgo_last_item;
            ${total_statement}
        }
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
