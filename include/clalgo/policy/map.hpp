// How a map (ElementwiseKernel) runs on a device class: on a GPU tiles of `items` x 256 consecutive items, one
// per work-group, on a CPU a few contiguous chunks per core (their loops vectorise).
//   detail::MapPolicy policy = detail::map_policy(info);   // policy.contiguous_chunks on CPUs
//   detail::WorkShape shape = detail::map_shape(info, policy, n, largest_group);
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace clalgo::detail {

struct WorkShape {
    std::size_t groups = 0;
    std::size_t group_size = 1;
    std::size_t global_size() const { return groups * group_size; }
};

inline std::size_t divide_up(std::uint64_t a, std::uint64_t b) { return static_cast<std::size_t>((a + b - 1) / b); }

/// What the map's template is generated with.
struct MapPolicy {
    bool contiguous_chunks = false;  ///< each work-item takes one contiguous chunk (CPUs), else tiles
    /// GPUs: items per work-item in a tile (the group's size x items consecutive items, each work-item's strided
    /// by the group's size). H100, a copy of 2^28 floats: 4 items 710 us, 8 items 720 us, a grid-stride loop of
    /// compute_units x 64 groups 772 us; clEnqueueCopyBuffer 715 us (docs/architecture.md).
    std::size_t items = 4;
    /// fill by a map kernel rather than clEnqueueFillBuffer (H100, 2^28 floats: 328 us against 635 us)
    bool fill_by_kernel = false;
};

/// CLALGO_MAP_ITEMS (1 to 16) sets the items per work-item of the tiles, and gives CPUs the GPUs' policy too
/// (tiles, fill by a kernel), to test it there.
inline MapPolicy map_policy(const DeviceInfo& info) {
    MapPolicy policy;
    policy.contiguous_chunks = device_class(info) == DeviceClass::cpu;
    policy.fill_by_kernel = !policy.contiguous_chunks;
    if (const auto items = tuning_number("CLALGO_MAP_ITEMS", 1, 16)) {
        policy.items = static_cast<std::size_t>(*items);
        policy.contiguous_chunks = false;
        policy.fill_by_kernel = true;
    }
    return policy;
}

/// The shape of a map over n items: on a GPU one group of 256 per tile of 256 x items, up to
/// compute_units x 4096 groups (each then takes every so many tiles), compute_units x 8 contiguous
/// chunks on a CPU (on PoCL, 4 x faster than a grid-stride loop, whose work-items do not vectorise).
inline WorkShape map_shape(const DeviceInfo& info, const MapPolicy& policy, std::int64_t n, std::size_t max_group_size) {
    WorkShape shape;
    if (n <= 0) return shape;
    if (policy.contiguous_chunks) {
        shape.group_size = 1;
        shape.groups = std::min<std::size_t>(static_cast<std::size_t>(n), std::size_t(info.compute_units) * 8);
        return shape;
    }
    shape.group_size = std::min<std::size_t>(256, max_group_size);
    shape.groups = std::min<std::size_t>(divide_up(static_cast<std::uint64_t>(n), shape.group_size * policy.items),
                                         std::size_t(info.compute_units) * 4096);
    return shape;
}

}  // namespace clalgo::detail
