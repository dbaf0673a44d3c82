// OpenCL C templates of GenericScanKernel: what every scan algorithm shares. A scan works on (value, segment flag)
// pairs: `clalgo_scan_op(a, b, across_seg_boundary)` combines a left value with a right one, the flag telling
// whether a segment starts inside the right one. The algorithms (scan_single_pass.cl.hpp,
// scan_reduce_then_scan.cl.hpp, scan_serial.cl.hpp, compaction.cl.hpp) are appended to this text.
// Items are read striped (neighbouring work-items on neighbouring items) and scanned in local memory, each
// work-item over CLALGO_ITEMS consecutive items, so global reads and writes coalesce on GPUs. The tile runs in
// phases: load (1), fold per work-item (2), scan across the group (3), finish per work-item (4), write (5).
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* scan_tile = R"CLC(${prologue}
${preamble}

typedef ${value_type} clalgo_value_t;
${call_struct}
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_ITEMS ${items_per_thread}
#define CLALGO_TILE (CLALGO_GROUP_SIZE * CLALGO_ITEMS)
/* the load and write loops unrolled, unless the input expression (or the segment test) or the output statement
   is heavy: each copy adds to the build (look-and-say's, calls of preamble code with loops, took 4 s to build
   unrolled on an H100); a load loop not unrolled keeps its loaded values in private memory, not registers */
#define CLALGO_UNROLL_INPUT ${unroll_input}
#define CLALGO_UNROLL_OUTPUT ${unroll_output}
#define CLALGO_SEGMENTED ${segmented}
#define CLALGO_WARP_SHUFFLE ${warp_shuffle}
#define CLALGO_NVIDIA ${nvidia}
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

inline clalgo_value_t clalgo_input(const long i, const long n, const long clalgo_k, const long clalgo_step${kept_parameters}${function_parameters})
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
    /* the loop twice, full tiles without the bounds check, rather than leaving the compiler to split it:
       NVIDIA's did not always, and then a full tile's loads were not in flight together */
    if (clalgo_full) {
#if CLALGO_UNROLL_INPUT
#pragma unroll
#else
#pragma unroll 1
#endif
        for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
            const long clalgo_k = clalgo_tile_first + clalgo_j * CLALGO_GROUP_SIZE + get_local_id(0);
            const long i = clalgo_first_i + (long)clalgo_j * clalgo_i_stride;
            ${kept_loads}
            clalgo_loaded[clalgo_j] = clalgo_input(i, n, clalgo_k, clalgo_step${kept_arguments}${function_arguments});
            clalgo_loaded_flags[clalgo_j] = 0;
#if CLALGO_SEGMENTED
            clalgo_loaded_flags[clalgo_j] = clalgo_is_segment_start(i, n${function_arguments}) ? 1 : 0;
#endif
        }
    } else {
#if CLALGO_UNROLL_INPUT
#pragma unroll
#else
#pragma unroll 1
#endif
        for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
            const long clalgo_k = clalgo_tile_first + clalgo_j * CLALGO_GROUP_SIZE + get_local_id(0);
            clalgo_loaded[clalgo_j] = clalgo_neutral();
            clalgo_loaded_flags[clalgo_j] = 0;
            if (clalgo_k < n) {
                const long i = clalgo_first_i + (long)clalgo_j * clalgo_i_stride;
                ${kept_loads}
                clalgo_loaded[clalgo_j] = clalgo_input(i, n, clalgo_k, clalgo_step${kept_arguments}${function_arguments});
#if CLALGO_SEGMENTED
                clalgo_loaded_flags[clalgo_j] = clalgo_is_segment_start(i, n${function_arguments}) ? 1 : 0;
#endif
            }
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
   A kernel built on the scan (compaction) adds a statement per item (`item_statement`, before the output
   statement) and one with the total (`total_statement`, which sees clalgo_last_item). (Gathering a tile's values in local
   memory first and writing them out contiguously measured slower on an H200: the striped stores of a warp
   already land side by side. So did marking kept items in the top bit of their place, to read one value per
   item instead of two.) */
inline void clalgo_write_tile(const long clalgo_tile_first, const long n, const long clalgo_start, const long clalgo_step,
                              __local clalgo_value_t *clalgo_values, __local const uchar *clalgo_flags,
                              const clalgo_value_t clalgo_tile_prefix, const clalgo_value_t last_item,
                              __global clalgo_value_t *clalgo_total${kept_array_parameters}${function_parameters})
{
    const bool clalgo_full = clalgo_tile_first + CLALGO_TILE <= n;
    /* full tiles without the bounds check, written apart as in clalgo_load_tile */
    if (clalgo_full) {
#if CLALGO_UNROLL_OUTPUT
#pragma unroll
#else
#pragma unroll 1
#endif
        for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
            const uint clalgo_p = clalgo_j * CLALGO_GROUP_SIZE + get_local_id(0);
            const long clalgo_k = clalgo_tile_first + clalgo_p;
            {
                const long i = clalgo_start + clalgo_k * clalgo_step;
                const clalgo_value_t item = clalgo_values[CLALGO_PADDED(clalgo_p)];
                clalgo_value_t prev_item = clalgo_p > 0 ? clalgo_values[CLALGO_PADDED(clalgo_p - 1)] : clalgo_tile_prefix;
#if CLALGO_SEGMENTED
                if (clalgo_flags[clalgo_p] & 1)
                    prev_item = clalgo_neutral();
#endif
                ${kept_reads}
                ${item_statement}
                {
                    ${output_statement};
                }
            }
        }
    } else {
#if CLALGO_UNROLL_OUTPUT
#pragma unroll
#else
#pragma unroll 1
#endif
        for (uint clalgo_j = 0; clalgo_j < CLALGO_ITEMS; ++clalgo_j) {
            const uint clalgo_p = clalgo_j * CLALGO_GROUP_SIZE + get_local_id(0);
            const long clalgo_k = clalgo_tile_first + clalgo_p;
            if (clalgo_k < n) {
                const long i = clalgo_start + clalgo_k * clalgo_step;
                const clalgo_value_t item = clalgo_values[CLALGO_PADDED(clalgo_p)];
                clalgo_value_t prev_item = clalgo_p > 0 ? clalgo_values[CLALGO_PADDED(clalgo_p - 1)] : clalgo_tile_prefix;
#if CLALGO_SEGMENTED
                if (clalgo_flags[clalgo_p] & 1)
                    prev_item = clalgo_neutral();
#endif
                ${kept_reads}
                ${item_statement}
                {
                    ${output_statement};
                }
            }
        }
    }
    /* the work-item that holds the last item writes the total */
    const long clalgo_last = n - 1 - clalgo_tile_first;
    if (clalgo_last >= 0 && clalgo_last < CLALGO_TILE && get_local_id(0) == (uint)clalgo_last % CLALGO_GROUP_SIZE) {
        const clalgo_value_t clalgo_last_item = clalgo_values[CLALGO_PADDED(clalgo_last)];
        if (clalgo_total)
            *clalgo_total = clalgo_last_item;
        ${total_statement}
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
