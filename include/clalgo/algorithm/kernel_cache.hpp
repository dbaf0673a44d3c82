// The kernel objects the free algorithms (sort, histogram, ...) build for themselves, kept with each context by
// everything that shapes their source, so that calling an algorithm again builds nothing. Kept by the context,
// they do not keep it (ContextCache): a context whose last handle goes is freed with its cache.
//   const auto& kernel = detail::cached_kernel<RadixSortKernel<K>>(ctx, "radix " + type_name<K>(), [&] { ... });
#pragma once

#include <clalgo/codegen/program.hpp>
#include <clalgo/core/context.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace clalgo::detail {

/// Attached to each context: kernel objects by key.
struct AlgorithmKernels {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<void>> objects;
};

/// The kernel object a thread found last in a context cache, and under which key: a call like the last one finds
/// it again by one comparison of keys, with no lock and no map. Cached objects live as long as their context,
/// whose serial number (ContextState::serial) no later context takes, so a remembered object is valid while
/// its context's serial matches. Keep one per thread and cache: `thread_local LastFound<Kernel> last;`.
template <class Object>
struct LastFound {
    std::uint64_t context = 0;
    std::string key;
    const Object* object = nullptr;

    const Object* find(const Context& in, const std::string& wanted) const {
        return object != nullptr && context == in.state().serial && key == wanted ? object : nullptr;
    }
    const Object& remember(const Context& in, const std::string& found_key, const Object& found) {
        context = in.state().serial;
        key = found_key;
        object = &found;
        return found;
    }
};

/// The object kept under `key`, made by `make` (returning a shared_ptr<Object>) on first use.
template <class Object, class Make>
const Object& cached_kernel(const Context& context, const std::string& key, const Make& make) {
    thread_local LastFound<Object> last;
    if (const Object* found = last.find(context, key)) return *found;
    auto& cache = context.state().attachment<AlgorithmKernels>();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto& slot = cache.objects[key];
    if (!slot) {
        auto made = make();
        ContextCache::release(*made);  // the context keeps it: it must not keep the context
        slot = std::move(made);
    }
    return last.remember(context, key, *static_cast<const Object*>(slot.get()));
}

}  // namespace clalgo::detail
