// reduce_by_key and unique_by_key over runs of equal consecutive keys (Thrust's names): one result per run,
// with the run's key, and the number of runs on the device.
//   auto [keys_out, sums, nruns] = clalgo::reduce_by_key(q, keys, values, "a+b", "0");
//   std::int64_t runs = nruns.get(q);   // keys_out.view(0, runs), sums.view(0, runs) hold them
//   auto [first_keys, first_values, count] = clalgo::unique_by_key(q, keys, values);
// Values of a run are combined left to right: the operator must be associative, need not be commutative.
// How: one pass (kernels/by_key.hpp): a scan of (run count, value) pairs that writes each run where the next
// one starts; unique_by_key is a compaction of the run starts.
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/algorithm/segmented_reduce.hpp>
#include <clalgo/algorithm/selection.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/kernels/by_key.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace clalgo {

/// One result per run of equal keys: the first count.get(q) elements of keys and values.
template <class K, class V>
struct ByKeyResult {
    /// One key of each run, in order (the first count.get(q) elements).
    Array<K> keys;
    /// The reduction of each run, in the same order.
    Array<V> values;
    /// How many runs.
    DeviceCount count;
};

namespace detail {

template <class K>
std::string key_type_for(const std::string& algorithm) {
    static_assert(is_builtin_type_v<K>, "clalgo: by-key keys must be OpenCL C scalar or vector types");
    return type_for<K>(algorithm, "keys");
}

/// The by-key kernel of this spec, counting in Count, kept with the context.
template <class Count, class V>
const ByKeyKernel<Count, V>& cached_by_key(const Context& context, const ByKeySpec& spec) {
    // the variables that choose reduce_by_key's kernel and shape it are part of the key; built in a buffer kept
    // per thread, so that a call allocates nothing to find its kernel
    static_assert(sizeof(Count) == 4 || sizeof(Count) == 8, "runs are counted in 32 or 64 bits");
    thread_local std::string key;
    key.assign(sizeof(Count) == 4 ? "by_key 4" : "by_key 8");
    key += '\0';
    spec.append_key(key);
    key += '\0';
    append_environment(key, {"CLALGO_REDUCE_BY_KEY", "CLALGO_REDUCE_BY_KEY_ITEMS", "CLALGO_SCAN_WIDE_STATUS"});
    return cached_kernel<ByKeyKernel<Count, V>>(context, key,
                                                [&] { return std::make_shared<ByKeyKernel<Count, V>>(context, spec); });
}

/// Runs the by-key algorithm into the given arrays; results beyond their room are dropped, the count is exact.
template <class K, class V>
Event by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values, const ArrayView<K>& keys_out,
             const ArrayView<V>& values_out, const ArrayView<std::int64_t>& count, bool fold,
             const std::string& reduce_expr, const std::string& neutral, const SegmentOptions& options,
             const std::string& algorithm) {
    if (keys.size() != values.size())
        throw std::invalid_argument("clalgo::" + algorithm + ": 'keys' has " + std::to_string(keys.size()) +
                                    " elements but 'values' has " + std::to_string(values.size()));
    if (keys_out.size() != values_out.size())
        throw std::invalid_argument("clalgo::" + algorithm + ": 'keys_out' has " + std::to_string(keys_out.size()) +
                                    " elements but 'values_out' has " + std::to_string(values_out.size()) +
                                    " (each run's key and value go to the same place: give them the same room)");
    if (count.size() != 1)
        throw std::invalid_argument("clalgo::" + algorithm + ": 'count' has " + std::to_string(count.size()) +
                                    " elements but must have one");
    // with no keys no kernel runs to check the arrays against the queue's context: checked here, named as the
    // caller named them (with keys, the kernel's checks name them so)
    if (keys.size() == 0) {
        const std::string call = "clalgo::" + algorithm;
        check_same_context(call, "keys", keys.buffer(), queue);
        check_same_context(call, "values", values.buffer(), queue);
        check_same_context(call, "keys_out", keys_out.buffer(), queue);
        check_same_context(call, "values_out", values_out.buffer(), queue);
        check_same_context(call, "count", count.buffer(), queue);
    }
    auto spec = [&] {
        ByKeySpec made;
        made.name = algorithm;
        made.key_type = key_type_for<K>(algorithm);
        made.value_type = type_for<V>(algorithm, "values");
        made.fold = fold;
        made.reduce_expr = reduce_expr;
        made.neutral = neutral;
        made.preamble = options.preamble;
        made.build_options = options.build_options;
        return made;
    };
    // runs counted in 32 bits below 2^32 keys; the narrow kernel is built (and checked) whatever the size. A call
    // like this thread's last one finds it with no spec or key built (the spec's other parts are K's and V's).
    thread_local LastCall<ByKeyKernel<cl_uint, V>, 5> last;
    const std::array<std::string_view, 5> texts{algorithm, reduce_expr, neutral, options.preamble,
                                                options.build_options};
    const ByKeyKernel<cl_uint, V>* narrow = last.find(queue.context(), texts, fold);
    if (narrow == nullptr)
        narrow = &last.remember(queue.context(), texts, fold, cached_by_key<cl_uint, V>(queue.context(), spec()));
    if (keys.size() < 0xffffffffull) return narrow->enqueue(queue, keys, values, keys_out, values_out, count);
    return cached_by_key<cl_ulong, V>(queue.context(), spec())
        .enqueue(queue, keys, values, keys_out, values_out, count);
}

template <class K, class V>
ByKeyResult<K, V> by_key_new(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values, bool fold,
                             const std::string& reduce_expr, const std::string& neutral, const SegmentOptions& options,
                             const std::string& algorithm) {
    ByKeyResult<K, V> result{Array<K>(queue, keys.size(), detail::pooled_in_queue_order), Array<V>(queue, keys.size(), detail::pooled_in_queue_order),
                             DeviceCount{Array<std::int64_t>(queue, 1, detail::pooled_in_queue_order), Event()}};
    result.count.event = by_key(queue, keys, values, result.keys.view(), result.values.view(), result.count.device.view(),
                                fold, reduce_expr, neutral, options, algorithm);
    return result;
}

}  // namespace detail

/// For each run of equal consecutive keys: its key and the reduction of its values with `reduce_expr` (a on the
/// left), whose identity is `neutral`. The results have room for keys.size() runs; count says how many there are.
template <class K, class V>
ByKeyResult<K, V> reduce_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                                const std::string& reduce_expr, const std::string& neutral,
                                const SegmentOptions& options = {}) {
    return detail::by_key_new(queue, keys, values, true, reduce_expr, neutral, options, "reduce_by_key");
}

/// Into arrays the caller keeps (nothing allocated but scratch kept for the next call): results go to the front
/// of keys_out and values_out (as many as fit; the two have the same size), the number of runs to count (one
/// element). Returns the event.
template <class K, class V>
Event reduce_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                    const ArrayView<K>& keys_out, const ArrayView<V>& values_out,
                    const ArrayView<std::int64_t>& count, const std::string& reduce_expr,
                    const std::string& neutral, const SegmentOptions& options = {}) {
    return detail::by_key(queue, keys, values, keys_out, values_out, count, true, reduce_expr, neutral, options,
                          "reduce_by_key");
}

/// For each run of equal consecutive keys: its first key and first value.
template <class K, class V>
ByKeyResult<K, V> unique_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values) {
    return detail::by_key_new(queue, keys, values, false, "", "", {}, "unique_by_key");
}

/// Into arrays the caller keeps, as reduce_by_key's form of the same name.
template <class K, class V>
Event unique_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                    const ArrayView<K>& keys_out, const ArrayView<V>& values_out,
                    const ArrayView<std::int64_t>& count) {
    return detail::by_key(queue, keys, values, keys_out, values_out, count, false, "", "", {}, "unique_by_key");
}

}  // namespace clalgo
