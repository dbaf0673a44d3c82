// Stable sorts of any type by a `less` expression over `a` and `b`, for the types and orders a radix sort cannot
// serve: registered structs by a field, vector types, descending orders, orders a helper function decides.
// Each (types, expression, options) is built once per context and reused; see kernels/merge_sort.hpp.
//   clalgo::sort(q, particles, "a.z < b.z");                 // in place, stable
//   clalgo::sort_by_key(q, distances, ids, "a > b");         // ids move with their distances
#pragma once

#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/merge_sort.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace clalgo {

namespace detail {

/// Attached to each context: the merge sort kernels by key and value types, expression and options.
struct ComparisonSortCache {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<void>> kernels;
};

/// The merge sort kernel for one shape of sort, built on first use and kept with the context.
template <class Key, class Value>
const MergeSortKernel<Key, Value>& cached_merge_sort(const Context& context, const std::string& less,
                                                     const ComparisonSortOptions& options) {
    auto& cache = context.state().attachment<ComparisonSortCache>();
    std::string key = std::string(typeid(Key).name()) + '\0' + typeid(Value).name();
    for (const std::string* part : {&less, &options.preamble, &options.build_options, &options.name})
        key += '\0' + *part;
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto& slot = cache.kernels[key];
    if (!slot) {
        auto made = std::make_shared<MergeSortKernel<Key, Value>>(context, less, options);
        ContextCache::release(*made);  // the context keeps it: it must not keep the context
        slot = std::move(made);
    }
    return *static_cast<const MergeSortKernel<Key, Value>*>(slot.get());
}

}  // namespace detail

/// Sorts `values` in place, stably, by `less` (an OpenCL C expression over `a` and `b`, true where a goes strictly
/// before b). Asynchronous: the event completes when they are sorted. Uses one temporary copy of the data.
/// (`Less` is a string type: deduced, so that a braced SortOptions such as `{true}` picks the radix sort.)
template <class T, class Less, std::enable_if_t<std::is_convertible_v<const Less&, std::string>, int> = 0>
Event sort(const Queue& queue, const ArrayView<T>& values, const Less& less,
           const ComparisonSortOptions& options = {}) {
    return detail::cached_merge_sort<T, void>(queue.context(), less, options)(queue, values);
}

/// Sorts `keys` in place, stably, by `less` over keys, and moves `values` (any type, as many) with them.
template <class Key, class Value, class Less, std::enable_if_t<std::is_convertible_v<const Less&, std::string>, int> = 0>
Event sort_by_key(const Queue& queue, const ArrayView<Key>& keys, const ArrayView<Value>& values,
                  const Less& less, const ComparisonSortOptions& options = {}) {
    if (keys.size() != values.size())
        throw std::invalid_argument("clalgo::sort_by_key: keys has " + std::to_string(keys.size()) +
                                    " elements and values " + std::to_string(values.size()) + "; they must be as many");
    return detail::cached_merge_sort<Key, Value>(queue.context(), less, options)(queue, keys, values);
}

}  // namespace clalgo
