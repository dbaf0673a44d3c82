// segmented_reduce: each segment [offsets[s], offsets[s+1]) of an array reduced in order into out[s], with the
// kernel built once per context and expressions.
//   clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0");
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/kernels/segmented_reduce.hpp>

#include <memory>
#include <string>

namespace clalgo {

/// Reduces each segment of `values` with `reduce_expr` from `neutral` into `out` (offsets.size() - 1 elements).
template <class T, class Offset>
cl::Event segmented_reduce(const Queue& queue, const ArrayView<T>& values, const ArrayView<Offset>& offsets,
                           const ArrayView<T>& out, const std::string& reduce_expr, const std::string& neutral,
                           const SegmentedReduceOptions& options = {}, const WaitFor& wait = {}) {
    std::string key = "segmented_reduce " + type_name<T>() + " " + type_name<Offset>();
    for (const std::string* part : {&reduce_expr, &neutral, &options.name, &options.preamble, &options.build_options})
        key += '\0' + *part;
    const auto& kernel = detail::cached_kernel<SegmentedReductionKernel<T, Offset>>(queue.context(), key, [&] {
        return std::make_shared<SegmentedReductionKernel<T, Offset>>(queue.context(), reduce_expr, neutral, options);
    });
    return kernel(queue, values, offsets, out, wait);
}

}  // namespace clalgo
