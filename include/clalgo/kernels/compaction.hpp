// Stream compaction, the kernel under copy_if, remove_if, partition and unique: a scan of 0/1 "keep" flags
// composed with the writes of the kept items (and, for a partition, of the rejected ones). The kernel writes
// its own argument list and statements, so it knows, without reading the user's text, that its scan is a sum
// of 0/1 flags: kept items are counted by warp ballots on NVIDIA (not for a partition, which places the rejected
// items too) and by words of bits on CPUs (compaction.cl.hpp).
//   detail::CompactionSpec spec;  spec.value_type = "int";  spec.keep = "ary[i] > 0";  spec.array_input = true;
//   const detail::CompactionKernel<cl_uint> kernel(ctx, spec);
//   std::vector<detail::BoundArgument> bound{bind(in), bind(out), bind(count), bind(cl_long(capacity))};
//   kernel.enqueue(q, std::nullopt, bound, {});
#pragma once

#include <clalgo/kernels/scan.hpp>

#include <optional>
#include <string>
#include <vector>

namespace clalgo::detail {

/// How a compaction places the items: kept ones only, contiguously (copy_if, unique), or kept ones and rejected
/// ones, each contiguously (partition).
enum class Placement { kept, kept_and_rejected };

/// Everything that shapes a compaction kernel's source.
struct CompactionSpec {
    std::string name = "compaction";
    std::string value_type;         ///< OpenCL C type of the items written
    bool array_input = true;        ///< over `const value_type *ary` (else over an index range)
    Placement placement = Placement::kept;
    std::string keep;               ///< the user's test of item i (a predicate over i, n, ary and the extra arguments)
    std::string value_expr = "i";   ///< over an index range: the value written for a kept index (the user's)
    /// Set: keep the first item of every run of items equal by this expression over `a` and `b` (unique);
    /// `keep` is not used.
    std::string run_equality;
    std::string extra_declarations; ///< ", int threshold, ...": the user's extra arguments
    std::string preamble;
    std::string build_options;
    ScanAlgorithm algorithm = ScanAlgorithm::automatic;

    /// The arguments a call binds, in order: [ary,] selected, [rejected,] selected_count, selection_capacity,
    /// then the extra arguments (the kernel adds its own after them).
    std::string arguments() const {
        std::string text = array_input ? "const " + value_type + " *ary, " : "";
        text += value_type + " *selected";
        if (placement == Placement::kept_and_rejected) text += ", " + value_type + " *rejected";
        text += ", long *selected_count, long selection_capacity" + extra_declarations;
        if (runs_over_range()) text += ", long selection_run_step";
        return text;
    }

    /// unique over an index range: the value before i is at i - step, which the kernel passes itself.
    bool runs_over_range() const { return !run_equality.empty() && !array_input; }

    /// A key that differs wherever the source differs, after `prefix`.
    std::string key(const std::string& prefix = {}) const {
        std::string text;
        append_key(text, prefix.c_str());
        return text;
    }

    /// Appends the key to `text` (a buffer a caller keeps: a call then allocates nothing for it).
    void append_key(std::string& text, const char* prefix) const {
        text += prefix;
        for (const std::string* part : {&value_type, &name, &keep, &value_expr, &run_equality, &extra_declarations,
                                        &preamble, &build_options}) {
            text += *part;
            text += '\0';
        }
        text += static_cast<char>('0' + array_input);
        text += static_cast<char>('0' + static_cast<int>(placement));
        text += static_cast<char>('0' + static_cast<int>(algorithm));
    }
};

/// A compaction over n items (or indices), counting in `Count` (cl_uint where n < 2^32: the look-back then packs
/// status and count into one 64-bit word).
template <class Count>
class CompactionKernel {
public:
    CompactionKernel(const Context& context, const CompactionSpec& spec)
        : runs_over_range_(spec.runs_over_range()),
          scan_(context, spec.arguments(), "(" + keep(spec) + ") ? 1 : 0", "a+b", "0", "", options(spec), stages(spec)) {}

    /// Runs over the bound arguments (in CompactionSpec::arguments' order), over the array or `range`; appends
    /// the kernel's own arguments to `bound`.
    Event enqueue(const Queue& queue, const std::optional<IndexRange>& range, std::vector<BoundArgument>& bound,
                  const std::vector<cl::Event>& wait) const {
        if (runs_over_range_) bound.push_back(bind(static_cast<cl_long>(range ? range->step : 1)));
        return scan_.enqueue_bound(queue, nullptr, range, bound, wait);
    }

    /// True where the device counts kept items by warp ballots.
    bool counts_by_ballots(std::size_t device_index = 0) const { return scan_.counts_by_ballots(device_index); }
    const std::string& source(std::size_t device_index = 0) const { return scan_.source(device_index); }
    /// What the compiler said building it for a device (warnings; often nothing).
    const std::string& build_log(std::size_t device_index = 0) const { return scan_.build_log(device_index); }

private:
    /// The test of item i: the user's, or for runs, "the first item, or unlike the one before".
    static std::string keep(const CompactionSpec& spec) {
        if (spec.run_equality.empty()) return spec.keep;
        if (spec.array_input) return "clalgo_k == 0 || !clalgo_is_equal(clalgo_previous, ary[i])";
        return "clalgo_k == 0 || !clalgo_is_equal(clalgo_value_at((i - selection_run_step)), clalgo_value_at(i))";
    }

    static ScanOptions options(const CompactionSpec& spec) {
        ScanOptions options;
        options.name = spec.name;
        options.preamble = spec.preamble;
        if (!spec.run_equality.empty()) {
            if (!spec.array_input)
                options.preamble += "\n#define clalgo_value_at(i) ((" + spec.value_type + ")(" + spec.value_expr + "))";
            options.preamble += "\ninline bool clalgo_is_equal(const " + spec.value_type + " a, const " +
                                spec.value_type + " b)\n{\n    return " + spec.run_equality + ";\n}\n";
        }
        options.build_options = spec.build_options;
        options.algorithm = spec.algorithm;
        if (spec.array_input) {
            // the item is read once and kept in registers until it is written
            options.input_fetch_exprs.push_back({"clalgo_item", "ary", 0});
            if (!spec.run_equality.empty()) options.input_fetch_exprs.push_back({"clalgo_previous", "ary", -1});
        }
        return options;
    }

    static ScanStages stages(const CompactionSpec& spec) {
        const std::string value = spec.array_input ? std::string("clalgo_item") : "(" + spec.value_expr + ")";
        auto text = [&](std::string statement) {
            return spec.array_input ? library_text(std::move(statement)) : user_text("value_expr", std::move(statement));
        };
        const std::string keep_it = "if ((long)prev_item < selection_capacity)\n    selected[prev_item] = " + value + ";";
        ScanStages stages;
        if (spec.placement == Placement::kept) {
            stages.item_statement = text("if (item != prev_item) {\n    " + keep_it + "\n}");
            stages.kept_statement = text(keep_it);
        } else {
            const std::string reject_it = "if (clalgo_k - (long)prev_item < selection_capacity)\n"
                                          "    rejected[clalgo_k - (long)prev_item] = " + value + ";";
            stages.item_statement = text("if (item != prev_item) {\n    " + keep_it + "\n} else {\n    " + reject_it + "\n}");
            stages.kept_statement = text(keep_it);
            stages.rejected_statement = text(reject_it);
        }
        stages.total_statement = library_text("*selected_count = (long)clalgo_last_item;");
        stages.needs_launch_at_zero = true;
        stages.without_total = true;
        return stages;
    }

    friend struct ContextCache;
    void release_context() noexcept { ContextCache::release(scan_); }

    bool runs_over_range_ = false;
    GenericScanKernel<Count> scan_;
};

}  // namespace clalgo::detail
