// Launch choices of the by-key family (segmented_reduce, reduce_by_key, histogram, ListOfListsBuilder), as plain
// values from a DeviceInfo, so that they can be tested for every device class without the device.
//   const auto policy = clalgo::segmented_reduce_policy(queue.info());   // policy.group_size, policy.max_groups
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/map.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace clalgo {

/// segmented_reduce: each segment is folded by a team of work-items (grid-stride over segments). A CPU gets
/// work-groups of one work-item, each folding whole segments in order; a GPU gets groups of 256 split into teams
/// as wide as a segment holds `items` per work-item (a power of two), each work-item folding a contiguous slice
/// `items` loads at a time, the slices combined in order (by warp shuffles on NVIDIA for teams of up to 32).
struct SegmentedReducePolicy {
    /// Work-items of a work-group.
    std::size_t group_size = 1;
    /// The most work-groups a launch takes.
    std::size_t max_groups = 1;
    std::size_t items = 8;       ///< loads in flight per work-item, and the slice a team aims at per work-item
    bool warp_shuffle = false;   ///< teams of up to 32 combine by NVIDIA warp shuffles

    /// Work-items per segment for segments of about `average_length` items: the largest power of two, at most
    /// group_size, that leaves each at least `items` of them (1 for shorter segments).
    std::size_t team_size(std::int64_t average_length) const {
        std::size_t lanes = 1;
        while (lanes * 2 <= group_size && static_cast<std::int64_t>(lanes * 2 * items) <= average_length) lanes *= 2;
        return lanes;
    }

    /// Work-groups for `segments` segments of about `average_length` items: one team a segment, at most max_groups
    /// (the teams then stride over the segments).
    std::size_t groups(std::int64_t segments, std::int64_t average_length) const {
        const std::int64_t teams = static_cast<std::int64_t>(group_size / team_size(average_length));
        return static_cast<std::size_t>(std::max<std::int64_t>(
            1, std::min<std::int64_t>((segments + teams - 1) / teams, static_cast<std::int64_t>(max_groups))));
    }
};

/// CLALGO_SEGMENT_GROUP_SIZE (1 to 1024) overrides the work-group size, e.g. to run the GPU path on a CPU;
/// CLALGO_SEGMENT_ITEMS (1 to 64) the items per work-item. `value_size`: bytes of a value (shuffles move 4-byte words).
inline SegmentedReducePolicy segmented_reduce_policy(const DeviceInfo& info, std::size_t value_size = 4) {
    SegmentedReducePolicy policy;
    const bool cpu = device_class(info) == DeviceClass::cpu;
    if (const auto forced = detail::tuning_number("CLALGO_SEGMENT_GROUP_SIZE", 1, 1024)) {
        policy.group_size = detail::power_of_two_at_most(std::min<std::size_t>(*forced, info.max_work_group_size));
        policy.max_groups = std::size_t(info.compute_units) * (policy.group_size == 1 ? 8 : 64);
        policy.items = cpu ? 2 : 8;  // short slices on a CPU: many work-items per segment to test the combining
    } else if (cpu) {
        policy.group_size = 1;
        policy.max_groups = std::size_t(info.compute_units) * 8;
    } else {
        policy.group_size = detail::power_of_two_at_most(std::min<std::size_t>(256, info.max_work_group_size));
        policy.max_groups = std::size_t(info.compute_units) * 64;
    }
    if (const auto items = detail::tuning_number("CLALGO_SEGMENT_ITEMS", 1, 64)) policy.items = static_cast<std::size_t>(*items);
    policy.warp_shuffle = device_class(info) == DeviceClass::nvidia_gpu && value_size % 4 == 0 && policy.group_size >= 32;
    return policy;
}

/// reduce_by_key: the tile kernel (cl/reduce_by_key.cl.hpp: each work-item folds `items` consecutive items in
/// registers, one (runs, value) pair per work-item is scanned) or the generic scan of one pair per item. GPUs get
/// the tile kernel; CPUs the scan, whose serial algorithm suits them.
struct ReduceByKeyPolicy {
    /// Whether the tile kernel runs (else the scan of one pair per item).
    bool tile_kernel = false;
    /// Work-items of a work-group.
    std::size_t group_size = 256;
    std::size_t items = 8;      ///< consecutive items per work-item (at most 32: their run starts are one bit mask)
    bool warp_shuffle = false;  ///< the pairs are scanned by NVIDIA warp shuffles
    bool wide_status = false;   ///< the look-back publishes a pair of up to 8 bytes with its status in one 16-byte word
};

/// `item_bytes`: a key's and a value's bytes; `pair_bytes`: the scanned (runs, value) pair's. CLALGO_REDUCE_BY_KEY
/// (tile or scan) forces the kernel, CLALGO_REDUCE_BY_KEY_ITEMS (1 to 32) the items per work-item;
/// CLALGO_SCAN_WIDE_STATUS the look-back's 16-byte words, as for scans.
inline ReduceByKeyPolicy reduce_by_key_policy(const DeviceInfo& info, std::size_t item_bytes, std::size_t pair_bytes) {
    ReduceByKeyPolicy policy;
    const DeviceClass kind = device_class(info);
    const bool nvidia = kind == DeviceClass::nvidia_gpu;
    const auto forced = detail::tuning_choice("CLALGO_REDUCE_BY_KEY", {"tile", "scan"});
    policy.tile_kernel = forced ? *forced == "tile" : kind != DeviceClass::cpu;
    policy.group_size = detail::power_of_two_at_most(std::min<std::size_t>(256, info.max_work_group_size));
    // a tile of keys and values staged in local memory: 32 KiB for 16 items of 4-byte keys and values (H100,
    // 2^28 float values by uint32 keys: 1,240 us with 16 items, 1,331 us with 12; docs/architecture.md)
    policy.items = std::clamp<std::size_t>(128 / std::max<std::size_t>(item_bytes, 1), 1, 16);
    if (const auto items = detail::tuning_number("CLALGO_REDUCE_BY_KEY_ITEMS", 1, 32)) policy.items = static_cast<std::size_t>(*items);
    const auto local_bytes = [&] { return policy.group_size * (policy.items * item_bytes + pair_bytes) + 1024; };
    while (policy.items > 1 && local_bytes() > info.local_memory_bytes) policy.items /= 2;
    while (policy.group_size > 1 && local_bytes() > info.local_memory_bytes) policy.group_size /= 2;
    policy.warp_shuffle = nvidia && policy.group_size >= 32 && pair_bytes % 4 == 0;
    policy.wide_status = pair_bytes <= 8 && detail::tuning_switch("CLALGO_SCAN_WIDE_STATUS").value_or(nvidia);
    return policy;
}

/// histogram: each work-group counts into a private histogram in local memory (when the bins fit in
/// `local_bins`), then adds it to the result with one global atomic per bin. A CPU gets work-groups of one
/// work-item over one contiguous chunk each (plain increments, no atomics in the loop).
struct HistogramPolicy {
    /// Work-items of a work-group.
    std::size_t group_size = 1;
    /// Work-groups of a launch.
    std::size_t groups = 1;
    std::size_t local_bins = 0;      ///< bins kept in local memory; more bins count straight into global memory
    bool contiguous_chunks = false;  ///< one contiguous chunk per work-item instead of a grid-stride loop
    /// Copies of the running sums, work-group g adding into copy g % sum_copies, so that fewer work-groups wait on
    /// the same counter's atomic; the last work-group adds the copies up. Only for up to spread_bins bins (the last
    /// work-group reads every copy).
    std::size_t sum_copies = 1;
    /// The most bins whose running sums are kept in sum_copies copies; more keep one.
    static constexpr std::size_t spread_bins = 1024;

    /// The copies of the running sums a histogram of `bins` bins keeps (the kernel makes the same choice).
    std::size_t sum_copies_for(std::size_t bins) const { return bins <= spread_bins ? sum_copies : 1; }
};

/// CLALGO_HISTOGRAM_GROUP_SIZE (1 to 1024) overrides the work-group size (and with more than 1, the grid-stride
/// loop of GPUs), e.g. to run the GPU path on a CPU.
/// `forced`: the override as read once (a kernel object keeps the one its source was made with).
inline HistogramPolicy histogram_policy(const DeviceInfo& info, std::int64_t n, std::optional<std::uint64_t> forced) {
    HistogramPolicy policy;
    const std::uint64_t items = static_cast<std::uint64_t>(std::max<std::int64_t>(n, 1));
    // local 32-bit counters: no group may count more than 2^31 items
    const std::size_t fewest = static_cast<std::size_t>((items >> 31) + 1);
    policy.local_bins = static_cast<std::size_t>(std::min<std::uint64_t>(4096, info.local_memory_bytes / 8));
    if (forced ? *forced == 1 : device_class(info) == DeviceClass::cpu) {
        policy.group_size = 1;
        policy.contiguous_chunks = true;
        policy.groups = std::max<std::size_t>(std::min<std::uint64_t>(items / 4096 + 1, info.compute_units * 4ull), fewest);
    } else {
        policy.group_size = detail::power_of_two_at_most(std::min<std::size_t>(forced.value_or(256), info.max_work_group_size));
        // 8 items a work-item where that takes at most 8 work-groups a compute unit, 16 (and at most so many
        // groups, in a grid-stride loop) beyond
        const std::uint64_t most = info.compute_units * 8ull;
        const std::uint64_t eights = detail::divide_up(items, policy.group_size * 8ull);
        const std::uint64_t wanted = eights <= most ? eights : detail::divide_up(items, policy.group_size * 16ull);
        policy.groups = std::max<std::size_t>(std::min<std::uint64_t>(wanted, most), fewest);
        policy.sum_copies = 8;
    }
    return policy;
}

inline HistogramPolicy histogram_policy(const DeviceInfo& info, std::int64_t n) {
    return histogram_policy(info, n, detail::tuning_number("CLALGO_HISTOGRAM_GROUP_SIZE", 1, 1024));
}

/// ListOfListsBuilder's two passes over the indices: contiguous chunks on a CPU, one index per work-item (grid
/// stride beyond) on a GPU.
struct ListBuilderPolicy {
    /// Work-items of a work-group.
    std::size_t group_size = 1;
    /// Work-groups of a launch.
    std::size_t groups = 1;
    /// One contiguous chunk of indices per work-item.
    bool contiguous_chunks = false;
};

inline ListBuilderPolicy list_builder_policy(const DeviceInfo& info, std::int64_t n) {
    ListBuilderPolicy policy;
    const std::uint64_t items = static_cast<std::uint64_t>(std::max<std::int64_t>(n, 1));
    if (device_class(info) == DeviceClass::cpu) {
        policy.contiguous_chunks = true;
        policy.groups = static_cast<std::size_t>(std::min<std::uint64_t>(items, info.compute_units * 8ull));
    } else {
        policy.group_size = std::min<std::size_t>(256, info.max_work_group_size);
        policy.groups = static_cast<std::size_t>(
            std::min<std::uint64_t>((items + policy.group_size - 1) / policy.group_size, info.compute_units * 64ull));
    }
    return policy;
}

}  // namespace clalgo
