// OpenCL C template of MergeSortKernel: a stable merge sort ordered by the user's `less` over a and b.
// ${name}_tile sorts each tile of CLALGO_TILE_SIZE elements in local memory; ${name}_merge merges pairs of sorted
// runs of clalgo_width elements into runs twice as long, each work-item a contiguous stretch of the output found
// by a merge-path search. Equal keys keep their order: on a tie the left run's element goes first.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* merge_sort = R"CLC(${prologue}
${preamble}

typedef ${key_type} clalgo_key_t;
typedef ${value_type} clalgo_value_t;
#define CLALGO_HAS_VALUES ${has_values}
#define CLALGO_TILE_SIZE ${tile_size}
#define CLALGO_SERIAL_TILE ${serial_tile}
#define CLALGO_INSERTION_RUN ${insertion_run}

/* the order: true where a goes strictly before b */
inline bool clalgo_less(const clalgo_key_t a, const clalgo_key_t b)
{
    return ${less};
}

#if CLALGO_HAS_VALUES
#define CLALGO_VALUES(statement) statement
#else
#define CLALGO_VALUES(statement)
#endif

/* Where `key` goes among the sorted keys[first, last) of the partner run: after the partner's smaller keys, and
   after its equal ones too where `key` comes from the right run (so equal keys keep their order). */
inline int clalgo_rank_in_tile(__local const clalgo_key_t *clalgo_keys, int clalgo_first, int clalgo_last,
                               const clalgo_key_t clalgo_key, bool clalgo_from_left)
{
    while (clalgo_first < clalgo_last) {
        const int clalgo_probe = clalgo_first + (clalgo_last - clalgo_first) / 2;
        const bool clalgo_before = clalgo_from_left ? clalgo_less(clalgo_keys[clalgo_probe], clalgo_key)
                                                    : !clalgo_less(clalgo_key, clalgo_keys[clalgo_probe]);
        if (clalgo_before)
            clalgo_first = clalgo_probe + 1;
        else
            clalgo_last = clalgo_probe;
    }
    return clalgo_first;
}

__kernel void ${name}_tile(${tile_signature})
{
    __local clalgo_key_t clalgo_keys[2][CLALGO_TILE_SIZE];
#if CLALGO_HAS_VALUES
    __local clalgo_value_t clalgo_values[2][CLALGO_TILE_SIZE];
#endif
    __global const clalgo_key_t *clalgo_keys_from = clalgo_keys_in + clalgo_keys_in_offset;
    __global clalgo_key_t *clalgo_keys_to = clalgo_keys_out + clalgo_keys_out_offset;
#if CLALGO_HAS_VALUES
    __global const clalgo_value_t *clalgo_values_from = clalgo_values_in + clalgo_values_in_offset;
    __global clalgo_value_t *clalgo_values_to = clalgo_values_out + clalgo_values_out_offset;
#endif
    const long clalgo_first = (long)get_group_id(0) * CLALGO_TILE_SIZE;
    const int clalgo_count = (int)min((long)CLALGO_TILE_SIZE, clalgo_n - clalgo_first);
    const int clalgo_lid = get_local_id(0);
    const int clalgo_group = get_local_size(0);
    int clalgo_from = 0;

    for (int clalgo_k = clalgo_lid; clalgo_k < clalgo_count; clalgo_k += clalgo_group) {
        clalgo_keys[0][clalgo_k] = clalgo_keys_from[clalgo_first + clalgo_k];
        CLALGO_VALUES(clalgo_values[0][clalgo_k] = clalgo_values_from[clalgo_first + clalgo_k]);
    }
#if CLALGO_SERIAL_TILE
    /* one work-item: insertion sort of short runs, then merges of neighbouring runs */
    for (int clalgo_start = 0; clalgo_start < clalgo_count; clalgo_start += CLALGO_INSERTION_RUN) {
        const int clalgo_end = min(clalgo_start + CLALGO_INSERTION_RUN, clalgo_count);
        for (int clalgo_k = clalgo_start + 1; clalgo_k < clalgo_end; ++clalgo_k) {
            const clalgo_key_t clalgo_key = clalgo_keys[0][clalgo_k];
            CLALGO_VALUES(const clalgo_value_t clalgo_value = clalgo_values[0][clalgo_k]);
            int clalgo_j = clalgo_k;
            for (; clalgo_j > clalgo_start && clalgo_less(clalgo_key, clalgo_keys[0][clalgo_j - 1]); --clalgo_j) {
                clalgo_keys[0][clalgo_j] = clalgo_keys[0][clalgo_j - 1];
                CLALGO_VALUES(clalgo_values[0][clalgo_j] = clalgo_values[0][clalgo_j - 1]);
            }
            clalgo_keys[0][clalgo_j] = clalgo_key;
            CLALGO_VALUES(clalgo_values[0][clalgo_j] = clalgo_value);
        }
    }
    for (int clalgo_width = CLALGO_INSERTION_RUN; clalgo_width < clalgo_count; clalgo_width *= 2) {
        const int clalgo_to = 1 - clalgo_from;
        for (int clalgo_start = 0; clalgo_start < clalgo_count; clalgo_start += 2 * clalgo_width) {
            const int clalgo_middle = min(clalgo_start + clalgo_width, clalgo_count);
            const int clalgo_end = min(clalgo_start + 2 * clalgo_width, clalgo_count);
            int clalgo_left = clalgo_start, clalgo_right = clalgo_middle, clalgo_out = clalgo_start;
            while (clalgo_left < clalgo_middle && clalgo_right < clalgo_end) {
                const bool clalgo_take_right =
                    clalgo_less(clalgo_keys[clalgo_from][clalgo_right], clalgo_keys[clalgo_from][clalgo_left]);
                const int clalgo_take = clalgo_take_right ? clalgo_right++ : clalgo_left++;
                clalgo_keys[clalgo_to][clalgo_out] = clalgo_keys[clalgo_from][clalgo_take];
                CLALGO_VALUES(clalgo_values[clalgo_to][clalgo_out] = clalgo_values[clalgo_from][clalgo_take]);
                ++clalgo_out;
            }
            for (; clalgo_left < clalgo_middle; ++clalgo_left, ++clalgo_out) {
                clalgo_keys[clalgo_to][clalgo_out] = clalgo_keys[clalgo_from][clalgo_left];
                CLALGO_VALUES(clalgo_values[clalgo_to][clalgo_out] = clalgo_values[clalgo_from][clalgo_left]);
            }
            for (; clalgo_right < clalgo_end; ++clalgo_right, ++clalgo_out) {
                clalgo_keys[clalgo_to][clalgo_out] = clalgo_keys[clalgo_from][clalgo_right];
                CLALGO_VALUES(clalgo_values[clalgo_to][clalgo_out] = clalgo_values[clalgo_from][clalgo_right]);
            }
        }
        clalgo_from = clalgo_to;
    }
#else
    /* a work-group: at each level every element finds its place in the merged pair by a search of its partner run */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int clalgo_width = 1; clalgo_width < clalgo_count; clalgo_width *= 2) {
        for (int clalgo_k = clalgo_lid; clalgo_k < clalgo_count; clalgo_k += clalgo_group) {
            const int clalgo_pair = clalgo_k & ~(2 * clalgo_width - 1);
            const bool clalgo_from_left = clalgo_k - clalgo_pair < clalgo_width;
            const int clalgo_own = clalgo_from_left ? clalgo_pair : clalgo_pair + clalgo_width;
            const int clalgo_partner = min(clalgo_from_left ? clalgo_pair + clalgo_width : clalgo_pair, clalgo_count);
            const int clalgo_partner_end = min(clalgo_partner + clalgo_width, clalgo_count);
            const clalgo_key_t clalgo_key = clalgo_keys[clalgo_from][clalgo_k];
            const int clalgo_rank = clalgo_rank_in_tile(clalgo_keys[clalgo_from], clalgo_partner, clalgo_partner_end,
                                                        clalgo_key, clalgo_from_left);
            const int clalgo_place = clalgo_pair + (clalgo_k - clalgo_own) + (clalgo_rank - clalgo_partner);
            clalgo_keys[1 - clalgo_from][clalgo_place] = clalgo_key;
            CLALGO_VALUES(clalgo_values[1 - clalgo_from][clalgo_place] = clalgo_values[clalgo_from][clalgo_k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        clalgo_from = 1 - clalgo_from;
    }
#endif
    for (int clalgo_k = clalgo_lid; clalgo_k < clalgo_count; clalgo_k += clalgo_group) {
        clalgo_keys_to[clalgo_first + clalgo_k] = clalgo_keys[clalgo_from][clalgo_k];
        CLALGO_VALUES(clalgo_values_to[clalgo_first + clalgo_k] = clalgo_values[clalgo_from][clalgo_k]);
    }
}

__kernel void ${name}_merge(${merge_signature})
{
    __global const clalgo_key_t *clalgo_keys_from = clalgo_keys_in + clalgo_keys_in_offset;
    __global clalgo_key_t *clalgo_keys_to = clalgo_keys_out + clalgo_keys_out_offset;
#if CLALGO_HAS_VALUES
    __global const clalgo_value_t *clalgo_values_from = clalgo_values_in + clalgo_values_in_offset;
    __global clalgo_value_t *clalgo_values_to = clalgo_values_out + clalgo_values_out_offset;
#endif
    const long clalgo_begin = (long)get_global_id(0) * clalgo_items;
    if (clalgo_begin >= clalgo_n)
        return;
    /* the pair of runs this work-item's outputs belong to: left [left, middle), right [middle, end) */
    const long clalgo_left_first = clalgo_begin / (2 * clalgo_width) * (2 * clalgo_width);
    const long clalgo_middle = min(clalgo_left_first + clalgo_width, clalgo_n);
    const long clalgo_end = min(clalgo_left_first + 2 * clalgo_width, clalgo_n);
    const long clalgo_left_count = clalgo_middle - clalgo_left_first;
    const long clalgo_right_count = clalgo_end - clalgo_middle;
    const long clalgo_diagonal = clalgo_begin - clalgo_left_first;
    const long clalgo_count = min(clalgo_items, clalgo_end - clalgo_begin);

    /* merge path: how many of the first `diagonal` outputs come from the left run */
    long clalgo_low = max(0L, clalgo_diagonal - clalgo_right_count);
    long clalgo_high = min(clalgo_diagonal, clalgo_left_count);
    while (clalgo_low < clalgo_high) {
        const long clalgo_probe = clalgo_low + (clalgo_high - clalgo_low) / 2;
        if (!clalgo_less(clalgo_keys_from[clalgo_middle + clalgo_diagonal - 1 - clalgo_probe],
                         clalgo_keys_from[clalgo_left_first + clalgo_probe]))
            clalgo_low = clalgo_probe + 1;
        else
            clalgo_high = clalgo_probe;
    }
    long clalgo_left = clalgo_left_first + clalgo_low;
    long clalgo_right = clalgo_middle + clalgo_diagonal - clalgo_low;
    clalgo_key_t clalgo_left_key, clalgo_right_key;
    if (clalgo_left < clalgo_middle) clalgo_left_key = clalgo_keys_from[clalgo_left];
    if (clalgo_right < clalgo_end) clalgo_right_key = clalgo_keys_from[clalgo_right];
    for (long clalgo_out = clalgo_begin; clalgo_out < clalgo_begin + clalgo_count; ++clalgo_out) {
        const bool clalgo_take_right =
            clalgo_right < clalgo_end &&
            (clalgo_left >= clalgo_middle || clalgo_less(clalgo_right_key, clalgo_left_key));
        if (clalgo_take_right) {
            clalgo_keys_to[clalgo_out] = clalgo_right_key;
            CLALGO_VALUES(clalgo_values_to[clalgo_out] = clalgo_values_from[clalgo_right]);
            if (++clalgo_right < clalgo_end) clalgo_right_key = clalgo_keys_from[clalgo_right];
        } else {
            clalgo_keys_to[clalgo_out] = clalgo_left_key;
            CLALGO_VALUES(clalgo_values_to[clalgo_out] = clalgo_values_from[clalgo_left]);
            if (++clalgo_left < clalgo_middle) clalgo_left_key = clalgo_keys_from[clalgo_left];
        }
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
