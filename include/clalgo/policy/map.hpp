// How a map (ElementwiseKernel) runs on a device class: on a GPU a grid-stride loop over enough groups to fill
// it, on a CPU a few contiguous chunks per core (their loops vectorise).
//   detail::MapPolicy policy = detail::map_policy(info);   // policy.contiguous_chunks on CPUs
//   detail::WorkShape shape = detail::map_shape(info, n, largest_group);
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>

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
    bool contiguous_chunks = false;  ///< each work-item takes one contiguous chunk (CPUs), else a grid-stride loop
};

inline MapPolicy map_policy(const DeviceInfo& info) {
    MapPolicy policy;
    policy.contiguous_chunks = device_class(info) == DeviceClass::cpu;
    return policy;
}

/// The shape of a map over n items: one item per work-item on a GPU up to compute_units x 64 groups of 256
/// (a grid-stride loop does the rest), compute_units x 8 contiguous
/// chunks on a CPU (on PoCL, 4 x faster than a grid-stride loop, whose work-items do not vectorise).
inline WorkShape map_shape(const DeviceInfo& info, std::int64_t n, std::size_t max_group_size) {
    WorkShape shape;
    if (n <= 0) return shape;
    if (map_policy(info).contiguous_chunks) {
        shape.group_size = 1;
        shape.groups = std::min<std::size_t>(static_cast<std::size_t>(n), std::size_t(info.compute_units) * 8);
        return shape;
    }
    shape.group_size = std::min<std::size_t>(256, max_group_size);
    shape.groups = std::min<std::size_t>(divide_up(static_cast<std::uint64_t>(n), shape.group_size),
                                         std::size_t(info.compute_units) * 64);
    return shape;
}

}  // namespace clalgo::detail
