// OpenCL C building blocks shared by the reduction and scan templates: exchanging values between the lanes of
// an NVIDIA warp (inline PTX, emitted for NVIDIA's OpenCL only) and combining one value per work-item of a
// work-group. They operate on `clalgo_value_t` with `clalgo_reduce(a, b)`, both defined by the including
// template, and read CLALGO_GROUP_SIZE (a power of two) and CLALGO_WARP_SHUFFLE (1 on NVIDIA where
// sizeof(clalgo_value_t) is a multiple of 4 bytes).
#pragma once

namespace clalgo::detail::cl_source {

inline constexpr const char* warp_shuffle = R"CLC(
#if CLALGO_WARP_SHUFFLE
/* NVIDIA: move a value between the 32 lanes of a warp, one 32-bit word at a time */
#define CLALGO_WORDS (sizeof(clalgo_value_t) / 4)

inline clalgo_value_t clalgo_shuffle_xor(clalgo_value_t value, uint lane_mask)
{
    union { clalgo_value_t value; uint words[CLALGO_WORDS]; } u;
    u.value = value;
    for (uint w = 0; w < CLALGO_WORDS; ++w) {
        uint moved;
        asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(moved) : "r"(u.words[w]), "r"(lane_mask));
        u.words[w] = moved;
    }
    return u.value;
}

/* the value of the lane `delta` below; lanes below `delta` get their own value back */
inline clalgo_value_t clalgo_shuffle_up(clalgo_value_t value, uint delta)
{
    union { clalgo_value_t value; uint words[CLALGO_WORDS]; } u;
    u.value = value;
    for (uint w = 0; w < CLALGO_WORDS; ++w) {
        uint moved;
        asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(moved) : "r"(u.words[w]), "r"(delta));
        u.words[w] = moved;
    }
    return u.value;
}

inline uint clalgo_shuffle_up_uint(uint value, uint delta)
{
    uint moved;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(moved) : "r"(value), "r"(delta));
    return moved;
}

inline uint clalgo_shuffle_xor_uint(uint value, uint lane_mask)
{
    uint moved;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(moved) : "r"(value), "r"(lane_mask));
    return moved;
}

/* bit k set where `predicate` is non-zero in lane k */
inline uint clalgo_ballot(uint predicate)
{
    uint mask;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" : "=r"(mask) : "r"(predicate));
    return mask;
}

/* the index of the lowest set bit; 32 where none is */
inline uint clalgo_lowest_bit(uint mask)
{
    return mask ? 31 - clz(mask & (0u - mask)) : 32;
}
#endif
)CLC";

inline constexpr const char* group_reduce = R"CLC(
/* Combines one value per work-item of the group (in any order: the operator is commutative);
   the result is valid in work-item 0. `scratch` holds CLALGO_GROUP_SIZE values. */
inline clalgo_value_t clalgo_group_reduce(clalgo_value_t value, __local clalgo_value_t *scratch)
{
    const uint lid = get_local_id(0);
#if CLALGO_WARP_SHUFFLE && CLALGO_GROUP_SIZE >= 32
    for (uint mask = 16; mask > 0; mask >>= 1)
        value = clalgo_reduce(value, clalgo_shuffle_xor(value, mask));
    if ((lid & 31) == 0)
        scratch[lid >> 5] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        for (uint warp = 1; warp < CLALGO_GROUP_SIZE / 32; ++warp)
            value = clalgo_reduce(value, scratch[warp]);
    return value;
#else
    scratch[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = CLALGO_GROUP_SIZE / 2; width > 0; width >>= 1) {
        if (lid < width)
            scratch[lid] = clalgo_reduce(scratch[lid], scratch[lid + width]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return scratch[0];
#endif
}
)CLC";

}  // namespace clalgo::detail::cl_source
