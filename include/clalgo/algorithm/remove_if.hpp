// remove_if: the items for which a predicate does not hold, in their order (copy_if of the negation).
//   auto [rest, count] = clalgo::remove_if(q, values, "ary[i] < 0");
#pragma once

#include <clalgo/algorithm/copy_if.hpp>

namespace clalgo {

/// The elements of `input` for which `predicate` does not hold, in order.
template <class T>
Selection<T> remove_if(const Queue& queue, const ArrayView<T>& input, const std::string& predicate,
                       const SelectionOptions& options = {}) {
    return copy_if(queue, input, "!(" + predicate + ")", options);
}

/// The indices of `indices` (or options.value_expr of them) for which `predicate` does not hold, in order.
template <class Value = std::int64_t>
Selection<Value> remove_if(const Queue& queue, const IndexRange& indices, const std::string& predicate,
                           const SelectionOptions& options = {}) {
    return copy_if<Value>(queue, indices, "!(" + predicate + ")", options);
}

}  // namespace clalgo
