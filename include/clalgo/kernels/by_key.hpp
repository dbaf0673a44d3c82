// The kernel under reduce_by_key and unique_by_key: one pass over the keys and values, composed with the scan.
// reduce_by_key scans (run count, value) pairs: a pair's count is the number of runs that start in it, its value
// the reduction of its values since the last of those starts, so that
//   combine(a, b) = (a.runs + b.runs, b.runs != 0 ? b.value : op(a.value, b.value))
// is associative whenever op is (a segmented scan whose segments are the runs). Where a run starts (the scan's
// count grows), the run before it is complete: its key and reduction go to their place, prev_item.runs - 1; the
// work-item with the total writes the last run and the count. Each key is read about once, each value once.
// unique_by_key is a compaction of the run starts that writes keys and values.
//   detail::ByKeySpec spec;  spec.key_type = "uint";  spec.value_type = "float";
//   spec.reduce_expr = "a+b";  spec.neutral = "0";
//   const detail::ByKeyKernel<cl_uint, float> kernel(ctx, spec);
//   kernel.enqueue(q, keys, values, keys_out, values_out, count);
#pragma once

#include <clalgo/kernels/by_key_spec.hpp>
#include <clalgo/kernels/reduce_by_key_tile.hpp>
#include <clalgo/kernels/scan.hpp>
#include <clalgo/codegen/call_checks.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

namespace clalgo::detail {

/// The pair reduce_by_key scans, as the host sees it (its size sizes the look-back's scratch).
template <class Count, class V>
struct RunValue {
    Count runs;
    V value;
};

/// The by-key kernel over n keys, counting runs in `Count` (cl_uint where n < 2^32, cl_ulong otherwise).
template <class Count, class V>
class ByKeyKernel {
    using Scanned = RunValue<Count, V>;

public:
    ByKeyKernel(const Context& context, const ByKeySpec& spec)
        : name_(spec.name), fold_(spec.fold), declarations_(parse_arguments(spec.arguments())) {
        // reduce_by_key runs the tile kernel on devices whose policy says so (unless a scan algorithm is asked
        // for by name), the scan of pairs elsewhere
        bool any_tile = false, any_scan = false;
        for (const auto& device : context.devices()) {
            const DeviceInfo& info = context.info(device);
            const bool tile = spec.fold && spec.algorithm == ScanAlgorithm::automatic &&
                              reduce_by_key_policy(info, type_size(spec.key_type) + sizeof(V), sizeof(Scanned)).tile_kernel;
            tile_on_.emplace_back(&info, tile);
            any_tile = any_tile || tile;
            any_scan = any_scan || !tile;
        }
        if (any_tile) fold_tile_ = std::make_unique<ReduceByKeyTileKernel<Count, V>>(context, spec, type_size(spec.key_type));
        if (spec.fold && any_scan)
            fold_scan_ = std::make_unique<GenericScanKernel<Scanned>>(context, spec.arguments(), run_start(),
                                                                      "clalgo_run_combine(a, b)", "clalgo_run_neutral()",
                                                                      "", options(spec), fold_stages());
        if (!spec.fold)
            unique_scan_ = std::make_unique<GenericScanKernel<Count>>(context, spec.arguments(),
                                                                      "(" + run_start_test() + ") ? 1 : 0", "a+b", "0",
                                                                      "", options(spec), unique_stages());
    }

    /// Runs over keys.size() items; results beyond `room` are not written, count[0] receives the number of runs.
    template <class K>
    Event enqueue(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                  const ArrayView<K>& keys_out, const ArrayView<V>& values_out,
                  const ArrayView<std::int64_t>& count, const std::vector<cl::Event>& wait = {}) const {
        const cl_long room = static_cast<cl_long>(std::min(keys_out.size(), values_out.size()));
        if (fold_tile_ && tile_on(queue.info())) {
            // the tile kernel takes the arrays themselves: checked as a call's arrays are, without binding them
            const std::int64_t n = static_cast<std::int64_t>(keys.size());
            if (n > 0) {
                std::size_t position = 0;
                auto check = [&](const auto& view, bool at_i) {
                    using T = typename std::decay_t<decltype(view)>::value_type;
                    check_call_array(name_, position, declarations_[position], view.buffer()(), view.size(),
                                     [] { return "ArrayView<" + type_name<T>() + ">"; }, at_i, queue, n, 0, n - 1,
                                     true);
                    ++position;
                };
                check(keys, true);
                check(values, true);
                check(keys_out, false);
                check(values_out, false);
                check(count, false);
            }
            return fold_tile_->enqueue(queue, keys, values, keys_out, values_out, count, wait);
        }
        const KeptArguments kept;  // bound in place, in a vector the thread keeps
        auto& bound = bind_all_into(kept.get(), keys, values, keys_out, values_out, count, room);
        return fold_ ? fold_scan_->enqueue_bound(queue, nullptr, std::nullopt, bound, wait)
                     : unique_scan_->enqueue_bound(queue, nullptr, std::nullopt, bound, wait);
    }

    /// The generated source on a device (the tile kernel's where it runs there).
    const std::string& source(std::size_t device_index = 0) const {
        if (fold_tile_ && tile_at(device_index)) return fold_tile_->source(device_index);
        return fold_ ? fold_scan_->source(device_index) : unique_scan_->source(device_index);
    }
    const std::string& build_log(std::size_t device_index = 0) const {
        if (fold_tile_ && tile_at(device_index)) return fold_tile_->build_log(device_index);
        return fold_ ? fold_scan_->build_log(device_index) : unique_scan_->build_log(device_index);
    }
    /// Whether reduce_by_key runs the tile kernel on a device of the context.
    bool tile_at(std::size_t device_index) const { return tile_on_.at(device_index).second; }

private:
    /// True at the first item of a run: the first item, or one whose key differs from the key before it.
    static std::string run_start_test() {
        return "clalgo_k == 0 || clalgo_keys_differ(clalgo_previous_key, keys[i])";
    }

    static std::string run_start() {
        return "clalgo_run_start(" + run_start_test() + ", values[i])";
    }

    static ScanOptions options(const ByKeySpec& spec) {
        ScanOptions options;
        options.name = spec.name;
        options.build_options = spec.build_options;
        options.algorithm = spec.algorithm;
        options.input_fetch_exprs.push_back({"clalgo_previous_key", "keys", -1});
        const bool vector_key = spec.vector_key();  // keys are scalar or vector types (by_key's callers check)
        options.preamble = spec.preamble + "\n\ninline bool clalgo_keys_differ(const " + spec.key_type + " a, const " +
                           spec.key_type + " b)\n{\n    return " + (vector_key ? "any(a != b)" : "a != b") + ";\n}\n";
        if (!spec.fold) return options;
        const std::string& v = spec.value_type;
        const std::string count = sizeof(Count) == 4 ? "uint" : "ulong";
        options.preamble +=
            "\n/* reduce_by_key: runs started in a stretch of items, and the reduction since the last start */\n"
            "typedef struct { " + count + " runs; " + v + " value; } clalgo_run_t;\n\n"
            "inline " + v + " clalgo_by_key_op(const " + v + " a, const " + v + " b)\n{\n    return (" +
            spec.reduce_expr + "\n    );\n}\n\n"
            "inline clalgo_run_t clalgo_run_neutral(void)\n{\n    clalgo_run_t r;\n    r.runs = 0;\n    r.value = (" +
            spec.neutral + "\n    );\n    return r;\n}\n\n"
            "inline clalgo_run_t clalgo_run_start(const bool starts, const " + v + " value)\n{\n"
            "    clalgo_run_t r;\n    r.runs = starts ? 1 : 0;\n    r.value = value;\n    return r;\n}\n\n"
            "inline clalgo_run_t clalgo_run_combine(const clalgo_run_t a, const clalgo_run_t b)\n{\n"
            "    clalgo_run_t r;\n    r.runs = a.runs + b.runs;\n"
            "    r.value = b.runs != 0 ? b.value : clalgo_by_key_op(a.value, b.value);\n    return r;\n}\n";
        return options;
    }

    static ScanStages fold_stages() {
        ScanStages stages;
        // a run starts at i: the run before it ended at i - 1
        stages.item_statement = library_text(
            "if (item.runs != prev_item.runs && prev_item.runs != 0 && (long)prev_item.runs <= room) {\n"
            "    keys_out[prev_item.runs - 1] = keys[i - 1];\n"
            "    values_out[prev_item.runs - 1] = prev_item.value;\n"
            "}");
        stages.total_statement = library_text(
            "*count = (long)clalgo_last_item.runs;\n"
            "if (clalgo_last_item.runs != 0 && (long)clalgo_last_item.runs <= room) {\n"
            "    keys_out[clalgo_last_item.runs - 1] = keys[n - 1];\n"
            "    values_out[clalgo_last_item.runs - 1] = clalgo_last_item.value;\n"
            "}");
        stages.needs_launch_at_zero = true;
        stages.without_total = true;
        stages.value_type = "clalgo_run_t";
        stages.value_size = sizeof(RunValue<Count, V>);
        return stages;
    }

    static ScanStages unique_stages() {
        const std::string keep = "if ((long)prev_item < room) {\n"
                                 "    keys_out[prev_item] = keys[i];\n"
                                 "    values_out[prev_item] = values[i];\n"
                                 "}";
        ScanStages stages;
        stages.item_statement = library_text("if (item != prev_item) {\n" + keep + "\n}");
        stages.kept_statement = library_text(keep);  // run starts counted by warp ballots (NVIDIA), words of bits (CPUs)
        stages.total_statement = library_text("*count = (long)clalgo_last_item;");
        stages.needs_launch_at_zero = true;
        stages.without_total = true;
        return stages;
    }

    friend struct ContextCache;
    void release_context() noexcept {
        if (fold_tile_) ContextCache::release(*fold_tile_);
        if (fold_scan_) ContextCache::release(*fold_scan_);
        if (unique_scan_) ContextCache::release(*unique_scan_);
    }

    std::string name_;
    bool fold_;
    std::vector<ArgumentDeclaration> declarations_;  ///< spec.arguments(): the tile path's checks name them
    /// Per device of the context, in its order: whether reduce_by_key runs the tile kernel there.
    std::vector<std::pair<const DeviceInfo*, bool>> tile_on_;

    bool tile_on(const DeviceInfo& info) const {
        for (const auto& entry : tile_on_)
            if (entry.first == &info) return entry.second;
        return false;
    }
    std::unique_ptr<ReduceByKeyTileKernel<Count, V>> fold_tile_;
    std::unique_ptr<GenericScanKernel<Scanned>> fold_scan_;
    std::unique_ptr<GenericScanKernel<Count>> unique_scan_;
};

}  // namespace clalgo::detail
