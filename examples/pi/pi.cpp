// Estimating pi on the device, as in "Classical introduction to parallel computing - estimating pi in CUDA":
//   1. Monte Carlo: the share of random points of the unit square inside the quarter circle x^2 + y^2 < 1 tends to
//      pi/4. A ReductionKernel counts them over the index range of point pairs; its map draws the points from the
//      counter-based generator Philox4x32-10 (clalgo::snippets::philox), so no generator state is kept anywhere:
//      the numbers of pair i are a pure function of (i, seed), and the result is the same on every device.
//   2. The midpoint rule for pi = integral over [0, 1] of 4 / (1 + x^2): a ReductionKernel sums the heights at
//      the midpoints of N intervals, in double precision (float where the device lacks it).
// The Monte Carlo estimate must lie within 5 standard errors of pi, the midpoint rule within its error bound.
#include "common/device.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace {

constexpr double pi = 3.141592653589793238462643;

// Each Philox call gives four 32-bit numbers: two points. Coordinates with 23 random bits are plenty: the points
// lie on a grid of step 2^-23, which biases the estimate by about 4 * 2^-23 = 4.8e-7, well below the standard
// error up to about 10^12 points (1.6e-6 there).
const char* const monte_carlo_preamble = R"CLC(
/* How many of the two points that Philox draws from counter `pair` lie inside the quarter circle: 0, 1 or 2 */
inline long points_inside(long pair, uint2 key)
{
    const uint4 bits = philox4x32_10((uint4)((uint)pair, (uint)(pair >> 32), 0, 0), key);
    const float x1 = philox_uniform_float(bits.x), y1 = philox_uniform_float(bits.y);
    const float x2 = philox_uniform_float(bits.z), y2 = philox_uniform_float(bits.w);
    return (x1 * x1 + y1 * y1 < 1.0f) + (x2 * x2 + y2 * y2 < 1.0f);
}
)CLC";

struct MonteCarlo {
    std::int64_t inside = 0;
    bool operator==(const MonteCarlo& other) const { return inside == other.inside; }
};

int run(int argc, char** argv) {
    example::CommandLine command_line("pi", "Estimates pi on the device: Monte Carlo with a counter-based random generator,\n"
                                            "and the midpoint rule for the integral of 4 / (1 + x^2) over [0, 1].");
    std::optional<std::int64_t> samples, intervals, seed;
    bool single = false;
    command_line.count("--samples", "N", "Monte Carlo points (default: 2^25 on a CPU, 2^36 on a GPU)", samples);
    command_line.count("--intervals", "N", "midpoint rule intervals (default: 1e7 on a CPU, 1e9 on a GPU)", intervals);
    command_line.count("--seed", "S", "the generator's key (default 42)", seed);
    command_line.flag("--float", "the midpoint rule in single precision even where the device has double", single);
    command_line.epilogue("Examples:\n  pi\n  pi --samples 2^30 --seed 7 --intervals 1e6");
    if (!command_line.parse(argc, argv)) return 0;
    if (samples && *samples < 2) throw example::UsageError("--samples: need at least 2");
    if (intervals && *intervals < 1) throw example::UsageError("--intervals: need at least 1");
    if (intervals && *intervals > (std::int64_t(1) << 36))
        throw example::UsageError("--intervals: at most 2^36");  // the float path's integer sum stays below 2^63
    const int runs = command_line.runs();

    std::printf("pi:       estimating pi on the device, two ways\n");
    example::Device device = example::open_device(command_line.device_spec());
    const clalgo::Queue& queue = device.queue;
    const bool gpu = device.info().is_gpu;
    const bool in_double = device.info().has_fp64 && !single;

    // two points per Philox call: the sample count is rounded up to an even number. The defaults take about half a
    // second a run on two CPU cores, and should take about a tenth of one on a large GPU.
    const std::int64_t pairs = (samples.value_or(std::int64_t(1) << (gpu ? 36 : 25)) + 1) / 2;
    const std::int64_t points = 2 * pairs;
    const std::int64_t interval_count = intervals.value_or(gpu ? 1000000000 : 10000000);
    const std::uint64_t key = static_cast<std::uint64_t>(seed.value_or(42));

    // --- the kernels ---
    example::BuildTimer builds;
    clalgo::ReductionOptions monte_carlo_options;
    monte_carlo_options.name = "monte_carlo_pi";
    monte_carlo_options.preamble = std::string(clalgo::snippets::philox) + monte_carlo_preamble;
    const clalgo::ReductionKernel<std::int64_t> count_inside(device.context, "0", "a + b", "points_inside(i, key)",
                                                             "uint2 key", monte_carlo_options);
    clalgo::ReductionOptions midpoint_options;
    midpoint_options.name = "midpoint_pi";
    // only the precision the device runs is built: a kernel over doubles fails to build without fp64
    std::optional<clalgo::ReductionKernel<double>> midpoint_sum;
    std::optional<clalgo::ReductionKernel<std::int64_t>> midpoint_sum_float;
    if (in_double) {
        midpoint_sum.emplace(device.context, "0", "a + b", "4.0 / (1.0 + ((i + 0.5) * h) * ((i + 0.5) * h))",
                             "double h", midpoint_options);
    } else {
        // Heights in float, summed as 64-bit integers: each height lies in [2, 4], so times 2^24 it is a whole
        // number, and the integer sum is exact (a float sum of 10^8 heights would be off in the third digit).
        midpoint_sum_float.emplace(device.context, "0", "a + b",
                                   "(long)(4.0f / (1.0f + ((i + 0.5f) * h) * ((i + 0.5f) * h)) * 16777216.0f)",
                                   "float h", midpoint_options);
    }
    std::printf("kernels:  %s\n", builds.report().c_str());

    // --- Monte Carlo ---
    std::printf("\nMonte Carlo: %s points in [0, 1)^2 from Philox4x32-10 (counter: the point pair, key: seed %llu)%s\n",
                example::with_commas(points).c_str(), (unsigned long long)key,
                samples && points != *samples ? ", rounded up to an even count" : "");
    const cl_uint2 philox_key{{static_cast<cl_uint>(key), static_cast<cl_uint>(key >> 32)}};
    const auto monte_carlo = example::best_of(runs, [&] {
        return MonteCarlo{count_inside(queue, clalgo::range(0, pairs), philox_key)};
    });
    const double estimate = 4.0 * double(monte_carlo.result.inside) / double(points);
    const double standard_error = 4.0 * std::sqrt(pi / 4 * (1 - pi / 4) / double(points));
    const double deviations = std::fabs(estimate - pi) / standard_error;
    std::printf("   pi ~ %.10f   error %+.3e   standard error %.3e: off by %.2f standard errors\n", estimate,
                estimate - pi, standard_error, deviations);
    std::printf("   time %s, %s samples/s\n", monte_carlo.report().c_str(),
                example::si(double(points) / monte_carlo.best).c_str());

    // --- the midpoint rule ---
    std::printf("Midpoint rule: %s intervals of 4 / (1 + x^2) over [0, 1], in %s precision%s\n",
                example::with_commas(interval_count).c_str(), in_double ? "double" : "single",
                in_double ? ""
                : single  ? " (--float)"
                          : " (the device has no double precision)");
    const double h = 1.0 / double(interval_count);
    const auto midpoint = example::best_of(runs, [&] {
        if (in_double) return (*midpoint_sum)(queue, clalgo::range(0, interval_count), h) * h;
        return double((*midpoint_sum_float)(queue, clalgo::range(0, interval_count), static_cast<float>(h))) / 16777216.0 * h;
    });
    const double quadrature_error = midpoint.result - pi;
    // the midpoint rule's error is -h^2/12 to leading order, plus rounding
    const double quadrature_bound = h * h / 12 * 1.01 + (in_double ? 1e-9 : 1e-5);
    std::printf("   pi ~ %.15f   error %+.3e\n", midpoint.result, quadrature_error);
    std::printf("   time %s, %s intervals/s\n", midpoint.report().c_str(),
                example::si(double(interval_count) / midpoint.best).c_str());

    // --- the checks ---
    bool passed = true;
    std::printf("\n");
    if (deviations > 5) {
        std::printf("MISMATCH: the Monte Carlo estimate is %.1f standard errors from pi (at most 5 expected)\n",
                    deviations);
        passed = false;
    }
    if (std::fabs(quadrature_error) > quadrature_bound) {
        std::printf("MISMATCH: the midpoint rule is off by %.3e, more than its bound %.3e\n", std::fabs(quadrature_error),
                    quadrature_bound);
        passed = false;
    }
    if (!monte_carlo.all_equal || !midpoint.all_equal) {
        std::printf("MISMATCH: repeated runs gave different results\n");
        passed = false;
    }
    if (passed)
        std::printf("PASS:     Monte Carlo within %.2f standard errors, midpoint rule within %.1e\n", deviations,
                    quadrature_bound);
    return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return example::run_main("pi", [&] { return run(argc, argv); });
}
