// Estimating pi on the device, as in "Classical introduction to parallel computing - estimating pi in CUDA":
//   1. Monte Carlo: the share of random points of the unit square inside the quarter circle x^2 + y^2 < 1 tends to
//      pi/4. A ReductionKernel counts them over the index range of generator calls; its map draws four points a
//      call from the counter-based generator Philox4x32-10 (clalgo::snippets::philox), so no generator state is
//      kept anywhere: the points of call i are a pure function of (i, seed), the same on every device.
//   2. The midpoint rule for pi = integral over [0, 1] of 4 / (1 + x^2): a ReductionKernel sums the heights at
//      the midpoints of N intervals, in double precision (float where the device lacks it).
// The Monte Carlo estimate must lie within 5 standard errors of pi, the midpoint rule within its error bound.
// --devices splits both ranges across several devices of this process (a clalgo::DeviceSet); the MPI build,
// pi_mpi, across the ranks of `mpirun -np N pi_mpi` (clalgo::mpi). The count is the same in every mode.
#include "common/device.hpp"
#include "common/scale.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace {

constexpr double pi = 3.141592653589793238462643;

// Each Philox call gives four 32-bit numbers, and each number two 16-bit coordinates: four points
// ((k + 1/2) / 65536, (l + 1/2) / 65536) of the midpoint grid of the unit square. A point lies inside the quarter
// circle when (k + 1/2)^2 + (l + 1/2)^2 < 65536^2, that is when k(k + 1) + l(l + 1) < 2^32: a test in 32-bit
// integers that is exact (no float rounding at the circle), where the sum overflows exactly for the points outside.
// The grid's own share of inside points differs from pi/4 by 1.2e-8 (grid_share below counts it exactly): far
// below the standard error of any count a GPU makes in seconds (1.6e-6 at 10^12 points). Four points per call
// rather than two made the count 1.76 times as fast on an H200: the ten rounds of Philox are most of the work.
const char* const monte_carlo_preamble = R"CLC(
/* k(k + 1) for a 16-bit grid coordinate k: below 2^32 */
inline uint grid_square(uint k) { return k * k + k; }

/* 1 when k(k + 1) + l(l + 1) < 2^32, that is when the 32-bit sum does not overflow */
inline int grid_inside(uint k_square, uint l_square) { return k_square + l_square >= k_square; }

/* How many of the four points that Philox draws from counter `call` lie inside the quarter circle: 0 to 4 */
inline long points_inside(long call, uint2 key)
{
    const uint4 bits = philox4x32_10((uint4)((uint)call, (uint)(call >> 32), 0, 0), key);
    return grid_inside(grid_square(bits.x >> 16), grid_square(bits.y >> 16))
         + grid_inside(grid_square(bits.x & 0xFFFFu), grid_square(bits.y & 0xFFFFu))
         + grid_inside(grid_square(bits.z >> 16), grid_square(bits.w >> 16))
         + grid_inside(grid_square(bits.z & 0xFFFFu), grid_square(bits.w & 0xFFFFu));
}
)CLC";

// The share of the 2^32 points of the grid that lie inside the quarter circle, counted exactly on the host: for
// each k, the l with l(l + 1) < 2^32 - k(k + 1). It is what the Monte Carlo count estimates; times 4 it lies within
// 5e-8 of pi.
double grid_share() {
    const std::uint64_t side = 65536, limit = std::uint64_t(1) << 32;
    std::uint64_t inside = 0;
    for (std::uint64_t k = 0; k < side; ++k) {
        const std::uint64_t rest = limit - k * (k + 1);  // count the l with l(l + 1) < rest
        std::uint64_t l = static_cast<std::uint64_t>(std::sqrt(double(rest)));
        while (l > 0 && l * (l + 1) >= rest) --l;
        while (l + 1 < side && (l + 1) * (l + 2) < rest) ++l;
        inside += l + 1;  // l(l + 1) < rest holds for l = 0 (rest > 0) and every l up to this one
    }
    return double(inside) / double(side * side);
}

struct MonteCarlo {
    std::int64_t inside = 0;
    bool operator==(const MonteCarlo& other) const { return inside == other.inside; }
};

int run(int argc, char** argv) {
    example::CommandLine command_line("pi", "Estimates pi on the device: Monte Carlo with a counter-based random generator,\n"
                                            "and the midpoint rule for the integral of 4 / (1 + x^2) over [0, 1].");
    std::optional<std::int64_t> samples, intervals, seed;
    std::optional<std::string> devices_text;
    bool single = false;
    command_line.count("--samples", "N", "Monte Carlo points (default: 2^27 on a CPU, 2^36 on a GPU)", samples);
    command_line.count("--intervals", "N", "midpoint rule intervals (default: 1e7 on a CPU, 1e9 on a GPU)", intervals);
    command_line.count("--seed", "S", "the generator's key (default 42)", seed);
    command_line.text("--devices", "N|SPECS",
                      "split the ranges across N queues on the device, or the devices of comma-separated specs "
                      "(\"0:0,0:1\"), in proportion to their compute units",
                      devices_text);
    command_line.flag("--float", "the midpoint rule in single precision even where the device has double", single);
    command_line.epilogue("Examples:\n  pi\n  pi --samples 2^30 --seed 7 --intervals 1e6");
    if (!command_line.parse(argc, argv)) return 0;
    if (samples && *samples < 2) throw example::UsageError("--samples: need at least 2");
    if (intervals && *intervals < 1) throw example::UsageError("--intervals: need at least 1");
    if (intervals && *intervals > (std::int64_t(1) << 36))
        throw example::UsageError("--intervals: at most 2^36");  // the float path's integer sum stays below 2^63
    const int runs = command_line.runs();

    std::printf("pi:       estimating pi on the device, two ways\n");
    const example::Scale scale = example::open_scale(command_line, devices_text);
    const example::Device& device = scale.device;
    const bool gpu = device.info().is_gpu;
    const bool in_double = device.info().has_fp64 && !single;

    // four points per Philox call: the sample count is rounded up to a multiple of 4. The defaults take about
    // half a second a run on two CPU cores, and less than a tenth of one on a large GPU.
    const std::int64_t calls = (samples.value_or(std::int64_t(1) << (gpu ? 36 : 27)) + 3) / 4;
    const std::int64_t points = 4 * calls;
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
    std::printf("\nMonte Carlo: %s points of the 65536 x 65536 midpoint grid of [0, 1)^2 from Philox4x32-10\n"
                "   (four points a call; counter: the call, key: seed %llu)%s\n",
                example::with_commas(points).c_str(), (unsigned long long)key,
                samples && points != *samples ? ", rounded up to a multiple of 4" : "");
    const cl_uint2 philox_key{{static_cast<cl_uint>(key), static_cast<cl_uint>(key >> 32)}};
    const auto monte_carlo = example::best_of(runs, [&] {
        return MonteCarlo{scale.reduce(count_inside, clalgo::range(0, calls), philox_key)};
    });
    const double estimate = 4.0 * double(monte_carlo.result.inside) / double(points);
    const double standard_error = 4.0 * std::sqrt(pi / 4 * (1 - pi / 4) / double(points));
    const double deviations = std::fabs(estimate - pi) / standard_error;
    std::printf("   pi ~ %.10f   error %+.3e   standard error %.3e: off by %.2f standard errors\n", estimate,
                estimate - pi, standard_error, deviations);
    std::printf("   time %s, %s samples/s\n", monte_carlo.report().c_str(),
                example::si(double(points) / monte_carlo.best).c_str());
    std::printf("   (the grid itself: 4 x its share inside = pi %+.1e, counted on the host)\n", 4 * grid_share() - pi);

    // --- the midpoint rule ---
    std::printf("Midpoint rule: %s intervals of 4 / (1 + x^2) over [0, 1], in %s precision%s\n",
                example::with_commas(interval_count).c_str(), in_double ? "double" : "single",
                in_double ? ""
                : single  ? " (--float)"
                          : " (the device has no double precision)");
    const double h = 1.0 / double(interval_count);
    const auto midpoint = example::best_of(runs, [&] {
        if (in_double) return scale.reduce(*midpoint_sum, clalgo::range(0, interval_count), h) * h;
        return double(scale.reduce(*midpoint_sum_float, clalgo::range(0, interval_count), static_cast<float>(h))) /
               16777216.0 * h;
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
    passed = scale.everywhere(passed);
    if (passed)
        std::printf("PASS:     Monte Carlo within %.2f standard errors, midpoint rule within %.1e\n", deviations,
                    quadrature_bound);
    return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef CLALGO_EXAMPLE_MPI
    MPI_Init(&argc, &argv);
    const int code = example::run_main("pi_mpi", [&] { return run(argc, argv); });
    int worst = 0;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
#else
    return example::run_main("pi", [&] { return run(argc, argv); });
#endif
}
