// A kernel object's compiled program on every device of its context: generated (specialised to each device),
// built once through the program cache, with its cl::Kernel objects made once. Also the head every generated
// program starts with (extension pragmas, definitions of the registered structs it uses) and the check that a
// registered struct has the same layout on the device as in C++.
#pragma once

#include <clalgo/codegen/code_shape.hpp>
#include <clalgo/codegen/complex.hpp>
#include <clalgo/codegen/launch_log.hpp>
#include <clalgo/codegen/names.hpp>
#include <clalgo/codegen/program_cache.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/memory_pool.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace clalgo::detail {

/// Extension pragmas, the complex functions (codegen/complex.hpp) and the definitions of the registered structs
/// among `types`.
inline std::string program_prologue(const DeviceInfo& info, const std::vector<std::string>& types) {
    std::string text;
    if (info.has_fp64) text += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    text += complex_prologue(info.has_fp64);
    std::set<std::string> defined;
    for (const auto& type : types) text += struct_definitions(type, defined);
    return text;
}

/// Attached to each context: the (device, struct) pairs whose layouts were checked.
struct CheckedLayouts {
    std::mutex mutex;
    std::set<std::pair<cl_device_id, std::string>> checked;
};

/// Checks on the device that each registered struct among `types` has the size and field offsets it has in C++.
inline void verify_struct_layouts(const Context& context, const cl::Device& device, const std::vector<std::string>& types) {
    auto& checked = context.state().attachment<CheckedLayouts>();
    for (const auto& type : types) {
        auto registered = StructRegistry::instance().find(type);
        if (!registered) continue;
        {
            std::lock_guard<std::mutex> lock(checked.mutex);
            if (checked.checked.count({device(), type})) continue;
        }
        std::string body = "    out[0] = sizeof(" + type + ");\n";
        for (std::size_t f = 0; f < registered->fields.size(); ++f)
            body += "    out[" + std::to_string(f + 1) + "] = (ulong)((__global char *)&p->" + registered->fields[f].name +
                    " - (__global char *)p);\n";
        std::set<std::string> defined;
        GeneratedSource source = render(
            "${definition}__kernel void clalgo_struct_layout(__global ulong *out, __global ${type} *p)\n{\n${body}}\n",
            {{"definition", user_text("struct definition", struct_definitions(type, defined))},
             {"type", library_text(type)},
             {"body", library_text(body)}});
        cl::Program program = build_program(context, device, source, "",
                                            BuildLabel{"clalgo_struct_layout", {{"struct definition", registered->definition}}});
        std::vector<cl_ulong> layout(registered->fields.size() + 1);
        cl::Buffer out = allocate_buffer(context, layout.size() * sizeof(cl_ulong), "the layout check of a struct");
        cl::Buffer dummy = allocate_buffer(context, registered->size, "the layout check of a struct");
        cl::Kernel kernel(program, "clalgo_struct_layout");
        kernel.setArg(0, out);
        kernel.setArg(1, dummy);
        cl::CommandQueue queue(context.get(), device);
        queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(1), cl::NDRange(1));
        queue.enqueueReadBuffer(out, CL_TRUE, 0, layout.size() * sizeof(cl_ulong), layout.data());
        const std::string where = "clalgo: registered struct '" + type + "' has a different layout on '" +
                                  context.info(device).name + "' than in C++: ";
        // fields first: a misplaced field is the cause a user can act on, a size difference often its symptom
        for (std::size_t f = 0; f < registered->fields.size(); ++f)
            if (layout[f + 1] != registered->fields[f].offset)
                throw std::invalid_argument(where + "field '" + registered->fields[f].name + "' is at offset " +
                                            std::to_string(layout[f + 1]) + " on the device and " +
                                            std::to_string(registered->fields[f].offset) + " in C++");
        if (layout[0] != registered->size)
            throw std::invalid_argument(where + "sizeof is " + std::to_string(layout[0]) + " on the device and " +
                                        std::to_string(registered->size) + " in C++");
        std::lock_guard<std::mutex> lock(checked.mutex);
        checked.checked.insert({device(), type});
    }
}

/// Throws UnsupportedError where the device lacks double precision and a type needs it.
inline void require_types_supported(const DeviceInfo& info, const std::vector<std::string>& types,
                                    const std::string& kernel) {
    for (const auto& type : types)
        if (type_needs_fp64(type) && !info.has_fp64)
            throw UnsupportedError("clalgo: kernel '" + kernel + "' uses '" + type + "' but '" + info.name +
                                   "' has no double precision (cl_khr_fp64)");
}

/// Lets the caches a context keeps make their kernel objects stop holding the context (KernelProgram::
/// release_context): each kernel class befriends it and forwards to its programs.
struct ContextCache {
    template <class Kernel>
    static void release(Kernel& kernel) noexcept {
        kernel.release_context();
    }
};

/// The largest work-group size a built kernel can be launched with on its device.
inline std::size_t kernel_work_group_size(const cl::Kernel& kernel, const cl::Device& device) {
    return kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
}

/// One kernel of a program and what its launches keep: the argument values last set, so that a call sets only
/// those that changed, and its largest work-group size, asked of the driver once.
struct KernelSlot {
    cl::Kernel kernel;
    ArgumentMemo memo;  ///< use under the program's launch_mutex
    std::size_t work_group_size = 0;  ///< 0 until asked

    std::size_t largest_group(const cl::Device& device) {
        if (work_group_size == 0) work_group_size = kernel_work_group_size(kernel, device);
        return work_group_size;
    }
};

/// A kernel object's program on every device of its context, each built once, with its kernels.
class KernelProgram {
public:
    struct OnDevice {
        cl::Device device;
        const DeviceInfo* info = nullptr;
        GeneratedSource source;
        cl::Program program;
        std::string build_log;  ///< what the compiler said (kept with the disk cache's entry)
        std::map<std::string, KernelSlot, std::less<>> kernels;
        /// Held while a call sets arguments and enqueues, so that threads sharing the object do not mix them.
        std::unique_ptr<std::mutex> launch_mutex = std::make_unique<std::mutex>();
        /// Set (release) once the program is built; a build that waits for the first call (BuildTime::first_call)
        /// happens once, under build_mutex, by the first caller (a failed build leaves it unset: the next call
        /// tries again).
        std::atomic<bool> ready{false};
        std::mutex build_mutex;

        /// The kernel `name` and what its launches keep, made at the first use.
        KernelSlot& slot(std::string_view name) {
            auto found = kernels.find(name);
            if (found == kernels.end()) {
                KernelSlot made;
                try {
                    made.kernel = cl::Kernel(program, std::string(name).c_str());
                } catch (const cl::Error& error) {
                    throw std::invalid_argument("clalgo: the kernel '" + std::string(name) +
                                                "' could not be made from its program (" + error.what() + ", error " +
                                                std::to_string(error.err()) +
                                                "): a kernel named like an OpenCL C built-in function (max, dot, "
                                                "sin, ...) cannot be called; give it another name");
                }
                found = kernels.emplace(std::string(name), std::move(made)).first;
            }
            return found->second;
        }
        cl::Kernel& kernel(std::string_view name) { return slot(name).kernel; }
        /// The memo of a kernel made by kernel(name); lives as long as the kernel. Use under launch_mutex.
        ArgumentMemo& memo(std::string_view name) { return slot(name).memo; }
    };

    using Generator = std::function<GeneratedSource(const DeviceInfo&)>;

    /// When the program is compiled: in the constructor, or on a device at the first call there (for variants of
    /// a kernel that many programs never use: the constructor then only generates their sources).
    enum class BuildTime { now, first_call };

    KernelProgram() = default;

    /// Generates and builds the program for every device of `context`; `types` are the OpenCL C types it uses.
    /// Unsupported types and struct layouts are checked here, whenever the build comes.
    KernelProgram(const Context& context, const Generator& generate, const std::string& options, BuildLabel label,
                  const std::vector<std::string>& types, const std::vector<std::string>& kernel_names,
                  BuildTime when = BuildTime::now)
        : owner_(context), state_(&context.state()),
          recipe_(std::make_shared<Recipe>(Recipe{options, std::move(label), kernel_names})) {
        check_build_options("kernel " + quoted_head(recipe_->label.kernel_name), effective_options(options));
        const bool build = !context.state().sources_only;  // a context for sources: generated, never built
        for (const auto& device : context.devices()) {
            const auto& info = context.info(device);
            require_types_supported(info, types, recipe_->label.kernel_name);
            if (build) verify_struct_layouts(context, device, types);
            auto on = std::make_unique<OnDevice>();
            on->device = device;
            on->info = &info;
            try {
                on->source = generate(info);
            } catch (const CodeShapeError& error) {
                throw std::invalid_argument("clalgo: kernel " + quoted_head(recipe_->label.kernel_name) + ": " +
                                            error.what());
            }
            if (when == BuildTime::now && build) this->build(*on, context);
            devices_.push_back(std::move(on));
        }
        if (when == BuildTime::now) recipe_.reset();
    }

    /// The program on the queue's device (built there now if its build waited for the first call); throws where
    /// the queue belongs to another context.
    OnDevice& on(const Queue& queue) const {
        if (state_->sources_only) throw std::logic_error("clalgo: a kernel made on a context for sources cannot run");
        OnDevice& on = *devices_[device_index(queue)];
        if (!on.ready.load(std::memory_order_acquire)) {
            std::lock_guard<std::mutex> lock(on.build_mutex);
            if (!on.ready.load(std::memory_order_relaxed)) build(on, queue.context());
        }
        return on;
    }

    /// For a call that needs several programs whose builds wait for the first call: on NVIDIA's OpenCL, builds
    /// those not yet built on the queue's device side by side (the first on this thread, the others on threads of
    /// their own), so that on() finds each built. NVIDIA's compiler runs two builds partly at once: on an H200 the
    /// first argsort of 2^22 keys (two programs) took 0.92 s by the median of five processes so, against 1.03 with
    /// the programs built in turn. Elsewhere each is built by its on(), in turn (Oclgrind's runtime corrupts its
    /// heap building two programs at once). Rethrows the first failure, once every build has ended.
    static void build_together(const Queue& queue, std::initializer_list<const KernelProgram*> programs) {
        if (!queue.info().is_nvidia) return;
        const KernelProgram* here = nullptr;
        std::vector<std::future<void>> others;
        for (const KernelProgram* program : programs) {
            if (program->state_->sources_only || program->built(program->device_index(queue))) continue;
            if (!here) {
                here = program;
                continue;
            }
            try {
                others.push_back(std::async(std::launch::async, [program, &queue] { (void)program->on(queue); }));
            } catch (const std::system_error&) {
                // no thread to be had: this program is built by its own on(queue), in turn
            }
        }
        std::exception_ptr failure;
        try {
            if (here) (void)here->on(queue);
        } catch (...) {
            failure = std::current_exception();
        }
        for (auto& other : others) {
            try {
                other.get();
            } catch (...) {
                if (!failure) failure = std::current_exception();
            }
        }
        if (failure) std::rethrow_exception(failure);
    }

    /// Whether the program is built on a device of the context (always, unless its build waits for the first call).
    bool built(std::size_t device_index = 0) const { return devices_.at(device_index)->ready.load(std::memory_order_acquire); }

    /// The place of the queue's device among the context's (builds nothing); throws where the queue belongs to
    /// another context.
    std::size_t device_index(const Queue& queue) const {
        if (&queue.context().state() != state_)
            throw std::invalid_argument("clalgo: the queue belongs to another context than the kernel");
        for (std::size_t d = 0; d < devices_.size(); ++d)
            if (devices_[d]->device() == queue.device()()) return d;
        throw std::invalid_argument("clalgo: the queue's device is not a device of the kernel's context");
    }

    /// The program on one device of the context, as built so far (for programs built in the constructor).
    OnDevice& on_device(const cl::Device& device) const {
        for (const auto& on : devices_)
            if (on->device() == device()) return *on;
        throw std::invalid_argument("clalgo: the device is not a device of the kernel's context");
    }

    /// The generated source for a device (the first by default), for reading and debugging.
    const std::string& source(std::size_t device_index = 0) const { return devices_.at(device_index)->source.text; }

    /// What the compiler said building the program for a device (the first by default): its warnings, often
    /// nothing. Where the binary came from the disk cache, the log of the build that stored it. Empty while a
    /// build that waits for the first call has not come.
    const std::string& build_log(std::size_t device_index = 0) const {
        static const std::string none;
        return built(device_index) ? devices_.at(device_index)->build_log : none;
    }

    /// The devices of the program's context, in its order.
    const std::vector<cl::Device>& devices() const { return state_->devices; }

    /// For a kernel object that its context keeps (a cache among the context's attachments): the program stops
    /// holding the context, which would otherwise never be freed (it would hold itself). The context then
    /// outlives the program, which it owns.
    void release_context() noexcept { owner_.reset(); }

private:
    /// What a build needs besides the source, kept while a build waits for the first call.
    struct Recipe {
        std::string options;
        BuildLabel label;
        std::vector<std::string> kernel_names;
    };

    void build(OnDevice& on, const Context& context) const {
        BuiltProgram made = build_program_with_log(context, on.device, on.source, recipe_->options, recipe_->label);
        on.program = std::move(made.program);
        on.build_log = std::move(made.log);
        for (const auto& name : recipe_->kernel_names) on.kernel(name);
        on.ready.store(true, std::memory_order_release);
    }

    std::optional<Context> owner_;          ///< keeps the context alive, unless the context keeps this program
    const ContextState* state_ = nullptr;
    std::shared_ptr<const Recipe> recipe_;  ///< null once every device's program is built in the constructor
    std::vector<std::unique_ptr<OnDevice>> devices_;
};

/// Enqueues a 1-D launch, turning a failure into clalgo's exception; `done` (may be null: no event is made, as
/// for a command that later ones of the same call follow on the in-order queue) receives its event.
inline void enqueue_launch(const Queue& queue, const cl::Kernel& kernel, std::size_t global, std::size_t local,
                           const std::vector<cl::Event>& wait, const char* what, cl::Event* done) {
    LaunchLog* log = LaunchLog::open();
    cl::Event logged;
    if (log && log->with_events() && !done) done = &logged;
    enqueue_with_memory_retry(
        queue,
        [&] {
            queue.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global),
                                             local ? cl::NDRange(local) : cl::NullRange, wait_list(wait), done);
        },
        [&] { return std::string("launching ") + what; });
    if (log) log->record(kernel, global, local, done);
}

/// Enqueues a 1-D launch, a call's last command, and returns the call's Event (made only where asked for).
inline Event launch(const Queue& queue, const cl::Kernel& kernel, std::size_t global, std::size_t local,
                    const std::vector<cl::Event>& wait, const char* what) {
    cl::Event done;
    enqueue_launch(queue, kernel, global, local, wait, what, event_slot(queue, done));
    return call_event(queue, std::move(done));
}

}  // namespace clalgo::detail
