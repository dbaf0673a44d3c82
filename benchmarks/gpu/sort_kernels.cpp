// Each kernel of a radix sort timed on the device: uint32 keys, uint32 keys with uint32 values and uint64 keys
// (random over all their bits, bench_sort's keys: random_keys.hpp), sorted into other arrays on a queue made with
// CL_QUEUE_PROFILING_ENABLE inside a LaunchLog that keeps every launch's event. A kernel's time is its event's end
// less its start, the median of the timed sorts; beside it, how long the device waited after the kernel before.
// The whole sort is the first kernel's start to the last one's end. For CUB's kernels of the same sorts, Nsight
// Compute on benchmarks/gpu/cub_sort.cu (its --calls option). Build target sort_kernels; docs/performance.md quotes
// its output.
//   sort_kernels [--sorts N] [SIZE ...]      (default: 9 timed sorts, after 3, of 2^24 keys)
#include <clalgo/clalgo.hpp>

#include "../random_keys.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

double start_of(const cl::Event& event) { return double(event.getProfilingInfo<CL_PROFILING_COMMAND_START>()) / 1e3; }
double end_of(const cl::Event& event) { return double(event.getProfilingInfo<CL_PROFILING_COMMAND_END>()) / 1e3; }

/// Sorts `sorts` times after 3 untimed sorts (keys, or keys with uint32 values where WithValues) and prints each
/// kernel's median time.
template <class Key, bool WithValues>
void time_kernels(clalgo::Queue& queue, const char* label, std::size_t n, int sorts) {
    const auto host = clalgo_bench::random_bits<Key>(n);
    const auto keys = clalgo::to_device(queue, host);
    const clalgo::Array<Key> keys_out(queue, n);
    const clalgo::Array<std::uint32_t> values(queue, WithValues ? n : 1), values_out(queue, WithValues ? n : 1);
    std::vector<std::string> names;
    std::vector<std::vector<double>> times, waits;
    std::vector<double> wholes;
    for (int s = 0; s < sorts + 3; ++s) {
        clalgo::detail::LaunchLog log(true);
        if constexpr (WithValues)
            clalgo::sort_by_key(queue, keys.view(), keys_out.view(), values.view(), values_out.view());
        else
            clalgo::sort(queue, keys.view(), keys_out.view());
        queue.finish();
        const auto& launches = log.launches();
        if (s < 3) continue;
        if (names.empty()) {
            for (const auto& launch : launches) names.push_back(launch.kernel.getInfo<CL_KERNEL_FUNCTION_NAME>());
            times.resize(names.size());
            waits.resize(names.size());
        }
        if (launches.size() != names.size()) {
            std::fprintf(stderr, "sort_kernels: %s: %zu launches after %zu\n", label, launches.size(), names.size());
            std::exit(1);
        }
        for (std::size_t k = 0; k < launches.size(); ++k) {
            times[k].push_back(end_of(launches[k].event) - start_of(launches[k].event));
            waits[k].push_back(k > 0 ? start_of(launches[k].event) - end_of(launches[k - 1].event) : 0.0);
        }
        wholes.push_back(end_of(launches.back().event) - start_of(launches.front().event));
    }
    const auto got = keys_out.to_host(queue);
    auto want = host;
    std::sort(want.begin(), want.end());
    std::printf("%s n=%zu: whole sort %.1f us (median of %d sorts)%s\n", label, n, median(wholes), sorts,
                got == want ? "" : ", WRONG ORDER");
    for (std::size_t k = 0; k < names.size(); ++k)
        std::printf("  %-28s %8.1f us  (device waited %.1f us before it)\n", names[k].c_str(), median(times[k]),
                    median(waits[k]));
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    int sorts = 9;
    std::vector<std::size_t> sizes;
    for (int a = 1; a < argc; ++a) {
        if (std::string(argv[a]) == "--sorts" && a + 1 < argc)
            sorts = std::max(1, std::atoi(argv[++a]));
        else
            sizes.push_back(std::strtoull(argv[a], nullptr, 10));
    }
    if (sizes.empty()) sizes = {std::size_t(1) << 24};
    auto context = clalgo::Context::default_context();
    clalgo::Queue queue(context, CL_QUEUE_PROFILING_ENABLE);
    std::printf("device %s\n", context.device().getInfo<CL_DEVICE_NAME>().c_str());
    for (std::size_t n : sizes) {
        time_kernels<std::uint32_t, false>(queue, "uint32 keys", n, sorts);
        time_kernels<std::uint32_t, true>(queue, "uint32 keys with uint32 values", n, sorts);
        time_kernels<std::uint64_t, false>(queue, "uint64 keys", n, sorts);
    }
    return 0;
}
