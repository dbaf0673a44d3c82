// DeviceSet: one in-order queue per device of one context, and calls that split an index range across them in
// proportion to each device's weight, run the shares concurrently and combine the results in device order.
//   auto devices = clalgo::DeviceSet::from_environment();     // CLALGO_DEVICE="0:0,0:1", or the default device
//   auto halves = clalgo::DeviceSet::sub_devices(device, 2);  // a device split into 2 (clCreateSubDevices)
//   std::int64_t s = devices.reduce(sum, clalgo::range(0, n)); // a ReductionKernel over the range, split
//   devices.run(mark, clalgo::range(0, n), marks, clalgo::share_start);  // marks: a SplitArray; waits
//   devices.each(clalgo::range(0, n), [&](std::size_t d, const clalgo::Queue& q, clalgo::IndexRange share) {...});
// Kernels are made once on devices.context(), which builds them for every device of the set. Each device works on
// memory of its own (multi/per_device.hpp): a plain array that several devices would write is refused.
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/kernels/elementwise.hpp>
#include <clalgo/kernels/reduction.hpp>
#include <clalgo/kernels/scan.hpp>
#include <clalgo/multi/per_device.hpp>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo {

namespace detail {

/// The shares of `indices` for the weights: consecutive, in order, together the whole range; a weight of 0 gets
/// an empty share. Weights are rounded to multiples of 2^-20 of the total and boundaries computed exactly in
/// 64-bit integers, so shares differ from those proportions by less than one index.
inline std::vector<IndexRange> split_range(const IndexRange& indices, const std::vector<double>& weights) {
    const std::int64_t n = indices.size();
    if (weights.empty()) throw std::invalid_argument("clalgo: splitting a range needs at least one weight");
    double total = 0;
    for (double weight : weights) {
        if (!(weight >= 0)) throw std::invalid_argument("clalgo: a device weight must be 0 or more");
        total += weight;
    }
    if (!(total > 0)) throw std::invalid_argument("clalgo: the device weights must not all be 0");
    // weights as integers out of 2^20, so that boundaries are exact integer products
    const std::uint64_t scale = std::uint64_t(1) << 20;
    std::vector<std::uint64_t> fixed;
    std::uint64_t fixed_total = 0;
    for (double weight : weights) fixed_total += fixed.emplace_back(std::uint64_t(weight / total * double(scale)));
    if (fixed_total == 0) fixed_total = fixed.back() = 1;
    std::vector<IndexRange> shares;
    // n * cumulative / fixed_total without overflow: cumulative <= fixed_total < 2^20 + the count of weights
    const std::uint64_t whole = std::uint64_t(n) / fixed_total, rest = std::uint64_t(n) % fixed_total;
    std::uint64_t cumulative = 0;
    std::int64_t begin = 0;
    for (std::size_t d = 0; d < weights.size(); ++d) {
        cumulative += fixed[d];
        const std::int64_t end = d + 1 == weights.size()
                                     ? n
                                     : std::int64_t(whole * cumulative + rest * cumulative / fixed_total);
        // start + k * step stays within 64 bits for k <= n: the range's own stop bounds it (unsigned wrap is exact)
        auto at = [&](std::int64_t k) {
            return std::int64_t(std::uint64_t(indices.start) + std::uint64_t(k) * std::uint64_t(indices.step));
        };
        shares.push_back(IndexRange{at(begin), end == n ? indices.stop : at(end), indices.step});
        if (end == begin) shares.back().stop = shares.back().start;
        begin = end;
    }
    return shares;
}

/// The operators whose combination of a few partials the host does itself, exactly as the device would: a sum,
/// a minimum or a maximum of an arithmetic type, written in one of their plain forms ("a + b", "max(a, b)").
enum class HostOperator { none, sum, min, max };

template <class T>
HostOperator host_operator(const std::string& expression) {
    if constexpr (!std::is_arithmetic_v<T> || std::is_same_v<T, bool>) {
        return HostOperator::none;
    } else {
        std::string plain;
        for (char c : expression)
            if (!std::isspace(static_cast<unsigned char>(c))) plain += c;
        if (plain == "a+b" || plain == "b+a") return HostOperator::sum;
        for (const char* name : {"min", "fmin"})
            if (plain == std::string(name) + "(a,b)" || plain == std::string(name) + "(b,a)") return HostOperator::min;
        for (const char* name : {"max", "fmax"})
            if (plain == std::string(name) + "(a,b)" || plain == std::string(name) + "(b,a)") return HostOperator::max;
        return HostOperator::none;
    }
}

/// a combined with b by `op` (not none) as OpenCL C does it: integers wrap.
template <class T>
T host_combine(HostOperator op, const T& a, const T& b) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        switch (op) {
            case HostOperator::sum:
                if constexpr (std::is_integral_v<T>)
                    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
                else
                    return a + b;
            case HostOperator::min: return b < a ? b : a;
            case HostOperator::max: return a < b ? b : a;
            case HostOperator::none: break;
        }
    }
    return a;
}

/// The inclusive prefixes of `partials` combined left to right with `scan_expr` (over a and b): on the host for
/// the plain sums, minima and maxima of arithmetic types (host_operator), else by clalgo's scan on `queue`'s
/// device, so that an associative operator need not be commutative. The scan is kept with the context by its
/// expressions, so a second call builds nothing.
template <class T>
std::vector<T> prefixes_in_order(const Queue& queue, const std::vector<T>& partials, const std::string& neutral,
                                 const std::string& scan_expr, const std::string& preamble,
                                 const std::string& build_options) {
    if (partials.size() <= 1) return partials;
    if (const HostOperator op = host_operator<T>(scan_expr); op != HostOperator::none) {
        std::vector<T> prefixes{partials.front()};
        for (std::size_t k = 1; k < partials.size(); ++k) prefixes.push_back(host_combine(op, prefixes.back(), partials[k]));
        return prefixes;
    }
    const std::string type = type_name<T>();
    const auto& scan = cached_kernel<GenericScanKernel<T>>(
        queue.context(), "prefixes in order\n" + type + "\n" + neutral + "\n" + scan_expr + "\n" + preamble + "\n" + build_options,
        [&] {
            ScanOptions options;
            options.name = "prefixes_in_order";
            options.preamble = preamble;
            options.build_options = build_options;
            return std::make_shared<GenericScanKernel<T>>(queue.context(), "const " + type + " *partials, " + type +
                                                          " *prefixes", "partials[i]", scan_expr, neutral,
                                                          "prefixes[i] = item", options);
        });
    Array<T> values(queue, partials.size(), pooled);
    values.write(queue, partials);
    Event done = scan(queue, values, values);
    return values.to_host(queue, detail::wait_list_for(queue, done));
}

/// `partials` (at least one) combined left to right with `scan_expr`; see prefixes_in_order.
template <class T>
T combine_in_order(const Queue& queue, const std::vector<T>& partials, const std::string& neutral,
                   const std::string& scan_expr, const std::string& preamble, const std::string& build_options) {
    return prefixes_in_order(queue, partials, neutral, scan_expr, preamble, build_options).back();
}

/// Waits for every event; an error names `what`.
inline void wait_all(const std::vector<cl::Event>& events, const std::string& what) {
    try {
        if (!events.empty()) cl::WaitForEvents(events);
    } catch (const cl::Error& error) {
        rethrow(error, what);
    }
}

/// Pinned host memory a DeviceSet reads its devices' results into: one mapped CL_MEM_ALLOC_HOST_PTR buffer,
/// grown as needed, shared by the set's copies; `mutex` is held from the reads' enqueueing to the copy out.
struct GatherStaging {
    std::mutex mutex;
    cl::CommandQueue queue;  ///< where it was mapped, and is unmapped
    cl::Buffer buffer;
    void* host = nullptr;
    std::size_t bytes = 0;

    GatherStaging() = default;
    GatherStaging(const GatherStaging&) = delete;
    GatherStaging& operator=(const GatherStaging&) = delete;
    ~GatherStaging() { release(); }

    /// At least `wanted` bytes of pinned memory, mapped; under the mutex.
    unsigned char* reserve(const Queue& on, std::size_t wanted) {
        if (bytes < wanted) {
            release();
            const std::size_t size = std::max<std::size_t>(wanted, 4096);
            try {
                buffer = cl::Buffer(on.context().get(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, size);
                queue = on.get();
                host = queue.enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size);
            } catch (const cl::Error& error) {
                buffer = cl::Buffer();
                rethrow(error, "mapping pinned host memory for the results of a multi-device call");
            }
            bytes = size;
        }
        return static_cast<unsigned char*>(host);
    }

    void release() noexcept {
        if (host != nullptr) {
            try {
                cl::Event unmapped;
                queue.enqueueUnmapMemObject(buffer, host, nullptr, &unmapped);
                unmapped.wait();
            } catch (...) {
            }
        }
        host = nullptr;
        buffer = cl::Buffer();
        bytes = 0;
    }
};

}  // namespace detail

/// A set of in-order queues, one per device share, all on one context; see the header's first lines.
class DeviceSet {
public:
    /// One queue on each device of `context`.
    explicit DeviceSet(const Context& context) : context_(context) {
        for (const auto& device : context.devices()) queues_.emplace_back(context, device);
        default_weights();
    }

    /// The given queues, in this order (the order of the shares and of the combination); all on one context. A
    /// device may appear twice: two queues on one device.
    explicit DeviceSet(std::vector<Queue> queues) : context_(first(queues).context()), queues_(std::move(queues)) {
        for (const auto& queue : queues_)
            if (queue.context() != context_)
                throw std::invalid_argument("clalgo::DeviceSet: every queue must be on the same context");
        default_weights();
    }

    /// `parts` sub-devices of `parent` of equal compute units (clCreateSubDevices, CL_DEVICE_PARTITION_EQUALLY),
    /// with a context over them.
    static DeviceSet sub_devices(const cl::Device& parent, unsigned parts) {
        const unsigned units = parent.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
        if (parts == 0 || parts > units)
            throw std::invalid_argument("clalgo::DeviceSet::sub_devices: cannot split a device of " +
                                        std::to_string(units) + " compute units into " + std::to_string(parts));
        const cl_device_partition_property properties[] = {CL_DEVICE_PARTITION_EQUALLY, cl_device_partition_property(units / parts), 0};
        std::vector<cl::Device> devices;
        try {
            cl::Device(parent).createSubDevices(properties, &devices);
        } catch (const cl::Error& error) {
            detail::rethrow(error, "splitting '" + parent.getInfo<CL_DEVICE_NAME>() + "' into sub-devices");
        }
        devices.resize(std::min<std::size_t>(devices.size(), parts));
        Context context{cl::Context(devices)};
        // PoCL 3.1 makes a context over two sub-devices of its CPU that reports one device
        if (context.devices().size() != devices.size())
            throw Error("clalgo::DeviceSet::sub_devices: the platform's context over " + std::to_string(devices.size()) +
                        " sub-devices of '" + parent.getInfo<CL_DEVICE_NAME>() + "' holds " +
                        std::to_string(context.devices().size()) + " devices; use two queues on the device instead");
        return DeviceSet(context);
    }

    /// The devices a list of "platform[:device]" specs names, separated by commas (CLALGO_DEVICE's form); a
    /// device named twice gets two queues. All must be on one platform.
    static DeviceSet from_spec(const std::string& specs) {
        std::vector<cl::Device> named, distinct;
        std::size_t begin = 0;
        while (begin <= specs.size()) {
            const std::size_t comma = std::min(specs.find(',', begin), specs.size());
            named.push_back(detail::select_device(specs.substr(begin, comma - begin)));
            begin = comma + 1;
        }
        for (const auto& device : named)
            if (std::none_of(distinct.begin(), distinct.end(), [&](const cl::Device& d) { return d() == device(); }))
                distinct.push_back(device);
        cl::Context shared;
        try {
            shared = cl::Context(distinct);
        } catch (const cl::Error& error) {
            detail::rethrow(error, "creating one context over the devices of \"" + specs + "\" (they must be of one platform)");
        }
        Context context{shared};
        std::vector<Queue> queues;
        for (const auto& device : named) queues.emplace_back(context, device);
        return DeviceSet(std::move(queues));
    }

    /// The devices CLALGO_DEVICE names (several separated by commas), else the default device alone.
    static DeviceSet from_environment() {
        if (auto spec = detail::environment("CLALGO_DEVICE"); spec && spec->find(',') != std::string::npos)
            return from_spec(*spec);
        return DeviceSet(std::vector<Queue>{Queue(Context::default_context())});
    }

    /// The context of every queue.
    const Context& context() const noexcept { return context_; }
    /// How many queues.
    std::size_t size() const noexcept { return queues_.size(); }
    /// Queue `index`.
    const Queue& queue(std::size_t index) const { return queues_.at(index); }
    /// The queues.
    const std::vector<Queue>& queues() const noexcept { return queues_; }

    /// Each queue's share of the work, relative to the others (compute units until set or calibrated).
    const std::vector<double>& weights() const noexcept { return weights_; }
    /// Sets each queue's share (one positive weight per queue).
    void set_weights(std::vector<double> weights) {
        if (weights.size() != queues_.size())
            throw std::invalid_argument("clalgo::DeviceSet::set_weights: " + std::to_string(weights.size()) +
                                        " weights for " + std::to_string(queues_.size()) + " queues");
        detail::split_range(IndexRange{0, 0, 1}, weights);  // checks them
        weights_ = std::move(weights);
    }

    /// Sets the weights to the measured speed: `work(queue, range)` (which must wait for what it runs) is run on
    /// each device over `sample` indices, once to build and warm up, then timed.
    template <class Work>
    void calibrate(const Work& work, std::int64_t sample) {
        std::vector<double> speeds;
        for (const auto& queue : queues_) {
            work(queue, range(0, sample));
            const auto begin = std::chrono::steady_clock::now();
            work(queue, range(0, sample));
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            speeds.push_back(double(sample) / std::max(seconds, 1e-9));
        }
        set_weights(std::move(speeds));
    }

    /// The consecutive shares of `indices`, one per queue, in proportion to the weights.
    std::vector<IndexRange> split(const IndexRange& indices) const { return detail::split_range(indices, weights_); }

    /// `kernel` over `indices`, split across the devices and run concurrently; the partial results are combined
    /// in device order with the kernel's reduce_expr, so the order of the items is kept across devices. A
    /// SplitArray argument gives each device its part, clalgo::share_start each device its share's first index.
    /// With one queue: exactly kernel(queue, indices, arguments...).
    template <class T, class... Args>
    T reduce(const ReductionKernel<T>& kernel, const IndexRange& indices, const Args&... arguments) const {
        const auto shares = split(indices);
        const std::vector<std::size_t> used = running(shares);
        detail::refuse_shared_writes("DeviceSet::reduce", kernel.options().name, kernel.arguments(), used.size(),
                                     arguments...);
        if (used.size() <= 1) {
            const std::size_t d = used.empty() ? 0 : used.front();
            return kernel(queues_[d], shares[d], detail::part_of(arguments, d, shares[d].start)...);
        }
        std::vector<DeviceResult<T>> results(used.size());
        std::vector<ArrayView<T>> values(used.size());
        std::vector<const Queue*> on(used.size());
        enqueue_each(used.size(), [&](std::size_t k) {
            const std::size_t d = used[k];
            results[k] = kernel.async(queues_[d], shares[d], detail::part_of(arguments, d, shares[d].start)...);
            values[k] = results[k].value;
            on[k] = &queues_[d];
            queues_[d].flush();
        });
        const auto& options = kernel.options();
        return detail::combine_in_order(queues_.front(), gather(values, on), kernel.neutral(), kernel.reduce_expr(),
                                        options.preamble, options.build_options);
    }

    /// `kernel` over `indices`, split across the devices and run concurrently; waits for every share. A
    /// SplitArray argument gives each device its part, clalgo::share_start each device its share's first index;
    /// a plain array the kernel may write is refused where several devices run (see multi/per_device.hpp).
    template <class... Args>
    void run(const ElementwiseKernel& kernel, const IndexRange& indices, const Args&... arguments) const {
        const auto shares = split(indices);
        const std::vector<std::size_t> used = running(shares);
        detail::refuse_shared_writes("DeviceSet::run", kernel.options().name, kernel.arguments(), used.size(),
                                     arguments...);
        std::vector<cl::Event> events(used.size());
        enqueue_each(used.size(), [&](std::size_t k) {
            const std::size_t d = used[k];
            events[k] = kernel(queues_[d], shares[d], detail::part_of(arguments, d, shares[d].start)...);
            queues_[d].flush();
        });
        detail::wait_all(events, "waiting for the shares of a multi-device call");
    }

    /// Calls `work(d, queue, share)` for each device d whose share of `indices` is not empty, in device order,
    /// flushing each queue after its call, then waits until every queue has run what it was given. The devices
    /// work at once where `work` only enqueues: a blocking call in it (a result read back) makes the next device
    /// wait for this one, so read results after `each` returns (SplitArray::to_host reads every part at once).
    template <class Work>
    void each(const IndexRange& indices, const Work& work) const {
        const auto shares = split(indices);
        const std::vector<std::size_t> used = running(shares);
        std::vector<cl::Event> done(used.size());
        std::exception_ptr failed;
        try {
            enqueue_each(used.size(), [&](std::size_t k) {
                const std::size_t d = used[k];
                work(d, queues_[d], shares[d]);
                try {
                    queues_[d].get().enqueueMarkerWithWaitList(nullptr, &done[k]);
                    queues_[d].flush();
                } catch (const cl::Error& error) {
                    detail::rethrow(error, "waiting for the shares of DeviceSet::each");
                }
            });
        } catch (...) {
            failed = std::current_exception();
        }
        std::vector<cl::Event> made;
        for (const auto& event : done)
            if (event()) made.push_back(event);
        detail::wait_all(made, "waiting for the shares of DeviceSet::each");
        if (failed) std::rethrow_exception(failed);
    }

    /// Runs `enqueue(k)` for every k in [0, count), in turn: each device's commands of a multi-device call. (Host
    /// threads, one a device, were slower on NVIDIA's OpenCL: see docs/architecture.md's design notes.)
    void enqueue_each(std::size_t count, const std::function<void(std::size_t)>& enqueue) const {
        for (std::size_t k = 0; k < count; ++k) enqueue(k);
    }

    /// The first element of each of `values`, value k read on `*queues[k]` after the work enqueued there before
    /// (the queues are in order): every read is enqueued before any is waited for, into pinned host memory (a
    /// mapped CL_MEM_ALLOC_HOST_PTR buffer, which the driver copies into directly), so that the devices finish
    /// their work at once and the host waits once.
    template <class T>
    std::vector<T> gather(const std::vector<ArrayView<T>>& values, const std::vector<const Queue*>& queues) const {
        static_assert(std::is_trivially_copyable_v<T>, "results travel as bytes");
        std::vector<T> host(values.size());
        std::lock_guard<std::mutex> lock(staging_->mutex);
        const std::size_t slot = (sizeof(T) + 63) / 64 * 64;
        unsigned char* staged = staging_->reserve(queues_.front(), slot * values.size());
        std::vector<cl::Event> reads;
        try {
            for (std::size_t k = 0; k < values.size(); ++k) {
                reads.emplace_back();
                queues[k]->get().enqueueReadBuffer(values[k].buffer(), CL_FALSE, values[k].offset() * sizeof(T),
                                                   sizeof(T), staged + k * slot, nullptr, &reads.back());
                queues[k]->flush();
            }
        } catch (const cl::Error& error) {
            reads.pop_back();
            try {
                if (!reads.empty()) cl::WaitForEvents(reads);  // the memory must outlive the reads enqueued
            } catch (const cl::Error&) {
            }
            detail::rethrow(error, "reading the results of a multi-device call");
        }
        detail::wait_all(reads, "reading the results of a multi-device call");
        for (std::size_t k = 0; k < values.size(); ++k) std::memcpy(&host[k], staged + k * slot, sizeof(T));
        return host;
    }

private:
    static const Queue& first(const std::vector<Queue>& queues) {
        if (queues.empty()) throw std::invalid_argument("clalgo::DeviceSet: no queue given");
        return queues.front();
    }

    /// The devices whose share is not empty, in order.
    static std::vector<std::size_t> running(const std::vector<IndexRange>& shares) {
        std::vector<std::size_t> used;
        for (std::size_t d = 0; d < shares.size(); ++d)
            if (shares[d].size() > 0) used.push_back(d);
        return used;
    }

    void default_weights() {
        weights_.clear();
        for (const auto& queue : queues_) weights_.push_back(double(queue.info().compute_units));
    }

    Context context_;
    std::vector<Queue> queues_;
    std::vector<double> weights_;
    std::shared_ptr<detail::GatherStaging> staging_ = std::make_shared<detail::GatherStaging>();  ///< for gather
};

}  // namespace clalgo
