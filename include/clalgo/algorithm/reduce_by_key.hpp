// reduce_by_key and unique_by_key over runs of equal consecutive keys (as Thrust's and CUB's): each run gives
// its key and the reduction of its values in order (the operator need not be commutative), or its first value.
// A composition of two scans: the first numbers the runs (and counts them), the second, segmented by the runs,
// reduces the values and writes each run's total at its last item. Extra device memory: one long per item, kept
// per queue between calls.
//   auto [keys_out, sums, runs] = clalgo::reduce_by_key(q, keys, values, "a+b", "0");
//   std::int64_t how_many = runs.get(q);              // keys_out.view(0, how_many), sums.view(0, how_many)
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/algorithm/selection.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/scan.hpp>
#include <clalgo/kernels/scratch.hpp>

#include <mutex>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace clalgo {

/// The runs' keys and reduced values (the first count.get(q) elements of each) and their number.
template <class K, class V>
struct ReduceByKeyResult {
    Array<K> keys;
    Array<V> values;
    DeviceCount count;
};

/// Helper code and compiler options for the reduction's expressions.
struct ReduceByKeyOptions {
    std::string preamble;
    std::string build_options;
};

namespace detail {

/// runs[i] = the number of the run that holds item i; the total is the number of runs. Heads of runs write their
/// key and value where `first_of_run` is set (unique_by_key), while there is room.
template <class K, class V>
const GenericScanKernel<cl_long>& run_numbering(const Context& context, bool first_of_run) {
    const std::string key = type_name<K>(), value = type_name<V>();
    return cached_kernel<GenericScanKernel<cl_long>>(
        context, "runs " + key + " " + value + (first_of_run ? " first" : ""), [&] {
            ScanOptions options;
            options.name = first_of_run ? "unique_by_key" : "reduce_by_key_runs";
            const std::string output = first_of_run
                                           ? "if (prev_item != item && prev_item < capacity) {\n"
                                             "    keys_out[prev_item] = keys[i];\n    values_out[prev_item] = values[i];\n}"
                                           : "runs[i] = item - 1;";
            return std::make_shared<GenericScanKernel<cl_long>>(
                context, "const " + key + " *keys, const " + value + " *values, long *runs, " + key + " *keys_out, " +
                             value + " *values_out, long capacity",
                "(i == 0 || keys[i] != keys[i - 1]) ? 1 : 0", "a+b", "0", output, options);
        });
}

/// The run numbers of reduce_by_key, kept per queue between calls; the lock keeps one call's two scans together.
struct RunNumbers {
    std::mutex mutex;
    PerQueue<GrowingBuffer> buffers;
};

}  // namespace detail

/// Into arrays you keep: the key and the in-order reduction (`reduce_expr` over a and b, identity `neutral`) of
/// each run of equal consecutive keys go to the front of keys_out and values_out (as many as fit), the number of
/// runs to count (one element). Asynchronous; allocates only the run numbers (one long per item).
template <class K, class V>
cl::Event reduce_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values, const ArrayView<K>& keys_out,
                        const ArrayView<V>& values_out, const ArrayView<std::int64_t>& count, const std::string& reduce_expr,
                        const std::string& neutral, const ReduceByKeyOptions& options = {}, const WaitFor& wait = {}) {
    if (keys.size() != values.size())
        throw std::invalid_argument("clalgo: reduce_by_key: " + std::to_string(keys.size()) + " keys but " +
                                    std::to_string(values.size()) + " values");
    if (count.size() != 1) throw std::invalid_argument("clalgo: reduce_by_key needs a count of one element");
    const std::int64_t capacity = static_cast<std::int64_t>(std::min(keys_out.size(), values_out.size()));
    const std::size_t n = keys.size();
    if (n == 0) return count.fill(queue, 0, wait.events);
    auto& run_numbers = queue.context().state().attachment<detail::RunNumbers>();
    std::lock_guard<std::mutex> lock(run_numbers.mutex);
    auto& buffer = run_numbers.buffers.get(queue);
    buffer.reserve(queue, n * sizeof(std::int64_t));
    const ArrayView<std::int64_t> runs(buffer.buffer, 0, n);
    const auto& numbering = detail::run_numbering<K, V>(queue.context(), false);
    numbering.with_total(queue, count, keys, values, runs, keys_out, values_out, static_cast<cl_long>(capacity), wait);

    const std::string key = type_name<K>(), value = type_name<V>();
    std::string cache_key = "reduce_by_key " + key + " " + value;
    for (const std::string* part : {&reduce_expr, &neutral, &options.preamble, &options.build_options}) cache_key += '\0' + *part;
    const auto& reduce = detail::cached_kernel<GenericScanKernel<V>>(queue.context(), cache_key, [&] {
        ScanOptions scan_options;
        scan_options.name = "reduce_by_key";
        scan_options.preamble = options.preamble;
        scan_options.build_options = options.build_options;
        scan_options.is_segment_start_expr = "i == 0 || keys[i] != keys[i - 1]";
        return std::make_shared<GenericScanKernel<V>>(
            queue.context(),
            "const " + key + " *keys, const " + value + " *values, const long *runs, " + key + " *keys_out, " + value +
                " *values_out, long capacity",
            "values[i]", "across_seg_boundary ? b : (" + reduce_expr + ")", neutral,
            "if ((i == n - 1 || keys[i + 1] != keys[i]) && runs[i] < capacity) {\n"
            "    keys_out[runs[i]] = keys[i];\n    values_out[runs[i]] = item;\n}",
            scan_options);
    });
    return reduce(queue, keys, values, runs, keys_out, values_out, static_cast<cl_long>(capacity));
}

/// The runs of equal consecutive keys, each with the in-order reduction of its values, in new arrays.
template <class K, class V>
ReduceByKeyResult<K, V> reduce_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                                      const std::string& reduce_expr, const std::string& neutral,
                                      const ReduceByKeyOptions& options = {}, const WaitFor& wait = {}) {
    ReduceByKeyResult<K, V> result{Array<K>(queue, keys.size()), Array<V>(queue, keys.size()),
                                   DeviceCount{Array<std::int64_t>(queue, 1), cl::Event()}};
    result.count.event = reduce_by_key(queue, keys, values, result.keys.view(), result.values.view(), result.count.device.view(),
                                       reduce_expr, neutral, options, wait);
    return result;
}

/// Into arrays you keep: the first key and value of each run of equal consecutive keys, and the number of runs.
template <class K, class V>
cl::Event unique_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values, const ArrayView<K>& keys_out,
                        const ArrayView<V>& values_out, const ArrayView<std::int64_t>& count, const WaitFor& wait = {}) {
    if (keys.size() != values.size())
        throw std::invalid_argument("clalgo: unique_by_key: " + std::to_string(keys.size()) + " keys but " +
                                    std::to_string(values.size()) + " values");
    if (count.size() != 1) throw std::invalid_argument("clalgo: unique_by_key needs a count of one element");
    if (keys.empty()) return count.fill(queue, 0, wait.events);
    const std::int64_t capacity = static_cast<std::int64_t>(std::min(keys_out.size(), values_out.size()));
    const auto& first = detail::run_numbering<K, V>(queue.context(), true);
    // the run numbers are not stored here: `runs` is a one-element stand-in the output statement never touches
    Array<std::int64_t> unused(queue, 1);
    return first.with_total(queue, count, keys, values, unused, keys_out, values_out, static_cast<cl_long>(capacity), wait);
}

/// The first key and value of each run, in new arrays.
template <class K, class V>
ReduceByKeyResult<K, V> unique_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                                      const WaitFor& wait = {}) {
    ReduceByKeyResult<K, V> result{Array<K>(queue, keys.size()), Array<V>(queue, keys.size()),
                                   DeviceCount{Array<std::int64_t>(queue, 1), cl::Event()}};
    result.count.event = unique_by_key(queue, keys, values, result.keys.view(), result.values.view(), result.count.device.view(), wait);
    return result;
}

}  // namespace clalgo
