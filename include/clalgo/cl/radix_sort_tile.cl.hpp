// OpenCL C of the radix sort of at most one tile (for GPUs, beside the onesweep algorithm): one work-group ranks
// the keys by every digit in turn in local memory, then writes them once. Built in a program of its own, once for
// each tile size a call needs (CLALGO_ITEMS keys a work-item, from 1 up to the onesweep tile's), so that a small
// input does not pay for the ranking of a whole onesweep tile and a program that sorts only small inputs never
// compiles the onesweep kernels. Uses the defines of radix_sort_onesweep_head, radix_sort_rank and
// radix_sort_exchange.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* radix_sort_tile = R"CLC(
/* n <= one tile: one work-group sorts by every digit in local memory, then writes the keys (keys_out may be
   keys_in) and the values, gathered from values_in (values_out may not be values_in) or, for argsort, made from
   the keys' positions */
__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void clalgo_radix_tile_sort(${tile_sort_signature})
{
    CLALGO_MOVED_ARRAYS
    __local ulong exchange[CLALGO_EXCHANGE_WORDS] __attribute__((aligned(128)));
    __local clalgo_key_t *tile_keys = (__local clalgo_key_t *)exchange;
    __local uint tile_counts[CLALGO_RADIX];
    __local ulong tile_starts[CLALGO_RADIX];
    __local ulong sums[CLALGO_GROUP_SIZE];
#if CLALGO_COUNTERS_APART
    /* the ranking's counters apart from the keys: zeroed here once, then kept zero by the ranking, so that no
       barrier zeroes them and none ends a digit */
    __local uint counters[CLALGO_RANK_WORDS];
    for (uint k = get_local_id(0); k < CLALGO_RANK_WORDS; k += CLALGO_GROUP_SIZE)
        counters[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    __local uint *counters = (__local uint *)exchange;
#endif
    const uint valid = (uint)n;
    const clalgo_bits_t flip = (clalgo_bits_t)clalgo_flip;
    clalgo_key_t keys[CLALGO_ITEMS];
    uint ranked[CLALGO_ITEMS];
#if CLALGO_HAS_VALUES
    /* with the counters apart (where local memory is to spare), the item numbers have a region of their own and
       move beside the keys under one barrier; else after them, through the keys' region */
#define CLALGO_ITEMS_APART CLALGO_COUNTERS_APART
#if CLALGO_ITEMS_APART
    __local ushort tile_items[CLALGO_TILE];
#else
    __local ushort *tile_items = (__local ushort *)exchange;
#endif
    uint items[CLALGO_ITEMS];
#else
#define CLALGO_ITEMS_APART 0
#endif
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        keys[j] = CLALGO_ITEM(j) < valid ? clalgo_keys_in[CLALGO_ITEM(j)] : (clalgo_key_t)0;
#if CLALGO_HAS_VALUES
        items[j] = CLALGO_ITEM(j);
#endif
    }
    for (uint shift = clalgo_begin_bit; shift < clalgo_end_bit; shift += 8) {
        const uint mask = (1u << min(8u, clalgo_end_bit - shift)) - 1u;
        /* items past the end have the largest digit and come last: after each digit they hold the tile's end */
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j)
            ranked[j] = CLALGO_ITEM(j) < valid ? clalgo_digit(keys[j], flip, shift, mask) : mask;
        clalgo_rank_tile(ranked, counters, tile_counts, tile_starts, sums);
#if CLALGO_SPLIT_KEYS
        /* the low halves, then the high halves */
        __local uint *tile_words = (__local uint *)exchange;
        uint lows[CLALGO_ITEMS];
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            tile_words[ranked[j]] = (uint)as_ulong(keys[j]);
#if CLALGO_ITEMS_APART
            tile_items[ranked[j]] = (ushort)items[j];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            lows[j] = tile_words[CLALGO_ITEM(j)];
#if CLALGO_ITEMS_APART
            items[j] = tile_items[CLALGO_ITEM(j)];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j)
            tile_words[ranked[j]] = (uint)(as_ulong(keys[j]) >> 32);
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j)
            keys[j] = as_${key_type}(((ulong)tile_words[CLALGO_ITEM(j)] << 32) | lows[j]);
#else
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            tile_keys[ranked[j]] = keys[j];
#if CLALGO_ITEMS_APART
            tile_items[ranked[j]] = (ushort)items[j];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            keys[j] = tile_keys[CLALGO_ITEM(j)];
#if CLALGO_ITEMS_APART
            items[j] = tile_items[CLALGO_ITEM(j)];
#endif
        }
#endif
#if CLALGO_HAS_VALUES && !CLALGO_ITEMS_APART
        /* the items the same way, through the same local memory */
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j)
            tile_items[ranked[j]] = (ushort)items[j];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j)
            items[j] = tile_items[CLALGO_ITEM(j)];
#endif
#if !CLALGO_COUNTERS_APART  /* the next digit's counters are this one's keys */
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        if (CLALGO_ITEM(j) < valid) {
            clalgo_keys_out[CLALGO_ITEM(j)] = keys[j];
#if CLALGO_HAS_VALUES
            clalgo_values_out[CLALGO_ITEM(j)] = CLALGO_VALUE_IN(items[j]);
#endif
        }
}
)CLC";

}  // namespace clalgo::detail::cl_source
