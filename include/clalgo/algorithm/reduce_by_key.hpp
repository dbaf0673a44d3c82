// reduce_by_key and unique_by_key over runs of equal consecutive keys (Thrust's names): one result per run,
// with the run's key, and the number of runs on the device.
//   auto [keys_out, sums, nruns] = clalgo::reduce_by_key(q, keys, values, "a+b", "0");
//   std::int64_t runs = nruns.get(q);   // keys_out.view(0, runs), sums.view(0, runs) hold them
//   auto [first_keys, first_values, count] = clalgo::unique_by_key(q, keys, values);
// Values of a run are combined left to right: the operator must be associative, need not be commutative.
// How: a compaction of the run starts (copy_if over the indices, into scratch kept per queue), then the
// segmented kernel of segmented_reduce over those starts, with the run count read on the device.
#pragma once

#include <clalgo/algorithm/copy_if.hpp>
#include <clalgo/algorithm/segmented_reduce.hpp>
#include <clalgo/kernels/scratch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace clalgo {

/// One result per run of equal keys: the first count.get(q) elements of keys and values.
template <class K, class V>
struct ByKeyResult {
    Array<K> keys;
    Array<V> values;
    DeviceCount count;
};

namespace detail {

/// Attached to each context: the run starts of the last by-key call on each queue, reused by the next.
struct ByKeyScratch {
    PerQueue<GrowingBuffer> starts;
};

template <class K>
std::string key_type_for(const std::string& algorithm) {
    static_assert(is_builtin_type_v<K>, "clalgo: by-key keys must be OpenCL C scalar or vector types");
    return type_for<K>(algorithm, "keys");
}

/// Runs the by-key algorithm into the given arrays; results beyond their room are dropped, the count is exact.
template <class K, class V>
cl::Event by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values, const ArrayView<K>& keys_out,
                 const ArrayView<V>& values_out, const ArrayView<std::int64_t>& count, bool fold,
                 const std::string& reduce_expr, const std::string& neutral, const SegmentOptions& options,
                 const std::string& algorithm) {
    if (keys.size() != values.size())
        throw std::invalid_argument("clalgo::" + algorithm + ": 'keys' has " + std::to_string(keys.size()) +
                                    " elements but 'values' has " + std::to_string(values.size()));
    if (count.size() != 1)
        throw std::invalid_argument("clalgo::" + algorithm + ": 'count' must have one element");
    const SegmentedShape shape{type_for<V>(algorithm, "values"), key_type_for<K>(algorithm), fold, reduce_expr,
                               neutral, options, algorithm};
    const auto& segmented = cached_segmented(queue.context(), shape);  // built (and checked) before anything runs
    const std::int64_t n = static_cast<std::int64_t>(keys.size());
    if (n == 0) return count.fill(queue, 0);

    GrowingBuffer& starts = queue.context().state().attachment<ByKeyScratch>().starts.get(queue);
    starts.reserve(queue, static_cast<std::size_t>(n) * sizeof(std::int64_t));
    const ArrayView<std::int64_t> run_starts(starts.buffer, 0, static_cast<std::size_t>(n));
    SelectionOptions heads;
    heads.extra_args = {Argument("keys", keys)};
    const std::string differs = VectorTypeName<K>::value ? "any(keys[i] != keys[i-1])" : "keys[i] != keys[i-1]";
    copy_if(queue, range(0, n), run_starts, count, "i == 0 || " + differs, heads);
    const std::int64_t room = static_cast<std::int64_t>(std::min(keys_out.size(), values_out.size()));
    // runs are usually short: teams of 32 work-items on a GPU (the policy caps it)
    return segmented.enqueue(queue, 32, -1, room, count.buffer(), n, run_starts, values.buffer(), values.offset(), n,
                             values_out.buffer(), values_out.offset(), keys.buffer(), keys.offset(),
                             keys_out.buffer(), keys_out.offset());
}

template <class K, class V>
ByKeyResult<K, V> by_key_new(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values, bool fold,
                             const std::string& reduce_expr, const std::string& neutral, const SegmentOptions& options,
                             const std::string& algorithm) {
    ByKeyResult<K, V> result{Array<K>(queue, keys.size()), Array<V>(queue, keys.size()),
                             DeviceCount{Array<std::int64_t>(queue, 1), cl::Event()}};
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
/// of keys_out and values_out (as many as fit), the number of runs to count (one element). Returns the event.
template <class K, class V>
cl::Event reduce_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                        const ArrayView<K>& keys_out, const ArrayView<V>& values_out,
                        const ArrayView<std::int64_t>& count, const std::string& reduce_expr,
                        const std::string& neutral, const SegmentOptions& options = {}) {
    return detail::by_key(queue, keys, values, keys_out, values_out, count, true, reduce_expr, neutral, options,
                          "reduce_by_key");
}

/// For each run of equal consecutive keys: its first key and first value.
template <class K, class V>
ByKeyResult<K, V> unique_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values) {
    return detail::by_key_new(queue, keys, values, false, "a", "0", {}, "unique_by_key");
}

/// Into arrays the caller keeps, as reduce_by_key's form of the same name.
template <class K, class V>
cl::Event unique_by_key(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                        const ArrayView<K>& keys_out, const ArrayView<V>& values_out,
                        const ArrayView<std::int64_t>& count) {
    return detail::by_key(queue, keys, values, keys_out, values_out, count, false, "a", "0", {}, "unique_by_key");
}

}  // namespace clalgo
