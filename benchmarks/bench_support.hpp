// Shared by the benchmarks: the device queue (one per process, made before anything is timed), random inputs
// kept on the host and the device, the sizes to run, and the timing of device and host work. Each
// bench_<primitive>.cpp registers its cases in a function handed to CLALGO_BENCHMARK_MAIN, so that the list can
// depend on the device.
//   void register_all() { clalgo_bench::register_device("reduce/clalgo_sum_int32/1024", [](benchmark::State& s) {...}); }
//   CLALGO_BENCHMARK_MAIN(register_all)
//
// What the figures mean:
//   time             per run of the primitive. Device work: wall time of back-to-back runs on one in-order
//                    queue, divided by their number (see time_device); std:: baselines: wall time per call.
//   bytes_per_second the bytes the primitive must read plus those it must write, per run, as each benchmark
//                    states (scratch traffic such as per-group partials is not counted).
//   items_per_second items (array elements, or indices of a range) per run.
#pragma once

#include <clalgo/clalgo.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef CLALGO_BENCH_HAVE_TBB
#define CLALGO_BENCH_HAVE_TBB 0
#endif
#if CLALGO_BENCH_HAVE_TBB
#include <execution>  // libstdc++ runs std::execution::par and par_unseq on TBB
#endif

namespace clalgo_bench {

/// The queue every benchmark uses: the default device (CLALGO_DEVICE picks another). Made once; main() makes
/// it before any benchmark runs, so creating the context is never timed.
inline clalgo::Queue& queue() {
    static clalgo::Queue q(clalgo::Context::default_context());
    return q;
}

inline const clalgo::Context& context() { return queue().context(); }

/// The array sizes of the bandwidth benchmarks: 2^10 to 2^26 by factors of 4, and 2^28 on a GPU; or those that
/// CLALGO_BENCH_SIZES lists, separated by commas (such as 4500,8192), to time the sizes of your own inputs.
inline std::vector<std::int64_t> sizes() {
    std::vector<std::int64_t> sizes;
    if (const char* listed = std::getenv("CLALGO_BENCH_SIZES"); listed && *listed) {
        const std::string text = listed;
        std::size_t at = 0;
        while (at <= text.size()) {
            const std::size_t end = std::min(text.find(',', at), text.size());
            const std::string size = text.substr(at, end - at);
            if (size.empty() || size.size() > 12 || size.find_first_not_of("0123456789") != std::string::npos ||
                std::stoll(size) < 1) {
                std::fprintf(stderr, "CLALGO_BENCH_SIZES='%s': expected sizes of at least 1 separated by commas\n",
                             listed);
                std::exit(2);
            }
            sizes.push_back(std::stoll(size));
            at = end + 1;
        }
        return sizes;
    }
    for (std::int64_t n = std::int64_t(1) << 10; n <= (std::int64_t(1) << 26); n *= 4) sizes.push_back(n);
    if (queue().info().is_gpu) sizes.push_back(std::int64_t(1) << 28);
    return sizes;
}

/// n pseudo-random values from `seed` (splitmix64: fast enough for 2^28 values): integers in [-1000, 1000],
/// whose sums stay far from overflow at every size here, floating point in [-1, 1).
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
    std::vector<T> values(n);
    std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& value : values) {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        if constexpr (std::is_floating_point_v<T>)
            value = static_cast<T>(double(z >> 11) * 0x1.0p-52 - 1.0);
        else
            value = static_cast<T>(std::int64_t(z % 2001) - 1000);
    }
    return values;
}

/// Random values on the host and the same values on the device.
template <class T>
struct Input {
    std::vector<T> host;
    clalgo::Array<T> device;
};

/// The input of n values made by `make_host(n)`, cached under `key`. Only the last size asked for is kept per
/// type and key: the benchmarks are registered size by size, so those of one size share one copy and the largest
/// sizes are not all held at once.
template <class T, class MakeHost>
const Input<T>& cached_input(std::size_t n, std::uint64_t key, MakeHost&& make_host) {
    static std::map<std::uint64_t, Input<T>> inputs;
    Input<T>& entry = inputs[key];
    if (entry.host.size() != n) {
        entry = Input<T>{};  // free the previous size before making the next
        entry.host = make_host(n);
        entry.device = clalgo::to_device(queue(), entry.host);
    }
    return entry;
}

/// The input of n random values for `seed` (random_values).
template <class T>
const Input<T>& input(std::size_t n, std::uint64_t seed) {
    return cached_input<T>(n, seed, [seed](std::size_t size) { return random_values<T>(size, seed); });
}

/// Kernel options with a name (shown in profilers and build errors) and a preamble.
inline clalgo::ReductionOptions reduction_options(std::string name, std::string preamble = "") {
    clalgo::ReductionOptions options;
    options.name = std::move(name);
    options.preamble = std::move(preamble);
    return options;
}

inline clalgo::ElementwiseOptions elementwise_options(std::string name) {
    clalgo::ElementwiseOptions options;
    options.name = std::move(name);
    return options;
}

/// Ends a benchmark with an error where a result is wrong; returns `ok`.
inline bool check(benchmark::State& state, bool ok, const std::string& what) {
    if (!ok) state.SkipWithError(what.c_str());
    return ok;
}

/// Times device work: `operation` enqueues one run of a clalgo primitive on queue() (it may also block, as a
/// reduction returning its result to the host does). One run first, untimed, keeps the build, the first launch
/// and scratch allocation out. Then runs are enqueued back to back in batches, the queue is finished after each
/// batch and the batch's wall time is spread over its runs (manual time): the throughput of a device kept busy,
/// as CUB's benchmarks measure it. A batch is the smallest power of two of runs that takes at least 2 ms, so the
/// wait for the queue costs little even for tiny inputs. One benchmark iteration is one run, so the library's
/// choice of the iteration count keeps the total time near --benchmark_min_time.
template <class Operation>
void time_device(benchmark::State& state, Operation&& operation) {
    using clock = std::chrono::steady_clock;
    operation();
    queue().finish();

    std::int64_t batch = 1;
    for (;; batch *= 2) {
        const auto start = clock::now();
        for (std::int64_t k = 0; k < batch; ++k) operation();
        queue().finish();
        if (std::chrono::duration<double>(clock::now() - start).count() >= 2e-3 || batch >= (1 << 16)) break;
    }

    std::int64_t done = 0, in_batch = 0;
    auto batch_start = clock::now();
    for (auto _ : state) {
        operation();
        ++done;
        if (++in_batch == batch || done == static_cast<std::int64_t>(state.max_iterations)) {
            queue().finish();
            const auto now = clock::now();
            state.SetIterationTime(std::chrono::duration<double>(now - batch_start).count());
            batch_start = now;
            in_batch = 0;
        }
    }
    state.counters["batch"] = static_cast<double>(batch);
}

/// Times host work (a std:: baseline) in wall-clock time per call: one run first, untimed, starts TBB's threads
/// and touches the pages of the output; then one run per iteration. `run` returns something that depends on all
/// its work (a result, or the end of the output it wrote), which the optimiser must keep.
template <class Run>
void time_host(benchmark::State& state, Run&& run) {
    benchmark::DoNotOptimize(run());
    for (auto _ : state) {
        benchmark::DoNotOptimize(run());
        benchmark::ClobberMemory();
    }
}

/// Per-run figures (see the top of this file).
inline void set_processed(benchmark::State& state, std::int64_t items, std::int64_t bytes) {
    state.SetItemsProcessed(state.iterations() * items);
    state.SetBytesProcessed(state.iterations() * bytes);
}

/// Registers a benchmark of device work, timed with time_device.
template <class Function>
benchmark::internal::Benchmark* register_device(const std::string& name, Function&& function) {
    return benchmark::RegisterBenchmark(name.c_str(), std::forward<Function>(function))
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
}

/// Registers a benchmark of host work (a std:: baseline), timed in wall-clock time per call.
template <class Function>
benchmark::internal::Benchmark* register_host(const std::string& name, Function&& function) {
    return benchmark::RegisterBenchmark(name.c_str(), std::forward<Function>(function))
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
}

/// main() of every benchmark program: makes the queue, records the device, registers and runs the benchmarks.
inline int run(int argc, char** argv, void (*register_benchmarks)()) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    try {
        const clalgo::DeviceInfo& info = queue().info();
        benchmark::AddCustomContext("device", info.description());
        benchmark::AddCustomContext("device_type", info.is_gpu ? "GPU" : info.is_cpu ? "CPU" : "other");
        benchmark::AddCustomContext("clalgo_version", CLALGO_VERSION_STRING);
        benchmark::AddCustomContext("std_parallel_backend", CLALGO_BENCH_HAVE_TBB ? "TBB" : "none (built without TBB)");
        register_benchmarks();
        benchmark::RunSpecifiedBenchmarks();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s\n", error.what());
        return 1;
    }
    benchmark::Shutdown();
    return 0;
}

}  // namespace clalgo_bench

#define CLALGO_BENCHMARK_MAIN(register_benchmarks) \
    int main(int argc, char** argv) { return clalgo_bench::run(argc, argv, register_benchmarks); }
