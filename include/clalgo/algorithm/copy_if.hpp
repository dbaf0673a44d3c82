// copy_if: the items for which a predicate holds, in their order, with their count on the device.
//   auto [kept, count] = clalgo::copy_if(q, values, "ary[i] > 7");
//   std::int64_t how_many = count.get(q);              // kept.view(0, how_many) holds them
//   auto [hits, nhits] = clalgo::copy_if(q, clalgo::range(0, 1111111112), "is_ok(9*i)", options);  // no input array
//   clalgo::copy_if(q, values, out, n_out, "ary[i] > 7");   // into arrays you keep: nothing allocated
// The predicate sees ary[i] (over an array), i, n, the options' extra_args and preamble. Over a range the result
// holds the kept indices, or options.value_expr of each.
#pragma once

#include <clalgo/algorithm/selection.hpp>

namespace clalgo {

/// The elements of `input` for which `predicate` holds, in order.
template <class T>
Selection<T> copy_if(const Queue& queue, const ArrayView<T>& input, const std::string& predicate,
                     const SelectionOptions& options = {}) {
    return detail::select_into_new<Selection<T>>(queue, detail::SelectionInput<T>{input, {}}, predicate,
                                                 detail::Placement::kept, {}, options, "copy_if");
}

/// The indices of `indices` (or options.value_expr of them, as Value) for which `predicate` holds, in order.
template <class Value = std::int64_t>
Selection<Value> copy_if(const Queue& queue, const IndexRange& indices, const std::string& predicate,
                         const SelectionOptions& options = {}) {
    return detail::select_into_new<Selection<Value>>(queue, detail::SelectionInput<Value>{std::nullopt, indices},
                                                     predicate, detail::Placement::kept, {}, options, "copy_if");
}

/// Into arrays the caller keeps: the kept elements go to the front of `output` (as many as fit), their number
/// to `count` (one element). Returns the event; nothing is allocated.
template <class T>
Event copy_if(const Queue& queue, const ArrayView<T>& input, const ArrayView<T>& output,
              const ArrayView<std::int64_t>& count, const std::string& predicate,
              const SelectionOptions& options = {}) {
    return detail::run_selection<T>(queue, detail::SelectionInput<T>{input, {}}, predicate, detail::Placement::kept,
                                    {}, options, "copy_if", static_cast<std::int64_t>(output.size()), count, output);
}

/// Over a range, into arrays the caller keeps: the kept indices (or options.value_expr of them) go to the front of
/// `output`, their number to `count`. Returns the event; nothing is allocated.
template <class Value = std::int64_t>
Event copy_if(const Queue& queue, const IndexRange& indices, const ArrayView<Value>& output,
              const ArrayView<std::int64_t>& count, const std::string& predicate, const SelectionOptions& options = {}) {
    return detail::run_selection<Value>(queue, detail::SelectionInput<Value>{std::nullopt, indices}, predicate,
                                        detail::Placement::kept, {}, options, "copy_if",
                                        static_cast<std::int64_t>(output.size()), count, output);
}

}  // namespace clalgo
