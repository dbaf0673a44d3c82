// The kernel objects the free algorithms (sort, histogram, ...) build for themselves, kept with each context by
// everything that shapes their source, so that calling an algorithm again builds nothing. Kept by the context,
// they do not keep it (ContextCache): a context whose last handle goes is freed with its cache.
//   const auto& kernel = detail::cached_kernel<RadixSortKernel<K>>(ctx, "radix " + type_name<K>(), [&] { ... });
#pragma once

#include <clalgo/codegen/program.hpp>
#include <clalgo/core/context.hpp>

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

/// The object kept under `key`, made by `make` (returning a shared_ptr<Object>) on first use.
template <class Object, class Make>
const Object& cached_kernel(const Context& context, const std::string& key, const Make& make) {
    auto& cache = context.state().attachment<AlgorithmKernels>();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto& slot = cache.objects[key];
    if (!slot) {
        auto made = make();
        ContextCache::release(*made);  // the context keeps it: it must not keep the context
        slot = std::move(made);
    }
    return *static_cast<const Object*>(slot.get());
}

}  // namespace clalgo::detail
