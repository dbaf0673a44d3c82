// histogram: how many values fall into each of bins.size() even bins over [lower, upper); values outside (and
// NaNs) are not counted. The counts overwrite `bins`. For bins given by an expression, see HistogramKernel.
//   clalgo::Array<std::uint32_t> bins(q, 256);
//   clalgo::histogram(q, values, bins, {-1000, 1001});   // bin b holds [lower + b*w, lower + (b+1)*w), w = 2001/256
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/histogram.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace clalgo {

/// Even bins over [lower, upper): for integer values both must be whole numbers.
struct EvenBins {
    double lower = 0;
    double upper = 0;
};

/// Counts `values` into the even bins of `range`; asynchronous (returns the launch's event). Integer values bin
/// exactly: bin = (v - lower) * bins / (upper - lower), rounded down; floating-point ones in their own precision.
template <class T, class Count>
cl::Event histogram(const Queue& queue, const ArrayView<T>& values, const ArrayView<Count>& bins, const EvenBins& range,
                    const WaitFor& wait = {}) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "clalgo::histogram bins numbers");
    if (!(range.lower < range.upper))
        throw std::invalid_argument("clalgo: histogram: lower (" + std::to_string(range.lower) + ") must be below upper (" +
                                    std::to_string(range.upper) + ")");
    if (bins.empty()) throw std::invalid_argument("clalgo: histogram: the bins array is empty");
    const std::string type = type_name<T>();
    const auto bin_count = static_cast<cl_long>(bins.size());
    if constexpr (std::is_integral_v<T>) {
        using Bound = std::conditional_t<std::is_same_v<T, std::uint64_t>, cl_ulong, cl_long>;
        const std::string bound = std::is_same_v<T, std::uint64_t> ? "ulong" : "long";
        if (range.lower != std::floor(range.lower) || range.upper != std::floor(range.upper) ||
            range.lower < double(std::numeric_limits<Bound>::lowest()) || range.upper > double(std::numeric_limits<Bound>::max()))
            throw std::invalid_argument("clalgo: histogram: the bounds of bins over integer values must be whole numbers of '" +
                                        bound + "'");
        const long double width = static_cast<long double>(range.upper) - static_cast<long double>(range.lower);
        if (width * static_cast<long double>(bins.size()) >= 18446744073709551616.0L)
            throw std::invalid_argument("clalgo: histogram: (upper - lower) x bins must stay below 2^64 for exact integer bins");
        const auto& kernel = detail::cached_kernel<HistogramKernel<Count>>(
            queue.context(), "histogram even " + type + " " + type_name<Count>(), [&] {
                HistogramOptions options;
                options.name = "histogram";
                return std::make_shared<HistogramKernel<Count>>(
                    queue.context(), "const " + type + " *values, " + bound + " lower, " + bound + " upper, long bin_count",
                    "(values[i] >= lower && values[i] < upper) ? (long)((ulong)(values[i] - lower) * (ulong)bin_count / "
                    "(ulong)(upper - lower)) : -1L",
                    options);
            });
        return kernel(queue, bins, values, static_cast<Bound>(range.lower), static_cast<Bound>(range.upper), bin_count, wait);
    } else {
        const T lower = static_cast<T>(range.lower), upper = static_cast<T>(range.upper);
        const T scale = static_cast<T>(bins.size()) / (upper - lower);
        const auto& kernel = detail::cached_kernel<HistogramKernel<Count>>(
            queue.context(), "histogram even " + type + " " + type_name<Count>(), [&] {
                HistogramOptions options;
                options.name = "histogram";
                return std::make_shared<HistogramKernel<Count>>(
                    queue.context(), "const " + type + " *values, " + type + " lower, " + type + " upper, " + type +
                                         " scale, long bin_count",
                    "(values[i] >= lower && values[i] < upper) ? min((long)((values[i] - lower) * scale), bin_count - 1) : -1L",
                    options);
            });
        return kernel(queue, bins, values, lower, upper, scale, bin_count, wait);
    }
}

}  // namespace clalgo
