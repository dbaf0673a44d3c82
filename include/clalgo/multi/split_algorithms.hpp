// copy_if and the scan over an index range split across a DeviceSet: each device works on its share at once, and
// the shares are joined in device order (the kept items one after another; each share's scan carried in from the
// shares before it).
//   auto [kept, count] = clalgo::copy_if(devices, clalgo::range(0, n), "is_ok(i)");
//   clalgo::SplitScanKernel<long> cumsum(devices, "long *out, long start", "i % 7", "a + b", "0",
//                                        "out[i - start] = item");
//   clalgo::SplitArray<long> out(devices, n);
//   cumsum(clalgo::range(0, n), out, clalgo::share_start);     // each device writes its own part
#pragma once

#include <clalgo/algorithm/copy_if.hpp>
#include <clalgo/multi/device_set.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// The indices of `indices` (or options.value_expr of them) for which `predicate` holds, in order, each device
/// selecting from its share; the result lies in one array of the set's context, on the first device
/// (options.capacity, where given, bounds it and each device's share of it; the count is exact either way): the
/// other devices' kept items pass through the host, so that only they travel, not the devices' whole buffers.
/// With one queue: the single-device copy_if.
template <class Value = std::int64_t>
Selection<Value> copy_if(const DeviceSet& devices, const IndexRange& indices, const std::string& predicate,
                         const SelectionOptions& options = {}) {
    const Queue& first = devices.queue(0);
    if (devices.size() == 1) return copy_if<Value>(first, indices, predicate, options);
    const auto shares = devices.split(indices);
    std::vector<std::size_t> used;
    for (std::size_t d = 0; d < shares.size(); ++d)
        if (shares[d].size() > 0) used.push_back(d);
    // every device's selection and count, the counts read at once
    std::vector<Selection<Value>> parts(used.size());
    std::vector<ArrayView<std::int64_t>> count_arrays(used.size());
    std::vector<const Queue*> on(used.size());
    devices.enqueue_each(used.size(), [&](std::size_t k) {
        const Queue& queue = devices.queue(used[k]);
        parts[k] = copy_if<Value>(queue, shares[used[k]], predicate, options);
        count_arrays[k] = parts[k].count.device;
        on[k] = &queue;
        queue.flush();
    });
    const std::vector<std::int64_t> counts = devices.gather(count_arrays, on);
    auto on_first = [&](std::size_t k) { return on[k]->device()() == first.device()(); };
    std::int64_t total = 0;
    for (auto count : counts) total += count;
    const std::int64_t room = std::min(total, options.capacity.value_or(total));
    Selection<Value> result{Array<Value>(first, static_cast<std::size_t>(room), pooled),
                            DeviceCount{Array<std::int64_t>(first, 1, pooled), Event()}};
    // the first device's kept items are copied there; the others' (from the first share of another device on)
    // read to the host at once, then written after them in one piece
    std::vector<std::int64_t> lengths, offsets;
    std::int64_t offset = 0, host_begin = -1;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        lengths.push_back(std::max<std::int64_t>(0, std::min(counts[k], room - offset)));
        offsets.push_back(offset);
        if (lengths[k] > 0 && !on_first(k) && host_begin < 0) host_begin = offset;
        offset += lengths[k];
    }
    std::vector<Value> staged(host_begin < 0 ? 0 : std::size_t(room - host_begin));
    std::vector<cl::Event> reads;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (lengths[k] == 0) continue;
        const auto kept = parts[k].values.view(0, std::size_t(lengths[k]));
        if (on_first(k) && (host_begin < 0 || offsets[k] < host_begin)) {  // before the piece from the host
            kept.copy_to(first, result.values.view(std::size_t(offsets[k]), std::size_t(lengths[k])));
            continue;
        }
        try {
            reads.emplace_back();
            on[k]->get().enqueueReadBuffer(kept.buffer(), CL_FALSE, kept.offset() * sizeof(Value), kept.bytes(),
                                           staged.data() + (offsets[k] - host_begin), nullptr, &reads.back());
            on[k]->flush();
        } catch (const cl::Error& error) {
            reads.pop_back();
            detail::wait_all(reads, "reading the kept items of a multi-device copy_if");
            detail::rethrow(error, "reading the kept items of a multi-device copy_if");
        }
    }
    detail::wait_all(reads, "reading the kept items of a multi-device copy_if");
    if (!staged.empty()) result.values.view(std::size_t(host_begin), staged.size()).write(first, staged.data());
    // the count without a round trip (a fill takes its pattern at once); the shares' arrays go back to the pool
    // after the commands enqueued on their queues
    result.count.event = result.count.device.fill(first, total);
    return result;
}

/// GenericScanKernel's scan over an index range split across a DeviceSet: each device first scans its share for
/// its total, the totals are combined in order, then each device scans its share again from the combination of
/// the shares before it (its carry-in) and runs `output_statement`. In the expressions, i is the index in the
/// whole range; n is the count of the device's share. Segmented scans and last_item are not supported here. Each
/// share starts from the scan's native carry-in (GenericScanKernel::with_carry). Outputs are per device: a
/// SplitArray argument gives each device its part and clalgo::share_start each device its share's first index
/// (`out[i - start] = item`); a plain array the scan writes is refused where several devices run. The kernel
/// splits by the weights its DeviceSet has at each call: the set must outlive it.
template <class T>
class SplitScanKernel {
public:
    /// A scan over `devices` with the arguments and expressions of GenericScanKernel.
    SplitScanKernel(const DeviceSet& devices, const std::string& arguments, const std::string& input_expr,
                    const std::string& scan_expr, const std::string& neutral, const std::string& output_statement,
                    ScanOptions options = {})
        : devices_(&devices), name_(options.name), neutral_(neutral), scan_expr_(scan_expr),
          preamble_(options.preamble), build_options_(options.build_options),
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
        const auto shares = devices_->size() == 1 ? std::vector<IndexRange>{indices} : devices_->split(indices);
        std::vector<std::size_t> used;
        std::vector<IndexRange> runs;
        std::vector<std::int64_t> starts;
        for (std::size_t d = 0; d < shares.size(); ++d)
            if (shares[d].size() > 0) {
                used.push_back(d);
                runs.push_back(shares[d]);
                starts.push_back(shares[d].start);
            }
        scan_shares(used, runs, starts, arguments...);
    }

    /// Runs the scan on the set's devices `used[k]`, each over `runs[k]` with clalgo::share_start `starts[k]`
    /// (SplitArray arguments become each device's part): the totals of all but the last, their prefixes in order,
    /// then every share from its carry-in. Waits.
    template <class... Args>
    void scan_shares(const std::vector<std::size_t>& used, const std::vector<IndexRange>& runs,
                     const std::vector<std::int64_t>& starts, const Args&... arguments) const {
        detail::refuse_shared_writes("SplitScanKernel", name_, carried_.arguments(), used.size(), arguments...);
        std::vector<T> carries(used.size());
        if (used.size() > 1) {
            // the last share's total is never a carry: only the others are scanned for theirs, read at once
            std::vector<Array<T>> totals(used.size() - 1);
            std::vector<ArrayView<T>> values(totals.size());
            std::vector<const Queue*> on(totals.size());
            devices_->enqueue_each(totals.size(), [&](std::size_t k) {
                const Queue& queue = devices_->queue(used[k]);
                totals[k] = Array<T>(queue, 1, detail::pooled_in_queue_order);
                totals_.with_total(queue, totals[k], runs[k], detail::part_of(arguments, used[k], starts[k])...);
                values[k] = totals[k];
                on[k] = &queue;
                queue.flush();
            });
            const auto before = prefixes(devices_->gather(values, on));
            for (std::size_t k = 1; k < used.size(); ++k) carries[k] = before[k - 1];
        }
        std::vector<cl::Event> events(used.size());
        devices_->enqueue_each(used.size(), [&](std::size_t k) {
            events[k] = scan_from(used[k], runs[k], k > 0, carries[k], detail::part_of(arguments, used[k], starts[k])...);
            devices_->queue(used[k]).flush();
        });
        detail::wait_all(events, "waiting for the shares of a multi-device scan");
    }

    /// The total of the scan over `share` on the set's device `device` (the neutral element where it is empty),
    /// with the device's own arguments; waits.
    template <class... Args>
    T total(std::size_t device, const IndexRange& share, const Args&... arguments) const {
        const Queue& queue = devices_->queue(device);
        Array<T> total(queue, 1, detail::pooled_in_queue_order);
        Event done = totals_.with_total(queue, total, share, arguments...);
        return total.read_at(queue, 0, detail::wait_list_for(queue, done));
    }

    /// The scan over `share` on the set's device `device`, with the device's own arguments, from `carry` (the
    /// scan of what comes before) where `has_carry`: a scan with a carry-in. Returns the event.
    template <class... Args>
    Event scan_from(std::size_t device, const IndexRange& share, bool has_carry, const T& carry,
                    const Args&... arguments) const {
        const Queue& queue = devices_->queue(device);
        return has_carry ? carried_.with_carry(queue, carry, share, arguments...) : carried_(queue, share, arguments...);
    }

    /// The devices it splits across.
    const DeviceSet& devices() const noexcept { return *devices_; }
    /// The inclusive prefixes of `totals` (shares' totals, in order) by the scan's operator.
    std::vector<T> prefixes(const std::vector<T>& totals) const {
        return detail::prefixes_in_order(devices_->queue(0), totals, neutral_, scan_expr_, preamble_, build_options_);
    }

private:
    static ScanOptions named(ScanOptions options, const char* suffix) {
        options.name += suffix;
        return options;
    }

    const DeviceSet* devices_;  ///< the caller's, so that its weights are the ones in force
    std::string name_, neutral_, scan_expr_, preamble_, build_options_;
    GenericScanKernel<T> totals_;   ///< the share's total only
    GenericScanKernel<T> carried_;  ///< the user's scan, from each share's carry-in
};

}  // namespace clalgo
