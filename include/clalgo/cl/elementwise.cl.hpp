// OpenCL C template of ElementwiseKernel: one statement applied to every index i of an array or a range.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* elementwise = R"CLC(${prologue}
${preamble}

#define CLALGO_CONTIGUOUS_CHUNKS ${contiguous_chunks}

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
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k)
#else
    /* GPUs: a grid-stride loop, four strides a round (with restrict arrays, four items' reads go before any
       write), then one stride at a time */
    const long clalgo_stride = get_global_size(0);
    long clalgo_k = get_global_id(0);
    for (; clalgo_k + 3 * clalgo_stride < n; clalgo_k += 4 * clalgo_stride) {
#pragma unroll
        for (int clalgo_u = 0; clalgo_u < 4; ++clalgo_u) {
            const long i = clalgo_start + (clalgo_k + clalgo_u * clalgo_stride) * clalgo_step;
            ${operation};
        }
    }
    for (; clalgo_k < n; clalgo_k += clalgo_stride)
#endif
    {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        ${operation};
    }
    ${after_loop}
}
)CLC";

}  // namespace clalgo::detail::cl_source
