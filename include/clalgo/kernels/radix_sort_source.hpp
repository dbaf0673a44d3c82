// The radix sort's generated source: what its templates need to know of a key type, the parameters of each of
// its kernels (declared once, for the template's parameter lists and the launches' arguments), and the program of
// a policy's passes or one-tile sort on a device. RadixSortKernel (kernels/radix_sort.hpp) renders and launches.
//   detail::GeneratedSource source = detail::radix_sort_source<std::uint32_t>(info, policy, false, "");
//   detail::Signature onesweep = detail::radix_sort_signature("onesweep", false);
#pragma once

#include <clalgo/cl/radix_sort_blocks.cl.hpp>
#include <clalgo/cl/radix_sort_common.cl.hpp>
#include <clalgo/cl/radix_sort_onesweep.cl.hpp>
#include <clalgo/cl/radix_sort_rank.cl.hpp>
#include <clalgo/cl/radix_sort_tile.cl.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/device_info.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/policy/radix_sort.hpp>

#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo::detail {

/// What the radix sort's templates need to know of a key type.
template <class Key>
struct RadixKey {
    static_assert(std::is_arithmetic_v<Key> && !std::is_same_v<Key, bool> && sizeof(Key) <= 8 &&
                      (std::is_integral_v<Key> || sizeof(Key) >= 4),
                  "clalgo radix sort: keys are integers of 8 to 64 bits, float or double");
    static constexpr int bits = int(sizeof(Key)) * 8;
    static constexpr const char* bits_type = sizeof(Key) == 1 ? "uchar" : sizeof(Key) == 2 ? "ushort"
                                             : sizeof(Key) == 4 ? "uint" : "ulong";
    static constexpr int kind = std::is_floating_point_v<Key> ? 2 : std::is_signed_v<Key> ? 1 : 0;
};

/// A onesweep digit pass's scalars, laid out as the template's clalgo_onesweep_pass_t.
struct OnesweepPass {
    cl_long n;
    cl_ulong flip;
    cl_long keys_in_offset, keys_out_offset, values_in_offset, values_out_offset;
    cl_uint shift, mask, pass, tiles, epoch;
    cl_uint index_values;  ///< 1: each value is its key's position in the input, not read (argsort's first pass)
    cl_uint write_keys;    ///< 0: only the values are written (the last pass of an argsort whose keys are not wanted)
    cl_uint unused;        ///< fills the struct to 8-byte words, so that no padding goes to the kernel unset
};
static_assert(sizeof(OnesweepPass) == 80, "OnesweepPass must match clalgo_onesweep_pass_t");

inline Parameter buffer_parameter(const std::string& type, const std::string& name) {
    return Parameter{"__global " + type + " *", name};
}

/// The parameters of the radix sort's kernel `kernel` ("count", "place", "scatter", "histogram", "onesweep" or
/// "tile_sort"), with or without values.
inline Signature radix_sort_signature(const std::string& kernel, bool has_values) {
    std::vector<Parameter> moved{buffer_parameter("const clalgo_key_t", "clalgo_keys_in_base"),
                                 {"long", "clalgo_keys_in_offset"},
                                 buffer_parameter("clalgo_key_t", "clalgo_keys_out_base"),
                                 {"long", "clalgo_keys_out_offset"}};
    std::vector<Parameter> values{buffer_parameter("const clalgo_sort_value_t", "clalgo_values_in_base"),
                                  {"long", "clalgo_values_in_offset"},
                                  buffer_parameter("clalgo_sort_value_t", "clalgo_values_out_base"),
                                  {"long", "clalgo_values_out_offset"}};
    // 1: each value is its key's position in the input, made rather than read (argsort's first pass)
    values.push_back({"uint", "clalgo_index_values"});
    if (!has_values) values.clear();
    const std::vector<Parameter> digit{{"uint", "clalgo_shift"}, {"uint", "clalgo_mask"}, {"ulong", "clalgo_flip"}};
    std::vector<Parameter> list;
    auto add = [&](const std::vector<Parameter>& more) { list.insert(list.end(), more.begin(), more.end()); };
    if (kernel == "count") {
        add({{"long", "n"}, {"long", "clalgo_block_size"}});
        add(digit);
        add({buffer_parameter("const clalgo_key_t", "clalgo_keys_base"), {"long", "clalgo_keys_offset"},
             buffer_parameter("ulong", "clalgo_counts")});
    } else if (kernel == "place") {
        add({{"long", "clalgo_blocks"}, {"uint", "clalgo_mask"}, buffer_parameter("ulong", "clalgo_counts")});
    } else if (kernel == "scatter") {
        add({{"long", "n"}, {"long", "clalgo_block_size"}});
        add(digit);
        add({buffer_parameter("const ulong", "clalgo_counts")});
        add(moved);
        add(values);
    } else if (kernel == "histogram") {
        add({{"long", "n"}, {"uint", "clalgo_begin_bit"}, {"uint", "clalgo_end_bit"}, {"uint", "clalgo_passes"},
             {"ulong", "clalgo_flip"}, buffer_parameter("const clalgo_key_t", "clalgo_keys_base"),
             {"long", "clalgo_keys_offset"}, buffer_parameter("ulong", "clalgo_histograms"),
             buffer_parameter("ulong", "clalgo_sums"), buffer_parameter("uint", "clalgo_ticket")});
    } else if (kernel == "onesweep") {  // the scalars and offsets in one struct (OnesweepPass)
        add({{"clalgo_onesweep_pass_t", "clalgo_args"}, buffer_parameter("uint", "clalgo_ticket"),
             buffer_parameter("ulong", "clalgo_status"), buffer_parameter("const ulong", "clalgo_histograms"),
             buffer_parameter("const clalgo_key_t", "clalgo_keys_in_base"),
             buffer_parameter("clalgo_key_t", "clalgo_keys_out_base")});
        if (has_values)
            add({buffer_parameter("const clalgo_sort_value_t", "clalgo_values_in_base"),
                 buffer_parameter("clalgo_sort_value_t", "clalgo_values_out_base")});
    } else {  // tile_sort
        add({{"long", "n"}, {"uint", "clalgo_begin_bit"}, {"uint", "clalgo_end_bit"}, {"ulong", "clalgo_flip"}});
        add(moved);
        add(values);
    }
    return Signature(std::move(list));
}

/// Where a pair sort's passes take their values: read; made from the keys' positions in the input in a pass told
/// so (argsort's first), at the cost of the branch in every pass; or made always (a program of argsort's first
/// pass alone). The last two for values of an integer type.
enum class SortValues { read = 0, positions_when_told = 1, positions = 2 };

/// The program of a policy's onesweep or blocks passes (tile_program: one work-group sorting one tile) on a device,
/// for keys of Key and values of `value_type` (empty: keys only), which its passes take as `values` says. Onesweep
/// passes whose values are always positions are argsort's first pass alone, which needs no histogram kernel.
/// `optional_key_writes`: a onesweep pass with values writes its keys only where its arguments say so (argsort's
/// passes, whose last writes no keys where they are not wanted); else always, with no test.
template <class Key>
GeneratedSource radix_sort_source(const DeviceInfo& info, const RadixSortPolicy& policy, bool tile_program,
                                  const std::string& value_type, SortValues values = SortValues::read,
                                  bool optional_key_writes = false) {
    const bool has_values = !value_type.empty();
    const std::string key_type = type_name<Key>();
    std::vector<std::string> types{key_type};
    if (has_values) types.push_back(value_type);
    std::string pattern = cl_source::radix_sort_common;
    if (policy.algorithm == SortAlgorithm::blocks && !tile_program) {
        pattern += cl_source::radix_sort_blocks;
    } else {
        pattern += cl_source::radix_sort_onesweep_head;
        pattern += cl_source::radix_digit_scan;
        pattern += cl_source::radix_sort_rank;
        pattern += cl_source::radix_sort_exchange;
        if (tile_program) {
            pattern += cl_source::radix_sort_tile;
        } else {
            pattern += cl_source::radix_sort_status_words;
            if (values != SortValues::positions) pattern += cl_source::radix_sort_histogram;
            pattern += cl_source::radix_sort_onesweep;
        }
    }
    std::map<std::string, Fill> fills{
        {"prologue", library_text(program_prologue(info, types))},
        {"key_type", library_text(key_type)},
        // 16 bytes of keys, as the histogram pass reads them
        {"key_vector_type", library_text(key_type + std::to_string(16 / sizeof(Key)))},
        {"vector_keys", library_text(std::to_string(16 / sizeof(Key)))},
        {"bits_type", library_text(RadixKey<Key>::bits_type)},
        {"key_kind", library_text(std::to_string(RadixKey<Key>::kind))},
        {"key_bits", library_text(std::to_string(RadixKey<Key>::bits))},
        {"has_values", library_text(has_values ? "1" : "0")},
        {"value_type", library_text(value_type)},
        {"index_values", library_text(std::to_string(has_values ? static_cast<int>(values) : 0))},
        {"optional_key_writes", library_text(has_values && optional_key_writes ? "1" : "0")},
        {"group_size", library_text(std::to_string(policy.group_size))},
        {"items_per_thread", library_text(std::to_string(policy.items))},
        {"match_rank", library_text(policy.match_rank ? "1" : "0")},
        {"rank_atomics", library_text(policy.forms.rank_atomics ? "1" : "0")},
        {"match_or", library_text(policy.forms.match_or ? "1" : "0")},
        {"value_exchange", library_text(policy.value_exchange ? "1" : "0")},
        {"early_values", library_text(policy.early_values ? "1" : "0")},
        {"prefetch_values", library_text(policy.prefetch_values ? "1" : "0")},
        {"digits_in_registers", library_text(policy.digits_in_registers ? "1" : "0")},
        {"full_tile_writes", library_text(policy.full_tile_writes ? "1" : "0")},
        {"wide_places", library_text(policy.wide_places ? "1" : "0")},
        {"look_back_window", library_text(std::to_string(policy.look_back_window))},
        {"early_counts", library_text(policy.early_counts ? "1" : "0")},
        {"keys_before_look_back", library_text(policy.forms.keys_before_look_back ? "1" : "0")},
        {"split_keys", library_text(policy.split_keys ? "1" : "0")},
        {"counters_apart", library_text(policy.counters_apart ? "1" : "0")},
        {"shuffle_scan", library_text(policy.shuffle_scan ? "1" : "0")},
        {"tile_program", library_text(tile_program ? "1" : "0")},
        {"nvidia", library_text(device_class(info) == DeviceClass::nvidia_gpu ? "1" : "0")}};
    for (const char* kernel : {"count", "place", "scatter", "histogram", "onesweep", "tile_sort"})
        fills[std::string(kernel) + "_signature"] = library_text(radix_sort_signature(kernel, has_values).text());
    return render(pattern, fills);
}

}  // namespace clalgo::detail
