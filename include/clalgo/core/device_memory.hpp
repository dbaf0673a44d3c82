// Every device buffer clalgo makes (arrays, the memory pool's buffers, scratch, results) comes from
// allocate_device_memory: where the device refuses (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES, ...),
// the memory pool's cached buffers are released and the allocation is tried once more, as CuPy's pool does; where
// it fails again, or asks for more than one buffer may hold (CL_DEVICE_MAX_MEM_ALLOC_SIZE), DeviceMemoryError
// names the bytes asked for, the devices' limits and what the pool held.
// For tests of code under memory pressure on devices that never refuse (PoCL): a byte budget that refuses, like a
// full device, any allocation that would take the bytes of clalgo's live buffers past it (CLALGO_MEMORY_BUDGET_MB,
// or detail::DeviceMemoryBudget::instance().set(bytes)).
//   cl::Buffer b = detail::allocate_device_memory(ctx, bytes, "an array of 10 x float", pool);
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <mutex>
#include <optional>
#include <string>

namespace clalgo::detail {

/// "640.0 MiB (671088640 bytes)": sizes in messages.
inline std::string bytes_text(std::uint64_t bytes) {
    char text[64];
    if (bytes >= (std::uint64_t(1) << 30)) std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(1 << 30));
    else if (bytes >= (std::uint64_t(1) << 20)) std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
    else if (bytes >= 1024) std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024.0);
    else return std::to_string(bytes) + " bytes";
    return std::string(text) + " (" + std::to_string(bytes) + " bytes)";
}

/// A byte budget for the buffers clalgo makes in this process, on every device: while set, an allocation that
/// would take the bytes of the live ones past it fails as on a full device (CL_MEM_OBJECT_ALLOCATION_FAILURE). A
/// buffer counts until the OpenCL runtime frees it (after its last command). Off by default; set from
/// CLALGO_MEMORY_BUDGET_MB when first used. Thread-safe.
class DeviceMemoryBudget {
public:
    static DeviceMemoryBudget& instance() {
        static DeviceMemoryBudget budget;
        return budget;
    }

    /// Sets the budget in bytes, or turns it off (nullopt). Buffers made before count where they are still live.
    void set(std::optional<std::uint64_t> bytes) {
        limit_.store(bytes ? *bytes : unlimited, std::memory_order_relaxed);
    }
    std::optional<std::uint64_t> get() const {
        const std::uint64_t limit = limit_.load(std::memory_order_relaxed);
        return limit == unlimited ? std::nullopt : std::optional<std::uint64_t>(limit);
    }
    /// The bytes of clalgo's buffers that the OpenCL runtime has not freed yet.
    std::uint64_t live() const { return live_.load(std::memory_order_relaxed); }

    /// Makes a buffer of `bytes` on `context`, refused where the budget would be passed.
    cl::Buffer make(const cl::Context& context, std::size_t bytes) {
        const std::uint64_t limit = limit_.load(std::memory_order_relaxed);
        std::uint64_t live = live_.load(std::memory_order_relaxed);
        do {
            if (limit != unlimited && (bytes > limit || live > limit - bytes))
                throw cl::Error(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clCreateBuffer (clalgo's memory budget)");
        } while (!live_.compare_exchange_weak(live, live + bytes, std::memory_order_relaxed));
        cl::Buffer buffer;
        try {
            buffer = cl::Buffer(context, CL_MEM_READ_WRITE, bytes);
        } catch (...) {
            live_.fetch_sub(bytes, std::memory_order_relaxed);
            throw;
        }
        // counted until the runtime frees it; where no callback can be set, not counted at all
        if (clSetMemObjectDestructorCallback(buffer(), &DeviceMemoryBudget::freed,
                                             reinterpret_cast<void*>(static_cast<std::uintptr_t>(bytes))) != CL_SUCCESS)
            live_.fetch_sub(bytes, std::memory_order_relaxed);
        return buffer;
    }

private:
    static constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

    DeviceMemoryBudget() {
        if (auto megabytes = environment_number("CLALGO_MEMORY_BUDGET_MB", 0, std::uint64_t(1) << 30))
            limit_.store(*megabytes << 20, std::memory_order_relaxed);
    }

    static void CL_CALLBACK freed(cl_mem, void* bytes) {
        instance().live_.fetch_sub(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(bytes)),
                                   std::memory_order_relaxed);
    }

    std::atomic<std::uint64_t> limit_{unlimited};
    std::atomic<std::uint64_t> live_{0};
};

/// What a memory pool held when an allocation failed: given back by the `pool` of allocate_device_memory.
struct PoolHoldings {
    std::uint64_t cached = 0;  ///< released for the retry
    std::uint64_t in_use = 0;  ///< drawn and not given back: not the pool's to release
};

inline bool is_allocation_failure(cl_int code) {
    return code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES || code == CL_OUT_OF_HOST_MEMORY ||
           code == CL_INVALID_BUFFER_SIZE;
}

/// The end of DeviceMemoryError's text: the devices' limits and what the pool held.
inline std::string memory_limits_text(const Context& context, const PoolHoldings& pool, bool released) {
    std::string text;
    for (const auto& device : context.devices()) {
        const DeviceInfo& info = context.info(device);
        text += "; '" + info.name + "' has " + bytes_text(info.global_memory_bytes) + " in all and allows at most " +
                bytes_text(info.max_allocation_bytes) + " in one buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)";
    }
    text += "; the memory pool held " + bytes_text(pool.cached) + " of cached buffers" +
            (released ? " (released for a second try)" : "") + " and " + bytes_text(pool.in_use) + " in use";
    if (auto budget = DeviceMemoryBudget::instance().get())
        text += "; clalgo's memory budget (CLALGO_MEMORY_BUDGET_MB) is " + bytes_text(*budget) + ", of which " +
                bytes_text(DeviceMemoryBudget::instance().live()) + " are live";
    return text;
}

/// DeviceMemoryError's text: what was asked for and why it failed, the devices' limits, what the pool held.
inline std::string allocation_failure(const Context& context, std::size_t bytes, const std::string& what,
                                      const std::string& why, const PoolHoldings& pool, bool released) {
    return "clalgo: cannot allocate " + bytes_text(bytes) + " of device memory for " + what + ": " + why +
           memory_limits_text(context, pool, released);
}

/// A buffer of `bytes` on `context` (`what` names it in messages: "an array of 10 x float"). `pool(release)`
/// returns what the context's memory pool holds, after releasing its cached buffers where `release` is set. Where
/// the device refuses, the pool is released and the allocation tried once more; DeviceMemoryError where that
/// fails too, or where `bytes` is more than a device allows in one buffer (no release can help). Other OpenCL
/// errors become clalgo::Error.
template <class Pool>
cl::Buffer allocate_device_memory(const Context& context, std::size_t bytes, const std::string& what, Pool&& pool) {
    for (const auto& device : context.devices())
        if (bytes > context.info(device).max_allocation_bytes)
            throw DeviceMemoryError(allocation_failure(context, bytes, what,
                                                       "more than '" + context.info(device).name +
                                                           "' allows in one buffer",
                                                       pool(false), false));
    auto& budget = DeviceMemoryBudget::instance();
    try {
        return budget.make(context.get(), bytes);
    } catch (const cl::Error& error) {
        if (!is_allocation_failure(error.err())) rethrow(error, "allocating " + bytes_text(bytes) + " for " + what);
    }
    const PoolHoldings held = pool(true);  // the cached buffers may be what the device lacks
    try {
        return budget.make(context.get(), bytes);
    } catch (const cl::Error& error) {
        if (!is_allocation_failure(error.err())) rethrow(error, "allocating " + bytes_text(bytes) + " for " + what);
        throw DeviceMemoryError(allocation_failure(context, bytes, what,
                                                   std::string(error.what()) + " returned " + error_name(error.err()) +
                                                       ", also after the memory pool's cached buffers were released",
                                                   held, true));
    }
}

}  // namespace clalgo::detail
