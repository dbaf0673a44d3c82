// HistogramKernel<Count>: counts, for every index i of an array or a range, the bin that an expression of i
// names; bins outside [0, bins.size()) are not counted. The counts overwrite the bins array.
//   clalgo::HistogramKernel<std::uint32_t> by_tenth(ctx, "const float *x", "(long)floor(x[i] * 10.0f)");
//   by_tenth(q, bins, x);                          // bins[b] = how many x[i] lie in [b/10, (b+1)/10)
//   by_tenth(q, bins, clalgo::range(0, n, 2), x);  // over the even indices only
#pragma once

#include <clalgo/cl/histogram.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/policy/histogram.hpp>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo {

/// What a HistogramKernel may add to its bin expression: a name, helper code, compiler options.
struct HistogramOptions {
    std::string name = "histogram";  ///< the kernel's name, in build errors and profilers
    std::string preamble;            ///< OpenCL C placed before the kernel: helper functions, constants
    std::string build_options;       ///< passed to the OpenCL compiler
};

/// Counts the bin `bin_expr` (an expression of i, n and the declared arguments, converted to long) of every
/// index into an array of Count (uint32, int32, uint64 or int64). Asynchronous: returns the launch's event.
template <class Count = std::uint32_t>
class HistogramKernel {
    static_assert(std::is_integral_v<Count> && (sizeof(Count) == 4 || sizeof(Count) == 8),
                  "clalgo::HistogramKernel counts in 32- or 64-bit integers");

public:
    HistogramKernel(const Context& context, const std::string& arguments, const std::string& bin_expr,
                    HistogramOptions options = {})
        : declarations_(parse_arguments(arguments)), options_(std::move(options)) {
        if (!detail::is_identifier(options_.name))
            throw std::invalid_argument("clalgo::HistogramKernel: '" + options_.name + "' is not a kernel name");
        detail::reject_reserved_names(declarations_, {"i", "n"}, "HistogramKernel '" + options_.name + "'");
        std::vector<std::string> types{type_name<Count>()};
        for (const auto& declaration : declarations_) types.push_back(declaration.type);
        const bool wide = sizeof(Count) == 8;
        auto generate = [&](const DeviceInfo& info) {
            if (wide && !info.has_int64_atomics)
                throw UnsupportedError("clalgo: HistogramKernel '" + options_.name + "' counts in '" + type_name<Count>() +
                                       "', which needs 64-bit atomics (cl_khr_int64_base_atomics) that '" + info.name +
                                       "' lacks: count in 32 bits");
            const auto policy = detail::histogram_policy(info);
            policies_.push_back(policy);
            return detail::render(
                detail::cl_source::histogram,
                {{"prologue", detail::library_text(detail::program_prologue(info, types))},
                 {"atomics_pragma", detail::library_text(wide ? "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable" : "")},
                 {"preamble", detail::user_text("preamble", options_.preamble)},
                 {"count_type", detail::library_text(type_name<Count>())},
                 {"group_size", detail::library_text(std::to_string(policy.group_size))},
                 {"contiguous", detail::library_text(policy.contiguous ? "1" : "0")},
                 {"local_bins", detail::library_text(std::to_string(std::max<std::size_t>(1, policy.local_bins)))},
                 {"global_add", detail::library_text(wide ? "atom_add((volatile __global clalgo_count_t *)count, (clalgo_count_t)amount)"
                                                          : "atomic_add((volatile __global clalgo_count_t *)count, (clalgo_count_t)amount)")},
                 {"name", detail::library_text(options_.name)},
                 {"signature", detail::library_text(signature().text())},
                 {"parameters", detail::library_text(detail::kernel_parameters(declarations_))},
                 {"array_pointers", detail::library_text(detail::array_pointers(declarations_))},
                 {"bin_expr", detail::user_text("bin_expr", bin_expr)}});
        };
        program_ = detail::KernelProgram(context, generate, options_.build_options,
                                         detail::BuildLabel{options_.name, {{"bin_expr", bin_expr}, {"preamble", options_.preamble}}},
                                         types, {options_.name});
    }

    /// Counts over [0, size of the first array argument), or over a clalgo::range among the arguments, into
    /// `bins` (its old contents are replaced).
    template <class... Args>
    cl::Event operator()(const Queue& queue, const ArrayView<Count>& bins, const Args&... arguments) const {
        detail::CallOptions call;
        const auto bound = detail::bind_call(call, arguments...);
        detail::check_arguments(options_.name, declarations_, bound);
        const IndexRange indices = detail::call_indices(options_.name, call.range, bound);
        const std::int64_t n = indices.size();
        cl::Event cleared = bins.fill(queue, Count(0), call.wait);
        if (n == 0 || bins.empty()) return cleared;
        auto& on = program_.on(queue);
        const auto& policy = policy_for(on);
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        cl::Kernel& kernel = on.kernel(options_.name);
        const detail::Signature sig = signature();
        detail::KernelArguments(kernel, sig)
            .set("clalgo_start", static_cast<cl_long>(indices.start))
            .set("clalgo_step", static_cast<cl_long>(indices.step))
            .set("n", static_cast<cl_long>(n))
            .set("clalgo_nbins", static_cast<cl_long>(bins.size()))
            .set("clalgo_bins_base", bins.buffer())
            .set("clalgo_bins_offset", static_cast<cl_long>(bins.offset()))
            .user(bound);
        const std::size_t groups = policy.groups_for(static_cast<std::uint64_t>(n));
        return detail::launch(queue, kernel, groups * policy.group_size, policy.group_size, {cleared}, options_.name.c_str());
    }

    const std::vector<ArgumentDeclaration>& arguments() const noexcept { return declarations_; }
    /// The generated OpenCL C for a device of the context (the first by default).
    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }

private:
    static detail::Signature signature() {
        return detail::Signature{{"long", "clalgo_start"}, {"long", "clalgo_step"}, {"long", "n"}, {"long", "clalgo_nbins"},
                                 {"__global clalgo_count_t *", "clalgo_bins_base"}, {"long", "clalgo_bins_offset"}};
    }

    const detail::HistogramPolicy& policy_for(const detail::KernelProgram::OnDevice& on) const {
        for (std::size_t d = 0; d < program_.context().devices().size(); ++d)
            if (program_.context().devices()[d]() == on.device()) return policies_.at(d);
        throw std::logic_error("clalgo: no histogram policy for the device");
    }

    std::vector<ArgumentDeclaration> declarations_;
    HistogramOptions options_;
    std::vector<detail::HistogramPolicy> policies_;
    detail::KernelProgram program_;
};

}  // namespace clalgo
