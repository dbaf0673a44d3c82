// histogram: counts per bin, into an array of an integer type (int32, uint32, int64, uint64). Even bins over
// [lower, upper), or a bin expression of i over declared arguments (HistogramKernel, like PyOpenCL's kernels).
//   clalgo::histogram(q, values, bins, {-1000, 1001});                 // bins.size() even bins; others not counted
//   clalgo::HistogramKernel<std::uint32_t> by_digit(ctx, "const int *x", "x[i] % 10");
//   by_digit(q, bins, x);                                              // over i in [0, x.size()), or a clalgo::range
// The result is overwritten. Each work-group counts into local memory and adds its counts once per bin.
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>

#include <clalgo/cl/histogram.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/checked.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/kernels/scratch.hpp>
#include <clalgo/policy/segments.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace clalgo {

/// Even bins over [lower, upper): bin b holds [lower + b*w, lower + (b+1)*w), w = (upper - lower) / bins.
struct HistogramRange {
    /// The lower edge of the first bin.
    double lower = 0;
    /// The upper edge of the last bin.
    double upper = 0;
};

/// What a HistogramKernel may add: a name, helper code for the bin expression, compiler options.
struct HistogramOptions {
    /// The kernels' name, in build errors and profilers.
    std::string name = "histogram";
    /// OpenCL C placed before the kernels: helper functions.
    std::string preamble;
    /// Passed to the OpenCL compiler.
    std::string build_options;
    /// Checked mode: bounds-check every access name[index] of bin_expr to an array argument (OutOfBoundsError;
    /// each call blocks). CLALGO_CHECKED=1 turns it on for every kernel.
    bool checked = false;
};

/// Counts, for every index i, one in bin `bin_expr` (an expression of i, n and the declared arguments; a bin
/// outside [0, bins.size()) is not counted). Count is int32, uint32, int64 or uint64.
template <class Count>
class HistogramKernel {
    static_assert(std::is_integral_v<Count> && (sizeof(Count) == 4 || sizeof(Count) == 8),
                  "clalgo::HistogramKernel counts into 32- or 64-bit integers");

public:
    /// A histogram kernel for the declared `arguments` (as in ElementwiseKernel) and its `bin_expr`.
    HistogramKernel(const Context& context, const std::string& arguments, const std::string& bin_expr,
                    HistogramOptions options = {})
        : declarations_(parse_arguments(arguments)), options_(std::move(options)),
          checked_(declarations_, options_.checked) {
        detail::check_kernel_name("clalgo::HistogramKernel", options_.name);
        detail::reject_reserved_names(declarations_, {"i", "n"}, "HistogramKernel '" + options_.name + "'");
        indexed_ = detail::indexed_by_launch_index(declarations_, {bin_expr, options_.preamble});
        std::vector<std::string> types;
        for (const auto& declaration : declarations_) types.push_back(declaration.type);
        const bool wide = sizeof(Count) == 8;
        for (const auto& device : context.devices())
            if (wide && !context.info(device).has_int64_atomics)
                throw UnsupportedError("clalgo::HistogramKernel: 64-bit counts need 64-bit atomics, which '" +
                                       context.info(device).name + "' lacks (count into uint32 instead)");
        const std::string parameters = detail::kernel_parameters(declarations_) + checked_.parameters();
        auto generate = [&](const DeviceInfo& info) {
            const auto policy = histogram_policy(info, 0, forced_group_size_);
            return detail::render(
                detail::cl_source::histogram,
                {{"prologue", detail::library_text(detail::program_prologue(info, types) + checked_.helpers())},
                 {"atomics_pragma", detail::library_text(wide ? "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable" : "")},
                 {"preamble", detail::user_text("preamble", options_.preamble)},
                 {"count_type", detail::library_text(type_name<Count>())},
                 {"group_size", detail::library_text(std::to_string(policy.group_size))},
                 {"local_bins", detail::library_text(std::to_string(policy.local_bins))},
                 {"contiguous_chunks", detail::library_text(policy.contiguous_chunks ? "1" : "0")},
                 {"sum_copies", detail::library_text(std::to_string(policy.sum_copies))},
                 {"spread_bins", detail::library_text(std::to_string(HistogramPolicy::spread_bins))},
                 {"global_add", detail::library_text(wide ? "atom_add(p, v)" : "atomic_add(p, v)")},
                 {"global_take", detail::library_text(wide ? "atom_xchg(p, 0)" : "atomic_xchg(p, 0)")},
                 {"nvidia", detail::library_text(device_class(info) == DeviceClass::nvidia_gpu ? "1" : "0")},
                 {"name", detail::library_text(options_.name)},
                 {"signature", detail::library_text(signature_.text())},
                 {"parameters", detail::library_text(parameters)},
                 {"array_pointers", detail::library_text(detail::array_pointers(declarations_))},
                 {"bin_expr", detail::user_text("bin_expr", checked_.text(bin_expr))}});
        };
        program_ = detail::KernelProgram(
            context, generate, options_.build_options,
            detail::BuildLabel{options_.name, {{"bin_expr", bin_expr}, {"preamble", options_.preamble}}}, types,
            {options_.name});
    }

    /// Overwrites `bins` with the counts over [0, size of the first array argument), or a clalgo::range among the
    /// arguments. Asynchronous: returns the event.
    template <class... Args>
    Event operator()(const Queue& queue, const ArrayView<Count>& bins, const Args&... arguments) const {
        detail::CallOptions call;
        const detail::KeptArguments kept;  // bound in place, in a vector the thread keeps
        auto& bound = detail::bind_call(kept.get(), queue, call, arguments...);
        detail::check_arguments(options_.name, declarations_, bound);
        const IndexRange indices = detail::call_indices(options_.name, call.range, bound);
        detail::check_call_arrays(options_.name, declarations_, bound, indexed_, queue, indices);
        return enqueue(queue, bins, indices, bound, call.wait);
    }

    /// Counts `indices` into `bins`, the arguments already bound and checked (the last step of a call).
    Event enqueue(const Queue& queue, const ArrayView<Count>& bins, const IndexRange& indices,
                  const std::vector<detail::BoundArgument>& bound, const std::vector<cl::Event>& wait) const {
        if (bins.empty()) throw std::invalid_argument("clalgo::histogram: 'bins' has no elements");
        detail::check_same_context(options_.name, "bins", bins.buffer(), queue);
        const std::int64_t n = indices.size();
        if (n == 0) return bins.fill(queue, Count(0), wait);
        auto& on = program_.on(queue);
        // the override the source was made with (a call reads no environment variable)
        auto policy = histogram_policy(*on.info, n, forced_group_size_);
        policy.groups = std::max<std::size_t>(policy.groups, static_cast<std::size_t>((n >> 31) + 1));
        const detail::Violations violations(checked_.on(), queue);
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        // the running sums stay zero between calls (the kernel's last work-group clears them)
        auto& scratch = scratch_.get(queue);
        const std::size_t sums = policy.sum_copies_for(bins.size()) * bins.size();
        scratch.memory.reserve_zeroed(queue, sums_at + sums * sizeof(Count));
        detail::KernelSlot& slot = on.slot(options_.name);
        cl::Kernel& kernel = slot.kernel;
        detail::KernelArguments(kernel, signature_, &slot.memo)
            .set("clalgo_start", cl_long(indices.start)).set("clalgo_step", cl_long(indices.step)).set("n", cl_long(n))
            .set("clalgo_bins", cl_long(bins.size())).set("clalgo_counts", bins.buffer())
            .set("clalgo_counts_offset", cl_long(bins.offset()))
            .set("clalgo_memory", scratch.memory.buffer)
            .user(bound, violations.buffer());
        Event done = detail::launch(queue, kernel, policy.groups * policy.group_size, policy.group_size, wait,
                                        options_.name.c_str());
        violations.throw_if_any(queue, done, options_.name, declarations_, bound);
        return done;
    }

private:
    detail::Signature signature_{{"long", "clalgo_start"}, {"long", "clalgo_step"}, {"long", "n"},
                                 {"long", "clalgo_bins"}, {"__global clalgo_count_t *", "clalgo_counts"},
                                 {"long", "clalgo_counts_offset"}, {"__global uchar *", "clalgo_memory"}};
    /// Per queue, one buffer: at byte 0 the count of finished work-groups, from sums_at on the copies of the running
    /// sums (zero between calls; the template's CLALGO_SUMS_AT).
    struct Scratch {
        detail::GrowingBuffer memory;
    };
    static constexpr std::size_t sums_at = 128;
    mutable detail::PerQueue<Scratch> scratch_;
    /// CLALGO_HISTOGRAM_GROUP_SIZE as it was when the kernel was made: the source and every launch follow it.
    std::optional<std::uint64_t> forced_group_size_ = detail::tuning_number("CLALGO_HISTOGRAM_GROUP_SIZE", 1, 1024);
    std::vector<ArgumentDeclaration> declarations_;
    std::vector<bool> indexed_;  ///< arrays the bin expression indexes only at [i]: checked to hold every index
    HistogramOptions options_;
    detail::Checked checked_;  ///< checked mode's parts of the source; nothing where it is off
    friend struct detail::ContextCache;
    void release_context() noexcept { program_.release_context(); }
    detail::KernelProgram program_;
};

namespace detail {

/// Attached to each context: the even-bin histogram kernels by value and count type.
struct HistogramCache {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<void>> kernels;
};

}  // namespace detail

/// Overwrites `bins` with the number of values in each of bins.size() even bins over [range.lower,
/// range.upper); values outside (and NaNs) are not counted. Integer values up to 32 bits are binned exactly
/// (lower and upper must then be whole numbers); float in float, double and 64-bit integers in double.
template <class T, class Count>
Event histogram(const Queue& queue, const ArrayView<T>& values, const ArrayView<Count>& bins,
                const HistogramRange& range) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "clalgo::histogram bins scalar numbers");
    if (!(range.lower < range.upper))
        throw std::invalid_argument("clalgo::histogram: the range's lower (" + std::to_string(range.lower) +
                                    ") must be below its upper (" + std::to_string(range.upper) + ")");
    if (bins.empty()) throw std::invalid_argument("clalgo::histogram: 'bins' has no elements");
    detail::check_same_context("clalgo::histogram", "values", values.buffer(), queue);
    detail::check_same_context("clalgo::histogram", "bins", bins.buffer(), queue);
    constexpr bool exact = std::is_integral_v<T> && sizeof(T) <= 4;
    using Bound = std::conditional_t<exact, std::int64_t, std::conditional_t<std::is_same_v<T, float>, float, double>>;
    if (exact && (range.lower != std::floor(range.lower) || range.upper != std::floor(range.upper) ||
                  std::fabs(range.lower) > 1e17 || std::fabs(range.upper) > 1e17))
        throw std::invalid_argument("clalgo::histogram: integer values need a range of whole numbers");
    // the kernel a thread's last call found (its types are this function's; the group size variable is the rest
    // of its key): found again with no key built, no allocation and no lock
    thread_local detail::LastCall<HistogramKernel<Count>, 0> last_call;
    const HistogramKernel<Count>* found = last_call.find(queue.context(), {}, 0);
    if (found == nullptr) {
        const std::string value = type_name<T>(), bound = type_name<Bound>();
        std::string key = value;
        key += '\0';
        key += type_name<Count>();
        key += '\0';
        detail::append_environment(key, "CLALGO_HISTOGRAM_GROUP_SIZE");
        auto& cache = queue.context().state().attachment<detail::HistogramCache>();
        std::lock_guard<std::mutex> lock(cache.mutex);
        auto& entry = cache.kernels[key];
        if (!entry) {
            HistogramOptions options;
            options.name = "histogram_even";
            options.preamble = detail::render(detail::cl_source::even_bins,
                                              {{"value_type", detail::library_text(value)},
                                               {"bound_type", detail::library_text(bound)},
                                               {"exact", detail::library_text(exact ? "1" : "0")}})
                                   .text;
            auto made = std::make_shared<HistogramKernel<Count>>(
                queue.context(), "const " + value + " *values, " + bound + " lower, " + bound + " upper, " + bound + " scale",
                "clalgo_even_bin(values[i], lower, upper, scale, clalgo_bins)", options);
            detail::ContextCache::release(*made);  // the context keeps it: it must not keep the context
            entry = std::move(made);
        }
        found = &last_call.remember(queue.context(), {}, 0, *static_cast<const HistogramKernel<Count>*>(entry.get()));
    }
    const auto& kernel = *found;
    // exact integer bins: scale says whether (upper - lower) * bins fits in 32 bits and bins in 22 (the kernel's
    // cheap division)
    const Bound scale = exact ? static_cast<Bound>((range.upper - range.lower) * double(bins.size()) < 4294967296.0 &&
                                                   bins.size() <= (std::size_t(1) << 22))
                              : static_cast<Bound>(double(bins.size()) / (range.upper - range.lower));
    const detail::KeptArguments kept;  // bound in place, in a vector the thread keeps
    const auto& bound_arguments = detail::bind_all_into(kept.get(), values, static_cast<Bound>(range.lower),
                                                        static_cast<Bound>(range.upper), scale);
    return kernel.enqueue(queue, bins, IndexRange{0, static_cast<std::int64_t>(values.size()), 1}, bound_arguments, {});
}

}  // namespace clalgo
