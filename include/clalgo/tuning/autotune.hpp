// The autotuner: on the queue's device, times the candidate policies of each tuned primitive (the reduction,
// the scan of 4- and 8-byte values, the ballot compaction, the radix sort) at a few sizes, keeps the best of
// each and stores them in the device's tuning file (policy/tuned_store.hpp), which every later run then uses. The
// clalgo-tune program (tools/) runs it from the command line.
//   clalgo::TuningReport report = clalgo::autotune(queue);   // minutes on a GPU, seconds on a CPU
//   std::cout << report.summary();
#pragma once

#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/kernels/compaction.hpp>
#include <clalgo/kernels/elementwise.hpp>
#include <clalgo/kernels/radix_sort.hpp>
#include <clalgo/kernels/reduction.hpp>
#include <clalgo/kernels/scan.hpp>
#include <clalgo/policy/radix_sort.hpp>
#include <clalgo/policy/reduction.hpp>
#include <clalgo/policy/scan.hpp>
#include <clalgo/policy/tuned_store.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace clalgo {

/// What the tuner may be told: the sizes it times (empty: chosen for the device), the launches per timing,
/// whether it writes the tuning file, where it reports progress.
struct TuningOptions {
    std::vector<std::int64_t> sizes;  ///< items per call; empty: 2^20, 2^24, 2^28 on GPUs (as memory allows), 2^18, 2^22 on CPUs
    int batches = 3;                  ///< timed batches per candidate and size (each at least 2 ms); the best counts
    std::vector<std::string> primitives;  ///< among "reduction", "scan.4", "scan.8", "compaction", "sort"; empty: all
    bool store = true;                ///< write the tuning file (else only report)
    std::ostream* log = nullptr;      ///< one line per candidate, where given
};

/// One candidate policy of one primitive, as timed.
struct TuningTrial {
    std::string primitive;               ///< "reduction", "scan.4", "scan.8", "compaction", "sort"
    std::string policy;                  ///< "reduction.group_size=256, ..."
    std::vector<double> seconds;         ///< per call, at each size of the report (empty where it failed)
    double score = 0;                    ///< geometric mean over the sizes of its time over the best time (1: best everywhere)
    std::string error;                   ///< why it could not run, if it could not
    bool chosen = false;                 ///< the policy stored for the primitive
};

/// What the tuner measured and chose.
struct TuningReport {
    std::string device;                            ///< DeviceInfo::description()
    /// The sizes each candidate was timed at.
    std::vector<std::int64_t> sizes;
    /// Every candidate timed, the hand-set policies among them.
    std::vector<TuningTrial> trials;
    std::map<std::string, std::uint64_t> chosen;   ///< the values stored, by key
    double seconds = 0;                            ///< the tuner's own run time
    std::optional<std::filesystem::path> file;     ///< where they were stored

    /// A table for people: each primitive's chosen policy, its time per size, and the hand-set default's.
    std::string summary() const;
};

namespace detail {

/// Seconds per launch, timed as clalgo's benchmarks time kernels: launches back to back on the queue, in
/// batches that take at least 2 ms (so that waiting for the queue costs little even for tiny inputs); the best
/// of three batches counts.
inline double time_per_launch(const Queue& queue, const std::function<void()>& launch, int batches) {
    using clock = std::chrono::steady_clock;
    launch();
    queue.finish();
    std::int64_t batch = 1;
    for (;; batch *= 2) {
        const auto start = clock::now();
        for (std::int64_t k = 0; k < batch; ++k) launch();
        queue.finish();
        if (std::chrono::duration<double>(clock::now() - start).count() >= 2e-3 || batch >= (1 << 14)) break;
    }
    double best = 1e30;
    for (int run = 0; run < batches; ++run) {
        const auto start = clock::now();
        for (std::int64_t k = 0; k < batch; ++k) launch();
        queue.finish();
        best = std::min(best, std::chrono::duration<double>(clock::now() - start).count() / batch);
    }
    return best;
}

/// A primitive the tuner times: its candidates, and how to make a timed call of one at a size.
struct TunedPrimitive {
    std::string name;
    std::vector<TunedValues> candidates;
    std::size_t bytes_per_item;  ///< device memory a call needs per item
    /// Builds the kernel under the current policy (made while the candidate is in force) and returns the launch
    /// for `n` items (the inputs are made once per size by the primitive itself).
    std::function<std::function<void()>(std::int64_t n)> prepare;
};

inline std::vector<std::int64_t> tuning_sizes(const DeviceInfo& info, std::size_t bytes_per_item,
                                              const std::vector<std::int64_t>& wanted) {
    std::vector<std::int64_t> sizes = wanted;
    if (sizes.empty()) sizes = info.is_cpu ? std::vector<std::int64_t>{1 << 18, 1 << 22}
                                           : std::vector<std::int64_t>{1 << 20, 1 << 24, 1 << 28};
    std::vector<std::int64_t> fitting;
    for (auto n : sizes)
        if (n > 0 && std::uint64_t(n) * bytes_per_item <= info.global_memory_bytes / 2 &&
            std::uint64_t(n) * 8 <= info.max_allocation_bytes)
            fitting.push_back(n);
    return fitting;
}

}  // namespace detail

/// Tunes the reduction, the scans, the compaction and the radix sort on the queue's device (see TuningOptions), stores the
/// best policies (unless options.store is false) and returns what it measured. Kernels made afterwards, in
/// this process and later ones, use them; kernels made before keep their policies.
inline TuningReport autotune(const Queue& queue, const TuningOptions& options = {}) {
    using namespace detail;
    const auto started = std::chrono::steady_clock::now();
    const Context& context = queue.context();
    const DeviceInfo& info = queue.info();
    TuningReport report;
    report.device = info.description();

    // inputs: pseudo-random values, half of which the compaction keeps
    auto make_input = [&](auto zero, std::int64_t n) {
        using T = decltype(zero);
        Array<T> values(queue, static_cast<std::size_t>(n));
        ElementwiseOptions named;
        named.name = "clalgo_tuning_fill";
        ElementwiseKernel fill(context, type_name<T>() + " *x",
                               "x[i] = (" + type_name<T>() + ")((((ulong)i * 2654435761ul) >> 7) % 1000)", named);
        fill(queue, values).wait();
        return values;
    };

    // only the primitives asked for are made (making one reads its policy's variables, which may be wrong)
    auto wanted = [&](const char* name) {
        return options.primitives.empty() ||
               std::find(options.primitives.begin(), options.primitives.end(), name) != options.primitives.end();
    };
    std::vector<TunedPrimitive> primitives;
    if (wanted("reduction")) {
        TunedPrimitive reduce{"reduction", reduction_candidates(info), 4, {}};
        reduce.prepare = [&](std::int64_t n) -> std::function<void()> {
            auto input = std::make_shared<Array<float>>(make_input(0.0f, n));
            ReductionOptions named;
            named.name = "clalgo_tuning_sum";
            auto kernel = std::make_shared<ReductionKernel<float>>(context, "0", "a+b", "x[i]", "const float *x", named);
            auto result = std::make_shared<Array<float>>(queue, 1);
            return [=, &queue] { kernel->into(queue, *result, *input); };
        };
        primitives.push_back(reduce);
    }
    auto scan_of = [&](auto zero, const char* name) {
        using T = decltype(zero);
        TunedPrimitive scan{name, scan_candidates(info, sizeof(T), false), 2 * sizeof(T), {}};
        scan.prepare = [&queue, &context, make_input](std::int64_t n) -> std::function<void()> {
            auto input = std::make_shared<Array<T>>(make_input(T(0), n));
            auto output = std::make_shared<Array<T>>(queue, static_cast<std::size_t>(n));
            auto kernel = std::make_shared<InclusiveScanKernel<T>>(context, "a+b", "0");
            return [=, &queue] { (*kernel)(queue, *input, *output); };
        };
        return scan;
    };
    if (wanted("scan.4")) primitives.push_back(scan_of(cl_int(0), "scan.4"));
    if (wanted("scan.8")) primitives.push_back(scan_of(cl_long(0), "scan.8"));
    if (wanted("compaction")) {
        TunedPrimitive compact{"compaction", scan_candidates(info, 4, true), 8, {}};
        compact.prepare = [&](std::int64_t n) -> std::function<void()> {
            auto input = std::make_shared<Array<cl_int>>(make_input(cl_int(0), n));
            auto output = std::make_shared<Array<cl_int>>(queue, static_cast<std::size_t>(n));
            auto count = std::make_shared<Array<std::int64_t>>(queue, 1);
            CompactionSpec spec;
            spec.name = "clalgo_tuning_compaction";
            spec.value_type = "int";
            spec.keep = "(ary[i] & 1) == 0";
            auto kernel = std::make_shared<CompactionKernel<cl_uint>>(context, spec);
            return [=, &queue] {
                std::vector<BoundArgument> bound{bind(*input), bind(*output), bind(*count), bind(static_cast<cl_long>(n))};
                kernel->enqueue(queue, std::nullopt, bound, {});
            };
        };
        primitives.push_back(compact);
    }
    if (wanted("sort")) {
        // 32-bit keys spread over every bit (the digits of a pass as even as random keys make them), sorted from a
        // kept input into an output, so that every call sorts the same unsorted keys
        TunedPrimitive sort{"sort", radix_sort_candidates(info), 12, {}};
        sort.prepare = [&](std::int64_t n) -> std::function<void()> {
            auto input = std::make_shared<Array<cl_uint>>(queue, static_cast<std::size_t>(n));
            ElementwiseOptions named;
            named.name = "clalgo_tuning_keys";
            ElementwiseKernel fill(context, "uint *x", "x[i] = (uint)(((ulong)(i + 1) * 0x9E3779B97F4A7C15ul) >> 32)", named);
            fill(queue, *input).wait();
            auto output = std::make_shared<Array<cl_uint>>(queue, static_cast<std::size_t>(n));
            auto kernel = std::make_shared<RadixSortKernel<cl_uint>>(context);
            return [=, &queue] { (*kernel)(queue, *input, *output); };
        };
        primitives.push_back(sort);
    }

    TunedValues chosen;
    TuningStore& store = TuningStore::instance();
    for (const auto& primitive : primitives) {
        if (primitive.candidates.empty()) continue;
        const auto sizes = tuning_sizes(info, primitive.bytes_per_item, options.sizes);
        if (report.sizes.empty()) report.sizes = sizes;
        // the hand-set policy (no tuned values) first and again last, so that it is not the one timed while the
        // device warms up; it counts with its better time
        std::vector<TunedValues> policies{TunedValues{}};
        policies.insert(policies.end(), primitive.candidates.begin(), primitive.candidates.end());
        policies.push_back(TunedValues{});
        std::vector<TuningTrial> trials(policies.size());
        for (std::size_t c = 0; c < policies.size(); ++c) {
            trials[c].primitive = primitive.name;
            trials[c].policy = policies[c].empty() ? "hand-set default" : policies[c].summary();
        }
        for (std::int64_t n : sizes) {
            for (std::size_t c = 0; c < policies.size(); ++c) {
                if (!trials[c].error.empty()) continue;
                try {
                    store.set_override(info, policies[c]);
                    auto launch = primitive.prepare(n);
                    store.clear_override(info);
                    trials[c].seconds.push_back(time_per_launch(queue, launch, options.batches));
                } catch (const std::exception& error) {
                    store.clear_override(info);
                    trials[c].error = error.what();
                    trials[c].seconds.clear();
                }
                if (options.log && trials[c].error.empty())
                    *options.log << primitive.name << " n=" << n << " " << trials[c].policy << ": "
                                 << trials[c].seconds.back() * 1e6 << " us\n";
            }
        }
        TuningTrial again = std::move(trials.back());
        trials.pop_back();
        policies.pop_back();
        if (again.error.empty() && trials[0].error.empty())
            for (std::size_t s = 0; s < sizes.size(); ++s) trials[0].seconds[s] = std::min(trials[0].seconds[s], again.seconds[s]);
        // score: the geometric mean over sizes of time / best time at that size
        std::vector<double> best(sizes.size(), 1e30);
        for (const auto& trial : trials)
            if (trial.error.empty())
                for (std::size_t s = 0; s < sizes.size(); ++s) best[s] = std::min(best[s], trial.seconds[s]);
        for (auto& trial : trials) {
            if (!trial.error.empty() || sizes.empty()) continue;
            double log_sum = 0;
            for (std::size_t s = 0; s < sizes.size(); ++s) log_sum += std::log(trial.seconds[s] / best[s]);
            trial.score = std::exp(log_sum / sizes.size());
        }
        // the best candidate replaces the hand-set default only where it is clearly better (3 %), not by noise
        std::size_t winner = 0;
        for (std::size_t c = 1; c < trials.size(); ++c)
            if (trials[c].error.empty() && !sizes.empty() &&
                (winner == 0 ? !trials[0].error.empty() || trials[c].score < trials[0].score * 0.97
                             : trials[c].score < trials[winner].score))
                winner = c;
        trials[winner].chosen = trials[winner].error.empty();
        chosen.merge(policies[winner]);
        for (auto& trial : trials) report.trials.push_back(std::move(trial));
    }
    // a partial run keeps what earlier runs chose for the primitives it did not time
    if (!options.primitives.empty()) {
        TunedValues kept = store.values(info);
        kept.merge(chosen);
        chosen = kept;
    }
    report.chosen = chosen.all();
    if (options.store) report.file = store.store(info, chosen);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

inline std::string TuningReport::summary() const {
    std::string text = "device: " + device + "\nsizes:";
    for (auto n : sizes) text += " " + std::to_string(n);
    text += "\n";
    auto times = [](const TuningTrial& trial) {
        std::string line;
        for (double s : trial.seconds) line += " " + std::to_string(s * 1e6).substr(0, 8) + " us";
        return line;
    };
    for (const auto& trial : trials)
        if (trial.chosen) text += trial.primitive + ": " + trial.policy + ":" + times(trial) + "\n";
    for (const auto& trial : trials)
        if (!trial.chosen && trial.policy == "hand-set default" && trial.error.empty())
            text += trial.primitive + ": (hand-set default:" + times(trial) + ")\n";
    text += "chosen:";
    for (const auto& [key, value] : chosen) text += " " + key + "=" + std::to_string(value);
    text += "\ntuning took " + std::to_string(seconds) + " s";
    text += file ? "; stored in " + file->string() + "\n" : "; not stored\n";
    return text;
}

}  // namespace clalgo
