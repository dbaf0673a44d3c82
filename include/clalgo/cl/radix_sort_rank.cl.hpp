// OpenCL C that ranks a tile of keys by one digit, stably: each item's place in the tile sorted by the digit,
// with equal digits in item order. Two ways, chosen by the policy:
//   match (NVIDIA): each warp owns 32 x CLALGO_ITEMS consecutive items; item by item, ballots (or, with
//     CLALGO_MATCH_OR, bits set by local atomics in a word per digit: CUB's way) find the lanes that share a
//     digit, the lowest of them bumps the warp's counter for it (between two warp barriers, or with
//     CLALGO_RANK_ATOMICS by an atomic add whose result a shuffle hands to the others); then the warps' counters
//     are scanned digit by digit (Onesweep's warp-level multisplit);
//   portable: each work-item owns CLALGO_ITEMS consecutive items; two stable counting sorts of the tile in local
//     memory, by the digit's low and then its high four bits, each with one group-wide scan of 16 counters per
//     work-item.
// Both take each item's digit in ranked[j] and leave its place there (one register an item: digit and partial
// place travel packed, as (place << 8) | digit), and fill tile_counts[d] (items of digit d in the tile) and
// tile_starts[d] (their first place). `counters` is scratch of CLALGO_RANK_WORDS words, free again once the
// ranking returns. A ranking is two calls, so that the tile's counts can be published between them (onesweep's
// early counts): clalgo_count_tile fills tile_counts (and ends with a barrier, except where each digit's count is
// written and read by one work-item; on NVIDIA it has run the ballots already), clalgo_place_tile the places and
// tile_starts; between them `counters` and `ranked` carry the count's partial results, so a caller leaves both
// alone. clalgo_rank_tile makes both calls. With CLALGO_COUNTERS_APART
// (NVIDIA), `counters` is local memory of the ranking's own that the caller zeroes once; the ranking leaves it zero,
// and ends with no group barrier: a caller that ranks again passes a barrier of its own first (the one-tile
// sort's exchange of the keys). With one digit a work-item (CLALGO_STARTS_IN_COUNTERS) the counters carry each
// digit's start to the items, and the one-tile sort fills neither tile_counts nor tile_starts.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* radix_sort_rank = R"CLC(
#define CLALGO_TILE (CLALGO_GROUP_SIZE * CLALGO_ITEMS)

#if CLALGO_MATCH_RANK
#define CLALGO_WARPS (CLALGO_GROUP_SIZE / 32)
/* the index in the tile of the work-item's j-th item, in 32 bits: get_local_id's size_t made every test of an item
   against the tile's end 64-bit arithmetic (on an H200, a pass of 2^24 32-bit keys executed 41.0 million warp
   instructions against 42.8, of 64-bit keys 54.3 against 58.2: benchmarks/gpu/onesweep_ptx.cpp) */
#define CLALGO_ITEM(j) (((uint)get_local_id(0) >> 5) * 32u * CLALGO_ITEMS + (uint)(j) * 32u + ((uint)get_local_id(0) & 31u))
/* with CLALGO_MATCH_OR, each warp's counters are followed by two words a digit in which the lanes of an item find
   their peers (items take the two in turn, so that a word is cleared an item before it is used again) */
#if CLALGO_MATCH_OR
#define CLALGO_RANK_WORDS (3 * CLALGO_WARPS * CLALGO_RADIX)
#else
#define CLALGO_RANK_WORDS (CLALGO_WARPS * CLALGO_RADIX)
#endif
/* one digit a work-item (groups of 256): the placing scans each digit's counts in the work-item of the digit and
   writes each warp's first place for it into the warp's counter, so that an item's place is its rank among its
   warp's items of its digit plus one counter, read where the digit's start was read too (on an H100 the one-tile
   sort of 4,096 uint32 keys took 11.4 to 11.5 us so, against 12.2 to 12.5; a sort of 2^24 uint32 keys 468 to
   469 against 499 to 501) */
#define CLALGO_STARTS_IN_COUNTERS CLALGO_OWN_DIGIT_SCAN

/* the lanes whose value equals this lane's, by one ballot per bit: on an H100 a pass ran 28 % faster than with
   the match.any instruction */
inline uint clalgo_match_any(const uint value)
{
    uint peers = 0xffffffffu;
#pragma unroll
    for (uint bit = 0; bit < 8; ++bit) {
#if CLALGO_ONE_TILE
        /* the lanes whose bit is this lane's: the ballot, inverted under its own predicate where the bit is clear
           (fewer instructions: on an H100 the one-tile sort of 4,096 keys 1 % faster, but the onesweep passes of
           64-bit keys 18 % slower so, 1,594 against 1,340 us at 2^24) */
        uint same;
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; @!p not.b32 %0, %0; }"
                     : "=r"(same) : "r"(value & (1u << bit)));
        peers &= same;
#else
        const uint set = value & (1u << bit);
        uint votes;
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
                     : "=r"(votes) : "r"(set));
        peers &= set ? votes : ~votes;
#endif
    }
    return peers;
}

inline void clalgo_warp_sync(void)
{
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}

#if CLALGO_RANK_ATOMICS
/* lane `source`'s value, for every lane of the warp */
inline uint clalgo_shuffle_from(const uint value, const uint source)
{
    uint taken;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(taken) : "r"(value), "r"(source));
    return taken;
}
#endif

inline void clalgo_count_tile(uint *ranked, __local uint *counters, __local uint *tile_counts,
                              __local ulong *tile_starts)
{
    const uint lid = get_local_id(0), lane = lid & 31;
#if !CLALGO_COUNTERS_APART  /* apart, they are zero already (the caller's, then clalgo_place_tile's) */
    for (uint k = lid; k < CLALGO_RANK_WORDS; k += CLALGO_GROUP_SIZE)
        counters[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    __local uint *mine = counters + (lid >> 5) * CLALGO_RADIX;
#if CLALGO_MATCH_OR
    __local uint *peer_words = counters + CLALGO_WARPS * CLALGO_RADIX + (lid >> 5) * 2 * CLALGO_RADIX;
#endif
    const uint below = (1u << lane) - 1u;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        const uint digit = ranked[j];
#if CLALGO_MATCH_OR
        /* each lane sets its bit in its digit's word; after a warp barrier the word names the digit's lanes. The
           lowest of them clears it below; the next item's barrier orders that before the word's next use. */
        __local uint *peer_word = peer_words + (j & 1) * CLALGO_RADIX + digit;
        atomic_or(peer_word, 1u << lane);
        clalgo_warp_sync();
        const uint peers = *peer_word;
#else
        const uint peers = clalgo_match_any(digit);
#endif
        const bool lowest = (peers & below) == 0;
#if CLALGO_RANK_ATOMICS
        /* the lowest lane of the digit counts its lanes in and tells them the count before */
        uint before = 0;
        if (lowest)
            before = atomic_add(&mine[digit], popcount(peers));
        before = clalgo_shuffle_from(before, 31 - clz(peers & (0u - peers)));
#if CLALGO_MATCH_OR
        if (lowest)  /* after the shuffle, which every lane reaches having read the word */
            *peer_word = 0u;
#endif
#else
        const uint before = mine[digit];
        clalgo_warp_sync();
        if (lowest) {
            mine[digit] = before + popcount(peers);
#if CLALGO_MATCH_OR
            *peer_word = 0u;
#endif
        }
#if !CLALGO_MATCH_OR
        clalgo_warp_sync();  /* with CLALGO_MATCH_OR, the next item's barrier orders the counter's update */
#endif
#endif
        ranked[j] = ((before + popcount(peers & below)) << 8) | digit;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if CLALGO_STARTS_IN_COUNTERS
#if !CLALGO_ONE_TILE  /* (one tile publishes no counts) */
    uint total = 0;
#pragma unroll
    for (uint w = 0; w < CLALGO_WARPS; ++w)
        total += counters[w * CLALGO_RADIX + lid];
    tile_counts[lid] = total;
#if CLALGO_HAS_VALUES
    /* not needed (every digit's count is read by its own work-item until clalgo_place_tile's barrier), but on an
       H100 sorts with values ran 1 % faster with it (2^24 pairs 693 to 697 us against 701), keys alone 2 % slower
       with it (2^24 uint32 keys 466 against 458 to 459) */
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#endif
#else
    for (uint d = lid; d < CLALGO_RADIX; d += CLALGO_GROUP_SIZE) {
        uint running = 0;
        for (uint w = 0; w < CLALGO_WARPS; ++w) {
            const uint count = counters[w * CLALGO_RADIX + d];
            counters[w * CLALGO_RADIX + d] = running;
            running += count;
        }
        tile_counts[d] = running;
        tile_starts[d] = running;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
}

inline void clalgo_place_tile(uint *ranked, __local uint *counters, __local uint *tile_counts,
                              __local ulong *tile_starts, __local ulong *sums)
{
    __local uint *mine = counters + (get_local_id(0) >> 5) * CLALGO_RADIX;
#if CLALGO_STARTS_IN_COUNTERS
    /* the work-item of digit d: d's count in each warp, the digits' totals scanned, then each warp's first place
       for d in its counter (tile_starts keeps the digit's start for the look-back only) */
    const uint d = get_local_id(0);
    uint warp_counts[CLALGO_WARPS], total = 0;
#pragma unroll
    for (uint w = 0; w < CLALGO_WARPS; ++w) {
        warp_counts[w] = counters[w * CLALGO_RADIX + d];
        total += warp_counts[w];
    }
    uint place = clalgo_scan_own_count(total, sums);
#if !CLALGO_ONE_TILE
    tile_starts[d] = place;
#endif
#pragma unroll
    for (uint w = 0; w < CLALGO_WARPS; ++w) {
        counters[w * CLALGO_RADIX + d] = place;
        place += warp_counts[w];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        ranked[j] = (ranked[j] >> 8) + mine[ranked[j] & 255u];
#else
    clalgo_scan_digits(tile_starts, sums);
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        const uint digit = ranked[j] & 255u;
        ranked[j] = (ranked[j] >> 8) + (uint)tile_starts[digit] + mine[digit];
    }
#endif
#if CLALGO_COUNTERS_APART
    /* the warp has read its counters: zero again for the next digit (its words of the or-match clear themselves).
       No group barrier: the caller's next writes go to memory apart from the counters, and the next digit's
       count reads other warps' counters only after its own barrier. */
    clalgo_warp_sync();
    for (uint d = get_local_id(0) & 31; d < CLALGO_RADIX; d += 32)
        mine[d] = 0;
#else
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
}
#else
#define CLALGO_ITEM(j) ((uint)get_local_id(0) * CLALGO_ITEMS + (uint)(j))
/* 16 counters per work-item, then the moved digits (uchar) and item numbers (ushort) and each item's place */
#define CLALGO_RANK_WORDS (16 * CLALGO_GROUP_SIZE + (CLALGO_TILE + 3) / 4 + CLALGO_TILE)

inline void clalgo_count_tile(uint *ranked, __local uint *counters, __local uint *tile_counts,
                              __local ulong *tile_starts)
{
    for (uint d = get_local_id(0); d < CLALGO_RADIX; d += CLALGO_GROUP_SIZE)
        tile_counts[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        atomic_inc(&tile_counts[ranked[j]]);
    barrier(CLK_LOCAL_MEM_FENCE);
}

inline void clalgo_place_tile(uint *ranked, __local uint *counters, __local uint *tile_counts,
                              __local ulong *tile_starts, __local ulong *sums)
{
    const uint lid = get_local_id(0);
    __local uchar *moved_digits = (__local uchar *)(counters + 16 * CLALGO_GROUP_SIZE);
    __local ushort *moved_items = (__local ushort *)(counters + 16 * CLALGO_GROUP_SIZE + (CLALGO_TILE + 3) / 4);
    __local ushort *item_places = moved_items + CLALGO_TILE;
    uint digit[CLALGO_ITEMS], item[CLALGO_ITEMS];
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        digit[j] = ranked[j];
        item[j] = CLALGO_ITEM(j);
    }
    for (uint shift = 0; shift < 8; shift += 4) {
        uint counts[16];
        for (uint v = 0; v < 16; ++v)
            counts[v] = 0;
        for (uint j = 0; j < CLALGO_ITEMS; ++j)
            ++counts[(digit[j] >> shift) & 15];
        for (uint v = 0; v < 16; ++v)
            counters[v * CLALGO_GROUP_SIZE + lid] = counts[v];
        barrier(CLK_LOCAL_MEM_FENCE);
        /* exclusive scan of the 16 x CLALGO_GROUP_SIZE counters, value-major: each work-item takes 16 in a row */
        uint sum = 0;
        for (uint e = 0; e < 16; ++e)
            sum += counters[lid * 16 + e];
        sums[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        clalgo_scan_sums(sums);
        uint running = lid > 0 ? (uint)sums[lid - 1] : 0;
        for (uint e = 0; e < 16; ++e) {
            const uint count = counters[lid * 16 + e];
            counters[lid * 16 + e] = running;
            running += count;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint v = 0; v < 16; ++v)
            counts[v] = counters[v * CLALGO_GROUP_SIZE + lid];
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            const uint place = counts[(digit[j] >> shift) & 15]++;
            moved_digits[place] = (uchar)digit[j];
            moved_items[place] = (ushort)item[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            digit[j] = moved_digits[CLALGO_ITEM(j)];
            item[j] = moved_items[CLALGO_ITEM(j)];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        item_places[item[j]] = (ushort)CLALGO_ITEM(j);
    for (uint d = lid; d < CLALGO_RADIX; d += CLALGO_GROUP_SIZE)
        tile_starts[d] = tile_counts[d];
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_scan_digits(tile_starts, sums);
    for (uint j = 0; j < CLALGO_ITEMS; ++j)
        ranked[j] = item_places[CLALGO_ITEM(j)];
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

inline void clalgo_rank_tile(uint *ranked, __local uint *counters, __local uint *tile_counts,
                             __local ulong *tile_starts, __local ulong *sums)
{
    clalgo_count_tile(ranked, counters, tile_counts, tile_starts);
    clalgo_place_tile(ranked, counters, tile_counts, tile_starts, sums);
}
)CLC";

}  // namespace clalgo::detail::cl_source
