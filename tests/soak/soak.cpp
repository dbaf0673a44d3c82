// clalgo_soak: random sequences of every public algorithm, with random types, sizes (0 to 2^22, most of them
// small) and options, on several threads and queues for a given time; each result is checked against the same
// computation on the host. Every interval the threads pause between calls and the program reports the calls
// made, the failures, the memory pool and the process's resident memory; it fails (exit 1) on any wrong result
// or unexpected exception, and where memory grows by more than 1 % after the first minute (the median of the
// later reports against that of the first minute's). The time counts from
// the end of a warm-up that builds every kernel (minutes on a CPU with a cold disk cache).
//   clalgo_soak --seconds 120 --threads 4 --device portable
// Needs nothing but clalgo and an OpenCL driver. Measured figures: docs/reliability.md.
#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;
using Random = std::mt19937_64;

struct Settings {
    double seconds = 60;
    int threads = 4;
    std::string device;       ///< a "platform[:device]" spec; empty: clalgo's default device
    double report_every = 10;
    std::size_t largest = std::size_t(1) << 22;
    std::uint64_t seed = 1;
};

/// A wrong result or an unexpected exception: counted, and the first few printed.
struct Failures {
    std::atomic<std::uint64_t> count{0};
    std::mutex mutex;
    void add(const std::string& what) {
        const std::uint64_t seen = count.fetch_add(1);
        if (seen < 20) {
            std::lock_guard<std::mutex> lock(mutex);
            std::fprintf(stderr, "FAILURE: %s\n", what.c_str());
        }
    }
};

/// The process's resident bytes, after the C library returned the free parts of its heaps to the system (glibc
/// keeps them: a CPU device's freed buffers would otherwise count, as fragments, for as long as they lie there;
/// main() also keeps large blocks out of the heaps).
std::uint64_t resident_bytes() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

std::string mib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1 << 20));
    return text;
}

/// A size from 0 to `largest`, log-uniform (as many calls below 100 as between 10^5 and 10^6), sometimes 0 or 1.
std::size_t random_size(Random& random, std::size_t largest) {
    const int pick = std::uniform_int_distribution<int>(0, 99)(random);
    if (pick < 3) return 0;
    if (pick < 6) return 1;
    const double exponent = std::uniform_real_distribution<double>(0.0, std::log2(double(largest)))(random);
    return std::min(largest, static_cast<std::size_t>(std::exp2(exponent)));
}

/// Values of T from 0 to 3: sums of millions of them are exact in float and in every integer type.
template <class T>
std::vector<T> small_values(Random& random, std::size_t n) {
    std::vector<T> values(n);
    std::uniform_int_distribution<int> pick(0, 3);
    for (auto& v : values) v = static_cast<T>(pick(random));
    return values;
}

/// Keys over T's whole range (floats: finite, both signs), for the sorts.
template <class T>
std::vector<T> wide_values(Random& random, std::size_t n) {
    std::vector<T> values(n);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<double> pick(-1e6, 1e6);
        for (auto& v : values) v = static_cast<T>(pick(random));
    } else {
        std::uniform_int_distribution<std::uint64_t> pick;
        for (auto& v : values) v = static_cast<T>(pick(random));
    }
    return values;
}

template <class T>
const char* name_of() {
    if constexpr (std::is_same_v<T, std::int32_t>) return "int";
    else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "long";
    else if constexpr (std::is_same_v<T, float>) return "float";
    else return "double";
}

/// The kernels the jobs share between threads, made once.
struct SharedKernels {
    explicit SharedKernels(const clalgo::Context& context)
        : axpy(context, "float a, const float *x, float *y", "y[i] = a * x[i] + y[i]"),
          sevens(context, "0", "a+b", "i % 7 == 0 ? 1 : 0", ""),
          segmented_sum(context, "const int *x, const uchar *starts, long *out", "x[i]", "across_seg_boundary ? b : a+b", "0",
                        "out[i] = item;", segmented_options()),
          by_digit(context, "const int *x", "x[i] % 10"),
          inclusive(context, "a+b", "0"),
          exclusive(context, "max(a, b)", "LONG_MIN"),
          lists(context, {{"evens", "long"}, {"threes", "int"}},
                "if (i % 2 == 0) APPEND_evens(i); for (int k = 0; k < (int)(i % 4); ++k) APPEND_threes(3 * k);", ""),
          raw(context, "__kernel void scale(__global int *x, int factor, long n) {\n"
                       "    const long i = get_global_id(0);\n"
                       "    if (i < n) x[i] *= factor;\n"
                       "}\n") {}

    static clalgo::ScanOptions segmented_options() {
        clalgo::ScanOptions options;
        options.name = "soak_segmented";
        options.is_segment_start_expr = "starts[i] != 0";
        return options;
    }

    clalgo::ElementwiseKernel axpy;
    clalgo::ReductionKernel<std::int64_t> sevens;
    clalgo::GenericScanKernel<std::int64_t> segmented_sum;
    clalgo::HistogramKernel<std::uint32_t> by_digit;
    clalgo::InclusiveScanKernel<std::int64_t> inclusive;
    clalgo::ExclusiveScanKernel<std::int64_t> exclusive;
    clalgo::ListOfListsBuilder lists;
    clalgo::RawProgram raw;
};

/// One job: runs an algorithm on random input of about `n` items and compares with the host; returns a
/// description of the difference, or "" where it agrees.
using Job = std::function<std::string(const clalgo::Queue&, Random&, std::size_t)>;

template <class T>
std::string differ(const std::vector<T>& device, const std::vector<T>& host) {
    if (device.size() != host.size())
        return std::to_string(device.size()) + " elements where the host has " + std::to_string(host.size());
    for (std::size_t k = 0; k < host.size(); ++k)
        if (!(device[k] == host[k]))
            return "element " + std::to_string(k) + " is " + std::to_string(device[k]) + ", the host's " +
                   std::to_string(host[k]);
    return "";
}

template <class T>
void add_typed_jobs(std::map<std::string, Job>& jobs) {
    const std::string type = name_of<T>();
    jobs["sum<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) {
        const auto host = small_values<T>(random, n);
        const auto x = clalgo::to_device(q, host);
        const auto expected = std::accumulate(host.begin(), host.end(), clalgo::sum_type_t<T>(0));
        const auto got = clalgo::sum(q, x);
        return got == expected ? "" : "sum " + std::to_string(got) + ", the host's " + std::to_string(expected);
    };
    jobs["min max argmax<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        if (n == 0) return "";
        const auto host = wide_values<T>(random, n);
        const auto x = clalgo::to_device(q, host);
        if (clalgo::min(q, x) != *std::min_element(host.begin(), host.end())) return "min";
        if (clalgo::max(q, x) != *std::max_element(host.begin(), host.end())) return "max";
        const auto at = clalgo::argmax(q, x);
        if (at != std::max_element(host.begin(), host.end()) - host.begin()) return "argmax " + std::to_string(at);
        return "";
    };
    jobs["count_if any_of<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const auto host = small_values<T>(random, n);
        const auto x = clalgo::to_device(q, host);
        const auto expected = std::count_if(host.begin(), host.end(), [](T v) { return v > T(1); });
        if (clalgo::count_if(q, x, "x[i] > 1") != expected) return "count_if";
        if (clalgo::any_of(q, x, "x[i] == 3") != std::any_of(host.begin(), host.end(), [](T v) { return v == T(3); }))
            return "any_of";
        return "";
    };
    jobs["scans<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        // kept with the context, as the library keeps its own algorithms' kernels
        auto cached = [&](const char* which, const char* output) -> const clalgo::GenericScanKernel<T>& {
            const std::string type = name_of<T>();
            return clalgo::detail::cached_kernel<clalgo::GenericScanKernel<T>>(
                q.context(), std::string("soak ") + which + " " + type, [&] {
                    return std::make_shared<clalgo::GenericScanKernel<T>>(
                        q.context(), "const " + type + " *input, " + type + " *output", "input[i]", "a+b", "0", output);
                });
        };
        const auto& in = cached("inclusive", "output[i] = item;");
        const auto& ex = cached("exclusive", "output[i] = prev_item;");
        const auto host = small_values<T>(random, n);
        const auto x = clalgo::to_device(q, host);
        clalgo::Array<T> out(q, n);
        in(q, x, out);
        std::vector<T> expected(n);
        std::partial_sum(host.begin(), host.end(), expected.begin());
        if (auto d = differ(out.to_host(q), expected); !d.empty()) return "inclusive scan: " + d;
        ex(q, x, out);
        std::exclusive_scan(host.begin(), host.end(), expected.begin(), T(0));
        if (auto d = differ(out.to_host(q), expected); !d.empty()) return "exclusive scan: " + d;
        return "";
    };
    jobs["copy_if partition unique<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const auto host = small_values<T>(random, n);
        const auto x = clalgo::to_device(q, host);
        std::vector<T> kept, rejected, runs;
        for (T v : host) (v > T(1) ? kept : rejected).push_back(v);
        for (std::size_t k = 0; k < n; ++k)
            if (k == 0 || host[k] != host[k - 1]) runs.push_back(host[k]);
        auto selection = clalgo::copy_if(q, x, "ary[i] > 1");
        if (auto d = differ(selection.values.view(0, std::size_t(selection.count.get(q))).to_host(q), kept); !d.empty())
            return "copy_if: " + d;
        auto parts = clalgo::partition(q, x, "ary[i] > 1");
        const auto count = std::size_t(parts.count.get(q));
        if (auto d = differ(parts.kept.view(0, count).to_host(q), kept); !d.empty()) return "partition kept: " + d;
        if (auto d = differ(parts.rejected.view(0, n - count).to_host(q), rejected); !d.empty()) return "partition rejected: " + d;
        auto unique = clalgo::unique(q, x);
        if (auto d = differ(unique.values.view(0, std::size_t(unique.count.get(q))).to_host(q), runs); !d.empty())
            return "unique: " + d;
        return "";
    };
    jobs["radix sort<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const auto keys = wide_values<T>(random, n);
        std::vector<std::int32_t> positions(n);
        std::iota(positions.begin(), positions.end(), 0);
        auto d_keys = clalgo::to_device(q, keys);
        auto d_positions = clalgo::to_device(q, positions);
        const bool descending = random() % 2 == 0;
        std::stable_sort(positions.begin(), positions.end(),
                         [&](std::int32_t a, std::int32_t b) { return descending ? keys[b] < keys[a] : keys[a] < keys[b]; });
        std::vector<T> sorted(n);
        for (std::size_t k = 0; k < n; ++k) sorted[k] = keys[std::size_t(positions[k])];
        clalgo::SortOptions options;
        options.descending = descending;
        clalgo::sort_by_key(q, d_keys, d_positions, options);
        if (auto d = differ(d_keys.to_host(q), sorted); !d.empty()) return "keys: " + d;
        if (auto d = differ(d_positions.to_host(q), positions); !d.empty()) return "values: " + d;
        return "";
    };
    jobs["merge sort<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        auto host = wide_values<T>(random, std::min<std::size_t>(n, std::size_t(1) << 20));
        auto x = clalgo::to_device(q, host);
        clalgo::sort(q, x, "a > b");
        std::stable_sort(host.begin(), host.end(), [](T a, T b) { return a > b; });
        return differ(x.to_host(q), host);
    };
    jobs["reduce_by_key<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const std::size_t run = 1 + random() % 9;
        std::vector<std::int32_t> keys(n);
        for (std::size_t k = 0; k < n; ++k) keys[k] = std::int32_t(k / run);
        const auto values = small_values<T>(random, n);
        std::vector<T> sums;
        for (std::size_t k = 0; k < n; ++k) {
            if (k % run == 0) sums.push_back(T(0));
            sums.back() += values[k];
        }
        const auto d_keys = clalgo::to_device(q, keys);
        const auto d_values = clalgo::to_device(q, values);
        auto result = clalgo::reduce_by_key(q, d_keys, d_values, "a+b", "0");
        return differ(result.values.view(0, std::size_t(result.count.get(q))).to_host(q), sums);
    };
    jobs["segmented_reduce<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const auto values = small_values<T>(random, n);
        std::vector<std::int64_t> offsets{0};
        while (offsets.back() < std::int64_t(n)) offsets.push_back(std::min<std::int64_t>(std::int64_t(n), offsets.back() + std::int64_t(random() % 300)));
        std::vector<T> sums(offsets.size() - 1, T(0));
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
            for (auto k = offsets[s]; k < offsets[s + 1]; ++k) sums[s] += values[std::size_t(k)];
        const auto d_values = clalgo::to_device(q, values);
        const auto d_offsets = clalgo::to_device(q, offsets);
        clalgo::Array<T> out(q, sums.size());
        clalgo::segmented_reduce(q, d_values, d_offsets, out, "a+b", "0");
        return differ(out.to_host(q), sums);
    };
    jobs["transforms<" + type + ">"] = [](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const auto a = small_values<T>(random, n), b = small_values<T>(random, n);
        const auto x = clalgo::to_device(q, a), y = clalgo::to_device(q, b);
        std::vector<T> expected(n);
        for (std::size_t k = 0; k < n; ++k) expected[k] = std::max(a[k], b[k]);
        if (auto d = differ(clalgo::maximum(q, x, y).to_host(q), expected); !d.empty()) return "maximum: " + d;
        std::vector<std::int64_t> indices(n);
        for (auto& index : indices) index = std::int64_t(random() % std::max<std::size_t>(n, 1));
        for (std::size_t k = 0; k < n; ++k) expected[k] = a[std::size_t(indices[k])];
        if (auto d = differ(clalgo::take(q, x, clalgo::to_device(q, indices)).to_host(q), expected); !d.empty()) return "take: " + d;
        clalgo::Array<T> out(q, n);
        clalgo::transform(q, x, out, "x[i] * 2 + 1");
        for (std::size_t k = 0; k < n; ++k) expected[k] = T(a[k] * 2 + 1);
        if (auto d = differ(out.to_host(q), expected); !d.empty()) return "transform: " + d;
        clalgo::reverse(q, x, out);
        std::reverse_copy(a.begin(), a.end(), expected.begin());
        if (auto d = differ(out.to_host(q), expected); !d.empty()) return "reverse: " + d;
        const auto index_subset = clalgo::to_device(q, indices);
        clalgo::sum_type_t<T> subset = 0;
        for (auto index : indices) subset += a[std::size_t(index)];
        if (n > 0 && clalgo::subset_sum(q, x, index_subset) != subset) return "subset_sum";
        return "";
    };
}

std::map<std::string, Job> make_jobs(const SharedKernels& kernels, bool fp64) {
    std::map<std::string, Job> jobs;
    add_typed_jobs<std::int32_t>(jobs);
    add_typed_jobs<std::uint32_t>(jobs);
    add_typed_jobs<std::int64_t>(jobs);
    add_typed_jobs<float>(jobs);
    if (fp64) add_typed_jobs<double>(jobs);
    const SharedKernels* k = &kernels;
    jobs["ElementwiseKernel"] = [k](const clalgo::Queue& q, Random& random, std::size_t n) {
        const auto a = small_values<float>(random, n), b = small_values<float>(random, n);
        const auto x = clalgo::to_device(q, a);
        auto y = clalgo::to_device(q, b);
        k->axpy(q, 2.0f, x, y);
        std::vector<float> expected(n);
        for (std::size_t i = 0; i < n; ++i) expected[i] = 2.0f * a[i] + b[i];
        return differ(y.to_host(q), expected);
    };
    jobs["ReductionKernel over a range"] = [k](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const std::int64_t start = std::int64_t(random() % 1000) - 500;
        std::int64_t expected = 0;
        for (std::int64_t i = start; i < start + std::int64_t(n); ++i) expected += i % 7 == 0 ? 1 : 0;
        const auto got = k->sevens(q, clalgo::range(start, start + std::int64_t(n)));
        return got == expected ? "" : std::to_string(got) + " multiples of 7, the host's " + std::to_string(expected);
    };
    jobs["GenericScanKernel segmented"] = [k](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const auto values = small_values<std::int32_t>(random, n);
        std::vector<std::uint8_t> starts(n);
        for (auto& s : starts) s = random() % 50 == 0;
        std::vector<std::int64_t> expected(n);
        for (std::size_t i = 0; i < n; ++i) expected[i] = values[i] + (i == 0 || starts[i] ? 0 : expected[i - 1]);
        const auto x = clalgo::to_device(q, values);
        const auto s = clalgo::to_device(q, starts);
        clalgo::Array<std::int64_t> out(q, n);
        k->segmented_sum(q, x, s, out);
        return differ(out.to_host(q), expected);
    };
    jobs["InclusiveScanKernel ExclusiveScanKernel"] = [k](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        auto host = small_values<std::int64_t>(random, n);
        for (auto& v : host) v = v * 1000003 - 1500000;  // both signs
        std::vector<std::int64_t> sums(n), maxima(n);
        std::int64_t sum = 0, largest = std::numeric_limits<std::int64_t>::min();
        for (std::size_t i = 0; i < n; ++i) {
            maxima[i] = largest;  // exclusive: the items before i
            largest = std::max(largest, host[i]);
            sums[i] = sum += host[i];
        }
        const auto x = clalgo::to_device(q, host);
        clalgo::Array<std::int64_t> out(q, n);
        k->inclusive(q, x, out);
        if (auto d = differ(out.to_host(q), sums); !d.empty()) return "inclusive: " + d;
        k->exclusive(q, x, out);
        if (auto d = differ(out.to_host(q), maxima); !d.empty()) return "exclusive: " + d;
        return "";
    };
    jobs["histograms"] = [k](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        const auto values = wide_values<std::int32_t>(random, n);
        std::vector<std::int32_t> bounded(n);
        for (std::size_t i = 0; i < n; ++i) bounded[i] = std::abs(values[i] % 1000);
        const auto x = clalgo::to_device(q, bounded);
        std::vector<std::uint32_t> digits(10, 0), even(100, 0);
        for (auto v : bounded) {
            ++digits[std::size_t(v % 10)];
            ++even[std::size_t(v / 10)];
        }
        clalgo::Array<std::uint32_t> bins(q, 10);
        k->by_digit(q, bins, x);
        if (auto d = differ(bins.to_host(q), digits); !d.empty()) return "HistogramKernel: " + d;
        clalgo::Array<std::uint32_t> hundred(q, 100);
        clalgo::histogram(q, x, hundred, clalgo::HistogramRange{0, 1000});
        if (auto d = differ(hundred.to_host(q), even); !d.empty()) return "histogram: " + d;
        return "";
    };
    jobs["ListOfListsBuilder"] = [k](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        n = std::min<std::size_t>(n, std::size_t(1) << 18);
        const std::int64_t start = std::int64_t(random() % 100);
        auto lists = k->lists(q, clalgo::range(start, start + std::int64_t(n)));
        std::vector<std::int64_t> evens, even_offsets{0};
        std::vector<std::int32_t> threes;
        for (std::int64_t i = start; i < start + std::int64_t(n); ++i) {
            if (i % 2 == 0) evens.push_back(i);
            even_offsets.push_back(std::int64_t(evens.size()));
            for (int t = 0; t < int(i % 4); ++t) threes.push_back(3 * t);
        }
        const auto got_evens = lists.get<std::int64_t>("evens");
        if (auto d = differ(got_evens.items.to_host(q), evens); !d.empty()) return "evens: " + d;
        if (auto d = differ(got_evens.offsets.to_host(q), even_offsets); !d.empty()) return "offsets: " + d;
        if (auto d = differ(lists.get<std::int32_t>("threes").items.to_host(q), threes); !d.empty()) return "threes: " + d;
        return "";
    };
    jobs["RawKernel"] = [k](const clalgo::Queue& q, Random& random, std::size_t n) -> std::string {
        auto values = small_values<std::int32_t>(random, n);
        auto x = clalgo::to_device(q, values);
        const auto scale = k->raw.kernel("scale");
        // work-groups of 64: with the driver's choice, PoCL compiles a variant of the kernel for each new local
        // size it picks, which the memory measurements would count as growth
        scale(q, (n + 63) / 64 * 64, 64, x, 3, std::int64_t(n));
        for (auto& v : values) v *= 3;
        return differ(x.to_host(q), values);
    };
    return jobs;
}

/// The threads' pause between calls, for the quiet moments at which memory is measured.
class Pauses {
public:
    explicit Pauses(int threads) : threads_(threads) {}
    /// Called by a worker between calls.
    void point() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!wanted_) return;
        ++paused_;
        changed_.notify_all();
        changed_.wait(lock, [&] { return !wanted_; });
        --paused_;
    }
    /// Called by a worker that stops: it counts as paused from now on.
    void leave() {
        std::lock_guard<std::mutex> lock(mutex_);
        --threads_;
        changed_.notify_all();
    }
    /// Waits until every worker is paused (or gone), runs `quiet`, and lets them go on.
    template <class Quiet>
    void with_all_paused(Quiet&& quiet) {
        std::unique_lock<std::mutex> lock(mutex_);
        wanted_ = true;
        changed_.wait(lock, [&] { return paused_ >= threads_; });
        quiet();
        wanted_ = false;
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    int threads_;
    int paused_ = 0;
    bool wanted_ = false;
};

int usage(const char* problem) {
    if (problem) std::fprintf(stderr, "clalgo_soak: %s\n", problem);
    std::fprintf(stderr,
                 "usage: clalgo_soak [--seconds N] [--threads T] [--device SPEC] [--report-every S] [--largest N] [--seed S]\n"
                 "  --seconds N       how long to run after the warm-up (every job at 5 sizes on every queue) (60)\n"
                 "  --threads T       worker threads (4); they share T/2 queues (at least one)\n"
                 "  --device SPEC     platform[:device] as for CLALGO_DEVICE (default: clalgo's default device)\n"
                 "  --report-every S  seconds between reports (10)\n"
                 "  --largest N       the largest input (4194304)\n"
                 "  --seed S          the random seed (1)\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int k = 1; k < argc; ++k) {
        const std::string option = argv[k];
        if (option == "--help" || option == "-h") return usage(nullptr);
        if (k + 1 >= argc) return usage(("a value is missing after " + option).c_str());
        const std::string value = argv[++k];
        try {
            if (option == "--seconds") settings.seconds = std::stod(value);
            else if (option == "--threads") settings.threads = std::stoi(value);
            else if (option == "--device") settings.device = value;
            else if (option == "--report-every") settings.report_every = std::stod(value);
            else if (option == "--largest") settings.largest = std::stoull(value);
            else if (option == "--seed") settings.seed = std::stoull(value);
            else return usage(("unknown option " + option).c_str());
        } catch (const std::exception&) {
            return usage(("not a number: " + option + " " + value).c_str());
        }
    }
    if (settings.threads < 1 || settings.seconds <= 0 || settings.report_every <= 0 || settings.largest < 1)
        return usage("--threads, --seconds, --report-every and --largest must be positive");
#ifdef __GLIBC__
    // blocks of 1 MiB and more (a CPU device's buffers) are mapped and unmapped, not carved from the heaps, where
    // glibc would otherwise move the threshold up to 32 MiB and leave the heaps fragmented by them
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif

    auto started = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
    const clalgo::Context context =
        settings.device.empty() ? clalgo::Context::default_context() : clalgo::Context::from_spec(settings.device);
    std::vector<clalgo::Queue> queues;
    for (int k = 0; k < std::max(1, settings.threads / 2); ++k) queues.emplace_back(context);
    std::printf("clalgo_soak: %s, %d threads on %zu queues, %.0f s, inputs up to %zu, seed %llu\n",
                context.info().description().c_str(), settings.threads, queues.size(), settings.seconds,
                settings.largest, static_cast<unsigned long long>(settings.seed));
    std::fflush(stdout);

    Failures failures;
    auto run_job = [&](const std::string& name, const Job& job, const clalgo::Queue& q, Random& random, std::size_t n) {
        try {
            const std::string difference = job(q, random, n);
            if (!difference.empty()) failures.add(name + " at n = " + std::to_string(n) + ": " + difference);
        } catch (const std::exception& error) {
            failures.add(name + " at n = " + std::to_string(n) + " threw: " + error.what());
        }
    };

    // the warm-up: every job at the largest size and a few small ones, on every queue (one thread each), so that
    // the kernels (and the variants built at their first call of a size) are built and each queue's scratch has
    // grown before the measurements begin
    const SharedKernels kernels(context);
    const auto jobs = make_jobs(kernels, context.info().has_fp64);
    std::vector<std::pair<std::string, Job>> listed(jobs.begin(), jobs.end());
    {
        std::vector<std::thread> warming;
        for (std::size_t k = 0; k < queues.size(); ++k)
            warming.emplace_back([&, k] {
                Random random(settings.seed + k);
                for (std::size_t n : {settings.largest, std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100000)})
                    for (const auto& [name, job] : listed) run_job(name, job, queues[k], random, std::min(n, settings.largest));
                queues[k].finish();
            });
        for (auto& thread : warming) thread.join();
    }
    std::printf("warm-up: %zu jobs run at 5 sizes on %zu queues in %.1f s, %llu failures\n", listed.size(),
                queues.size(), elapsed(), static_cast<unsigned long long>(failures.count.load()));
    std::fflush(stdout);
    started = Clock::now();  // the run's time and the first minute count from here

    std::atomic<std::uint64_t> calls{0};
    std::atomic<bool> stop{false};
    Pauses pauses(settings.threads);
    std::vector<std::thread> workers;
    for (int t = 0; t < settings.threads; ++t)
        workers.emplace_back([&, t] {
            Random random(settings.seed * 7919 + std::uint64_t(t) + 1);
            const clalgo::Queue& q = queues[std::size_t(t) % queues.size()];
            while (!stop.load()) {
                const auto& [name, job] = listed[random() % listed.size()];
                run_job(name, job, q, random, random_size(random, settings.largest));
                calls.fetch_add(1);
                pauses.point();
            }
            pauses.leave();
        });

    // memory at each report, measured while every thread is between calls, after the pool released its cache (on a
    // CPU device the pool's buffers are the process's memory) and the C library its free heap: what is left is what
    // clalgo and the driver keep
    // the measurements of the first minute and those after it: the median of the later ones must stay within 1 %
    // of the first minute's (a median, so that one measurement taken while the driver held a block for a moment
    // does not decide, and a leak, which raises every later one, does)
    auto& pool = clalgo::MemoryPool::of(context);
    // the first minute, or the first report where reports are a minute or more apart
    const double first_minute = std::max(60.0, 1.5 * settings.report_every);
    std::vector<std::uint64_t> resident_before, resident_after, in_use_before, in_use_after;
    double next_report = settings.report_every;
    while (elapsed() < settings.seconds) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (elapsed() < next_report && elapsed() < settings.seconds) continue;
        next_report += settings.report_every;
        std::uint64_t resident = 0;
        clalgo::MemoryPoolStatistics held;
        pauses.with_all_paused([&] {
            for (auto& q : queues) q.finish();
            pool.free_all();
            held = pool.statistics();
            resident = resident_bytes();
        });
        const double now = elapsed();
        (now <= first_minute ? resident_before : resident_after).push_back(resident);
        (now <= first_minute ? in_use_before : in_use_after).push_back(held.bytes_in_use);
        const clalgo::CacheStatistics builds = clalgo::cache_statistics();
        std::printf("t = %6.1f s: %llu calls, %llu failures; pool: %s in use (%zu buffers), %llu hits, %llu misses; "
                    "clalgo's live buffers %s; resident %s; programs built %llu, loaded %llu\n",
                    now, static_cast<unsigned long long>(calls.load()),
                    static_cast<unsigned long long>(failures.count.load()), mib(held.bytes_in_use).c_str(),
                    held.buffers_in_use, static_cast<unsigned long long>(held.hits),
                    static_cast<unsigned long long>(held.misses),
                    mib(clalgo::detail::DeviceMemoryBudget::instance().live()).c_str(), mib(resident).c_str(),
                    static_cast<unsigned long long>(builds.source_builds),
                    static_cast<unsigned long long>(builds.disk_hits));
        std::fflush(stdout);
    }
    stop.store(true);
    for (auto& worker : workers) worker.join();

    bool flat = true;
    std::string verdict;
    if (resident_before.empty() || resident_after.empty()) {
        verdict = "memory: too short a run to judge (a report in the first minute and one after it are needed)";
    } else {
        auto median = [](std::vector<std::uint64_t> values) {
            std::sort(values.begin(), values.end());
            return values[values.size() / 2];
        };
        auto growth = [](std::uint64_t before, std::uint64_t after) {
            return before == 0 ? (after == 0 ? 0.0 : 100.0) : 100.0 * (double(after) - double(before)) / double(before);
        };
        const std::uint64_t resident0 = median(resident_before), resident1 = median(resident_after);
        const std::uint64_t in_use0 = median(in_use_before), in_use1 = median(in_use_after);
        flat = growth(resident0, resident1) < 1.0 && growth(in_use0, in_use1) < 1.0;
        char text[320];
        std::snprintf(text, sizeof text,
                      "memory (medians of the first minute's %zu reports and of the %zu after): resident %s, then %s "
                      "(%+.2f %%); pool in use %s, then %s (%+.2f %%): %s",
                      resident_before.size(), resident_after.size(), mib(resident0).c_str(), mib(resident1).c_str(),
                      growth(resident0, resident1), mib(in_use0).c_str(), mib(in_use1).c_str(),
                      growth(in_use0, in_use1), flat ? "flat" : "GROWING (more than 1 %)");
        verdict = text;
    }
    std::printf("done: %llu calls in %.1f s after the warm-up, %llu failures; %s\n", static_cast<unsigned long long>(calls.load()),
                elapsed(), static_cast<unsigned long long>(failures.count.load()), verdict.c_str());
    return failures.count.load() == 0 && flat ? 0 : 1;
}
