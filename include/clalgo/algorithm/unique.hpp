// unique: the first item of every run of equal items, in order. `is_equal_expr` compares `a` and `b`.
//   auto [firsts, count] = clalgo::unique(q, sorted_values);                       // runs of ==
//   auto [firsts, count] = clalgo::unique(q, points, "a.x == b.x && a.y == b.y");   // a registered struct
#pragma once

#include <clalgo/algorithm/copy_if.hpp>

namespace clalgo {

namespace detail {
inline std::string equality_function(const std::string& type, const std::string& is_equal_expr) {
    return "inline bool clalgo_is_equal(const " + type + " a, const " + type + " b)\n{\n    return " +
           is_equal_expr + ";\n}\n";
}
}  // namespace detail

/// The first element of every run of elements equal by `is_equal_expr` (over `a` and `b`), in order.
template <class T>
Selection<T> unique(const Queue& queue, const ArrayView<T>& input, const std::string& is_equal_expr = "a == b",
                    SelectionOptions options = {}) {
    options.preamble += "\n" + detail::equality_function(type_name<T>(), is_equal_expr);
    return detail::select_into_new<Selection<T>>(queue, detail::SelectionInput<T>{input, {}},
                                                 "clalgo_k == 0 || !clalgo_is_equal(clalgo_previous, ary[i])",
                                                 detail::Placement::kept, true, options, "unique");
}

/// Over a range: the first index (or options.value_expr, as Value) of every run of equal values.
template <class Value = std::int64_t>
Selection<Value> unique(const Queue& queue, const IndexRange& indices, const std::string& is_equal_expr = "a == b",
                        SelectionOptions options = {}) {
    options.preamble += "\n#define clalgo_value_at(i) ((" + type_name<Value>() + ")(" + options.value_expr + "))\n" +
                        detail::equality_function(type_name<Value>(), is_equal_expr);
    options.extra_args.emplace_back("unique_step", static_cast<cl_long>(indices.step));
    return detail::select_into_new<Selection<Value>>(
        queue, detail::SelectionInput<Value>{std::nullopt, indices},
        "clalgo_k == 0 || !clalgo_is_equal(clalgo_value_at((i - unique_step)), clalgo_value_at(i))",
        detail::Placement::kept, false, options, "unique");
}

}  // namespace clalgo
