// The one-call array algorithms against their std:: counterparts: argmax of floats (std::max_element), the sum of
// int8 values into int64 (std::accumulate) and a gather of floats by int32 indices (clalgo::take, a plain loop).
// Bytes per run: argmax and sum read the input once (n x 4, n x 1); take reads the indices and the picked values
// and writes the result (3 x n x 4).
#include "bench_support.hpp"

#include <algorithm>
#include <numeric>

namespace {

using clalgo_bench::check;
using clalgo_bench::input;
using clalgo_bench::queue;

/// n indices in [0, n), scattered (a multiplicative walk), so that the gather reads all over the array.
std::vector<std::int32_t> scattered_indices(std::size_t n) {
    std::vector<std::int32_t> indices(n);
    for (std::size_t k = 0; k < n; ++k) indices[k] = std::int32_t((k * 2654435761ull) % n);
    return indices;
}

void register_size(std::int64_t n) {
    const std::string size = "/" + std::to_string(n);

    clalgo_bench::register_device("array/clalgo_argmax_float" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 1);
        const std::int64_t expected = std::max_element(x.host.begin(), x.host.end()) - x.host.begin();
        if (!check(state, clalgo::argmax(queue(), x.device) == expected, "wrong argmax")) return;
        clalgo_bench::time_device(state, [&] { benchmark::DoNotOptimize(clalgo::argmax(queue(), x.device)); });
        clalgo_bench::set_processed(state, n, n * 4);
    });
    clalgo_bench::register_host("array/std_max_element_float" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 1).host;
        clalgo_bench::time_host(state, [&] { return std::max_element(x.begin(), x.end()) - x.begin(); });
        clalgo_bench::set_processed(state, n, n * 4);
    });

    clalgo_bench::register_device("array/clalgo_sum_int8" + size, [n](benchmark::State& state) {
        const auto& x = input<std::int8_t>(n, 2);
        const std::int64_t expected = std::accumulate(x.host.begin(), x.host.end(), std::int64_t(0));
        if (!check(state, clalgo::sum(queue(), x.device) == expected, "wrong sum")) return;
        clalgo_bench::time_device(state, [&] { benchmark::DoNotOptimize(clalgo::sum(queue(), x.device)); });
        clalgo_bench::set_processed(state, n, n);
    });
    clalgo_bench::register_host("array/std_accumulate_int8" + size, [n](benchmark::State& state) {
        const auto& x = input<std::int8_t>(n, 2).host;
        clalgo_bench::time_host(state, [&] { return std::accumulate(x.begin(), x.end(), std::int64_t(0)); });
        clalgo_bench::set_processed(state, n, n);
    });

    clalgo_bench::register_device("array/clalgo_take_float" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 3);
        const auto& indices = clalgo_bench::cached_input<std::int32_t>(n, 4, scattered_indices);
        const clalgo::Array<float> out(queue(), n);
        clalgo::take(queue(), x.device, indices.device, out);
        const auto picked = out.to_host(queue());
        bool ok = true;
        for (std::size_t k = 0; k < picked.size(); ++k) ok = ok && picked[k] == x.host[indices.host[k]];
        if (!check(state, ok, "wrong take")) return;
        clalgo_bench::time_device(state, [&] { clalgo::take(queue(), x.device, indices.device, out); });
        clalgo_bench::set_processed(state, n, 3 * n * 4);
    });
    clalgo_bench::register_host("array/loop_take_float" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 3).host;
        const auto& indices = clalgo_bench::cached_input<std::int32_t>(n, 4, scattered_indices).host;
        std::vector<float> out(n);
        clalgo_bench::time_host(state, [&] {
            for (std::size_t k = 0; k < out.size(); ++k) out[k] = x[indices[k]];
            return out.back();
        });
        clalgo_bench::set_processed(state, n, 3 * n * 4);
    });
}

void register_all() {
    for (std::int64_t n : clalgo_bench::sizes()) register_size(n);
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
