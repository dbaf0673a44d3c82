// OpenCL C template: decoupled look-back (Merrill & Garland 2016) between the tiles of one launch, for the
// single-pass scan and the ballot compaction. Each tile publishes its total, then combines the totals of the
// tiles before it, nearest first, until one that holds its inclusive prefix. Appended to scan_tile.cl.hpp's text.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* scan_look_back = R"CLC(
/* Look-back status of a tile, tagged with the call's epoch so that words left by earlier calls read as
   "not yet published". With 4-byte values, status and value travel together in one 64-bit word; with values of
   up to 8 bytes on NVIDIA, in one 16-byte word written and read as one access (CLALGO_PACKED 2). */
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

#if CLALGO_PACKED == 2
typedef union { clalgo_value_t value; ulong bits; } clalgo_word_t;

inline void clalgo_publish(__global ulong2 *status, __global clalgo_value_t *aggregates, __global clalgo_value_t *inclusives,
                           uint tile, uint epoch, uint kind, clalgo_value_t value, uint flag)
{
    clalgo_word_t word;
    word.bits = 0;
    word.value = value;
    const ulong tag = ((ulong)epoch << 3) | ((ulong)flag << 2) | kind;
    *(volatile __global ulong2 *)&status[tile] = (ulong2)(tag, word.bits);
}

inline uint clalgo_read_status(__global ulong2 *status, __global clalgo_value_t *aggregates, __global clalgo_value_t *inclusives,
                               uint tile, uint epoch, clalgo_value_t *value, uint *flag)
{
    const ulong2 packed = *(volatile __global ulong2 *)&status[tile];
    const uint tag = (uint)packed.x;
    if ((tag >> 3) != epoch)
        return CLALGO_NOT_PUBLISHED;
    clalgo_word_t word;
    word.bits = packed.y;
    *value = word.value;
    *flag = (tag >> 2) & 1;
    return tag & 3;
}
#elif CLALGO_PACKED
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
    /* volatile, like the status word's exchange, so that the compiler keeps the two in this order (PoCL's
       mem_fence does not) */
    if (kind == CLALGO_INCLUSIVE)
        *(volatile __global clalgo_value_t *)&inclusives[tile] = value;
    else
        *(volatile __global clalgo_value_t *)&aggregates[tile] = value;
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
   decoupled look-back). Returns the scan of everything before the tile, in every work-item: for tile 0,
   `first_prefix` (the scan's carry-in, or the neutral element). The tile index came from a ticket, so every tile
   looked at belongs to a work-group that has started. */
inline clalgo_value_t clalgo_look_back(const uint tile, const uint epoch, const clalgo_value_t first_prefix,
                                       const clalgo_value_t aggregate, const uint aggregate_flag, CLALGO_LOOK_BACK_STATE,
                                       __local clalgo_value_t *window, __local uint *window_kind, __local uint *window_flag,
                                       __local long *shared_state)
{
    const uint lid = get_local_id(0);
    if (tile == 0) {
        if (lid == 0)
            clalgo_publish(status, aggregates, inclusives, 0, epoch, CLALGO_INCLUSIVE,
                           clalgo_scan_op(first_prefix, aggregate, aggregate_flag), aggregate_flag);
        return first_prefix;
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
/* Tiles are numbered in the order work-groups start, so that a tile waits only on started ones. The last
   ticket leaves the counter at 0, ready for the next call. Every work-item returns the tile. */
inline uint clalgo_take_ticket(__global uint *ticket, const uint tiles, __local long *shared_state)
{
    if (get_local_id(0) == 0) {
        const uint tile = atomic_inc(ticket);
        if (tile == tiles - 1)
            atomic_xchg(ticket, 0u);
        shared_state[0] = tile;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return (uint)shared_state[0];
}
)CLC";

}  // namespace clalgo::detail::cl_source
