// ElementwiseKernel: PyOpenCL's map kernel in C++. Declare the arguments, write one statement over the index
// i (64-bit) and the size n; clalgo generates, builds (once) and launches the kernel.
//   clalgo::ElementwiseKernel lin_comb(ctx, "float a, const float *x, float b, const float *y, float *z",
//                                      "z[i] = a*x[i] + b*y[i]");
//   Event done = lin_comb(q, 5.0f, x, 6.0f, y, z);     // over i in [0, x.size())
//   lin_comb(q, clalgo::range(0, n, 2), 5.0f, x, 6.0f, y, z); // over i = 0, 2, 4, ... < n
#pragma once

#include <clalgo/cl/elementwise.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/checked.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/policy/map.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// What an ElementwiseKernel may add to its operation: a name, helper code, per-work-item statements, options.
struct ElementwiseOptions {
    std::string name = "elementwise";  ///< the kernel's name, in build errors and profilers
    std::string preamble;              ///< OpenCL C placed before the kernel: helper functions, constants
    std::string loop_prep;             ///< statements run by each work-item before its loop
    std::string after_loop;            ///< statements run by each work-item after its loop
    std::string build_options;         ///< passed to the OpenCL compiler
    /// Checked mode: bounds-check every access name[index] to an array argument; an access out of bounds makes
    /// the call throw OutOfBoundsError, and each call blocks. CLALGO_CHECKED=1 turns it on for every kernel.
    bool checked = false;
};

/// Applies `operation` to every index. Calls are checked against the declaration, return the launch's event,
/// and are asynchronous: read results back (Array::to_host) or wait on the event.
class ElementwiseKernel {
public:
    /// `arguments`: declarations such as "float a, const float *x"; `operation`: a statement over i, n and the
    /// arguments. Builds the program for every device of `context` (BuildError where it does not compile).
    ElementwiseKernel(const Context& context, const std::string& arguments, const std::string& operation,
                      ElementwiseOptions options = {})
        : declarations_(parse_arguments(arguments)), operation_(operation), options_(std::move(options)),
          checked_(declarations_, options_.checked) {
        detail::check_kernel_name("clalgo::ElementwiseKernel", options_.name);
        detail::reject_reserved_names(declarations_, {"i", "n"}, "ElementwiseKernel '" + options_.name + "'");
        indexed_ = detail::indexed_by_launch_index(
            declarations_, {operation, options_.loop_prep, options_.after_loop, options_.preamble});
        std::vector<ArgumentDeclaration> distinct = declarations_;
        for (auto& declaration : distinct) {
            if (declaration.is_array && !declaration.is_restrict) {
                declaration.is_restrict = true;
                aliased_ = std::make_shared<Aliased>();
            }
        }
        program_ = make_program(context, distinct);
    }

    /// Runs the kernel over [0, size of the first array), or over a clalgo::range given among the arguments.
    /// A clalgo::wait_for(events) among the arguments delays the launch until those events complete.
    template <class... Args>
    Event operator()(const Queue& queue, const Args&... arguments) const {
        detail::CallOptions call;
        const detail::KeptArguments kept;  // bound in place, in a vector the thread keeps
        auto& bound = detail::bind_call(kept.get(), queue, call, arguments...);
        detail::check_arguments(options_.name, declarations_, bound);
        const IndexRange indices = detail::call_indices(options_.name, call.range, bound);
        detail::check_call_arrays(options_.name, declarations_, bound, indexed_, queue, indices);
        const std::int64_t n = indices.size();
        if (n == 0) return detail::marker(queue, call.wait);
        auto& on = program_for(queue, bound).on(queue);
        const detail::Violations violations(checked_.on(), queue);
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        detail::KernelSlot& slot = on.slot(options_.name);
        detail::KernelArguments(slot.kernel, signature_, &slot.memo)
            .set("clalgo_start", static_cast<cl_long>(indices.start))
            .set("clalgo_step", static_cast<cl_long>(indices.step))
            .set("n", static_cast<cl_long>(n))
            .user(bound, violations.buffer());
        const auto shape = detail::map_shape(*on.info, policies_.at(on.info), n, slot.largest_group(on.device));
        Event done = detail::launch(queue, slot.kernel, shape.global_size(), shape.group_size, call.wait, options_.name.c_str());
        violations.throw_if_any(queue, done, options_.name, declarations_, bound);
        return done;
    }

    /// The parsed argument declarations.
    const std::vector<ArgumentDeclaration>& arguments() const noexcept { return declarations_; }
    /// The name, preamble and options it was made with.
    const ElementwiseOptions& options() const noexcept { return options_; }
    /// The generated OpenCL C for a device of the context (the first by default).
    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }
    /// What the compiler said building it for a device (warnings; often nothing).
    const std::string& build_log(std::size_t device_index = 0) const { return program_.build_log(device_index); }

private:
    /// The program without restrict, for calls that pass one buffer as two arrays; built at the first such call.
    struct Aliased {
        std::mutex mutex;
        std::unique_ptr<detail::KernelProgram> program;
        bool context_released = false;
    };

    detail::KernelProgram make_program(const Context& context, const std::vector<ArgumentDeclaration>& declarations) const {
        std::vector<std::string> types;
        for (const auto& declaration : declarations) types.push_back(declaration.type);
        const std::string parameters = detail::kernel_parameters(declarations) + checked_.parameters();
        auto generate = [&](const DeviceInfo& info) {
            // the first program fixes the device's policy: the other is made with it, and launches follow it
            const auto found = policies_.find(&info);
            const detail::MapPolicy policy =
                found != policies_.end() ? found->second : policies_.emplace(&info, detail::map_policy(info)).first->second;
            return detail::render(
                detail::cl_source::elementwise,
                {{"prologue", detail::library_text(detail::program_prologue(info, types) + checked_.helpers())},
                 {"preamble", detail::user_text("preamble", options_.preamble)},
                 {"contiguous_chunks", detail::library_text(policy.contiguous_chunks ? "1" : "0")},
                 {"items", detail::library_text(std::to_string(policy.items))},
                 {"name", detail::library_text(options_.name)},
                 {"signature", detail::library_text(signature_.text())},
                 {"parameters", detail::library_text(parameters)},
                 {"array_pointers", detail::library_text(detail::array_pointers(declarations))},
                 {"loop_prep", detail::user_text("loop_prep", checked_.text(options_.loop_prep))},
                 {"operation", detail::user_text("operation", checked_.text(operation_))},
                 {"after_loop", detail::user_text("after_loop", checked_.text(options_.after_loop))}});
        };
        return detail::KernelProgram(
            context, generate, options_.build_options,
            detail::BuildLabel{options_.name,
                               {{"operation", operation_}, {"preamble", options_.preamble},
                                {"loop_prep", options_.loop_prep}, {"after_loop", options_.after_loop}}},
            types, {options_.name});
    }

    /// The program a call runs: the one with restrict arrays (a work-item's reads may then go out before its
    /// writes) where the call's arrays lie in distinct buffers, else the one without.
    const detail::KernelProgram& program_for(const Queue& queue, const std::vector<detail::BoundArgument>& bound) const {
        if (!aliased_) return program_;
        // one buffer as two arrays, one of them written (arrays only read may share memory under restrict)
        bool shared = false;
        for (std::size_t a = 0; a < bound.size() && !shared; ++a)
            for (std::size_t b = a + 1; b < bound.size() && !shared; ++b)
                shared = bound[a].is_array && bound[b].is_array && bound[a].buffer() != nullptr &&
                         bound[a].buffer() == bound[b].buffer() && !(declarations_[a].is_const && declarations_[b].is_const);
        if (!shared) return program_;
        program_.on(queue);  // the queue's context is the kernel's (else this throws)
        std::lock_guard<std::mutex> lock(aliased_->mutex);
        if (!aliased_->program) {
            aliased_->program = std::make_unique<detail::KernelProgram>(make_program(queue.context(), declarations_));
            if (aliased_->context_released) aliased_->program->release_context();
        }
        return *aliased_->program;
    }

    std::vector<ArgumentDeclaration> declarations_;
    std::vector<bool> indexed_;  ///< arrays the code indexes only at [i]: checked to hold every index of a call
    std::string operation_;
    ElementwiseOptions options_;
    detail::Checked checked_;  ///< checked mode's parts of the source; nothing where it is off
    /// The library's kernel parameters, set by name at launch; the user's follow.
    detail::Signature signature_{{"long", "clalgo_start"}, {"long", "clalgo_step"}, {"long", "n"}};
    friend struct detail::ContextCache;
    void release_context() noexcept {
        program_.release_context();
        if (aliased_) {
            std::lock_guard<std::mutex> lock(aliased_->mutex);
            aliased_->context_released = true;
            if (aliased_->program) aliased_->program->release_context();
        }
    }
    /// Per device, the map policy the programs were made with (read once: the launches' shapes must match it).
    /// Filled by the first program's build (in the constructor); only read after it.
    mutable std::map<const DeviceInfo*, detail::MapPolicy> policies_;
    detail::KernelProgram program_;       ///< arrays declared restrict
    std::shared_ptr<Aliased> aliased_;  ///< where some array is not declared restrict by the user
};

}  // namespace clalgo
