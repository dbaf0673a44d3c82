// A device memory pool, one per context: the arrays and scratch clalgo allocates itself (algorithm results,
// temporaries, kernel scratch) and arrays made with clalgo::pooled are drawn from it and go back to it, so that
// repeated calls reuse buffers instead of allocating. On by default; CLALGO_POOL=0 turns it off, and
// CLALGO_POOL_LIMIT_MB caps the bytes it keeps for reuse.
//   clalgo::Array<float> x(q, n, clalgo::pooled);            // from the pool of q's context
//   auto& pool = clalgo::MemoryPool::of(ctx);
//   pool.statistics().hits;  pool.set_limit_bytes(64 << 20);  pool.free_all();
// The reuse rule: a buffer is handed out again only once nothing but the pool holds it (no view, no copy of its
// handle) and the work enqueued before its return on the queue it was drawn for has completed (a marker proves
// it), or, for clalgo's own results and temporaries (drawn in queue order), to a later draw for that same queue,
// whose commands the in-order queue runs after that work. In a context of several devices a buffer is reused only
// for work on the device it was drawn for, so that no device is handed memory that lives on another. Where the
// device refuses an allocation, or a command (drivers that place a buffer at its first use refuse there), the
// cached buffers are released and it is tried once more.
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/device_memory.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/queue.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace clalgo {

/// What a MemoryPool holds and how often it could reuse a buffer.
struct MemoryPoolStatistics {
    std::size_t bytes_in_use = 0;    ///< drawn and not yet given back, counted by size class
    std::size_t bytes_cached = 0;    ///< given back and kept for reuse (never more than the limit)
    /// Buffers drawn and not given back.
    std::size_t buffers_in_use = 0;
    /// Buffers given back and kept for reuse.
    std::size_t buffers_cached = 0;
    std::uint64_t hits = 0;          ///< allocations served by a cached buffer
    std::uint64_t misses = 0;        ///< allocations that made a new buffer
};

class MemoryPool;

namespace detail {

/// A buffer drawn from a MemoryPool (or, with the pool off, a plain buffer), given back when this is destroyed or
/// reset: a marker is enqueued on the queue it was drawn for, and the pool reuses the buffer once the marker has
/// completed. Move-only.
class PooledBuffer {
public:
    PooledBuffer() = default;
    PooledBuffer(std::weak_ptr<MemoryPool> pool, cl::Buffer buffer, std::size_t bytes, cl::CommandQueue queue,
                 cl_device_id device, bool in_queue_order)
        : pool_(std::move(pool)), buffer_(std::move(buffer)), bytes_(bytes), queue_(std::move(queue)),
          device_(device), in_queue_order_(in_queue_order) {}
    PooledBuffer(const PooledBuffer&) = delete;
    PooledBuffer& operator=(const PooledBuffer&) = delete;
    PooledBuffer(PooledBuffer&& other) noexcept { take(other); }
    PooledBuffer& operator=(PooledBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    ~PooledBuffer() { reset(); }

    const cl::Buffer& buffer() const noexcept { return buffer_; }
    /// The bytes the buffer holds: its size class, at least what was asked for.
    std::size_t bytes() const noexcept { return bytes_; }
    /// Whether the buffer goes back to a pool (false where the pool was off when it was drawn).
    bool pooled() const noexcept { return queue_() != nullptr; }

    /// Gives the buffer back (or releases it, with the pool off or gone); this then holds nothing.
    void reset() noexcept;

private:
    void take(PooledBuffer& other) noexcept {
        pool_ = std::move(other.pool_);
        buffer_ = std::move(other.buffer_);
        queue_ = std::move(other.queue_);
        bytes_ = other.bytes_;
        device_ = other.device_;
        in_queue_order_ = other.in_queue_order_;
        other.pool_.reset();
        other.buffer_ = cl::Buffer();
        other.queue_ = cl::CommandQueue();
        other.bytes_ = 0;
    }

    std::weak_ptr<MemoryPool> pool_;
    cl::Buffer buffer_;
    std::size_t bytes_ = 0;
    cl::CommandQueue queue_;
    cl_device_id device_ = nullptr;  ///< the device it was drawn for: reused only for work there
    bool in_queue_order_ = false;    ///< goes back without a marker: reused at once by draws for its queue
};

/// In a context of several devices, places a new buffer's memory on `queue`'s device (its contents undefined):
/// OpenCL leaves a buffer's place open until a device uses it, and a runtime may put it on another device first
/// and move it at the first use. Does nothing in a context of one device.
inline void place_on_device(const Queue& queue, const cl::Buffer& buffer) {
    if (queue.context().devices().size() < 2 || buffer() == nullptr) return;
    const cl_mem memory = buffer();
    const cl_int status = clEnqueueMigrateMemObjects(queue.get()(), 1, &memory,
                                                     CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, nullptr, nullptr);
    if (status != CL_SUCCESS) rethrow(cl::Error(status, "clEnqueueMigrateMemObjects"), "placing a new array on its device");
}

/// What `pool` holds, its cached buffers released first where `release` is set (for allocate_device_memory).
inline PoolHoldings holdings_of(MemoryPool& pool, bool release);

}  // namespace detail

/// The device memory pool of a context (take it with MemoryPool::of). Buffers are kept by size class: powers of
/// two from 256 bytes to 1 MiB, then steps of a quarter of the power of two below (at most 25 % more than asked).
/// A buffer is reused only once nothing but the pool holds it and the work enqueued on the queue it was drawn for,
/// before it came back, has completed (a marker enqueued on that queue proves it) or, where it was drawn in queue
/// order (clalgo's own results and temporaries), by a later draw in queue order for the same queue. Cached bytes
/// never exceed the limit: the oldest cached buffers are released first. Thread-safe.
class MemoryPool : public std::enable_shared_from_this<MemoryPool> {
public:
    /// The smallest size class, in bytes: smaller requests get a buffer of this size.
    static constexpr std::size_t smallest_class = 256;

    /// The pool of `context`, configured on first use from CLALGO_POOL (on unless 0/off/false/no) and
    /// CLALGO_POOL_LIMIT_MB (default: a quarter of the global memory of the context's smallest device). The
    /// reference is valid while a handle of the context lives.
    static MemoryPool& of(const Context& context) {
        auto& pool = context.state().attachment<MemoryPool>();
        pool.configure(context);
        return pool;
    }

    /// The bytes a buffer of `bytes` is rounded up to.
    static std::size_t size_class(std::size_t bytes) noexcept {
        if (bytes <= smallest_class) return smallest_class;
        std::size_t power = smallest_class;
        while (power < bytes && power < (std::size_t(1) << 20)) power *= 2;
        if (power >= bytes) return power;
        std::size_t below = std::size_t(1) << 20;
        while (below <= bytes / 2) below *= 2;  // the largest power of two not above bytes
        const std::size_t step = below / 4;
        if (bytes > std::numeric_limits<std::size_t>::max() - step) return bytes;
        return (bytes + step - 1) / step * step;
    }

    /// A buffer of at least `bytes` for work on `queue` (whose context must be this pool's): a cached one of the
    /// same size class where one is free, else a new one. With the pool off, a plain buffer of `bytes`.
    /// Throws DeviceMemoryError where the device cannot hold it even after the cached buffers are released.
    /// `in_queue_order` (for clalgo's own draws, whose first use is a command on `queue`): a buffer that went back
    /// from `queue` in queue order is free at once, and this one goes back the same way, without a marker.
    detail::PooledBuffer allocate(const Queue& queue, std::size_t bytes, bool in_queue_order = false) {
        if (queue.context().get()() != context_)
            throw std::invalid_argument("clalgo: MemoryPool::allocate: the queue belongs to another context than the "
                                        "pool's (take the pool with MemoryPool::of(queue.context()))");
        std::size_t wanted = size_class(bytes);
        if (wanted > largest_allocation_) wanted = bytes;  // a class of its own rather than a buffer the device refuses
        bool on = true;
        std::vector<cl::CommandQueue> to_mark;  // queues whose buffers back in queue order lack their marker
        std::uint64_t marked_before = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            on = enabled_;
            marked_before = next_age_;
            auto found = on ? cached_.find(Key{queue.device()(), wanted}) : cached_.end();
            if (found != cached_.end()) {
                auto& entries = found->second;
                // oldest first: a buffer back longer ago is likelier to be free (a driver holds a buffer while
                // commands that use it are queued, so that the newest are often busy and each costs a query)
                for (auto it = entries.begin(); it != entries.end(); ++it) {
                    bool needs_marker = false;
                    if (!ready(*it, in_queue_order ? queue.get()() : nullptr, needs_marker)) {
                        if (needs_marker && std::none_of(to_mark.begin(), to_mark.end(), [&](const cl::CommandQueue& q) {
                                return q() == it->queue();
                            }))
                            to_mark.push_back(it->queue);
                        continue;
                    }
                    cl::Buffer buffer = std::move(it->buffer);
                    // the entry's handle of this same queue, where it has one: no retain and release of the queue
                    cl::CommandQueue drawn_for = it->queue() == queue.get()() ? std::move(it->queue) : queue.get();
                    // an emptied class is kept: the buffer's return would make it again (a map node and the
                    // deque's blocks), and a call's host cost counts at small sizes
                    entries.erase(it);
                    statistics_.bytes_cached -= wanted;
                    statistics_.buffers_cached -= 1;
                    statistics_.bytes_in_use += wanted;
                    statistics_.buffers_in_use += 1;
                    statistics_.hits += 1;
                    return detail::PooledBuffer(weak_from_this(), std::move(buffer), wanted, std::move(drawn_for),
                                                queue.device()(), in_queue_order);
                }
            }
        }
        mark(to_mark, marked_before);  // for a later draw: this one does not wait
        if (!on) return detail::PooledBuffer({}, create(queue, bytes), bytes, cl::CommandQueue(), nullptr, false);
        cl::Buffer buffer = create(queue, wanted);  // where the device refuses, the cached buffers go first
        std::lock_guard<std::mutex> lock(mutex_);
        statistics_.bytes_in_use += wanted;
        statistics_.buffers_in_use += 1;
        statistics_.misses += 1;
        return detail::PooledBuffer(weak_from_this(), std::move(buffer), wanted, queue.get(), queue.device()(),
                                    in_queue_order);
    }

    /// Whether the pool keeps buffers (CLALGO_POOL, set_enabled).
    bool enabled() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return enabled_;
    }
    /// Turns the pool on or off; off releases the cached buffers, and buffers given back later are released.
    void set_enabled(bool on) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            enabled_ = on;
        }
        if (!on) free_all();
    }

    /// The most bytes kept for reuse.
    std::size_t limit_bytes() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return limit_;
    }
    /// Sets the most bytes kept for reuse, releasing the oldest cached buffers above it; 0 keeps none.
    void set_limit_bytes(std::size_t bytes) {
        std::vector<cl::Buffer> dropped;
        std::lock_guard<std::mutex> lock(mutex_);
        limit_ = bytes;
        trim(0, dropped);
    }

    /// Releases every cached buffer (buffers in use are not affected).
    void free_all() {
        std::map<Key, std::deque<Entry>> dropped;
        std::lock_guard<std::mutex> lock(mutex_);
        dropped.swap(cached_);
        statistics_.bytes_cached = 0;
        statistics_.buffers_cached = 0;
    }

    /// What the pool holds and has done so far.
    MemoryPoolStatistics statistics() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return statistics_;
    }

private:
    friend class detail::PooledBuffer;

    struct Entry {
        cl::Buffer buffer;
        cl::Event released;        ///< completes after the buffer's last use; made late for buffers back in queue order
        cl::CommandQueue queue;    ///< where the buffer was last used (set for buffers back in queue order)
        std::uint64_t age = 0;
    };

    void configure(const Context& context) {
        if (configured_.load(std::memory_order_acquire)) return;  // every draw asks: no lock once configured
        std::lock_guard<std::mutex> lock(mutex_);
        if (configured_.load(std::memory_order_relaxed)) return;
        const bool on = detail::environment_switch("CLALGO_POOL").value_or(true);
        const auto megabytes = detail::environment_number("CLALGO_POOL_LIMIT_MB", 0, std::uint64_t(1) << 24);
        std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
        std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
        for (const auto& device : context.devices()) {
            smallest = std::min(smallest, context.info(device).global_memory_bytes);
            largest = std::min(largest, context.info(device).max_allocation_bytes);
        }
        largest_allocation_ = static_cast<std::size_t>(std::min<std::uint64_t>(largest, std::numeric_limits<std::size_t>::max()));
        context_ = context.get()();
        enabled_ = on;
        limit_ = megabytes ? static_cast<std::size_t>(*megabytes << 20) : static_cast<std::size_t>(smallest / 4);
        configured_.store(true, std::memory_order_release);
    }

    /// A new buffer; where the device refuses, the cached buffers are released and it is tried once more
    /// (detail::allocate_device_memory).
    cl::Buffer create(const Queue& queue, std::size_t bytes) {
        cl::Buffer buffer = detail::allocate_device_memory(
            queue.context(), bytes, "a buffer of the memory pool",
            [this](bool release) { return detail::holdings_of(*this, release); });
        detail::place_on_device(queue, buffer);
        return buffer;
    }

    /// Free for reuse: no handle but the pool's is left (a view of the array it backed would be one), and either
    /// the draw is in queue order for the queue the buffer went back from in queue order (`in_order_for`), or the
    /// work before its return has completed (or failed). `needs_marker`: a buffer back in queue order that has no
    /// marker yet (see mark). Under the lock.
    static bool ready(const Entry& entry, cl_command_queue in_order_for, bool& needs_marker) noexcept {
        needs_marker = false;
        cl_uint references = 0;
        if (clGetMemObjectInfo(entry.buffer(), CL_MEM_REFERENCE_COUNT, sizeof references, &references, nullptr) !=
                CL_SUCCESS ||
            references != 1)
            return false;
        if (in_order_for != nullptr && entry.queue() == in_order_for) return true;
        if (!entry.released()) {
            needs_marker = true;
            return false;
        }
        cl_int status = CL_QUEUED;
        if (clGetEventInfo(entry.released(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) !=
            CL_SUCCESS)
            return false;
        return status == CL_COMPLETE || status < 0;
    }

    /// Enqueues one marker on each of `queues` (outside the lock: an enqueue may block) and gives it to every
    /// buffer back in queue order from that queue without one that came back before `before` (an age): the
    /// marker completes after their last use.
    void mark(const std::vector<cl::CommandQueue>& queues, std::uint64_t before) noexcept {
        for (const auto& queue : queues) {
            cl::Event marker;
            try {
                queue.enqueueMarkerWithWaitList(nullptr, &marker);
                queue.flush();
            } catch (...) {
                continue;  // no proof: those buffers stay cached, unused, until a later draw tries again
            }
            std::lock_guard<std::mutex> lock(mutex_);
            for (auto& [size, entries] : cached_)
                for (auto& entry : entries)
                    if (!entry.released() && entry.queue() == queue() && entry.age < before) entry.released = marker;
        }
    }

    /// Called by PooledBuffer: `buffer` (of size class `bytes`) is back; `released` completes after its last use,
    /// or, where it is null, `queue` is the in-order queue of its last use.
    void give_back(cl::Buffer buffer, std::size_t bytes, cl_device_id device, cl::Event released,
                   cl::CommandQueue queue) noexcept {
        std::vector<cl::Buffer> dropped;  // released after the lock
        std::lock_guard<std::mutex> lock(mutex_);
        statistics_.bytes_in_use -= std::min(statistics_.bytes_in_use, bytes);
        statistics_.buffers_in_use -= std::min<std::size_t>(statistics_.buffers_in_use, 1);
        if (!enabled_ || bytes > limit_) return;
        try {
            trim(bytes, dropped);
            cached_[Key{device, bytes}].push_back(Entry{std::move(buffer), std::move(released), std::move(queue), next_age_++});
            statistics_.bytes_cached += bytes;
            statistics_.buffers_cached += 1;
        } catch (...) {
            // out of host memory: the buffer is released instead of kept
        }
    }

    /// Called by PooledBuffer where no marker could be enqueued: the buffer is released, not kept.
    void forget(std::size_t bytes) noexcept {
        std::lock_guard<std::mutex> lock(mutex_);
        statistics_.bytes_in_use -= std::min(statistics_.bytes_in_use, bytes);
        statistics_.buffers_in_use -= std::min<std::size_t>(statistics_.buffers_in_use, 1);
    }

    /// Moves the oldest cached buffers to `dropped` until `room` more bytes fit under the limit. Under the lock.
    void trim(std::size_t room, std::vector<cl::Buffer>& dropped) {
        while (statistics_.bytes_cached + room > limit_) {
            auto oldest = cached_.end();  // the class whose oldest buffer is the oldest (classes may be empty)
            for (auto it = cached_.begin(); it != cached_.end(); ++it)
                if (!it->second.empty() &&
                    (oldest == cached_.end() || it->second.front().age < oldest->second.front().age))
                    oldest = it;
            if (oldest == cached_.end()) break;
            dropped.push_back(std::move(oldest->second.front().buffer));
            oldest->second.pop_front();
            statistics_.bytes_cached -= oldest->first.bytes;
            statistics_.buffers_cached -= 1;
            if (oldest->second.empty()) cached_.erase(oldest);
        }
    }

    mutable std::mutex mutex_;
    std::atomic<bool> configured_{false};
    std::size_t largest_allocation_ = 0;  ///< the largest buffer every device of the context allows (configure)
    cl_context context_ = nullptr;  ///< the context's identity, to refuse queues of others
    bool enabled_ = true;
    std::size_t limit_ = 0;
    /// Where cached buffers are kept apart: the device they were drawn for, and their size class.
    struct Key {
        cl_device_id device;
        std::size_t bytes;
        bool operator<(const Key& other) const {
            return device != other.device ? std::less<cl_device_id>()(device, other.device) : bytes < other.bytes;
        }
    };
    std::map<Key, std::deque<Entry>> cached_;  ///< by device and size class, oldest first
    std::uint64_t next_age_ = 0;
    MemoryPoolStatistics statistics_;
};

namespace detail {

inline PoolHoldings holdings_of(MemoryPool& pool, bool release) {
    const MemoryPoolStatistics held = pool.statistics();
    if (release) pool.free_all();
    return PoolHoldings{held.bytes_cached, held.bytes_in_use};
}

/// For allocate_device_memory: what the context's memory pool holds, its cached buffers released on demand.
inline auto memory_pool_of(const Context& context) {
    return [&context](bool release) { return holdings_of(MemoryPool::of(context), release); };
}

/// A buffer of `bytes` outside the pool (`what` names it in messages); where the device refuses, the pool's
/// cached buffers are released and it is tried once more.
inline cl::Buffer allocate_buffer(const Context& context, std::size_t bytes, const std::string& what) {
    return allocate_device_memory(context, bytes, what, memory_pool_of(context));
}

/// Test hook for the retry below, on runtimes that never refuse a command (PoCL): while `refusals` is above zero,
/// each command enqueued through enqueue_with_memory_retry is refused as a full device refuses it
/// (CL_MEM_OBJECT_ALLOCATION_FAILURE) and the count goes down by one. Thread-safe.
inline std::atomic<int>& injected_command_refusals() {
    static std::atomic<int> refusals{0};
    return refusals;
}

/// Enqueues one command through `enqueue()` (a callable that enqueues it and throws cl::Error where it fails).
/// Where the runtime refuses it for want of memory, the context's memory pool releases its cached buffers, the
/// queue is finished so that the runtime frees them, and the command is enqueued once more: runtimes that place a
/// buffer at its first use (NVIDIA's) refuse a full device there, not at clCreateBuffer. A second refusal is a
/// DeviceMemoryError naming what was done (`doing()`, called only on failure), the devices' limits and what the
/// pool held; any other failure is clalgo's Error.
template <class Enqueue, class Doing>
void enqueue_with_memory_retry(const Queue& queue, Enqueue&& enqueue, Doing&& doing) {
    auto refused_here = [] {
        auto& refusals = injected_command_refusals();
        int left = refusals.load(std::memory_order_relaxed);
        while (left > 0 && !refusals.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {}
        return left > 0;
    };
    try {
        if (refused_here()) throw cl::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "an injected refusal");
        enqueue();
        return;
    } catch (const cl::Error& error) {
        if (!is_allocation_failure(error.err())) rethrow(error, doing());
    }
    const PoolHoldings held = holdings_of(MemoryPool::of(queue.context()), true);
    try {
        queue.get().finish();  // what the released buffers' last commands held is freed once they are done
    } catch (const cl::Error& error) {
        rethrow(error, doing() + " (waiting for the queue after the device refused the command)");
    }
    try {
        if (refused_here()) throw cl::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "an injected refusal");
        enqueue();
    } catch (const cl::Error& error) {
        if (!is_allocation_failure(error.err())) rethrow(error, doing());
        throw DeviceMemoryError("clalgo: " + doing() + " failed: the device has no memory left for the command: " +
                                error.what() + " returned " + error_name(error.err()) +
                                ", also after the memory pool's cached buffers were released (a driver may place a "
                                "buffer's memory at its first command, so a full device refuses there)" +
                                memory_limits_text(queue.context(), held, true));
    }
}

}  // namespace detail

inline void detail::PooledBuffer::reset() noexcept {
    if (buffer_() != nullptr && queue_() != nullptr) {
        if (auto pool = pool_.lock()) {
            if (in_queue_order_) {
                pool->give_back(std::move(buffer_), bytes_, device_, cl::Event(), std::move(queue_));
            } else {
                cl::Event released;
                bool marked = false;
                try {
                    queue_.enqueueMarkerWithWaitList(nullptr, &released);
                    queue_.flush();
                    marked = true;
                } catch (...) {
                    // no marker, no proof the device is done with it: the buffer is released, not kept
                }
                if (marked) pool->give_back(std::move(buffer_), bytes_, device_, std::move(released), cl::CommandQueue());
                else pool->forget(bytes_);
            }
        }
    }
    pool_.reset();
    buffer_ = cl::Buffer();
    queue_ = cl::CommandQueue();
    bytes_ = 0;
    device_ = nullptr;
    in_queue_order_ = false;
}

}  // namespace clalgo
