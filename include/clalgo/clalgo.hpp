// clalgo: GPU algorithms on OpenCL from small OpenCL C expressions, in C++17.
//   #include <clalgo/clalgo.hpp>
//   auto ctx = clalgo::Context::default_context();  clalgo::Queue q(ctx);
//   clalgo::ElementwiseKernel square(ctx, "float *x", "x[i] = x[i] * x[i]");
#pragma once

#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/device_info.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/memory_pool.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/program_cache.hpp>
#include <clalgo/policy/comparison_sort.hpp>
#include <clalgo/kernels/elementwise.hpp>
#include <clalgo/kernels/reduction.hpp>
#include <clalgo/kernels/radix_sort.hpp>
#include <clalgo/kernels/raw_kernel.hpp>
#include <clalgo/kernels/merge_sort.hpp>
#include <clalgo/kernels/scan.hpp>
#include <clalgo/algorithm/comparison_sort.hpp>
#include <clalgo/algorithm/copy_if.hpp>
#include <clalgo/algorithm/histogram.hpp>
#include <clalgo/algorithm/partition.hpp>
#include <clalgo/algorithm/reduce_by_key.hpp>
#include <clalgo/algorithm/reductions.hpp>
#include <clalgo/algorithm/remove_if.hpp>
#include <clalgo/algorithm/segmented_reduce.hpp>
#include <clalgo/algorithm/sort.hpp>
#include <clalgo/algorithm/subset_reductions.hpp>
#include <clalgo/algorithm/transforms.hpp>
#include <clalgo/algorithm/unique.hpp>
#include <clalgo/algorithm/list_builder.hpp>
#include <clalgo/policy/segments.hpp>
#include <clalgo/cl/philox.hpp>
#include <clalgo/tuning/autotune.hpp>
#include <clalgo/multi/split_algorithms.hpp>
#include <clalgo/multi/split_array.hpp>
