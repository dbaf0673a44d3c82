// Device scratch memory a kernel object keeps between calls (partial results, look-back status words), one set
// per command queue so that calls on different queues never share it; calls on one in-order queue run one after
// the other and can reuse it. Buffers grow as needed and live as long as the kernel object.
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/queue.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace clalgo::detail {

/// A buffer that is reallocated when a call needs more than it holds.
struct GrowingBuffer {
    cl::Buffer buffer;
    std::size_t bytes = 0;

    /// Makes the buffer hold at least `wanted` bytes; true where it was (re)allocated, its contents undefined.
    bool reserve(const Queue& queue, std::size_t wanted) {
        if (bytes >= wanted && buffer()) return false;
        wanted = std::max<std::size_t>(wanted, 64);
        try {
            buffer = cl::Buffer(queue.context().get(), CL_MEM_READ_WRITE, wanted);
        } catch (const cl::Error& error) {
            rethrow(error, "allocating " + std::to_string(wanted) + " bytes of scratch memory");
        }
        bytes = wanted;
        return true;
    }

    /// Like reserve, and fills a new buffer with zero bytes (enqueued before anything else uses it).
    void reserve_zeroed(const Queue& queue, std::size_t wanted) {
        if (reserve(queue, wanted)) zero(queue);
    }

    void zero(const Queue& queue) {
        try {
            queue.get().enqueueFillBuffer(buffer, cl_uchar(0), 0, bytes);
        } catch (const cl::Error& error) {
            rethrow(error, "clearing scratch memory");
        }
    }
};

/// One State per command queue, created on first use. The reference stays valid as long as the PerQueue.
/// Movable, so that the kernel objects holding one are.
template <class State>
class PerQueue {
public:
    State& get(const Queue& queue) {
        std::lock_guard<std::mutex> lock(*mutex_);
        return states_[queue.get()()];
    }

private:
    std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
    std::map<cl_command_queue, State> states_;
};

}  // namespace clalgo::detail
