// OpenCL C template of ElementwiseKernel: one statement applied to every index i of an array or a range.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* elementwise = R"CLC(${prologue}
${preamble}

#define CLALGO_CONTIGUOUS_CHUNKS ${contiguous_chunks}
#define CLALGO_ITEMS ${items}

__kernel void ${name}(
    ${signature}${parameters})
{
    ${array_pointers}
    ${loop_prep}
#if CLALGO_CONTIGUOUS_CHUNKS
    /* CPU devices: each work-item takes one contiguous chunk, so that its loop vectorises */
    const long clalgo_chunk = (n + (long)get_global_size(0) - 1) / (long)get_global_size(0);
    const long clalgo_first = (long)get_global_id(0) * clalgo_chunk;
    const long clalgo_last = min(clalgo_first + clalgo_chunk, n);
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k) {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        ${operation};
    }
#else
    /* GPUs: a work-group takes tiles of CLALGO_ITEMS x its size consecutive items, work-item l the items l,
       l + size, ... of each: a warp's accesses lie side by side, and with restrict arrays a work-item's
       CLALGO_ITEMS reads go out before its writes. Full tiles run without the bounds check. */
    const long clalgo_size = get_local_size(0);
    const long clalgo_tile = clalgo_size * CLALGO_ITEMS;
    for (long clalgo_first = get_group_id(0) * clalgo_tile; clalgo_first < n;
         clalgo_first += get_num_groups(0) * clalgo_tile) {
        const long clalgo_base = clalgo_first + get_local_id(0);
        if (clalgo_first + clalgo_tile <= n) {
#pragma unroll
            for (int clalgo_u = 0; clalgo_u < CLALGO_ITEMS; ++clalgo_u) {
                const long i = clalgo_start + (clalgo_base + clalgo_u * clalgo_size) * clalgo_step;
                ${operation};
            }
        } else {
            for (int clalgo_u = 0; clalgo_u < CLALGO_ITEMS; ++clalgo_u) {
                const long clalgo_k = clalgo_base + clalgo_u * clalgo_size;
                if (clalgo_k < n) {
                    const long i = clalgo_start + clalgo_k * clalgo_step;
                    ${operation};
                }
            }
        }
    }
#endif
    ${after_loop}
}
)CLC";

}  // namespace clalgo::detail::cl_source
