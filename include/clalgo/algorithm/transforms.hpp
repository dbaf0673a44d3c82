// Whole-array maps in one call: iota, arange, fill, take, scatter, reverse, astype, maximum, minimum, where and
// transform. Each builds its ElementwiseKernel once per context and types (kept by detail::cached_kernel).
//   auto x = clalgo::arange<float>(q, 0, 10, 0.5f);                 // 0, 0.5, ..., 9.5
//   auto picked = clalgo::take(q, x, indices);                      // picked[i] = x[indices[i]]
//   auto big = clalgo::maximum(q, x, y);  clalgo::reverse(q, x);    // new array; in place
//   clalgo::transform(q, x, out, "x[i] * x[i] + 1");                // an expression of i over the array x
// Calls returning an Array enqueue their work and return at once: the array is ready for the next command on the
// same (in-order) queue, and for the host once it is read back. Calls with an output array return the event.
#pragma once

#include <clalgo/codegen/code_shape.hpp>
#include <clalgo/algorithm/array_checks.hpp>
#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/elementwise.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace clalgo {

namespace detail {

/// Keeps a parameter out of template argument deduction: fill(q, x, 1) with a float x fills with 1.0f.
template <class T>
struct NonDeduced {
    using type = T;
};
template <class T>
using non_deduced_t = typename NonDeduced<T>::type;

/// The elementwise kernel of these declarations and operation, built once per context.
inline const ElementwiseKernel& cached_map(const Context& context, const std::string& name,
                                           const std::string& arguments, const std::string& operation) {
    return cached_kernel<ElementwiseKernel>(context, "array map " + name + '\0' + arguments + '\0' + operation, [&] {
        ElementwiseOptions options;
        options.name = name;
        return std::make_shared<ElementwiseKernel>(context, arguments, operation, options);
    });
}

inline IndexRange all_indices(std::size_t count) { return IndexRange{0, static_cast<std::int64_t>(count), 1}; }

/// OpenCL C that sets out[i] to the larger (`larger` true) or smaller of x[i] and y[i]; NaN wins, as in numpy.
template <class T>
std::string pick_operation(bool larger) {
    if constexpr (std::is_floating_point_v<T>) {
        const std::string value = type_name<T>();
        return "const " + value + " a = x[i], b = y[i];\nout[i] = (a " + (larger ? ">" : "<") + " b || isnan(a)) ? a : b";
    } else {
        return std::string("out[i] = ") + (larger ? "max" : "min") + "(x[i], y[i])";
    }
}

}  // namespace detail

/// x[i] = start + i. Returns the event.
template <class T>
Event iota(const Queue& queue, const ArrayView<T>& x, detail::non_deduced_t<T> start = T(0),
           const WaitFor& wait = {}) {
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_iota", value + " *x, " + value + " start",
                              "x[i] = (" + value + ")(start + (" + value + ")i)")(queue, detail::all_indices(x.size()), x,
                                                                                start, wait);
}

/// A new array of start, start + step, ... while below stop (above it for a negative step), as numpy's arange:
/// ceil((stop - start) / step) elements, start + i * step computed in T. Throws std::invalid_argument where step is 0.
template <class T>
Array<T> arange(const Queue& queue, T start, T stop, T step = T(1)) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "clalgo: arange makes arrays of numbers");
    if (step == T(0)) throw std::invalid_argument("clalgo: arange: step must not be 0");
    std::size_t count = 0;
    if constexpr (std::is_floating_point_v<T>) {
        const double steps = std::ceil((double(stop) - double(start)) / double(step));
        if (!(steps <= 9.0e18)) throw std::invalid_argument("clalgo: arange: too many elements, or a NaN bound");
        count = steps > 0 ? static_cast<std::size_t>(steps) : 0;
    } else {
        // in unsigned 64-bit arithmetic, so that any bounds of T work
        const bool up = step > T(0);
        if (up ? stop > start : start > stop) {
            const std::uint64_t span = up ? std::uint64_t(stop) - std::uint64_t(start) : std::uint64_t(start) - std::uint64_t(stop);
            const std::uint64_t stride = up ? std::uint64_t(step) : std::uint64_t(0) - std::uint64_t(std::int64_t(step));
            count = static_cast<std::size_t>((span - 1) / stride + 1);
        }
    }
    Array<T> x(queue, count);
    const std::string value = type_name<T>();
    detail::cached_map(queue.context(), "clalgo_arange", value + " *x, " + value + " start, " + value + " step",
                       "x[i] = (" + value + ")(start + (" + value + ")i * step)")(queue, detail::all_indices(count), x, start,
                                                                                 step);
    return x;
}

/// Sets every element of x to value. Returns the event. Scalars on GPUs by a map kernel (NVIDIA's
/// clEnqueueFillBuffer writes at about half the bandwidth), else as ArrayView::fill.
template <class T>
Event fill(const Queue& queue, const ArrayView<T>& x, const detail::non_deduced_t<T>& value, const WaitFor& wait = {}) {
    if constexpr (detail::scalar_type_name<T>() != nullptr) {
        bool kernel = !x.empty() && detail::map_policy(queue.info()).fill_by_kernel;
        // the map is built for every device of the context: each must have the type
        for (std::size_t d = 0; kernel && d < queue.context().devices().size(); ++d)
            kernel = !std::is_same_v<T, double> || queue.context().info(d).has_fp64;
        if (kernel) {
            const std::string type = type_name<T>();
            return detail::cached_map(queue.context(), "clalgo_fill", type + " *x, " + type + " value", "x[i] = value")(
                queue, detail::all_indices(x.size()), x, value, wait);
        }
    }
    return x.fill(queue, value, detail::wait_list(queue, wait));
}

/// out[i] = x[indices[i]] for every i of indices (a gather); out has indices.size() elements. An index outside
/// [0, x.size()) is clamped to it (numpy's take with mode='clip'), so nothing is read outside x.
template <class T, class Index>
Event take(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices, const ArrayView<T>& out,
           const WaitFor& wait = {}) {
    detail::require_index<Index>();
    detail::require_same_size("take", "out", out.size(), "indices", indices.size());
    if (x.empty() && !indices.empty())
        throw std::invalid_argument("clalgo: take: x is empty but indices has " + std::to_string(indices.size()) +
                                    " elements");
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_take",
                              "const " + value + " *x, const " + type_name<Index>() + " *indices, " + value +
                                  " *out, long last",
                              "const long k = (long)indices[i];\nout[i] = x[k < 0 ? 0 : (k > last ? last : k)]")(
        queue, detail::all_indices(indices.size()), x, indices, out, static_cast<cl_long>(x.size()) - 1, wait);
}

/// A new array of x[indices[i]] (see the form with an output array).
template <class T, class Index>
Array<T> take(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices, const WaitFor& wait = {}) {
    Array<T> out(queue, indices.size());
    take(queue, x, indices, out.view(), wait);
    return out;
}

/// out[indices[i]] = x[i] for every i of x; indices has x.size() elements. An index outside [0, out.size()) is
/// skipped; where indices repeat, which of their elements lands is unspecified.
template <class T, class Index>
Event scatter(const Queue& queue, const ArrayView<T>& x, const ArrayView<Index>& indices, const ArrayView<T>& out,
              const WaitFor& wait = {}) {
    detail::require_index<Index>();
    detail::require_same_size("scatter", "indices", indices.size(), "x", x.size());
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_scatter",
                              "const " + value + " *x, const " + type_name<Index>() + " *indices, " + value +
                                  " *out, long size",
                              "const long k = (long)indices[i];\nif (k >= 0 && k < size) out[k] = x[i]")(
        queue, detail::all_indices(x.size()), x, indices, out, static_cast<cl_long>(out.size()), wait);
}

/// Reverses x in place. Returns the event.
template <class T>
Event reverse(const Queue& queue, const ArrayView<T>& x, const WaitFor& wait = {}) {
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_reverse", value + " *x, long size",
                              "const " + value + " t = x[i];\nx[i] = x[size - 1 - i];\nx[size - 1 - i] = t")(
        queue, detail::all_indices(x.size() / 2), x, static_cast<cl_long>(x.size()), wait);
}

/// out[i] = x[n - 1 - i]; out has x.size() elements and must not overlap x. Returns the event.
template <class T>
Event reverse(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& out, const WaitFor& wait = {}) {
    detail::require_same_size("reverse", "out", out.size(), "x", x.size());
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_reverse_into",
                              "const " + value + " *x, " + value + " *out, long size", "out[i] = x[size - 1 - i]")(
        queue, detail::all_indices(x.size()), x, out, static_cast<cl_long>(x.size()), wait);
}

/// out[i] = (U)x[i], OpenCL C's conversion (as C's: floating point to integer truncates toward zero, and a value
/// outside U's range is undefined). Returns the event.
template <class T, class U>
Event astype(const Queue& queue, const ArrayView<T>& x, const ArrayView<U>& out, const WaitFor& wait = {}) {
    detail::require_same_size("astype", "out", out.size(), "x", x.size());
    const std::string from = type_name<T>(), to = type_name<U>();
    return detail::cached_map(queue.context(), "clalgo_astype", "const " + from + " *x, " + to + " *out",
                              "out[i] = (" + to + ")x[i]")(queue, detail::all_indices(x.size()), x, out, wait);
}

/// A new array of x's elements converted to U: `auto d = clalgo::astype<double>(q, x)`.
template <class U, class T>
Array<U> astype(const Queue& queue, const ArrayView<T>& x, const WaitFor& wait = {}) {
    Array<U> out(queue, x.size());
    astype(queue, x, out.view(), wait);
    return out;
}

/// out[i] = the larger of x[i] and y[i] (NaN where either is, as numpy's maximum). Returns the event.
template <class T>
Event maximum(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y, const ArrayView<T>& out,
              const WaitFor& wait = {}) {
    detail::require_same_size("maximum", "y", y.size(), "x", x.size());
    detail::require_same_size("maximum", "out", out.size(), "x", x.size());
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_maximum",
                              "const " + value + " *x, const " + value + " *y, " + value + " *out",
                              detail::pick_operation<T>(true))(queue, detail::all_indices(x.size()), x, y, out, wait);
}

template <class T>
Array<T> maximum(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y, const WaitFor& wait = {}) {
    detail::require_same_size("maximum", "y", y.size(), "x", x.size());
    Array<T> out(queue, x.size());
    maximum(queue, x, y, out.view(), wait);
    return out;
}

/// out[i] = the smaller of x[i] and y[i] (NaN where either is, as numpy's minimum). Returns the event.
template <class T>
Event minimum(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y, const ArrayView<T>& out,
              const WaitFor& wait = {}) {
    detail::require_same_size("minimum", "y", y.size(), "x", x.size());
    detail::require_same_size("minimum", "out", out.size(), "x", x.size());
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_minimum",
                              "const " + value + " *x, const " + value + " *y, " + value + " *out",
                              detail::pick_operation<T>(false))(queue, detail::all_indices(x.size()), x, y, out, wait);
}

template <class T>
Array<T> minimum(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y, const WaitFor& wait = {}) {
    detail::require_same_size("minimum", "y", y.size(), "x", x.size());
    Array<T> out(queue, x.size());
    minimum(queue, x, y, out.view(), wait);
    return out;
}

/// out[i] = cond[i] ? x[i] : y[i], where cond holds numbers (not zero: true). Returns the event.
template <class C, class T>
Event where(const Queue& queue, const ArrayView<C>& cond, const ArrayView<T>& x, const ArrayView<T>& y,
            const ArrayView<T>& out, const WaitFor& wait = {}) {
    detail::require_same_size("where", "x", x.size(), "cond", cond.size());
    detail::require_same_size("where", "y", y.size(), "cond", cond.size());
    detail::require_same_size("where", "out", out.size(), "cond", cond.size());
    const std::string value = type_name<T>();
    return detail::cached_map(queue.context(), "clalgo_where",
                              "const " + type_name<C>() + " *cond, const " + value + " *x, const " + value + " *y, " +
                                  value + " *out",
                              "out[i] = cond[i] ? x[i] : y[i]")(queue, detail::all_indices(cond.size()), cond, x, y, out, wait);
}

template <class C, class T>
Array<T> where(const Queue& queue, const ArrayView<C>& cond, const ArrayView<T>& x, const ArrayView<T>& y,
               const WaitFor& wait = {}) {
    detail::require_same_size("where", "x", x.size(), "cond", cond.size());
    Array<T> out(queue, cond.size());
    where(queue, cond, x, y, out.view(), wait);
    return out;
}

/// out[i] = expression, an OpenCL C expression of i and n over the array named x ("x[i] * 2", "sqrt(x[i])"),
/// converted to U. out has x.size() elements and may be x itself. One kernel per expression and types.
template <class T, class U>
Event transform(const Queue& queue, const ArrayView<T>& x, const ArrayView<U>& out, const std::string& expression,
                const WaitFor& wait = {}) {
    detail::require_same_size("transform", "out", out.size(), "x", x.size());
    detail::check_user_code("transform", "expression", expression);
    const std::string to = type_name<U>();
    return detail::cached_map(queue.context(), "clalgo_transform", "const " + type_name<T>() + " *x, " + to + " *out",
                              "out[i] = (" + to + ")(" + expression + ")")(queue, detail::all_indices(x.size()), x, out, wait);
}

/// out[i] = expression over the arrays named x and y ("x[i] * y[i]"); x, y and out have the same size.
template <class T, class V, class U>
Event transform(const Queue& queue, const ArrayView<T>& x, const ArrayView<V>& y, const ArrayView<U>& out,
                const std::string& expression, const WaitFor& wait = {}) {
    detail::require_same_size("transform", "y", y.size(), "x", x.size());
    detail::require_same_size("transform", "out", out.size(), "x", x.size());
    detail::check_user_code("transform", "expression", expression);
    const std::string to = type_name<U>();
    return detail::cached_map(queue.context(), "clalgo_transform2",
                              "const " + type_name<T>() + " *x, const " + type_name<V>() + " *y, " + to + " *out",
                              "out[i] = (" + to + ")(" + expression + ")")(queue, detail::all_indices(x.size()), x, y, out,
                                                                          wait);
}

}  // namespace clalgo
