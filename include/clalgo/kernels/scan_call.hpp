// How a scan kernel receives one call: NVIDIA's OpenCL launch cost grows with the number of kernel arguments
// (docs/architecture.md), so the scan kernels take few. One struct argument (clalgo_scan_call_t) holds the
// library's scalars, the user's array offsets and the user's plain scalars, and last a carry-in given on the host;
// one scratch buffer holds the ticket, a carry-in copied from a device array, the look-back state and the partial
// results at offsets; then the total's buffer (only where the kernel can be asked for a total), the user's
// buffers and the user's other scalars (vectors, registered structs).
//   const detail::ScanCallLayout layout(declarations, true, sizeof(T));
//   fills: layout.definition(), layout.signature(...).text(), layout.parameters(), layout.unpack(...)
//   std::vector<unsigned char> call = layout.pack(scalars, bound);  arguments.set_bytes("clalgo_call", call)...
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/signature.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace clalgo::detail {

/// Where a scan's carry-in comes from (clalgo_scan_call_t's carry_kind).
enum ScanCarryKind : cl_uint { no_carry = 0, carry_in_struct = 1, carry_in_scratch = 2 };

/// The library's part of clalgo_scan_call_t, first in it and laid out alike (12 longs, 4 uints, no padding).
struct ScanCallScalars {
    cl_long start = 0, step = 1, n = 0;
    cl_long units_per_group = 0, groups = 0;  ///< the two-pass algorithms; chained: the block's items
    cl_long total_offset = 0;                 ///< in elements of the total's buffer
    /// byte offsets in the scratch buffer (the ticket is at 0): single pass, then the two-pass algorithms
    cl_long status_at = 0, aggregates_at = 0, inclusives_at = 0, runs_at = 0, run_flags_at = 0;
    cl_long carry_at = 0;                     ///< byte offset of a carry-in copied into the scratch buffer
    cl_uint epoch = 0, tiles = 0;             ///< single pass
    cl_uint carry_kind = no_carry, unused = 0;
};
static_assert(sizeof(ScanCallScalars) == 112, "ScanCallScalars must match the start of clalgo_scan_call_t");

/// Where each user argument goes in a scan kernel: arrays as a buffer argument with their offset in the struct,
/// plain scalars (char to double) in the struct, other scalars as arguments of their own.
class ScanCallLayout {
public:
    ScanCallLayout() = default;
    /// `value_size`: bytes of the scan's values on the device (the carry-in's field, last in the struct).
    ScanCallLayout(const std::vector<ArgumentDeclaration>& declarations, bool total_parameter, std::size_t value_size)
        : declarations_(declarations), total_parameter_(total_parameter), value_size_(value_size) {
        std::size_t at = sizeof(ScanCallScalars);
        for (const auto& declaration : declarations_) {
            const std::size_t size = declaration.is_array ? 8 : plain_size(declaration.type);
            if (size == 0) {
                offsets_.push_back(not_packed);
                continue;
            }
            at = (at + size - 1) / size * size;
            offsets_.push_back(at);
            at += size;
        }
        // the carry's field at a multiple of its alignment, which divides the power of two at or above its size
        // (128 at most): padded explicitly, so that the device puts it where the host does
        std::size_t alignment = 1;
        while (alignment < value_size_ && alignment < 128) alignment *= 2;
        carry_at_ = (at + alignment - 1) / alignment * alignment;
        carry_padding_ = carry_at_ - at;
        bytes_ = (carry_at_ + value_size_ + 7) / 8 * 8;
    }

    /// typedef struct { ... } clalgo_scan_call_t;
    std::string definition() const {
        std::string text =
            "/* one call's scalars in one kernel argument: NVIDIA's launch cost grows with the number of arguments */\n"
            "typedef struct {\n"
            "    long start, step, n, units_per_group, groups, total_offset;\n"
            "    long status_at, aggregates_at, inclusives_at, runs_at, run_flags_at, carry_at;\n"
            "    uint epoch, tiles, carry_kind, unused;\n";
        for (std::size_t k = 0; k < declarations_.size(); ++k) {
            if (offsets_[k] == not_packed) continue;
            const auto& declaration = declarations_[k];
            text += declaration.is_array ? "    long clalgo_offset_" + declaration.name + ";\n"
                                         : "    " + declaration.type + " clalgo_scalar_" + declaration.name + ";\n";
        }
        if (carry_padding_ > 0) text += "    uchar clalgo_carry_padding[" + std::to_string(carry_padding_) + "];\n";
        return text + "    clalgo_value_t clalgo_carry;\n} clalgo_scan_call_t;";
    }

    /// The library's parameters of every scan kernel.
    Signature signature() const {
        std::vector<Parameter> list{{"clalgo_scan_call_t", "clalgo_call"}, {"__global uchar *", "clalgo_memory"}};
        if (total_parameter_) list.push_back({"__global clalgo_value_t *", "clalgo_total_base"});
        return Signature(std::move(list));
    }

    /// The user's parameters, each after ",\n    ": buffers and the scalars not in the struct.
    std::string parameters() const {
        std::string text;
        for (std::size_t k = 0; k < declarations_.size(); ++k) {
            const auto& declaration = declarations_[k];
            if (declaration.is_array)
                text += ",\n    __global " + qualifiers(declaration) + declaration.type + " *" +
                        (declaration.is_restrict ? "restrict " : "") + "clalgo_" + declaration.name + "_base";
            else if (offsets_[k] == not_packed)
                text += ",\n    const " + declaration.type + " " + declaration.name;
        }
        return text;
    }

    /// The statements that open a kernel of `kind` ("single_pass", "chained", "reduce" or "scan"): the library's
    /// names (n, clalgo_start, the scratch pointers, clalgo_total) and the user's arrays and scalars, from the
    /// struct.
    std::string unpack(const std::string& kind, const std::string& status_type) const {
        auto scratch = [](const std::string& type, const std::string& name, const std::string& at) {
            return "__global " + type + " *" + name + " = (__global " + type + " *)(clalgo_memory + clalgo_call." +
                   at + ");\n";
        };
        std::string text = "const long clalgo_start = clalgo_call.start, clalgo_step = clalgo_call.step, n = clalgo_call.n;\n";
        if (kind == "single_pass" || kind == "chained") {
            text += "const uint clalgo_epoch = clalgo_call.epoch, clalgo_tiles = clalgo_call.tiles;\n"
                    "__global uint *clalgo_ticket = (__global uint *)clalgo_memory;\n";
            text += scratch(status_type, "clalgo_status", "status_at");
            text += scratch("clalgo_value_t", "clalgo_aggregates", "aggregates_at");
            text += scratch("clalgo_value_t", "clalgo_inclusives", "inclusives_at");
            if (kind == "chained") text += "const long clalgo_block_items = clalgo_call.units_per_group;\n";
        } else {
            text += "const long clalgo_units_per_group = clalgo_call.units_per_group, clalgo_groups = clalgo_call.groups;\n";
            text += scratch("clalgo_value_t", "clalgo_runs", "runs_at");
            text += scratch("uint", "clalgo_run_flags", "run_flags_at");
        }
        if (kind != "reduce")
            text += "clalgo_value_t clalgo_carry_in = clalgo_neutral();\n"
                    "if (clalgo_call.carry_kind == 1)\n"
                    "    clalgo_carry_in = clalgo_call.clalgo_carry;\n"
                    "else if (clalgo_call.carry_kind == 2)\n"
                    "    clalgo_carry_in = *(__global const clalgo_value_t *)(clalgo_memory + clalgo_call.carry_at);\n";
        if (kind != "reduce")
            text += total_parameter_ ? "__global clalgo_value_t *clalgo_total = clalgo_total_base ? clalgo_total_base + "
                                       "clalgo_call.total_offset : 0;\n"
                                     : "__global clalgo_value_t *clalgo_total = 0;\n";
        for (std::size_t k = 0; k < declarations_.size(); ++k) {
            const auto& declaration = declarations_[k];
            if (declaration.is_array)
                text += "__global " + qualifiers(declaration) + declaration.type + " *" +
                        (declaration.is_restrict ? "restrict " : "") + declaration.name + " = clalgo_" +
                        declaration.name + "_base + clalgo_call.clalgo_offset_" + declaration.name + ";\n";
            else if (offsets_[k] != not_packed)
                text += "const " + declaration.type + " " + declaration.name + " = clalgo_call.clalgo_scalar_" + declaration.name + ";\n";
        }
        return text;
    }

    /// The struct's bytes for one call (`bound` checked against the declarations; `carry`: value_size bytes of a
    /// carry-in given on the host, or null).
    void pack(std::vector<unsigned char>& bytes, const ScanCallScalars& scalars, const std::vector<BoundArgument>& bound,
              const void* carry = nullptr) const {
        bytes.assign(bytes_, 0);
        std::memcpy(bytes.data(), &scalars, sizeof scalars);
        if (carry) std::memcpy(bytes.data() + carry_at_, carry, value_size_);
        for (std::size_t k = 0; k < bound.size() && k < offsets_.size(); ++k) {
            if (offsets_[k] == not_packed) continue;
            if (bound[k].is_array) {
                const cl_long offset = static_cast<cl_long>(bound[k].offset);
                std::memcpy(bytes.data() + offsets_[k], &offset, sizeof offset);
            } else {
                std::memcpy(bytes.data() + offsets_[k], bound[k].bytes.data(), bound[k].bytes.size());
            }
        }
    }

    /// Which user arguments travel in the struct (their own kernel arguments are then only their buffers).
    std::vector<bool> in_struct() const {
        std::vector<bool> packed;
        for (std::size_t k = 0; k < offsets_.size(); ++k) packed.push_back(offsets_[k] != not_packed && !declarations_[k].is_array);
        return packed;
    }

    bool total_parameter() const noexcept { return total_parameter_; }

private:
    static constexpr std::size_t not_packed = ~std::size_t(0);

    /// Bytes of an OpenCL C scalar type that goes in the struct (its alignment too); 0 for the others.
    static std::size_t plain_size(const std::string& type) {
        if (type == "char" || type == "uchar") return 1;
        if (type == "short" || type == "ushort") return 2;
        if (type == "int" || type == "uint" || type == "float") return 4;
        if (type == "long" || type == "ulong" || type == "double") return 8;
        return 0;
    }

    std::vector<ArgumentDeclaration> declarations_;
    std::vector<std::size_t> offsets_;  ///< per declaration: its place in the struct, or not_packed
    std::size_t bytes_ = sizeof(ScanCallScalars);
    bool total_parameter_ = true;
    std::size_t value_size_ = 0;
    std::size_t carry_at_ = 0, carry_padding_ = 0;  ///< the carry's field: its place, and the padding before it
};

}  // namespace clalgo::detail
