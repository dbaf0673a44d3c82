// MergeSortKernel<Key, Value>: a stable sort of any type (scalars, OpenCL vector types, registered structs) by a
// `less` expression over `a` and `b`, with values that move with their keys where Value is not void. Built once
// at construction, then called any number of times; needs one temporary copy of the data, kept per queue.
//   clalgo::MergeSortKernel<Particle> by_depth(ctx, "a.z < b.z");
//   by_depth(q, particles);                          // in place, equal z keep their order
//   clalgo::MergeSortKernel<float, cl_int> pairs(ctx, "a > b");
//   pairs(q, keys, values);                          // descending keys, values moved with them
#pragma once

#include <clalgo/cl/merge_sort.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/policy/map.hpp>
#include <clalgo/kernels/scratch.hpp>
#include <clalgo/policy/comparison_sort.hpp>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo {

/// What a comparison sort may add to its `less` expression: a name, helper code, compiler options.
struct ComparisonSortOptions {
    std::string preamble;               ///< OpenCL C placed before the kernels: helper functions for `less`
    std::string build_options;          ///< passed to the OpenCL compiler
    std::string name = "merge_sort";    ///< the kernels' name prefix, in build errors and profilers
};

namespace detail {

/// The temporary copies a sort ping-pongs with, kept per queue.
struct MergeSortScratch {
    GrowingBuffer keys;
    GrowingBuffer values;
};

/// The tile and merge kernels' parameters: the size, the run width and outputs per work-item (merge only), and
/// each array as a buffer and an element offset.
inline Signature merge_sort_signature(const std::string& key_type, const std::string& value_type, bool merge) {
    std::vector<Parameter> parameters{{"long", "clalgo_n"}};
    if (merge) parameters.insert(parameters.end(), {{"long", "clalgo_width"}, {"long", "clalgo_items"}});
    auto arrays = [&](const std::string& type, const std::string& name) {
        parameters.insert(parameters.end(), {{"__global const " + type + " *", name + "_in"},
                                             {"long", name + "_in_offset"},
                                             {"__global " + type + " *", name + "_out"},
                                             {"long", name + "_out_offset"}});
    };
    arrays(key_type, "clalgo_keys");
    if (!value_type.empty()) arrays(value_type, "clalgo_values");
    return Signature(std::move(parameters));
}

}  // namespace detail

/// Sorts keys (and values with them, where Value is not void) stably by `less`: a tile sort in local memory,
/// then merge passes that double the sorted runs (see policy/comparison_sort.hpp for the sizes).
template <class Key, class Value = void>
class MergeSortKernel {
    static constexpr bool has_values = !std::is_void_v<Value>;

public:
    /// `less`: an OpenCL C expression over `a` and `b` (both Key) that is true where a goes strictly before b; a
    /// strict weak order. Builds the program for every device of `context` (BuildError where it does not compile).
    MergeSortKernel(const Context& context, const std::string& less, ComparisonSortOptions options = {})
        : options_(std::move(options)),
          key_type_(type_name<Key>()),
          value_type_(value_type_name()),
          tile_signature_(detail::merge_sort_signature(key_type_, value_type_, false)),
          merge_signature_(detail::merge_sort_signature(key_type_, value_type_, true)) {
        detail::check_kernel_name("clalgo::MergeSortKernel", options_.name);
        if (detail::trim(less).empty())
            throw std::invalid_argument("clalgo::MergeSortKernel '" + options_.name + "': an empty less expression");
        std::vector<std::string> types{key_type_};
        if (has_values) types.push_back(value_type_);
        auto generate = [&](const DeviceInfo& info) {
            const ComparisonSortPolicy policy = comparison_sort_policy(info, sizeof(Key), value_bytes());
            policies_.push_back(policy);
            return detail::render(
                detail::cl_source::merge_sort,
                {{"prologue", detail::library_text(detail::program_prologue(info, types))},
                 {"preamble", detail::user_text("preamble", options_.preamble)},
                 {"key_type", detail::library_text(key_type_)},
                 {"value_type", detail::library_text(has_values ? value_type_ : "char")},
                 {"has_values", detail::library_text(has_values ? "1" : "0")},
                 {"tile_size", detail::library_text(std::to_string(policy.tile_size))},
                 {"serial_tile", detail::library_text(policy.serial_tile ? "1" : "0")},
                 {"insertion_run", detail::library_text(std::to_string(policy.insertion_run))},
                 {"less", detail::user_text("less", less)},
                 {"name", detail::library_text(options_.name)},
                 {"tile_signature", detail::library_text(tile_signature_.text())},
                 {"merge_signature", detail::library_text(merge_signature_.text())}});
        };
        const detail::BuildLabel label{options_.name, {{"less", less}, {"preamble", options_.preamble}}};
        program_ = detail::KernelProgram(context, generate, options_.build_options, label, types,
                                         {options_.name + "_tile", options_.name + "_merge"});
    }

    /// Sorts `keys` in place. Asynchronous: the event completes when they are sorted.
    template <class V = Value, class = std::enable_if_t<std::is_void_v<V>>>
    Event operator()(const Queue& queue, const ArrayView<Key>& keys,
                         const std::vector<cl::Event>& wait = {}) const {
        return run(queue, keys, nullptr, wait);
    }

    /// Sorts `keys` in place and moves `values` (as many) with them. Asynchronous, as above.
    template <class V = Value, class = std::enable_if_t<!std::is_void_v<V>>>
    Event operator()(const Queue& queue, const ArrayView<Key>& keys, const ArrayView<V>& values,
                         const std::vector<cl::Event>& wait = {}) const {
        if (keys.size() != values.size())
            throw std::invalid_argument("clalgo::MergeSortKernel '" + options_.name + "': keys has " +
                                        std::to_string(keys.size()) + " elements and values " +
                                        std::to_string(values.size()) + "; they must be as many");
        return run(queue, keys, &values, wait);
    }

    /// The sizes chosen for a device of the context (the first by default).
    const ComparisonSortPolicy& policy(std::size_t device_index = 0) const { return policies_.at(device_index); }
    /// The generated OpenCL C for a device of the context (the first by default).
    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }
    /// What the compiler said building it for a device (warnings; often nothing).
    const std::string& build_log(std::size_t device_index = 0) const { return program_.build_log(device_index); }

private:

    static std::string value_type_name() {
        if constexpr (has_values) return type_name<Value>();
        else return "";
    }
    static std::size_t value_bytes() {
        if constexpr (has_values) return sizeof(Value);
        else return 0;
    }

    /// One array's buffer and offset, as the kernels take them.
    struct Place {
        cl::Buffer buffer;
        cl_long offset;
    };

    void set_arrays(detail::KernelArguments& arguments, const char* name, const Place& in, const Place& out) const {
        const std::string prefix = name;
        arguments.set(prefix + "_in", in.buffer).set(prefix + "_in_offset", in.offset);
        arguments.set(prefix + "_out", out.buffer).set(prefix + "_out_offset", out.offset);
    }

    template <class ValuesPointer>
    Event run(const Queue& queue, const ArrayView<Key>& keys, ValuesPointer values,
              const std::vector<cl::Event>& wait) const {
        const std::int64_t n = static_cast<std::int64_t>(keys.size());
        if (n <= 1) return detail::marker(queue, wait);
        auto& on = program_.on(queue);
        const ComparisonSortPolicy& policy = policies_.at(device_index(on));
        auto& scratch = scratch_.get(queue);
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        scratch.keys.reserve(queue, std::size_t(n) * sizeof(Key));
        if constexpr (has_values) scratch.values.reserve(queue, std::size_t(n) * sizeof(Value));

        const std::int64_t tile = static_cast<std::int64_t>(policy.tile_size);
        int passes = 0;
        for (std::int64_t width = tile; width < n; width *= 2) ++passes;
        // the tile sort writes to the temporary where the passes are odd, so that the last pass ends in `keys`
        const Place data_keys{keys.buffer(), cl_long(keys.offset())};
        const Place temp_keys{scratch.keys.buffer, 0};
        Place data_values{cl::Buffer(), 0}, temp_values{cl::Buffer(), 0};
        if constexpr (has_values) {
            data_values = Place{values->buffer(), cl_long(values->offset())};
            temp_values = Place{scratch.values.buffer, 0};
        }
        bool in_temp = false;  // where the sorted runs are now
        std::vector<cl::Event> after = wait;
        Event done;
        if (tile > 1) {
            in_temp = passes % 2 == 1;
            cl::Kernel& kernel = on.kernel(options_.name + "_tile");
            detail::KernelArguments arguments(kernel, tile_signature_);
            arguments.set("clalgo_n", cl_long(n));
            set_arrays(arguments, "clalgo_keys", data_keys, in_temp ? temp_keys : data_keys);
            if constexpr (has_values)
                set_arrays(arguments, "clalgo_values", data_values, in_temp ? temp_values : data_values);
            arguments.done();
            const std::size_t group =
                policy.serial_tile ? 1 : std::min(policy.tile_group_size, detail::kernel_work_group_size(kernel, on.device));
            const std::size_t groups = detail::divide_up(std::uint64_t(n), std::uint64_t(tile));
            done = detail::launch(queue, kernel, groups * group, group, after, (options_.name + "_tile").c_str());
            after.clear();  // the queue is in order
        } else if (passes % 2 == 1) {
            // no tile sort (elements too large for local memory): start from a copy so the passes end in `keys`
            copy(queue, data_keys, temp_keys, sizeof(Key), n, after);
            if constexpr (has_values) copy(queue, data_values, temp_values, sizeof(Value), n, after);
            done = detail::marker(queue, {});
            after.clear();  // the queue is in order
            in_temp = true;
        }
        cl::Kernel& merge = on.kernel(options_.name + "_merge");
        const std::size_t merge_group =
            std::min(policy.merge_group_size, detail::kernel_work_group_size(merge, on.device));
        for (std::int64_t width = tile; width < n; width *= 2) {
            const std::int64_t items = policy.merge_items_for(n, width);
            detail::KernelArguments arguments(merge, merge_signature_);
            arguments.set("clalgo_n", cl_long(n)).set("clalgo_width", cl_long(width));
            arguments.set("clalgo_items", cl_long(items));
            set_arrays(arguments, "clalgo_keys", in_temp ? temp_keys : data_keys, in_temp ? data_keys : temp_keys);
            if constexpr (has_values)
                set_arrays(arguments, "clalgo_values", in_temp ? temp_values : data_values,
                           in_temp ? data_values : temp_values);
            arguments.done();
            const std::size_t work_items = detail::divide_up(std::uint64_t(n), std::uint64_t(items));
            const std::size_t global = detail::divide_up(work_items, merge_group) * merge_group;
            done = detail::launch(queue, merge, global, merge_group, after, (options_.name + "_merge").c_str());
            after.clear();  // the queue is in order
            in_temp = !in_temp;
        }
        return done;
    }

    static void copy(const Queue& queue, const Place& from, const Place& to, std::size_t element_bytes,
                     std::int64_t n, const std::vector<cl::Event>& wait) {
        detail::enqueue_with_memory_retry(
            queue,
            [&] {
                queue.get().enqueueCopyBuffer(from.buffer, to.buffer, std::size_t(from.offset) * element_bytes,
                                              std::size_t(to.offset) * element_bytes, std::size_t(n) * element_bytes,
                                              detail::wait_list(wait));
            },
            [] { return std::string("copying into a sort's temporary"); });
    }

    std::size_t device_index(const detail::KernelProgram::OnDevice& on) const {
        const auto& devices = program_.devices();
        for (std::size_t k = 0; k < devices.size(); ++k)
            if (devices[k]() == on.device()) return k;
        throw std::logic_error("clalgo: a device without a sort policy");
    }

    ComparisonSortOptions options_;
    std::string key_type_;
    std::string value_type_;
    detail::Signature tile_signature_;
    detail::Signature merge_signature_;
    std::vector<ComparisonSortPolicy> policies_;
    friend struct detail::ContextCache;
    void release_context() noexcept { program_.release_context(); }
    detail::KernelProgram program_;
    mutable detail::PerQueue<detail::MergeSortScratch> scratch_;
};

}  // namespace clalgo
