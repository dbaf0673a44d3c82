// Conjugate gradient on the 2-D Poisson matrix: the 5-point stencil (4 on the diagonal, -1 for each of the four
// neighbours) on a g x g grid with zero (Dirichlet) boundary values, n = g^2 unknowns, right-hand side b = 1,
// start x = 0. Matrix-free: the matrix is never stored, each product A p is computed from the stencil. Two forms,
// written with clalgo's public API as a user would:
//   1. textbook: one clalgo call per step of the algorithm: the stencil (a map), p.Ap and r.r (reductions whose
//      results come back to the host), and three axpy-like maps (x += alpha p, r -= alpha Ap, p = r + beta p):
//      six launches and two blocking reads an iteration;
//   2. fused: what run-time generated kernels allow and a BLAS does not: the stencil and p.Ap in one reduction
//      (its map writes Ap[i] and returns p[i] Ap[i]), both updates and r.r in another, the direction in a map:
//      three launches and two blocking reads an iteration;
//   3. the fused form with alpha and beta computed on the device: the reductions leave p.Ap and r.r in a small
//      device array that the next kernels read, so only r.r comes back (the convergence test): three launches and
//      one blocking read an iteration (one device).
// Each must give the same iterates as a plain C++ CG on the host (std::transform_reduce), which is also timed,
// sequential and parallel. --devices splits the grid's rows across devices (or queues), each holding its rows of
// the vectors and a copy of its neighbours' boundary rows of p (a halo), exchanged after each direction update.
#include "common/device.hpp"
#include "common/scale.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <execution>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

// --- the host's CG: the reference the device forms are checked against, and the CPU's timing ---

/// The solution after a number of iterations, and |r| / |b| from the recurrence.
struct Solution {
    std::vector<double> x;
    double residual = 0;
    int iterations = 0;
};

/// y = A p on the g x g grid, a row at a time (the rows in parallel under a parallel policy).
template <class Policy>
void host_stencil(Policy policy, int g, const std::vector<int>& rows, const std::vector<double>& p, std::vector<double>& y) {
    std::for_each(policy, rows.begin(), rows.end(), [&](int row) {
        const std::size_t first = std::size_t(row) * std::size_t(g);
        for (int column = 0; column < g; ++column) {
            const std::size_t i = first + std::size_t(column);
            double v = 4.0 * p[i];
            if (column > 0) v -= p[i - 1];
            if (column < g - 1) v -= p[i + 1];
            if (row > 0) v -= p[i - std::size_t(g)];
            if (row < g - 1) v -= p[i + std::size_t(g)];
            y[i] = v;
        }
    });
}

/// `iterations` steps of CG from x = 0, or until |r| / |b| <= tolerance where `tolerance` > 0.
template <class Policy>
Solution host_cg(Policy policy, int g, int iterations, double tolerance) {
    const std::size_t n = std::size_t(g) * std::size_t(g);
    std::vector<int> rows(static_cast<std::size_t>(g));
    std::iota(rows.begin(), rows.end(), 0);
    std::vector<double> x(n, 0.0), r(n, 1.0), p(n, 1.0), Ap(n);
    const double norm_b = std::sqrt(double(n));
    double rr = std::transform_reduce(policy, r.begin(), r.end(), r.begin(), 0.0);
    int k = 0;
    for (; k < iterations && !(tolerance > 0 && std::sqrt(rr) / norm_b <= tolerance); ++k) {
        host_stencil(policy, g, rows, p, Ap);
        const double alpha = rr / std::transform_reduce(policy, p.begin(), p.end(), Ap.begin(), 0.0);
        std::transform(policy, p.begin(), p.end(), x.begin(), x.begin(), [=](double pi, double xi) { return xi + alpha * pi; });
        std::transform(policy, Ap.begin(), Ap.end(), r.begin(), r.begin(), [=](double api, double ri) { return ri - alpha * api; });
        const double rr_new = std::transform_reduce(policy, r.begin(), r.end(), r.begin(), 0.0);
        const double beta = rr_new / rr;
        rr = rr_new;
        std::transform(policy, r.begin(), r.end(), p.begin(), p.begin(), [=](double ri, double pi) { return ri + beta * pi; });
    }
    return Solution{std::move(x), std::sqrt(rr) / norm_b, k};
}

// --- the device's CG ---

// The stencil over a device's rows of p, stored with one row of halo above and below: row -1 of the part is p[0 .. g),
// its row 0 starts at p[g]. The halo rows hold the neighbouring device's boundary rows, or zeros at the grid's edge
// (the Dirichlet boundary), so only the columns need a test. i is below 2^31 (the grid is at most 32768 x 32768):
// the column is a 32-bit remainder.
const char* const stencil_preamble = R"CLC(
/* (A p)_i for the item i of the part: 4 p_i less its four neighbours, the columns' edges left out */
inline double poisson_apply(__global const double *p, long g, long i)
{
    const long at = i + g;
    const uint column = (uint)i % (uint)g;
    double v = 4.0 * p[at] - p[at - g] - p[at + g];
    if (column > 0)
        v -= p[at - 1];
    if (column < (uint)g - 1)
        v -= p[at + 1];
    return v;
}
)CLC";

// The fused forms' maps: each writes what the step updates and returns its term of the dot product.
const char* const fused_preamble = R"CLC(
/* Ap_i = (A p)_i, stored; returns p_i Ap_i */
inline double apply_and_dot(__global double *Ap, __global const double *p, long g, long i)
{
    const double api = poisson_apply(p, g, i);
    Ap[i] = api;
    return p[i + g] * api;
}

/* x_i += alpha p_i, r_i -= alpha Ap_i; returns the new r_i squared */
inline double update_and_square(__global double *x, __global double *r, __global const double *p,
                                __global const double *Ap, double alpha, long g, long i)
{
    x[i] += alpha * p[i + g];
    const double ri = r[i] - alpha * Ap[i];
    r[i] = ri;
    return ri * ri;
}
)CLC";

/// The kernels of the three forms, built once for every device of the context.
struct Kernels {
    explicit Kernels(const clalgo::Context& context)
        : stencil(context, "double *Ap, const double *p, long g", "Ap[i] = poisson_apply(p, g, i)",
                  elementwise("cg_stencil", stencil_preamble)),
          dot(context, "0", "a + b", "x[i] * y[i]", "const double *x, const double *y", reduction("cg_dot", "")),
          axpby(context, "double a, const double *x, double b, double *y", "y[i] = a * x[i] + b * y[i]",
                elementwise("cg_axpby", "")),
          apply_dot(context, "0", "a + b", "apply_and_dot(Ap, p, g, i)", "double *Ap, const double *p, long g",
                    reduction("cg_apply_dot", std::string(stencil_preamble) + fused_preamble)),
          update(context, "0", "a + b", "update_and_square(x, r, p, Ap, alpha, g, i)",
                 "double *x, double *r, const double *p, const double *Ap, double alpha, long g",
                 reduction("cg_update", std::string(stencil_preamble) + fused_preamble)),
          direction(context, "const double *r, double *p, double beta, long g", "p[g + i] = r[i] + beta * p[g + i]",
                    elementwise("cg_direction", "")),
          update_on_device(context, "0", "a + b", "update_and_square(x, r, p, Ap, s[rr] / s[2], g, i)",
                           "double *x, double *r, const double *p, const double *Ap, const double *s, int rr, long g",
                           reduction("cg_update_on_device", std::string(stencil_preamble) + fused_preamble)),
          direction_on_device(context, "const double *r, double *p, const double *s, int rr_new, int rr, long g",
                              "p[g + i] = r[i] + s[rr_new] / s[rr] * p[g + i]",
                              elementwise("cg_direction_on_device", "")) {}

    // the textbook form: a stencil map, a dot product, y = a x + b y
    clalgo::ElementwiseKernel stencil;
    clalgo::ReductionKernel<double> dot;
    clalgo::ElementwiseKernel axpby;
    // the fused form
    clalgo::ReductionKernel<double> apply_dot;
    clalgo::ReductionKernel<double> update;
    clalgo::ElementwiseKernel direction;
    // the fused form with the scalars on the device: s[rr] = r.r, s[2] = p.Ap
    clalgo::ReductionKernel<double> update_on_device;
    clalgo::ElementwiseKernel direction_on_device;

private:
    static clalgo::ElementwiseOptions elementwise(const char* name, std::string preamble) {
        clalgo::ElementwiseOptions options;
        options.name = name;
        options.preamble = std::move(preamble);
        return options;
    }
    static clalgo::ReductionOptions reduction(const char* name, std::string preamble) {
        clalgo::ReductionOptions options;
        options.name = name;
        options.preamble = std::move(preamble);
        return options;
    }
};

/// One device's consecutive rows of the grid and its share of the vectors.
struct Part {
    Part(const clalgo::Queue& q, std::int64_t first, std::int64_t count, std::int64_t g)
        : queue(q), first_row(first), rows(count), size(std::size_t(count * g)), halo(std::size_t(g)),
          x(q, size), r(q, size), Ap(q, size), p(q, size + 2 * halo), partial(q, 1), scalars(q, 3) {}

    clalgo::Queue queue;
    std::int64_t first_row, rows;
    std::size_t size;  ///< rows * g: the part's items
    std::size_t halo;  ///< g: one row
    clalgo::Array<double> x, r, Ap;
    clalgo::Array<double> p;        ///< a halo row, the part's rows, a halo row
    clalgo::Array<double> partial;  ///< the part's share of a dot product, with several parts
    clalgo::Array<double> scalars;  ///< the third form's r.r (two slots, old and new) and p.Ap
    clalgo::Event updated;          ///< the last update of p, which the neighbours' halo copies wait for

    /// The part's own rows of p.
    clalgo::ArrayView<double> own_p() const { return p.view(halo, size); }
};

/// The grid split across the devices of a DeviceSet by rows, and CG on it in each form.
class Solver {
public:
    Solver(const Kernels& kernels, const clalgo::DeviceSet& devices, int g) : kernels_(kernels), g_(g) {
        const std::int64_t count = std::min<std::int64_t>(std::int64_t(devices.size()), g);
        for (std::int64_t d = 0; d < count; ++d) {
            const std::int64_t first = g * d / count, last = g * (d + 1) / count;
            parts_.emplace_back(devices.queue(std::size_t(d)), first, last - first, g);
        }
    }

    const std::vector<Part>& parts() const { return parts_; }

    /// x = 0, r = p = b = 1, the halos of the grid's edges 0 and the others their neighbours' rows.
    void reset() {
        for (auto& part : parts_) {
            part.x.fill(part.queue, 0.0);
            part.r.fill(part.queue, 1.0);
            part.p.fill(part.queue, 0.0);
            part.updated = part.own_p().fill(part.queue, 1.0);
        }
        exchange_halos();
        for (auto& part : parts_) part.queue.finish();
    }

    /// `iterations` steps of CG in the textbook form, or until |r| / |b| <= tolerance where it is above 0;
    /// returns the steps made and |r| / |b|.
    std::pair<int, double> textbook(int iterations, double tolerance) {
        const auto& k = kernels_;
        const cl_long g = g_;
        double rr = r_dot_r();
        int step = 0;
        for (; step < iterations && !converged(rr, tolerance); ++step) {
            for (auto& part : parts_) k.stencil(part.queue, part.Ap, part.p, g);
            const double pAp =
                sum([&](Part& part) { return k.dot.into(part.queue, part.partial, part.own_p(), part.Ap); },
                    [&](Part& part) { return k.dot(part.queue, part.own_p(), part.Ap); });
            const double alpha = rr / pAp;
            for (auto& part : parts_) {
                k.axpby(part.queue, alpha, part.own_p(), 1.0, part.x);
                k.axpby(part.queue, -alpha, part.Ap, 1.0, part.r);
            }
            const double rr_new = r_dot_r();
            const double beta = rr_new / rr;
            rr = rr_new;
            for (auto& part : parts_) part.updated = k.axpby(part.queue, 1.0, part.r, beta, part.own_p());
            exchange_halos();
        }
        finish();
        return {step, residual(rr)};
    }

    /// As textbook, in the fused form: three launches and two blocking reads a step.
    std::pair<int, double> fused(int iterations, double tolerance) {
        const auto& k = kernels_;
        const cl_long g = g_;
        double rr = r_dot_r();
        int step = 0;
        for (; step < iterations && !converged(rr, tolerance); ++step) {
            const double pAp =
                sum([&](Part& part) { return k.apply_dot.into(part.queue, part.partial, part.Ap, part.p, g); },
                    [&](Part& part) { return k.apply_dot(part.queue, part.Ap, part.p, g); });
            const double alpha = rr / pAp;
            const double rr_new = sum(
                [&](Part& part) {
                    return k.update.into(part.queue, part.partial, part.x, part.r, part.p, part.Ap, alpha, g);
                },
                [&](Part& part) { return k.update(part.queue, part.x, part.r, part.p, part.Ap, alpha, g); });
            const double beta = rr_new / rr;
            rr = rr_new;
            for (auto& part : parts_) part.updated = k.direction(part.queue, part.r, part.p, beta, g);
            exchange_halos();
        }
        finish();
        return {step, residual(rr)};
    }

    /// As fused, with alpha = r.r / p.Ap and beta = r.r new / r.r computed by the kernels that use them from a
    /// small device array the reductions write: one blocking read a step, r.r for the convergence test. One part.
    std::pair<int, double> fused_on_device(int iterations, double tolerance) {
        const auto& k = kernels_;
        const cl_long g = g_;
        Part& part = parts_.at(0);
        const clalgo::Queue& q = part.queue;
        k.dot.into(q, part.scalars.view(0, 1), part.r, part.r);
        double rr = part.scalars.read_at(q, 0);
        int step = 0;
        for (; step < iterations && !converged(rr, tolerance); ++step) {
            const cl_int old = step % 2, now = 1 - old;  // r.r's slots, in turn
            k.apply_dot.into(q, part.scalars.view(2, 1), part.Ap, part.p, g);
            k.update_on_device.into(q, part.scalars.view(std::size_t(now), 1), part.x, part.r, part.p, part.Ap,
                                    part.scalars, old, g);
            rr = part.scalars.read_at(q, std::size_t(now));
            k.direction_on_device(q, part.r, part.p, part.scalars, now, old, g);
        }
        finish();
        return {step, residual(rr)};
    }

    /// x on the host, the parts' rows in order.
    std::vector<double> solution() const {
        std::vector<double> x;
        for (const auto& part : parts_) {
            const auto mine = part.x.to_host(part.queue);
            x.insert(x.end(), mine.begin(), mine.end());
        }
        return x;
    }

private:
    /// A dot product over the parts: with one part its blocking call (`alone`), else each part's share into its
    /// `partial` (`into`), all launched before the first is read.
    template <class Into, class Alone>
    double sum(Into into, Alone alone) {
        if (parts_.size() == 1) return alone(parts_[0]);
        for (auto& part : parts_) into(part);
        double total = 0;
        for (auto& part : parts_) total += part.partial.read_at(part.queue, 0);
        return total;
    }

    /// r.r over the parts, by the textbook form's dot product.
    double r_dot_r() {
        return sum([&](Part& part) { return kernels_.dot.into(part.queue, part.partial, part.r, part.r); },
                   [&](Part& part) { return kernels_.dot(part.queue, part.r, part.r); });
    }

    /// Copies each part's boundary rows of p into its neighbours' halos, after the neighbour's last update of p.
    void exchange_halos() {
        for (std::size_t d = 1; d < parts_.size(); ++d) {
            Part& above = parts_[d - 1];
            Part& below = parts_[d];
            above.p.view(above.size, above.halo)
                .copy_to(below.queue, below.p.view(0, below.halo), {above.updated.get()});
            below.p.view(below.halo, below.halo)
                .copy_to(above.queue, above.p.view(above.halo + above.size, above.halo), {below.updated.get()});
        }
    }

    void finish() {
        for (auto& part : parts_) part.queue.finish();
    }

    double residual(double rr) const { return std::sqrt(rr) / g_; }  // |b| = sqrt(n) = g
    bool converged(double rr, double tolerance) const { return tolerance > 0 && residual(rr) <= tolerance; }

    const Kernels& kernels_;
    int g_;
    std::vector<Part> parts_;
};

// --- running and checking ---

/// The largest difference between two solutions, relative to the largest value of the second.
double relative_difference(const std::vector<double>& x, const std::vector<double>& reference) {
    double largest = 0, difference = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        largest = std::max(largest, std::fabs(reference[i]));
        difference = std::max(difference, std::fabs(x[i] - reference[i]));
    }
    return largest > 0 ? difference / largest : difference;
}

/// One form's run: its steps, |r| / |b|, the best time of its runs and the solution.
struct FormRun {
    int steps = 0;
    double residual = 0;
    double seconds = 0;
    std::vector<double> x;
};

/// Runs a form (`textbook` or `fused`) `runs` times after a warm-up run, each from x = 0, timing the iterations
/// alone (the reset is not timed, as in the CUDA peer benchmarks/gpu/cg_peer.cu).
template <class Form>
FormRun time_form(Solver& solver, int runs, Form form) {
    FormRun best;
    for (int run = 0; run <= runs; ++run) {
        solver.reset();
        example::Stopwatch clock;
        const auto [steps, residual] = form();
        const double seconds = clock.seconds();
        if (run == 1 || (run > 1 && seconds < best.seconds)) best.seconds = seconds;
        best.steps = steps;
        best.residual = residual;
    }
    best.x = solver.solution();
    return best;
}

/// Times the host's CG with `policy`, best of `runs`.
template <class Policy>
double time_host(Policy policy, int g, int iterations, int runs) {
    double best = 0;
    for (int run = 0; run < runs; ++run) {
        example::Stopwatch clock;
        const Solution solution = host_cg(policy, g, iterations, 0);
        const double seconds = clock.seconds();
        if (run == 0 || seconds < best) best = seconds;
    }
    return best;
}

/// "123.4 us/iteration, 8.1 k iterations/s".
std::string per_iteration(double seconds, int iterations) {
    char text[96];
    std::snprintf(text, sizeof text, "%.2f us/iteration, %s iterations/s", seconds / iterations * 1e6,
                  example::si(iterations / seconds).c_str());
    return text;
}

// The iterates of two CGs that differ only in the order of their sums' additions drift apart slowly; over a
// few hundred steps on these grids they stay within about 1e-12 of each other, relative to the solution.
constexpr double agreement = 1e-9;

int run(int argc, char** argv) {
    example::CommandLine command_line(
        "cg", "Conjugate gradient on the 2-D Poisson matrix (5-point stencil, g x g grid), matrix-free,\n"
              "one clalgo call per step, and fused (three launches an iteration).");
    std::optional<std::int64_t> grid, iterations;
    std::optional<std::string> devices_text;
    bool sweep = false;
    command_line.count("--grid", "G", "the grid's side: n = G^2 unknowns (default 256 on a CPU, 1024 on a GPU; with --sweep the largest grid, default 4096)", grid);
    command_line.count("--iterations", "K",
                       "exactly K iterations, no early exit, for timing (default: as many as the host's CG needs "
                       "to reach |r|/|b| <= 1e-8; with --sweep 100)",
                       iterations);
    command_line.text("--devices", "N|SPECS",
                      "split the grid's rows across N queues on the device, or the devices of comma-separated "
                      "specs (\"0:0,0:1\"), exchanging the boundary rows each iteration",
                      devices_text);
    command_line.flag("--sweep", "grids 32, 64, ... up to --grid, 100 iterations each, one line per grid and form in the "
                                 "format of the CUDA peer (benchmarks/gpu/cg_peer.cu)", sweep);
    command_line.epilogue("Examples:\n  cg\n  cg --grid 512 --iterations 200\n  cg --sweep --grid 4096");
    if (!command_line.parse(argc, argv)) return 0;
    if (grid && (*grid < 2 || *grid > 32768)) throw example::UsageError("--grid: need 2 to 32768");
    if (iterations && (*iterations < 1 || *iterations > 1000000)) throw example::UsageError("--iterations: need 1 to 10^6");
    const int runs = command_line.runs();

    std::printf("cg:       conjugate gradient on the 2-D Poisson matrix, matrix-free\n");
    const example::Scale scale = example::open_scale(command_line, devices_text);
    const example::Device& device = scale.device;
    if (!device.info().has_fp64) throw clalgo::UnsupportedError("the device has no double precision (cl_khr_fp64)");
    const bool gpu = device.info().is_gpu;

    example::BuildTimer builds;
    const Kernels kernels(device.context);
    std::printf("kernels:  %s\n", builds.report().c_str());

    bool passed = true;
    if (sweep) {
        // one line per grid and form, as benchmarks/gpu/cg_peer.cu prints them, then the check against the host's CG
        const int largest = int(grid.value_or(4096));
        const int count = int(iterations.value_or(100));
        for (int g = 32; g <= largest; g *= 2) {
            Solver solver(kernels, scale.devices, g);
            const FormRun textbook = time_form(solver, runs, [&] { return solver.textbook(count, 0); });
            const FormRun fused = time_form(solver, runs, [&] { return solver.fused(count, 0); });
            const int n = g * g;
            // cg_peer's line, and the memory traffic it implies: `values` 8-byte values moved per unknown
            auto line = [&](const char* form, const FormRun& run, int values) {
                const double seconds = run.seconds / count;
                std::printf("%s g=%d n=%d: %.2f us/iteration (%d iterations), |r|/|b| %.3e, %d n bytes: %.0f GB/s\n",
                            form, g, n, seconds * 1e6, count, run.residual, 8 * values, 8.0 * values * n / seconds * 1e-9);
            };
            line("clalgo_cg_textbook", textbook, 14);
            line("clalgo_cg_fused", fused, 11);
            double forms_apart = relative_difference(fused.x, textbook.x);
            if (solver.parts().size() == 1) {
                const FormRun on_device = time_form(solver, runs, [&] { return solver.fused_on_device(count, 0); });
                line("clalgo_cg_fused_scalars_on_device", on_device, 11);
                forms_apart = std::max(forms_apart, relative_difference(on_device.x, textbook.x));
            }
            // the host's CG, in parallel, up to a million unknowns: beyond, the forms checked against each other
            const double host_apart =
                g <= 1024 ? relative_difference(fused.x, host_cg(std::execution::par, g, count, 0).x) : 0;
            if (forms_apart > agreement || host_apart > agreement) {
                std::printf("MISMATCH: g=%d: the forms differ by up to %.2e, the fused form and the host's CG by %.2e\n",
                            g, forms_apart, host_apart);
                passed = false;
            }
            std::fflush(stdout);
        }
        if (passed) std::printf("PASS:     at every grid the forms agree with each other and (up to g = 1024) with the host's CG\n");
        return passed ? 0 : 1;
    }

    const int g = int(grid.value_or(gpu ? 1024 : 256));
    const std::int64_t n = std::int64_t(g) * g;
    Solver solver(kernels, scale.devices, g);
    if (solver.parts().size() > 1) {
        std::printf("rows:     ");
        for (const auto& part : solver.parts())
            std::printf("%s[%lld, %lld)", &part == &solver.parts().front() ? "" : " ", (long long)part.first_row,
                        (long long)(part.first_row + part.rows));
        std::printf(" on the %zu queues\n", solver.parts().size());
    }

    // the reference: the host's CG, sequential; by default it also sets the count, as many steps as it needs
    example::Stopwatch reference_clock;
    const Solution reference = host_cg(std::execution::seq, g, int(iterations.value_or(10 * g + 100)),
                                       iterations ? 0 : 1e-8);
    const double reference_seconds = reference_clock.seconds();
    const int count = reference.iterations;
    std::printf("grid:     %d x %d, n = %s unknowns, b = 1, x0 = 0; %d iterations%s\n", g, g,
                example::with_commas(n).c_str(), count,
                iterations ? " (--iterations, no early exit)" : ", as many as the host's CG takes to |r|/|b| <= 1e-8");

    const FormRun textbook = time_form(solver, runs, [&] { return solver.textbook(count, 0); });
    const FormRun fused = time_form(solver, runs, [&] { return solver.fused(count, 0); });
    const double textbook_apart = relative_difference(textbook.x, reference.x);
    const double fused_apart = relative_difference(fused.x, reference.x);
    std::printf("\n1. textbook: one clalgo call per step (stencil map, 2 dot products read back, 3 axpy maps)\n"
                "   |r|/|b| %.3e, x within %.1e of the host's\n   %s (best of %d)\n",
                textbook.residual, textbook_apart, per_iteration(textbook.seconds, count).c_str(), runs);
    std::printf("2. fused: stencil + p.Ap in one reduction, both updates + r.r in another, the direction in a map\n"
                "   |r|/|b| %.3e, x within %.1e of the host's\n   %s (best of %d)\n",
                fused.residual, fused_apart, per_iteration(fused.seconds, count).c_str(), runs);
    std::printf("   %.2fx the textbook form's speed\n", textbook.seconds / fused.seconds);
    std::optional<FormRun> on_device;
    double on_device_apart = 0;
    if (solver.parts().size() == 1) {
        on_device = time_form(solver, runs, [&] { return solver.fused_on_device(count, 0); });
        on_device_apart = relative_difference(on_device->x, reference.x);
        std::printf("3. fused, alpha and beta computed on the device: one blocking read (r.r) an iteration\n"
                    "   |r|/|b| %.3e, x within %.1e of the host's\n   %s (best of %d)\n   %.2fx the textbook form's speed\n",
                    on_device->residual, on_device_apart, per_iteration(on_device->seconds, count).c_str(), runs,
                    textbook.seconds / on_device->seconds);
    } else {
        std::printf("3. fused, alpha and beta on the device: one device only (not run with --devices)\n");
    }

    // the host's CG timed: std::transform_reduce and friends, sequential and parallel (TBB where installed)
    const double sequential = std::min(reference_seconds, time_host(std::execution::seq, g, count, runs));
    const double parallel = time_host(std::execution::par, g, count, runs);
    std::printf("\nhost:     std::transform_reduce CG, |r|/|b| %.3e\n", reference.residual);
    std::printf("   std::execution::seq  %s\n", per_iteration(sequential, count).c_str());
    std::printf("   std::execution::par  %s\n", per_iteration(parallel, count).c_str());

    std::printf("\n");
    if (textbook_apart > agreement || fused_apart > agreement || on_device_apart > agreement) {
        std::printf("MISMATCH: the solutions differ from the host's by %.2e (textbook), %.2e (fused) and %.2e (scalars "
                    "on the device), more than %.0e\n", textbook_apart, fused_apart, on_device_apart, agreement);
        passed = false;
    }
    const bool all_steps = textbook.steps == count && fused.steps == count && (!on_device || on_device->steps == count);
    if (!all_steps) {
        std::printf("MISMATCH: a form stopped before %d iterations\n", count);
        passed = false;
    }
    const bool converged = fused.residual <= 1.01e-8 && textbook.residual <= 1.01e-8 &&
                           (!on_device || on_device->residual <= 1.01e-8);
    if (!iterations && !converged) {
        std::printf("MISMATCH: |r|/|b| did not reach 1e-8 in the host's count of iterations\n");
        passed = false;
    }
    if (passed)
        std::printf("PASS:     every form gives the host's iterates (within %.0e) after %d iterations\n", agreement, count);
    return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return example::run_main("cg", [&] { return run(argc, argv); }); }
