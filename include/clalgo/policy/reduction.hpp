// How a ReductionKernel runs on a device class: group size and count, contiguous chunks (CPUs) or a grid-stride
// loop with warp shuffles (NVIDIA) and 16-byte vector loads where the map reads one array at [i]. Tuned values
// (reduction.group_size, reduction.groups_per_unit, reduction.unroll) replace the hand-set ones.
//   detail::ReductionPlan plan = detail::reduction_policy(info, {sizeof(float), true, 4});
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/map.hpp>
#include <clalgo/policy/tuned.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace clalgo::detail {

/// What the generated reduction looks like on one device.
struct ReductionPlan {
    std::size_t group_size = 1;
    std::size_t max_groups = 1;
    /// Items a work-item of a launch takes at least: a call launches divide_up(n, group_size * this) groups (but
    /// see groups_for), so inputs of up to group_size * this items take one work-group, whose total is the result.
    std::size_t items_per_work_item = 16;
    /// Past `filling_groups` groups of items_per_work_item, the work-items take up to this many items before a
    /// launch has more groups than that (0: never).
    std::size_t wide_items_per_work_item = 0;
    std::size_t filling_groups = 0;
    int unroll = 1;
    bool contiguous_chunks = false;
    bool warp_shuffle = false;
    int vector_width = 0;  ///< 0: no vector loads
    bool device_fence_ptx = false;  ///< order the partials before the ticket with NVIDIA's membar.gl (inline PTX)

    /// The work-groups a launch over n items takes: one where n = 0, never more than max_groups.
    std::size_t groups_for(std::uint64_t n) const {
        std::uint64_t groups = divide_up(n, std::uint64_t(group_size) * items_per_work_item);
        if (wide_items_per_work_item > items_per_work_item && groups > filling_groups)
            groups = std::max<std::uint64_t>(filling_groups,
                                             divide_up(n, std::uint64_t(group_size) * wide_items_per_work_item));
        return static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(max_groups, groups)));
    }
};

/// What the policy needs to know of a reduction: its value, and the array a plain `name[i]` map reads.
struct ReductionTraits {
    std::size_t value_size = 4;
    bool value_is_scalar = true;          ///< a builtin scalar type (not a vector type or a struct)
    std::size_t vector_element_size = 0;  ///< element size of the array a `name[i]` map reads; 0: none
};

inline ReductionPlan reduction_policy(const DeviceInfo& info, const ReductionTraits& traits,
                                     const TunedValues& tuned = {}) {
    ReductionPlan plan;
    const std::size_t groups_per_unit = tuned.get("reduction.groups_per_unit", 1, 256).value_or(
        device_class(info) == DeviceClass::cpu ? 8 : 16);
    plan.max_groups = std::size_t(info.compute_units) * groups_per_unit;
    plan.items_per_work_item = tuning_number("CLALGO_REDUCE_ITEMS", 1, 1 << 20)
                                   .value_or(device_class(info) == DeviceClass::cpu ? 4096 : 16);
    if (device_class(info) == DeviceClass::cpu) {
        plan.group_size = 1;
        plan.contiguous_chunks = true;
        plan.unroll = static_cast<int>(tuned.get("reduction.unroll", 1, 16).value_or(8));
        return plan;
    }
    plan.device_fence_ptx = device_class(info) == DeviceClass::nvidia_gpu;
    const std::size_t largest = power_of_two_at_most(info.max_work_group_size);
    plan.group_size = power_of_two_at_most(
        std::min<std::size_t>(tuned.get("reduction.group_size", 32, 1024).value_or(256), largest));
    plan.unroll = static_cast<int>(tuned.get("reduction.unroll", 1, 16).value_or(4));
    plan.warp_shuffle = device_class(info) == DeviceClass::nvidia_gpu && traits.value_size % 4 == 0 && plan.group_size >= 32;
    if (traits.value_is_scalar && traits.vector_element_size > 0 && traits.vector_element_size <= 8)
        plan.vector_width = static_cast<int>(16 / traits.vector_element_size);
    // a map that reads one array at [i] (16-byte loads): up to two groups a compute unit of 16 items a work-item,
    // then up to 64 items a work-item before more groups. On an H200, sums of 2^24 int32 into an array took 20.2 µs
    // against 21.7 to 21.8 in more groups of 16, floats 22.2 to 22.3 against 22.8 to 22.9 (unchanged from 2^26 on).
    // Other maps keep the groups of 16 items: the conjugate gradient's stencils in doubles took 187 to 190 µs an
    // iteration against 155 to 160 at a 2048 x 2048 grid in the fewer groups (docs/architecture.md).
    if (plan.vector_width > 0) {
        plan.filling_groups = std::size_t(info.compute_units) * 2;
        plan.wide_items_per_work_item = std::max<std::size_t>(plan.items_per_work_item, 64);
    }
    return plan;
}

/// The reduction policies the autotuner tries on a device of this class.
inline std::vector<TunedValues> reduction_candidates(const DeviceInfo& info) {
    std::vector<TunedValues> candidates;
    const bool cpu = device_class(info) == DeviceClass::cpu;
    for (std::uint64_t group : cpu ? std::vector<std::uint64_t>{1} : std::vector<std::uint64_t>{128, 256, 512})
        for (std::uint64_t per_unit : cpu ? std::vector<std::uint64_t>{2, 4, 8, 16} : std::vector<std::uint64_t>{8, 16, 32})
            for (std::uint64_t unroll : {2, 4, 8}) {
                if (group > info.max_work_group_size) continue;
                TunedValues values;
                if (!cpu) values.set("reduction.group_size", group);
                values.set("reduction.groups_per_unit", per_unit);
                values.set("reduction.unroll", unroll);
                candidates.push_back(values);
            }
    return candidates;
}

}  // namespace clalgo::detail
