// The kernel objects the free algorithms (sort, histogram, ...) build for themselves, kept with each context by
// everything that shapes their source, so that calling an algorithm again builds nothing. Kept by the context,
// they do not keep it (ContextCache): a context whose last handle goes is freed with its cache.
//   const auto& kernel = detail::cached_kernel<RadixSortKernel<K>>(ctx, "radix " + type_name<K>(), [&] { ... });
#pragma once

#include <clalgo/codegen/program.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

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

/// The kernel object a call site found last, and what it found it by: the call's texts and flags in one context,
/// with the same CLALGO_* variables (ClalgoVariables' generation). A call like the last one finds it again by
/// comparing its texts, with no spec and no cache key built. The texts and flags must be everything that shapes
/// the object besides the call site's types (keep one per thread and call site, in code templated on those:
/// `thread_local LastCall<Kernel, 4> last;`). Valid as LastFound's.
template <class Object, std::size_t Texts>
struct LastCall {
    std::uint64_t context = 0, variables = 0, flags = 0;
    std::array<std::string, Texts> texts;
    const Object* object = nullptr;

    const Object* find(const Context& in, const std::array<std::string_view, Texts>& wanted,
                       std::uint64_t wanted_flags) const {
        if (object == nullptr || context != in.state().serial || flags != wanted_flags ||
            variables != ClalgoVariables::current().generation())
            return nullptr;
        for (std::size_t k = 0; k < Texts; ++k)
            if (texts[k] != wanted[k]) return nullptr;
        return object;
    }
    /// Remembers `found`, found by these texts and flags with the variables as they are now.
    const Object& remember(const Context& in, const std::array<std::string_view, Texts>& found_texts,
                           std::uint64_t found_flags, const Object& found) {
        context = in.state().serial;
        variables = ClalgoVariables::current().generation();
        flags = found_flags;
        for (std::size_t k = 0; k < Texts; ++k) texts[k].assign(found_texts[k].data(), found_texts[k].size());
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
