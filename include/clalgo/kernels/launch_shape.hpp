// How many work-groups of what size a kernel is launched with, chosen from the device: on a GPU enough groups
// to fill it (a grid-stride loop covers the rest), on a CPU a few contiguous chunks per core.
#pragma once

#include <clalgo/core/device_info.hpp>

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

/// The shape of a map over n items: one item per work-item on a GPU up to compute_units x 64 groups of 256
/// (a grid-stride loop does the rest), compute_units x 8 contiguous
/// chunks on a CPU (on PoCL, 4 x faster than a grid-stride loop, whose work-items do not vectorise).
inline WorkShape map_shape(const DeviceInfo& info, std::int64_t n, std::size_t max_group_size) {
    WorkShape shape;
    if (n <= 0) return shape;
    if (info.is_cpu) {
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
