// How a segmented reduction runs on a device class: whole segments per work-item on CPUs, one work-group per
// segment at a time on GPUs.
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace clalgo::detail {

struct SegmentedReducePolicy {
    std::size_t group_size = 1;
    std::size_t max_groups = 1;
    bool segment_per_item = false;  ///< each work-item reduces whole segments alone (CPUs)

    std::size_t groups_for(std::uint64_t segments) const {
        const std::uint64_t per_group = segment_per_item ? group_size : 1;
        return static_cast<std::size_t>(
            std::max<std::uint64_t>(1, std::min<std::uint64_t>(max_groups, (segments + per_group - 1) / per_group)));
    }
};

inline SegmentedReducePolicy segmented_reduce_policy(const DeviceInfo& info, std::size_t value_size) {
    SegmentedReducePolicy policy;
    if (device_class(info) == DeviceClass::cpu) {
        policy.segment_per_item = true;
        policy.max_groups = std::size_t(info.compute_units) * 8;
        return policy;
    }
    policy.group_size = power_of_two_at_most(std::min<std::size_t>(256, info.max_work_group_size));
    while (policy.group_size > 32 && policy.group_size * value_size + 1024 > info.local_memory_bytes) policy.group_size /= 2;
    policy.max_groups = std::size_t(info.compute_units) * 16;
    return policy;
}

}  // namespace clalgo::detail
