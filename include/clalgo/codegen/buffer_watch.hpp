// Whether a buffer handle still names the buffer it named before: a driver may hand a destroyed buffer's handle to a
// new buffer, and some resolve a buffer argument when it is set (Oclgrind does), so a kernel argument may skip
// setting a buffer equal to the last one only while that buffer lives. Each watched buffer carries a destructor
// callback that marks its record dead before the driver deletes it (and so before its handle can come back).
//   auto record = detail::watch_buffer(memory);      // once, when the argument is set
//   if (record && record->alive()) ...               // later: the same buffer
#pragma once

#include <clalgo/core/config.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace clalgo::detail {

/// One watched buffer: alive until its destructor callback has run.
class WatchedBuffer {
public:
    bool alive() const noexcept { return alive_.load(std::memory_order_acquire); }

    /// The destructor callback, `record` the WatchedBuffer.
    static void CL_CALLBACK destroyed(cl_mem, void* record) {
        static_cast<WatchedBuffer*>(record)->alive_.store(false, std::memory_order_release);  // its last use here
    }

private:
    std::atomic<bool> alive_{true};
};

/// The record of `buffer` (a live buffer), made with its callback the first time it is watched; null where the
/// driver refuses the callback. Records of dead buffers are dropped as the registry grows.
inline std::shared_ptr<const WatchedBuffer> watch_buffer(cl_mem buffer) {
    struct Registry {
        std::mutex mutex;
        std::unordered_map<cl_mem, std::shared_ptr<WatchedBuffer>> records;
        std::size_t prune_at = 1024;
    };
    static Registry* registry = new Registry;  // never destroyed: callbacks may come while the process exits
    std::lock_guard<std::mutex> lock(registry->mutex);
    auto& record = registry->records[buffer];
    // a dead record: its buffer was destroyed, and this handle names a new one
    if (record && record->alive()) return record;
    auto made = std::make_shared<WatchedBuffer>();
    // the registry keeps the record until its callback has run (it is pruned only once dead)
    if (clSetMemObjectDestructorCallback(buffer, &WatchedBuffer::destroyed, made.get()) != CL_SUCCESS) {
        registry->records.erase(buffer);
        return nullptr;
    }
    record = made;
    if (registry->records.size() >= registry->prune_at) {
        for (auto it = registry->records.begin(); it != registry->records.end();)
            it = it->second->alive() ? std::next(it) : registry->records.erase(it);
        registry->prune_at = 2 * registry->records.size() + 1024;
    }
    return made;
}

}  // namespace clalgo::detail
