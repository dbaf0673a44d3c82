// OpenCL C template of reduce_by_key's tile kernel: one pass over keys and values, in tiles taken by ticket.
// A work-group stages its tile's keys and values in local memory (striped loads, so that global reads coalesce),
// each work-item takes CLALGO_ITEMS consecutive items into registers, marks where runs start and folds its
// items into (runs started, value since the last start). One scan of those pairs across the group and the
// decoupled look-back across tiles (scan_look_back.cl.hpp, appended) give each work-item the pair of everything
// before it; walking its items again, it writes each run that ends in them to its place. Keys and values are
// read once from global memory and once from local memory; only the pairs, one per work-item, are scanned.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* reduce_by_key_tile = R"CLC(${prologue}
${preamble}

typedef ${key_type} clalgo_key_t;
typedef ${value_type} clalgo_item_t;
typedef ${count_type} clalgo_count_t;
/* the scanned pair: runs started in a stretch of items, and the reduction of its values since the last start */
typedef struct { clalgo_count_t runs; clalgo_item_t value; } clalgo_value_t;
/* the call's scalars, laid out as detail::ReduceByKeyArgs */
typedef struct {
    long n, room, keys_offset, values_offset, keys_out_offset, values_out_offset, count_offset;
    long status_at, aggregates_at, inclusives_at;  /* bytes into clalgo_state (the ticket is at 0) */
    uint tiles, epoch;
} clalgo_by_key_args_t;

#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_ITEMS ${items}
#define CLALGO_TILE (CLALGO_GROUP_SIZE * CLALGO_ITEMS)
#define CLALGO_WARP_SHUFFLE ${warp_shuffle}
#define CLALGO_NVIDIA ${nvidia}
#define CLALGO_PADDED(p) ((p) + (p) / 32)
#define CLALGO_FLAG_XOR(flag, mask) 0u

inline clalgo_item_t clalgo_by_key_op(const clalgo_item_t a, const clalgo_item_t b)
{
    return (${reduce_expr}
    );
}

inline clalgo_item_t clalgo_item_neutral(void)
{
    return (${neutral}
    );
}

inline bool clalgo_keys_differ(const clalgo_key_t a, const clalgo_key_t b)
{
    return ${keys_differ};
}

inline clalgo_value_t clalgo_neutral(void)
{
    clalgo_value_t r;
    r.runs = 0;
    r.value = clalgo_item_neutral();
    return r;
}

/* a on the left: b's value alone where a run starts in b */
inline clalgo_value_t clalgo_scan_op(const clalgo_value_t a, const clalgo_value_t b, const bool unused)
{
    clalgo_value_t r;
    r.runs = a.runs + b.runs;
    r.value = b.runs != 0 ? b.value : clalgo_by_key_op(a.value, b.value);
    return r;
}
${warp_shuffle_functions}

/* Exclusive scan, in order, of one pair per work-item across the group; the group's total in *total.
   `scratch` holds CLALGO_GROUP_SIZE pairs. */
inline clalgo_value_t clalgo_pair_group_scan(clalgo_value_t value, clalgo_value_t *total, __local clalgo_value_t *scratch)
{
    const uint lid = get_local_id(0);
#if CLALGO_WARP_SHUFFLE && CLALGO_GROUP_SIZE >= 32
    const uint lane = lid & 31, warp = lid >> 5;
    for (uint delta = 1; delta < 32; delta <<= 1) {
        const clalgo_value_t left = clalgo_shuffle_up(value, delta);
        if (lane >= delta)
            value = clalgo_scan_op(left, value, false);
    }
    if (lane == 31)
        scratch[warp] = value;
    clalgo_value_t exclusive = clalgo_shuffle_up(value, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_value_t before = clalgo_neutral();
    for (uint w = 0; w < CLALGO_GROUP_SIZE / 32; ++w) {
        if (w == warp)
            exclusive = lane == 0 ? before : clalgo_scan_op(before, exclusive, false);
        before = clalgo_scan_op(before, scratch[w], false);
    }
    *total = before;
    barrier(CLK_LOCAL_MEM_FENCE);
    return exclusive;
#else
    scratch[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint delta = 1; delta < CLALGO_GROUP_SIZE; delta <<= 1) {
        if (lid >= delta)
            value = clalgo_scan_op(scratch[lid - delta], value, false);
        barrier(CLK_LOCAL_MEM_FENCE);
        scratch[lid] = value;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const clalgo_value_t exclusive = lid > 0 ? scratch[lid - 1] : clalgo_neutral();
    *total = scratch[CLALGO_GROUP_SIZE - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return exclusive;
#endif
}
)CLC";

inline constexpr const char* reduce_by_key_tile_kernel = R"CLC(
__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}(
    ${signature})
{
    __local clalgo_key_t clalgo_tile_keys[CLALGO_PADDED(CLALGO_TILE)];
    __local clalgo_item_t clalgo_tile_values[CLALGO_PADDED(CLALGO_TILE)];
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_window_kind[CLALGO_WINDOW];
    __local uint clalgo_window_flag[CLALGO_WINDOW];
    __local long clalgo_shared[2];
    const long n = clalgo_args.n;
    const uint lid = get_local_id(0);
    /* the look-back state, in one buffer: each argument adds to a launch's cost on the host */
    __global uint *clalgo_ticket = (__global uint *)clalgo_state;
    __global ${status_type} *clalgo_status = (__global ${status_type} *)(clalgo_state + clalgo_args.status_at);
    __global clalgo_value_t *clalgo_aggregates = (__global clalgo_value_t *)(clalgo_state + clalgo_args.aggregates_at);
    __global clalgo_value_t *clalgo_inclusives = (__global clalgo_value_t *)(clalgo_state + clalgo_args.inclusives_at);
    __global const clalgo_key_t *keys = clalgo_keys + clalgo_args.keys_offset;
    __global const clalgo_item_t *values = clalgo_values + clalgo_args.values_offset;
    __global clalgo_key_t *keys_out = clalgo_keys_out + clalgo_args.keys_out_offset;
    __global clalgo_item_t *values_out = clalgo_values_out + clalgo_args.values_out_offset;
    const uint tile = clalgo_take_ticket(clalgo_ticket, clalgo_args.tiles, clalgo_shared);
    const long tile_first = (long)tile * CLALGO_TILE;
    const bool full = tile_first + CLALGO_TILE <= n;

    /* stage the tile striped: neighbouring work-items read neighbouring items, all loads in flight at once */
    {
        clalgo_key_t k[CLALGO_ITEMS];
        clalgo_item_t v[CLALGO_ITEMS];
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            const long at = tile_first + j * CLALGO_GROUP_SIZE + lid;
            if (full || at < n) {
                k[j] = keys[at];
                v[j] = values[at];
            }
        }
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            const uint p = j * CLALGO_GROUP_SIZE + lid;
            if (full || tile_first + p < n) {
                clalgo_tile_keys[CLALGO_PADDED(p)] = k[j];
                clalgo_tile_values[CLALGO_PADDED(p)] = v[j];
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* this work-item's consecutive items: where runs start, and the fold since the last start */
    const uint first = lid * CLALGO_ITEMS;
    const long first_at = tile_first + first;
    const uint count = full ? CLALGO_ITEMS : (uint)clamp(n - first_at, 0L, (long)CLALGO_ITEMS);
    clalgo_key_t before_key = (clalgo_key_t)0;  /* the key before this work-item's first item */
    if (first > 0) {
        if (count > 0)
            before_key = clalgo_tile_keys[CLALGO_PADDED(first - 1)];
    } else if (tile_first > 0) {
        before_key = keys[tile_first - 1];
    }
    uint starts = 0;  /* bit j: a run starts at item j */
    clalgo_value_t mine = clalgo_neutral();
    {
        clalgo_key_t previous = before_key;
#pragma unroll
        for (uint j = 0; j < CLALGO_ITEMS; ++j) {
            if (j < count) {
                const clalgo_key_t key = clalgo_tile_keys[CLALGO_PADDED(first + j)];
                const clalgo_item_t value = clalgo_tile_values[CLALGO_PADDED(first + j)];
                if ((j == 0 && first_at == 0) || clalgo_keys_differ(previous, key)) {
                    starts |= 1u << j;
                    mine.runs += 1;
                    mine.value = value;
                } else {
                    mine.value = clalgo_by_key_op(mine.value, value);
                }
                previous = key;
            }
        }
    }

    clalgo_value_t tile_total;
    const clalgo_value_t thread_prefix = clalgo_pair_group_scan(mine, &tile_total, clalgo_scratch);
    const clalgo_value_t tile_prefix = clalgo_look_back(tile, clalgo_args.epoch, tile_total, 0, clalgo_status, clalgo_aggregates,
                                                        clalgo_inclusives, clalgo_scratch, clalgo_window_kind,
                                                        clalgo_window_flag, clalgo_shared);
    const clalgo_value_t prefix = clalgo_scan_op(tile_prefix, thread_prefix, false);

    /* a run that starts at item j ends the one before it at item j - 1: write that one to its place */
    const long room = clalgo_args.room;
    clalgo_count_t runs = prefix.runs;
    clalgo_item_t running = prefix.value;
#pragma unroll
    for (uint j = 0; j < CLALGO_ITEMS; ++j) {
        if (j < count) {
            if (starts & (1u << j)) {
                if (runs != 0 && (long)runs <= room) {
                    keys_out[runs - 1] = j == 0 ? before_key : clalgo_tile_keys[CLALGO_PADDED(first + j - 1)];
                    values_out[runs - 1] = running;
                }
                runs += 1;
                running = clalgo_tile_values[CLALGO_PADDED(first + j)];
            } else {
                running = clalgo_by_key_op(running, clalgo_tile_values[CLALGO_PADDED(first + j)]);
            }
        }
    }
    if (n == 0 && lid == 0)
        clalgo_count[clalgo_args.count_offset] = 0;
    /* the work-item with the last item writes the last run and the count */
    if (count > 0 && first_at + count == n) {
        clalgo_count[clalgo_args.count_offset] = (long)runs;
        if ((long)runs <= room) {
            keys_out[runs - 1] = clalgo_tile_keys[CLALGO_PADDED(first + count - 1)];
            values_out[runs - 1] = running;
        }
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
