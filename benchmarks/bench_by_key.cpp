// reduce_by_key (float values, uint32 keys in runs of random length 1..64), histogram (256 even bins over int32 in
// [-1000, 1001)) and segmented_reduce (float, segments of 256), each beside a sequential std:: baseline on the
// host. Sizes 2^10 to 2^28 by factors of 4 on a GPU, to 2^24 on a CPU (or CLALGO_BENCH_SIZES). Each device run is
// into arrays kept between runs (nothing allocated). Bytes per run: what is read (keys and values; values; values)
// plus the results.
#include "bench_support.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace {

using clalgo_bench::queue;

std::vector<std::int64_t> by_key_sizes() {
    if (const char* listed = std::getenv("CLALGO_BENCH_SIZES"); listed && *listed) return clalgo_bench::sizes();
    std::vector<std::int64_t> sizes;
    const std::int64_t largest = std::int64_t(1) << (queue().info().is_gpu ? 28 : 24);
    for (std::int64_t n = std::int64_t(1) << 10; n <= largest; n *= 4) sizes.push_back(n);
    return sizes;
}

std::vector<std::uint32_t> run_keys(std::int64_t n) {
    std::mt19937 engine(7);
    std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
    std::uint32_t key = 0;
    for (std::size_t k = 0; k < keys.size();) {
        const std::size_t run = 1 + engine() % 64;
        for (std::size_t r = 0; r < run && k < keys.size(); ++r) keys[k++] = key;
        ++key;
    }
    return keys;
}

/// int32 values in [-1000, 1001)
const clalgo_bench::Input<std::int32_t>& histogram_input(std::int64_t n) {
    return clalgo_bench::cached_input<std::int32_t>(static_cast<std::size_t>(n), 11, [](std::size_t size) {
        std::mt19937 engine(11);
        std::vector<std::int32_t> v(size);
        for (auto& x : v) x = static_cast<std::int32_t>(engine() % 2001) - 1000;
        return v;
    });
}

void register_size(std::int64_t n) {
    const std::string size = "/" + std::to_string(n);

    clalgo_bench::register_device("reduce_by_key/clalgo_float" + size, [n](benchmark::State& state) {
        const auto& values = clalgo_bench::input<float>(n, 1);
        const auto keys = run_keys(n);
        const auto d_keys = clalgo::to_device(queue(), keys);
        clalgo::Array<std::uint32_t> keys_out(queue(), keys.size());
        clalgo::Array<float> sums(queue(), keys.size());
        clalgo::Array<std::int64_t> count(queue(), 1);
        auto run = [&] { clalgo::reduce_by_key(queue(), d_keys, values.device, keys_out, sums, count, "a+b", "0"); };
        run();
        if (!clalgo_bench::check(state, count.to_host(queue())[0] == std::int64_t(keys.back()) + 1, "wrong run count"))
            return;
        clalgo_bench::time_device(state, run);
        clalgo_bench::set_processed(state, n, n * 8 + (std::int64_t(keys.back()) + 1) * 8);
    });
    clalgo_bench::register_host("reduce_by_key/std_loop_float_seq" + size, [n](benchmark::State& state) {
        const auto& values = clalgo_bench::input<float>(n, 1).host;
        const auto keys = run_keys(n);
        std::vector<std::uint32_t> keys_out(keys.size());
        std::vector<float> sums(keys.size());
        clalgo_bench::time_host(state, [&] {
            std::size_t runs = 0;
            for (std::size_t k = 0; k < keys.size(); ++k) {
                if (k == 0 || keys[k] != keys[k - 1]) {
                    keys_out[runs] = keys[k];
                    sums[runs++] = values[k];
                } else {
                    sums[runs - 1] += values[k];
                }
            }
            return runs;
        });
        clalgo_bench::set_processed(state, n, n * 8);
    });

    clalgo_bench::register_device("histogram/clalgo_256_int32" + size, [n](benchmark::State& state) {
        const auto& values = histogram_input(n);
        clalgo::Array<std::uint32_t> bins(queue(), 256);
        auto run = [&] { clalgo::histogram(queue(), values.device, bins, {-1000, 1001}); };
        run();
        const auto counts = bins.to_host(queue());
        if (!clalgo_bench::check(state, std::accumulate(counts.begin(), counts.end(), std::int64_t(0)) == n, "wrong total"))
            return;
        clalgo_bench::time_device(state, run);
        clalgo_bench::set_processed(state, n, n * 4);
    });
    clalgo_bench::register_host("histogram/std_loop_256_int32_seq" + size, [n](benchmark::State& state) {
        const auto& values = histogram_input(n).host;
        std::vector<std::uint32_t> bins(256);
        clalgo_bench::time_host(state, [&] {
            std::fill(bins.begin(), bins.end(), 0);
            for (auto v : values)
                if (v >= -1000 && v < 1001) ++bins[(std::int64_t(v) + 1000) * 256 / 2001];
            return bins[0];
        });
        clalgo_bench::set_processed(state, n, n * 4);
    });

    clalgo_bench::register_device("segmented_reduce/clalgo_256_float" + size, [n](benchmark::State& state) {
        const auto& values = clalgo_bench::input<float>(n, 3);
        std::vector<std::int64_t> offsets;
        for (std::int64_t at = 0; at < n; at += 256) offsets.push_back(at);
        offsets.push_back(n);
        const auto d_offsets = clalgo::to_device(queue(), offsets);
        clalgo::Array<float> sums(queue(), offsets.size() - 1);
        auto run = [&] { clalgo::segmented_reduce(queue(), values.device, d_offsets, sums, "a+b", "0"); };
        clalgo_bench::time_device(state, run);
        clalgo_bench::set_processed(state, n, n * 4 + std::int64_t(offsets.size()) * 12);
    });
    clalgo_bench::register_host("segmented_reduce/std_accumulate_256_float_seq" + size, [n](benchmark::State& state) {
        const auto& values = clalgo_bench::input<float>(n, 3).host;
        std::vector<float> sums(static_cast<std::size_t>((n + 255) / 256));
        clalgo_bench::time_host(state, [&] {
            for (std::size_t s = 0; s < sums.size(); ++s)
                sums[s] = std::accumulate(values.begin() + s * 256, values.begin() + std::min(values.size(), s * 256 + 256), 0.0f);
            return sums.back();
        });
        clalgo_bench::set_processed(state, n, n * 4);
    });
}

void register_all() {
    for (std::int64_t n : by_key_sizes()) register_size(n);
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
