// RadixSortKernel<Key, Value>: a stable LSD radix sort of keys (every integer type of 8 to 64 bits, float,
// double), in place, ascending or descending, over a range of the key's bits, optionally moving values of any
// type (registered structs included) with their keys. Made once per context; each program is compiled at the
// first call that needs it (on GPUs: the onesweep passes, the same in smaller tiles for each tier of smaller
// inputs, the same with 64-bit places past 2^32 keys, or the one-tile sort of the input's size class); each call
// is asynchronous.
//   clalgo::RadixSortKernel<std::uint32_t> sort_keys(ctx);
//   sort_keys(q, keys);                                        // ascending, every bit
//   clalgo::RadixSortKernel<float, std::int64_t> sort_pairs(ctx);
//   sort_pairs(q, keys, values, {/*descending*/ true});
//   sort_pairs.argsort(q, keys, sorted, positions);           // positions made by the first pass, not read
// One pass per 8 bits sorted, whatever the key's type and order. Order of floating-point keys: -inf < negatives <
// -0.0 < +0.0 < positives < +inf; NaNs whose sign bit is clear after +inf, NaNs whose sign bit is set before -inf
// (descending: the reverse). Extra device memory: one more copy of the keys (and of the values), plus per-tile
// look-back words on GPUs (2 KiB a tile).
#pragma once

#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/kernels/radix_sort_source.hpp>
#include <clalgo/kernels/scratch.hpp>
#include <clalgo/policy/radix_sort.hpp>
#include <clalgo/policy/tuned_store.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace clalgo {

/// How a radix sort orders: ascending or descending, by the bits [begin_bit, end_bit) of the key (end_bit -1:
/// the key's width). Keys equal in those bits keep their order.
struct SortOptions {
    /// Largest key first.
    bool descending = false;
    /// The first key bit that orders.
    int begin_bit = 0;
    /// One past the last key bit that orders (-1: the key's width).
    int end_bit = -1;
};

namespace detail {

/// Throws where Index cannot hold the positions of n keys (argsort).
template <class Index>
void require_positions_fit(std::uint64_t n) {
    if (n > 0 && n - 1 > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()))
        throw std::invalid_argument("clalgo: argsort: " + std::to_string(n) + " keys do not fit the index type '" +
                                    type_name<Index>() + "'");
}

/// Scratch a radix sort keeps per queue: the second copy of the keys and values, counts, look-back state.
struct RadixScratch {
    GrowingBuffer keys, values, counts, sums, status, ticket;
    std::uint32_t epoch = 0;
};

}  // namespace detail

/// A stable radix sort of Key (with Value moved alongside; Value = void: keys only).
template <class Key, class Value = void>
class RadixSortKernel {
    static constexpr bool has_values = !std::is_void_v<Value>;
    using ValueType = std::conditional_t<has_values, Value, char>;  ///< char: a stand-in where there are no values
    using ValueView = ArrayView<ValueType>;

public:
    /// Makes the sort for every device of `context`; `algorithm` forces one (tests, devices you know). Its
    /// programs are compiled at the first call that needs them: on GPUs, the onesweep passes for inputs of more
    /// than one tile (one program per tier of tile sizes), and one small program per one-tile size for the others.
    /// `positions_in_first_pass`: for argsort, whose first pass makes each key's position as its value (values
    /// of an integer type). In full onesweep tiles that first pass is a program of its own and the others read
    /// their values; elsewhere every pass's program chooses between making and reading, which the branch would slow
    /// in full tiles (pairs of uint32 about 1.4 times on an H100): so pair sorts take a kernel made without it.
    explicit RadixSortKernel(const Context& context, SortAlgorithm algorithm = SortAlgorithm::automatic,
                             bool positions_in_first_pass = false)
        : requested_(algorithm), positions_(has_values && std::is_integral_v<ValueType> && positions_in_first_pass) {
        std::vector<std::string> types{type_name<Key>()};
        if (has_values) types.push_back(type_name<ValueType>());
        std::size_t tier_count = 0, tile_count = 0;  // of the programs: the most any device has
        for (const auto& device : context.devices()) {
            const auto& info = context.info(device);
            infos_.push_back(&info);
            shapes_.push_back(shapes_for(info));
            launch_mutexes_.push_back(std::make_unique<std::mutex>());
            tier_count = std::max(tier_count, shapes_.back().passes.size() - 1);
            tile_count = std::max(tile_count, shapes_.back().tiles.size());
        }
        // each program from the shapes its launches use; a device with fewer tiers or tiles (never calling those
        // programs) generates its own passes there
        // where the values come from: argsort's positions (positions_) are made where a pass is told so, but for
        // the passes of full onesweep tiles (tier 0 of the policy), which read them after a first pass of their own
        const auto told = positions_ ? detail::SortValues::positions_when_told : detail::SortValues::read;
        auto program = [&](const char* label, bool tile_program, auto shape_of, detail::SortValues values) {
            return detail::KernelProgram(
                context,
                [&](const DeviceInfo& info) {
                    const detail::RadixSortPolicy policy = shape_of(shapes_of(info));
                    const bool full_tiles = !tile_program && policy.algorithm == SortAlgorithm::onesweep;
                    // argsort's passes but its first in full tiles may be told to write no keys (the last pass,
                    // where they are not wanted: argsort_positions); a pair sort's passes write them with no test
                    const bool optional_keys = positions_ && values != detail::SortValues::positions;
                    return generate(info, policy, tile_program, full_tiles ? values : told, optional_keys);
                },
                "", detail::BuildLabel{label, {}}, types, std::vector<std::string>{},
                detail::KernelProgram::BuildTime::first_call);
        };
        program_ = program("radix_sort", false, [](const Shapes& shapes) { return shapes.policy; },
                           detail::SortValues::read);
        if (positions_)
            first_pass_program_ = program("radix_sort_positions", false, [](const Shapes& shapes) { return shapes.policy; },
                                          detail::SortValues::positions);
        // over more than 2^32 keys where the policy's places are 32-bit: argsort's positions chosen in every pass
        // (clalgo::argsort writes them first: sorts_wide)
        wide_program_ = program("radix_sort_wide", false, [](const Shapes& shapes) {
            detail::RadixSortPolicy wide = shapes.policy;  // as program_, with 64-bit places
            wide.wide_places = true;
            return wide;
        }, told);
        for (std::size_t tier = 1; tier <= tier_count; ++tier)
            tier_programs_.push_back(program("radix_sort_tier", false, [&](const Shapes& shapes) {
                return tier < shapes.passes.size() ? shapes.passes[tier] : shapes.policy;
            }, told));
        for (std::size_t k = 0; k < tile_count; ++k)
            tile_programs_.push_back(program("radix_sort_tile", true, [&](const Shapes& shapes) {
                return k < shapes.tiles.size() ? shapes.tiles[k] : shapes.policy;
            }, told));
    }

    /// Sorts `keys` in place; returns the event of the last command. Keys equal in the sorted bits keep their order.
    template <bool V = has_values, std::enable_if_t<!V, int> = 0>
    Event operator()(const Queue& queue, const ArrayView<Key>& keys, const SortOptions& options = {},
                         const WaitFor& wait = {}) const {
        return enqueue(queue, keys, keys, nullptr, nullptr, options, detail::wait_list(queue, wait), in_place_names);
    }

    /// Sorts `keys_in` into `keys_out` (as many; `keys_in` is left as it was unless it is `keys_out`).
    template <bool V = has_values, std::enable_if_t<!V, int> = 0>
    Event operator()(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_out,
                         const SortOptions& options = {}, const WaitFor& wait = {}) const {
        return enqueue(queue, keys_in, keys_out, nullptr, nullptr, options, detail::wait_list(queue, wait), apart_names);
    }

    /// Sorts `keys` in place and moves `values` (as many) with them.
    template <bool V = has_values, std::enable_if_t<V, long> = 0>
    Event operator()(const Queue& queue, const ArrayView<Key>& keys, const ValueView& values,
                         const SortOptions& options = {}, const WaitFor& wait = {}) const {
        return enqueue(queue, keys, keys, &values, &values, options, detail::wait_list(queue, wait), in_place_names);
    }

    /// Sorts `keys_in` into `keys_out` and moves `values_in` with them into `values_out` (the inputs are left as
    /// they were unless they are the outputs).
    template <bool V = has_values, std::enable_if_t<V, long> = 0>
    Event operator()(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_out,
                         const ValueView& values_in, const ValueView& values_out, const SortOptions& options = {},
                         const WaitFor& wait = {}) const {
        return enqueue(queue, keys_in, keys_out, &values_in, &values_out, options, detail::wait_list(queue, wait),
                       apart_names);
    }

    /// argsort: sorts `keys_in` into `keys_out` (keys_out may be keys_in) and writes into `positions` (as many)
    /// where each sorted key was: keys_out[k] is keys_in[positions[k]] as it was. The positions are made by the
    /// sort's first pass, not read, so the call costs what sorting pairs costs. For integer values wide enough to
    /// hold keys_in.size() - 1, on a kernel made with positions_in_first_pass (clalgo::argsort keeps one).
    template <bool V = has_values && std::is_integral_v<ValueType>, std::enable_if_t<V, long> = 0>
    Event argsort(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_out,
                  const ValueView& positions, const SortOptions& options = {}, const WaitFor& wait = {}) const {
        return enqueue_argsort(queue, keys_in, keys_out, positions, options, wait, argsort_names, true);
    }

    /// argsort where the sorted keys are not wanted (clalgo::argsort and RadixSort call it): as argsort, but
    /// `keys_work` (as many; it may be keys_in, whose keys are then lost) is only work space, left unspecified:
    /// the last of two or more onesweep passes writes the positions alone, which saves writing the keys once.
    template <bool V = has_values && std::is_integral_v<ValueType>, std::enable_if_t<V, long> = 0>
    Event argsort_positions(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_work,
                            const ValueView& positions, const SortOptions& options = {},
                            const WaitFor& wait = {}) const {
        return enqueue_argsort(queue, keys_in, keys_work, positions, options, wait, argsort_positions_names, false);
    }

    /// The algorithm chosen for a device of the context (the first by default).
    SortAlgorithm algorithm(std::size_t device_index = 0) const { return shapes_.at(device_index).policy.algorithm; }
    /// The generated OpenCL C of the passes over inputs larger than every tier's (the policy's own tiles; on CPUs
    /// the blocks) for a device of the context.
    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }
    /// What the compiler said building those passes for a device (warnings; often nothing; empty until a call
    /// has needed them there).
    const std::string& build_log(std::size_t device_index = 0) const { return program_.build_log(device_index); }
    /// The programs compiled so far for a device, in the order passes, tiers, one-tile sorts: "passes", "first pass
    /// making positions" (argsort in full onesweep tiles), "passes with wide places" (inputs of more than 2^32
    /// keys), "passes in tier t" (t from 1), "one tile of K keys". For diagnostics and tests: which program a call
    /// took.
    std::vector<std::string> built_programs(std::size_t device_index = 0) const {
        std::vector<std::string> built;
        if (program_.built(device_index)) built.push_back("passes");
        if (positions_ && first_pass_program_.built(device_index)) built.push_back("first pass making positions");
        if (wide_program_.built(device_index)) built.push_back("passes with wide places");
        for (std::size_t t = 0; t < tier_programs_.size(); ++t)
            if (tier_programs_[t].built(device_index)) built.push_back("passes in tier " + std::to_string(t + 1));
        for (std::size_t k = 0; k < tile_programs_.size(); ++k)
            if (tile_programs_[k].built(device_index))
                built.push_back("one tile of " + std::to_string(shapes_.at(device_index).policy.one_tile_keys(k)) + " keys");
        return built;
    }
    /// Whether a call of `n` keys on `queue`'s device runs the onesweep passes in the policy's own tiles (more than
    /// one tile, above every smaller tier's inputs), where argsort makes the positions in a first pass of its own
    /// (but where sorts_wide).
    bool sorts_in_full_tiles(const Queue& queue, std::uint64_t n) const {
        const detail::RadixSortPolicy& policy = shapes_.at(program_.device_index(queue)).policy;
        return policy.algorithm == SortAlgorithm::onesweep && policy.tier_of(n) == 0 && n > policy.tile();
    }
    /// Whether those passes take a program of their own that holds the places in the output in 64 bits (more than
    /// 2^32 keys, where the policy's own passes hold them in 32): there argsort's passes choose in every one between
    /// making positions and reading values, and clalgo::argsort writes the positions first and sorts them as values
    /// instead. (Where the policy holds them in 64 bits anyway, as for 64-bit integer keys, argsort's first pass is
    /// a program of its own at every size.)
    bool sorts_wide(const Queue& queue, std::uint64_t n) const {
        const detail::RadixSortPolicy& policy = shapes_.at(program_.device_index(queue)).policy;
        return takes_wide_program(policy, policy.tier_of(n), n);
    }
    /// Keys a work-group sorts at once on a device (1 for the blocks algorithm).
    std::size_t tile(std::size_t device_index = 0) const { return shapes_.at(device_index).policy.tile(); }
    /// The work-group size of a device's tiles (1 for the blocks algorithm). Inputs of at most one tile are sorted
    /// by one work-group alone, in the smallest of the sizes group_size x 1, 2, 4, 8, 12, 16, 20, ... keys (up to
    /// tile()) that holds them, each with a group of its own shape.
    std::size_t group_size(std::size_t device_index = 0) const { return shapes_.at(device_index).policy.group_size; }

private:
    /// A device's policy and the shapes it runs, made once, so that the programs' sources and the launches read
    /// the same values.
    struct Shapes {
        detail::RadixSortPolicy policy;
        std::vector<detail::RadixSortPolicy> passes;  ///< [t]: the passes of tier t (0: the policy's own tiles)
        std::vector<detail::RadixSortPolicy> tiles;   ///< [k]: the one-tile sort of policy.one_tile_keys(k) keys
    };

    Shapes shapes_for(const DeviceInfo& info) const {
        const std::size_t value_size = has_values ? sizeof(ValueType) : 0;
        Shapes shapes{detail::radix_sort_policy(info, sizeof(Key), value_size, requested_, detail::tuned_values(info),
                                                std::is_floating_point_v<Key>, positions_), {}, {}};
        for (std::size_t tier = 0; tier <= shapes.policy.tiers.size(); ++tier)
            shapes.passes.push_back(shapes.policy.with_tier(tier));
        for (std::size_t k = 0; shapes.policy.algorithm == SortAlgorithm::onesweep; ++k) {
            shapes.tiles.push_back(detail::radix_tile_policy(info, shapes.policy, k, sizeof(Key), value_size));
            if (shapes.policy.one_tile_keys(k) >= shapes.policy.tile()) break;
        }
        return shapes;
    }

    const Shapes& shapes_of(const DeviceInfo& info) const {
        for (std::size_t d = 0; d < infos_.size(); ++d)
            if (infos_[d] == &info) return shapes_[d];
        throw std::logic_error("clalgo: no radix sort policy for the device");
    }

    /// Whether `n` keys in tier `tier` of `policy` take wide_program_: past 2^32 keys the places in the output need
    /// 64 bits, where the policy's own passes hold them in 32 (no tier takes such inputs).
    static bool takes_wide_program(const detail::RadixSortPolicy& policy, std::size_t tier, std::uint64_t n) {
        return policy.algorithm == SortAlgorithm::onesweep && tier == 0 &&
               n > detail::RadixSortPolicy::narrow_places_max && !policy.wide_places;
    }

    /// The program of the onesweep or blocks passes (tile_program: one work-group sorting one tile) for a device.
    detail::GeneratedSource generate(const DeviceInfo& info, const detail::RadixSortPolicy& policy, bool tile_program,
                                     detail::SortValues values, bool optional_key_writes) const {
        return detail::radix_sort_source<Key>(info, policy, tile_program, has_values ? type_name<ValueType>() : "",
                                              values, optional_key_writes);
    }

    /// The parameters of one of the passes' kernels, made once: a call's host cost counts at small sizes.
    static const detail::Signature& signature(const char* kernel) {
        static const auto made = [] {
            std::map<std::string, detail::Signature, std::less<>> all;  // found by the name's characters
            for (const char* name : {"tile_sort", "histogram", "onesweep", "count", "place", "scatter"})
                all.emplace(name, detail::radix_sort_signature(name, has_values));
            return all;
        }();
        return made.find(std::string_view(kernel))->second;
    }

    /// A buffer and an element offset: where a pass reads or writes.
    struct Place {
        cl::Buffer buffer;
        cl_long offset = 0;
    };

    /// Where a pass reads or writes: the input, the output or the scratch copy.
    enum Where { input = 0, output = 1, spare = 2 };

    template <class T>
    static bool same_place(const ArrayView<T>& a, const ArrayView<T>& b) {
        return a.buffer()() == b.buffer()() && a.offset() == b.offset();
    }

    /// How a call names what it sorts, for messages: the call, then its keys in and out, values in and out.
    struct Names {
        const char *call, *keys_in, *keys_out, *values_in, *values_out;
    };
    static constexpr Names in_place_names{has_values ? "sort_by_key" : "sort", "keys", "keys", "values", "values"};
    static constexpr Names apart_names{has_values ? "sort_by_key" : "sort", "keys_in", "keys_out", "values_in", "values_out"};
    static constexpr Names argsort_names{"argsort", "keys", "keys_out", "", "order"};
    static constexpr Names argsort_positions_names{"argsort_positions", "keys", "keys_work", "", "order"};

    template <class T>
    static void check_apart(const ArrayView<T>& a, const ArrayView<T>& b, const Names& names, const char* in,
                            const char* out) {
        if (a.buffer()() == b.buffer()() && !same_place(a, b) && a.offset() < b.offset() + b.size() &&
            b.offset() < a.offset() + a.size())
            throw std::invalid_argument(std::string("clalgo: ") + names.call + ": " + in + " and " + out +
                                        " overlap without being the same array");
    }

    /// Each array of a call: as many elements as the keys in, and of the queue's context.
    template <class T>
    static void check_array(const Queue& queue, const Names& names, const char* name, const ArrayView<T>& array,
                            std::uint64_t n) {
        if (array.size() != n)
            throw std::invalid_argument(std::string("clalgo: ") + names.call + ": " + name + " has " +
                                        std::to_string(array.size()) + " elements but " + names.keys_in + " has " +
                                        std::to_string(n));
        cl_context owner = nullptr;
        if (n > 0 && clGetMemObjectInfo(array.buffer()(), CL_MEM_CONTEXT, sizeof(owner), &owner, nullptr) == CL_SUCCESS &&
            owner != queue.context().get()())
            throw std::invalid_argument(std::string("clalgo: ") + names.call + ": " + name +
                                        " belongs to another context than the queue's");
    }

    /// argsort and argsort_positions (names.call): on a kernel made with positions_in_first_pass, into positions
    /// wide enough.
    Event enqueue_argsort(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_out,
                          const ValueView& positions, const SortOptions& options, const WaitFor& wait,
                          const Names& names, bool keys_wanted) const {
        if (!positions_)
            throw std::invalid_argument(std::string("clalgo: RadixSortKernel::") + names.call +
                                        ": this kernel was made to sort pairs; make one with positions_in_first_pass "
                                        "= true, or call clalgo::argsort");
        detail::require_positions_fit<ValueType>(keys_in.size());
        return enqueue(queue, keys_in, keys_out, nullptr, &positions, options, detail::wait_list(queue, wait), names,
                       keys_wanted);
    }

    /// values_in null with values_out given: the values are the keys' positions, made by the first pass (argsort).
    /// !keys_wanted: keys_out is work space (argsort_positions), so the last onesweep pass writes no keys.
    Event enqueue(const Queue& queue, const ArrayView<Key>& keys_in, const ArrayView<Key>& keys_out,
                  const ValueView* values_in, const ValueView* values_out, const SortOptions& options,
                  std::vector<cl::Event> wait, const Names& names, bool keys_wanted = true) const {
        const std::string what = names.call;
        const std::uint64_t n = keys_in.size();
        check_array(queue, names, names.keys_in, keys_in, n);
        check_array(queue, names, names.keys_out, keys_out, n);
        if (values_in) check_array(queue, names, names.values_in, *values_in, n);
        if (values_out) check_array(queue, names, names.values_out, *values_out, n);
        check_apart(keys_in, keys_out, names, names.keys_in, names.keys_out);
        if (values_in) check_apart(*values_in, *values_out, names, names.values_in, names.values_out);
        const bool positions = values_out && !values_in;
        const int width = detail::RadixKey<Key>::bits;
        const int end_bit = options.end_bit < 0 ? width : options.end_bit;
        if (options.begin_bit < 0 || options.begin_bit > end_bit || end_bit > width)
            throw std::invalid_argument("clalgo: " + what + ": the bits [" + std::to_string(options.begin_bit) + ", " +
                                        std::to_string(options.end_bit) + ") are not a range of the key's " +
                                        std::to_string(width) + " bits");
        const bool in_place = same_place(keys_in, keys_out);
        const bool values_in_place = values_in && same_place(*values_in, *values_out);
        if (n == 0 || ((n == 1 || options.begin_bit == end_bit) && in_place && (!values_out || values_in_place)))
            return detail::marker(queue, wait);
        // the XOR that orders the keys' bits: all ones for descending order, XOR-ed with a signed key's sign bit
        // (cl/radix_sort_common.cl.hpp)
        cl_ulong flip = options.descending ? ~cl_ulong(0) >> (64 - width) : 0;
        if (detail::RadixKey<Key>::kind == 1) flip ^= cl_ulong(1) << (width - 1);
        const cl_uint begin = static_cast<cl_uint>(options.begin_bit), end = static_cast<cl_uint>(end_bit);
        // one pass per 8 bits asked for; positions and an empty range: one pass of one digit, which makes them
        const cl_uint passes = std::max<cl_uint>((end - begin + 7) / 8, positions ? 1 : 0);

        const std::size_t device = program_.device_index(queue);
        const Shapes& shapes = shapes_[device];
        const std::size_t tier = shapes.policy.tier_of(n);
        const auto& policy = shapes.passes[tier];
        const bool one_tile = policy.algorithm == SortAlgorithm::onesweep && n <= policy.tile();
        std::size_t tile_size = 0;  // the smallest one-tile sort that holds the input
        while (one_tile && policy.one_tile_keys(tile_size) < n) ++tile_size;
        const bool wide = takes_wide_program(policy, tier, n);
        const detail::KernelProgram& program = one_tile ? tile_programs_.at(tile_size)
                                               : tier > 0 ? tier_programs_.at(tier - 1)
                                               : wide     ? wide_program_
                                                          : program_;
        // argsort in full onesweep tiles: the first pass, which makes the positions, from a program of its own
        const bool first_pass_apart = positions && policy.algorithm == SortAlgorithm::onesweep && tier == 0 &&
                                      !one_tile && !wide;
        if (first_pass_apart) detail::KernelProgram::build_together(queue, {&program, &first_pass_program_});
        auto& on = program.on(queue);
        auto& first_on = first_pass_apart ? first_pass_program_.on(queue) : on;
        std::lock_guard<std::mutex> lock(*launch_mutexes_[device]);
        auto& scratch = scratch_.get(queue);
        scratch.keys.reserve(queue, n * sizeof(Key));
        if (values_out) scratch.values.reserve(queue, n * sizeof(ValueType));
        const Place keys_at[3] = {{keys_in.buffer(), static_cast<cl_long>(keys_in.offset())},
                                  {keys_out.buffer(), static_cast<cl_long>(keys_out.offset())},
                                  {scratch.keys.buffer, 0}};
        Place values_at[3];
        if (values_out) {
            // positions: nothing is read; the output stands in for the input the kernels take
            const ValueView& read = positions ? *values_out : *values_in;
            values_at[input] = {read.buffer(), static_cast<cl_long>(read.offset())};
            values_at[output] = {values_out->buffer(), static_cast<cl_long>(values_out->offset())};
            values_at[spare] = {scratch.values.buffer, 0};
        }
        auto set_moved = [&](detail::KernelArguments& arguments, Where from, Where to, Where values_to) {
            arguments.set("clalgo_keys_in_base", keys_at[from].buffer).set("clalgo_keys_in_offset", keys_at[from].offset);
            arguments.set("clalgo_keys_out_base", keys_at[to].buffer).set("clalgo_keys_out_offset", keys_at[to].offset);
            if (values_out) {
                arguments.set("clalgo_values_in_base", values_at[from].buffer)
                    .set("clalgo_values_in_offset", values_at[from].offset);
                arguments.set("clalgo_values_out_base", values_at[values_to].buffer)
                    .set("clalgo_values_out_offset", values_at[values_to].offset);
                arguments.set("clalgo_index_values", cl_uint(positions && from == input));
            }
        };
        // The queue is in order: the first command waits for the caller's events, the others follow it without a
        // wait list, and no command makes an event (each costs the driver time at small sizes) but, on a profiling
        // queue, the call's last.
        cl::Event last_event;
        auto slot = [&](bool last) { return last ? detail::event_slot(queue, last_event) : nullptr; };
        // each kernel's memo (under launch_mutexes_, which every launch of these programs holds): a call sets only
        // the arguments that changed since the kernel's last launch
        auto run = [&](const char* name, const detail::Signature& sig, std::size_t global, std::size_t local,
                       const auto& set, bool last = false, detail::KernelProgram::OnDevice* from_program = nullptr) {
            detail::KernelSlot& kernel = (from_program ? *from_program : on).slot(name);
            detail::KernelArguments arguments(kernel.kernel, sig, &kernel.memo);
            set(arguments);
            arguments.done();
            detail::enqueue_launch(queue, kernel.kernel, global, local, wait, "radix_sort", slot(last));
            wait.clear();
        };
        // an array already in its place (the input, sorted in place) is not copied onto itself
        auto copy_result = [&](Where from, bool last) {
            const bool keys_there = (from == input && in_place) || !keys_wanted;
            const bool values_there = !values_out || (from == input && values_in_place);
            if (!keys_there) copy(queue, keys_at[from], keys_at[output], n, sizeof(Key), wait, slot(last && values_there));
            if (!values_there) copy(queue, values_at[from], values_at[output], n, sizeof(ValueType), wait, slot(last));
        };
        // with the caller's events still in `wait`, nothing was enqueued
        auto finished = [&] { return wait.empty() ? detail::call_event(queue, last_event) : detail::marker(queue, wait); };

        if (one_tile) {
            // values are gathered, so they cannot be written over their own input
            const Where values_to = values_in_place ? spare : output;
            const std::size_t group = shapes.tiles.at(tile_size).group_size;
            run("clalgo_radix_tile_sort", signature("tile_sort"), group, group, [&](auto& a) {
                a.set("n", static_cast<cl_long>(n)).set("clalgo_begin_bit", begin).set("clalgo_end_bit", end);
                a.set("clalgo_flip", flip);
                set_moved(a, input, output, values_to);
            }, !values_in_place);
            if (values_in_place) copy(queue, values_at[spare], values_at[output], n, sizeof(ValueType), wait, slot(true));
            return finished();
        }
        if (passes == 0) {  // an empty bit range: the keys (and values) as they are
            copy_result(input, true);
            return finished();
        }

        // where each digit writes: the last into the output; in place, the first into the spare copy
        auto destination = [&](cl_uint pass) {
            if (in_place || values_in_place) return pass % 2 == 0 ? spare : output;
            return (passes - 1 - pass) % 2 == 0 ? output : spare;
        };
        Where from = input;
        if (policy.algorithm == SortAlgorithm::onesweep) {
            const std::uint64_t tiles = (n + policy.tile() - 1) / policy.tile();
            if (tiles > 0xffffffffull) throw std::invalid_argument("clalgo: " + what + ": too many keys for one sort");
            scratch.counts.reserve(queue, std::size_t(passes) * 256 * sizeof(cl_ulong));
            scratch.ticket.reserve_zeroed(queue, sizeof(cl_uint));
            if (scratch.status.reserve(queue, tiles * 256 * sizeof(cl_ulong)) || scratch.epoch + passes >= (1u << 22)) {
                scratch.status.zero(queue);
                scratch.epoch = 0;
            }
            // the histogram pass's running sums stay zero between calls (its last work-group clears them)
            scratch.sums.reserve_zeroed(queue, std::size_t(passes) * 256 * sizeof(cl_ulong));
            const std::size_t groups = std::max<std::size_t>(1, std::min<std::size_t>(policy.histogram_groups, tiles));
            run("clalgo_radix_histogram", signature("histogram"), groups * policy.group_size, policy.group_size, [&](auto& a) {
                a.set("n", static_cast<cl_long>(n)).set("clalgo_begin_bit", begin).set("clalgo_end_bit", end);
                a.set("clalgo_passes", passes).set("clalgo_flip", flip).set("clalgo_keys_base", keys_at[input].buffer);
                a.set("clalgo_keys_offset", keys_at[input].offset).set("clalgo_histograms", scratch.counts.buffer);
                a.set("clalgo_sums", scratch.sums.buffer).set("clalgo_ticket", scratch.ticket.buffer);
            });
            for (cl_uint pass = 0; pass < passes; ++pass) {
                const cl_uint shift = begin + 8 * pass, mask = (1u << std::min<cl_uint>(8, end - shift)) - 1u;
                const cl_uint epoch = ++scratch.epoch;
                const Where to = destination(pass);
                const bool last = pass + 1 == passes && to == output;
                detail::OnesweepPass args{};
                args.n = static_cast<cl_long>(n);
                args.flip = flip;
                args.keys_in_offset = keys_at[from].offset;
                args.keys_out_offset = keys_at[to].offset;
                args.shift = shift;
                args.mask = mask;
                args.pass = pass;
                args.tiles = static_cast<cl_uint>(tiles);
                args.epoch = epoch;
                if (values_out) {
                    args.values_in_offset = values_at[from].offset;
                    args.values_out_offset = values_at[to].offset;
                    args.index_values = positions && from == input;
                }
                args.write_keys = keys_wanted || pass + 1 < passes;
                run("clalgo_radix_onesweep", signature("onesweep"), tiles * policy.group_size, policy.group_size, [&](auto& a) {
                    a.set("clalgo_args", args).set("clalgo_ticket", scratch.ticket.buffer);
                    a.set("clalgo_status", scratch.status.buffer).set("clalgo_histograms", scratch.counts.buffer);
                    a.set("clalgo_keys_in_base", keys_at[from].buffer).set("clalgo_keys_out_base", keys_at[to].buffer);
                    if (values_out)
                        a.set("clalgo_values_in_base", values_at[from].buffer).set("clalgo_values_out_base", values_at[to].buffer);
                }, last, pass == 0 ? &first_on : &on);
                from = to;
            }
        } else {
            const std::uint64_t wanted = policy.blocks_for(n);
            const std::uint64_t block_size = (n + wanted - 1) / wanted;
            const std::uint64_t blocks = (n + block_size - 1) / block_size;
            scratch.counts.reserve(queue, blocks * 256 * sizeof(cl_ulong));
            for (cl_uint pass = 0; pass < passes; ++pass) {
                const cl_uint shift = begin + 8 * pass, mask = (1u << std::min<cl_uint>(8, end - shift)) - 1u;
                const Where to = destination(pass);
                run("clalgo_radix_count_blocks", signature("count"), blocks, 1, [&](auto& a) {
                    a.set("n", static_cast<cl_long>(n)).set("clalgo_block_size", static_cast<cl_long>(block_size));
                    a.set("clalgo_shift", shift).set("clalgo_mask", mask).set("clalgo_flip", flip);
                    a.set("clalgo_keys_base", keys_at[from].buffer).set("clalgo_keys_offset", keys_at[from].offset);
                    a.set("clalgo_counts", scratch.counts.buffer);
                });
                run("clalgo_radix_place_blocks", signature("place"), 1, 1, [&](auto& a) {
                    a.set("clalgo_blocks", static_cast<cl_long>(blocks)).set("clalgo_mask", mask);
                    a.set("clalgo_counts", scratch.counts.buffer);
                });
                run("clalgo_radix_scatter_blocks", signature("scatter"), blocks, 1, [&](auto& a) {
                    a.set("n", static_cast<cl_long>(n)).set("clalgo_block_size", static_cast<cl_long>(block_size));
                    a.set("clalgo_shift", shift).set("clalgo_mask", mask).set("clalgo_flip", flip);
                    a.set("clalgo_counts", scratch.counts.buffer);
                    set_moved(a, from, to, to);
                }, pass + 1 == passes && to == output);
                from = to;
            }
        }
        if (from != output) copy_result(from, true);  // an odd number of digits in place left the result in the spare copy
        return finished();
    }

    /// Copies `count` elements of `size` bytes; the places' offsets are in elements.
    static void copy(const Queue& queue, const Place& from, const Place& to, std::uint64_t count, std::size_t size,
                     std::vector<cl::Event>& wait, cl::Event* done) {
        detail::enqueue_with_memory_retry(
            queue,
            [&] {
                queue.get().enqueueCopyBuffer(from.buffer, to.buffer, from.offset * size, to.offset * size,
                                              count * size, detail::wait_list(wait), done);
            },
            [] { return std::string("copying the radix sort's result"); });
        wait.clear();
    }

    SortAlgorithm requested_;
    bool positions_;  ///< the programs can make argsort's positions in the first pass
    std::vector<const DeviceInfo*> infos_;            ///< the context's devices, in its order
    std::vector<Shapes> shapes_;                      ///< one per device of the context, in its order
    /// Per device: held while a call sets arguments, enqueues and uses the queue's scratch.
    std::vector<std::unique_ptr<std::mutex>> launch_mutexes_;
    friend struct detail::ContextCache;
    void release_context() noexcept {
        program_.release_context();
        first_pass_program_.release_context();
        wide_program_.release_context();
        for (auto& tier_program : tier_programs_) tier_program.release_context();
        for (auto& tile_program : tile_programs_) tile_program.release_context();
    }
    detail::KernelProgram program_;                    ///< the passes over more than one tile
    detail::KernelProgram wide_program_;               ///< the same over more than 2^32 keys (places in 64 bits)
    detail::KernelProgram first_pass_program_;         ///< positions_: argsort's first pass over full onesweep tiles
    std::vector<detail::KernelProgram> tier_programs_; ///< [t]: the passes in the tiles of a policy's tier t

    std::vector<detail::KernelProgram> tile_programs_; ///< [k]: one tile of policy.one_tile_keys(k) keys
    mutable detail::PerQueue<detail::RadixScratch> scratch_;
};

}  // namespace clalgo
