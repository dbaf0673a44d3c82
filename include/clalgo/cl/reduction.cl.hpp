// OpenCL C template of ReductionKernel, one launch: each work-group folds its share of the indices (a
// grid-stride loop on GPUs, one contiguous chunk per work-item on CPUs) and combines its work-items into one
// partial; the last work-group to finish (a ticket counts them) combines the partials into the result, and a launch
// of one work-group (small inputs) writes its total as the result. The result is the same on every run for a given
// device and size.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* reduction = R"CLC(${prologue}
${preamble}

typedef ${value_type} clalgo_value_t;
#define CLALGO_GROUP_SIZE ${group_size}
#define CLALGO_CONTIGUOUS_CHUNKS ${contiguous_chunks}
#define CLALGO_UNROLL ${unroll}
#define CLALGO_WARP_SHUFFLE ${warp_shuffle}
#define CLALGO_VECTOR_WIDTH ${vector_width}
/* the scratch buffer: the ticket at byte 0, the partials from the largest alignment of an OpenCL C type on (a
   launch costs more for every buffer argument on NVIDIA, so the two share one) */
#define CLALGO_PARTIALS_AT 128

#if ${nvidia}
/* NVIDIA's mem_fence(CLK_GLOBAL_MEM_FENCE) orders within a work-group only; membar.gl orders device-wide */
#define CLALGO_DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define CLALGO_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

inline clalgo_value_t clalgo_neutral(void)
{
    return ${neutral};
}

inline clalgo_value_t clalgo_reduce(clalgo_value_t a, clalgo_value_t b)
{
    return ${reduce_expr};
}

inline clalgo_value_t clalgo_map(const long i, const long n${map_parameters})
{
    return ${map_expr};
}
${group_functions}
__kernel __attribute__((reqd_work_group_size(CLALGO_GROUP_SIZE, 1, 1)))
void ${name}_reduce(
    ${signature}${parameters})
{
    ${array_pointers}
    __global uint *clalgo_ticket = (__global uint *)clalgo_memory;
    __global clalgo_value_t *clalgo_partials = (__global clalgo_value_t *)(clalgo_memory + CLALGO_PARTIALS_AT);
    /* several accumulators per work-item: independent chains keep loads and arithmetic in flight */
    clalgo_value_t clalgo_acc[CLALGO_UNROLL];
    for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
        clalgo_acc[clalgo_u] = clalgo_neutral();

#if CLALGO_CONTIGUOUS_CHUNKS
    /* CPU devices: one contiguous chunk per work-item */
    const long clalgo_chunk = (n + (long)get_global_size(0) - 1) / (long)get_global_size(0);
    const long clalgo_first = min((long)get_global_id(0) * clalgo_chunk, n);
    const long clalgo_last = min(clalgo_first + clalgo_chunk, n);
    long clalgo_k = clalgo_first;
    for (; clalgo_k + CLALGO_UNROLL <= clalgo_last; clalgo_k += CLALGO_UNROLL)
        for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
            clalgo_acc[clalgo_u] = clalgo_reduce(clalgo_acc[clalgo_u],
                                          clalgo_map(clalgo_start + (clalgo_k + clalgo_u) * clalgo_step, n${map_arguments}));
    for (; clalgo_k < clalgo_last; ++clalgo_k)
        clalgo_acc[0] = clalgo_reduce(clalgo_acc[0], clalgo_map(clalgo_start + clalgo_k * clalgo_step, n${map_arguments}));
#else
    /* GPUs: grid-stride loops, neighbouring work-items on neighbouring items */
    const long clalgo_stride = get_global_size(0);
    long clalgo_scalar_begin = get_global_id(0), clalgo_scalar_end = n;
#if CLALGO_VECTOR_WIDTH
    if (clalgo_vector_head >= 0) {
        /* the map reads one array at [i]: read it ${vector_bytes} bytes at a time, from the first aligned element */
        typedef ${element_type}${vector_width} clalgo_vector_t;
        __global const clalgo_vector_t *clalgo_vectors =
            (__global const clalgo_vector_t *)(${vector_source} + clalgo_start + clalgo_vector_head);
        const long clalgo_vector_count = (n - clalgo_vector_head) / CLALGO_VECTOR_WIDTH;
        /* the next vector's address and the end's as integers, and the stride in bytes: NVIDIA's compiler gives a
           float sum 32 registers so (8 groups of 256 an SM), 34 with an index into the array (6 groups) */
        ulong clalgo_at = (ulong)(clalgo_vectors + get_global_id(0));
        const ulong clalgo_end = (ulong)(clalgo_vectors + clalgo_vector_count);
        const ulong clalgo_bytes = (ulong)clalgo_stride * sizeof(clalgo_vector_t);
        for (; clalgo_at + (CLALGO_UNROLL - 1) * clalgo_bytes < clalgo_end; clalgo_at += CLALGO_UNROLL * clalgo_bytes) {
            clalgo_vector_t clalgo_v[CLALGO_UNROLL];
            for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
                clalgo_v[clalgo_u] = *(__global const clalgo_vector_t *)(clalgo_at + clalgo_u * clalgo_bytes);
            for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u) {
                const ${element_type} *clalgo_e = (const ${element_type} *)&clalgo_v[clalgo_u];
                for (int clalgo_c = 0; clalgo_c < CLALGO_VECTOR_WIDTH; ++clalgo_c)
                    clalgo_acc[clalgo_u] = clalgo_reduce(clalgo_acc[clalgo_u], (clalgo_value_t)clalgo_e[clalgo_c]);
            }
        }
        for (; clalgo_at < clalgo_end; clalgo_at += clalgo_bytes) {
            const clalgo_vector_t clalgo_v = *(__global const clalgo_vector_t *)clalgo_at;
            const ${element_type} *clalgo_e = (const ${element_type} *)&clalgo_v;
            for (int clalgo_c = 0; clalgo_c < CLALGO_VECTOR_WIDTH; ++clalgo_c)
                clalgo_acc[0] = clalgo_reduce(clalgo_acc[0], (clalgo_value_t)clalgo_e[clalgo_c]);
        }
        /* the unaligned head and the tail are read one item at a time */
        for (long clalgo_k = get_global_id(0); clalgo_k < clalgo_vector_head; clalgo_k += clalgo_stride)
            clalgo_acc[0] = clalgo_reduce(clalgo_acc[0], clalgo_map(clalgo_start + clalgo_k, n${map_arguments}));
        clalgo_scalar_begin = clalgo_vector_head + clalgo_vector_count * CLALGO_VECTOR_WIDTH + get_global_id(0);
    }
#endif
    long clalgo_k = clalgo_scalar_begin;
    if (clalgo_step == 1) {
        /* unit steps, the usual case: no multiplication in the index (it counts in compute-bound maps) */
        for (; clalgo_k + (CLALGO_UNROLL - 1) * clalgo_stride < clalgo_scalar_end; clalgo_k += CLALGO_UNROLL * clalgo_stride)
            for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
                clalgo_acc[clalgo_u] = clalgo_reduce(clalgo_acc[clalgo_u],
                                                     clalgo_map(clalgo_start + clalgo_k + clalgo_u * clalgo_stride, n${map_arguments}));
    } else {
        for (; clalgo_k + (CLALGO_UNROLL - 1) * clalgo_stride < clalgo_scalar_end; clalgo_k += CLALGO_UNROLL * clalgo_stride)
            for (int clalgo_u = 0; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
                clalgo_acc[clalgo_u] = clalgo_reduce(clalgo_acc[clalgo_u],
                                                     clalgo_map(clalgo_start + (clalgo_k + clalgo_u * clalgo_stride) * clalgo_step, n${map_arguments}));
    }
    for (; clalgo_k < clalgo_scalar_end; clalgo_k += clalgo_stride)
        clalgo_acc[0] = clalgo_reduce(clalgo_acc[0], clalgo_map(clalgo_start + clalgo_k * clalgo_step, n${map_arguments}));
#endif

    for (int clalgo_u = 1; clalgo_u < CLALGO_UNROLL; ++clalgo_u)
        clalgo_acc[0] = clalgo_reduce(clalgo_acc[0], clalgo_acc[clalgo_u]);
    __local clalgo_value_t clalgo_scratch[CLALGO_GROUP_SIZE];
    __local uint clalgo_last_group;
    const clalgo_value_t clalgo_total = clalgo_group_reduce(clalgo_acc[0], clalgo_scratch);
    /* no result buffer (a blocking call): the result goes to the scratch buffer, after the partials */
    __global clalgo_value_t *clalgo_out = clalgo_result ? clalgo_result : clalgo_partials;
    if (get_num_groups(0) == 1) {
        /* one work-group (small inputs): its total is the result, with no partial, ticket or fence */
        if (get_local_id(0) == 0)
            clalgo_out[clalgo_result_offset] = clalgo_total;
        return;
    }
    if (get_local_id(0) == 0) {
        clalgo_partials[get_group_id(0)] = clalgo_total;
        CLALGO_DEVICE_FENCE();  /* the partial is visible before the ticket that counts it */
        const uint clalgo_done = atomic_inc(clalgo_ticket);
        clalgo_last_group = clalgo_done == get_num_groups(0) - 1;
        if (clalgo_last_group)
            atomic_xchg(clalgo_ticket, 0u);  /* ready for the next call */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!clalgo_last_group)
        return;
    /* the last work-group: every partial has been written; combine them */
    CLALGO_DEVICE_FENCE();
    clalgo_value_t clalgo_all = clalgo_neutral();
    for (long clalgo_g = get_local_id(0); clalgo_g < (long)get_num_groups(0); clalgo_g += CLALGO_GROUP_SIZE)
        clalgo_all = clalgo_reduce(clalgo_all, *(volatile __global clalgo_value_t *)&clalgo_partials[clalgo_g]);
    barrier(CLK_LOCAL_MEM_FENCE);
    clalgo_all = clalgo_group_reduce(clalgo_all, clalgo_scratch);
    if (get_local_id(0) == 0)
        clalgo_out[clalgo_result_offset] = clalgo_all;
}
)CLC";

}  // namespace clalgo::detail::cl_source
