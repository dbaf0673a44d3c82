// OpenCL C templates of GenericScanKernel. A scan works on (value, segment flag) pairs: `clalgo_scan_op(a, b,
// across_seg_boundary)` combines a left value with a right one, the flag telling whether a segment starts
// inside the right one. Three algorithms share the tile machinery below:
//   single pass       each work-group scans one tile, publishes its total and finds the total of the tiles
//                     before it by decoupled look-back (Merrill & Garland 2016): about 2n memory traffic;
//   reduce then scan  each work-group reduces a run of tiles, then rescans them with the total of the runs
//                     before it: about 3n traffic, no waiting between work-groups (and `last_item` is known);
//   serial            for CPUs: one work-item per contiguous block, reduce then scan, plain loops.
// Items are read striped (neighbouring work-items on neighbouring items) and scanned in local memory, each
// work-item over CLALGO_ITEMS consecutive items, so global reads and writes coalesce on GPUs.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* scan_common = R"CLC(${prologue}
${preamble}

typedef ${value_type} clalgo_value_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_ITEMS ${items_per_thread}
#define CLALGO_TILE (CLALGO_GROUP_SIZE * CLALGO_ITEMS)
#define CLALGO_SEGMENTED ${segmented}
#define CLALGO_WARP_SHUFFLE ${warp_shuffle}
#define CLALGO_NVIDIA ${nvidia}
#define CLALGO_COMPACTION ${compaction}
/* compaction by warp ballots instead of a scan of values (NVIDIA, single pass, 0/1 inputs, no output statement) */
#define CLALGO_BALLOT_COMPACTION ${ballot_compaction}
/* one spare slot every 32 values keeps a work-item's consecutive items in different local-memory banks */
#define CLALGO_PADDED(p) ((p) + (p) / 32)
/* segment flags move between lanes only in segmented scans (a shuffle cannot be optimised away) */
#if CLALGO_SEGMENTED
#define CLALGO_FLAG_UP(flag, delta) clalgo_shuffle_up_uint(flag, delta)
#define CLALGO_FLAG_XOR(flag, mask) clalgo_shuffle_xor_uint(flag, mask)
#else
#define CLALGO_FLAG_UP(flag, delta) 0u
#define CLALGO_FLAG_XOR(flag, mask) 0u
#endif

inline clalgo_value_t clalgo_neutral(void)
{
    return ${neutral};
}

inline clalgo_value_t clalgo_scan_op(clalgo_value_t a, clalgo_value_t b, bool across_seg_boundary)
{
    return ${scan_expr};
}

inline clalgo_value_t clalgo_input(const long i, const long n, const long clalgo_k${kept_parameters}${function_parameters})
{
    ${input_fetches}
    return ${input_expr};
}

inline bool clalgo_is_segment_start(const long i, const long n${function_parameters})
{
    return ${is_segment_start_expr};
}
${warp_shuffle_functions}

/* Tile phase 1: compute the tile's inputs, striped so that neighbouring work-items read neighbouring items,
   into local memory; items past n hold the neutral element. All items are computed before any is stored, so
   that their global reads are in flight together; full tiles skip the bounds checks. Kept fetches (input
   fetches at offset 0) stay in registers for the output statement. */
inline void clalgo_load_tile(const long clalgo_tile_first, const long n, const long clalgo_start, const long clalgo_step,
                             __local clalgo_value_t *clalgo_values, __local uchar *clalgo_flags${kept_array_parameters}${function_parameters})
{
    const bool clalgo_full = clalgo_tile_first + CLALGO_TILE <= n;
    const long clalgo_first_i = clalgo_start + (clalgo_tile_first + (long)get_local_id(0)) * clalgo_step;
    const long clalgo_i_stride = CLALGO_GROUP_SIZE * clalgo_step;
    clalgo_value_t clalgo_loaded[CLALGO_ITEMS];
    uchar clalgo_loaded_flags[CLALGO_ITEMS];
#pragma unroll
    for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
        const long clalgo_k = clalgo_tile_first + clalgo_j * CLALGO_GROUP_SIZE + get_local_id(0);
        clalgo_loaded[clalgo_j] = clalgo_neutral();
        clalgo_loaded_flags[clalgo_j] = 0;
        if (clalgo_full || clalgo_k < n) {
            const long i = clalgo_first_i + (long)clalgo_j * clalgo_i_stride;
            ${kept_loads}
            clalgo_loaded[clalgo_j] = clalgo_input(i, n, clalgo_k${kept_arguments}${function_arguments});
#if CLALGO_SEGMENTED
            clalgo_loaded_flags[clalgo_j] = clalgo_is_segment_start(i, n${function_arguments}) ? 1 : 0;
#endif
        }
    }
#pragma unroll
    for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
        const uint clalgo_p = clalgo_j * CLALGO_GROUP_SIZE + get_local_id(0);
        clalgo_values[CLALGO_PADDED(clalgo_p)] = clalgo_loaded[clalgo_j];
#if CLALGO_SEGMENTED
        clalgo_flags[clalgo_p] = clalgo_loaded_flags[clalgo_j];
#endif
    }
}

/* Tile phase 2: each work-item takes its CLALGO_ITEMS consecutive items into registers and folds them. */
inline clalgo_value_t clalgo_thread_fold(__local const clalgo_value_t *values, __local const uchar *flags,
                                         clalgo_value_t *items, uint *item_flags, uint *total_flag)
{
    const uint first = get_local_id(0) * CLALGO_ITEMS;
    clalgo_value_t total = clalgo_neutral();
    uint flag = 0;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        items[j] = values[CLALGO_PADDED(first + j)];
        item_flags[j] = 0;
#if CLALGO_SEGMENTED
        item_flags[j] = flags[first + j];
#endif
        total = clalgo_scan_op(total, items[j], item_flags[j]);
        flag |= item_flags[j];
    }
    *total_flag = flag;
    return total;
}

/* Tile phase 3: exclusive scan, in order, of one (value, flag) per work-item across the group. Returns the
   work-item's exclusive prefix (the neutral element for work-item 0) with its flag, and the group's total.
   `scratch` holds at least CLALGO_GROUP_SIZE values, `scratch_flags` as many flags. */
inline clalgo_value_t clalgo_group_scan(clalgo_value_t value, uint flag, uint *prefix_flag,
                                        clalgo_value_t *total, uint *total_flag,
                                        __local clalgo_value_t *scratch, __local uint *scratch_flags)
{
    const uint lid = get_local_id(0);
#if CLALGO_WARP_SHUFFLE && CLALGO_GROUP_SIZE >= 32
    /* NVIDIA: scan within each warp by shuffles, then across the warps' totals */
    const uint lane = lid & 31, warp = lid >> 5;
    for (uint delta = 1; delta < 32; delta <<= 1) {
        const clalgo_value_t left = clalgo_shuffle_up(value, delta);
        const uint left_flag = CLALGO_FLAG_UP(flag, delta);
        if (lane >= delta) {
            value = clalgo_scan_op(left, value, flag);
            flag |= left_flag;
        }
    }
    if (lane == 31) {
        scratch[warp] = value;
        scratch_flags[warp] = flag;
    }
    clalgo_value_t exclusive = clalgo_shuffle_up(value, 1);
    uint exclusive_flag = CLALGO_FLAG_UP(flag, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_value_t before = clalgo_neutral();
    uint before_flag = 0;
    for (uint w = 0; w < CLALGO_GROUP_SIZE / 32; ++w) {
        if (w == warp) {
            if (lane == 0) {
                exclusive = before;
                exclusive_flag = before_flag;
            } else {
                exclusive = clalgo_scan_op(before, exclusive, exclusive_flag);
                exclusive_flag |= before_flag;
            }
        }
        before = clalgo_scan_op(before, scratch[w], scratch_flags[w]);
        before_flag |= scratch_flags[w];
    }
    *total = before;
    *total_flag = before_flag;
    *prefix_flag = exclusive_flag;
    barrier(CLK_LOCAL_MEM_FENCE);
    return exclusive;
#else
    /* portable: a Hillis-Steele scan in local memory (uniform control flow, which PoCL also compiles right
       inside loops; a raking scan with a serial step in work-item 0 did not) */
    scratch[lid] = value;
    scratch_flags[lid] = flag;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint delta = 1; delta < CLALGO_GROUP_SIZE; delta <<= 1) {
        if (lid >= delta) {
            value = clalgo_scan_op(scratch[lid - delta], value, flag);
            flag |= scratch_flags[lid - delta];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] = value;
        scratch_flags[lid] = flag;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const clalgo_value_t exclusive = lid > 0 ? scratch[lid - 1] : clalgo_neutral();
    *prefix_flag = lid > 0 ? scratch_flags[lid - 1] : 0;
    *total = scratch[CLALGO_GROUP_SIZE - 1];
    *total_flag = scratch_flags[CLALGO_GROUP_SIZE - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return exclusive;
#endif
}

/* Tile phase 4: scan the work-item's items from the prefix of everything before it, into local memory. */
inline void clalgo_thread_finish(__local clalgo_value_t *values, const clalgo_value_t *items, const uint *item_flags,
                                 const clalgo_value_t prefix)
{
    const uint first = get_local_id(0) * CLALGO_ITEMS;
    clalgo_value_t running = prefix;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        running = clalgo_scan_op(running, items[j], item_flags[j]);
        values[CLALGO_PADDED(first + j)] = running;
    }
}

/* Tile phase 5: run the output statement for each item, striped so that neighbouring work-items write
   neighbouring places. `tile_prefix` is the scan of everything before the tile (prev_item of its first item).
   With CLALGO_COMPACTION the kernel also writes the value of every item where the scan grows (by 1) to its
   place in the destination, and the number of such items to the count. (Gathering a tile's values in local
   memory first and writing them out contiguously measured slower on an H200: the striped stores of a warp
   already land side by side. So did marking kept items in the top bit of their place, to read one value per
   item instead of two.) */
inline void clalgo_write_tile(const long clalgo_tile_first, const long n, const long clalgo_start, const long clalgo_step,
                              __local clalgo_value_t *clalgo_values, __local const uchar *clalgo_flags,
                              const clalgo_value_t clalgo_tile_prefix, const clalgo_value_t last_item,
                              __global clalgo_value_t *clalgo_total${kept_array_parameters}${function_parameters})
{
    const bool clalgo_full = clalgo_tile_first + CLALGO_TILE <= n;
#pragma unroll
    for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
        const uint clalgo_p = clalgo_j * CLALGO_GROUP_SIZE + get_local_id(0);
        const long clalgo_k = clalgo_tile_first + clalgo_p;
        if (clalgo_full || clalgo_k < n) {
            const long i = clalgo_start + clalgo_k * clalgo_step;
            const clalgo_value_t item = clalgo_values[CLALGO_PADDED(clalgo_p)];
            clalgo_value_t prev_item = clalgo_p > 0 ? clalgo_values[CLALGO_PADDED(clalgo_p - 1)] : clalgo_tile_prefix;
#if CLALGO_SEGMENTED
            if (clalgo_flags[clalgo_p] & 1)
                prev_item = clalgo_neutral();
#endif
            ${kept_reads}
#if CLALGO_COMPACTION
            if (item != prev_item && (long)prev_item < (long)(${compaction_limit}))
                ${compaction_destination}[prev_item] = ${compaction_value};
#endif
            {
                ${output_statement};
            }
        }
    }
    /* the work-item that holds the last item writes the total */
    const long clalgo_last = n - 1 - clalgo_tile_first;
    if (clalgo_last >= 0 && clalgo_last < CLALGO_TILE && get_local_id(0) == (uint)clalgo_last % CLALGO_GROUP_SIZE) {
        const clalgo_value_t clalgo_last_item = clalgo_values[CLALGO_PADDED(clalgo_last)];
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
#if CLALGO_COMPACTION
        ${compaction_count}[0] = (long)clalgo_last_item;
#endif
    }
}
)CLC";

inline constexpr const char* scan_single_pass = R"CLC(
/* Look-back status of a tile, tagged with the call's epoch so that words left by earlier calls read as
   "not yet published". With 4-byte values, status and value travel together in one 64-bit word. */
#define CLALGO_NOT_PUBLISHED 0u
#define CLALGO_AGGREGATE 1u
#define CLALGO_INCLUSIVE 2u
#define CLALGO_PACKED ${packed_status}
#define CLALGO_WINDOW (CLALGO_GROUP_SIZE >= 32 ? 32 : CLALGO_GROUP_SIZE)

#if CLALGO_NVIDIA
/* NVIDIA's mem_fence(CLK_GLOBAL_MEM_FENCE) orders within a work-group only; membar.gl orders device-wide */
#define CLALGO_DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define CLALGO_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

#if CLALGO_PACKED
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef union { clalgo_value_t value; uint bits; } clalgo_word_t;

inline void clalgo_publish(__global ulong *status, __global clalgo_value_t *aggregates, __global clalgo_value_t *inclusives,
                           uint tile, uint epoch, uint kind, clalgo_value_t value, uint flag)
{
    clalgo_word_t word;
    word.bits = 0;
    word.value = value;
    const ulong tag = ((ulong)epoch << 3) | ((ulong)flag << 2) | kind;
    atom_xchg((volatile __global ulong *)&status[tile], (tag << 32) | word.bits);
}

/* the kind of what `tile` published in this epoch (CLALGO_NOT_PUBLISHED if nothing yet), with its value */
inline uint clalgo_read_status(__global ulong *status, __global clalgo_value_t *aggregates, __global clalgo_value_t *inclusives,
                               uint tile, uint epoch, clalgo_value_t *value, uint *flag)
{
    const ulong packed = *(volatile __global ulong *)&status[tile];
    const uint tag = (uint)(packed >> 32);
    if ((tag >> 3) != epoch)
        return CLALGO_NOT_PUBLISHED;
    clalgo_word_t word;
    word.bits = (uint)packed;
    *value = word.value;
    *flag = (tag >> 2) & 1;
    return tag & 3;
}
#else
inline void clalgo_publish(__global uint *status, __global clalgo_value_t *aggregates, __global clalgo_value_t *inclusives,
                           uint tile, uint epoch, uint kind, clalgo_value_t value, uint flag)
{
    if (kind == CLALGO_INCLUSIVE)
        inclusives[tile] = value;
    else
        aggregates[tile] = value;
    CLALGO_DEVICE_FENCE();  /* the value is visible before the status that announces it */
    atomic_xchg((volatile __global uint *)&status[tile], (epoch << 3) | (flag << 2) | kind);
}

inline uint clalgo_read_status(__global uint *status, __global clalgo_value_t *aggregates, __global clalgo_value_t *inclusives,
                               uint tile, uint epoch, clalgo_value_t *value, uint *flag)
{
    const uint tag = *(volatile __global uint *)&status[tile];
    if ((tag >> 3) != epoch || (tag & 3) == CLALGO_NOT_PUBLISHED)
        return CLALGO_NOT_PUBLISHED;
    CLALGO_DEVICE_FENCE();  /* the value is read after the status that announced it */
    if ((tag & 3) == CLALGO_INCLUSIVE)
        *value = *(volatile __global clalgo_value_t *)&inclusives[tile];
    else
        *value = *(volatile __global clalgo_value_t *)&aggregates[tile];
    *flag = (tag >> 2) & 1;
    return tag & 3;
}
#endif

#define CLALGO_LOOK_BACK_STATE                                                                            \
    __global ${status_type} *status, __global clalgo_value_t *aggregates, __global clalgo_value_t *inclusives

#if CLALGO_WARP_SHUFFLE
/* NVIDIA: the first warp looks back alone, 32 predecessors at a time, with no work-group barrier while it
   waits: a ballot finds the nearest predecessor that holds its inclusive prefix (or the nearest that has
   published nothing yet), and an ordered butterfly of shuffles combines the lanes before it.
   Returns the combined totals of the tiles before `tile`, valid in work-item 0. */
inline clalgo_value_t clalgo_combine_predecessors(const uint tile, const uint epoch, CLALGO_LOOK_BACK_STATE, uint *combined_flag,
                                                  __local clalgo_value_t *window, __local uint *window_kind,
                                                  __local uint *window_flag, __local long *shared_state)
{
    const uint lid = get_local_id(0);
    clalgo_value_t running = clalgo_neutral();
    uint running_flag = 0;
    if (lid < 32) {
        long nearest = (long)tile - 1;  /* the nearest predecessor not yet combined */
        for (;;) {
            uint kind = CLALGO_NOT_PUBLISHED, flag = 0;
            clalgo_value_t value = clalgo_neutral();
            if (nearest - (long)lid >= 0)
                kind = clalgo_read_status(status, aggregates, inclusives, (uint)(nearest - lid), epoch, &value, &flag);
            const uint first_inclusive = clalgo_lowest_bit(clalgo_ballot(kind == CLALGO_INCLUSIVE));
            const uint first_missing = clalgo_lowest_bit(clalgo_ballot(kind == CLALGO_NOT_PUBLISHED));
            const bool found = first_inclusive < first_missing;
            const uint take = found ? first_inclusive + 1 : first_missing;  /* lanes [0, take) are combined */
            if (lid >= take) {
                value = clalgo_neutral();
                flag = 0;
            }
            /* lane 0 is the nearest tile: higher lanes hold earlier tiles, so they are the left operands */
            for (uint mask = 1; mask < 32; mask <<= 1) {
                const clalgo_value_t other = clalgo_shuffle_xor(value, mask);
                const uint other_flag = CLALGO_FLAG_XOR(flag, mask);
                value = (lid & mask) ? clalgo_scan_op(value, other, other_flag) : clalgo_scan_op(other, value, flag);
                flag |= other_flag;
            }
            running = clalgo_scan_op(value, running, running_flag);
            running_flag |= flag;
            nearest -= take;
            if (found)
                break;
        }
    }
    *combined_flag = running_flag;
    return running;
}
#else
/* Portable: CLALGO_WINDOW work-items read a window of predecessors at once, work-item 0 combines them in order;
   the group goes round again while the nearest predecessor has published nothing.
   Returns the combined totals of the tiles before `tile`, valid in work-item 0. */
inline clalgo_value_t clalgo_combine_predecessors(const uint tile, const uint epoch, CLALGO_LOOK_BACK_STATE, uint *combined_flag,
                                                  __local clalgo_value_t *window, __local uint *window_kind,
                                                  __local uint *window_flag, __local long *shared_state)
{
    const uint lid = get_local_id(0);
    if (lid == 0) {
        shared_state[0] = (long)tile - 1;  /* the nearest predecessor not yet combined */
        shared_state[1] = 0;               /* done */
    }
    clalgo_value_t running = clalgo_neutral();
    uint running_flag = 0;
    for (;;) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const long nearest = shared_state[0];
        if (lid < CLALGO_WINDOW) {
            uint kind = CLALGO_NOT_PUBLISHED, flag = 0;
            clalgo_value_t value = clalgo_neutral();
            if (nearest - (long)lid >= 0)
                kind = clalgo_read_status(status, aggregates, inclusives, (uint)(nearest - lid), epoch, &value, &flag);
            window[lid] = value;
            window_kind[lid] = kind;
            window_flag[lid] = flag;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            uint w = 0;
            for (; w < CLALGO_WINDOW; ++w) {
                const uint kind = window_kind[w];
                if (kind == CLALGO_NOT_PUBLISHED)
                    break;
                running = clalgo_scan_op(window[w], running, running_flag);
                running_flag |= window_flag[w];
                if (kind == CLALGO_INCLUSIVE) {
                    shared_state[1] = 1;
                    break;
                }
            }
            shared_state[0] = nearest - w;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (shared_state[1])
            break;
    }
    *combined_flag = running_flag;
    return running;
}
#endif

/* Tile phase 3b: publish the tile's total, combine the totals of the tiles before it, nearest first, until one
   that already holds its inclusive prefix, and publish this tile's inclusive prefix (Merrill & Garland's
   decoupled look-back). Returns the scan of everything before the tile, in every work-item. The tile index came
   from a ticket, so every tile looked at belongs to a work-group that has started. */
inline clalgo_value_t clalgo_look_back(const uint tile, const uint epoch, const clalgo_value_t aggregate, const uint aggregate_flag,
                                       CLALGO_LOOK_BACK_STATE,
                                       __local clalgo_value_t *window, __local uint *window_kind, __local uint *window_flag,
                                       __local long *shared_state)
{
    const uint lid = get_local_id(0);
    if (tile == 0) {
        if (lid == 0)
            clalgo_publish(status, aggregates, inclusives, 0, epoch, CLALGO_INCLUSIVE, aggregate, aggregate_flag);
        return clalgo_neutral();
    }
    if (lid == 0)
        clalgo_publish(status, aggregates, inclusives, tile, epoch, CLALGO_AGGREGATE, aggregate, aggregate_flag);
    uint before_flag;
    const clalgo_value_t before = clalgo_combine_predecessors(tile, epoch, status, aggregates, inclusives, &before_flag,
                                                              window, window_kind, window_flag, shared_state);
    if (lid == 0) {
        clalgo_publish(status, aggregates, inclusives, tile, epoch, CLALGO_INCLUSIVE,
                       clalgo_scan_op(before, aggregate, aggregate_flag), before_flag | aggregate_flag);
        window[0] = before;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const clalgo_value_t prefix = window[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return prefix;
}

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}_single_pass(
    long clalgo_start, long clalgo_step, long n, uint clalgo_epoch, uint clalgo_tiles,
    __global uint *clalgo_ticket, __global ${status_type} *clalgo_status,
    __global clalgo_value_t *clalgo_aggregates, __global clalgo_value_t *clalgo_inclusives,
    __global clalgo_value_t *clalgo_total_base, long clalgo_total_offset${parameters})
{
    ${array_pointers}
#if CLALGO_BALLOT_COMPACTION
#define CLALGO_WARPS (CLALGO_GROUP_SIZE / 32)
#define CLALGO_ROWS (CLALGO_ITEMS * CLALGO_WARPS)
    __local uint clalgo_row_masks[CLALGO_ROWS];
    __local uint clalgo_row_starts[CLALGO_ROWS];
#else
    __local clalgo_value_t clalgo_values[CLALGO_PADDED(CLALGO_TILE)];
#endif
    __local uchar clalgo_flags[CLALGO_SEGMENTED ? CLALGO_TILE : 1];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_scratch_flags[CLALGO_GROUP_SIZE];
    __local uint clalgo_window_kind[CLALGO_WINDOW];
    __local long clalgo_shared[2];
    ${kept_arrays}
    const uint clalgo_lid = get_local_id(0);

    /* tiles are numbered in the order work-groups start, so that a clalgo_tile waits only on started ones */
    if (clalgo_lid == 0) {
        const uint clalgo_tile = atomic_inc(clalgo_ticket);
        if (clalgo_tile == clalgo_tiles - 1)
            atomic_xchg(clalgo_ticket, 0u);  /* the last ticket: leave the counter ready for the next call */
        clalgo_shared[0] = clalgo_tile;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint clalgo_tile = (uint)clalgo_shared[0];
    const long clalgo_tile_first = (long)clalgo_tile * CLALGO_TILE;
    __global clalgo_value_t *clalgo_total = clalgo_total_base ? clalgo_total_base + clalgo_total_offset : 0;

#if CLALGO_BALLOT_COMPACTION
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
#pragma unroll
    for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
        const long clalgo_k = clalgo_tile_first + clalgo_j * CLALGO_GROUP_SIZE + clalgo_lid;
        if (clalgo_full || clalgo_k < n) {
            const long i = clalgo_first_i + (long)clalgo_j * clalgo_i_stride;
            ${kept_loads}
            if (clalgo_input(i, n, clalgo_k${kept_arguments}${function_arguments}) != 0)
                clalgo_kept_bits |= (ulong)1 << clalgo_j;
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
    const clalgo_value_t clalgo_tile_prefix = clalgo_look_back(clalgo_tile, clalgo_epoch, clalgo_tile_total, 0, clalgo_status,
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
            if (prev_item < (long)(${compaction_limit}))
                ${compaction_destination}[prev_item] = ${compaction_value};
        }
    }
    /* the last tile writes the count (and the total) */
    if (clalgo_lid == 0 && n - clalgo_tile_first <= CLALGO_TILE && n > clalgo_tile_first) {
        const clalgo_value_t clalgo_last_item = clalgo_tile_prefix + clalgo_tile_total;
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
        ${compaction_count}[0] = (long)clalgo_last_item;
    }
#else
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
    const clalgo_value_t clalgo_tile_prefix = clalgo_look_back(clalgo_tile, clalgo_epoch, clalgo_tile_total, clalgo_tile_flag, clalgo_status,
                                                        clalgo_aggregates, clalgo_inclusives, clalgo_scratch,
                                                        clalgo_window_kind, clalgo_scratch_flags, clalgo_shared);
    clalgo_thread_finish(clalgo_values, clalgo_items, clalgo_item_flags, clalgo_scan_op(clalgo_tile_prefix, clalgo_thread_prefix, clalgo_prefix_flag));
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_write_tile(clalgo_tile_first, n, clalgo_start, clalgo_step, clalgo_values, clalgo_flags, clalgo_tile_prefix,
                      clalgo_neutral(), clalgo_total${kept_array_arguments}${function_arguments});
#endif
    if (n == 0 && clalgo_lid == 0) {
        if (clalgo_total)
            *clalgo_total = clalgo_neutral();
#if CLALGO_COMPACTION
        ${compaction_count}[0] = 0;
#endif
    }
}
)CLC";

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
    long clalgo_start, long clalgo_step, long n, long clalgo_tiles_per_group,
    __global clalgo_value_t *clalgo_runs, __global uint *clalgo_run_flags${parameters})
{
    ${array_pointers}
    __local clalgo_value_t clalgo_values[CLALGO_PADDED(CLALGO_TILE)];
    __local uchar clalgo_flags[CLALGO_SEGMENTED ? CLALGO_TILE : 1];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_scratch_flags[CLALGO_GROUP_SIZE];
    ${kept_arrays}
    clalgo_value_t clalgo_run = clalgo_neutral();
    uint clalgo_run_flag = 0;
    const long clalgo_first_tile = get_group_id(0) * clalgo_tiles_per_group;
    const long clalgo_end_tile = min(clalgo_first_tile + clalgo_tiles_per_group, (n + CLALGO_TILE - 1) / CLALGO_TILE);
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
    long clalgo_start, long clalgo_step, long n, long clalgo_tiles_per_group, long clalgo_groups,
    __global const clalgo_value_t *clalgo_runs, __global const uint *clalgo_run_flags,
    __global clalgo_value_t *clalgo_total_base, long clalgo_total_offset${parameters})
{
    ${array_pointers}
    __local clalgo_value_t clalgo_values[CLALGO_PADDED(CLALGO_TILE)];
    __local uchar clalgo_flags[CLALGO_SEGMENTED ? CLALGO_TILE : 1];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_scratch_flags[CLALGO_GROUP_SIZE];
    ${kept_arrays}
    __global clalgo_value_t *clalgo_total = clalgo_total_base ? clalgo_total_base + clalgo_total_offset : 0;
    uint clalgo_carry_flag, clalgo_last_flag;
    clalgo_value_t clalgo_carry = clalgo_group_fold(clalgo_runs, clalgo_run_flags, get_group_id(0), &clalgo_carry_flag,
                                             clalgo_scratch, clalgo_scratch_flags);
    clalgo_value_t last_item = clalgo_neutral();
#if ${uses_last_item}
    last_item = clalgo_group_fold(clalgo_runs, clalgo_run_flags, clalgo_groups, &clalgo_last_flag, clalgo_scratch, clalgo_scratch_flags);
#endif
    const long clalgo_first_tile = get_group_id(0) * clalgo_tiles_per_group;
    const long clalgo_end_tile = min(clalgo_first_tile + clalgo_tiles_per_group, (n + CLALGO_TILE - 1) / CLALGO_TILE);
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
        if (clalgo_total)
            *clalgo_total = clalgo_neutral();
#if CLALGO_COMPACTION
        ${compaction_count}[0] = 0;
#endif
    }
}
)CLC";

inline constexpr const char* scan_serial = R"CLC(
/* CPU devices: one work-item per contiguous block. Pass 1 reduces each block in order. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void ${name}_reduce_blocks(
    long clalgo_start, long clalgo_step, long n, long clalgo_block,
    __global clalgo_value_t *clalgo_runs, __global uint *clalgo_run_flags${parameters})
{
    ${array_pointers}
    const long clalgo_first = min((long)get_group_id(0) * clalgo_block, n), clalgo_last = min(clalgo_first + clalgo_block, n);
    clalgo_value_t clalgo_run = clalgo_neutral();
    uint clalgo_run_flag = 0;
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k) {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        uint clalgo_flag = 0;
#if CLALGO_SEGMENTED
        clalgo_flag = clalgo_is_segment_start(i, n${function_arguments});
#endif
        ${kept_fetches}
        clalgo_run = clalgo_scan_op(clalgo_run, clalgo_input(i, n, clalgo_k${kept_arguments}${function_arguments}), clalgo_flag);
        clalgo_run_flag |= clalgo_flag;
    }
    clalgo_runs[get_group_id(0)] = clalgo_run;
    clalgo_run_flags[get_group_id(0)] = clalgo_run_flag;
}

/* Pass 2: each work-item scans its block, starting from the total of the blocks before it. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void ${name}_scan_blocks(
    long clalgo_start, long clalgo_step, long n, long clalgo_block, long clalgo_blocks,
    __global const clalgo_value_t *clalgo_runs, __global const uint *clalgo_run_flags,
    __global clalgo_value_t *clalgo_total_base, long clalgo_total_offset${parameters})
{
    ${array_pointers}
    __global clalgo_value_t *clalgo_total = clalgo_total_base ? clalgo_total_base + clalgo_total_offset : 0;
    const long clalgo_block_index = get_group_id(0);
    clalgo_value_t clalgo_carry = clalgo_neutral();
    for (long clalgo_b = 0; clalgo_b < clalgo_block_index; ++clalgo_b)
        clalgo_carry = clalgo_scan_op(clalgo_carry, clalgo_runs[clalgo_b], clalgo_run_flags[clalgo_b]);
    clalgo_value_t last_item = clalgo_neutral();
#if ${uses_last_item}
    for (long clalgo_b = 0; clalgo_b < clalgo_blocks; ++clalgo_b)
        last_item = clalgo_scan_op(last_item, clalgo_runs[clalgo_b], clalgo_run_flags[clalgo_b]);
#endif
    const long clalgo_first = min(clalgo_block_index * clalgo_block, n), clalgo_last = min(clalgo_first + clalgo_block, n);
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k) {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        uint clalgo_flag = 0;
#if CLALGO_SEGMENTED
        clalgo_flag = clalgo_is_segment_start(i, n${function_arguments});
#endif
        ${kept_fetches}
        const clalgo_value_t item = clalgo_scan_op(clalgo_carry, clalgo_input(i, n, clalgo_k${kept_arguments}${function_arguments}), clalgo_flag);
        const clalgo_value_t prev_item = (clalgo_flag || clalgo_k == 0) ? clalgo_neutral() : clalgo_carry;
#if CLALGO_COMPACTION
        if (item != prev_item && (long)prev_item < (long)(${compaction_limit}))
            ${compaction_destination}[prev_item] = ${compaction_value};
#endif
        {
            ${output_statement};
        }
        clalgo_carry = item;
    }
    if (clalgo_total && clalgo_last == n && (clalgo_first < clalgo_last || n == 0))
        *clalgo_total = clalgo_carry;
#if CLALGO_COMPACTION
    if (clalgo_last == n && (clalgo_first < clalgo_last || n == 0))
        ${compaction_count}[0] = (long)clalgo_carry;
#endif
}
)CLC";

}  // namespace clalgo::detail::cl_source
