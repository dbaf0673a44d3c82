// OpenCL C of the radix sort's onesweep algorithm (Adinets & Merrill 2022), for GPUs: one histogram pass counts
// the digits of every position at once; then each digit is one kernel in which a work-group takes a tile (by
// ticket, so it only ever waits on groups that have started), ranks its keys by the digit in local memory,
// publishes its count of each digit and looks back across the tiles before it for theirs (decoupled look-back,
// 256 digits at once), and writes its keys, in digit order, to their places. About 2n memory traffic per digit.
// A look-back word is (call epoch << 42) | (kind << 40) | count: epochs make words of earlier passes read as
// unpublished, so the status array is cleared only when it is new.
// The histogram pass counts into running sums kept zero between calls; its last work-group moves them into the
// histograms (so no fill precedes it). Inputs of at most one tile are sorted by one work-group alone, every
// digit in local memory.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* radix_sort_onesweep_head = R"CLC(
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_ITEMS ${items_per_thread}
#define CLALGO_MATCH_RANK ${match_rank}
#if ${nvidia}
/* NVIDIA's mem_fence(CLK_GLOBAL_MEM_FENCE) orders within a work-group only; membar.gl orders device-wide */
#define CLALGO_DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define CLALGO_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
)CLC";

inline constexpr const char* radix_sort_onesweep = R"CLC(
#define CLALGO_EPOCH_SHIFT 42
#define CLALGO_KIND_SHIFT 40
#define CLALGO_COUNT_MASK ((1ul << 40) - 1ul)
#define CLALGO_AGGREGATE 1ul
#define CLALGO_INCLUSIVE 2ul
#define CLALGO_WINDOW 8

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void clalgo_radix_histogram(${histogram_signature})
{
    __global const clalgo_key_t *clalgo_keys = clalgo_keys_base + clalgo_keys_offset;
    __local uint counts[CLALGO_KEY_BITS / 8 * CLALGO_RADIX];
    const uint lid = get_local_id(0);
    for (uint k = lid; k < clalgo_passes * CLALGO_RADIX; k += CLALGO_GROUP_SIZE)
        counts[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const clalgo_bits_t flip = (clalgo_bits_t)clalgo_flip;
    /* four keys a round per work-item, read together, so that their loads are in flight at once */
    const long stride = get_global_size(0);
    for (long first = get_global_id(0); first < n; first += 4 * stride) {
        clalgo_bits_t bits[4];
#pragma unroll
        for (uint u = 0; u < 4; ++u)
            bits[u] = first + u * stride < n ? clalgo_ordered_bits(clalgo_keys[first + u * stride], flip) : 0;
#pragma unroll
        for (uint u = 0; u < 4; ++u) {
            if (first + u * stride >= n)
                break;
            for (uint pass = 0; pass < clalgo_passes; ++pass) {
                const uint shift = clalgo_begin_bit + 8 * pass;
                const uint mask = (1u << min(8u, clalgo_end_bit - shift)) - 1u;
                atomic_inc(&counts[pass * CLALGO_RADIX + ((uint)(bits[u] >> shift) & mask)]);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < clalgo_passes * CLALGO_RADIX; k += CLALGO_GROUP_SIZE)
        if (counts[k])
            atom_add(&clalgo_sums[k], (ulong)counts[k]);
    /* the last work-group to finish moves the sums into the histograms and leaves them zero for the next call,
       so that no fill precedes this kernel; it also leaves the ticket at zero for the digit passes */
    __local uint last_group;
    CLALGO_DEVICE_FENCE();
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        last_group = atomic_inc(clalgo_ticket) == get_num_groups(0) - 1;
        if (last_group)
            atomic_xchg(clalgo_ticket, 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!last_group)
        return;
    CLALGO_DEVICE_FENCE();
    for (uint k = lid; k < clalgo_passes * CLALGO_RADIX; k += CLALGO_GROUP_SIZE)
        clalgo_histograms[k] = atom_xchg(&clalgo_sums[k], 0ul);
}

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void clalgo_radix_onesweep(${onesweep_signature})
{
    CLALGO_MOVED_ARRAYS
    __local clalgo_key_t tile_keys[CLALGO_TILE];
#if CLALGO_HAS_VALUES
    __local ushort tile_items[CLALGO_TILE];
#endif
    __local uint counters[CLALGO_RANK_WORDS];
    __local uint tile_counts[CLALGO_RADIX];
    __local ulong tile_starts[CLALGO_RADIX];
    __local ulong digit_starts[CLALGO_RADIX];
    __local long places[CLALGO_RADIX];
    __local ulong sums[CLALGO_GROUP_SIZE];
    __local uint shared_tile;
    const uint lid = get_local_id(0);
    if (lid == 0) {
        const uint ticket = atomic_inc(clalgo_ticket);
        if (ticket == clalgo_tiles - 1)
            atomic_xchg(clalgo_ticket, 0u);  /* the last ticket: leave the counter ready for the next pass */
        shared_tile = ticket;
    }
    for (uint d = lid; d < CLALGO_RADIX; d += CLALGO_GROUP_SIZE)
        digit_starts[d] = clalgo_histograms[clalgo_pass * CLALGO_RADIX + d];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tile = shared_tile;
    const long tile_first = (long)tile * CLALGO_TILE;
    const uint valid = (uint)min((long)CLALGO_TILE, n - tile_first);
    const clalgo_bits_t flip = (clalgo_bits_t)clalgo_flip;
    clalgo_key_t keys[CLALGO_ITEMS];
    uint digits[CLALGO_ITEMS], item_places[CLALGO_ITEMS];
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        keys[j] = CLALGO_ITEM(j) < valid ? clalgo_keys_in[tile_first + CLALGO_ITEM(j)] : (clalgo_key_t)0;
    /* while the keys arrive: where each digit starts in the output */
    clalgo_scan_digits(digit_starts, sums);
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)  /* items past the end rank last */
        digits[j] = CLALGO_ITEM(j) < valid ? clalgo_digit(keys[j], flip, clalgo_shift, clalgo_mask) : clalgo_mask;
    clalgo_rank_tile(digits, item_places, counters, tile_counts, tile_starts, sums);

    /* one work-item per digit: publish the tile's count, add up the counts of the tiles before it */
    const ulong tag = (ulong)clalgo_epoch << CLALGO_EPOCH_SHIFT;
    for (uint d = lid; d < CLALGO_RADIX; d += CLALGO_GROUP_SIZE) {
        ulong count = tile_counts[d];
        if (d == clalgo_mask)
            count -= CLALGO_TILE - valid;
        volatile __global ulong *mine = (volatile __global ulong *)(clalgo_status + (ulong)tile * CLALGO_RADIX + d);
        ulong before = 0;
        if (tile == 0) {
            atom_xchg(mine, tag | (CLALGO_INCLUSIVE << CLALGO_KIND_SHIFT) | count);
        } else {
            atom_xchg(mine, tag | (CLALGO_AGGREGATE << CLALGO_KIND_SHIFT) | count);
            /* CLALGO_WINDOW predecessors read at once: a walk of one word at a time would let the tiles finish
               only one per round trip to the L2 cache */
            long nearest = (long)tile - 1;
            for (;;) {
                ulong words[CLALGO_WINDOW];
#pragma unroll
                for (uint w = 0; w < CLALGO_WINDOW; ++w)
                    words[w] = nearest - (long)w >= 0
                                   ? *(volatile __global ulong *)(clalgo_status + (ulong)(nearest - (long)w) * CLALGO_RADIX + d)
                                   : 0;
                bool found = false;
                uint taken = 0;
#pragma unroll
                for (uint w = 0; w < CLALGO_WINDOW; ++w) {
                    if (found || taken < w || (uint)(words[w] >> CLALGO_EPOCH_SHIFT) != clalgo_epoch)
                        continue;  /* past the first word not yet published in this pass */
                    before += words[w] & CLALGO_COUNT_MASK;
                    found = ((words[w] >> CLALGO_KIND_SHIFT) & 3ul) == CLALGO_INCLUSIVE;
                    taken = w + 1;
                }
                if (found)
                    break;
                nearest -= taken;
            }
            atom_xchg(mine, tag | (CLALGO_INCLUSIVE << CLALGO_KIND_SHIFT) | (before + count));
        }
        places[d] = (long)(digit_starts[d] + before) - (long)tile_starts[d];
    }

    /* the tile in digit order, then each key to its place: neighbouring work-items write neighbouring places */
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        tile_keys[item_places[j]] = keys[j];
#if CLALGO_HAS_VALUES
        tile_items[item_places[j]] = (ushort)CLALGO_ITEM(j);
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < valid; p += CLALGO_GROUP_SIZE) {
        const clalgo_key_t key = tile_keys[p];
        const long to = places[clalgo_digit(key, flip, clalgo_shift, clalgo_mask)] + p;
        clalgo_keys_out[to] = key;
#if CLALGO_HAS_VALUES
        clalgo_values_out[to] = clalgo_values_in[tile_first + tile_items[p]];
#endif
    }
}

/* n <= one tile: one work-group sorts by every digit in local memory, then writes the keys (keys_out may be
   keys_in) and the values, gathered from values_in (values_out may not be values_in) */
__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void clalgo_radix_tile_sort(${tile_sort_signature})
{
    CLALGO_MOVED_ARRAYS
    __local clalgo_key_t tile_keys[CLALGO_TILE];
    __local ushort tile_items[CLALGO_TILE];
    __local uint counters[CLALGO_RANK_WORDS];
    __local uint tile_counts[CLALGO_RADIX];
    __local ulong tile_starts[CLALGO_RADIX];
    __local ulong sums[CLALGO_GROUP_SIZE];
    const uint valid = (uint)n;
    const clalgo_bits_t flip = (clalgo_bits_t)clalgo_flip;
    clalgo_key_t keys[CLALGO_ITEMS];
    uint items[CLALGO_ITEMS], digits[CLALGO_ITEMS], item_places[CLALGO_ITEMS];
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        items[j] = CLALGO_ITEM(j);
        keys[j] = items[j] < valid ? clalgo_keys_in[items[j]] : (clalgo_key_t)0;
    }
    for (uint shift = clalgo_begin_bit; shift < clalgo_end_bit; shift += 8) {
        const uint mask = (1u << min(8u, clalgo_end_bit - shift)) - 1u;
        /* items past the end have the largest digit and come last: after each digit they hold the tile's end */
        for (uint j = 0; j < CLALGO_ITEMS; ++j)
            digits[j] = CLALGO_ITEM(j) < valid ? clalgo_digit(keys[j], flip, shift, mask) : mask;
        clalgo_rank_tile(digits, item_places, counters, tile_counts, tile_starts, sums);
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            tile_keys[item_places[j]] = keys[j];
            tile_items[item_places[j]] = (ushort)items[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            keys[j] = tile_keys[CLALGO_ITEM(j)];
            items[j] = tile_items[CLALGO_ITEM(j)];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        if (CLALGO_ITEM(j) < valid) {
            clalgo_keys_out[CLALGO_ITEM(j)] = keys[j];
#if CLALGO_HAS_VALUES
            clalgo_values_out[CLALGO_ITEM(j)] = clalgo_values_in[items[j]];
#endif
        }
}
)CLC";

}  // namespace clalgo::detail::cl_source
