// Device scratch memory a kernel object keeps between calls (partial results, look-back status words), one set
// per command queue so that calls on different queues never share it; calls on one in-order queue run one after
// the other and can reuse it. Buffers grow as needed, come from the context's MemoryPool, and go back to it when
// they grow or their queue is gone.
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/memory_pool.hpp>
#include <clalgo/core/queue.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace clalgo::detail {

/// A buffer that is replaced by a larger one from the pool when a call needs more than it holds.
struct GrowingBuffer {
    cl::Buffer buffer;
    std::size_t bytes = 0;
    PooledBuffer lease;  ///< given back (after the work enqueued so far on its queue) when replaced or destroyed

    /// Makes the buffer hold at least `wanted` bytes; true where it was (re)allocated, its contents undefined.
    bool reserve(const Queue& queue, std::size_t wanted) {
        if (bytes >= wanted && buffer()) return false;
        PooledBuffer larger = MemoryPool::of(queue.context()).allocate(queue, std::max<std::size_t>(wanted, 64));
        buffer = larger.buffer();
        bytes = larger.bytes();
        lease = std::move(larger);
        return true;
    }

    /// Like reserve, and fills a new buffer with zero bytes (enqueued before anything else uses it).
    void reserve_zeroed(const Queue& queue, std::size_t wanted) {
        if (reserve(queue, wanted)) zero(queue);
    }

    /// Up to 64 KiB (tickets, look-back status words of up to 8,192 tiles) written from zeros in host memory, more
    /// filled: a write is what Oclgrind's --uninitialized sees (it does not track clEnqueueFillBuffer), a fill is
    /// cheaper for large buffers on GPUs.
    void zero(const Queue& queue) {
        static const unsigned char zeros[64 * 1024] = {};  // lives as long as the process: the write may be queued
        enqueue_with_memory_retry(
            queue,
            [&] {
                if (bytes <= sizeof zeros) queue.get().enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, zeros);
                else queue.get().enqueueFillBuffer(buffer, cl_uchar(0), 0, bytes);
            },
            [] { return std::string("clearing scratch memory"); });
    }
};

/// The look-back state a single-pass kernel keeps in a buffer between its calls on one queue. It is laid out for
/// the tiles it holds (at least 64), not for each call's: a status word must never lie where an earlier call of
/// fewer tiles kept a value, whose bytes could read as a published status. Status words carry the call's epoch
/// (29 bits), so those of earlier calls read as unpublished; the buffer is cleared where it is new, its layout
/// changed or the epoch comes round. A call: `relaid = hold(its tiles, the buffer)`, lay the parts out for
/// tiles_held, then begin_call(queue, the buffer, the bytes of that layout, relaid) gives its epoch.
struct LookBackEpochs {
    std::uint64_t tiles_held = 0;  ///< the tiles the layout has room for
    std::uint32_t epoch = 0;       ///< the last call's

    /// Makes the layout hold `tiles` tiles; true where it changed (or the buffer is not there yet).
    bool hold(std::uint64_t tiles, const GrowingBuffer& memory) {
        if (tiles <= tiles_held && memory.buffer()) return false;
        tiles_held = std::max<std::uint64_t>(tiles, 64);
        return true;
    }

    std::uint32_t begin_call(const Queue& queue, GrowingBuffer& memory, std::size_t bytes, bool relaid) {
        if (memory.reserve(queue, bytes) || relaid || ++epoch >= (1u << 29)) {
            memory.zero(queue);
            epoch = 1;
        }
        return epoch;
    }
};

/// One State per command queue, created on first use, and dropped once no clalgo::Queue wraps its queue any more
/// (at the next first use by another queue), so that a long-lived kernel used on short-lived queues keeps scratch
/// for the live ones only. The reference stays valid as long as the queue's Queue handles and the PerQueue.
/// Movable, so that the kernel objects holding one are.
template <class State>
class PerQueue {
public:
    State& get(const Queue& queue) {
        std::lock_guard<std::mutex> lock(*mutex_);
        const auto& identity = queue.identity();
        // the same identity object: the caller holds it, and the weak owner keeps its control block from reuse
        auto owned_by = [&](const Entry& entry) {
            return !entry.owner.owner_before(identity) && !identity.owner_before(entry.owner);
        };
        if (last_ != nullptr && owned_by(*last_)) return last_->state;  // the queue of the last call, the usual case
        auto found = states_.find(queue.get()());
        if (found != states_.end() && owned_by(found->second)) {
            last_ = &found->second;
            return last_->state;
        }
        // a queue new to this object (or a new queue at a dead one's address): drop the states of dead queues
        last_ = nullptr;
        for (auto it = states_.begin(); it != states_.end();)
            it = it->second.owner.expired() ? states_.erase(it) : std::next(it);
        auto& entry = states_[queue.get()()];
        entry.owner = identity;
        last_ = &entry;
        return entry.state;
    }

    /// Queues with a state: for tests.
    std::size_t size() const {
        std::lock_guard<std::mutex> lock(*mutex_);
        return states_.size();
    }

private:
    struct Entry {
        std::weak_ptr<const void> owner;
        State state;
    };
    std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
    std::map<cl_command_queue, Entry> states_;
    Entry* last_ = nullptr;  ///< the entry the last call used (map nodes stay put when the map moves)
};

}  // namespace clalgo::detail
