// Reductions over the elements an index array picks, PyOpenCL's subset_sum, subset_min, subset_max and subset_dot:
// the reduction of x[indices[k]] for k in [0, indices.size()), without gathering them into an array first. Results
// on the host or on the device, as for sum, min, max and dot (reductions.hpp), whose kernels they share the rest of.
//   double picked = clalgo::subset_sum(q, x, indices);          // sum of x[indices[k]]; indices int32 or int64
//   clalgo::subset_max(q, x, indices, largest_on_device);       // into a one-element array: returns the event
// An index outside [0, x.size()) is clamped into it, as take does (subset_sum(x, idx) is sum(take(x, idx))); in
// checked mode (CLALGO_CHECKED=1) it throws OutOfBoundsError instead, naming the kernel, x, the index and the size.
#pragma once

#include <clalgo/algorithm/array_checks.hpp>
#include <clalgo/algorithm/reductions.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/reduction.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace clalgo {

namespace detail {

/// The index expression into x: indices[i] clamped into [0, last], or as it is in checked mode, where the bounds
/// check of x reports it.
inline std::string subset_index(bool checked) {
    return checked ? "indices[i]" : "clamp((long)indices[i], 0L, last)";
}

/// The declarations of a subset reduction's kernel: the arrays of `T`, the indices, the last index of x.
template <class T, class Index>
std::string subset_arguments(const std::string& arrays) {
    require_index<Index>();
    return arrays + ", const " + type_name<Index>() + " *indices, long last";
}

/// The launch indices of a subset reduction: one per index.
inline IndexRange subset_range(std::size_t index_count) { return range(0, static_cast<std::int64_t>(index_count)); }

/// Refuses indices into an empty x (nothing to clamp them to); returns the last index of x.
inline cl_long subset_last(const char* call, std::size_t x_size, std::size_t index_count) {
    if (x_size == 0 && index_count != 0)
        throw std::invalid_argument(std::string("clalgo: ") + call + ": x is empty but indices has " +
                                    std::to_string(index_count) + " elements");
    return static_cast<cl_long>(x_size) - 1;
}

/// Whether the kernels are checked (CLALGO_CHECKED): each kind of subset reduction keeps the texts of both forms
/// in a static, [0] clamped and [1] checked.
inline bool subset_checked() { return environment_flag("CLALGO_CHECKED"); }

template <class T, class Index>
const ReductionKernel<sum_type_t<T>>& subset_sum_kernel(const Context& context) {
    require_summable<T>();
    auto text = [](bool checked) {
        const std::string x = "const " + type_name<T>() + " *x";
        return reduction_text<sum_type_t<T>>("clalgo_subset_sum", subset_arguments<T, Index>(x), "0", "a + b",
                                             "x[" + subset_index(checked) + "]");
    };
    static const ReductionText texts[2] = {text(false), text(true)};
    return cached_reduction<sum_type_t<T>>(context, texts[subset_checked()]);
}

/// min (`largest` false) or max of the picked elements, NaN winning as in extremum_kernel.
template <class T, class Index>
const ReductionKernel<T>& subset_extremum_kernel(const Context& context, bool largest) {
    require_number<T>();
    auto text = [](bool max, bool checked) {
        return reduction_text<T>(max ? "clalgo_subset_max" : "clalgo_subset_min",
                                 subset_arguments<T, Index>("const " + type_name<T>() + " *x"),
                                 max ? cl_lowest<T>() : cl_highest<T>(), extremum_reduce<T>(max),
                                 "x[" + subset_index(checked) + "]");
    };
    static const ReductionText texts[2][2] = {{text(false, false), text(false, true)},
                                              {text(true, false), text(true, true)}};
    return cached_reduction<T>(context, texts[largest][subset_checked()]);
}

/// The sum of x[k] * y[k] over the picked k, products in sum_type_t<T> (complex products for std::complex).
template <class T, class Index>
const ReductionKernel<sum_type_t<T>>& subset_dot_kernel(const Context& context) {
    require_summable<T>();
    auto text = [](bool checked) {
        const std::string value = type_name<T>(), sum = type_name<sum_type_t<T>>(), k = subset_index(checked);
        std::string map = "(" + sum + ")x[" + k + "] * (" + sum + ")y[" + k + "]";
        if constexpr (IsStdComplex<T>::value) map = "clalgo_cmul(x[" + k + "], y[" + k + "])";
        const std::string arrays = "const " + value + " *x, const " + value + " *y";
        return reduction_text<sum_type_t<T>>("clalgo_subset_dot", subset_arguments<T, Index>(arrays), "0", "a + b",
                                             map);
    };
    static const ReductionText texts[2] = {text(false), text(true)};
    return cached_reduction<sum_type_t<T>>(context, texts[subset_checked()]);
}

}  // namespace detail

/// The sum of x[indices[k]] over every k of indices, as sum_type_t<T> (see sum); blocks. indices holds 32- or
/// 64-bit integers and may repeat an index (it is then counted again).
template <class T, class Index>
sum_type_t<T> subset_sum(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices) {
    const cl_long last = detail::subset_last("subset_sum", x.size(), indices.size());
    const auto& kernel = detail::subset_sum_kernel<T, Index>(queue.context());
    return kernel(queue, detail::subset_range(indices.size()), x, indices, last);
}

/// subset_sum into `result` (one element) on the device; returns the event.
template <class T, class Index>
Event subset_sum(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices,
                 const ArrayView<sum_type_t<T>>& result, const WaitFor& wait = {}) {
    detail::require_result("subset_sum", result, queue);
    const cl_long last = detail::subset_last("subset_sum", x.size(), indices.size());
    return detail::subset_sum_kernel<T, Index>(queue.context())
        .into(queue, result, detail::subset_range(indices.size()), x, indices, last, wait);
}

/// The smallest of the picked elements (as min: T's highest value where indices is empty; NaN where one is NaN).
template <class T, class Index>
T subset_min(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices) {
    const cl_long last = detail::subset_last("subset_min", x.size(), indices.size());
    const auto& kernel = detail::subset_extremum_kernel<T, Index>(queue.context(), false);
    return kernel(queue, detail::subset_range(indices.size()), x, indices, last);
}

template <class T, class Index>
Event subset_min(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices,
                 const ArrayView<T>& result, const WaitFor& wait = {}) {
    detail::require_result("subset_min", result, queue);
    const cl_long last = detail::subset_last("subset_min", x.size(), indices.size());
    return detail::subset_extremum_kernel<T, Index>(queue.context(), false)
        .into(queue, result, detail::subset_range(indices.size()), x, indices, last, wait);
}

/// The largest of the picked elements (as max: T's lowest value where indices is empty; NaN where one is NaN).
template <class T, class Index>
T subset_max(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices) {
    const cl_long last = detail::subset_last("subset_max", x.size(), indices.size());
    const auto& kernel = detail::subset_extremum_kernel<T, Index>(queue.context(), true);
    return kernel(queue, detail::subset_range(indices.size()), x, indices, last);
}

template <class T, class Index>
Event subset_max(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices,
                 const ArrayView<T>& result, const WaitFor& wait = {}) {
    detail::require_result("subset_max", result, queue);
    const cl_long last = detail::subset_last("subset_max", x.size(), indices.size());
    return detail::subset_extremum_kernel<T, Index>(queue.context(), true)
        .into(queue, result, detail::subset_range(indices.size()), x, indices, last, wait);
}

/// The sum of x[indices[k]] * y[indices[k]] (as dot: products and sum in sum_type_t<T>, no conjugate for complex);
/// x and y must have the same size.
template <class T, class Index>
sum_type_t<T> subset_dot(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y,
                         const ArrayView<Index>& indices) {
    detail::require_same_size("subset_dot", "y", y.size(), "x", x.size());
    const cl_long last = detail::subset_last("subset_dot", x.size(), indices.size());
    const auto& kernel = detail::subset_dot_kernel<T, Index>(queue.context());
    return kernel(queue, detail::subset_range(indices.size()), x, y, indices, last);
}

template <class T, class Index>
Event subset_dot(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y, const ArrayView<Index>& indices,
                 const ArrayView<sum_type_t<T>>& result, const WaitFor& wait = {}) {
    detail::require_same_size("subset_dot", "y", y.size(), "x", x.size());
    detail::require_result("subset_dot", result, queue);
    const cl_long last = detail::subset_last("subset_dot", x.size(), indices.size());
    return detail::subset_dot_kernel<T, Index>(queue.context())
        .into(queue, result, detail::subset_range(indices.size()), x, y, indices, last, wait);
}

}  // namespace clalgo
