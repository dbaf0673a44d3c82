// The comparison sort's device-dependent choices, as plain values from a DeviceInfo and the element sizes, so
// that they can be checked for every device class without the device (typical_device).
//   const clalgo::ComparisonSortPolicy policy = clalgo::comparison_sort_policy(queue.info(), sizeof(Key), 0);
//   policy.tile_size;  policy.merge_items_for(n, width);
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace clalgo {

/// How the merge sort runs on one device: a tile sort in local memory, then merge passes over global memory.
struct ComparisonSortPolicy {
    /// CPU: each tile is sorted by one work-item alone (insertion sort of short runs, then serial merges);
    /// GPU: a work-group ranks every element of the tile in parallel at each merge level.
    bool serial_tile = false;
    std::size_t tile_size = 1;        ///< elements a work-group sorts in local memory (a power of two); 1: none
    std::size_t tile_group_size = 1;  ///< work-items of a tile sort (at most; the built kernel may allow fewer)
    std::size_t insertion_run = 1;    ///< serial tiles: runs sorted by insertion before the first merge
    std::size_t merge_group_size = 1; ///< work-items per group of a merge pass
    std::int64_t merge_items = 1;     ///< GPU: outputs each work-item merges (after one merge-path search)
    std::int64_t merge_chunks = 0;    ///< CPU: contiguous chunks (work-items) per merge pass; 0 on GPUs

    /// Local memory a tile sort uses: two copies of the tile's keys and of its values.
    std::uint64_t tile_local_bytes(std::size_t key_bytes, std::size_t value_bytes) const {
        return 2 * std::uint64_t(tile_size) * (key_bytes + value_bytes);
    }

    /// Outputs per work-item of the merge pass whose runs are `width` long: a power of two that divides the
    /// merged pair (2 x width), so that no work-item crosses a pair's end.
    std::int64_t merge_items_for(std::int64_t n, std::int64_t width) const {
        std::int64_t items = merge_items;
        if (merge_chunks > 0) {
            items = 1;
            const std::int64_t wanted = (n + merge_chunks - 1) / merge_chunks;
            while (items < wanted) items *= 2;
        }
        return std::max<std::int64_t>(1, std::min(items, 2 * width));
    }
};

namespace detail {

/// The largest power of two t <= cap with two copies of t elements of `element_bytes` in `budget` (at least 1).
inline std::size_t tile_that_fits(std::uint64_t budget, std::size_t element_bytes, std::size_t cap) {
    const std::uint64_t fits = budget / (2 * std::max<std::size_t>(element_bytes, 1));
    const std::uint64_t tile = std::max<std::uint64_t>(1, std::min<std::uint64_t>(fits, cap));
    return power_of_two_at_most(static_cast<std::size_t>(tile));
}

}  // namespace detail

/// The policy of a device class for sorting keys of `key_bytes` (with values of `value_bytes`, 0 for none) within
/// `info`'s limits (local memory, work-group size, compute units). Tiles take a quarter of local memory on CPUs
/// (PoCL: 1 MiB, so 8192 ints) and half on GPUs, capped at 8192 (CPU), 2048 (NVIDIA) and 1024 elements (other
/// GPUs); large structs get smaller tiles, down to none.
inline ComparisonSortPolicy comparison_sort_policy(DeviceClass device, const DeviceInfo& info, std::size_t key_bytes,
                                                   std::size_t value_bytes) {
    ComparisonSortPolicy policy;
    const std::size_t element_bytes = key_bytes + value_bytes;
    switch (device) {
        case DeviceClass::cpu:
            // group size 1 and contiguous chunks: what PoCL runs fast (its work-items of a group do not overlap)
            policy.serial_tile = true;
            policy.tile_size = detail::tile_that_fits(info.local_memory_bytes / 4, element_bytes, 8192);
            policy.tile_group_size = 1;
            policy.insertion_run = 8;
            policy.merge_group_size = 1;
            policy.merge_chunks = std::int64_t(std::max(1u, info.compute_units)) * 8;
            break;
        case DeviceClass::nvidia_gpu:
        case DeviceClass::other_gpu: {
            const std::size_t cap = device == DeviceClass::nvidia_gpu ? 2048 : 1024;
            policy.tile_size = detail::tile_that_fits(info.local_memory_bytes / 2, element_bytes, cap);
            policy.tile_group_size = std::min<std::size_t>({256, info.max_work_group_size, policy.tile_size});
            policy.merge_group_size = std::min<std::size_t>(256, info.max_work_group_size);
            policy.merge_items = 8;
            break;
        }
    }
    return policy;
}

/// The policy for `info`'s device: its class's, or the class CLALGO_COMPARISON_SORT_CLASS names (cpu, nvidia_gpu,
/// other_gpu), to run another class's path on this device (the tests run the GPU path on PoCL so); with tiles no
/// larger than CLALGO_COMPARISON_SORT_TILE where that is set.
inline ComparisonSortPolicy comparison_sort_policy(const DeviceInfo& info, std::size_t key_bytes,
                                                   std::size_t value_bytes) {
    DeviceClass device = device_class(info);
    if (auto forced = detail::tuning_choice("CLALGO_COMPARISON_SORT_CLASS", {"cpu", "nvidia_gpu", "other_gpu"}))
        device = *forced == "cpu"          ? DeviceClass::cpu
                 : *forced == "nvidia_gpu" ? DeviceClass::nvidia_gpu
                                           : DeviceClass::other_gpu;
    ComparisonSortPolicy policy = comparison_sort_policy(device, info, key_bytes, value_bytes);
    // a smaller tile, down to none: to try sizes, and to test the passes alone
    if (auto tile = detail::tuning_number("CLALGO_COMPARISON_SORT_TILE", 1, 1 << 16)) {
        policy.tile_size = std::min(policy.tile_size, detail::power_of_two_at_most(static_cast<std::size_t>(*tile)));
        policy.tile_group_size = std::min(policy.tile_group_size, policy.tile_size);
    }
    return policy;
}

}  // namespace clalgo
