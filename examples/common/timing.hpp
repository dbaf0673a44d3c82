// Timing and printing for the examples: a stopwatch, durations and counts in readable units, how kernel
// construction went (compiled from source, loaded from the disk cache, or already built), and the best of a few
// runs of a computation.
//   example::BuildTimer builds;
//   clalgo::ReductionKernel<long> sum(...);
//   std::printf("kernels: %s\n", builds.report().c_str());     // "1.21 s, cold: 3 compiled from source"
//   auto timing = example::best_of(3, [&] { return compute(); });
#pragma once

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

namespace example {

class Stopwatch {
public:
    Stopwatch() : start_(std::chrono::steady_clock::now()) {}
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    std::chrono::steady_clock::time_point start_;
};

/// "812 us", "4.62 ms", "1.23 s".
inline std::string format_duration(double seconds) {
    char text[32];
    if (seconds < 1e-3) std::snprintf(text, sizeof text, "%.0f us", seconds * 1e6);
    else if (seconds < 1.0) std::snprintf(text, sizeof text, "%.3g ms", seconds * 1e3);
    else std::snprintf(text, sizeof text, "%.3g s", seconds);
    return text;
}

/// 1111111112 as "1,111,111,112".
inline std::string with_commas(std::int64_t value) {
    const std::string digits = std::to_string(value < 0 ? -value : value);
    std::string text;
    for (std::size_t k = 0; k < digits.size(); ++k) {
        if (k > 0 && (digits.size() - k) % 3 == 0) text += ',';
        text += digits[k];
    }
    return value < 0 ? "-" + text : text;
}

/// "1.23 G", "45.6 M": a rate or a large count in short form.
inline std::string si(double value) {
    const char* units[] = {"", " k", " M", " G", " T"};
    int unit = 0;
    while (value >= 1000 && unit < 4) {
        value /= 1000;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.3g%s", value, units[unit]);
    return text;
}

/// Times the construction of kernel objects and tells from clalgo's cache counters how their programs were
/// obtained: compiled from source (a cold build), loaded as binaries from the disk cache, or already built in
/// this context.
class BuildTimer {
public:
    BuildTimer() : before_(clalgo::cache_statistics()) {}

    double seconds() const { return clock_.seconds(); }

    /// "1.21 s, cold: 3 compiled from source" or "35 ms, cached: 3 loaded from the disk cache".
    std::string report() const {
        const auto after = clalgo::cache_statistics();
        const auto compiled = after.source_builds - before_.source_builds;
        const auto loaded = after.disk_hits - before_.disk_hits;
        const auto reused = after.memory_hits - before_.memory_hits;
        std::string how;
        auto add = [&how](std::uint64_t count, const char* what) {
            if (count == 0) return;
            how += (how.empty() ? "" : ", ") + std::to_string(count) + " " + what;
        };
        add(compiled, "compiled from source");
        add(loaded, "loaded from the disk cache");
        add(reused, "already built");
        const char* kind = compiled > 0 ? "cold" : "cached";
        return format_duration(seconds()) + ", " + kind + (how.empty() ? "" : ": " + how);
    }

private:
    clalgo::CacheStatistics before_;
    Stopwatch clock_;
};

/// The times of `runs` runs of a computation and the result of the first.
template <class Result>
struct Timed {
    Result result;
    double first = 0;  ///< the first run: includes one-time costs (first launches, allocations)
    double best = 0;   ///< the fastest run, the first included
    int runs = 0;
    bool all_equal = true;  ///< every run gave the first run's result

    /// "4.62 ms (best of 3; first run 5.10 ms)".
    std::string report() const {
        if (runs == 1) return format_duration(best) + " (one run)";  // no warm run to report
        return format_duration(best) + " (best of " + std::to_string(runs) + "; first run " + format_duration(first) +
               ")";
    }
};

/// Runs `compute` (which must wait for the device before it returns) `runs` times and times each run.
template <class Compute>
auto best_of(int runs, Compute&& compute) {
    using Result = decltype(compute());
    Timed<Result> timed;
    timed.runs = std::max(runs, 1);
    for (int run = 0; run < timed.runs; ++run) {
        Stopwatch clock;
        Result result = compute();
        const double seconds = clock.seconds();
        if (run == 0) {
            timed.result = std::move(result);
            timed.first = timed.best = seconds;
        } else {
            timed.best = std::min(timed.best, seconds);
            timed.all_equal = timed.all_equal && result == timed.result;
        }
    }
    return timed;
}

}  // namespace example
