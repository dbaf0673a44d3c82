// How clalgo's multi-device calls scale with the devices, on workloads large enough that fixed costs do not hide
// it: a map, a reduction, copy_if and the scan over 2^31 int32 elements resident on the devices (by default on a
// GPU; 2^24 on a CPU), each device holding its part (a clalgo::SplitArray; with MPI, each rank its share).
// Every result is checked against the host. Run it with one device, then two, then four, and compare the lines:
//   scaling --devices 0:0           scaling --devices 0:0,0:1        scaling --devices 0:0,0:1,0:2,0:3
//   mpirun -np 4 scaling_mpi        (one rank per GPU)
//   scaling --devices 0:0,0:1 --weights 3,1     (an uneven split: the right answer, and the time it should take)
//   scaling --devices 0:0,0:1 --calibrate       (weights from the measured speeds)
//   scaling --devices 0:0,0:1 --shared-array    (what one array written by several devices costs, for the docs)
// Each workload prints one line "scaling <workload> devices=<k> n=<n> ms=<ms per call> calls=<k> check=ok":
// benchmarks/gpu/scaling_table.py turns the lines of several runs into a table of speedups and a plot.
#include "common/device.hpp"
#include "common/scale.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

// The data: x[k] = a 16-bit value from a hash of the element's index k in the whole array, the same on every
// device and on the host.
const char* const data_preamble = R"CLC(
inline int scaling_value(ulong k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdUL;
    k ^= k >> 33;
    return (int)(k & 0xFFFF) - 32768;
}
)CLC";

std::int32_t scaling_value(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return std::int32_t(k & 0xFFFF) - 32768;
}

/// What the host expects of the workloads over x[0, n): the sum, how many are positive, and the wrapping uint32
/// prefix sums at `probes` (ascending indices).
struct Expected {
    std::int64_t sum = 0, positive = 0;
    std::vector<std::uint32_t> prefix_at;
};

Expected expect(std::int64_t n, const std::vector<std::int64_t>& probes) {
    const unsigned threads = std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
    struct Part {
        std::int64_t sum = 0, positive = 0;
        std::uint32_t total = 0;
        std::vector<std::uint32_t> at;  // the part's own prefix at the probes inside it
    };
    std::vector<Part> parts(threads);
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            const std::int64_t begin = n * t / threads, end = n * (t + 1) / threads;
            Part& part = parts[t];
            auto probe = std::lower_bound(probes.begin(), probes.end(), begin);
            for (std::int64_t k = begin; k < end; ++k) {
                const std::int32_t v = scaling_value(std::uint64_t(k));
                part.sum += v;
                part.positive += v > 0;
                part.total += std::uint32_t(v);
                if (probe != probes.end() && *probe == k) {
                    part.at.push_back(part.total);
                    ++probe;
                }
            }
        });
    for (auto& worker : workers) worker.join();
    Expected expected;
    std::uint32_t carry = 0;
    for (const Part& part : parts) {
        expected.sum += part.sum;
        expected.positive += part.positive;
        for (std::uint32_t at : part.at) expected.prefix_at.push_back(carry + at);
        carry += part.total;
    }
    return expected;
}

/// Times `call` (which waits for its work): `rounds` rounds of as many calls back to back as take at least
/// `minimum` seconds (a count all processes agree on, `agree` giving the largest of their values); the best
/// round's time per call, and the calls in a round.
std::pair<double, int> time_per_call(const std::function<void()>& call, double minimum, int rounds,
                                     const std::function<double(double)>& agree) {
    call();  // warm-up: builds, pool draws
    example::Stopwatch once;
    call();
    const double first = agree(once.seconds());
    const int calls = int(std::min(1e6, std::max(1.0, std::ceil(minimum / std::max(first, 1e-9)))));
    double best = 1e30;
    for (int round = 0; round < rounds; ++round) {
        example::Stopwatch clock;
        for (int k = 0; k < calls; ++k) call();
        best = std::min(best, agree(clock.seconds()) / calls);
    }
    return {best, calls};
}

/// The devices of this process (or, with MPI, of all ranks) for the lines printed.
int device_count(const example::Scale& scale) {
#ifdef CLALGO_EXAMPLE_MPI
    return scale.ranks->size();
#else
    return int(scale.devices.size());
#endif
}

/// One array written by two devices at once, against sub-buffers of it and against arrays of each device's own:
/// the time of one round of "each device writes its half, then each device sums its half", on the first two
/// devices of the set. This is what DeviceSet refuses (the first case); the figures say why.
void shared_array_costs(const example::Scale& scale, std::int64_t n) {
    const auto& devices = scale.devices;
    if (devices.size() < 2) throw example::UsageError("--shared-array needs at least two devices");
    const clalgo::Context& context = devices.context();
    const clalgo::ElementwiseKernel write(context, "long *out, long first", "out[i - first] = 3 * i");
    const clalgo::ReductionKernel<std::int64_t> sum(context, "0", "a + b", "x[i]", "const long *x");
    const std::int64_t half = n / 2;
    const std::vector<clalgo::IndexRange> halves{clalgo::range(0, half), clalgo::range(half, 2 * half)};
    // device d writes out[i - firsts[d]] for i in its half, so its half lies at halves[d].start - firsts[d]
    auto round = [&](const std::vector<clalgo::ArrayView<std::int64_t>>& targets,
                     const std::vector<std::int64_t>& firsts) {
        std::vector<clalgo::DeviceResult<std::int64_t>> sums;
        for (std::size_t d = 0; d < 2; ++d) {
            write(devices.queue(d), halves[d], targets[d], firsts[d]);
            sums.push_back(sum.async(devices.queue(d),
                                     targets[d].view(std::size_t(halves[d].start - firsts[d]), std::size_t(half))));
            devices.queue(d).flush();
        }
        std::int64_t total = 0;
        for (std::size_t d = 0; d < 2; ++d) total += sums[d].get(devices.queue(d));
        return total;
    };
    const std::int64_t expected = 3 * (2 * half) * (2 * half - 1) / 2;
    auto report = [&](const char* how, const std::function<std::int64_t()>& call) {
        std::int64_t got = call();  // warm-up
        example::Stopwatch clock;
        int rounds = 0;
        do {
            got = call();
            ++rounds;
        } while (clock.seconds() < 0.2 && rounds < 100);
        std::printf("scaling shared-array-%s devices=2 n=%lld ms=%.4f calls=%d check=%s\n", how, (long long)(2 * half),
                    clock.seconds() / rounds * 1e3, rounds, got == expected ? "ok" : "WRONG");
    };
    {
        // one buffer: both devices write it (each its own half) and read it
        clalgo::Array<std::int64_t> one(context, std::size_t(2 * half));
        report("one-buffer", [&] { return round({one, one}, {0, 0}); });
    }
    {
        // sub-buffers of one buffer, one per device
        clalgo::Array<std::int64_t> one(context, std::size_t(2 * half));
        const cl_buffer_region regions[2] = {{0, std::size_t(half) * 8}, {std::size_t(half) * 8, std::size_t(half) * 8}};
        std::vector<clalgo::ArrayView<std::int64_t>> subs;
        cl::Buffer parent = one.buffer();
        for (const auto& region : regions)
            subs.emplace_back(parent.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region), 0,
                              std::size_t(half));
        report("sub-buffers", [&] { return round(subs, {0, half}); });
    }
    {
        // an array of each device's own: a SplitArray's parts
        const auto parts = clalgo::SplitArray<std::int64_t>::with_part_sizes(
            devices, std::vector<std::size_t>(devices.size(), std::size_t(half)));
        report("own-arrays", [&] { return round({parts.part(0), parts.part(1)}, {0, half}); });
    }
}

int run(int argc, char** argv) {
    example::CommandLine command_line(
        "scaling", "Times a map, a reduction, copy_if and the scan over arrays resident on the devices, split\n"
                   "across them, and checks every result against the host.");
    std::optional<std::int64_t> elements, minimum_ms;
    std::optional<std::string> devices_text, weights_text, only;
    bool calibrate = false, shared_array = false;
    command_line.count("--elements", "N", "int32 elements in all (default: 2^31 on a GPU, 2^24 on a CPU)", elements);
    command_line.text("--devices", "N|SPECS",
                      "N queues on the device, or the devices of comma-separated specs (\"0:0,0:1\")", devices_text);
    command_line.text("--weights", "W,W,...", "each device's share of the work (default: compute units)", weights_text);
    command_line.flag("--calibrate", "set the weights from each device's measured speed first", calibrate);
    command_line.text("--only", "NAMES", "comma-separated workloads: map, reduce, copy_if, scan", only);
    command_line.count("--min-ms", "MS", "time calls back to back for at least this long (default 50)", minimum_ms);
    command_line.flag("--shared-array",
                      "time one array written by two devices against sub-buffers and arrays of each device's own",
                      shared_array);
    if (!command_line.parse(argc, argv)) return 0;
    const int rounds = command_line.runs();
    example::Scale scale = example::open_scale(command_line, devices_text);
    const bool gpu = scale.device.info().is_gpu;
    const std::int64_t n = elements.value_or(std::int64_t(1) << (gpu ? 31 : 24));
    const double minimum = double(minimum_ms.value_or(50)) / 1e3;
    if (shared_array) {
        shared_array_costs(scale, elements.value_or(std::int64_t(1) << (gpu ? 24 : 20)));
        return 0;
    }
    if (weights_text) {
        std::vector<double> weights;
        std::size_t begin = 0;
        while (begin <= weights_text->size()) {
            const std::size_t comma = std::min(weights_text->find(',', begin), weights_text->size());
            weights.push_back(double(example::parse_count(weights_text->substr(begin, comma - begin), "--weights")));
            begin = comma + 1;
        }
#ifdef CLALGO_EXAMPLE_MPI
        scale.ranks->set_weights(weights);
#else
        scale.devices.set_weights(weights);
#endif
    }
    // the largest of every process's value: the processes of an MPI job make the same number of calls
    auto agree = [&](double value) {
#ifdef CLALGO_EXAMPLE_MPI
        double largest = value;
        MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return largest;
#else
        return value;
#endif
    };
    auto wanted = [&](const std::string& name) {
        return !only || ("," + *only + ",").find("," + name + ",") != std::string::npos;
    };

    const clalgo::Context& context = scale.device.context;
    clalgo::ElementwiseOptions fill_options;
    fill_options.name = "scaling_fill";
    fill_options.preamble = data_preamble;
    const clalgo::ElementwiseKernel fill(context, "int *x, long start, long first",
                                         "x[i] = scaling_value(first + start + i)", fill_options);
    const clalgo::ElementwiseKernel map(context, "const int *x, int *y", "y[i] = 3 * x[i] + 1");
    const clalgo::ReductionKernel<std::int64_t> sum(context, "0", "a + b", "x[i]", "const int *x");

    if (calibrate) {
        auto work = [&](const clalgo::Queue& queue, clalgo::IndexRange indices) {
            clalgo::Array<std::int32_t> probe(queue, std::size_t(indices.size()), clalgo::pooled);
            fill(queue, probe, indices.start, std::int64_t(0));
            sum(queue, probe);  // blocks
        };
#ifdef CLALGO_EXAMPLE_MPI
        scale.ranks->calibrate(work, std::min<std::int64_t>(n / 8, std::int64_t(1) << 26));
#else
        scale.devices.calibrate(work, std::min<std::int64_t>(n / 8, std::int64_t(1) << 26));
#endif
    }
    const std::vector<double> weights =
#ifdef CLALGO_EXAMPLE_MPI
        scale.ranks->weights();
#else
        scale.devices.weights();
#endif
    std::string weight_text;
    for (double weight : weights) weight_text += (weight_text.empty() ? "" : ",") + std::to_string(weight);
    std::printf("weights:  %s\n", weight_text.c_str());

    // this process's share of the whole array (all of it, but with MPI), in parts on its devices: element k of
    // part d is element local.start + x.offset(d) + k of the whole
    const clalgo::IndexRange local = scale.local(clalgo::range(0, n));
    clalgo::SplitArray<std::int32_t> x(scale.devices, std::size_t(local.size()));
    clalgo::map(scale.devices, fill, x, clalgo::share_start, local.start);

    std::vector<std::int64_t> probes;
    for (int k = 0; k < 64; ++k) probes.push_back(std::int64_t((double(k) + 0.5) / 64 * double(n)));
    probes.push_back(n - 1);
    const Expected expected = expect(n, probes);
    const int count = device_count(scale);
    bool passed = true;
    auto line = [&](const char* workload, std::pair<double, int> timed, bool ok) {
        std::printf("scaling %s devices=%d n=%lld ms=%.4f calls=%d check=%s\n", workload, count, (long long)n,
                    timed.first * 1e3, timed.second, ok ? "ok" : "WRONG");
        std::fflush(stdout);
        passed = passed && ok;
    };

    if (wanted("map")) {
        clalgo::SplitArray<std::int32_t> y(scale.devices, std::size_t(local.size()));
        const auto timed = time_per_call([&] { clalgo::map(scale.devices, map, x, y); }, minimum, rounds, agree);
        std::int64_t total = clalgo::reduce(scale.devices, sum, y);
        total = scale.sum_over_processes(total);
        line("map", timed, total == 3 * expected.sum + n);
    }
    if (wanted("reduce")) {
        std::int64_t total = 0;
        const auto timed = time_per_call([&] { total = scale.sum_over_processes(clalgo::reduce(scale.devices, sum, x)); },
                                         minimum, rounds, agree);
        line("reduce", timed, total == expected.sum);
    }
    if (wanted("copy_if")) {
        std::int64_t kept = 0;
        const auto timed = time_per_call(
            [&] {
                const auto positive = clalgo::copy_if(scale.devices, x, "ary[i] > 0");
                kept = scale.sum_over_processes(std::int64_t(positive.size()));
            },
            minimum, rounds, agree);
        line("copy_if", timed, kept == expected.positive);
    }
    if (wanted("scan")) {
        clalgo::ScanOptions options;
        options.name = "scaling_scan";
        clalgo::SplitArray<std::uint32_t> y(scale.devices, std::size_t(local.size()));
        const std::string arguments = "const int *x, uint *y, long start";
#ifdef CLALGO_EXAMPLE_MPI
        const clalgo::mpi::ScanKernel<std::uint32_t> prefix(*scale.ranks, arguments, "(uint)x[i - start]", "a + b", "0",
                                                            "y[i - start] = item", options);
        auto call = [&] { prefix(clalgo::range(0, n), x.part(0), y.part(0), clalgo::share_start); };
#else
        const clalgo::SplitScanKernel<std::uint32_t> prefix(scale.devices, arguments, "(uint)x[i - start]", "a + b", "0",
                                                            "y[i - start] = item", options);
        auto call = [&] { prefix(clalgo::range(0, n), x, y, clalgo::share_start); };
#endif
        const auto timed = time_per_call(call, minimum, rounds, agree);
        // the probes this process holds
        bool ok = true;
        for (std::size_t p = 0; p < probes.size(); ++p) {
            const std::int64_t k = probes[p];
            if (k < local.start || k >= local.stop) continue;
            const std::size_t at = std::size_t(k - local.start);
            for (std::size_t d = 0; d < y.parts(); ++d)
                if (at >= y.offset(d) && at < y.offset(d) + y.part(d).size())
                    ok = ok && y.part(d).read_at(scale.devices.queue(d), at - y.offset(d)) == expected.prefix_at[p];
        }
        line("scan", timed, scale.everywhere(ok));
    }
    return scale.everywhere(passed) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef CLALGO_EXAMPLE_MPI
    MPI_Init(&argc, &argv);
    const int code = example::run_main("scaling_mpi", [&] { return run(argc, argv); });
    int worst = 0;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
#else
    return example::run_main("scaling", [&] { return run(argc, argv); });
#endif
}
