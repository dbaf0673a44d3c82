// OpenCL C of the radix sort's onesweep algorithm (Adinets & Merrill 2022), for GPUs: one histogram pass counts
// the digits of every position at once; then each digit is one kernel in which a work-group takes a tile (by
// ticket, so it only ever waits on groups that have started), ranks its keys by the digit in local memory,
// publishes its count of each digit (with CLALGO_EARLY_COUNTS once the digits are counted, before the group scans
// the counts into the keys' places; CUB's "early counts" publish sooner still, from a histogram made before the
// ranking, which measured slower here: docs/architecture.md), looks back across the tiles before it for their
// counts (decoupled look-back, 256 digits at once), and writes its keys, in digit order, to their places. About
// 2n memory traffic per digit.
// A look-back word is (call epoch << 42) | (kind << 40) | count: epochs make words of earlier passes read as
// unpublished, so the status array is cleared only when it is new.
// One region of local memory holds in turn the rank's counters, the tile's keys and its values (CUB's way:
// values are loaded after the keys are written, placed through local memory, written coalesced), so that a tile
// of 32-bit keys and values holds 36 a work-item. A digit pass's scalars travel in one struct argument.
// The histogram pass counts into running sums kept zero between calls; its last work-group moves them into the
// histograms (so no fill precedes it). Inputs of at most one tile are sorted by one work-group alone
// (cl/radix_sort_tile.cl.hpp).
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* radix_sort_onesweep_head = R"CLC(
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_ITEMS ${items_per_thread}
#define CLALGO_MATCH_RANK ${match_rank}
#define CLALGO_RANK_ATOMICS ${rank_atomics}
#define CLALGO_MATCH_OR ${match_or}
#define CLALGO_VALUE_EXCHANGE ${value_exchange}
#define CLALGO_EARLY_VALUES (CLALGO_VALUE_EXCHANGE && ${early_values})
/* the tile's values asked into the L2 cache as the tile begins (NVIDIA's prefetch), so that their loads after the
   look-back find them there (none where they are made from positions) */
#define CLALGO_PREFETCH_VALUES (CLALGO_HAS_VALUES && ${prefetch_values} && CLALGO_INDEX_VALUES != 2)
/* exchanged values: each place's digit kept in the work-item's registers (four to a word) from the keys' writes to
   the values', rather than in local memory, which then holds a larger tile */
#define CLALGO_DIGITS_IN_REGISTERS (CLALGO_HAS_VALUES && CLALGO_EARLY_VALUES && ${digits_in_registers})
/* a full tile's keys and values written with no test of the tile's end (clalgo_write_keys) */
#define CLALGO_FULL_TILE_WRITES ${full_tile_writes}
/* 64-bit keys pass through local memory as two 32-bit halves, one after the other, so that a tile holds as many
   keys as one of 32-bit keys */
#define CLALGO_SPLIT_KEYS ${split_keys}
/* each tile's counts published once they are counted, before the keys' places are computed (early counts) */
#define CLALGO_EARLY_COUNTS ${early_counts}
/* the tile's keys into local memory before the look-back rather than after it, so that they do not hold
   registers while it waits */
#define CLALGO_KEYS_BEFORE_LOOK_BACK ${keys_before_look_back}
/* NVIDIA's ranking: its counters in local memory of their own, zero between digits (the one-tile sort) */
#define CLALGO_COUNTERS_APART ${counters_apart}
/* the group's scans by warp shuffles (NVIDIA's inline PTX) */
#define CLALGO_SHUFFLE_SCAN ${shuffle_scan}
/* each digit's place in the output in 64 bits, as inputs of more than 2^32 keys need; else in 32 bits, which take
   fewer instructions a write */
#define CLALGO_WIDE_PLACES ${wide_places}
#if CLALGO_WIDE_PLACES
typedef ulong clalgo_place_t;
#else
typedef uint clalgo_place_t;
#endif
/* a pass with values writes its keys only where clalgo_args.write_keys says so (argsort's passes: the last writes
   none where the sorted keys are not wanted); else always, with no test (a pair sort's passes: a test there slowed
   them 1 to 2 % at 2^24 and 2^26 keys on an H200) */
#define CLALGO_OPTIONAL_KEY_WRITES ${optional_key_writes}
/* the program of the one-tile sort (cl/radix_sort_tile.cl.hpp), not of the passes */
#define CLALGO_ONE_TILE ${tile_program}
#if ${nvidia}
/* NVIDIA's mem_fence(CLK_GLOBAL_MEM_FENCE) orders within a work-group only; membar.gl orders device-wide */
#define CLALGO_DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define CLALGO_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
)CLC";

inline constexpr const char* radix_sort_exchange = R"CLC(
/* Local memory the tile reuses: the rank's counters while ranking; then the tile's keys in digit order; then, with
   values, the tile's values in digit order (CLALGO_VALUE_EXCHANGE) or the item each place came from (ushort), by
   which each value is gathered. One region for all three lets a tile hold more keys. */
#define CLALGO_MAX(a, b) ((a) > (b) ? (a) : (b))
#if CLALGO_SPLIT_KEYS
#define CLALGO_KEY_MOVED_BYTES 4
#else
#define CLALGO_KEY_MOVED_BYTES sizeof(clalgo_key_t)
#endif
#if !CLALGO_HAS_VALUES
#define CLALGO_MOVED_BYTES CLALGO_KEY_MOVED_BYTES
#elif CLALGO_VALUE_EXCHANGE
#define CLALGO_MOVED_BYTES CLALGO_MAX(CLALGO_MAX(CLALGO_KEY_MOVED_BYTES, sizeof(clalgo_sort_value_t)), 2)
#else
#define CLALGO_MOVED_BYTES CLALGO_MAX(CLALGO_KEY_MOVED_BYTES, 2)
#endif
#define CLALGO_EXCHANGE_WORDS ((CLALGO_MAX(CLALGO_RANK_WORDS * 4, CLALGO_TILE * CLALGO_MOVED_BYTES) + 7) / 8)

)CLC";

/* A look-back word's fields (its layout: the top of this file) */
inline constexpr const char* radix_sort_status_words = R"CLC(
#define CLALGO_EPOCH_SHIFT 42
#define CLALGO_KIND_SHIFT 40
#define CLALGO_COUNT_MASK ((1ul << 40) - 1ul)
#define CLALGO_AGGREGATE 1ul
#define CLALGO_INCLUSIVE 2ul
/* the tiles before it whose words a tile's look-back reads at once, each step */
#define CLALGO_WINDOW ${look_back_window}
)CLC";

/* The histogram pass, in every program of the passes but argsort's first pass alone */
inline constexpr const char* radix_sort_histogram = R"CLC(
/* the histogram pass reads its keys as 16-byte vectors of CLALGO_VECTOR_KEYS keys, four a round per work-item */
#define CLALGO_HISTOGRAM_VECTORS 4
#define CLALGO_VECTOR_KEYS ${vector_keys}

/* A key's digits of every pass counted: its counted bits moved down to bit 0 once, those from end_bit up cleared,
   so that every digit is a byte of them at a place known when the kernel is compiled (on an H200, 2^24 64-bit
   keys were counted in 72 us against 91 with each digit's shift and mask worked out per pass, 32-bit keys in 48
   against 54) */
inline void clalgo_count_digits(__local uint *counts, const clalgo_bits_t bits, const uint begin_bit,
                                const clalgo_bits_t counted, const uint passes, const bool every_digit)
{
    const clalgo_bits_t digits = (bits >> begin_bit) & counted;
    if (every_digit) {
#pragma unroll
        for (uint pass = 0; pass < CLALGO_KEY_BITS / 8; ++pass)
            atomic_inc(&counts[pass * CLALGO_RADIX + ((uint)(digits >> (8 * pass)) & 255u)]);
    } else {
#pragma unroll
        for (uint pass = 0; pass < CLALGO_KEY_BITS / 8; ++pass)
            if (pass < passes)
                atomic_inc(&counts[pass * CLALGO_RADIX + ((uint)(digits >> (8 * pass)) & 255u)]);
    }
}

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
    const uint width = clalgo_end_bit - clalgo_begin_bit;
    const clalgo_bits_t counted = width >= CLALGO_KEY_BITS ? ~(clalgo_bits_t)0 : ((clalgo_bits_t)1 << width) - 1;
    const bool every_digit = clalgo_passes == CLALGO_KEY_BITS / 8;
    const long stride = get_global_size(0);
    /* the keys in 16-byte vectors, CLALGO_HISTOGRAM_VECTORS of them a round per work-item, read together (on an
       H200, 2^24 32-bit keys were counted in 43 us against 48 read one key a load, four a round); the keys before
       the first whole vector and after the last (fewer than a vector each) counted one by one */
    const long gid = get_global_id(0);
    const long head = min(n, (long)(((16u - (uint)((ulong)clalgo_keys & 15u)) & 15u) / sizeof(clalgo_key_t)));
    const long vectors = (n - head) / CLALGO_VECTOR_KEYS;
    const long tail = head + vectors * CLALGO_VECTOR_KEYS;
    for (long k = gid; k < head; k += stride)
        clalgo_count_digits(counts, clalgo_ordered_bits(clalgo_keys[k], flip), clalgo_begin_bit, counted,
                            clalgo_passes, every_digit);
    for (long k = tail + gid; k < n; k += stride)
        clalgo_count_digits(counts, clalgo_ordered_bits(clalgo_keys[k], flip), clalgo_begin_bit, counted,
                            clalgo_passes, every_digit);
    __global const ${key_vector_type} *body = (__global const ${key_vector_type} *)(clalgo_keys + head);
    for (long first = gid; first < vectors; first += CLALGO_HISTOGRAM_VECTORS * stride) {
        ${key_vector_type} loaded[CLALGO_HISTOGRAM_VECTORS];
#pragma unroll
        for (uint u = 0; u < CLALGO_HISTOGRAM_VECTORS; ++u)
            loaded[u] = first + u * stride < vectors ? body[first + u * stride] : (${key_vector_type})0;
#pragma unroll
        for (uint u = 0; u < CLALGO_HISTOGRAM_VECTORS; ++u) {
            if (first + u * stride >= vectors)
                break;
            clalgo_key_t keys[CLALGO_VECTOR_KEYS];
            vstore${vector_keys}(loaded[u], 0, keys);
#pragma unroll
            for (uint k = 0; k < CLALGO_VECTOR_KEYS; ++k)
                clalgo_count_digits(counts, clalgo_ordered_bits(keys[k], flip), clalgo_begin_bit, counted,
                                    clalgo_passes, every_digit);
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

)CLC";

/* A digit's pass */
inline constexpr const char* radix_sort_onesweep = R"CLC(
/* The tile's keys of digit d: its items past the end (the last tile's) were ranked as digit `mask` */
inline ulong clalgo_tile_count(__local const uint *tile_counts, uint d, uint valid, uint mask)
{
    return tile_counts[d] - (d == mask ? CLALGO_TILE - valid : 0u);
}

/* One work-item per digit publishes the tile's count of its digit: the first tile's as its inclusive sum, the
   others' as aggregates that the tiles after it add up while it looks back */
inline void clalgo_publish_counts(uint tile, uint valid, uint mask, uint epoch, __global ulong *status,
                                  __local uint *tile_counts)
{
    const ulong tag = (ulong)epoch << CLALGO_EPOCH_SHIFT;
    for (uint d = get_local_id(0); d < CLALGO_RADIX; d += CLALGO_GROUP_SIZE) {
        const ulong count = clalgo_tile_count(tile_counts, d, valid, mask);
        atom_xchg((volatile __global ulong *)(status + (ulong)tile * CLALGO_RADIX + d),
                  tag | ((tile == 0 ? CLALGO_INCLUSIVE : CLALGO_AGGREGATE) << CLALGO_KIND_SHIFT) | count);
    }
}

/* One work-item per digit adds up the counts of the tiles before this one (their early counts, or their inclusive
   sums where published) and publishes the inclusive sum; tile_places[d] becomes where the tile's keys of digit d
   go, less their place in the tile (tile_places may be places, or tile_counts: each is read only by the work-item
   of its digit, before it writes there) */
inline void clalgo_look_back(uint tile, uint valid, uint mask, uint epoch, __global ulong *status,
                             __local uint *tile_counts, __local ulong *tile_starts, __local ulong *places,
                             __local clalgo_place_t *tile_places)
{
    const ulong tag = (ulong)epoch << CLALGO_EPOCH_SHIFT;
    for (uint d = get_local_id(0); d < CLALGO_RADIX; d += CLALGO_GROUP_SIZE) {
        const ulong count = clalgo_tile_count(tile_counts, d, valid, mask);
        ulong before = 0;
        if (tile > 0) {
            /* CLALGO_WINDOW predecessors read at once: a walk of one word at a time would let the tiles finish
               only one per round trip to the L2 cache */
            long nearest = (long)tile - 1;
            for (;;) {
                ulong words[CLALGO_WINDOW];
#pragma unroll
                for (uint w = 0; w < CLALGO_WINDOW; ++w)
                    words[w] = nearest - (long)w >= 0
                                   ? *(volatile __global ulong *)(status + (ulong)(nearest - (long)w) * CLALGO_RADIX + d)
                                   : 0;
                bool found = false;
                uint taken = 0;
#pragma unroll
                for (uint w = 0; w < CLALGO_WINDOW; ++w) {
                    if (found || taken < w || (uint)(words[w] >> CLALGO_EPOCH_SHIFT) != epoch)
                        continue;  /* past the first word not yet published in this pass */
                    before += words[w] & CLALGO_COUNT_MASK;
                    found = ((words[w] >> CLALGO_KIND_SHIFT) & 3ul) == CLALGO_INCLUSIVE;
                    taken = w + 1;
                }
                if (found)
                    break;
                nearest -= taken;
            }
            atom_xchg((volatile __global ulong *)(status + (ulong)tile * CLALGO_RADIX + d),
                      tag | (CLALGO_INCLUSIVE << CLALGO_KIND_SHIFT) | (before + count));
        }
        tile_places[d] = (clalgo_place_t)(places[d] + before - tile_starts[d]);
    }
}

/* The tile's keys (their bits) in digit order into local memory, from where each goes to its place (neighbouring
   work-items write neighbouring places). With CLALGO_SPLIT_KEYS the low halves go first and are taken back, in
   place order, into lows[]; the high halves stay in local memory. */
inline void clalgo_exchange_keys(const clalgo_bits_t *keys, const uint *ranked, __local ulong *exchange, uint *lows)
{
#if CLALGO_SPLIT_KEYS
    __local uint *tile_words = (__local uint *)exchange;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        tile_words[ranked[j]] = (uint)keys[j];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        lows[j] = tile_words[(uint)get_local_id(0) + j * CLALGO_GROUP_SIZE];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        tile_words[ranked[j]] = (uint)(keys[j] >> 32);
#else
    __local clalgo_bits_t *tile_bits = (__local clalgo_bits_t *)exchange;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        tile_bits[ranked[j]] = keys[j];
#endif
}

/* The key of place p of the tile (its j-th place in the work-item) from local memory, where the tile's keys lie in
   digit order, to its place in the output (unless !write: the last pass of an argsort whose sorted keys are not
   wanted, which needs only the digit, for the values); returns its digit. With CLALGO_SPLIT_KEYS the low halves
   are in registers, in place order (lows), the high halves in local memory. */
inline uint clalgo_write_key(__local const ulong *exchange, const uint *lows, const uint j, const uint p,
                             __global clalgo_key_t *keys_out, __local const clalgo_place_t *places, const uint shift,
                             const uint mask, const clalgo_bits_t flip, const bool write)
{
#if CLALGO_SPLIT_KEYS
    const clalgo_bits_t bits = ((ulong)((__local const uint *)exchange)[p] << 32) | lows[j];
    const uint digit = (uint)(clalgo_order_bits(bits, flip) >> shift) & mask;
    if (write)
        keys_out[places[digit] + p] = as_${key_type}(bits);
#else
    const clalgo_bits_t bits = ((__local const clalgo_bits_t *)exchange)[p];
    const uint digit = (uint)(bits >> shift) & mask;
    if (write)
        keys_out[places[digit] + p] = clalgo_key_of_bits(bits, flip);
#endif
    return digit;
}

/* A work-item's loops over its places of the tile, lid + j * CLALGO_GROUP_SIZE: unrolled over j (each place's
   digit kept in registers, the low halves of split keys, or CLALGO_FULL_TILE_WRITES; but the last tile below), else
   a loop over p. A `full` tile's places need no test of its end (CLALGO_FULL_TILE_WRITES), so that the compiler can
   issue a work-item's local reads ahead of its writes. */
#define CLALGO_UNROLLED_WRITES (CLALGO_SPLIT_KEYS || CLALGO_DIGITS_IN_REGISTERS || CLALGO_FULL_TILE_WRITES)
/* With CLALGO_FULL_TILE_WRITES the last tile (the one tile of a pass that is not full) is written by a loop over p,
   not unrolled, its values finding each place's digit among the digits' first places (clalgo_digit_of_place): a
   second unrolled copy of the writes made the program slower to build (on an H200 the passes of 32-bit keys with
   values built in 0.77 to 0.90 s so, against 0.92 to 1.02 with the copy) and the full tiles no faster. Split keys
   keep their low halves in registers, so their last tile stays unrolled. */
#define CLALGO_ROLLED_LAST_TILE (CLALGO_FULL_TILE_WRITES && !CLALGO_SPLIT_KEYS)

/* The tile's keys to their places (neighbouring work-items write neighbouring places). With values, each place's
   digit kept for the values' writes: in registers, four to a word (digits; not in a rolled last tile, whose values
   find their digits again), or in local memory (tile_digits). With !write only the digits are kept. */
inline void clalgo_write_keys(__local const ulong *exchange, const uint *lows, __global clalgo_key_t *keys_out,
                              __local const clalgo_place_t *places, const uint shift, const uint mask, const clalgo_bits_t flip,
                              const uint valid, const bool full, const bool write, uint *digits,
                              __local uchar *tile_digits)
{
#if CLALGO_UNROLLED_WRITES
    if (full || !CLALGO_ROLLED_LAST_TILE) {
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            const uint p = get_local_id(0) + j * CLALGO_GROUP_SIZE;
            if (!full && p >= valid)
                break;
            const uint digit = clalgo_write_key(exchange, lows, j, p, keys_out, places, shift, mask, flip, write);
#if CLALGO_DIGITS_IN_REGISTERS
            digits[j / 4] |= digit << (8 * (j % 4));
#elif CLALGO_HAS_VALUES
            tile_digits[p] = (uchar)digit;
#endif
        }
        return;
    }
#endif
    for (uint p = get_local_id(0); p < valid; p += CLALGO_GROUP_SIZE) {
        const uint digit = clalgo_write_key(exchange, lows, 0, p, keys_out, places, shift, mask, flip, write);
#if CLALGO_HAS_VALUES && !CLALGO_DIGITS_IN_REGISTERS
        tile_digits[p] = (uchar)digit;
#else
        (void)digit;
#endif
    }
}

#if CLALGO_HAS_VALUES && CLALGO_VALUE_EXCHANGE
/* The digit of the tile's place p: the last digit whose first place (tile_starts, in digit order) is at most p */
inline uint clalgo_digit_of_place(__local const ulong *tile_starts, const uint p)
{
    uint digit = 0;
    for (uint step = CLALGO_RADIX / 2; step > 0; step >>= 1)
        if ((uint)tile_starts[digit + step] <= p)
            digit += step;
    return digit;
}

/* The tile's values from local memory, in digit order, to the places of their keys (clalgo_write_keys) */
inline void clalgo_write_values(__local const ulong *exchange, __global clalgo_sort_value_t *values_out,
                                __local const clalgo_place_t *places, const uint valid, const bool full, const uint *digits,
                                __local const uchar *tile_digits, __local const ulong *tile_starts)
{
    __local const clalgo_sort_value_t *tile_values = (__local const clalgo_sort_value_t *)exchange;
#if CLALGO_UNROLLED_WRITES
    if (full || !CLALGO_ROLLED_LAST_TILE) {
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            const uint p = get_local_id(0) + j * CLALGO_GROUP_SIZE;
            if (!full && p >= valid)
                break;
#if CLALGO_DIGITS_IN_REGISTERS
            const uint digit = (digits[j / 4] >> (8 * (j % 4))) & 255u;
#else
            const uint digit = tile_digits[p];
#endif
            values_out[places[digit] + p] = tile_values[p];
        }
        return;
    }
#endif
    for (uint p = get_local_id(0); p < valid; p += CLALGO_GROUP_SIZE) {
#if CLALGO_DIGITS_IN_REGISTERS
        const uint digit = clalgo_digit_of_place(tile_starts, p);
#else
        const uint digit = tile_digits[p];
#endif
        values_out[places[digit] + p] = tile_values[p];
    }
}
#endif

/* A digit pass's scalars in one argument: NVIDIA's launch cost grows with the number of arguments */
typedef struct {
    long n;
    ulong flip;
    long keys_in_offset, keys_out_offset, values_in_offset, values_out_offset;
    uint shift, mask, pass, tiles, epoch;
    uint index_values;  /* 1: each value is its key's position in the input (argsort's first pass) */
    uint write_keys;    /* 0: only the values are written (CLALGO_OPTIONAL_KEY_WRITES: an argsort's last pass) */
    uint unused;        /* fills the struct to 8-byte words (no padding) */
} clalgo_onesweep_pass_t;

__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void clalgo_radix_onesweep(${onesweep_signature})
{
    const long n = clalgo_args.n;
    const ulong clalgo_flip = clalgo_args.flip;
    const uint clalgo_shift = clalgo_args.shift, clalgo_mask = clalgo_args.mask, clalgo_pass = clalgo_args.pass;
    const uint clalgo_tiles = clalgo_args.tiles, clalgo_epoch = clalgo_args.epoch;
    const long clalgo_keys_in_offset = clalgo_args.keys_in_offset, clalgo_keys_out_offset = clalgo_args.keys_out_offset;
#if CLALGO_HAS_VALUES
    const uint clalgo_index_values = clalgo_args.index_values;
    const long clalgo_values_in_offset = clalgo_args.values_in_offset;
    const long clalgo_values_out_offset = clalgo_args.values_out_offset;
#endif
#if CLALGO_HAS_VALUES && CLALGO_OPTIONAL_KEY_WRITES
    const bool write_keys = clalgo_args.write_keys;
#else
    const bool write_keys = true;
#endif
    CLALGO_MOVED_ARRAYS
    __local ulong exchange[CLALGO_EXCHANGE_WORDS] __attribute__((aligned(128)));
    __local uint tile_counts[CLALGO_RADIX];
    __local ulong tile_starts[CLALGO_RADIX];
    /* where each digit starts in the output; the look-back turns it into where the tile's keys of each digit go,
       less their place in the tile (tile_places) */
    __local ulong places[CLALGO_RADIX];
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
        places[d] = clalgo_histograms[clalgo_pass * CLALGO_RADIX + d];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tile = shared_tile;
    const long tile_first = (long)tile * CLALGO_TILE;
    const uint valid = (uint)min((long)CLALGO_TILE, n - tile_first);
    const clalgo_bits_t flip = (clalgo_bits_t)clalgo_flip;
    /* the keys' bits: keys of up to 32 bits ordered (clalgo_order_bits) once they have arrived (an instruction on
       them here would wait for them) and held so until they are written, so that each digit is a shift and a mask;
       64-bit keys in halves as they are (on an H100 they sorted 20 % slower ordered: registers), each digit
       ordered where it is taken */
    clalgo_bits_t keys[CLALGO_ITEMS];
    uint ranked[CLALGO_ITEMS];
    uint lows[CLALGO_ITEMS];  /* CLALGO_SPLIT_KEYS: the low halves of the keys in place order */
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        keys[j] = CLALGO_ITEM(j) < valid ? clalgo_raw_bits(clalgo_keys_in[tile_first + CLALGO_ITEM(j)]) : (clalgo_bits_t)0;
#if CLALGO_PREFETCH_VALUES
    /* a 128-byte line of the tile's values a work-item at a time (none in argsort's first pass: it reads none) */
#if CLALGO_INDEX_VALUES == 1
    if (!clalgo_index_values)
#endif
    {
        const ulong first_value = (ulong)(clalgo_values_in + tile_first);
        const uint bytes = valid * (uint)sizeof(clalgo_sort_value_t);
        for (uint at = lid * 128u; at < bytes; at += CLALGO_GROUP_SIZE * 128u)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(first_value + at));
    }
#endif
    /* while the keys arrive: where each digit starts in the output */
    clalgo_scan_digits(places, sums);
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {  /* items past the end rank last */
#if CLALGO_SPLIT_KEYS
        const clalgo_bits_t ordered = clalgo_order_bits(keys[j], flip);
#else
        const clalgo_bits_t ordered = keys[j] = clalgo_order_bits(keys[j], flip);
#endif
        ranked[j] = CLALGO_ITEM(j) < valid ? (uint)(ordered >> clalgo_shift) & clalgo_mask : clalgo_mask;
    }
    clalgo_count_tile(ranked, (__local uint *)exchange, tile_counts, tile_starts);

#if CLALGO_EARLY_COUNTS
    clalgo_publish_counts(tile, valid, clalgo_mask, clalgo_epoch, clalgo_status, tile_counts);
#endif
    clalgo_place_tile(ranked, (__local uint *)exchange, tile_counts, tile_starts, sums);
#if !CLALGO_EARLY_COUNTS
    clalgo_publish_counts(tile, valid, clalgo_mask, clalgo_epoch, clalgo_status, tile_counts);
#endif
#if CLALGO_KEYS_BEFORE_LOOK_BACK
    clalgo_exchange_keys(keys, ranked, exchange, lows);
#endif
#if CLALGO_WIDE_PLACES
    __local clalgo_place_t *tile_places = places;
#else
    __local clalgo_place_t *tile_places = tile_counts;  /* each digit's count is spent by the look-back */
#endif
    clalgo_look_back(tile, valid, clalgo_mask, clalgo_epoch, clalgo_status, tile_counts, tile_starts, places,
                     tile_places);
#if !CLALGO_KEYS_BEFORE_LOOK_BACK
    clalgo_exchange_keys(keys, ranked, exchange, lows);
#endif
#if CLALGO_HAS_VALUES && CLALGO_EARLY_VALUES
    /* the values' loads go out now, into the registers the keys held, so that they arrive while the keys are
       written out */
    clalgo_sort_value_t values[CLALGO_ITEMS];
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        if (CLALGO_ITEM(j) < valid)
            values[j] = CLALGO_VALUE_IN(tile_first + CLALGO_ITEM(j));
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    uint digits[(CLALGO_ITEMS + 3) / 4];  /* CLALGO_DIGITS_IN_REGISTERS: the digit of each of the work-item's places */
#pragma unroll
    for (uint w = 0; w < (CLALGO_ITEMS + 3) / 4; ++w)
        digits[w] = 0;
#if CLALGO_HAS_VALUES && !CLALGO_DIGITS_IN_REGISTERS
    __local uchar tile_digits[CLALGO_TILE];  /* the digit of each place, for the values */
#else
    __local uchar *tile_digits = 0;
#endif
#if CLALGO_FULL_TILE_WRITES
    if (valid == CLALGO_TILE)  /* every tile but the last */
        clalgo_write_keys(exchange, lows, clalgo_keys_out, tile_places, clalgo_shift, clalgo_mask, flip, valid, true,
                          write_keys, digits, tile_digits);
    else
#endif
        clalgo_write_keys(exchange, lows, clalgo_keys_out, tile_places, clalgo_shift, clalgo_mask, flip, valid, false,
                          write_keys, digits, tile_digits);
#if CLALGO_HAS_VALUES
    /* then the values the same way, through the same local memory */
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLALGO_VALUE_EXCHANGE
    __local clalgo_sort_value_t *tile_values = (__local clalgo_sort_value_t *)exchange;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        if (CLALGO_ITEM(j) < valid)
#if CLALGO_EARLY_VALUES
            tile_values[ranked[j]] = values[j];
#else
            tile_values[ranked[j]] = CLALGO_VALUE_IN(tile_first + CLALGO_ITEM(j));
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLALGO_FULL_TILE_WRITES
    if (valid == CLALGO_TILE)
        clalgo_write_values(exchange, clalgo_values_out, tile_places, valid, true, digits, tile_digits,
                            tile_starts);
    else
#endif
        clalgo_write_values(exchange, clalgo_values_out, tile_places, valid, false, digits, tile_digits,
                            tile_starts);
#else
    __local ushort *tile_items = (__local ushort *)exchange;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        tile_items[ranked[j]] = (ushort)CLALGO_ITEM(j);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < valid; p += CLALGO_GROUP_SIZE)
        clalgo_values_out[tile_places[tile_digits[p]] + p] = CLALGO_VALUE_IN(tile_first + tile_items[p]);
#endif
#endif
}
)CLC";

}  // namespace clalgo::detail::cl_source
