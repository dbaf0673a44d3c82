// SplitArray<T>: an array partitioned across the devices of a DeviceSet, one part per device, consecutive, with
// host copies in and out; and map, reduce, scan and copy_if over its parts, each device on its own part.
//   clalgo::SplitArray<float> x(devices, host_values);                 // parts in proportion to the weights
//   clalgo::map(devices, scale, x, 2.0f);                               // ElementwiseKernel on each part
//   float total = clalgo::reduce(devices, sum, x);                      // partials combined in order
//   clalgo::scan(devices, cumsum, x, y);                                // SplitScanKernel, carried across parts
//   clalgo::SplitArray<float> kept = clalgo::copy_if(devices, x, "ary[i] > 0");
// In the expressions, i is the index within a part (0 at each part's start) and n the part's size.
#pragma once

#include <clalgo/multi/split_algorithms.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// An array in consecutive parts, part d on the set's device d (an array of the set's one context).
template <class T>
class SplitArray {
public:
    /// `size` elements, split by the set's weights (uninitialised).
    SplitArray(const DeviceSet& devices, std::size_t size) {
        for (const auto& share : devices.split(range(0, std::int64_t(size)))) add_part(devices, std::size_t(share.size()));
    }

    /// A copy of `host`, split by the set's weights.
    SplitArray(const DeviceSet& devices, const std::vector<T>& host) : SplitArray(devices, host.size()) {
        for (std::size_t d = 0; d < parts_.size(); ++d)
            if (sizes_[d] > 0) parts_[d].view(0, sizes_[d]).write(devices.queue(d), host.data() + offsets_[d]);
    }

    /// Parts of the given sizes (empty parts allowed), for results whose parts the devices sized themselves.
    SplitArray(std::vector<Array<T>> parts, std::vector<std::size_t> sizes) : parts_(std::move(parts)), sizes_(std::move(sizes)) {
        std::size_t offset = 0;
        for (std::size_t size : sizes_) {
            offsets_.push_back(offset);
            offset += size;
        }
    }

    /// How many elements in all.
    std::size_t size() const noexcept { return offsets_.empty() ? 0 : offsets_.back() + sizes_.back(); }
    /// How many parts (one per device).
    std::size_t parts() const noexcept { return parts_.size(); }
    /// Part d: the elements [offset(d), offset(d) + part(d).size()) of the whole.
    ArrayView<T> part(std::size_t d) const { return parts_.at(d).view(0, sizes_.at(d)); }
    /// Where part d starts in the whole.
    std::size_t offset(std::size_t d) const { return offsets_.at(d); }

    /// The whole array, gathered to the host from every device.
    std::vector<T> to_host(const DeviceSet& devices) const {
        std::vector<T> host(size());
        for (std::size_t d = 0; d < parts_.size(); ++d)
            if (sizes_[d] > 0) part(d).read(devices.queue(d), host.data() + offsets_[d]);
        return host;
    }

private:
    void add_part(const DeviceSet& devices, std::size_t size) {
        offsets_.push_back(offsets_.empty() ? 0 : offsets_.back() + sizes_.back());
        parts_.emplace_back(devices.queue(parts_.size()), std::max<std::size_t>(size, 1));
        sizes_.push_back(size);
    }

    std::vector<Array<T>> parts_;
    std::vector<std::size_t> sizes_, offsets_;
};

namespace detail {

template <class A>
const A& part_of(const A& argument, std::size_t) {
    return argument;
}
template <class T>
ArrayView<T> part_of(const SplitArray<T>& argument, std::size_t d) {
    return argument.part(d);
}

template <class A>
void check_parts(const A&, std::size_t, const char*) {}
template <class T>
void check_parts(const SplitArray<T>& argument, std::size_t parts, const char* call) {
    if (argument.parts() != parts)
        throw std::invalid_argument(std::string("clalgo::") + call + ": a SplitArray of " + std::to_string(argument.parts()) +
                                    " parts for a DeviceSet of " + std::to_string(parts) + " devices");
}

template <class T, class... Rest>
std::size_t first_part_size(std::size_t d, const SplitArray<T>& first, const Rest&...);

/// The size of the first SplitArray's part d among the arguments (0 where there is none).
template <class First, class... Rest>
std::size_t first_part_size(std::size_t d, const First& first, const Rest&... rest) {
    if constexpr (sizeof...(Rest) == 0) {
        return 0;
    } else {
        return first_part_size(d, rest...);
    }
}
template <class T, class... Rest>
std::size_t first_part_size(std::size_t d, const SplitArray<T>& first, const Rest&...) {
    return first.part(d).size();
}

}  // namespace detail

/// `kernel` on every device over its parts of the SplitArray arguments (other arguments are passed as they are),
/// i over the first SplitArray's part; waits.
template <class... Args>
void map(const DeviceSet& devices, const ElementwiseKernel& kernel, const Args&... arguments) {
    (detail::check_parts(arguments, devices.size(), "map"), ...);
    std::vector<cl::Event> events;
    for (std::size_t d = 0; d < devices.size(); ++d) {
        if (detail::first_part_size(d, arguments...) == 0) continue;
        events.push_back(kernel(devices.queue(d), detail::part_of(arguments, d)...));
        devices.queue(d).flush();
    }
    detail::wait_all(events, "waiting for the parts of a multi-device map");
}

/// `kernel` on every device over its parts, the partials of the non-empty parts combined in device order with
/// the kernel's reduce_expr on the first device.
template <class T, class... Args>
T reduce(const DeviceSet& devices, const ReductionKernel<T>& kernel, const Args&... arguments) {
    (detail::check_parts(arguments, devices.size(), "reduce"), ...);
    std::vector<DeviceResult<T>> results;
    std::vector<std::size_t> used;
    for (std::size_t d = 0; d < devices.size(); ++d) {
        if (detail::first_part_size(d, arguments...) == 0) continue;
        results.push_back(kernel.async(devices.queue(d), detail::part_of(arguments, d)...));
        devices.queue(d).flush();
        used.push_back(d);
    }
    if (results.empty()) return kernel(devices.queue(0), range(0, 0), detail::part_of(arguments, 0)...);
    std::vector<T> partials;
    for (std::size_t k = 0; k < results.size(); ++k) partials.push_back(results[k].get(devices.queue(used[k])));
    const auto& options = kernel.options();
    return detail::combine_in_order(devices.queue(0), partials, kernel.neutral(), kernel.reduce_expr(),
                                    options.preamble, options.build_options);
}

/// `kernel` (made on the same set) over the parts: each part's total, their prefixes in order, then each part
/// scanned from the parts before it. i is the index within the part; waits.
template <class T, class... Args>
void scan(const DeviceSet& devices, const SplitScanKernel<T>& kernel, const Args&... arguments) {
    (detail::check_parts(arguments, devices.size(), "scan"), ...);
    std::vector<std::size_t> used;
    for (std::size_t d = 0; d < devices.size(); ++d)
        if (detail::first_part_size(d, arguments...) > 0) used.push_back(d);
    std::vector<T> totals;
    if (used.size() > 1)
        for (std::size_t d : used)
            totals.push_back(kernel.total(d, range(0, std::int64_t(detail::first_part_size(d, arguments...))),
                                          detail::part_of(arguments, d)...));
    const auto prefixes = used.size() > 1 ? kernel.prefixes(totals) : std::vector<T>{};
    std::vector<cl::Event> events;
    for (std::size_t k = 0; k < used.size(); ++k) {
        const std::size_t d = used[k];
        events.push_back(kernel.scan_from(d, range(0, std::int64_t(detail::first_part_size(d, arguments...))), k > 0,
                                          k > 0 ? prefixes[k - 1] : T{}, detail::part_of(arguments, d)...));
        devices.queue(d).flush();
    }
    detail::wait_all(events, "waiting for the parts of a multi-device scan");
}

/// The elements of `input` for which `predicate` holds (over ary[i], i within the part), in order: a SplitArray
/// whose part d holds what device d kept of its part.
template <class T>
SplitArray<T> copy_if(const DeviceSet& devices, const SplitArray<T>& input, const std::string& predicate,
                      const SelectionOptions& options = {}) {
    detail::check_parts(input, devices.size(), "copy_if");
    std::vector<Selection<T>> kept;
    for (std::size_t d = 0; d < devices.size(); ++d) {
        kept.push_back(copy_if(devices.queue(d), input.part(d), predicate, options));
        devices.queue(d).flush();
    }
    std::vector<Array<T>> parts;
    std::vector<std::size_t> sizes;
    for (std::size_t d = 0; d < devices.size(); ++d) {
        const std::int64_t count = kept[d].count.get(devices.queue(d));
        sizes.push_back(std::size_t(std::min<std::int64_t>(count, std::int64_t(kept[d].values.size()))));
        parts.push_back(std::move(kept[d].values));
    }
    return SplitArray<T>(std::move(parts), std::move(sizes));
}

}  // namespace clalgo
