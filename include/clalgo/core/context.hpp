// Choosing a device and holding an OpenCL context with what clalgo keeps per context (its program cache).
//   auto ctx = clalgo::Context::default_context();   // CLALGO_DEVICE, else the first GPU, else the first device
//   auto cpu = clalgo::Context::from_spec("portable:0");  // platform[:device], each an index or a name part
//   clalgo::Context mine(existing_cl_context);        // wrap a cl::Context the program already has
// Contexts are cheap handles: copies share one context and one cache.
#pragma once

#include <clalgo/core/config.hpp>
#include <clalgo/core/device_info.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

namespace clalgo {
namespace detail {

struct ContextState {
    cl::Context context;
    std::vector<cl::Device> devices;
    std::vector<DeviceInfo> infos;
    /// Made by context_for_sources: no OpenCL context behind it; kernels made on it generate their sources and
    /// build nothing (for the fuzzers and tests of the generators, on machines with no device).
    bool sources_only = false;
    /// Never the same for two states of one process, even where one is made at a dead one's address: what a
    /// thread remembers of a context (the kernel it found last) is checked against it.
    const std::uint64_t serial = next_serial();

    static std::uint64_t next_serial() {
        static std::atomic<std::uint64_t> count{0};
        return ++count;
    }

    /// Per-context state of higher layers (the program cache, the memory pool, ...), created on first use and kept
    /// as long as the state. Found without a lock once made: calls look their pool and caches up at every call.
    template <class T>
    T& attachment() {
        const std::type_info* const type = &typeid(T);
        const std::size_t made = found_count_.load(std::memory_order_acquire);
        for (std::size_t k = 0; k < made; ++k)
            if (found_[k].type == type) return *static_cast<T*>(found_[k].object);
        std::lock_guard<std::mutex> lock(attachments_mutex);
        auto& slot = attachments[std::type_index(typeid(T))];
        if (!slot) slot = std::make_shared<T>();
        // published once, for lookups without the lock (a type whose type_info differs between shared libraries
        // takes the map, which compares names)
        const std::size_t count = found_count_.load(std::memory_order_relaxed);
        if (count < found_.size() &&
            std::none_of(found_.begin(), found_.begin() + count, [&](const Found& f) { return f.type == type; })) {
            found_[count] = Found{type, slot.get()};
            found_count_.store(count + 1, std::memory_order_release);
        }
        return *static_cast<T*>(slot.get());
    }

    std::mutex attachments_mutex;
    std::map<std::type_index, std::shared_ptr<void>> attachments;

private:
    struct Found {
        const std::type_info* type = nullptr;
        void* object = nullptr;
    };
    std::array<Found, 16> found_{};             ///< written under the lock, before the count that shows them
    std::atomic<std::size_t> found_count_{0};
};

/// One ContextState per cl_context, so that wrapping the same cl::Context twice shares its cache.
inline std::shared_ptr<ContextState> state_for(const cl::Context& context) {
    static std::mutex mutex;
    static std::map<cl_context, std::weak_ptr<ContextState>> states;
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = states.begin(); it != states.end();)
        it = it->second.expired() ? states.erase(it) : std::next(it);
    if (auto existing = states[context()].lock()) return existing;
    auto state = std::make_shared<ContextState>();
    state->context = context;
    state->devices = context.getInfo<CL_CONTEXT_DEVICES>();
    for (const auto& device : state->devices) state->infos.emplace_back(device);
    states[context()] = state;
    return state;
}

inline std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

inline bool is_index(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

inline std::vector<cl::Platform> platforms() {
    std::vector<cl::Platform> found;
    try {
        cl::Platform::get(&found);
    } catch (const cl::Error&) {
        found.clear();  // the ICD loader reports "no platform" as an error
    }
    if (found.empty())
        throw Error(
            "clalgo: no OpenCL platform found. Install an OpenCL driver: pocl-opencl-icd for the CPU, or your "
            "GPU vendor's OpenCL ICD (check with `clinfo -l`)");
    return found;
}

inline std::vector<cl::Device> devices_of(const cl::Platform& platform) {
    std::vector<cl::Device> devices;
    try {
        platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
        devices.clear();  // a platform with no device answers CL_DEVICE_NOT_FOUND
    }
    return devices;
}

/// "Platform 0: NVIDIA CUDA\n  device 0: NVIDIA H200 (GPU)\n..." for error messages.
inline std::string list_devices() {
    std::string text;
    auto all = platforms();
    for (std::size_t p = 0; p < all.size(); ++p) {
        text += "  platform " + std::to_string(p) + ": " + all[p].getInfo<CL_PLATFORM_NAME>() + "\n";
        auto devices = devices_of(all[p]);
        for (std::size_t d = 0; d < devices.size(); ++d) {
            const bool gpu = (devices[d].getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
            text += "    device " + std::to_string(d) + ": " + devices[d].getInfo<CL_DEVICE_NAME>().c_str() +
                    (gpu ? " (GPU)" : "") + "\n";
        }
    }
    return text;
}

/// Picks the device named by a "platform[:device]" spec (PyOpenCL's PYOPENCL_CTX convention): each part is an
/// index or a case-insensitive part of the name; an empty or missing device part means the platform's first
/// GPU, else its first device.
inline cl::Device select_device(const std::string& spec) {
    const auto colon = spec.find(':');
    const std::string platform_part = spec.substr(0, colon);
    const std::string device_part = colon == std::string::npos ? "" : spec.substr(colon + 1);
    auto all = platforms();
    auto fail = [&](const std::string& why) -> cl::Device {
        throw std::invalid_argument("clalgo: device spec \"" + spec + "\": " + why + "\navailable:\n" + list_devices());
    };
    std::vector<cl::Platform> candidates;
    if (platform_part.empty()) {
        candidates = all;
    } else if (is_index(platform_part)) {
        const auto index = std::stoul(platform_part);
        if (index >= all.size()) return fail("there is no platform " + platform_part);
        candidates.push_back(all[index]);
    } else {
        for (const auto& platform : all)
            if (lowercase(platform.getInfo<CL_PLATFORM_NAME>()).find(lowercase(platform_part)) != std::string::npos)
                candidates.push_back(platform);
        if (candidates.empty()) return fail("no platform's name contains \"" + platform_part + "\"");
    }
    for (const auto& platform : candidates) {
        auto devices = devices_of(platform);
        if (devices.empty()) continue;
        if (device_part.empty()) {
            for (const auto& device : devices)
                if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return device;
            return devices.front();
        }
        if (is_index(device_part)) {
            const auto index = std::stoul(device_part);
            if (index < devices.size()) return devices[index];
            continue;
        }
        for (const auto& device : devices)
            if (lowercase(device.getInfo<CL_DEVICE_NAME>()).find(lowercase(device_part)) != std::string::npos)
                return device;
    }
    return fail("no device matches \"" + device_part + "\"");
}

/// The default device: the one CLALGO_DEVICE names (the first, where it lists several separated by commas for a
/// DeviceSet), else the first GPU of any platform, else the first device.
inline cl::Device default_device() {
    if (auto spec = environment("CLALGO_DEVICE"); spec && !spec->empty()) return select_device(spec->substr(0, spec->find(',')));
    auto all = platforms();
    for (const auto& platform : all)
        for (const auto& device : devices_of(platform))
            if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return device;
    for (const auto& platform : all) {
        auto devices = devices_of(platform);
        if (!devices.empty()) return devices.front();
    }
    throw Error("clalgo: OpenCL platforms were found but none has a device\n" + list_devices());
}

}  // namespace detail

class Context;
namespace detail {
Context context_for_sources(std::vector<DeviceInfo> infos);
}  // namespace detail

/// An OpenCL context and clalgo's per-context state. Cheap to copy; copies share everything.
class Context {
public:
    /// The process-wide default context, created on first use: the device CLALGO_DEVICE names, else the first
    /// GPU, else the first device. Creating a context can take a second on a GPU, so it is made once.
    static Context default_context() {
        static std::mutex mutex;
        static std::shared_ptr<detail::ContextState> state;
        std::lock_guard<std::mutex> lock(mutex);
        if (!state) state = Context(detail::default_device()).state_;
        return Context(state);
    }

    /// A new context on the device a "platform[:device]" spec names (see CLALGO_DEVICE).
    static Context from_spec(const std::string& spec) { return Context(detail::select_device(spec)); }

    /// A new context on one device.
    explicit Context(const cl::Device& device) : Context(make_context(device)) {}

    /// Wraps a context the program already has; clalgo objects made from it interoperate with the caller's
    /// own OpenCL code. Wrapping the same cl::Context twice shares clalgo's cache.
    explicit Context(const cl::Context& context) : state_(detail::state_for(context)) {}

    /// The wrapped OpenCL context.
    const cl::Context& get() const noexcept { return state_->context; }
    /// The context's devices.
    const std::vector<cl::Device>& devices() const noexcept { return state_->devices; }
    /// Device `index` of the context.
    const cl::Device& device(std::size_t index = 0) const { return state_->devices.at(index); }

    /// The facts clalgo read of a device of this context.
    const DeviceInfo& info(const cl::Device& device) const {
        for (std::size_t d = 0; d < state_->devices.size(); ++d)
            if (state_->devices[d]() == device()) return state_->infos[d];
        throw std::invalid_argument("clalgo: the device is not part of this context");
    }
    /// The facts clalgo read of device `index`.
    const DeviceInfo& info(std::size_t index = 0) const { return state_->infos.at(index); }

    /// What clalgo keeps per context: its caches (internal).
    detail::ContextState& state() const noexcept { return *state_; }

    /// Whether both wrap the same OpenCL context.
    friend bool operator==(const Context& a, const Context& b) { return a.state_ == b.state_; }
    /// Whether they wrap different OpenCL contexts.
    friend bool operator!=(const Context& a, const Context& b) { return !(a == b); }

private:
    friend Context detail::context_for_sources(std::vector<DeviceInfo> infos);
    explicit Context(std::shared_ptr<detail::ContextState> state) : state_(std::move(state)) {}

    static cl::Context make_context(const cl::Device& device) {
        try {
            return cl::Context(device);
        } catch (const cl::Error& error) {
            detail::rethrow(error, "creating a context on '" + device.getInfo<CL_DEVICE_NAME>() + "'");
        }
    }

    std::shared_ptr<detail::ContextState> state_;
};

namespace detail {

/// A context with no OpenCL behind it, its devices described by `infos` (DeviceInfo set by hand): kernel objects
/// made on it check their arguments and generate their sources (source()) as on such devices, and build nothing;
/// they cannot be called. For the fuzzers (tests/fuzz) and for tests of the generators.
inline Context context_for_sources(std::vector<DeviceInfo> infos) {
    // its device is a null handle, found by Context::info: one device only
    if (infos.size() != 1) throw std::invalid_argument("clalgo: a context for sources describes one device");
    auto state = std::make_shared<ContextState>();
    state->devices.resize(1);
    state->infos = std::move(infos);
    state->sources_only = true;
    return Context(std::move(state));
}

}  // namespace detail
}  // namespace clalgo
