// Sorting arrays by radix: sort, sort_by_key, argsort, and RadixSort (PyOpenCL's), whose key is an expression of
// several arrays and which permutes several arrays at once. Stable; ascending or descending; by a range of bits.
// The sort kernels are built once per context and key/value type, then reused; each call is asynchronous.
//   clalgo::sort(q, keys);                                     // in place, ascending
//   clalgo::sort(q, keys, {/*descending*/ true, 0, 24});      // descending by bits [0, 24)
//   clalgo::sort_by_key(q, keys, values);                      // values move with their keys
//   clalgo::sort(q, keys, sorted);                             // into another array, keys left as they are
//   clalgo::Array<std::int64_t> order = clalgo::argsort(q, keys);   // keys[order[0]] is the smallest
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/algorithm/transforms.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/elementwise.hpp>
#include <clalgo/kernels/radix_sort.hpp>
#include <clalgo/kernels/scratch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clalgo {

namespace detail {

/// The context's radix sort of Key (and Value); `positions`: the one argsort uses, whose first pass makes the
/// positions (kept apart: that branch would slow the pair sorts).
template <class Key, class Value = void>
const RadixSortKernel<Key, Value>& cached_radix_sort(const Context& context, bool positions = false) {
    std::string key = positions ? "radix positions " + type_name<Key>() : "radix " + type_name<Key>();
    if constexpr (!std::is_void_v<Value>) key += " " + type_name<Value>();
    return cached_kernel<RadixSortKernel<Key, Value>>(context, key, [&] {
        return std::make_shared<RadixSortKernel<Key, Value>>(context, SortAlgorithm::automatic, positions);
    });
}

}  // namespace detail

/// Sorts `keys` in place (stable; see SortOptions). Asynchronous: returns the event of the last command.
template <class Key>
Event sort(const Queue& queue, const ArrayView<Key>& keys, const SortOptions& options = {}, const WaitFor& wait = {}) {
    return detail::cached_radix_sort<Key>(queue.context())(queue, keys, options, wait);
}

/// Sorts `keys` in place and moves `values` with them; equal keys keep their order.
template <class Key, class Value>
Event sort_by_key(const Queue& queue, const ArrayView<Key>& keys, const ArrayView<Value>& values,
                  const SortOptions& options = {}, const WaitFor& wait = {}) {
    return detail::cached_radix_sort<Key, Value>(queue.context())(queue, keys, values, options, wait);
}

/// Sorts `keys_in` into `keys_out` (as many), leaving `keys_in` as it was: no copy is made.
template <class Key>
Event sort(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_out,
           const SortOptions& options = {}, const WaitFor& wait = {}) {
    return detail::cached_radix_sort<Key>(queue.context())(queue, keys_in, keys_out, options, wait);
}

/// Sorts `keys_in` into `keys_out` and moves `values_in` with them into `values_out`, leaving the inputs as they were.
template <class Key, class Value>
Event sort_by_key(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_out,
                  const ArrayView<Value>& values_in, const ArrayView<Value>& values_out, const SortOptions& options = {},
                  const WaitFor& wait = {}) {
    return detail::cached_radix_sort<Key, Value>(queue.context())(queue, keys_in, keys_out, values_in, values_out, options, wait);
}

namespace detail {

/// Writes into `order` where each sorted key of `keys` was; `keys_work` (which may be `keys`) is work space, left
/// unspecified. `positions` (made with positions_in_first_pass) makes them in its first pass, which saves a
/// launch, a write and a read, and its last pass writes no keys. Where its passes would choose in every one between
/// making a position and reading a value (about 1.4 times slower in full onesweep tiles on an H100: over more than
/// 2^32 keys, RadixSortKernel::sorts_wide), the positions are written first and `pairs` sorts them as values, in
/// place.
template <class Key, class Index>
void sort_positions(const RadixSortKernel<Key, Index>& pairs, const RadixSortKernel<Key, Index>& positions,
                    const Queue& queue, const ArrayView<Key>& keys, const ArrayView<Key>& keys_work,
                    const ArrayView<Index>& order, const SortOptions& options, const WaitFor& wait = {}) {
    if (positions.sorts_wide(queue, keys.size())) {
        iota(queue, order, Index(0), wait);
        pairs(queue, keys, keys_work, order, order, options);
    } else {
        positions.argsort_positions(queue, keys, keys_work, order, options, wait);
    }
}

}  // namespace detail

/// The positions that sort `keys` (left as they are): keys[order[0]], keys[order[1]], ... is sorted, equal keys
/// in their order. Index is std::int64_t by default; a narrower integer type must hold keys.size() - 1. A pair sort
/// of the keys and their positions, whose first pass makes the positions rather than reading them.
template <class Index = std::int64_t, class Key>
Array<Index> argsort(const Queue& queue, const ArrayView<Key>& keys, const SortOptions& options = {},
                     const WaitFor& wait = {}) {
    static_assert(std::is_integral_v<Index>, "clalgo::argsort: the index type is an integer type");
    detail::require_positions_fit<Index>(keys.size());
    Array<Index> order(queue, keys.size(), detail::pooled_in_queue_order);
    if (keys.empty()) return order;
    Array<Key> sorted(queue, keys.size(), detail::pooled_in_queue_order);  // the passes' keys; given back once done
    detail::sort_positions(detail::cached_radix_sort<Key, Index>(queue.context()),
                           detail::cached_radix_sort<Key, Index>(queue.context(), true), queue, keys, sorted.view(),
                           order.view(), options, wait);
    return order;
}

/// What a RadixSort may add: helper code for the key expression, its name.
struct RadixSortOptions {
    std::string preamble;            ///< OpenCL C placed before the kernels: helper functions such as cell_of
    /// The kernels' name, in build errors and profilers.
    std::string name = "radix_sort";
    /// Checked mode: bounds-check every access name[index] of key_expr to an array argument (OutOfBoundsError
    /// naming the kernel `<name>_keys`; each call blocks). CLALGO_CHECKED=1 turns it on for every RadixSort.
    bool checked = false;
};

/// PyOpenCL's RadixSort: the key of index i is `key_expr` over the declared arguments, and each array named in
/// `sort_arg_names` is written, in key order, to the array declared as `<name>_out`. Stable.
///   clalgo::RadixSort<std::uint32_t> by_cell(ctx, "const float *x, const float *y, float *x_out, float *y_out",
///                                            "cell_of(x[i], y[i])", {"x", "y"}, options);
///   by_cell(q, x, y, x_out, y_out);     // over the first array's indices
template <class Key>
class RadixSort {
public:
    /// A sort of the declared `arguments` by `key_expr`, writing each array of `sort_arg_names` to its `<name>_out`.
    RadixSort(const Context& context, const std::string& arguments, const std::string& key_expr,
              const std::vector<std::string>& sort_arg_names, const RadixSortOptions& options = {})
        : sorter_(detail::cached_radix_sort<Key, std::int64_t>(context, true)),
          pairs_(detail::cached_radix_sort<Key, std::int64_t>(context)) {
        const auto declared = parse_arguments(arguments);
        const std::string kernel = "RadixSort '" + options.name + "'";
        detail::reject_reserved_names(declared, {"i", "n", "sort_key", "sort_order"}, kernel);
        auto find = [&](const std::string& name) {
            return std::find_if(declared.begin(), declared.end(), [&](const ArgumentDeclaration& d) { return d.name == name; });
        };
        std::string gather;
        for (const auto& name : sort_arg_names) {
            auto source = find(name), target = find(name + "_out");
            if (source == declared.end() || !source->is_array)
                throw std::invalid_argument("clalgo: " + kernel + ": '" + name + "' is not an array argument");
            if (target == declared.end() || !target->is_array || target->type != source->type || target->is_const)
                throw std::invalid_argument("clalgo: " + kernel + ": '" + name + "' needs an array '" + name + "_out' of type '" +
                                            source->type + " *' to receive it in key order");
            gather += name + "_out[i] = " + name + "[sort_order[i]];\n";
            sorted_.push_back({std::size_t(source - declared.begin()), std::size_t(target - declared.begin())});
        }
        ElementwiseOptions keys_options;
        keys_options.name = options.name + "_keys";
        keys_options.preamble = options.preamble;
        keys_options.checked = options.checked;
        keys_ = std::make_unique<ElementwiseKernel>(context, arguments + ", " + type_name<Key>() + " *sort_key",
                                                    "sort_key[i] = (" + type_name<Key>() + ")(" + key_expr + ");",
                                                    keys_options);
        ElementwiseOptions gather_options;
        gather_options.name = options.name + "_gather";
        gather_options.preamble = options.preamble;
        gather_options.checked = options.checked;
        gather_ = std::make_unique<ElementwiseKernel>(context, arguments + ", const long *sort_order", gather, gather_options);
        declared_ = declared;
        kernel_ = kernel;
    }

    /// Computes the keys over the first array's indices, sorts them (by the bits SortOptions names) and writes
    /// each sorted argument to its `_out` array. Asynchronous: returns the event of the last launch.
    template <class... Args>
    Event operator()(const Queue& queue, const SortOptions& options, const Args&... arguments) const {
        detail::CallOptions call;
        const detail::KeptArguments kept;  // bound in place, in a vector the thread keeps
        const auto& bound = detail::bind_call(kept.get(), queue, call, arguments...);
        const std::int64_t n = detail::call_indices("RadixSort", std::nullopt, bound).size();
        check_sorted_arrays(bound, n);
        auto& scratch = scratch_.get(queue);
        std::lock_guard<std::mutex> lock(*scratch.mutex);
        if (scratch.keys.size() < static_cast<std::size_t>(n)) {
            scratch.keys = Array<Key>(queue, static_cast<std::size_t>(n), detail::pooled_in_queue_order);
            scratch.order = Array<std::int64_t>(queue, static_cast<std::size_t>(n), detail::pooled_in_queue_order);
        }
        const auto keys = scratch.keys.view(0, static_cast<std::size_t>(n));
        const auto order = scratch.order.view(0, static_cast<std::size_t>(n));
        (*keys_)(queue, arguments..., keys);
        detail::sort_positions(pairs_, sorter_, queue, keys, keys, order, options);  // as clalgo::argsort
        return (*gather_)(queue, arguments..., order);
    }

    template <class... Args>
    /// Sorts ascending by the whole key; returns the event of the last launch.
    Event operator()(const Queue& queue, const Args&... arguments) const {
        return (*this)(queue, SortOptions{}, arguments...);
    }

private:
    /// Each array sorted and its `_out`: as many elements as the keys (the gather reads the first at computed
    /// places, which the kernels' own checks cannot see).
    void check_sorted_arrays(const std::vector<detail::BoundArgument>& bound, std::int64_t n) const {
        std::string first;
        for (std::size_t k = 0; k < bound.size() && k < declared_.size() && first.empty(); ++k)
            if (bound[k].is_array) first = declared_[k].name;
        for (const auto& [source, target] : sorted_)
            for (std::size_t k : {source, target})
                if (k < bound.size() && bound[k].is_array && bound[k].size != static_cast<std::size_t>(n))
                    throw std::invalid_argument("clalgo: " + kernel_ + ", argument " + std::to_string(k + 1) + " '" +
                                                declared_[k].name + "': " + std::to_string(bound[k].size) +
                                                " elements, but the sort runs over " + std::to_string(n) +
                                                " keys (the size of the first array, '" + first + "')");
    }

    struct Scratch {
        Array<Key> keys;
        Array<std::int64_t> order;
        std::unique_ptr<std::mutex> mutex = std::make_unique<std::mutex>();
    };
    const RadixSortKernel<Key, std::int64_t>& sorter_;  ///< makes the order in its first pass (detail::sort_positions)
    const RadixSortKernel<Key, std::int64_t>& pairs_;   ///< sorts the order written first (over 2^32 keys)
    std::vector<ArgumentDeclaration> declared_;
    std::string kernel_;                                ///< "RadixSort '<name>'", for messages
    std::vector<std::pair<std::size_t, std::size_t>> sorted_;  ///< each sorted array and its `_out`, by position
    std::unique_ptr<ElementwiseKernel> keys_, gather_;
    mutable detail::PerQueue<Scratch> scratch_;
};

}  // namespace clalgo
