// ReductionKernel<T>: PyOpenCL's map + reduce in C++. `map_expr` turns index i into a T, `reduce_expr` combines
// two T values `a` and `b` (its own names: arguments may be called a and b too, for map_expr), starting from `neutral`; over an array's indices or a bare 64-bit index range.
//   clalgo::ReductionKernel<double> dot(ctx, "0", "a+b", "x[i]*y[i]", "const double *x, const double *y");
//   double d = dot(q, x, y);
//   clalgo::ReductionKernel<std::int64_t> count(ctx, "0", "a+b", "is_prime(i) ? 1 : 0", "", options);
//   std::int64_t primes = count(q, clalgo::range(0, 1000000));
// `reduce_expr` must be associative and commutative (items are combined in a device-specific order, as in
// CUB's and Thrust's reduce); for a given device and size the result is the same on every run.
#pragma once

#include <clalgo/cl/group.cl.hpp>
#include <clalgo/cl/reduction.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/checked.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/codegen/source_text.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/policy/map.hpp>
#include <clalgo/policy/reduction.hpp>
#include <clalgo/policy/tuned_store.hpp>
#include <clalgo/policy/tuning_variables.hpp>
#include <clalgo/kernels/scratch.hpp>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// What a ReductionKernel may add to its expressions: a name, helper code, compiler options.
struct ReductionOptions {
    std::string name = "reduce";  ///< the kernel's name, in build errors and profilers
    std::string preamble;         ///< OpenCL C placed before the kernels: helper functions, constants
    std::string build_options;    ///< passed to the OpenCL compiler
    /// Checked mode: bounds-check every access name[index] of map_expr to an array argument (OutOfBoundsError;
    /// each call blocks). CLALGO_CHECKED=1 turns it on for every kernel.
    bool checked = false;
};

/// A reduction result left on the device: a one-element array and the event that completes it.
template <class T>
struct DeviceResult {
    /// The result, in a one-element device array.
    Array<T> value;
    /// Completes when the result is written.
    Event event;
    /// Waits for the result and copies it to the host.
    T get(const Queue& queue) const { return value.read_at(queue, 0, detail::wait_list_for(queue, event)); }
};

/// Maps each index to a T (`map_expr`) and combines the values (`reduce_expr` over `a` and `b`, associative and
/// commutative) from `neutral`. operator() waits for the result; async and into leave it on the device.
template <class T>
class ReductionKernel {
public:
    /// `neutral`: an expression for the identity of `reduce_expr`; `map_expr`: an expression over i, n and the
    /// arguments (empty: the first array's [i]); `arguments`: declarations as for ElementwiseKernel.
    ReductionKernel(const Context& context, const std::string& neutral, const std::string& reduce_expr,
                    std::string map_expr, const std::string& arguments, ReductionOptions options = {})
        : declarations_(parse_arguments(arguments)), options_(std::move(options)), value_type_(type_name<T>()),
          neutral_(neutral), reduce_expr_(reduce_expr), checked_(declarations_, options_.checked) {
        const std::string kernel = "ReductionKernel '" + options_.name + "'";
        detail::check_kernel_name("clalgo::ReductionKernel", options_.name);
        // `a` and `b` are the parameters of the function that holds reduce_expr, which sees no argument: the
        // user's arguments may take those names, and map_expr sees them
        detail::reject_reserved_names(declarations_, {"i", "n"}, kernel);
        if (detail::trim(map_expr).empty()) {
            auto first = std::find_if(declarations_.begin(), declarations_.end(),
                                      [](const ArgumentDeclaration& d) { return d.is_array; });
            if (first == declarations_.end())
                throw std::invalid_argument("clalgo: " + kernel + " has no array argument: give a map_expr over i");
            map_expr = first->name + "[i]";
        }
        const std::string vector_source = plain_read_array(map_expr);
        indexed_ = detail::indexed_by_launch_index(declarations_, {map_expr, options_.preamble});

        std::vector<std::string> types{value_type_};
        for (const auto& declaration : declarations_) types.push_back(declaration.type);
        std::string map_parameters, map_arguments;
        for (const auto& declaration : declarations_) {
            map_parameters += ", " + (declaration.is_array ? "__global " + detail::qualifiers(declaration) +
                                                                 declaration.type + " *" + declaration.name
                                                           : "const " + declaration.type + " " + declaration.name);
            map_arguments += ", " + declaration.name;
        }
        map_parameters += checked_.function_parameters();
        map_arguments += checked_.function_arguments();
        const std::string parameters = detail::kernel_parameters(declarations_) + checked_.parameters();

        auto generate = [&](const DeviceInfo& info) {
            const detail::ReductionPlan plan = make_plan(info, vector_source);
            plans_.push_back(plan);
            std::string element_type = "char";
            for (const auto& declaration : declarations_)
                if (declaration.name == vector_source) element_type = declaration.type;
            const std::string group_functions = std::string(detail::cl_source::warp_shuffle) + detail::cl_source::group_reduce;
            return detail::render(
                detail::cl_source::reduction,
                {{"prologue", detail::library_text(detail::program_prologue(info, types) + checked_.helpers())},
                 {"preamble", detail::user_text("preamble", options_.preamble)},
                 {"value_type", detail::library_text(value_type_)},
                 {"group_size", detail::library_text(std::to_string(plan.group_size))},
                 {"contiguous_chunks", detail::library_text(plan.contiguous_chunks ? "1" : "0")},
                 {"unroll", detail::library_text(std::to_string(plan.unroll))},
                 {"warp_shuffle", detail::library_text(plan.warp_shuffle ? "1" : "0")},
                 {"vector_width", detail::library_text(std::to_string(plan.vector_width))},
                 {"vector_bytes", detail::library_text("16")},  // vector_width elements of the array: 16 bytes
                 {"element_type", detail::library_text(element_type)},
                 {"vector_source", detail::library_text(vector_source.empty() ? "0" : vector_source)},
                 {"neutral", detail::user_text("neutral", neutral)},
                 {"reduce_expr", detail::user_text("reduce_expr", reduce_expr)},
                 {"map_expr", detail::user_text("map_expr", checked_.text(map_expr))},
                 {"map_parameters", detail::library_text(map_parameters)},
                 {"map_arguments", detail::library_text(map_arguments)},
                 {"group_functions", detail::library_text(group_functions)},
                 {"nvidia", detail::library_text(plan.device_fence_ptx ? "1" : "0")},
                 {"name", detail::library_text(options_.name)},
                 {"signature", detail::library_text(signature_.text())},
                 {"parameters", detail::library_text(parameters)},
                 {"array_pointers", detail::library_text(detail::array_pointers(declarations_))}});
        };
        program_ = detail::KernelProgram(
            context, generate, options_.build_options,
            detail::BuildLabel{options_.name,
                               {{"neutral", neutral}, {"reduce_expr", reduce_expr}, {"map_expr", map_expr},
                                {"preamble", options_.preamble}}},
            types, {kernel_name_});
        vector_source_ = vector_source;
    }

    /// Reduces over the first array's indices, or over a clalgo::range among the arguments; blocks and returns
    /// the result (the neutral element for an empty input).
    template <class... Args>
    T operator()(const Queue& queue, const Args&... arguments) const {
        T result;
        enqueue(queue, nullptr, 0, &result, arguments...);  // its read of the result blocks
        return result;
    }

    /// Like operator(), but leaves the result on the device: a one-element array and its event.
    template <class... Args>
    DeviceResult<T> async(const Queue& queue, const Args&... arguments) const {
        Array<T> value(queue, 1, detail::pooled_in_queue_order);
        Event event = enqueue(queue, &value.buffer(), 0, nullptr, arguments...);
        return DeviceResult<T>{std::move(value), std::move(event)};
    }

    /// Like operator(), but writes the result into `destination` (one element) and returns the event.
    template <class... Args>
    Event into(const Queue& queue, const ArrayView<T>& destination, const Args&... arguments) const {
        if (destination.size() != 1)
            throw std::invalid_argument("clalgo: " + options_.name + ".into needs a destination of one element, not " +
                                        std::to_string(destination.size()));
        detail::check_same_context(options_.name, "destination", destination.buffer(), queue);
        return enqueue(queue, &destination.buffer(), destination.offset(), nullptr, arguments...);
    }

    /// The parsed argument declarations.
    const std::vector<ArgumentDeclaration>& arguments() const noexcept { return declarations_; }
    /// The expressions and options it was made with (a multi-device call combines its partials with them).
    const std::string& neutral() const noexcept { return neutral_; }
    /// The expression that combines two values, a and b.
    const std::string& reduce_expr() const noexcept { return reduce_expr_; }
    /// The options the kernel was made with.
    const ReductionOptions& options() const noexcept { return options_; }
    /// The generated OpenCL C for a device of the context (the first by default).
    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }
    /// What the compiler said building it for a device (warnings; often nothing).
    const std::string& build_log(std::size_t device_index = 0) const { return program_.build_log(device_index); }

private:
    /// The array a map of the form `name[i]` reads, where it can be read with vector loads; else "".
    std::string plain_read_array(const std::string& map_expr) const {
        const std::string name = detail::indexed_at_i(map_expr);
        for (const auto& declaration : declarations_)
            if (declaration.is_array && !name.empty() && declaration.name == name && !declaration.is_volatile &&
                detail::is_builtin_type_name(declaration.type) && declaration.type.find_first_of("0123456789") == std::string::npos)
                return declaration.name;
        return "";
    }

    detail::ReductionPlan make_plan(const DeviceInfo& info, const std::string& vector_source) const {
        detail::ReductionTraits traits;
        traits.value_size = sizeof(T);
        traits.value_is_scalar = is_builtin_type_v<T> && detail::VectorTypeName<T>::value == nullptr;
        for (const auto& declaration : declarations_)
            if (!vector_source.empty() && declaration.name == vector_source) traits.vector_element_size = builtin_size(declaration.type);
        return detail::reduction_policy(info, traits, detail::tuned_values(info));
    }

    static std::size_t builtin_size(const std::string& type) {
        if (type == "char" || type == "uchar") return 1;
        if (type == "short" || type == "ushort") return 2;
        if (type == "int" || type == "uint" || type == "float") return 4;
        if (type == "long" || type == "ulong" || type == "double") return 8;
        return 0;
    }

    const detail::ReductionPlan& plan_for(const detail::KernelProgram::OnDevice& on) const {
        for (std::size_t d = 0; d < program_.devices().size(); ++d)
            if (program_.devices()[d]() == on.device()) return plans_.at(d);
        throw std::logic_error("clalgo: no reduction plan for the device");
    }

    /// Enqueues the reduction; the result lands in `result` at element `result_offset` (no `result`: in the queue's
    /// scratch buffer), and where `read_back` is given, a blocking read of it into `*read_back` follows.
    template <class... Args>
    Event enqueue(const Queue& queue, const cl::Buffer* result, std::size_t result_offset, T* read_back,
                  const Args&... arguments) const {
        detail::CallOptions call;
        const detail::KeptArguments kept;  // bound in place, in a vector the thread keeps
        auto& bound = detail::bind_call(kept.get(), queue, call, arguments...);
        detail::check_arguments(options_.name, declarations_, bound);
        const IndexRange indices = detail::call_indices(options_.name, call.range, bound);
        detail::check_call_arrays(options_.name, declarations_, bound, indexed_, queue, indices);
        const std::int64_t n = indices.size();
        auto& on = program_.on(queue);
        const auto& plan = plan_for(on);
        const detail::Violations violations(checked_.on(), queue);
        // under the launch lock: the scratch buffer is shared by the calls on this queue
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        // the ticket (zero between calls) and the partials, then the result of a call that gives no array for it
        auto& scratch = scratch_.get(queue);
        scratch.memory.reserve_zeroed(queue, partials_at + (plan.max_groups + 1) * sizeof(T));
        const bool in_scratch = result == nullptr;
        if (in_scratch) result_offset = plan.max_groups;

        // enough groups to fill the device, but at least a few items per work-item; one group where n = 0
        const std::size_t groups = plan.groups_for(static_cast<std::uint64_t>(n));

        std::int64_t vector_head = -1;
        if (plan.vector_width > 0 && indices.step == 1 && n >= 4 * plan.vector_width) {
            for (std::size_t k = 0; k < declarations_.size(); ++k)
                if (declarations_[k].name == vector_source_) {
                    const std::int64_t first = static_cast<std::int64_t>(bound[k].offset) + indices.start;
                    const std::int64_t width = plan.vector_width;
                    vector_head = first >= 0 ? (width - first % width) % width : -1;
                }
        }

        detail::KernelSlot& slot = on.slot(kernel_name_);
        cl::Kernel& kernel = slot.kernel;
        detail::KernelArguments(kernel, signature_, &slot.memo)
            .set("clalgo_start", static_cast<cl_long>(indices.start))
            .set("clalgo_step", static_cast<cl_long>(indices.step))
            .set("n", static_cast<cl_long>(n))
            .set("clalgo_vector_head", static_cast<cl_long>(vector_head))
            .set("clalgo_memory", scratch.memory.buffer)
            .set("clalgo_result", in_scratch ? no_buffer() : *result)
            .set("clalgo_result_offset", static_cast<cl_long>(result_offset))
            .user(bound, violations.buffer());
        Event done = detail::launch(queue, kernel, groups * plan.group_size, plan.group_size, call.wait,
                                        options_.name.c_str());
        violations.throw_if_any(queue, done, options_.name, declarations_, bound);
        if (read_back != nullptr) {
            // under the lock: another thread's call on this queue would otherwise overwrite the result slot of
            // the queue's scratch buffer before this read. Blocking: on NVIDIA's OpenCL a blocking read of a few
            // bytes into pageable memory returns in about 25 µs, a non-blocking one waited for in about 55 µs
            // (docs/architecture.md, "Design notes").
            const cl::Buffer& from = in_scratch ? scratch.memory.buffer : *result;
            const std::size_t at = (in_scratch ? partials_at : 0) + result_offset * sizeof(T);
            detail::enqueue_with_memory_retry(
                queue, [&] { queue.get().enqueueReadBuffer(from, CL_TRUE, at, sizeof(T), read_back); },
                [&] { return "reading the result of '" + options_.name + "'"; });
        }
        return done;
    }

    std::vector<ArgumentDeclaration> declarations_;
    std::vector<bool> indexed_;  ///< arrays the map indexes only at [i]: checked to hold every index of a call
    ReductionOptions options_;
    std::string kernel_name_ = options_.name + "_reduce";  ///< the kernel's name in its program
    std::string value_type_;
    std::string neutral_, reduce_expr_;
    std::string vector_source_;
    std::vector<detail::ReductionPlan> plans_;  ///< one per device of the context, in its order
    detail::Checked checked_;  ///< checked mode's parts of the source; nothing where it is off
    friend struct detail::ContextCache;
    void release_context() noexcept { program_.release_context(); }
    detail::KernelProgram program_;
    /// The library's kernel parameters, set by name at launch; the user's follow.
    detail::Signature signature_{{"long", "clalgo_start"},
                                 {"long", "clalgo_step"},
                                 {"long", "n"},
                                 {"long", "clalgo_vector_head"},
                                 {"__global uchar *", "clalgo_memory"},
                                 {"__global clalgo_value_t *", "clalgo_result"},
                                 {"long", "clalgo_result_offset"}};
    /// Per queue, one buffer: at byte 0 the ticket that finds the last work-group, from partials_at on the
    /// partials, then the result of a call that gives no array for it (the template's CLALGO_PARTIALS_AT).
    struct Scratch {
        detail::GrowingBuffer memory;
    };
    static constexpr std::size_t partials_at = 128;
    /// A null buffer argument (the kernel then writes its result into the scratch buffer).
    static const cl::Buffer& no_buffer() {
        static const cl::Buffer none;
        return none;
    }
    mutable detail::PerQueue<Scratch> scratch_;
};

}  // namespace clalgo
