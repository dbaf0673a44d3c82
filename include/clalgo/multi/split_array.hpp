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

/// An array in consecutive parts, part d on the set's device d (an array of the set's one context, placed on that
/// device).
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
        if (parts_.size() != sizes_.size())
            throw std::invalid_argument("clalgo::SplitArray: " + std::to_string(parts_.size()) + " parts but " +
                                        std::to_string(sizes_.size()) + " sizes");
        std::size_t offset = 0;
        for (std::size_t d = 0; d < sizes_.size(); ++d) {
            if (sizes_[d] > parts_[d].size() && sizes_[d] > 0)
                throw std::invalid_argument("clalgo::SplitArray: part " + std::to_string(d) + " of " +
                                            std::to_string(parts_[d].size()) + " elements cannot hold " +
                                            std::to_string(sizes_[d]));
            offsets_.push_back(offset);
            offset += sizes_[d];
        }
    }

    /// Part d of `sizes[d]` elements on the set's device d, uninitialised: arrays of each device's own, such as
    /// scratch of a size that does not follow the weights.
    static SplitArray with_part_sizes(const DeviceSet& devices, const std::vector<std::size_t>& sizes) {
        if (sizes.size() != devices.size())
            throw std::invalid_argument("clalgo::SplitArray::with_part_sizes: " + std::to_string(sizes.size()) +
                                        " sizes for a DeviceSet of " + std::to_string(devices.size()) + " devices");
        SplitArray array;
        for (std::size_t size : sizes) array.add_part(devices, size);
        return array;
    }

    /// How many elements in all.
    std::size_t size() const noexcept { return offsets_.empty() ? 0 : offsets_.back() + sizes_.back(); }
    /// How many parts (one per device).
    std::size_t parts() const noexcept { return parts_.size(); }
    /// Part d: the elements [offset(d), offset(d) + part(d).size()) of the whole.
    ArrayView<T> part(std::size_t d) const { return parts_.at(d).view(0, sizes_.at(d)); }
    /// Where part d starts in the whole.
    std::size_t offset(std::size_t d) const { return offsets_.at(d); }

    /// The whole array, gathered to the host from every device (the parts' reads enqueued at once).
    std::vector<T> to_host(const DeviceSet& devices) const {
        std::vector<T> host(size());
        std::vector<cl::Event> reads;
        for (std::size_t d = 0; d < parts_.size(); ++d) {
            if (sizes_[d] == 0) continue;
            try {
                reads.emplace_back();
                devices.queue(d).get().enqueueReadBuffer(parts_[d].buffer(), CL_FALSE, 0, sizes_[d] * sizeof(T),
                                                         host.data() + offsets_[d], nullptr, &reads.back());
                devices.queue(d).flush();
            } catch (const cl::Error& error) {
                reads.pop_back();
                detail::wait_all(reads, "reading a SplitArray back to the host");
                detail::rethrow(error, "reading a SplitArray back to the host");
            }
        }
        detail::wait_all(reads, "reading a SplitArray back to the host");
        return host;
    }

private:
    SplitArray() = default;

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
void check_parts(const A&, std::size_t, const char*) {}
template <class T>
void check_parts(const SplitArray<T>& argument, std::size_t parts, const char* call) {
    if (argument.parts() != parts)
        throw std::invalid_argument(std::string("clalgo::") + call + ": a SplitArray of " + std::to_string(argument.parts()) +
                                    " parts for a DeviceSet of " + std::to_string(parts) + " devices");
}

/// The part sizes and offsets of the first SplitArray among `arguments` (a call over SplitArrays needs one).
template <class... Args>
std::pair<std::vector<std::size_t>, std::vector<std::int64_t>> split_layout(const char* call, std::size_t devices,
                                                                            const Args&... arguments) {
    std::pair<std::vector<std::size_t>, std::vector<std::int64_t>> layout;
    bool found = false;
    auto one = [&](const auto& argument) {
        using U = std::decay_t<decltype(argument)>;
        if constexpr (IsSplitArray<U>::value) {
            if (!found)
                for (std::size_t d = 0; d < devices; ++d) {
                    layout.first.push_back(argument.part(d).size());
                    layout.second.push_back(std::int64_t(argument.offset(d)));
                }
            found = true;
        }
    };
    (one(arguments), ...);
    (void)one;
    if (!found)
        throw std::invalid_argument(std::string("clalgo::") + call +
                                    ": no SplitArray among the arguments (a call over a range takes the DeviceSet's "
                                    "method, such as devices.run(kernel, range, ...))");
    return layout;
}

}  // namespace detail

/// `kernel` on every device over its parts of the SplitArray arguments (other arguments are passed as they are,
/// clalgo::share_start as the part's offset in the whole), i over the first SplitArray's part; waits. A plain array
/// the kernel may write is refused where several devices run.
template <class... Args>
void map(const DeviceSet& devices, const ElementwiseKernel& kernel, const Args&... arguments) {
    (detail::check_parts(arguments, devices.size(), "map"), ...);
    // named references, not a structured binding: lambdas of C++17 may not capture those (clang refuses)
    const auto layout = detail::split_layout("map", devices.size(), arguments...);
    const std::vector<std::size_t>& sizes = layout.first;
    const std::vector<std::int64_t>& offsets = layout.second;
    std::vector<std::size_t> used;
    for (std::size_t d = 0; d < devices.size(); ++d)
        if (sizes[d] > 0) used.push_back(d);
    detail::refuse_shared_writes("map", kernel.options().name, kernel.arguments(), used.size(), arguments...);
    std::vector<cl::Event> events(used.size());
    devices.enqueue_each(used.size(), [&](std::size_t k) {
        const std::size_t d = used[k];
        events[k] = kernel(devices.queue(d), range(0, std::int64_t(sizes[d])), detail::part_of(arguments, d, offsets[d])...);
        devices.queue(d).flush();
    });
    detail::wait_all(events, "waiting for the parts of a multi-device map");
}

/// `kernel` on every device over its parts, the partials of the non-empty parts combined in device order with
/// the kernel's reduce_expr.
template <class T, class... Args>
T reduce(const DeviceSet& devices, const ReductionKernel<T>& kernel, const Args&... arguments) {
    (detail::check_parts(arguments, devices.size(), "reduce"), ...);
    const auto layout = detail::split_layout("reduce", devices.size(), arguments...);
    const std::vector<std::size_t>& sizes = layout.first;
    const std::vector<std::int64_t>& offsets = layout.second;
    std::vector<std::size_t> used;
    for (std::size_t d = 0; d < devices.size(); ++d)
        if (sizes[d] > 0) used.push_back(d);
    detail::refuse_shared_writes("reduce", kernel.options().name, kernel.arguments(), used.size(), arguments...);
    if (used.size() <= 1) {
        const std::size_t d = used.empty() ? 0 : used.front();
        return kernel(devices.queue(d), range(0, std::int64_t(sizes[d])), detail::part_of(arguments, d, offsets[d])...);
    }
    std::vector<DeviceResult<T>> results(used.size());
    std::vector<ArrayView<T>> values(used.size());
    std::vector<const Queue*> on(used.size());
    devices.enqueue_each(used.size(), [&](std::size_t k) {
        const std::size_t d = used[k];
        results[k] = kernel.async(devices.queue(d), range(0, std::int64_t(sizes[d])),
                                  detail::part_of(arguments, d, offsets[d])...);
        values[k] = results[k].value;
        on[k] = &devices.queue(d);
        devices.queue(d).flush();
    });
    const auto& options = kernel.options();
    return detail::combine_in_order(devices.queue(0), devices.gather(values, on), kernel.neutral(),
                                    kernel.reduce_expr(), options.preamble, options.build_options);
}

/// `kernel` (made on the same set) over the parts: each part's total, their prefixes in order, then each part
/// scanned from the parts before it. i is the index within the part (clalgo::share_start: the part's offset in
/// the whole); waits.
template <class T, class... Args>
void scan(const DeviceSet& devices, const SplitScanKernel<T>& kernel, const Args&... arguments) {
    (detail::check_parts(arguments, devices.size(), "scan"), ...);
    const auto layout = detail::split_layout("scan", devices.size(), arguments...);
    const std::vector<std::size_t>& sizes = layout.first;
    const std::vector<std::int64_t>& offsets = layout.second;
    std::vector<std::size_t> used;
    std::vector<IndexRange> runs;
    std::vector<std::int64_t> starts;
    for (std::size_t d = 0; d < devices.size(); ++d)
        if (sizes[d] > 0) {
            used.push_back(d);
            runs.push_back(range(0, std::int64_t(sizes[d])));
            starts.push_back(offsets[d]);
        }
    kernel.scan_shares(used, runs, starts, arguments...);
}

/// The elements of `input` for which `predicate` holds (over ary[i], i within the part), in order: a SplitArray
/// whose part d holds what device d kept of its part.
template <class T>
SplitArray<T> copy_if(const DeviceSet& devices, const SplitArray<T>& input, const std::string& predicate,
                      const SelectionOptions& options = {}) {
    detail::check_parts(input, devices.size(), "copy_if");
    std::vector<Selection<T>> kept(devices.size());
    std::vector<ArrayView<std::int64_t>> counts(devices.size());
    std::vector<const Queue*> on(devices.size());
    devices.enqueue_each(devices.size(), [&](std::size_t d) {
        kept[d] = copy_if(devices.queue(d), input.part(d), predicate, options);
        counts[d] = kept[d].count.device;
        on[d] = &devices.queue(d);
        devices.queue(d).flush();
    });
    const std::vector<std::int64_t> count = devices.gather(counts, on);
    std::vector<Array<T>> parts;
    std::vector<std::size_t> sizes;
    for (std::size_t d = 0; d < devices.size(); ++d) {
        sizes.push_back(std::size_t(std::min<std::int64_t>(count[d], std::int64_t(kept[d].values.size()))));
        parts.push_back(std::move(kept[d].values));
    }
    return SplitArray<T>(std::move(parts), std::move(sizes));
}

}  // namespace clalgo
