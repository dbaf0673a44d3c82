// partition: the items for which a predicate holds and those for which it does not, each in their order, with
// the number kept on the device.
//   auto [evens, odds, count] = clalgo::partition(q, values, "ary[i] % 2 == 0");
#pragma once

#include <clalgo/algorithm/selection.hpp>

namespace clalgo {

/// The elements of `input` for which `predicate` holds (kept) and the others (rejected), each in order.
template <class T>
Partition<T> partition(const Queue& queue, const ArrayView<T>& input, const std::string& predicate,
                       const SelectionOptions& options = {}) {
    return detail::select_into_new<Partition<T>>(queue, detail::SelectionInput<T>{input, {}}, predicate,
                                                 detail::Placement::kept_and_rejected, {}, options, "partition");
}

/// Over a range: the indices (or options.value_expr of them) for which `predicate` holds, and the others.
template <class Value = std::int64_t>
Partition<Value> partition(const Queue& queue, const IndexRange& indices, const std::string& predicate,
                           const SelectionOptions& options = {}) {
    return detail::select_into_new<Partition<Value>>(queue, detail::SelectionInput<Value>{std::nullopt, indices},
                                                     predicate, detail::Placement::kept_and_rejected, {}, options, "partition");
}

}  // namespace clalgo
