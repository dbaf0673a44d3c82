// What a GenericScanKernel may add (ScanOptions: a name, segments, input fetches, helper code, the algorithm,
// compaction), a scan call's carry-in (CarryIn), and how the options become template text: the input fetches' holes and the stages a kernel built
// on the scan adds (ScanStages). The kernels' parameters are in kernels/scan_call.hpp.
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/policy/scan.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// `name` holds `argument[i + offset]` in input_expr (offset 0 or -1 as in PyOpenCL); where the position
/// i + offset falls outside the scan it holds `argument[i]`. A fetch at offset 0 is also visible in
/// output_statement, read once for both.
struct InputFetch {
    /// The name the expressions use.
    std::string name;
    /// The array argument it reads.
    std::string argument;
    /// 0: argument[i]; -1: argument[i - 1].
    int offset = 0;
};

/// Stream compaction composed with the scan, for scans whose input_expr is 0 or 1 and whose operator adds:
/// wherever the scan grows, `destination[prev_item] = value` (while prev_item < `limit`), and the total goes to
/// `count[0]`, written once by the work-item that holds the last item rather than tested for at every item.
/// (copy_if and its kin use the library's own compaction kernel, which also has a ballot path on NVIDIA.)
struct ScanCompaction {
    std::string destination;  ///< an array argument
    std::string value;        ///< an expression over i, the arguments and input fetches
    std::string limit;        ///< an expression: room in the destination
    std::string count;        ///< a `long *` argument: its first element receives the number of such items
};

/// What a GenericScanKernel may add: a name, segments, input fetches, helper code, compiler options, the
/// algorithm, and compaction.
struct ScanOptions {
    std::string name = "scan";           ///< the kernel's name, in build errors and profilers
    std::string is_segment_start_expr;   ///< an expression over i: true where a new segment starts
    /// Names bound to argument[i + offset] (InputFetch).
    std::vector<InputFetch> input_fetch_exprs;
    std::string preamble;                ///< OpenCL C placed before the kernels
    std::string build_options;           ///< passed to the OpenCL compiler
    /// The algorithm (automatic: the device's policy chooses).
    ScanAlgorithm algorithm = ScanAlgorithm::automatic;
    /// Stream compaction composed with the scan, where given.
    std::optional<ScanCompaction> compaction;
    /// Checked mode: bounds-check every access name[index] of input_expr, output_statement and
    /// is_segment_start_expr to an array argument (OutOfBoundsError; each call blocks). CLALGO_CHECKED=1 turns
    /// it on for every kernel.
    bool checked = false;
};

/// A scan's carry-in: a value combined on the left of every item with scan_expr, as if it came just before the
/// first index (prev_item there is the carry-in, and the total includes it; a segment start cuts it off like any
/// item before). Given on the host, or as one element of a device array that the launch reads, so that a carry
/// computed on the device needs no round trip through the host.
///   scan.with_carry(q, 100, input, output);               // a host value
///   scan.with_carry(q, totals.view(k, 1), input, output);  // element k of a device array
template <class T>
class CarryIn {
public:
    /// A carry-in given on the host.
    CarryIn(const T& value) : value_(value) {}  // NOLINT: implicit, as the value itself reads at the call
    /// A carry-in read from the one element of `element` when the scan runs.
    CarryIn(const ArrayView<T>& element) : element_(element) {
        if (element.size() != 1)
            throw std::invalid_argument("clalgo: a carry-in array holds one element, not " + std::to_string(element.size()));
    }

    /// The value, where it is given on the host.
    const T* value() const noexcept { return element_ ? nullptr : &value_; }
    /// The element, where it is on the device.
    const ArrayView<T>* element() const noexcept { return element_ ? &*element_ : nullptr; }

private:
    T value_{};
    std::optional<ArrayView<T>> element_;
};

namespace detail {

/// What a kernel built on the scan adds to it (the library's compaction kernel, ScanCompaction): statements
/// of its own, composed with the user's.
struct ScanStages {
    Fill item_statement;   ///< at every item, before the output statement: sees i, clalgo_k, item, prev_item
    Fill total_statement;  ///< once, by the work-item that holds the total: sees clalgo_last_item (also at n = 0)
    /// For a scan that sums 0/1 inputs and has no output statement: what to do with an item whose input is 1,
    /// at its place `long prev_item` (it also sees i and clalgo_k). Set, it lets NVIDIA count kept items by
    /// ballots and CPUs by words of bits (compaction.cl.hpp).
    Fill kept_statement;
    /// With kept_statement, for a compaction that places the items whose input is 0 too (partition): what to do
    /// with such an item, which sees i, clalgo_k and `long prev_item` (the kept items before it). CPUs visit them
    /// by words of bits; NVIDIA's ballots do not (kernels/scan.hpp).
    Fill rejected_statement;
    bool needs_launch_at_zero = false;  ///< the total statement must run even for n = 0
    /// The kernel built on the scan never asks for the scan's total (GenericScanKernel::with_total): its kernels
    /// then take no parameter for it, one argument fewer per launch.
    bool without_total = false;
    /// Set: the scan's values are of this OpenCL C type (defined in the preamble, `value_size` bytes on the
    /// device), not of the kernel's T (reduce_by_key scans (run count, value) pairs of the user's value type).
    std::string value_type;
    std::size_t value_size = 0;
};

/// The holes of the scan templates that carry input fetches (InputFetch): fetches at offset 0 are read once and
/// kept in registers for the output statement too; the others are read in clalgo_input.
inline std::map<std::string, std::string> input_fetch_text(const std::vector<ArgumentDeclaration>& declarations,
                                                          const std::vector<InputFetch>& fetches,
                                                          const std::string& kernel) {
    std::map<std::string, std::string> text;
    for (const char* hole : {"kept_parameters", "kept_arguments", "kept_array_parameters", "kept_array_arguments",
                             "kept_arrays", "kept_loads", "kept_reads", "kept_fetches", "input_fetches"})
        text[hole];
    for (const auto& fetch : fetches) {
        auto source = std::find_if(declarations.begin(), declarations.end(),
                                   [&](const ArgumentDeclaration& d) { return d.name == fetch.argument; });
        if (source == declarations.end() || !source->is_array)
            throw std::invalid_argument("clalgo: " + kernel + ": input fetch '" + fetch.name + "' reads '" +
                                        fetch.argument + "', which is not an array argument");
        check_name("clalgo: " + kernel, "input fetch name", fetch.name);
        const std::string& type = source->type;
        const std::string& name = fetch.name;
        if (fetch.offset == 0) {
            text["kept_parameters"] += ", const " + type + " " + name;
            text["kept_arguments"] += ", " + name;
            text["kept_array_parameters"] += ", " + type + " *clalgo_kept_" + name;
            text["kept_array_arguments"] += ", clalgo_kept_" + name;
            text["kept_arrays"] += type + " clalgo_kept_" + name + "[CLALGO_ITEMS];\n";
            text["kept_loads"] += "const " + type + " " + name + " = " + fetch.argument + "[i];\nclalgo_kept_" + name +
                                  "[clalgo_j] = " + name + ";\n";
            text["kept_reads"] += "const " + type + " " + name + " = clalgo_kept_" + name + "[clalgo_j];\n";
            text["kept_fetches"] += "const " + type + " " + name + " = " + fetch.argument + "[i];\n";
        } else {
            // i + offset is the index of the scan position offset * sign(step) away (or lies between that one's
            // and i's): inside the call's indices exactly where that position is inside the scan
            const std::string offset = "(" + std::to_string(fetch.offset) + ")";
            const std::string position = "clalgo_k + (clalgo_step < 0 ? -" + offset + " : " + offset + ")";
            text["input_fetches"] += "const " + type + " " + name + " = " + fetch.argument + "[(" + position +
                                     " >= 0 && " + position + " < n) ? i + " + offset + " : i];\n";
        }
    }
    return text;
}

/// ScanOptions::compaction as stages of the scan.
inline ScanStages compaction_stages(const std::vector<ArgumentDeclaration>& declarations,
                                    const ScanCompaction& compaction, bool segmented, const std::string& kernel) {
    auto find = [&](const std::string& name) {
        return std::find_if(declarations.begin(), declarations.end(),
                            [&](const ArgumentDeclaration& d) { return d.name == name; });
    };
    auto destination = find(compaction.destination), count = find(compaction.count);
    if (destination == declarations.end() || !destination->is_array || segmented || count == declarations.end() ||
        !count->is_array || count->type != "long")
        throw std::invalid_argument("clalgo: " + kernel + ": compaction needs an array destination, a long * count "
                                    "and no segments");
    ScanStages stages;
    stages.item_statement = user_text("compaction", "if (item != prev_item && (long)prev_item < (long)(" +
                                                        compaction.limit + "))\n    " + compaction.destination +
                                                        "[prev_item] = " + compaction.value + ";");
    stages.total_statement = library_text(compaction.count + "[0] = (long)clalgo_last_item;");
    stages.needs_launch_at_zero = true;
    return stages;
}

}  // namespace detail
}  // namespace clalgo
