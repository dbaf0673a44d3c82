// InclusiveScanKernel<T> and ExclusiveScanKernel<T>: output[i] = the scan of input up to i (inclusive) or before i
// (exclusive), for any associative `scan_expr` over a and b with `neutral` as its identity; in place too. Both
// take a carry-in (CarryIn: a host value, or one element of a device array) combined on the left of every item.
//   clalgo::ExclusiveScanKernel<int> offsets(ctx, "a+b", "0");
//   offsets(q, counts, starts);                      // starts[0] = 0
//   offsets.with_carry(q, 100, counts, starts);      // starts[0] = 100
#pragma once

#include <clalgo/kernels/scan.hpp>

namespace clalgo {

namespace detail {

/// Shared by InclusiveScanKernel and ExclusiveScanKernel: `output[i] = <item or prev_item>` over `input`.
template <class T>
class SimpleScan {
public:
    SimpleScan(const Context& context, const std::string& scan_expr, const std::string& neutral,
               const std::string& output_value, ScanOptions options)
        : name_(options.name),
          scan_(context, "const " + type_name<T>() + " *input, " + type_name<T>() + " *output", "input[i]",
                scan_expr, neutral, "output[i] = " + output_value, std::move(options)) {}

    /// Scans `input` into `output` (which may be `input` itself); returns the event of the last launch.
    Event operator()(const Queue& queue, const ArrayView<T>& input, const ArrayView<T>& output,
                         const WaitFor& wait = {}) const {
        check_room(input, output);
        return scan_(queue, input, output, wait);
    }

    /// Like operator(), from a carry-in combined on the left of every item (output[0] of an exclusive scan is the
    /// carry-in itself).
    Event with_carry(const Queue& queue, const CarryIn<T>& carry, const ArrayView<T>& input,
                     const ArrayView<T>& output, const WaitFor& wait = {}) const {
        check_room(input, output);
        return scan_.with_carry(queue, carry, input, output, wait);
    }

    /// Like operator(), and writes the total of the scan into `total` (one element) on the device.
    Event with_total(const Queue& queue, const ArrayView<T>& input, const ArrayView<T>& output,
                     const ArrayView<T>& total, const WaitFor& wait = {}) const {
        check_room(input, output);
        return scan_.with_total(queue, total, input, output, wait);
    }

    const std::string& source(std::size_t device_index = 0) const { return scan_.source(device_index); }
    /// What the compiler said building it for a device (warnings; often nothing).
    const std::string& build_log(std::size_t device_index = 0) const { return scan_.build_log(device_index); }
    ScanAlgorithm algorithm(std::size_t device_index = 0) const { return scan_.algorithm(device_index); }

private:
    void check_room(const ArrayView<T>& input, const ArrayView<T>& output) const {
        if (output.size() < input.size())
            throw std::invalid_argument("clalgo: kernel '" + name_ + "': 'output' has " + std::to_string(output.size()) +
                                        " elements but 'input' has " + std::to_string(input.size()));
    }

    std::string name_;
    GenericScanKernel<T> scan_;
};

}  // namespace detail

/// output[i] = input[0] op input[1] op ... op input[i], for any associative `scan_expr` over a and b.
template <class T>
class InclusiveScanKernel : public detail::SimpleScan<T> {
public:
    /// An inclusive scan by `scan_expr` over a and b, with identity `neutral`.
    InclusiveScanKernel(const Context& context, const std::string& scan_expr, const std::string& neutral,
                        ScanOptions options = named("inclusive_scan"))
        : detail::SimpleScan<T>(context, scan_expr, neutral, "item", std::move(options)) {}

private:
    static ScanOptions named(const char* name) {
        ScanOptions options;
        options.name = name;
        return options;
    }
};

/// output[i] = neutral op input[0] op ... op input[i-1]; output[0] = neutral (the carry-in, with_carry).
template <class T>
class ExclusiveScanKernel : public detail::SimpleScan<T> {
public:
    /// An exclusive scan by `scan_expr` over a and b, with identity `neutral`.
    ExclusiveScanKernel(const Context& context, const std::string& scan_expr, const std::string& neutral,
                        ScanOptions options = named("exclusive_scan"))
        : detail::SimpleScan<T>(context, scan_expr, neutral, "prev_item", std::move(options)) {}

private:
    static ScanOptions named(const char* name) {
        ScanOptions options;
        options.name = name;
        return options;
    }
};

}  // namespace clalgo
