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
inline int clalgo_rank_in_tile(__local const clalgo_key_t *keys, int first, int last, const clalgo_key_t key,
                               bool from_left)
{
    while (first < last) {
        const int middle = first + (last - first) / 2;
        const bool before = from_left ? clalgo_less(keys[middle], key) : !clalgo_less(key, keys[middle]);
        if (before)
            first = middle + 1;
        else
            last = middle;
    }
    return first;
}

__kernel void ${name}_tile(
    ${tile_signature})
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

    for (int k = clalgo_lid; k < clalgo_count; k += clalgo_group) {
        clalgo_keys[0][k] = clalgo_keys_from[clalgo_first + k];
        CLALGO_VALUES(clalgo_values[0][k] = clalgo_values_from[clalgo_first + k]);
    }
#if CLALGO_SERIAL_TILE
    /* one work-item: insertion sort of short runs, then merges of neighbouring runs */
    for (int start = 0; start < clalgo_count; start += CLALGO_INSERTION_RUN) {
        const int end = min(start + CLALGO_INSERTION_RUN, clalgo_count);
        for (int k = start + 1; k < end; ++k) {
            const clalgo_key_t key = clalgo_keys[0][k];
            CLALGO_VALUES(const clalgo_value_t value = clalgo_values[0][k]);
            int j = k;
            for (; j > start && clalgo_less(key, clalgo_keys[0][j - 1]); --j) {
                clalgo_keys[0][j] = clalgo_keys[0][j - 1];
                CLALGO_VALUES(clalgo_values[0][j] = clalgo_values[0][j - 1]);
            }
            clalgo_keys[0][j] = key;
            CLALGO_VALUES(clalgo_values[0][j] = value);
        }
    }
    for (int width = CLALGO_INSERTION_RUN; width < clalgo_count; width *= 2) {
        const int to = 1 - clalgo_from;
        for (int start = 0; start < clalgo_count; start += 2 * width) {
            const int middle = min(start + width, clalgo_count), end = min(start + 2 * width, clalgo_count);
            int left = start, right = middle, out = start;
            while (left < middle && right < end) {
                const bool take_right = clalgo_less(clalgo_keys[clalgo_from][right], clalgo_keys[clalgo_from][left]);
                const int take = take_right ? right++ : left++;
                clalgo_keys[to][out] = clalgo_keys[clalgo_from][take];
                CLALGO_VALUES(clalgo_values[to][out] = clalgo_values[clalgo_from][take]);
                ++out;
            }
            for (; left < middle; ++left, ++out) {
                clalgo_keys[to][out] = clalgo_keys[clalgo_from][left];
                CLALGO_VALUES(clalgo_values[to][out] = clalgo_values[clalgo_from][left]);
            }
            for (; right < end; ++right, ++out) {
                clalgo_keys[to][out] = clalgo_keys[clalgo_from][right];
                CLALGO_VALUES(clalgo_values[to][out] = clalgo_values[clalgo_from][right]);
            }
        }
        clalgo_from = to;
    }
#else
    /* a work-group: at each level every element finds its place in the merged pair by a search of its partner run */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int width = 1; width < clalgo_count; width *= 2) {
        for (int k = clalgo_lid; k < clalgo_count; k += clalgo_group) {
            const int pair = k & ~(2 * width - 1);
            const bool from_left = k - pair < width;
            const int own = from_left ? pair : pair + width;
            const int partner = min(from_left ? pair + width : pair, clalgo_count);
            const int partner_end = min(partner + width, clalgo_count);
            const clalgo_key_t key = clalgo_keys[clalgo_from][k];
            const int rank = clalgo_rank_in_tile(clalgo_keys[clalgo_from], partner, partner_end, key, from_left);
            const int place = pair + (k - own) + (rank - partner);
            clalgo_keys[1 - clalgo_from][place] = key;
            CLALGO_VALUES(clalgo_values[1 - clalgo_from][place] = clalgo_values[clalgo_from][k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        clalgo_from = 1 - clalgo_from;
    }
#endif
    for (int k = clalgo_lid; k < clalgo_count; k += clalgo_group) {
        clalgo_keys_to[clalgo_first + k] = clalgo_keys[clalgo_from][k];
        CLALGO_VALUES(clalgo_values_to[clalgo_first + k] = clalgo_values[clalgo_from][k]);
    }
}

__kernel void ${name}_merge(
    ${merge_signature})
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
    long low = max(0L, clalgo_diagonal - clalgo_right_count);
    long high = min(clalgo_diagonal, clalgo_left_count);
    while (low < high) {
        const long middle = low + (high - low) / 2;
        if (!clalgo_less(clalgo_keys_from[clalgo_middle + clalgo_diagonal - 1 - middle],
                         clalgo_keys_from[clalgo_left_first + middle]))
            low = middle + 1;
        else
            high = middle;
    }
    long left = clalgo_left_first + low;
    long right = clalgo_middle + clalgo_diagonal - low;
    clalgo_key_t left_key, right_key;
    if (left < clalgo_middle) left_key = clalgo_keys_from[left];
    if (right < clalgo_end) right_key = clalgo_keys_from[right];
    for (long out = clalgo_begin; out < clalgo_begin + clalgo_count; ++out) {
        const bool take_right = right < clalgo_end && (left >= clalgo_middle || clalgo_less(right_key, left_key));
        if (take_right) {
            clalgo_keys_to[out] = right_key;
            CLALGO_VALUES(clalgo_values_to[out] = clalgo_values_from[right]);
            if (++right < clalgo_end) right_key = clalgo_keys_from[right];
        } else {
            clalgo_keys_to[out] = left_key;
            CLALGO_VALUES(clalgo_values_to[out] = clalgo_values_from[left]);
            if (++left < clalgo_middle) left_key = clalgo_keys_from[left];
        }
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
