// RawProgram and RawKernel: hand-written OpenCL C, as PyOpenCL's cl.Program and CuPy's RawKernel. The program is
// built for every device of the context through clalgo's memory and disk caches (BuildError where it does not
// compile); a kernel's call is checked against the parameters its own source declares, as ElementwiseKernel's
// calls are against their declarations.
//   clalgo::RawProgram program(ctx, "__kernel void scale(__global float *x, float a) { x[get_global_id(0)] *= a; }");
//   clalgo::RawKernel scale = program.kernel("scale");
//   scale(q, x.size(), clalgo::no_local_size, x, 2.0f);      // global size, local size (or none), arguments
// `__local` parameters take clalgo::local_memory<T>(count); a clalgo::wait_for(events) may be added anywhere.
// A parameter that declares its extent (`__global float x[256]`) takes an array of at least that many elements.
// Before the source comes what generated programs get: the fp64 pragma (where the device has fp64) and the complex
// functions (clalgo_cmul, ...), unless the source defines one of those itself or RawProgramOptions turns it off.
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/complex.hpp>
#include <clalgo/codegen/kernel_signature.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// A `__local` argument of a raw kernel: room for `bytes` bytes in each work-group's local memory.
struct LocalMemory {
    /// Bytes of local memory per work-group.
    std::size_t bytes = 0;
};

/// Local memory for `count` elements of T, for a `__local T *` parameter.
template <class T>
LocalMemory local_memory(std::size_t count) {
    return LocalMemory{count * sizeof(T)};
}

/// For a call's local size: let the driver choose the work-group size.
inline const cl::NDRange no_local_size = cl::NullRange;

/// How a RawProgram is built.
struct RawProgramOptions {
    std::string build_options;  ///< passed to the OpenCL compiler (CLALGO_BUILD_OPTIONS is appended)
    /// Put before the source what generated programs get: `#pragma OPENCL EXTENSION cl_khr_fp64 : enable` where the
    /// device has fp64, and the complex functions (clalgo_cmul, clalgo_conj, ...). The complex functions are left
    /// out by themselves where the source declares or defines one of them (a source copied from a generated
    /// kernel's source() does). Off: the source is built exactly as given.
    bool library_prologue = true;
};

namespace detail {

/// Whether `source` declares or defines one of `names`: a name preceded by a word that is not a keyword before
/// an expression (a type: `float2 clalgo_cmul(`), as opposed to its uses (`= clalgo_cmul(`, `return clalgo_cmul(`).
/// Comments are skipped; a macro of that name (`#define clalgo_cmul(a, b) ...`) comes after the library's
/// functions and does not clash with them.
inline bool declares_any(const std::string& source, const std::vector<std::string>& names) {
    static const std::vector<std::string> before_expressions{"return", "else",   "do",      "case",   "sizeof",
                                                             "define", "undef", "ifdef", "ifndef", "defined"};
    const std::string text = without_comments(source);
    auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (const auto& name : names) {
        for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
            const std::size_t end = at + name.size();
            if ((at > 0 && is_word(text[at - 1])) || (end < text.size() && is_word(text[end]))) continue;
            std::size_t word_end = at;
            while (word_end > 0 && std::isspace(static_cast<unsigned char>(text[word_end - 1]))) --word_end;
            std::size_t word_start = word_end;
            while (word_start > 0 && is_word(text[word_start - 1])) --word_start;
            if (word_start == word_end) continue;  // after punctuation: a use
            const std::string word = text.substr(word_start, word_end - word_start);
            if (std::find(before_expressions.begin(), before_expressions.end(), word) == before_expressions.end())
                return true;
        }
    }
    return false;
}

/// The source a RawProgram builds on a device: the user's, after the library's prologue where it is wanted.
inline GeneratedSource raw_program_source(const std::string& source, const DeviceInfo& info, bool prologue) {
    if (!prologue) return GeneratedSource{source, {}};
    std::string text;
    if (info.has_fp64) text += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    if (!declares_any(source, complex_function_names())) text += complex_prologue(info.has_fp64);
    text += "/* your source */";
    return render("${prologue}\n${source}\n",
                  {{"prologue", library_text(text)}, {"source", user_text("source", source)}});
}

/// What a RawProgram and its kernels share: the program on every device, its source and signatures.
struct RawProgramState {
    std::string source;
    std::string options;
    std::vector<KernelSignature> signatures;
    KernelProgram program;
};

}  // namespace detail

/// One kernel of a RawProgram; copies share it. Calls are checked, asynchronous, and return the launch's event.
class RawKernel {
public:
    /// The kernel's name.
    const std::string& name() const noexcept { return signature_.name; }
    /// The parameters as the kernel's source declares them.
    const std::vector<KernelParameter>& parameters() const noexcept { return signature_.parameters; }

    /// Launches the kernel over `global` work-items in work-groups of `local` (clalgo::no_local_size: the
    /// driver's choice); 1 to 3 dimensions, e.g. 1024, or cl::NDRange(64, 64). The arguments follow the kernel's
    /// parameters: an Array or ArrayView for a `__global` or `__constant` pointer, a value for a scalar (converted
    /// where no value changes, as for ElementwiseKernel), clalgo::local_memory<T>(count) for a `__local` pointer.
    template <class... Args>
    Event operator()(const Queue& queue, const cl::NDRange& global, const cl::NDRange& local,
                         const Args&... arguments) const {
        std::vector<detail::BoundArgument> bound;
        std::vector<std::optional<LocalMemory>> locals;
        std::vector<cl::Event> wait;
        auto one = [&](const auto& argument) {
            using U = std::decay_t<decltype(argument)>;
            static_assert(!std::is_same_v<U, IndexRange>,
                          "clalgo::RawKernel: a raw kernel runs over its global size, not a clalgo::range");
            if constexpr (std::is_same_v<U, WaitFor>) {
                detail::append_wait_list(queue, argument, wait);
            } else if constexpr (std::is_same_v<U, LocalMemory>) {
                bound.emplace_back();
                bound.back().kind = detail::BoundArgument::Kind::local_memory;
                locals.push_back(argument);
            } else {
                bound.push_back(detail::bind(argument));
                locals.emplace_back();
            }
        };
        (one(arguments), ...);
        (void)one;
        bool empty_launch = global.dimensions() > 0;
        for (std::size_t d = 0; d < global.dimensions(); ++d) empty_launch = empty_launch && global[d] == 0;
        check(bound, locals, queue, empty_launch);
        if (global.dimensions() == 0 || (local.dimensions() != 0 && local.dimensions() != global.dimensions()))
            throw std::invalid_argument("clalgo: kernel '" + name() + "': the local size has " +
                                        std::to_string(local.dimensions()) + " dimension(s) and the global size " +
                                        std::to_string(global.dimensions()) + "; give both the same, or no_local_size");
        for (std::size_t d = 0; d < global.dimensions(); ++d)
            if (global[d] == 0) return detail::marker(queue, wait);

        auto& on = state_->program.on(queue);
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        cl::Kernel& kernel = on.kernel(name());
        std::vector<cl::Buffer> sub_buffers;  // views that start inside their buffer; held until enqueued
        for (std::size_t k = 0; k < bound.size(); ++k) {
            const cl_uint index = static_cast<cl_uint>(k);
            if (locals[k]) {
                kernel.setArg(index, cl::Local(locals[k]->bytes));
            } else if (bound[k].is_array) {
                cl_mem memory = bound[k].buffer();
                if (bound[k].offset != 0 && memory) {
                    sub_buffers.push_back(view_buffer(bound[k], parameters()[k], on));
                    memory = sub_buffers.back()();
                }
                kernel.setArg(index, sizeof(cl_mem), memory ? &memory : nullptr);
            } else {
                kernel.setArg(index, bound[k].bytes.size(), bound[k].bytes.data());
            }
        }
        cl::Event done;
        cl::Event* slot = detail::event_slot(queue, done);
        detail::enqueue_with_memory_retry(
            queue,
            [&] { queue.get().enqueueNDRangeKernel(kernel, cl::NullRange, global, local, detail::wait_list(wait), slot); },
            [&] { return "launching kernel '" + name() + "'"; });
        return detail::call_event(queue, std::move(done));
    }

private:
    friend class RawProgram;
    RawKernel(std::shared_ptr<detail::RawProgramState> state, KernelSignature signature)
        : state_(std::move(state)), signature_(std::move(signature)) {}

    /// `empty_launch`: no work-item runs, so arrays that hold no memory are allowed.
    void check(std::vector<detail::BoundArgument>& bound, const std::vector<std::optional<LocalMemory>>& locals,
               const Queue& queue, bool empty_launch) const {
        const auto& declared = parameters();
        if (bound.size() != declared.size()) {
            std::string names;
            for (const auto& parameter : declared) names += (names.empty() ? "" : ", ") + parameter.declared;
            throw std::invalid_argument("clalgo: kernel '" + name() + "' takes " + std::to_string(declared.size()) +
                                        " argument(s) (" + names + ") but " + std::to_string(bound.size()) +
                                        " were given");
        }
        std::vector<ArgumentDeclaration> checked_declarations;
        std::vector<detail::BoundArgument> checked_arrays;
        for (std::size_t k = 0; k < declared.size(); ++k) {
            const KernelParameter& parameter = declared[k];
            const bool wants_local = parameter.space == KernelParameter::Space::local;
            const std::string where = "clalgo: kernel '" + name() + "', argument " + std::to_string(k + 1) + " '" +
                                      parameter.name + "' is declared '" + parameter.declared + "' but ";
            if (wants_local != locals[k].has_value())
                throw std::invalid_argument(where + (wants_local ? "a " + bound[k].cpp_type() +
                                                                       " was given (pass clalgo::local_memory<T>(count))"
                                                                 : "clalgo::local_memory was given"));
            if (wants_local) {
                const std::uint64_t wanted = parameter.extent * detail::type_size(parameter.type);
                if (wanted > locals[k]->bytes)
                    throw std::invalid_argument(where + "clalgo::local_memory of " + std::to_string(locals[k]->bytes) +
                                                " bytes was given, less than the " + std::to_string(wanted) +
                                                " bytes of its " + std::to_string(parameter.extent) + " elements");
                continue;
            }
            ArgumentDeclaration declaration;
            declaration.name = parameter.name;
            declaration.type = parameter.type;
            declaration.is_array = parameter.is_pointer;
            declaration.is_const = parameter.is_const;
            declaration.declared = parameter.declared;
            if (parameter.is_known()) {
                detail::check_argument(name(), k, declaration, bound[k]);
            } else if (parameter.is_pointer != bound[k].is_array) {
                throw std::invalid_argument(where + (bound[k].is_array ? "an array (" + bound[k].cpp_type() + ")"
                                                                       : "a scalar " + bound[k].cpp_type()) +
                                            " was given");
            }
            if (bound[k].is_array && bound[k].size < parameter.extent)
                throw std::invalid_argument(where + "the " + bound[k].cpp_type() + " has " +
                                            std::to_string(bound[k].size) + " elements, fewer than the " +
                                            std::to_string(parameter.extent) + " it declares");
            if (bound[k].is_array) {
                checked_declarations.push_back(declaration);
                checked_arrays.push_back(bound[k]);
            }
        }
        // memory held and the queue's context (the indices a raw kernel reads are its own business)
        detail::check_call_arrays(name(), checked_declarations, checked_arrays, {}, queue, IndexRange{0, 1, 1},
                                  empty_launch);
    }

    /// A buffer for a view that starts inside its buffer: a sub-buffer, where the device's alignment allows.
    cl::Buffer view_buffer(const detail::BoundArgument& argument, const KernelParameter& parameter,
                           const detail::KernelProgram::OnDevice& on) const {
        const std::size_t element = detail::type_size(argument.type);
        cl_buffer_region region{argument.offset * element, argument.size * element};
        const cl_uint align_bits = on.device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>();
        const std::size_t align = align_bits / 8;
        if (element == 0 || (align != 0 && region.origin % align != 0) || region.size == 0)
            throw std::invalid_argument("clalgo: kernel '" + name() + "', argument '" + parameter.name + "': the " +
                                        argument.cpp_type() + " starts " + std::to_string(region.origin) +
                                        " bytes into its buffer, and a raw kernel can take a view only where that is "
                                        "a multiple of " + std::to_string(align) +
                                        " bytes (the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN): pass the whole array "
                                        "and an offset argument");
        try {
            cl::Buffer whole(argument.buffer(), true);
            return whole.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region);
        } catch (const cl::Error& error) {
            detail::rethrow(error, "making a sub-buffer for argument '" + parameter.name + "' of kernel '" + name() + "'");
        }
    }

    std::shared_ptr<detail::RawProgramState> state_;
    KernelSignature signature_;
};

/// Hand-written OpenCL C, built for every device of a context (once per process through the memory cache, and
/// across runs through the disk cache). Its kernels are taken by name.
class RawProgram {
public:
    /// Builds `source` with the compiler `options` (and CLALGO_BUILD_OPTIONS), after the library's prologue;
    /// BuildError with the log and the numbered source where it does not compile.
    RawProgram(const Context& context, std::string source, std::string options = "")
        : RawProgram(context, std::move(source), RawProgramOptions{std::move(options)}) {}

    /// The same, with the prologue chosen (RawProgramOptions::library_prologue).
    RawProgram(const Context& context, std::string source, RawProgramOptions options)
        : state_(std::make_shared<detail::RawProgramState>()) {
        state_->source = std::move(source);
        state_->options = std::move(options.build_options);
        state_->signatures = detail::read_kernel_signatures(state_->source);
        for (const auto& signature : state_->signatures) detail::check_kernel_name("clalgo::RawProgram", signature.name);
        std::string label;
        for (const auto& signature : state_->signatures) label += (label.empty() ? "" : ", ") + signature.name;
        state_->program = detail::KernelProgram(
            context,
            [&](const DeviceInfo& info) {
                return detail::raw_program_source(state_->source, info, options.library_prologue);
            },
            state_->options, detail::BuildLabel{label.empty() ? "RawProgram" : label, {}}, {}, {});
    }

    /// The kernel named `name`; std::invalid_argument where the source defines none of that name, or where its
    /// parameters cannot be read from the source (a signature made by a macro).
    RawKernel kernel(const std::string& name) const {
        const KernelSignature* found = nullptr;
        for (const auto& signature : state_->signatures)
            if (signature.name == name) found = &signature;
        if (found == nullptr) {
            std::string names;
            for (const auto& signature : state_->signatures) names += (names.empty() ? "'" : ", '") + signature.name + "'";
            throw std::invalid_argument("clalgo: RawProgram has no kernel '" + name + "' (its source defines " +
                                        (names.empty() ? std::string("none") : names) + ")");
        }
        for (const auto& device : state_->program.devices()) {
            auto& on = on_device(device);
            std::lock_guard<std::mutex> lock(*on.launch_mutex);
            const cl_uint count = on.kernel(name).getInfo<CL_KERNEL_NUM_ARGS>();
            if (count != found->parameters.size())
                throw std::invalid_argument("clalgo: RawProgram: kernel '" + name + "' has " + std::to_string(count) +
                                            " parameters but " + std::to_string(found->parameters.size()) +
                                            " were read from its source (signatures made by macros are not read)");
            for (const auto& parameter : found->parameters)
                if (parameter.name.empty())
                    throw std::invalid_argument("clalgo: RawProgram: kernel '" + name + "': the parameter '" +
                                                parameter.declared + "' could not be read");
        }
        return RawKernel(state_, *found);
    }

    /// The names of the kernels the source defines, in order.
    std::vector<std::string> kernel_names() const {
        std::vector<std::string> names;
        for (const auto& signature : state_->signatures) names.push_back(signature.name);
        return names;
    }

    /// The source as given.
    const std::string& source() const noexcept { return state_->source; }
    /// The source as built for a device of the context (the first by default): the prologue, then the source.
    const std::string& built_source(std::size_t device_index = 0) const { return state_->program.source(device_index); }

private:
    detail::KernelProgram::OnDevice& on_device(const cl::Device& device) const {
        return state_->program.on_device(device);
    }

    std::shared_ptr<detail::RawProgramState> state_;
};

}  // namespace clalgo
