// Whole-array reductions in one call: sum, min, max, dot, vdot, count_if, any_of, all_of, argmin, argmax. Each builds
// its ReductionKernel once per context and element type (kept by detail::cached_kernel), then only launches.
//   double total = clalgo::sum(q, x);                          // blocks; sum_type_t<T>: 64-bit for integers
//   std::int64_t where = clalgo::argmax(q, x);                 // index of the first largest element, -1 if empty
//   std::int64_t hits = clalgo::count_if(q, x, "x[i] > 0");    // a predicate of i over the array named x
//   clalgo::sum(q, x, total_on_device);                        // into a one-element array: returns the event
// An empty array gives the neutral element: 0 for sum, dot and count_if, T's highest value (INFINITY for floating
// point) for min, its lowest for max, false for any_of, true for all_of, -1 for argmin and argmax.
#pragma once

#include <clalgo/codegen/code_shape.hpp>
#include <clalgo/algorithm/array_checks.hpp>
#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/elementwise.hpp>
#include <clalgo/kernels/reduction.hpp>

#include <complex>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace clalgo {

/// What sum and dot return for elements of T: T for float and double, std::int64_t for signed and std::uint64_t
/// for unsigned integers of any width (as numpy's sum), so that sums of 8- to 32-bit integers do not wrap.
/// std::complex<float> and std::complex<double> sum as themselves.
template <class T>
using sum_type_t = std::conditional_t<std::is_floating_point_v<T> || detail::IsStdComplex<T>::value, T,
                                      std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

namespace detail {

template <class T>
constexpr void require_number() {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "clalgo: array reductions take arrays of integers, float or double");
}

/// sum, dot and vdot also take std::complex<float> and <double>.
template <class T>
constexpr void require_summable() {
    static_assert((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, std::complex<float>> ||
                      std::is_same_v<T, std::complex<double>>,
                  "clalgo: sum, dot and vdot take arrays of integers, float, double, std::complex<float> or "
                  "std::complex<double>");
}

/// OpenCL C spellings of T's lowest and highest values (the infinities for floating point).
template <class T>
std::string cl_lowest() {
    if constexpr (std::is_floating_point_v<T>) return "-INFINITY";
    else if constexpr (std::is_unsigned_v<T>) return "0";
    else if constexpr (sizeof(T) == 1) return "CHAR_MIN";
    else if constexpr (sizeof(T) == 2) return "SHRT_MIN";
    else if constexpr (sizeof(T) == 4) return "INT_MIN";
    else return "LONG_MIN";
}

template <class T>
std::string cl_highest() {
    if constexpr (std::is_floating_point_v<T>) return "INFINITY";
    else if constexpr (sizeof(T) == 1) return std::is_signed_v<T> ? "CHAR_MAX" : "UCHAR_MAX";
    else if constexpr (sizeof(T) == 2) return std::is_signed_v<T> ? "SHRT_MAX" : "USHRT_MAX";
    else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? "INT_MAX" : "UINT_MAX";
    else return std::is_signed_v<T> ? "LONG_MAX" : "ULONG_MAX";
}

/// What an array reduction's kernel is made of, and the key it is kept under in the context (made once: the calls
/// whose text depends only on the types keep theirs in a static, so that finding the kernel costs one lookup).
struct ReductionText {
    std::string name, arguments, neutral, reduce_expr, map_expr, preamble;
    std::string key;
};

template <class Result>
ReductionText reduction_text(std::string name, std::string arguments, std::string neutral, std::string reduce_expr,
                             std::string map_expr, std::string preamble = "") {
    std::string key = "array reduction " + name + '\0' + type_name<Result>() + '\0' + arguments + '\0' + neutral +
                      '\0' + reduce_expr + '\0' + map_expr + '\0' + preamble;
    return ReductionText{std::move(name),     std::move(arguments), std::move(neutral), std::move(reduce_expr),
                         std::move(map_expr), std::move(preamble),  std::move(key)};
}

/// The reduction kernel of this text, built once per context.
template <class Result>
const ReductionKernel<Result>& cached_reduction(const Context& context, const ReductionText& text) {
    return cached_kernel<ReductionKernel<Result>>(context, text.key, [&] {
        ReductionOptions options;
        options.name = text.name;
        options.preamble = text.preamble;
        return std::make_shared<ReductionKernel<Result>>(context, text.neutral, text.reduce_expr, text.map_expr,
                                                         text.arguments, options);
    });
}

template <class T>
const ReductionKernel<sum_type_t<T>>& sum_kernel(const Context& context) {
    require_summable<T>();
    static const ReductionText text =
        reduction_text<sum_type_t<T>>("clalgo_sum", "const " + type_name<T>() + " *x", "0", "a + b", "x[i]");
    return cached_reduction<sum_type_t<T>>(context, text);
}

/// The reduce_expr of min (`largest` false) or max: NaN wins, as in numpy, so a NaN anywhere gives NaN.
template <class T>
std::string extremum_reduce(bool largest) {
    const char* compare = largest ? ">" : "<";
    return std::is_floating_point_v<T> ? std::string("(a ") + compare + " b || isnan(a)) ? a : b"
                                       : std::string(largest ? "max(a, b)" : "min(a, b)");
}

template <class T>
const ReductionKernel<T>& extremum_kernel(const Context& context, bool largest) {
    require_number<T>();
    auto text = [](bool max) {
        return reduction_text<T>(max ? "clalgo_max" : "clalgo_min", "const " + type_name<T>() + " *x",
                                 max ? cl_lowest<T>() : cl_highest<T>(), extremum_reduce<T>(max), "x[i]");
    };
    static const ReductionText min_text = text(false), max_text = text(true);
    return cached_reduction<T>(context, largest ? max_text : min_text);
}

/// dot (`conjugate` false: the sum of x[i] * y[i]) or vdot (the sum of conj(x[i]) * y[i]; the same as dot for
/// real numbers).
template <class T>
const ReductionKernel<sum_type_t<T>>& dot_kernel(const Context& context, bool conjugate = false) {
    require_summable<T>();
    auto text = [](bool conj) {
        const std::string value = type_name<T>(), sum = type_name<sum_type_t<T>>();
        std::string map = "(" + sum + ")x[i] * (" + sum + ")y[i]";
        if constexpr (IsStdComplex<T>::value)
            map = conj ? "clalgo_cmul(clalgo_conj(x[i]), y[i])" : "clalgo_cmul(x[i], y[i])";
        return reduction_text<sum_type_t<T>>(conj && IsStdComplex<T>::value ? "clalgo_vdot" : "clalgo_dot",
                                             "const " + value + " *x, const " + value + " *y", "0", "a + b", map);
    };
    static const ReductionText dot_text = text(false), vdot_text = text(true);
    return cached_reduction<sum_type_t<T>>(context, conjugate ? vdot_text : dot_text);
}

/// count_if, any_of and all_of: the predicate mapped to 1 or 0, then summed, or-ed or and-ed.
template <class Result, class T>
const ReductionKernel<Result>& predicate_kernel(const Context& context, const char* name, const char* neutral,
                                                const char* reduce, const std::string& predicate) {
    require_number<T>();
    check_user_code(std::string(name).substr(7), "predicate", predicate);  // the call's name, after "clalgo_"
    return cached_reduction<Result>(context, reduction_text<Result>(name, "const " + type_name<T>() + " *x", neutral,
                                                                    reduce, "(" + predicate + ") ? 1 : 0"));
}

/// argmin and argmax reduce (value, index) pairs held in a long2: the value's bits in .x, its index in .y. The
/// better value wins (NaN beats every number, as in numpy), then the smaller index; the neutral pair has the
/// index LONG_MAX, which every element beats.
template <class T>
std::string arg_preamble(bool largest) {
    const std::string value = type_name<T>();
    std::string encode = "(long)v", decode = "(" + value + ")k";
    if constexpr (std::is_same_v<T, float>) encode = "(long)as_int(v)", decode = "as_float((int)k)";
    else if constexpr (std::is_same_v<T, double>) encode = "as_long(v)", decode = "as_double(k)";
    else if constexpr (std::is_same_v<T, std::uint64_t>) encode = "as_long(v)", decode = "as_ulong(k)";
    const std::string better = std::string("a ") + (largest ? ">" : "<") + " b";
    return "inline long clalgo_arg_encode(" + value + " v) { return " + encode + "; }\n" +
           "inline " + value + " clalgo_arg_decode(long k) { return " + decode + "; }\n" +
           "inline int clalgo_arg_better(" + value + " a, " + value + " b) { return " +
           (std::is_floating_point_v<T> ? "(isnan(a) && !isnan(b)) || " + better : better) + "; }\n" +
           "inline long2 clalgo_arg_pick(long2 p, long2 q) {\n"
           "    const " + value + " vp = clalgo_arg_decode(p.x), vq = clalgo_arg_decode(q.x);\n"
           "    return (clalgo_arg_better(vq, vp) || (!clalgo_arg_better(vp, vq) && q.y < p.y)) ? q : p;\n"
           "}\n";
}

template <class T>
const ReductionKernel<cl_long2>& arg_kernel(const Context& context, bool largest) {
    require_number<T>();
    auto text = [](bool max) {
        const std::string highest_first = max ? cl_lowest<T>() : cl_highest<T>();  // every element beats it
        const std::string neutral = "(long2)(clalgo_arg_encode(" + highest_first + "), LONG_MAX)";
        return reduction_text<cl_long2>(max ? "clalgo_argmax" : "clalgo_argmin", "const " + type_name<T>() + " *x",
                                        neutral, "clalgo_arg_pick(a, b)", "(long2)(clalgo_arg_encode(x[i]), i)",
                                        arg_preamble<T>(max));
    };
    static const ReductionText min_text = text(false), max_text = text(true);
    return cached_reduction<cl_long2>(context, largest ? max_text : min_text);
}

/// Copies the index of an argmin/argmax pair into a one-element int64 array (-1 for the neutral pair).
inline const ElementwiseKernel& arg_index_kernel(const Context& context) {
    return cached_kernel<ElementwiseKernel>(context, "array arg index", [&] {
        ElementwiseOptions options;
        options.name = "clalgo_arg_index";
        return std::make_shared<ElementwiseKernel>(context, "long *index, const long2 *pair",
                                                   "index[0] = pair[0].y == LONG_MAX ? -1 : pair[0].y", options);
    });
}

template <class T>
std::int64_t arg_host(const Queue& queue, const ArrayView<T>& x, bool largest) {
    const cl_long2 pair = arg_kernel<T>(queue.context(), largest)(queue, x);
    return pair.s[1] == CL_LONG_MAX ? -1 : pair.s[1];
}

template <class T>
Event arg_device(const Queue& queue, const ArrayView<T>& x, const ArrayView<std::int64_t>& result,
                 const WaitFor& wait, bool largest) {
    require_result(largest ? "argmax" : "argmin", result, queue);
    const DeviceResult<cl_long2> pair = arg_kernel<T>(queue.context(), largest).async(queue, x, wait);
    // pair.value is released on return: OpenCL deletes its buffer only once the launch below that reads it is done;
    // the launch follows the reduction on the in-order queue
    return arg_index_kernel(queue.context())(queue, range(0, 1), result, pair.value);
}

}  // namespace detail

/// The sum of the elements, as sum_type_t<T> (64-bit for integers, T for float and double); blocks. Floating-point
/// sums are combined in a device-specific order (a tree), so they may differ from a sequential sum by rounding.
template <class T>
sum_type_t<T> sum(const Queue& queue, const ArrayView<T>& x) {
    return detail::sum_kernel<T>(queue.context())(queue, x);
}

/// The sum into `result` (one element) on the device; returns the event.
template <class T>
Event sum(const Queue& queue, const ArrayView<T>& x, const ArrayView<sum_type_t<T>>& result,
          const WaitFor& wait = {}) {
    detail::require_result("sum", result, queue);
    return detail::sum_kernel<T>(queue.context()).into(queue, result, x, wait);
}

/// The smallest element (T's highest value, INFINITY for floating point, where x is empty); NaN where x holds one.
template <class T>
T min(const Queue& queue, const ArrayView<T>& x) {
    return detail::extremum_kernel<T>(queue.context(), false)(queue, x);
}

template <class T>
Event min(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& result, const WaitFor& wait = {}) {
    detail::require_result("min", result, queue);
    return detail::extremum_kernel<T>(queue.context(), false).into(queue, result, x, wait);
}

/// The largest element (T's lowest value, -INFINITY for floating point, where x is empty); NaN where x holds one.
template <class T>
T max(const Queue& queue, const ArrayView<T>& x) {
    return detail::extremum_kernel<T>(queue.context(), true)(queue, x);
}

template <class T>
Event max(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& result, const WaitFor& wait = {}) {
    detail::require_result("max", result, queue);
    return detail::extremum_kernel<T>(queue.context(), true).into(queue, result, x, wait);
}

/// The sum of x[i] * y[i], the products and the sum in sum_type_t<T> (complex products for std::complex: no
/// conjugate, see vdot); x and y must have the same size.
template <class T>
sum_type_t<T> dot(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y) {
    detail::require_same_size("dot", "y", y.size(), "x", x.size());
    return detail::dot_kernel<T>(queue.context())(queue, x, y);
}

template <class T>
Event dot(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y, const ArrayView<sum_type_t<T>>& result,
          const WaitFor& wait = {}) {
    detail::require_same_size("dot", "y", y.size(), "x", x.size());
    detail::require_result("dot", result, queue);
    return detail::dot_kernel<T>(queue.context()).into(queue, result, x, y, wait);
}

/// The sum of conj(x[i]) * y[i] (numpy's vdot, BLAS's cdotc and zdotc); dot for real numbers. x and y must have
/// the same size.
template <class T>
sum_type_t<T> vdot(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y) {
    detail::require_same_size("vdot", "y", y.size(), "x", x.size());
    return detail::dot_kernel<T>(queue.context(), true)(queue, x, y);
}

template <class T>
Event vdot(const Queue& queue, const ArrayView<T>& x, const ArrayView<T>& y, const ArrayView<sum_type_t<T>>& result,
           const WaitFor& wait = {}) {
    detail::require_same_size("vdot", "y", y.size(), "x", x.size());
    detail::require_result("vdot", result, queue);
    return detail::dot_kernel<T>(queue.context(), true).into(queue, result, x, y, wait);
}

/// How many indices i of x satisfy `predicate`, an OpenCL C expression of i and n over the array named x
/// ("x[i] > 0", "x[i] != x[n - 1 - i]"). One kernel is built per predicate and type.
template <class T>
std::int64_t count_if(const Queue& queue, const ArrayView<T>& x, const std::string& predicate) {
    return detail::predicate_kernel<std::int64_t, T>(queue.context(), "clalgo_count_if", "0", "a + b", predicate)(queue, x);
}

template <class T>
Event count_if(const Queue& queue, const ArrayView<T>& x, const ArrayView<std::int64_t>& result,
               const std::string& predicate, const WaitFor& wait = {}) {
    detail::require_result("count_if", result, queue);
    return detail::predicate_kernel<std::int64_t, T>(queue.context(), "clalgo_count_if", "0", "a + b", predicate)
        .into(queue, result, x, wait);
}

/// Whether `predicate` (as for count_if) holds for some index; false for an empty x. Every element is read.
template <class T>
bool any_of(const Queue& queue, const ArrayView<T>& x, const std::string& predicate) {
    return detail::predicate_kernel<std::int32_t, T>(queue.context(), "clalgo_any_of", "0", "a | b", predicate)(queue, x) != 0;
}

/// any_of into `result` (one int32 element: 1 or 0) on the device; returns the event.
template <class T>
Event any_of(const Queue& queue, const ArrayView<T>& x, const ArrayView<std::int32_t>& result,
             const std::string& predicate, const WaitFor& wait = {}) {
    detail::require_result("any_of", result, queue);
    return detail::predicate_kernel<std::int32_t, T>(queue.context(), "clalgo_any_of", "0", "a | b", predicate)
        .into(queue, result, x, wait);
}

/// Whether `predicate` (as for count_if) holds for every index; true for an empty x.
template <class T>
bool all_of(const Queue& queue, const ArrayView<T>& x, const std::string& predicate) {
    return detail::predicate_kernel<std::int32_t, T>(queue.context(), "clalgo_all_of", "1", "a & b", predicate)(queue, x) != 0;
}

/// all_of into `result` (one int32 element: 1 or 0) on the device; returns the event.
template <class T>
Event all_of(const Queue& queue, const ArrayView<T>& x, const ArrayView<std::int32_t>& result,
             const std::string& predicate, const WaitFor& wait = {}) {
    detail::require_result("all_of", result, queue);
    return detail::predicate_kernel<std::int32_t, T>(queue.context(), "clalgo_all_of", "1", "a & b", predicate)
        .into(queue, result, x, wait);
}

/// The index of the first smallest element; -1 for an empty x. A NaN counts as smaller than any number (the
/// first NaN's index is returned, as in numpy).
template <class T>
std::int64_t argmin(const Queue& queue, const ArrayView<T>& x) {
    return detail::arg_host(queue, x, false);
}

/// argmin into `result` (one int64 element) on the device; returns the event.
template <class T>
Event argmin(const Queue& queue, const ArrayView<T>& x, const ArrayView<std::int64_t>& result,
             const WaitFor& wait = {}) {
    return detail::arg_device(queue, x, result, wait, false);
}

/// The index of the first largest element; -1 for an empty x. A NaN counts as larger than any number.
template <class T>
std::int64_t argmax(const Queue& queue, const ArrayView<T>& x) {
    return detail::arg_host(queue, x, true);
}

template <class T>
Event argmax(const Queue& queue, const ArrayView<T>& x, const ArrayView<std::int64_t>& result,
             const WaitFor& wait = {}) {
    return detail::arg_device(queue, x, result, wait, true);
}

}  // namespace clalgo
