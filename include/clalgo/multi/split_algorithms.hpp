// copy_if and the scan over an index range split across a DeviceSet: each device works on its share at once, and
// the shares are joined in device order (the kept items one after another; each share's scan carried in from the
// shares before it).
//   auto [kept, count] = clalgo::copy_if(devices, clalgo::range(0, n), "is_ok(i)");
//   clalgo::SplitScanKernel<long> cumsum(devices, "long *out", "i % 7", "a + b", "0", "out[i] = item");
//   cumsum(clalgo::range(0, n), out);
#pragma once

#include <clalgo/algorithm/copy_if.hpp>
#include <clalgo/multi/device_set.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

namespace detail {
inline void wait_all(const std::vector<cl::Event>& events, const std::string& what) {
    try {
        if (!events.empty()) cl::WaitForEvents(events);
    } catch (const cl::Error& error) {
        rethrow(error, what);
    }
}
}  // namespace detail

/// The indices of `indices` (or options.value_expr of them) for which `predicate` holds, in order, each device
/// selecting from its share; the result lies in one array of the set's context (options.capacity, where given,
/// bounds it and each device's share of it; the count is exact either way). With one queue: the single-device
/// copy_if.
template <class Value = std::int64_t>
Selection<Value> copy_if(const DeviceSet& devices, const IndexRange& indices, const std::string& predicate,
                         const SelectionOptions& options = {}) {
    const Queue& first = devices.queue(0);
    if (devices.size() == 1) return copy_if<Value>(first, indices, predicate, options);
    const auto shares = devices.split(indices);
    std::vector<Selection<Value>> parts;
    std::vector<std::size_t> used;
    for (std::size_t d = 0; d < shares.size(); ++d) {
        if (shares[d].size() == 0) continue;
        parts.push_back(copy_if<Value>(devices.queue(d), shares[d], predicate, options));
        devices.queue(d).flush();
        used.push_back(d);
    }
    // the counts, then each share's kept items at the sum of the counts before it
    std::vector<std::int64_t> counts;
    for (std::size_t k = 0; k < parts.size(); ++k) counts.push_back(parts[k].count.get(devices.queue(used[k])));
    std::int64_t total = 0;
    for (auto count : counts) total += count;
    const std::int64_t room = std::min(total, options.capacity.value_or(total));
    Selection<Value> result{Array<Value>(first, static_cast<std::size_t>(room), pooled),
                            DeviceCount{Array<std::int64_t>(first, 1, pooled), Event()}};
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < parts.size() && offset < room; ++k) {
        const std::int64_t length = std::min(counts[k], room - offset);
        if (length > 0)
            // on the first queue: one device writes the result (the counts' reads waited for every share)
            parts[k].values.view(0, std::size_t(length))
                .copy_to(first, result.values.view(std::size_t(offset), std::size_t(length)));
        offset += length;
    }
    try {
        first.finish();  // the shares' arrays are released on return
    } catch (const cl::Error& error) {
        detail::rethrow(error, "copying the shares of a multi-device copy_if");
    }
    result.count.device.write(first, &total);
    result.count.event = detail::marker(first, {});
    return result;
}

/// GenericScanKernel's scan over an index range split across a DeviceSet: each device first scans its share for
/// its total, the totals are combined in order on the first device, then each device scans its share again from
/// the combination of the shares before it (its carry-in) and runs `output_statement`. In the expressions, i is
/// the index in the whole range; n is the count of the device's share. Segmented scans and last_item are not
/// supported here. Each share starts from the scan's native carry-in (GenericScanKernel::with_carry).
template <class T>
class SplitScanKernel {
public:
    /// A scan over `devices` with the arguments and expressions of GenericScanKernel.
    SplitScanKernel(const DeviceSet& devices, const std::string& arguments, const std::string& input_expr,
                    const std::string& scan_expr, const std::string& neutral, const std::string& output_statement,
                    ScanOptions options = {})
        : devices_(devices), neutral_(neutral), scan_expr_(scan_expr), preamble_(options.preamble),
          build_options_(options.build_options),
          totals_(devices.context(), arguments, input_expr, scan_expr, neutral, "", named(options, "_totals")),
          carried_(devices.context(), arguments, input_expr, scan_expr, neutral, output_statement, options) {
        if (!detail::trim(options.is_segment_start_expr).empty())
            throw std::invalid_argument("clalgo::SplitScanKernel '" + options.name + "': segmented scans are not supported");
        if (detail::mentions(output_statement, "last_item"))
            throw std::invalid_argument("clalgo::SplitScanKernel '" + options.name +
                                        "': the output_statement uses last_item, which is not supported");
    }

    /// Scans over `indices`, split across the devices; waits until every share is written.
    template <class... Args>
    void operator()(const IndexRange& indices, const Args&... arguments) const {
        const auto shares = devices_.size() == 1 ? std::vector<IndexRange>{indices} : devices_.split(indices);
        std::vector<std::size_t> used;
        for (std::size_t d = 0; d < shares.size(); ++d)
            if (shares[d].size() > 0) used.push_back(d);
        std::vector<T> carries(used.size());
        if (used.size() > 1) {
            std::vector<Array<T>> totals;
            std::vector<Event> done;
            for (std::size_t d : used) {
                totals.emplace_back(devices_.queue(d), 1, pooled);
                done.push_back(totals_.with_total(devices_.queue(d), totals.back(), shares[d], arguments...));
                devices_.queue(d).flush();
            }
            std::vector<T> partials;
            for (std::size_t k = 0; k < used.size(); ++k) partials.push_back(totals[k].read_at(devices_.queue(used[k]), 0, detail::wait_list_for(devices_.queue(used[k]), done[k])));
            const auto prefixes = detail::prefixes_in_order(devices_.queue(0), partials, neutral_, scan_expr_, preamble_,
                                                            build_options_);
            for (std::size_t k = 1; k < used.size(); ++k) carries[k] = prefixes[k - 1];
        }
        std::vector<cl::Event> events;
        for (std::size_t k = 0; k < used.size(); ++k) {
            const IndexRange& share = shares[used[k]];
            events.push_back(scan_from(used[k], share, k > 0, carries[k], arguments...));
            devices_.queue(used[k]).flush();
        }
        detail::wait_all(events, "waiting for the shares of a multi-device scan");
    }

    /// The total of the scan over `share` on the set's device `device` (the neutral element where it is empty);
    /// waits.
    template <class... Args>
    T total(std::size_t device, const IndexRange& share, const Args&... arguments) const {
        const Queue& queue = devices_.queue(device);
        Array<T> total(queue, 1, pooled);
        Event done = totals_.with_total(queue, total, share, arguments...);
        return total.read_at(queue, 0, detail::wait_list_for(queue, done));
    }

    /// The scan over `share` on the set's device `device`, from `carry` (the scan of what comes before) where
    /// `has_carry`: a scan with a carry-in. Returns the event.
    template <class... Args>
    Event scan_from(std::size_t device, const IndexRange& share, bool has_carry, const T& carry,
                    const Args&... arguments) const {
        const Queue& queue = devices_.queue(device);
        return has_carry ? carried_.with_carry(queue, carry, share, arguments...) : carried_(queue, share, arguments...);
    }

    /// The devices it splits across.
    const DeviceSet& devices() const noexcept { return devices_; }
    /// The inclusive prefixes of `totals` (shares' totals, in order) by the scan's operator, on the first device.
    std::vector<T> prefixes(const std::vector<T>& totals) const {
        return detail::prefixes_in_order(devices_.queue(0), totals, neutral_, scan_expr_, preamble_, build_options_);
    }

private:
    static ScanOptions named(ScanOptions options, const char* suffix) {
        options.name += suffix;
        return options;
    }

    DeviceSet devices_;
    std::string neutral_, scan_expr_, preamble_, build_options_;
    GenericScanKernel<T> totals_;   ///< the share's total only
    GenericScanKernel<T> carried_;  ///< the user's scan, from each share's carry-in
};

}  // namespace clalgo
