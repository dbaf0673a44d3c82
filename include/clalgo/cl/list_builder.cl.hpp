// OpenCL C template of ListOfListsBuilder: the user's statement runs twice for every index, first counting what
// each APPEND_<list>(value) would add (the counts go to clalgo_<list>_offsets[k], and 0 to offsets[n]), then, once
// the counts are scanned into offsets, writing the items from clalgo_<list>_offsets[k] on.
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* list_builder = R"CLC(${prologue}
${preamble}

#define CLALGO_CONTIGUOUS_CHUNKS ${contiguous_chunks}

#if CLALGO_CONTIGUOUS_CHUNKS
#define CLALGO_FOR_EACH_INDEX \
    const long clalgo_chunk = (n + (long)get_global_size(0) - 1) / (long)get_global_size(0); \
    const long clalgo_first = min((long)get_global_id(0) * clalgo_chunk, n); \
    const long clalgo_last = min(clalgo_first + clalgo_chunk, n); \
    for (long clalgo_k = clalgo_first; clalgo_k < clalgo_last; ++clalgo_k)
#else
#define CLALGO_FOR_EACH_INDEX \
    for (long clalgo_k = get_global_id(0); clalgo_k < n; clalgo_k += (long)get_global_size(0))
#endif

__kernel void ${name}_count(
    ${signature}${parameters})
{
    ${array_pointers}
    /* offsets[n] = 0, which the exclusive scan turns into the total: written here rather than by the host, whose
       write of one element Oclgrind's --uninitialized mistakes for the whole buffer's (tests/CMakeLists.txt) */
    if (get_global_id(0) == 0) {
        ${count_total}
    }
    CLALGO_FOR_EACH_INDEX {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        ${count_start}
        ${count_appends}
        {
            ${generate}
        }
        ${count_end}
        ${undefine_appends}
    }
}

__kernel void ${name}_write(
    ${signature}${parameters})
{
    ${array_pointers}
    CLALGO_FOR_EACH_INDEX {
        const long i = clalgo_start + clalgo_k * clalgo_step;
        ${write_start}
        ${write_appends}
        {
            ${generate}
        }
        ${undefine_appends}
    }
}
)CLC";

}  // namespace clalgo::detail::cl_source
