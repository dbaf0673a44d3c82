// The one-call array algorithms against their std:: counterparts, and against what they stand for on the device.
// Host baselines: argmax of floats (std::max_element), the sum of int8 values into int64 (std::accumulate), a
// gather of floats by int32 indices (a plain loop).
// On the device, each against what it stands for:
//   sum, min, max, dot of floats, each beside the ReductionKernel a user would write for it (array/clalgo_<op>_float
//   and array/reduction_kernel_<op>_float; _into: the result left on the device): benchmarks/results.py's "array"
//   tables (benchmarks/gpu/compare.py array);
//   take (by int32 indices in order, and scattered), fill, astype beside a device copy of floats
//   (array/device_copy_float: clEnqueueCopyBuffer through ArrayView::copy_to; array/elementwise_copy_float: an
//   ElementwiseKernel out[i] = x[i]): compare their bytes per second in the program's output.
// Bytes per run, reads plus writes: sum, min, max and argmax read the input once (n x 4; n for int8), dot both
// inputs (2 x n x 4); take reads the indices and the picked values and writes the result (3 x n x 4); fill writes
// n x 4; astype reads n x 4 and writes n x 4 (int32 -> float) or n x 8 (float -> double); a copy n x 4 each way.
#include "bench_support.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

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

/// n indices in order (indices[k] = k): a gather whose reads are contiguous, as a copy's are.
std::vector<std::int32_t> ordered_indices(std::size_t n) {
    std::vector<std::int32_t> indices(n);
    std::iota(indices.begin(), indices.end(), 0);
    return indices;
}

/// A float result is right where it lies within 1e-5 x sum |terms| of the sum in double (the device adds in another
/// order).
bool close(double device, double reference, double absolute_sum) {
    return std::fabs(device - reference) <= 1e-5 * (absolute_sum + 1);
}

/// The reductions of the goals: clalgo's call and the ReductionKernel a user would write for it, both with the
/// result returned to the host and left on the device (`_into`).
struct GoalReduction {
    const char* name;     ///< sum, min, max, dot
    const char* neutral;  ///< of the hand-written ReductionKernel
    const char* reduce;
    const char* map;
    bool two_inputs;
};

const GoalReduction goal_reductions[] = {
    {"sum", "0", "a + b", "x[i]", false},
    {"min", "INFINITY", "fmin(a, b)", "x[i]", false},
    {"max", "-INFINITY", "fmax(a, b)", "x[i]", false},
    {"dot", "0", "a + b", "x[i] * y[i]", true},
};

/// clalgo's call for a goal reduction: the result on the host, or into `result` on the device.
float clalgo_reduction(const std::string& name, const clalgo::ArrayView<float>& x, const clalgo::ArrayView<float>& y) {
    if (name == "sum") return clalgo::sum(queue(), x);
    if (name == "min") return clalgo::min(queue(), x);
    if (name == "max") return clalgo::max(queue(), x);
    return clalgo::dot(queue(), x, y);
}

void clalgo_reduction_into(const std::string& name, const clalgo::ArrayView<float>& x, const clalgo::ArrayView<float>& y,
                           const clalgo::ArrayView<float>& result) {
    if (name == "sum") clalgo::sum(queue(), x, result);
    else if (name == "min") clalgo::min(queue(), x, result);
    else if (name == "max") clalgo::max(queue(), x, result);
    else clalgo::dot(queue(), x, y, result);
}

/// The hand-written ReductionKernel of a goal reduction (built once; the program cache keeps it).
const clalgo::ReductionKernel<float>& hand_written(const GoalReduction& goal) {
    static std::map<std::string, std::unique_ptr<clalgo::ReductionKernel<float>>> kernels;
    auto& kernel = kernels[goal.name];
    if (!kernel)
        kernel = std::make_unique<clalgo::ReductionKernel<float>>(
            clalgo_bench::context(), goal.neutral, goal.reduce, goal.map,
            goal.two_inputs ? "const float *x, const float *y" : "const float *x",
            clalgo_bench::reduction_options(std::string("bench_") + goal.name + "_float"));
    return *kernel;
}

/// The CPU result of a goal reduction, in double, and the sum of the magnitudes of its terms.
std::pair<double, double> cpu_reduction(const std::string& name, const std::vector<float>& x, const std::vector<float>& y) {
    double value = name == "min" ? INFINITY : name == "max" ? -INFINITY : 0.0, magnitude = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        const double term = name == "dot" ? double(x[k]) * double(y[k]) : double(x[k]);
        if (name == "min") value = std::min(value, term);
        else if (name == "max") value = std::max(value, term);
        else value += term;
        magnitude += std::fabs(term);
    }
    return {value, name == "min" || name == "max" ? 0.0 : magnitude};
}

void register_goal_reductions(std::int64_t n) {
    const std::string size = "/" + std::to_string(n);
    for (const GoalReduction& goal : goal_reductions) {
        const std::string name = goal.name;
        const std::int64_t bytes = (goal.two_inputs ? 2 : 1) * n * 4;
        for (const bool into : {false, true}) {
            const std::string suffix = std::string("_float") + (into ? "_into" : "") + size;
            clalgo_bench::register_device("array/clalgo_" + name + suffix, [n, name, bytes, into](benchmark::State& state) {
                const auto& x = input<float>(n, 5);
                const auto& y = input<float>(n, 6);
                const auto [expected, magnitude] = cpu_reduction(name, x.host, y.host);
                if (!check(state, close(clalgo_reduction(name, x.device, y.device), expected, magnitude),
                           "wrong " + name))
                    return;
                const clalgo::Array<float> result(queue(), 1);
                if (into) {
                    clalgo_bench::time_device(state, [&] { clalgo_reduction_into(name, x.device, y.device, result); });
                } else {
                    clalgo_bench::time_device(
                        state, [&] { benchmark::DoNotOptimize(clalgo_reduction(name, x.device, y.device)); });
                }
                clalgo_bench::set_processed(state, n, bytes);
            });
            clalgo_bench::register_device("array/reduction_kernel_" + name + suffix, [n, goal, bytes, into](benchmark::State& state) {
                const auto& x = input<float>(n, 5);
                const auto& y = input<float>(n, 6);
                const auto [expected, magnitude] = cpu_reduction(goal.name, x.host, y.host);
                const auto& kernel = hand_written(goal);
                auto run = [&] { return goal.two_inputs ? kernel(queue(), x.device, y.device) : kernel(queue(), x.device); };
                if (!check(state, close(run(), expected, magnitude), std::string("wrong ") + goal.name)) return;
                const clalgo::Array<float> result(queue(), 1);
                if (into) {
                    clalgo_bench::time_device(state, [&] {
                        if (goal.two_inputs) kernel.into(queue(), result, x.device, y.device);
                        else kernel.into(queue(), result, x.device);
                    });
                } else {
                    clalgo_bench::time_device(state, [&] { benchmark::DoNotOptimize(run()); });
                }
                clalgo_bench::set_processed(state, n, bytes);
            });
        }
    }
}

/// take, fill and astype, and the device copies they are measured against.
void register_goal_maps(std::int64_t n) {
    const std::string size = "/" + std::to_string(n);

    clalgo_bench::register_device("array/device_copy_float" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 3);
        const clalgo::Array<float> out(queue(), n);
        x.device.copy_to(queue(), out);
        if (!check(state, out.to_host(queue()) == x.host, "wrong copy")) return;
        clalgo_bench::time_device(state, [&] { x.device.copy_to(queue(), out); });
        clalgo_bench::set_processed(state, n, 2 * n * 4);
    });
    clalgo_bench::register_device("array/elementwise_copy_float" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 3);
        const clalgo::Array<float> out(queue(), n);
        static const clalgo::ElementwiseKernel copy(clalgo_bench::context(), "const float *x, float *out",
                                                    "out[i] = x[i]", clalgo_bench::elementwise_options("bench_copy_float"));
        copy(queue(), x.device, out);
        if (!check(state, out.to_host(queue()) == x.host, "wrong copy")) return;
        clalgo_bench::time_device(state, [&] { copy(queue(), x.device, out); });
        clalgo_bench::set_processed(state, n, 2 * n * 4);
    });

    clalgo_bench::register_device("array/clalgo_take_float_ordered" + size, [n](benchmark::State& state) {
        const auto& x = input<float>(n, 3);
        const auto& indices = clalgo_bench::cached_input<std::int32_t>(n, 7, ordered_indices);
        const clalgo::Array<float> out(queue(), n);
        clalgo::take(queue(), x.device, indices.device, out);
        if (!check(state, out.to_host(queue()) == x.host, "wrong take")) return;
        clalgo_bench::time_device(state, [&] { clalgo::take(queue(), x.device, indices.device, out); });
        clalgo_bench::set_processed(state, n, 3 * n * 4);
    });

    clalgo_bench::register_device("array/clalgo_fill_float" + size, [n](benchmark::State& state) {
        const clalgo::Array<float> out(queue(), n);
        clalgo::fill(queue(), out, 2.5f);
        const auto back = out.to_host(queue());
        if (!check(state, std::all_of(back.begin(), back.end(), [](float v) { return v == 2.5f; }), "wrong fill")) return;
        clalgo_bench::time_device(state, [&] { clalgo::fill(queue(), out, 2.5f); });
        clalgo_bench::set_processed(state, n, n * 4);
    });

    clalgo_bench::register_device("array/clalgo_astype_int32_float" + size, [n](benchmark::State& state) {
        const auto& x = input<std::int32_t>(n, 8);
        const clalgo::Array<float> out(queue(), n);
        clalgo::astype(queue(), x.device, out);
        const auto back = out.to_host(queue());
        bool ok = true;
        for (std::size_t k = 0; k < back.size(); ++k) ok = ok && back[k] == float(x.host[k]);
        if (!check(state, ok, "wrong astype")) return;
        clalgo_bench::time_device(state, [&] { clalgo::astype(queue(), x.device, out); });
        clalgo_bench::set_processed(state, n, 2 * n * 4);
    });

    clalgo_bench::register_device("array/clalgo_astype_float_double" + size, [n](benchmark::State& state) {
        if (!queue().info().has_fp64) {
            state.SkipWithError("no fp64");
            return;
        }
        const auto& x = input<float>(n, 3);
        const clalgo::Array<double> out(queue(), n);
        clalgo::astype(queue(), x.device, out);
        const auto back = out.to_host(queue());
        bool ok = true;
        for (std::size_t k = 0; k < back.size(); ++k) ok = ok && back[k] == double(x.host[k]);
        if (!check(state, ok, "wrong astype")) return;
        clalgo_bench::time_device(state, [&] { clalgo::astype(queue(), x.device, out); });
        clalgo_bench::set_processed(state, n, n * 4 + n * 8);
    });
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
    for (std::int64_t n : clalgo_bench::sizes()) {
        register_size(n);
        register_goal_reductions(n);
        register_goal_maps(n);
    }
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
