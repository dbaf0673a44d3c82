// Device scratch memory a kernel object keeps between calls (partial results, look-back flags), one buffer per
// command queue so that calls on different queues never share it; calls on one in-order queue run one after the
// other and can reuse it. It grows as needed and lives as long as the kernel object.
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/queue.hpp>

#include <map>
#include <mutex>
#include <string>

namespace clalgo::detail {

class QueueScratch {
public:
    /// A buffer of at least `bytes` for calls on `queue`. Its contents are whatever the last call left.
    cl::Buffer get(const Queue& queue, std::size_t bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto& slot = buffers_[queue.get()()];
        if (slot.bytes < bytes) {
            try {
                slot.buffer = cl::Buffer(queue.context().get(), CL_MEM_READ_WRITE, bytes);
            } catch (const cl::Error& error) {
                rethrow(error, "allocating " + std::to_string(bytes) + " bytes of scratch memory");
            }
            slot.bytes = bytes;
        }
        return slot.buffer;
    }

private:
    struct Slot {
        cl::Buffer buffer;
        std::size_t bytes = 0;
    };
    std::mutex mutex_;
    std::map<cl_command_queue, Slot> buffers_;
};

}  // namespace clalgo::detail
