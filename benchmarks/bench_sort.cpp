// Radix sort (clalgo::sort and sort_by_key into other arrays, as CUB's DeviceRadixSort sorts) against std::sort and
// std::stable_sort, sequential and parallel, on the host: uint32 keys, uint32 keys with uint32 values, uint64 keys,
// all uniformly random over every bit. The host baselines sort a copy of the input each run (they sort in place);
// the copy is timed with them. Bytes per run: the keys (and values) read once and written once, as in CUB's figures.
// And clalgo alone, to set beside its uint32 keys: int32 and float keys, descending order, 20-bit keys sorted by
// their 20 bits (begin_bit/end_bit), argsort with 32-bit positions; beside its uint64 keys: int64 and double keys
// (doubles in [-1, 1)); and keys of 16 and 8 bits (two passes and one).
#include "bench_support.hpp"
#include "random_keys.hpp"

#include <algorithm>
#include <cstring>

namespace {

using clalgo_bench::check;

/// An order-independent fingerprint of (key, value) pairs: equal for any permutation of the same pairs.
template <class Key, class Value>
std::uint64_t fingerprint(const std::vector<Key>& keys, const std::vector<Value>& values) {
    std::uint64_t sum = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        std::uint64_t z = std::uint64_t(keys[k]) * 0x9E3779B97F4A7C15ull + std::uint64_t(values[k]);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        sum += z ^ (z >> 27);
    }
    return sum;
}

/// Sorted and a permutation of the input: checked in linear time, so that 2^28 keys check quickly.
template <class Key, class Value>
bool sorted_permutation(const std::vector<Key>& keys_in, const std::vector<Value>& values_in, const std::vector<Key>& keys,
                        const std::vector<Value>& values) {
    return std::is_sorted(keys.begin(), keys.end()) && fingerprint(keys_in, values_in) == fingerprint(keys, values);
}
using clalgo_bench::queue;

/// An order-independent fingerprint of keys by their bits.
template <class Key>
std::uint64_t bits_fingerprint(const std::vector<Key>& keys) {
    std::uint64_t sum = 0;
    for (const Key& key : keys) {
        std::uint64_t z = 0;
        std::memcpy(&z, &key, sizeof(Key));
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        sum += z ^ (z >> 27);
    }
    return sum;
}

/// n keys uniformly random over all their bits (splitmix64).
template <class T>
const clalgo_bench::Input<T>& random_keys(std::size_t n) {
    return clalgo_bench::cached_input<T>(n, 77, [](std::size_t size) { return clalgo_bench::random_bits<T>(size); });
}

/// n floating-point keys uniformly random in [-1, 1).
template <class T>
const clalgo_bench::Input<T>& unit_keys(std::size_t n) {
    return clalgo_bench::input<T>(n, 5);
}

/// n keys uniformly random over their low `bits` bits.
template <class T>
const clalgo_bench::Input<T>& random_low_bits(std::size_t n, int bits) {
    return clalgo_bench::cached_input<T>(n, 100 + bits, [bits](std::size_t size) {
        std::vector<T> keys = random_keys<T>(size).host;
        for (auto& key : keys) key &= static_cast<T>((T(1) << bits) - 1);
        return keys;
    });
}

/// clalgo::sort of `keys` into another array with `options`, checked once against the host's order first.
template <class Key>
void register_clalgo_keys(const std::string& name, std::int64_t n, const clalgo_bench::Input<Key>& (*make)(std::size_t),
                          const clalgo::SortOptions& options = {}) {
    clalgo_bench::register_device("sort/clalgo_" + name + "/" + std::to_string(n), [=](benchmark::State& state) {
        const auto& keys = make(n);
        const clalgo::Array<Key> out(queue(), n);
        clalgo::sort(queue(), keys.device.view(), out.view(), options);
        // in order and a permutation of the input (each key's bits summed scrambled): linear, for 2^28 keys too
        const auto got = out.to_host(queue());
        const bool in_order = options.descending ? std::is_sorted(got.rbegin(), got.rend()) : std::is_sorted(got.begin(), got.end());
        if (!check(state, in_order && bits_fingerprint(got) == bits_fingerprint(keys.host), "wrong sort")) return;
        clalgo_bench::time_device(state, [&] { clalgo::sort(queue(), keys.device.view(), out.view(), options); });
        clalgo_bench::set_processed(state, n, 2 * n * std::int64_t(sizeof(Key)));
    });
}

template <class Key>
void register_keys(const std::string& name, std::int64_t n) {
    const std::string size = "/" + std::to_string(n);
    const std::int64_t bytes = 2 * n * std::int64_t(sizeof(Key));
    clalgo_bench::register_device("sort/clalgo_" + name + "_keys" + size, [=](benchmark::State& state) {
        const auto& keys = random_keys<Key>(n);
        const clalgo::Array<Key> out(queue(), n);
        clalgo::sort(queue(), keys.device.view(), out.view());
        const std::vector<char> none(keys.host.size());
        if (!check(state, sorted_permutation(keys.host, none, out.to_host(queue()), none), "wrong sort")) return;
        clalgo_bench::time_device(state, [&] { clalgo::sort(queue(), keys.device.view(), out.view()); });
        clalgo_bench::set_processed(state, n, bytes);
    });
    auto host = [=](const std::string& label, auto sorter) {
        clalgo_bench::register_host("sort/" + label + "_" + name + "_keys" + size, [=](benchmark::State& state) {
            const auto& keys = random_keys<Key>(n).host;
            std::vector<Key> work(keys.size());
            clalgo_bench::time_host(state, [&] {
                std::copy(keys.begin(), keys.end(), work.begin());
                sorter(work);
                return work.back();
            });
            clalgo_bench::set_processed(state, n, bytes);
        });
    };
    host("std_sort_seq", [](std::vector<Key>& v) { std::sort(v.begin(), v.end()); });
    host("std_stable_sort_seq", [](std::vector<Key>& v) { std::stable_sort(v.begin(), v.end()); });
#if CLALGO_BENCH_HAVE_TBB
    host("std_sort_par", [](std::vector<Key>& v) { std::sort(std::execution::par, v.begin(), v.end()); });
    host("std_stable_sort_par", [](std::vector<Key>& v) { std::stable_sort(std::execution::par, v.begin(), v.end()); });
#endif
}

/// sort_by_key of uint32 keys with values of Value (`name`: the benchmark's name after "sort/clalgo_").
template <class Value>
void register_pairs(const std::string& name, std::int64_t n) {
    const std::string size = "/" + std::to_string(n);
    clalgo_bench::register_device("sort/clalgo_" + name + size, [=](benchmark::State& state) {
        const auto& keys = random_keys<std::uint32_t>(n);
        const auto& values = clalgo_bench::input<Value>(n, 3);
        const clalgo::Array<std::uint32_t> keys_out(queue(), n);
        const clalgo::Array<Value> values_out(queue(), n);
        auto run = [&] {
            clalgo::sort_by_key(queue(), keys.device.view(), keys_out.view(), values.device.view(), values_out.view());
        };
        run();
        const bool ok = sorted_permutation(keys.host, values.host, keys_out.to_host(queue()), values_out.to_host(queue()));
        if (!check(state, ok, "wrong sort_by_key")) return;
        clalgo_bench::time_device(state, run);
        clalgo_bench::set_processed(state, n, 2 * n * (4 + std::int64_t(sizeof(Value))));  // pairs read and written
    });
}

/// argsort of uint32 keys into 32-bit positions: a pair sort whose first pass makes the positions rather than
/// reading them.
void register_argsort(std::int64_t n) {
    clalgo_bench::register_device("sort/clalgo_uint32_argsort/" + std::to_string(n), [=](benchmark::State& state) {
        const auto& keys = random_keys<std::uint32_t>(n);
        const auto order = clalgo::argsort<std::int32_t>(queue(), keys.device.view()).to_host(queue());
        bool ok = order.size() == keys.host.size();
        for (std::size_t k = 1; ok && k < order.size(); ++k) {
            const auto a = keys.host[order[k - 1]], b = keys.host[order[k]];
            ok = a < b || (a == b && order[k - 1] < order[k]);
        }
        if (!check(state, ok, "wrong argsort")) return;
        clalgo_bench::time_device(state, [&] { (void)clalgo::argsort<std::int32_t>(queue(), keys.device.view()); });
        clalgo_bench::set_processed(state, n, n * 4 + n * 4);  // the keys read, the positions written
    });
}

void register_all() {
    for (std::int64_t n : clalgo_bench::sizes()) {
        register_keys<std::uint32_t>("uint32", n);
        register_pairs<std::uint32_t>("uint32_pairs", n);
        register_keys<std::uint64_t>("uint64", n);
        register_clalgo_keys<std::int32_t>("int32_keys", n, random_keys<std::int32_t>);
        register_clalgo_keys<float>("float_keys", n, unit_keys<float>);
        register_clalgo_keys<std::uint32_t>("uint32_keys_descending", n, random_keys<std::uint32_t>, {true});
        register_clalgo_keys<std::uint32_t>("uint32_keys_20_bits", n, [](std::size_t size) -> const clalgo_bench::Input<std::uint32_t>& {
            return random_low_bits<std::uint32_t>(size, 20);
        }, {false, 0, 20});
        register_argsort(n);
        register_pairs<std::uint64_t>("uint32_keys_uint64_values", n);
        register_clalgo_keys<std::int64_t>("int64_keys", n, random_keys<std::int64_t>);
        if (queue().info().has_fp64) register_clalgo_keys<double>("double_keys", n, unit_keys<double>);
        register_clalgo_keys<std::uint16_t>("uint16_keys", n, random_keys<std::uint16_t>);
        register_clalgo_keys<std::uint8_t>("uint8_keys", n, random_keys<std::uint8_t>);
    }
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
