// How a histogram runs on a device class: work-items and groups, contiguous chunks on CPUs or a grid-stride
// loop on GPUs, and how many bins a group counts in local memory before adding them to the result.
//   auto policy = clalgo::detail::histogram_policy(info, n);
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace clalgo::detail {

struct HistogramPolicy {
    std::size_t group_size = 1;
    std::size_t max_groups = 1;
    bool contiguous = false;     ///< each group counts one contiguous chunk (CPUs), else a grid-stride loop
    std::size_t local_bins = 0;  ///< the most bins a group counts in local memory (more: straight to global memory)

    /// Groups for n items: enough to fill the device, never so few that one group counts 2^31 items (its local
    /// counters are 32-bit).
    std::size_t groups_for(std::uint64_t n) const {
        const std::uint64_t per_group = std::uint64_t(group_size) * 256;
        const std::uint64_t wanted = std::max<std::uint64_t>(1, std::min<std::uint64_t>(max_groups, (n + per_group - 1) / per_group));
        return static_cast<std::size_t>(std::max<std::uint64_t>(wanted, n >> 31));
    }
};

inline HistogramPolicy histogram_policy(const DeviceInfo& info) {
    HistogramPolicy policy;
    const std::size_t budget = info.local_memory_bytes > 4096 ? info.local_memory_bytes - 4096 : 0;
    if (device_class(info) == DeviceClass::cpu) {
        policy.group_size = 1;
        policy.contiguous = true;
        policy.max_groups = std::size_t(info.compute_units) * 4;
        policy.local_bins = std::min<std::size_t>(budget / 4, 1 << 16);
        return policy;
    }
    policy.group_size = power_of_two_at_most(std::min<std::size_t>(256, info.max_work_group_size));
    policy.max_groups = std::size_t(info.compute_units) * 8;
    policy.local_bins = std::min<std::size_t>(budget / 4, 8192);
    return policy;
}

}  // namespace clalgo::detail
