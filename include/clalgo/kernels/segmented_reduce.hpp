// SegmentedReductionKernel<T, Offset>: reduces each segment values[offsets[s] .. offsets[s+1]) of an array with
// `reduce_expr` over `a` and `b` (associative; not necessarily commutative: items combine in order) from
// `neutral`, into out[s]; empty segments give the neutral element. Offsets are clamped to [0, values.size()].
//   clalgo::SegmentedReductionKernel<float, std::int64_t> sums(ctx, "a+b", "0");
//   sums(q, values, offsets, out);   // out.size() == offsets.size() - 1
#pragma once

#include <clalgo/cl/segmented_reduce.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/policy/segmented_reduce.hpp>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo {

/// What a SegmentedReductionKernel may add: a name, helper code, compiler options.
struct SegmentedReduceOptions {
    std::string name = "segmented_reduce";
    std::string preamble;
    std::string build_options;
};

template <class T, class Offset = std::int64_t>
class SegmentedReductionKernel {
    static_assert(std::is_integral_v<Offset> && sizeof(Offset) >= 4, "clalgo: segment offsets are 32- or 64-bit integers");

public:
    SegmentedReductionKernel(const Context& context, const std::string& reduce_expr, const std::string& neutral,
                             SegmentedReduceOptions options = {})
        : options_(std::move(options)) {
        if (!detail::is_identifier(options_.name))
            throw std::invalid_argument("clalgo::SegmentedReductionKernel: '" + options_.name + "' is not a kernel name");
        const std::vector<std::string> types{type_name<T>(), type_name<Offset>()};
        auto generate = [&](const DeviceInfo& info) {
            const auto policy = detail::segmented_reduce_policy(info, sizeof(T));
            policies_.push_back(policy);
            return detail::render(
                detail::cl_source::segmented_reduce,
                {{"prologue", detail::library_text(detail::program_prologue(info, types))},
                 {"preamble", detail::user_text("preamble", options_.preamble)},
                 {"value_type", detail::library_text(types[0])},
                 {"offset_type", detail::library_text(types[1])},
                 {"group_size", detail::library_text(std::to_string(policy.group_size))},
                 {"segment_per_item", detail::library_text(policy.segment_per_item ? "1" : "0")},
                 {"neutral", detail::user_text("neutral", neutral)},
                 {"reduce_expr", detail::user_text("reduce_expr", reduce_expr)},
                 {"name", detail::library_text(options_.name)},
                 {"signature", detail::library_text(signature().text())}});
        };
        program_ = detail::KernelProgram(
            context, generate, options_.build_options,
            detail::BuildLabel{options_.name, {{"reduce_expr", reduce_expr}, {"neutral", neutral}, {"preamble", options_.preamble}}},
            types, {options_.name});
    }

    /// Reduces each segment of `values` into `out` (offsets.size() - 1 elements). Asynchronous.
    cl::Event operator()(const Queue& queue, const ArrayView<T>& values, const ArrayView<Offset>& offsets,
                         const ArrayView<T>& out, const WaitFor& wait = {}) const {
        if (offsets.empty())
            throw std::invalid_argument("clalgo: " + options_.name + ": offsets needs at least one element (segment s is "
                                        "[offsets[s], offsets[s+1]))");
        if (out.size() != offsets.size() - 1)
            throw std::invalid_argument("clalgo: " + options_.name + ": " + std::to_string(offsets.size() - 1) +
                                        " segments but an output of " + std::to_string(out.size()));
        const std::uint64_t segments = out.size();
        if (segments == 0) return detail::marker(queue, wait.events);
        auto& on = program_.on(queue);
        const auto& policy = policy_for(on);
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        cl::Kernel& kernel = on.kernel(options_.name);
        const detail::Signature sig = signature();
        detail::KernelArguments(kernel, sig)
            .set("clalgo_segments", static_cast<cl_long>(segments))
            .set("n", static_cast<cl_long>(values.size()))
            .set("clalgo_values_base", values.buffer())
            .set("clalgo_values_offset", static_cast<cl_long>(values.offset()))
            .set("clalgo_offsets_base", offsets.buffer())
            .set("clalgo_offsets_offset", static_cast<cl_long>(offsets.offset()))
            .set("clalgo_out_base", out.buffer())
            .set("clalgo_out_offset", static_cast<cl_long>(out.offset()))
            .done();
        const std::size_t groups = policy.groups_for(segments);
        return detail::launch(queue, kernel, groups * policy.group_size, policy.group_size, wait.events, options_.name.c_str());
    }

    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }

private:
    static detail::Signature signature() {
        return detail::Signature{{"long", "clalgo_segments"}, {"long", "n"},
                                 {"__global const clalgo_value_t *", "clalgo_values_base"}, {"long", "clalgo_values_offset"},
                                 {"__global const clalgo_offset_t *", "clalgo_offsets_base"}, {"long", "clalgo_offsets_offset"},
                                 {"__global clalgo_value_t *", "clalgo_out_base"}, {"long", "clalgo_out_offset"}};
    }

    const detail::SegmentedReducePolicy& policy_for(const detail::KernelProgram::OnDevice& on) const {
        for (std::size_t d = 0; d < program_.context().devices().size(); ++d)
            if (program_.context().devices()[d]() == on.device()) return policies_.at(d);
        throw std::logic_error("clalgo: no segmented reduction policy for the device");
    }

    SegmentedReduceOptions options_;
    std::vector<detail::SegmentedReducePolicy> policies_;
    detail::KernelProgram program_;
};

}  // namespace clalgo
