// reduce_by_key, histogram and segmented_reduce against plain host loops, with the inputs CUB's figures use:
// float values with uint32 keys in runs of random length 1 to 64 (sum per run); int32 values in [-1000, 1000] into
// 256 even bins over [-1000, 1001); float values in segments of 256 (sum per segment). Bytes per run: the inputs
// read once (keys and values, values, values), as in CUB's figures.
#include "bench_support.hpp"

#include <algorithm>

namespace {

using clalgo_bench::check;
using clalgo_bench::queue;

/// uint32 keys in runs of random length 1 to 64 (splitmix64).
const clalgo_bench::Input<std::uint32_t>& run_keys(std::size_t n) {
    return clalgo_bench::cached_input<std::uint32_t>(n, 91, [](std::size_t size) {
        std::vector<std::uint32_t> keys(size);
        std::uint64_t state = 7;
        std::uint32_t key = 0;
        for (std::size_t k = 0; k < size;) {
            std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            const std::size_t length = 1 + (z >> 40) % 64;
            for (std::size_t j = 0; j < length && k < size; ++j) keys[k++] = key;
            ++key;
        }
        return keys;
    });
}

void register_all() {
    for (std::int64_t n : clalgo_bench::sizes()) {
        const std::string size = "/" + std::to_string(n);
        clalgo_bench::register_device("reduce_by_key/clalgo_float" + size, [=](benchmark::State& state) {
            const auto& keys = run_keys(n);
            const auto& values = clalgo_bench::input<float>(n, 5);
            const clalgo::Array<std::uint32_t> keys_out(queue(), n);
            const clalgo::Array<float> sums(queue(), n);
            const clalgo::Array<std::int64_t> count(queue(), 1);
            auto run = [&] {
                clalgo::reduce_by_key(queue(), keys.device.view(), values.device.view(), keys_out.view(), sums.view(), count.view(),
                                      "a+b", "0");
            };
            run();
            const std::int64_t runs = count.to_host(queue())[0];
            const std::int64_t expected = keys.host.empty() ? 0 : std::int64_t(keys.host.back()) + 1;
            if (!check(state, runs == expected, "wrong number of runs")) return;
            clalgo_bench::time_device(state, run);
            clalgo_bench::set_processed(state, n, 8 * n);
        });
        clalgo_bench::register_host("reduce_by_key/host_loop_float" + size, [=](benchmark::State& state) {
            const auto& keys = run_keys(n).host;
            const auto& values = clalgo_bench::input<float>(n, 5).host;
            std::vector<float> sums(n);
            clalgo_bench::time_host(state, [&] {
                std::size_t run = 0;
                sums[0] = values[0];
                for (std::size_t k = 1; k < keys.size(); ++k) {
                    if (keys[k] != keys[k - 1]) sums[++run] = 0;
                    sums[run] += values[k];
                }
                return sums[run];
            });
            clalgo_bench::set_processed(state, n, 8 * n);
        });

        clalgo_bench::register_device("histogram/clalgo_256_int32" + size, [=](benchmark::State& state) {
            const auto& values = clalgo_bench::input<std::int32_t>(n, 6);
            const clalgo::Array<std::uint32_t> bins(queue(), 256);
            auto run = [&] { clalgo::histogram(queue(), values.device.view(), bins.view(), {-1000, 1001}); };
            run();
            std::vector<std::uint32_t> expected(256, 0);
            for (std::int32_t v : values.host) ++expected[std::uint64_t(v + 1000) * 256 / 2001];
            if (!check(state, bins.to_host(queue()) == expected, "wrong histogram")) return;
            clalgo_bench::time_device(state, run);
            clalgo_bench::set_processed(state, n, 4 * n);
        });
        clalgo_bench::register_host("histogram/host_loop_256_int32" + size, [=](benchmark::State& state) {
            const auto& values = clalgo_bench::input<std::int32_t>(n, 6).host;
            std::vector<std::uint32_t> bins(256);
            clalgo_bench::time_host(state, [&] {
                std::fill(bins.begin(), bins.end(), 0);
                for (std::int32_t v : values) ++bins[std::uint64_t(v + 1000) * 256 / 2001];
                return bins[0];
            });
            clalgo_bench::set_processed(state, n, 4 * n);
        });

        clalgo_bench::register_device("segmented_reduce/clalgo_256_float" + size, [=](benchmark::State& state) {
            const auto& values = clalgo_bench::input<float>(n, 8);
            std::vector<std::int32_t> host_offsets;
            for (std::int64_t k = 0; k < n; k += 256) host_offsets.push_back(std::int32_t(k));
            host_offsets.push_back(std::int32_t(n));
            const auto offsets = clalgo::to_device(queue(), host_offsets);
            const clalgo::Array<float> sums(queue(), host_offsets.size() - 1);
            auto run = [&] { clalgo::segmented_reduce(queue(), values.device.view(), offsets.view(), sums.view(), "a+b", "0"); };
            run();
            const auto got = sums.to_host(queue());
            float first = 0;
            for (std::int64_t k = 0; k < std::min<std::int64_t>(256, n); ++k) first += values.host[k];
            if (!check(state, std::abs(got[0] - first) <= 1e-3f * 256, "wrong segment sum")) return;
            clalgo_bench::time_device(state, run);
            clalgo_bench::set_processed(state, n, 4 * n);
        });
    }
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
