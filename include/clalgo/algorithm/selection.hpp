// What copy_if, remove_if, partition and unique share: the call of the compaction kernel (kernels/compaction.hpp),
// which writes each kept item to its place. Named extra arguments for predicates, the result type (the kept items and their
// count, on the device and readable on the host), and the call of the compaction kernel, kept with the context
// so that calling an algorithm again with the same expressions builds nothing and hashes no source.
//   clalgo::SelectionOptions options;  options.extra_args = {clalgo::Argument("threshold", 7)};
//   auto [kept, count] = clalgo::copy_if(q, values, "ary[i] > threshold", options);
//   std::int64_t how_many = count.get(q);   // kept.view(0, how_many) holds them, in order
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/code_shape.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/algorithm/kernel_cache.hpp>
#include <clalgo/kernels/compaction.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace clalgo {

/// A named extra argument a predicate can use: a scalar (number, vector type, registered struct) or an array.
class Argument {
public:
    template <class V>
    /// An argument named `name` holding `value` (a scalar or an array).
    Argument(std::string name, const V& value) : name_(std::move(name)), bound_(detail::bind(value)) {
        detail::check_name("clalgo::Argument", "argument name", name_);
        if constexpr (detail::IsArray<V>::value) buffer_ = value.buffer();  // the bound argument only borrows it
    }
    /// Its declaration, as in a kernel's argument list ("int threshold", "const float *weights").
    std::string declaration() const {
        return bound_.is_array ? "const " + bound_.type + " *" + name_ : bound_.type + " " + name_;
    }
    /// The name the predicate uses.
    const std::string& name() const noexcept { return name_; }
    /// The value, bound as a kernel argument.
    const detail::BoundArgument& bound() const noexcept { return bound_; }

private:
    std::string name_;
    detail::BoundArgument bound_;
    cl::Buffer buffer_;  ///< an array's buffer, held as long as the options are
};

/// What copy_if, remove_if, partition and unique may add to a predicate: extra arguments, helper code, compiler
/// options, what to write over a range, the room for results, the scan algorithm.
struct SelectionOptions {
    std::vector<Argument> extra_args;  ///< names the predicate may use beside ary, i and n
    std::string preamble;              ///< OpenCL C helpers for the predicate
    /// Passed to the OpenCL compiler.
    std::string build_options;
    /// Over an index range: what to write for each kept index (an expression of i; default: i itself).
    std::string value_expr = "i";
    /// Room for at most this many kept items (default: as many as the input); the count is exact either way.
    std::optional<std::int64_t> capacity;
    /// The scan algorithm (automatic: the device's policy chooses).
    ScanAlgorithm algorithm = ScanAlgorithm::automatic;
};

/// How many items an algorithm kept: on the device (a one-element array, for the next kernel without a round
/// trip) and, on request, on the host.
struct DeviceCount {
    /// The count, in a one-element device array.
    Array<std::int64_t> device;
    Event event;  ///< completes when the count is written

    /// Waits for the count and reads it.
    std::int64_t get(const Queue& queue) const { return device.read_at(queue, 0, detail::wait_list_for(queue, event)); }
};

/// The items an algorithm kept, in their original order: the first count.get(q) elements of `values`.
template <class T>
struct Selection {
    /// The kept items, in their original order (the first count.get(q) elements).
    Array<T> values;
    /// How many items were kept.
    DeviceCount count;
};

/// partition's result: the kept items and the rejected ones, each in their original order.
template <class T>
struct Partition {
    Array<T> kept;      ///< the first count.get(q) elements
    Array<T> rejected;  ///< the first (size - count) elements
    /// How many items were kept.
    DeviceCount count;
};

namespace detail {

/// The input of a selection: an array, or an index range whose kept indices map to `Value`s.
template <class Value>
struct SelectionInput {
    std::optional<ArrayView<Value>> array;
    IndexRange indices;
    std::int64_t size() const { return array ? static_cast<std::int64_t>(array->size()) : indices.size(); }
};

inline std::string extra_declarations(const SelectionOptions& options) {
    std::string text;
    for (const auto& extra : options.extra_args) text += ", " + extra.declaration();
    return text;
}

/// Runs a selection: `keep` is the test of item i (or, with `run_equality`, the first items of runs are kept). Kept items go to the first output, rejected ones (for
/// partition) to the second, each with room for `capacity` items; the count goes to `count`.
template <class Value, class... Outputs>
Event run_selection(const Queue& queue, const SelectionInput<Value>& input, const std::string& keep,
                    Placement placement, const std::string& run_equality, const SelectionOptions& options,
                    const std::string& name, std::int64_t capacity, const ArrayView<std::int64_t>& count,
                    const Outputs&... outputs) {
    if (count.size() != 1)
        throw std::invalid_argument("clalgo: " + name + ": 'count' has " + std::to_string(count.size()) +
                                    " elements but must have one");
    // checked here too: with no input the count is written without a kernel, whose checks would have named it
    check_same_context(name, "count", count.buffer(), queue);
    // the user's code is checked before a kernel is made of it; a kernel found in the cache was made of the same
    // text (the key holds it), so a call like an earlier one does not scan it again
    auto check_code = [&] {
        check_user_code(name, "predicate", keep);
        check_user_code(name, "is_equal_expr", run_equality);
        check_user_code(name, "value_expr", options.value_expr);
        check_user_code(name, "preamble", options.preamble);
    };
    const std::int64_t n = input.size();
    if (n == 0) {
        check_code();
        return count.fill(queue, 0);
    }
    auto spec = [&] {
        CompactionSpec made;
        made.name = name;
        made.value_type = type_name<Value>();
        made.array_input = input.array.has_value();
        made.placement = placement;
        made.keep = keep;
        made.value_expr = options.value_expr;
        made.run_equality = run_equality;
        made.extra_declarations = extra_declarations(options);
        made.preamble = options.preamble;
        made.build_options = options.build_options;
        made.algorithm = options.algorithm;
        return made;
    };

    const std::optional<IndexRange> indices = input.array ? std::nullopt : std::optional<IndexRange>(input.indices);

    // 32-bit counts where they suffice: the scan's status words then pack value and flag into one word
    auto run = [&](auto count_type) {
        using Count = decltype(count_type);
        // a call like this thread's last one (no extra arguments) finds its kernel with no spec or key built
        thread_local LastCall<CompactionKernel<Count>, 6> last;
        const std::array<std::string_view, 6> texts{name, keep, run_equality, options.value_expr, options.preamble,
                                                    options.build_options};
        const std::uint64_t flags = std::uint64_t(input.array.has_value()) | std::uint64_t(placement) << 1 |
                                    std::uint64_t(options.algorithm) << 8;
        const bool plain = options.extra_args.empty();
        const CompactionKernel<Count>* found = plain ? last.find(queue.context(), texts, flags) : nullptr;
        if (found == nullptr) {
            const CompactionSpec made = spec();
            thread_local std::string key;  // kept: a call allocates nothing for its key
            key.clear();
            made.append_key(key, std::is_same_v<Count, cl_uint> ? "compaction uint" : "compaction ulong");
            found = &cached_kernel<CompactionKernel<Count>>(queue.context(), key, [&] {
                check_code();
                return std::make_shared<CompactionKernel<Count>>(queue.context(), made);
            });
            if (plain) last.remember(queue.context(), texts, flags, *found);
        }
        // bound in place in a vector the thread keeps, so that a call builds no strings and allocates nothing for
        // its arguments
        const KeptArguments kept;
        auto& bound = kept.get();
        bound.resize((input.array ? 3 : 2) + sizeof...(Outputs) + options.extra_args.size());
        std::size_t k = 0;
        if (input.array) bind_into(bound[k++], *input.array);
        (bind_into(bound[k++], outputs), ...);
        bind_into(bound[k++], count);
        bind_into(bound[k++], static_cast<cl_long>(capacity));
        for (const auto& extra : options.extra_args) bound[k++] = extra.bound();
        return found->enqueue(queue, indices, bound, {});
    };
    if (n <= 0xffffffffll) return run(cl_uint{});
    return run(cl_ulong{});
}

/// Allocates a result with room for options.capacity (default: all) items and runs the selection into it.
template <class Result, class Value>
Result select_into_new(const Queue& queue, const SelectionInput<Value>& input, const std::string& keep,
                       Placement placement, const std::string& run_equality, const SelectionOptions& options,
                       const std::string& name) {
    const std::int64_t room = options.capacity.value_or(input.size());
    if (room < 0) throw std::invalid_argument("clalgo: " + name + ": a negative capacity");
    DeviceCount count{Array<std::int64_t>(queue, 1, detail::pooled_in_queue_order), Event()};
    if constexpr (std::is_same_v<Result, Partition<Value>>) {
        Array<Value> kept(queue, static_cast<std::size_t>(room), detail::pooled_in_queue_order),
            rejected(queue, static_cast<std::size_t>(room), detail::pooled_in_queue_order);
        count.event = run_selection<Value>(queue, input, keep, placement, run_equality, options, name, room,
                                           count.device, kept, rejected);
        return Result{std::move(kept), std::move(rejected), std::move(count)};
    } else {
        Array<Value> values(queue, static_cast<std::size_t>(room), detail::pooled_in_queue_order);
        count.event = run_selection<Value>(queue, input, keep, placement, run_equality, options, name, room,
                                           count.device, values);
        return Result{std::move(values), std::move(count)};
    }
}

}  // namespace detail
}  // namespace clalgo
