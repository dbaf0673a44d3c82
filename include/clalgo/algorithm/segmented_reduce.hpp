// segmented_reduce: one reduction per segment of an array, segments given by an offsets array (CUB's
// DeviceSegmentedReduce): out[s] = values[offsets[s]] op ... op values[offsets[s+1] - 1], combined left to right
// (the operator must be associative, need not be commutative); an empty segment gives the neutral element.
//   clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0");   // sums.size() == offsets.size() - 1
// The kernels are built once per context and expression; calling again builds nothing.
#pragma once

#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/cl/segmented.cl.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/policy/segments.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

namespace clalgo {

/// What segmented_reduce, reduce_by_key and unique_by_key may add: helper code for the operator, compiler options.
struct SegmentOptions {
    std::string preamble;       ///< OpenCL C helpers the operator and neutral may use
    std::string build_options;  ///< passed to the OpenCL compiler
};

namespace detail {

/// The OpenCL C name of T for `algorithm`'s argument `what`, or std::invalid_argument naming both.
template <class T>
std::string type_for(std::string_view algorithm, std::string_view what) {
    try {
        return type_name<T>();
    } catch (const std::invalid_argument& error) {
        throw std::invalid_argument("clalgo::" + std::string(algorithm) + ": the type of '" + std::string(what) +
                                    "' cannot be used: " + error.what());
    }
}

/// A segmented_reduce launch's scalars, laid out as the template's clalgo_segmented_args_t (one argument: each
/// argument adds to a launch's cost on the host).
struct SegmentedArgs {
    cl_long team_size, segment_count, value_count, offsets_offset, values_offset, out_offset;
};

/// Everything that shapes a segmented kernel's source.
struct SegmentedShape {
    std::string value_type;
    std::string reduce_expr, neutral;
    SegmentOptions options;
    std::string name;

    /// Appends a key that differs wherever the source differs to `text`.
    void append_key(std::string& text) const {
        append_segmented_key(text, value_type, reduce_expr, neutral, options, name.c_str());
    }

    /// The same key from a shape's parts, for a call that has not made a shape.
    static void append_segmented_key(std::string& text, const std::string& value_type, const std::string& reduce_expr,
                                     const std::string& neutral, const SegmentOptions& options, const char* name) {
        for (const std::string* part : {&value_type, &reduce_expr, &neutral, &options.preamble, &options.build_options}) {
            text += *part;
            text += '\0';
        }
        text += name;
        text += '\0';
    }
};

/// The segmented kernel of one shape, built for every device of a context.
class SegmentedReduceKernel {
public:
    SegmentedReduceKernel(const Context& context, SegmentedShape shape)
        : shape_(std::move(shape)) {
        const std::size_t value_size = type_size(shape_.value_type);
        auto generate = [&](const DeviceInfo& info) {
            const auto policy = segmented_reduce_policy(info, value_size);
            policies_[&info] = policy;  // the launches use the policy the source was made with
            return render(cl_source::segmented_reduce,
                          {{"prologue", library_text(program_prologue(info, {shape_.value_type}))},
                           {"preamble", user_text("preamble", shape_.options.preamble)},
                           {"value_type", library_text(shape_.value_type)},
                           {"group_size", library_text(std::to_string(policy.group_size))},
                           {"items", library_text(std::to_string(policy.items))},
                           {"warp_shuffle", library_text(policy.warp_shuffle ? "1" : "0")},
                           {"warp_shuffle_functions", library_text(cl_source::warp_shuffle)},
                           {"neutral", user_text("neutral", shape_.neutral)},
                           {"reduce_expr", user_text("reduce_expr", shape_.reduce_expr)},
                           {"name", library_text(shape_.name)},
                           {"signature", library_text(signature_.text())}});
        };
        std::vector<std::string> types{shape_.value_type};
        program_ = KernelProgram(context, generate, shape_.options.build_options,
                                 BuildLabel{shape_.name, {{"reduce_expr", shape_.reduce_expr}, {"neutral", shape_.neutral},
                                                          {"preamble", shape_.options.preamble}}},
                                 types, {shape_.name});
    }

    /// `segments` segments [offsets[s], offsets[s+1]) of `values` (value_count of them) into `out`.
    /// `average_length`: the segments' expected length, which sets how many work-items fold each.
    Event enqueue(const Queue& queue, std::int64_t average_length, std::int64_t segments,
                  const ArrayView<std::int64_t>& offsets, const cl::Buffer& values, std::size_t values_offset,
                  std::int64_t value_count, const cl::Buffer& out, std::size_t out_offset) const {
        auto& on = program_.on(queue);
        const auto policy = policies_.at(on.info);
        const std::size_t lanes = policy.team_size(average_length);
        SegmentedArgs args{};
        args.team_size = static_cast<cl_long>(lanes);
        args.segment_count = segments;
        args.value_count = value_count;
        args.offsets_offset = static_cast<cl_long>(offsets.offset());
        args.values_offset = static_cast<cl_long>(values_offset);
        args.out_offset = static_cast<cl_long>(out_offset);
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        KernelSlot& slot = on.slot(shape_.name);
        cl::Kernel& kernel = slot.kernel;
        KernelArguments(kernel, signature_, &slot.memo)
            .set("clalgo_args", args)
            .set("clalgo_offsets", offsets.buffer())
            .set("clalgo_values", values)
            .set("clalgo_out", out)
            .done();
        const std::size_t groups = policy.groups(segments, average_length);
        return launch(queue, kernel, groups * policy.group_size, policy.group_size, {}, shape_.name.c_str());
    }

    /// The built program, for tools that time its kernel's launch alone (benchmarks/gpu/host_cost.cpp).
    const KernelProgram& program() const noexcept { return program_; }

private:
    Signature signature_{{"const clalgo_segmented_args_t", "clalgo_args"},
                         {"__global const long *", "clalgo_offsets"},
                         {"__global const clalgo_value_t *", "clalgo_values"},
                         {"__global clalgo_value_t *", "clalgo_out"}};
    SegmentedShape shape_;
    std::map<const DeviceInfo*, SegmentedReducePolicy> policies_;
    friend struct ContextCache;
    void release_context() noexcept { program_.release_context(); }
    KernelProgram program_;
};

/// Attached to each context: the segmented kernels by shape.
struct SegmentedCache {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<SegmentedReduceKernel>> kernels;
};

/// The segmented kernel of the shape with these parts, made (from the shape `make` returns) on first use.
template <class Make>
const SegmentedReduceKernel& cached_segmented(const Context& context, const std::string& value_type,
                                              const std::string& reduce_expr, const std::string& neutral,
                                              const SegmentOptions& options, const char* name, const Make& make) {
    // the forced group size and items shape the source too; the key is built in a buffer kept per thread, so
    // that a call allocates nothing to find its kernel
    thread_local std::string key;
    thread_local LastFound<SegmentedReduceKernel> last;
    key.clear();
    SegmentedShape::append_segmented_key(key, value_type, reduce_expr, neutral, options, name);
    append_environment(key, {"CLALGO_SEGMENT_GROUP_SIZE", "CLALGO_SEGMENT_ITEMS"});
    if (const SegmentedReduceKernel* found = last.find(context, key)) return *found;
    auto& cache = context.state().attachment<SegmentedCache>();
    std::lock_guard<std::mutex> lock(cache.mutex);
    // an entry a failed build left empty is built again (and fails again, with its message)
    if (auto found = cache.kernels.find(key); found != cache.kernels.end() && found->second)
        return last.remember(context, key, *found->second);
    auto& slot = cache.kernels[key];
    if (!slot) {
        slot = std::make_shared<SegmentedReduceKernel>(context, make());
        ContextCache::release(*slot);  // the context keeps it: it must not keep the context
    }
    return last.remember(context, key, *slot);
}

inline const SegmentedReduceKernel& cached_segmented(const Context& context, const SegmentedShape& shape) {
    return cached_segmented(context, shape.value_type, shape.reduce_expr, shape.neutral, shape.options,
                            shape.name.c_str(), [&] { return shape; });
}

}  // namespace detail

/// out[s] = the reduction of values[offsets[s] .. offsets[s+1]) with `reduce_expr` (over a and b, a on the
/// left), `neutral` for an empty segment. out.size() must be offsets.size() - 1. Offsets must be ascending and
/// within values (others are clamped into [0, values.size()], never read outside). Asynchronous: returns the event.
template <class V>
Event segmented_reduce(const Queue& queue, const ArrayView<V>& values, const ArrayView<std::int64_t>& offsets,
                       const ArrayView<V>& out, const std::string& reduce_expr, const std::string& neutral,
                       const SegmentOptions& options = {}) {
    if (offsets.size() < 1)
        throw std::invalid_argument("clalgo::segmented_reduce: 'offsets' needs at least one element (segments + 1)");
    if (out.size() != offsets.size() - 1)
        throw std::invalid_argument("clalgo::segmented_reduce: 'out' has " + std::to_string(out.size()) +
                                    " elements but 'offsets' describes " + std::to_string(offsets.size() - 1) +
                                    " segments (out needs offsets.size() - 1)");
    detail::check_same_context("clalgo::segmented_reduce", "values", values.buffer(), queue);
    detail::check_same_context("clalgo::segmented_reduce", "offsets", offsets.buffer(), queue);
    detail::check_same_context("clalgo::segmented_reduce", "out", out.buffer(), queue);
    // a call like this thread's last one finds its kernel with no key built
    thread_local detail::LastCall<detail::SegmentedReduceKernel, 4> last;
    const std::array<std::string_view, 4> texts{reduce_expr, neutral, options.preamble, options.build_options};
    const detail::SegmentedReduceKernel* kernel = last.find(queue.context(), texts, 0);
    if (kernel == nullptr) {
        const std::string value_type = detail::type_for<V>("segmented_reduce", "values");
        kernel = &last.remember(queue.context(), texts, 0,
                                detail::cached_segmented(queue.context(), value_type, reduce_expr, neutral, options,
                                                         "segmented_reduce", [&] {
            return detail::SegmentedShape{value_type, reduce_expr, neutral, options, "segmented_reduce"};
        }));
    }
    const std::int64_t segments = static_cast<std::int64_t>(out.size());
    if (segments == 0) return detail::marker(queue, {});
    return kernel->enqueue(queue, static_cast<std::int64_t>(values.size()) / segments + 1, segments, offsets,
                          values.buffer(), values.offset(), static_cast<std::int64_t>(values.size()), out.buffer(),
                          out.offset());
}

}  // namespace clalgo
