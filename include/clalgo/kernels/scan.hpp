// GenericScanKernel<T>: PyOpenCL's scan in C++, with InclusiveScanKernel<T> and ExclusiveScanKernel<T> on top.
// `input_expr` gives the item at i, `scan_expr` combines `a` (left) and `b` (right) and may look at
// `across_seg_boundary`, `output_statement` sees i, `item` (the inclusive scan at i), `prev_item` (the item at
// i-1, the neutral element at i = 0 and at segment starts) and `last_item` (the item at n-1).
//   clalgo::GenericScanKernel<std::int64_t> starts(ctx, "const uchar *flags, long *pos",
//       "flags[i]", "a+b", "0", "if (prev_item != item) pos[item-1] = i;");
//   starts(q, flags, pos);
//   clalgo::InclusiveScanKernel<int> cumsum(ctx, "a+b", "0");
//   cumsum(q, in, out);   // in place too: cumsum(q, a, a)
// `scan_expr` must be associative with `neutral` as its identity; it need not be commutative: items are always
// combined left to right. Every call may start from a carry-in (with_carry: a host value or one element of a device
// array). InclusiveScanKernel and ExclusiveScanKernel are in kernels/scan_simple.hpp, included here.
#pragma once

#include <clalgo/cl/compaction.cl.hpp>
#include <clalgo/cl/group.cl.hpp>
#include <clalgo/cl/scan_chained.cl.hpp>
#include <clalgo/cl/scan_look_back.cl.hpp>
#include <clalgo/cl/scan_reduce_then_scan.cl.hpp>
#include <clalgo/cl/scan_serial.cl.hpp>
#include <clalgo/cl/scan_single_pass.cl.hpp>
#include <clalgo/cl/scan_tile.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/checked.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/codegen/source_text.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/policy/map.hpp>
#include <clalgo/policy/scan.hpp>
#include <clalgo/policy/tuned_store.hpp>
#include <clalgo/kernels/reduction.hpp>
#include <clalgo/kernels/scan_call.hpp>
#include <clalgo/kernels/scan_options.hpp>
#include <clalgo/kernels/scratch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <type_traits>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

namespace detail {

/// Scratch memory kept per queue between calls, in one buffer: single pass, the ticket at 0 and the look-back
/// state of up to `tiles_held` tiles at fixed places (so that status words never land on old values); the two-pass
/// algorithms, the runs' partial results.
struct ScanScratch {
    GrowingBuffer memory;
    LookBackEpochs look_back;
    std::vector<unsigned char> call;  ///< the last call's clalgo_scan_call_t, its storage reused
};

/// Whether an expression or statement is heavy to copy into the unrolled load or write loops: it loops, or calls
/// a function that the preamble defines (whose body each copy inlines; built-in functions are not counted).
inline bool heavy_statement(const std::string& statement, const std::string& preamble) {
    if (mentions(statement, "for") || mentions(statement, "while")) return true;
    const std::vector<std::string> calls = called_names(statement);
    if (calls.empty()) return false;
    const std::set<std::string> defined = defined_functions(preamble);
    for (const auto& name : calls)
        if (name != "if" && name != "switch" && name != "return" && name != "sizeof" && defined.count(name)) return true;
    return false;
}

}  // namespace detail


/// A scan of `input_expr` over the indices with `scan_expr` (associative, identity `neutral`, not necessarily
/// commutative), and `output_statement` run at every index with item, prev_item and last_item. Asynchronous.
template <class T>
class GenericScanKernel {
public:
    /// Builds the scan kernels for the declared `arguments` (as in ElementwiseKernel) and the expressions.
    GenericScanKernel(const Context& context, const std::string& arguments, const std::string& input_expr,
                      const std::string& scan_expr, const std::string& neutral, const std::string& output_statement,
                      ScanOptions options = {})
        : GenericScanKernel(context, arguments, input_expr, scan_expr, neutral, output_statement, std::move(options),
                            detail::ScanStages{}) {}

    /// For kernels built on the scan (the library's compaction): the scan with statements of their own.
    GenericScanKernel(const Context& context, const std::string& arguments, const std::string& input_expr,
                      const std::string& scan_expr, const std::string& neutral, const std::string& output_statement,
                      ScanOptions options, detail::ScanStages stages)
        : declarations_(parse_arguments(arguments)), options_(std::move(options)),
          checked_(declarations_, options_.checked), value_type_(stages.value_type.empty() ? type_name<T>() : stages.value_type),
          value_size_(stages.value_type.empty() ? sizeof(T) : stages.value_size) {
        const std::string kernel = "GenericScanKernel '" + options_.name + "'";
        detail::check_kernel_name("clalgo::GenericScanKernel", options_.name);
        // scan_expr is a function of a, b and across_seg_boundary alone, so arguments may take those names; the
        // output statement sees item, prev_item and last_item beside the arguments
        std::vector<std::string> reserved{"i", "n", "item", "prev_item", "last_item"};
        for (const auto& fetch : options_.input_fetch_exprs) reserved.push_back(fetch.name);
        detail::reject_reserved_names(declarations_, reserved, kernel);
        segmented_ = !detail::trim(options_.is_segment_start_expr).empty();
        uses_last_item_ = detail::mentions(output_statement, "last_item");
        if (uses_last_item_ && (options_.algorithm == ScanAlgorithm::single_pass || options_.algorithm == ScanAlgorithm::chained))
            throw std::invalid_argument("clalgo: " + kernel +
                                        ": an output_statement that uses last_item needs the total before any output, "
                                        "which the " + std::string(options_.algorithm == ScanAlgorithm::chained ? "chained" : "single-pass") +
                                        " algorithm cannot give");
        if (options_.compaction) stages = detail::compaction_stages(declarations_, *options_.compaction, segmented_, kernel);
        launch_at_zero_ = stages.needs_launch_at_zero;
        {
            std::vector<std::string> code{input_expr, output_statement, options_.is_segment_start_expr,
                                          options_.preamble, stages.item_statement.text, stages.total_statement.text,
                                          stages.kept_statement.text, stages.rejected_statement.text};
            // an input fetch reads its argument at i (or i - 1, kept within the call's indices)
            for (const auto& fetch : options_.input_fetch_exprs) code.push_back(fetch.argument + "[i]");
            indexed_ = detail::indexed_by_launch_index(declarations_, code);
            composed_ = !stages.item_statement.text.empty();
        }
        // the ballot path (and the chained one's bit words) count 0/1 inputs: only for a compaction that says so
        // and nothing else
        const bool bits_compaction = !stages.kept_statement.text.empty() && detail::trim(output_statement).empty() &&
                                     !segmented_ && stages.value_type.empty() && std::is_integral_v<T> &&
                                     (sizeof(T) == 4 || sizeof(T) == 8);
        // NVIDIA's ballots place kept items only; CPUs' words of bits place rejected ones too (partition)
        const bool ballot_compaction = bits_compaction && stages.rejected_statement.text.empty();

        std::string function_parameters, function_arguments;
        for (const auto& declaration : declarations_) {
            function_parameters += ", " + (declaration.is_array ? "__global " + detail::qualifiers(declaration) +
                                                                      declaration.type + " *" + declaration.name
                                                                : "const " + declaration.type + " " + declaration.name);
            function_arguments += ", " + declaration.name;
        }
        function_parameters += checked_.function_parameters();
        function_arguments += checked_.function_arguments();
        const auto fetches = detail::input_fetch_text(declarations_, options_.input_fetch_exprs, kernel);

        std::vector<std::string> types{value_type_};
        for (const auto& declaration : declarations_) types.push_back(declaration.type);
        layout_ = detail::ScanCallLayout(declarations_, !stages.without_total, value_size_);
        signature_ = layout_.signature();
        in_struct_ = layout_.in_struct();
        const std::string parameters = layout_.parameters() + checked_.parameters();

        auto generate = [&](const DeviceInfo& info) {
            OnDevice on;
            on.plan = detail::scan_policy(info, detail::ScanTraits{value_size_, segmented_, uses_last_item_,
                                                                    ballot_compaction, options_.algorithm,
                                                                    !stages.value_type.empty()},
                                          detail::tuned_values(info));
            const detail::ScanPlan& plan = on.plan;
            const std::string status_type = plan.packed_status ? "ulong" : plan.wide_packed_status ? "ulong2" : "uint";
            std::string pattern = detail::cl_source::scan_tile;
            if (plan.algorithm == ScanAlgorithm::single_pass) {
                pattern += detail::cl_source::scan_look_back;
                pattern += plan.ballot_compaction ? detail::cl_source::compaction_ballot
                                                  : detail::cl_source::scan_single_pass;
                on.first_kernel = options_.name + (plan.ballot_compaction ? "_compact" : "_single_pass");
            } else if (plan.algorithm == ScanAlgorithm::chained) {
                pattern += detail::cl_source::scan_look_back;
                if (!bits_compaction) pattern += detail::cl_source::scan_blocks;  // the compaction folds by bits
                pattern += detail::cl_source::scan_chain_prefix;
                pattern += bits_compaction ? detail::cl_source::compaction_chained : detail::cl_source::scan_chained;
                on.first_kernel = options_.name + "_chained";
            } else {
                const bool tiled = plan.algorithm == ScanAlgorithm::reduce_then_scan;
                if (tiled) pattern += detail::cl_source::scan_reduce_then_scan;
                else pattern += std::string(detail::cl_source::scan_blocks) + detail::cl_source::scan_serial;
                on.first_kernel = options_.name + (tiled ? "_reduce_tiles" : "_reduce_blocks");
                on.second_kernel = options_.name + (tiled ? "_scan_tiles" : "_scan_blocks");
            }
            std::map<std::string, detail::Fill> fills{
                {"prologue", detail::library_text(detail::program_prologue(info, types) + checked_.helpers())},
                {"preamble", detail::user_text("preamble", options_.preamble)},
                {"value_type", detail::library_text(value_type_)},
                {"group_size", detail::library_text(std::to_string(plan.group_size))},
                {"items_per_thread", detail::library_text(std::to_string(plan.items))},
                // the chained compaction holds a block's bits (one word a 64 items), up to 32 KiB a work-item
                {"held_words", detail::library_text(std::to_string(
                                   std::clamp<std::size_t>((plan.block_items + 63) / 64, 1, 4096)))},
                {"segmented", detail::library_text(segmented_ ? "1" : "0")},
                {"warp_shuffle", detail::library_text(plan.warp_shuffle ? "1" : "0")},
                {"nvidia", detail::library_text(plan.device_fence_ptx ? "1" : "0")},
                {"packed_status", detail::library_text(plan.packed_status ? "1" : plan.wide_packed_status ? "2" : "0")},
                {"status_type", detail::library_text(status_type)},
                {"uses_last_item", detail::library_text(uses_last_item_ ? "1" : "0")},
                {"neutral", detail::user_text("neutral", neutral)},
                {"scan_expr", detail::user_text("scan_expr", scan_expr)},
                {"input_expr", detail::user_text("input_expr", checked_.text(input_expr))},
                {"is_segment_start_expr", detail::user_text("is_segment_start_expr",
                                                            segmented_ ? checked_.text(options_.is_segment_start_expr) : "false")},
                {"output_statement", detail::user_text("output_statement", checked_.text(output_statement))},
                {"unroll_input", detail::library_text(detail::heavy_statement(input_expr, options_.preamble) ||
                                                              (segmented_ && detail::heavy_statement(options_.is_segment_start_expr,
                                                                                                     options_.preamble))
                                                          ? "0" : "1")},
                {"unroll_output", detail::library_text(detail::heavy_statement(output_statement, options_.preamble) ? "0" : "1")},
                {"item_statement", stages.item_statement},
                {"total_statement", stages.total_statement},
                {"kept_statement", stages.kept_statement},
                {"rejected_statement", stages.rejected_statement},
                {"places_rejected", detail::library_text(stages.rejected_statement.text.empty() ? "0" : "1")},
                {"warp_shuffle_functions", detail::library_text(detail::cl_source::warp_shuffle)},
                {"function_parameters", detail::library_text(function_parameters)},
                {"function_arguments", detail::library_text(function_arguments)},
                {"name", detail::library_text(options_.name)},
                {"call_struct", detail::library_text(layout_.definition())},
                {"signature", detail::library_text(signature_.text())},
                {"reduce_signature", detail::library_text(signature_.text())},
                {"scan_signature", detail::library_text(signature_.text())},
                {"parameters", detail::library_text(parameters)},
                {"array_pointers", detail::library_text(layout_.unpack("single_pass", status_type))},
                {"chained_unpack", detail::library_text(layout_.unpack("chained", status_type))},
                {"reduce_unpack", detail::library_text(layout_.unpack("reduce", status_type))},
                {"scan_unpack", detail::library_text(layout_.unpack("scan", status_type))}};
            for (const auto& [hole, text] : fetches) fills[hole] = detail::library_text(text);
            on_device_.push_back(std::move(on));
            return detail::render(pattern, fills);
        };
        program_ = detail::KernelProgram(
            context, generate, options_.build_options,
            detail::BuildLabel{options_.name,
                               {{"input_expr", input_expr}, {"scan_expr", scan_expr}, {"neutral", neutral},
                                {"output_statement", output_statement},
                                {"is_segment_start_expr", options_.is_segment_start_expr},
                                {"preamble", options_.preamble}}},
            types, {});  // the algorithm's kernels are made on first use
    }

    /// Scans over the first array's indices, or over a clalgo::range among the arguments. Asynchronous: returns
    /// the event of the last launch.
    template <class... Args>
    Event operator()(const Queue& queue, const Args&... arguments) const {
        return enqueue(queue, nullptr, nullptr, arguments...);
    }

    /// Like operator(), and writes the scan's total (the item at n-1; the neutral element where n = 0) into
    /// `total` (one element), on the device.
    template <class... Args>
    Event with_total(const Queue& queue, const ArrayView<T>& total, const Args&... arguments) const {
        return enqueue(queue, &total, nullptr, arguments...);
    }

    /// Like operator(), from a carry-in (CarryIn: a host value, or one element of a device array) combined on
    /// the left of every item, as if it came just before the first index; the operator need not commute.
    template <class... Args>
    Event with_carry(const Queue& queue, const CarryIn<T>& carry, const Args&... arguments) const {
        return enqueue(queue, nullptr, &carry, arguments...);
    }

    /// with_carry and with_total at once: the total includes the carry-in.
    template <class... Args>
    Event with_carry_and_total(const Queue& queue, const CarryIn<T>& carry, const ArrayView<T>& total,
                               const Args&... arguments) const {
        return enqueue(queue, &total, &carry, arguments...);
    }

    /// The parsed argument declarations.
    const std::vector<ArgumentDeclaration>& arguments() const noexcept { return declarations_; }
    /// The generated OpenCL C for a device of the context (the first by default).
    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }
    /// What the compiler said building it for a device (warnings; often nothing).
    const std::string& build_log(std::size_t device_index = 0) const { return program_.build_log(device_index); }
    /// The algorithm chosen for a device of the context.
    ScanAlgorithm algorithm(std::size_t device_index = 0) const { return on_device_.at(device_index).plan.algorithm; }
    /// True where the device counts kept items by warp ballots (a compaction on NVIDIA).
    bool counts_by_ballots(std::size_t device_index = 0) const { return on_device_.at(device_index).plan.ballot_compaction; }

private:
    /// What a device's program needs at launch: its plan, its kernels' names and their library parameters.
    struct OnDevice {
        detail::ScanPlan plan;
        std::string first_kernel, second_kernel;  ///< single pass: only the first
    };

    const OnDevice& on_device(const detail::KernelProgram::OnDevice& on) const {
        for (std::size_t d = 0; d < program_.devices().size(); ++d)
            if (program_.devices()[d]() == on.device()) return on_device_.at(d);
        throw std::logic_error("clalgo: no scan plan for the device");
    }

    template <class... Args>
    Event enqueue(const Queue& queue, const ArrayView<T>* total, const CarryIn<T>* carry, const Args&... arguments) const {
        if (total && total->size() != 1)
            throw std::invalid_argument("clalgo: " + options_.name + ": 'total' has " + std::to_string(total->size()) +
                                        " elements but must have one");
        if (total) detail::check_same_context(options_.name, "total", total->buffer(), queue);
        if (carry && carry->element())
            detail::check_same_context(options_.name, "carry-in", carry->element()->buffer(), queue);
        if (total && !layout_.total_parameter())
            throw std::logic_error("clalgo: " + options_.name + " was built without a total (ScanStages::without_total)");
        if (carry && value_type_ != type_name<T>())
            throw std::logic_error("clalgo: " + options_.name + ": its values are not of the kernel's type; no carry-in");
        detail::CallOptions call;
        const detail::KeptArguments kept;  // bound in place, in a vector the thread keeps
        auto& bound = detail::bind_call(kept.get(), queue, call, arguments...);
        return enqueue_bound(queue, total, call.range, bound, call.wait, carry);
    }

public:
    /// For algorithms built on the scan, whose arguments are known only at run time: the call with its
    /// arguments already bound, checked here like any call (a scalar of another type that converts exactly is
    /// converted in `bound`).
    Event enqueue_bound(const Queue& queue, const ArrayView<T>* total, const std::optional<IndexRange>& range,
                        std::vector<detail::BoundArgument>& bound, const std::vector<cl::Event>& wait,
                        const CarryIn<T>* carry = nullptr) const {
        detail::check_arguments(options_.name, declarations_, bound);
        const IndexRange indices = detail::call_indices(options_.name, range, bound);
        detail::check_call_arrays(options_.name, declarations_, bound, indexed_, queue, indices, composed_);
        const std::int64_t n = indices.size();
        if (n == 0 && total == nullptr && !launch_at_zero_) return detail::marker(queue, wait);
        const detail::Violations violations(checked_.on(), queue);
        Event done = launch_all(queue, total, carry, indices, bound, wait, violations.buffer());
        violations.throw_if_any(queue, done, options_.name, declarations_, bound);
        return done;
    }

private:
    /// One command per call where the plan allows (single pass and chained: the look-back state needs no reset
    /// between calls, its status words carry the call's epoch), two for the two-pass algorithms, with no event
    /// between them on the in-order queue; only the last command makes the returned event.
    Event launch_all(const Queue& queue, const ArrayView<T>* total, const CarryIn<T>* carry,
                     const IndexRange& indices, const std::vector<detail::BoundArgument>& bound,
                     const std::vector<cl::Event>& wait, const cl::Buffer* violations) const {
        const std::int64_t n = indices.size();
        auto& program = program_.on(queue);
        const OnDevice& device = on_device(program);
        const detail::ScanPlan& plan = device.plan;
        std::lock_guard<std::mutex> lock(*program.launch_mutex);
        auto& scratch = scratch_.get(queue);
        detail::ScanCallScalars call;
        call.start = static_cast<cl_long>(indices.start);
        call.step = static_cast<cl_long>(indices.step);
        call.n = static_cast<cl_long>(n);
        if (total) call.total_offset = static_cast<cl_long>(total->offset());
        const cl::Buffer no_total;
        const cl::Buffer& total_buffer = total ? total->buffer() : no_total;
        const char* what = options_.name.c_str();
        constexpr std::uint64_t align = 128;  // every region starts aligned for any value type
        auto round_up = [&](std::uint64_t bytes) { return detail::divide_up(bytes, align) * align; };
        const T* carry_value = carry ? carry->value() : nullptr;
        const ArrayView<T>* carry_element = carry ? carry->element() : nullptr;
        call.carry_kind = carry_value ? detail::carry_in_struct : carry_element ? detail::carry_in_scratch : detail::no_carry;
        call.carry_at = static_cast<cl_long>(align);  // after the ticket
        // a carry-in on the device is copied into the scratch buffer first: the same queue, in order
        const std::vector<cl::Event>* kernel_waits = &wait;
        const std::vector<cl::Event> none;
        auto copy_carry = [&] {
            if (!carry_element) return;
            detail::enqueue_with_memory_retry(
                queue,
                [&] {
                    queue.get().enqueueCopyBuffer(carry_element->buffer(), scratch.memory.buffer,
                                                  carry_element->offset() * sizeof(T), call.carry_at, sizeof(T),
                                                  detail::wait_list(wait), nullptr);
                },
                [&] { return "copying the carry-in of " + options_.name; });
            kernel_waits = &none;
        };
        auto set = [&](detail::KernelSlot& slot) {
            layout_.pack(scratch.call, call, bound, carry_value);
            detail::KernelArguments arguments(slot.kernel, signature_, &slot.memo);
            arguments.set_bytes("clalgo_call", scratch.call).set("clalgo_memory", scratch.memory.buffer);
            if (layout_.total_parameter()) arguments.set("clalgo_total_base", total_buffer);
            arguments.user_outside_struct(bound, in_struct_, violations);
        };

        const bool chained = plan.algorithm == ScanAlgorithm::chained;
        if (plan.algorithm == ScanAlgorithm::single_pass || chained) {
            // chained: the blocks are its tiles, taken by work-items of one
            const std::uint64_t tile = chained ? plan.chained_block(static_cast<std::uint64_t>(n)) : plan.tile();
            const std::uint64_t tiles = std::max<std::uint64_t>(1, detail::divide_up(static_cast<std::uint64_t>(n), tile));
            if (tiles + (chained ? plan.max_groups : 0) > 0xffffffffull)  // chained: tickets run past the blocks
                throw std::invalid_argument("clalgo: " + options_.name + ": too many tiles for one scan");
            const bool packed = plan.packed_status || plan.wide_packed_status;
            const std::uint64_t word = plan.packed_status ? 8 : plan.wide_packed_status ? 16 : 4;
            // ticket | carry-in | status words | (values apart from their status) aggregates | inclusives, for
            // tiles_held tiles
            const bool relaid = scratch.look_back.hold(tiles, scratch.memory);
            const std::uint64_t held = scratch.look_back.tiles_held;
            call.status_at = call.carry_at + static_cast<cl_long>(round_up(value_size_));
            call.aggregates_at = call.status_at + static_cast<cl_long>(round_up(held * word));
            call.inclusives_at = call.aggregates_at + static_cast<cl_long>(packed ? 0 : round_up(held * value_size_));
            const std::uint64_t bytes = static_cast<std::uint64_t>(call.inclusives_at) + (packed ? 0 : held * value_size_);
            call.epoch = scratch.look_back.begin_call(queue, scratch.memory, static_cast<std::size_t>(bytes), relaid);
            call.tiles = static_cast<cl_uint>(tiles);
            // chained: as many work-items as run at once (the blocks' totals pass from one to the next), each
            // taking blocks until none is left
            const std::uint64_t groups = chained ? std::max<std::uint64_t>(1, std::min<std::uint64_t>(plan.max_groups, tiles)) : tiles;
            call.units_per_group = chained ? static_cast<cl_long>(tile) : 0;
            call.groups = static_cast<cl_long>(groups);
            copy_carry();
            detail::KernelSlot& slot = program.slot(device.first_kernel);
            set(slot);
            return detail::launch(queue, slot.kernel, static_cast<std::size_t>(groups) * plan.group_size,
                                  plan.group_size, *kernel_waits, what);
        }

        // reduce then scan, by tiles (GPUs) or by serial blocks (CPUs)
        const std::uint64_t unit = plan.algorithm == ScanAlgorithm::reduce_then_scan ? plan.tile() : 1;
        const std::uint64_t units = detail::divide_up(static_cast<std::uint64_t>(n), unit);
        const std::uint64_t groups_wanted = std::max<std::uint64_t>(1, std::min<std::uint64_t>(plan.max_groups, units));
        const std::uint64_t units_per_group = std::max<std::uint64_t>(1, detail::divide_up(units, groups_wanted));
        const std::uint64_t groups = std::max<std::uint64_t>(1, detail::divide_up(units, units_per_group));
        call.units_per_group = static_cast<cl_long>(units_per_group);
        call.groups = static_cast<cl_long>(groups);
        call.runs_at = call.carry_at + static_cast<cl_long>(round_up(value_size_));
        call.run_flags_at = call.runs_at + static_cast<cl_long>(round_up(groups * value_size_));
        scratch.memory.reserve(queue, static_cast<std::size_t>(call.run_flags_at + groups * sizeof(cl_uint)));
        copy_carry();
        if (n > 0) {
            detail::KernelSlot& reduce = program.slot(device.first_kernel);
            set(reduce);
            detail::enqueue_launch(queue, reduce.kernel, groups * plan.group_size, plan.group_size, *kernel_waits, what,
                                   nullptr);
            kernel_waits = &none;  // the queue is in order
        }
        detail::KernelSlot& scan = program.slot(device.second_kernel);
        set(scan);
        return detail::launch(queue, scan.kernel, groups * plan.group_size, plan.group_size, *kernel_waits, what);
    }

    detail::ScanCallLayout layout_;
    detail::Signature signature_{};
    std::vector<bool> in_struct_;      ///< the user's scalars that travel in clalgo_scan_call_t
    std::vector<ArgumentDeclaration> declarations_;
    std::vector<bool> indexed_;        ///< arrays the code indexes only at [i]: checked to hold every index
    bool composed_ = false;            ///< stages of a kernel built on the scan: its outputs may have no room
    ScanOptions options_;
    detail::Checked checked_;          ///< checked mode's parts of the source; nothing where it is off
    std::string value_type_;
    std::size_t value_size_;           ///< bytes of a scanned value on the device
    bool segmented_ = false;
    bool uses_last_item_ = false;
    bool launch_at_zero_ = false;      ///< a stage writes something (a count) even when there are no items
    std::vector<OnDevice> on_device_;  ///< one per device of the context, in its order
    friend struct detail::ContextCache;
    void release_context() noexcept { program_.release_context(); }
    detail::KernelProgram program_;
    mutable detail::PerQueue<detail::ScanScratch> scratch_;
};

}  // namespace clalgo

#include <clalgo/kernels/scan_simple.hpp>
