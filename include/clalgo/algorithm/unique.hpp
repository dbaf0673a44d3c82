// unique: the first item of every run of equal items, in order. `is_equal_expr` compares `a` and `b`.
//   auto [firsts, count] = clalgo::unique(q, sorted_values);                       // runs of ==
//   auto [firsts, count] = clalgo::unique(q, points, "a.x == b.x && a.y == b.y");   // a registered struct
#pragma once

#include <clalgo/algorithm/copy_if.hpp>

namespace clalgo {

/// The first element of every run of elements equal by `is_equal_expr` (over `a` and `b`), in order.
template <class T>
Selection<T> unique(const Queue& queue, const ArrayView<T>& input, const std::string& is_equal_expr = "a == b",
                    SelectionOptions options = {}) {
    return detail::select_into_new<Selection<T>>(queue, detail::SelectionInput<T>{input, {}}, "",
                                                 detail::Placement::kept, is_equal_expr, options, "unique");
}

/// Over a range: the first index (or options.value_expr, as Value) of every run of equal values.
template <class Value = std::int64_t>
Selection<Value> unique(const Queue& queue, const IndexRange& indices, const std::string& is_equal_expr = "a == b",
                        SelectionOptions options = {}) {
    return detail::select_into_new<Selection<Value>>(queue, detail::SelectionInput<Value>{std::nullopt, indices}, "",
                                                     detail::Placement::kept, is_equal_expr, options, "unique");
}

}  // namespace clalgo
