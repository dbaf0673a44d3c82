// OpenCL C of the radix sort's blocks algorithm, for CPUs: per digit, each work-item counts the digits of one
// contiguous block, one work-item turns the counts into places (digit by digit, block by block), and each
// work-item moves its block's keys (and values) to their places in order, which keeps the sort stable.
// Plain loops over contiguous memory, which PoCL vectorises; no work-item waits on another.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* radix_sort_blocks = R"CLC(
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clalgo_radix_count_blocks(${count_signature})
{
    __global const clalgo_key_t *clalgo_keys = clalgo_keys_base + clalgo_keys_offset;
    const long block = get_group_id(0), blocks = get_num_groups(0);
    const long first = min(block * clalgo_block_size, n), last = min(first + clalgo_block_size, n);
    const clalgo_bits_t flip = (clalgo_bits_t)clalgo_flip;
    ulong counts[CLALGO_RADIX];
    for (uint d = 0; d < CLALGO_RADIX; ++d)
        counts[d] = 0;
    for (long k = first; k < last; ++k)
        ++counts[clalgo_digit(clalgo_keys[k], flip, clalgo_shift, clalgo_mask)];
    for (uint d = 0; d <= clalgo_mask; ++d)
        clalgo_counts[d * blocks + block] = counts[d];
}

/* one work-item: the counts, digit-major, become each block's first place for each digit */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clalgo_radix_place_blocks(${place_signature})
{
    ulong running = 0;
    const long total = (long)(clalgo_mask + 1) * clalgo_blocks;
    for (long k = 0; k < total; ++k) {
        const ulong count = clalgo_counts[k];
        clalgo_counts[k] = running;
        running += count;
    }
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clalgo_radix_scatter_blocks(${scatter_signature})
{
    CLALGO_MOVED_ARRAYS
    const long block = get_group_id(0), blocks = get_num_groups(0);
    const long first = min(block * clalgo_block_size, n), last = min(first + clalgo_block_size, n);
    const clalgo_bits_t flip = (clalgo_bits_t)clalgo_flip;
    ulong places[CLALGO_RADIX];
    for (uint d = 0; d <= clalgo_mask; ++d)
        places[d] = clalgo_counts[d * blocks + block];
    for (long k = first; k < last; ++k) {
        const clalgo_key_t key = clalgo_keys_in[k];
        const ulong place = places[clalgo_digit(key, flip, clalgo_shift, clalgo_mask)]++;
        clalgo_keys_out[place] = key;
#if CLALGO_HAS_VALUES
        clalgo_values_out[place] = CLALGO_VALUE_IN(k);  /* argsort's first pass: the key's position */
#endif
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
