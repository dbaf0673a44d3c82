// How a radix sort runs on a device class: which algorithm, what tile, how many blocks. Plain values, computed
// from a DeviceInfo and the sizes of the key and value, so they can be tested without a device.
//   auto policy = clalgo::detail::radix_sort_policy(info, sizeof(std::uint32_t), 0, clalgo::SortAlgorithm::automatic);
//   policy.algorithm == SortAlgorithm::onesweep on an NVIDIA GPU, blocks on a CPU
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/tuned.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// How a radix sort runs. `automatic` lets the policy choose; the others force a choice (for tests, or for a
/// device whose needs you know). CLALGO_SORT_ALGORITHM=blocks|onesweep overrides `automatic`.
enum class SortAlgorithm {
    automatic,
    blocks,    ///< per digit: count each contiguous block, scan the counts, scatter each block in order (CPUs)
    onesweep,  ///< one histogram pass, then per digit one kernel: rank a tile, look back across tiles, scatter
};

namespace detail {

/// How NVIDIA's onesweep ranking finds and counts a digit's lanes, and when a tile's keys go to local memory.
struct RadixForms {
    /// the lowest lane of each digit adds to the warp's counter atomically and hands the count before to its lanes
    /// by a shuffle, rather than all reading it and the lowest writing it between two warp barriers
    bool rank_atomics = false;
    /// the lanes that share a digit found by setting bits in a word per digit with local atomics (CUB's
    /// WARP_MATCH_ATOMIC_OR), rather than by eight ballots
    bool match_or = false;
    /// the tile's keys into local memory before the look-back, so that they hold no registers while it waits
    bool keys_before_look_back = false;
};

/// Inputs of at most most_keys keys sort in tiles of `items` keys a work-item (RadixSortPolicy::tiers).
struct RadixTier {
    std::size_t items = 1;
    std::uint64_t most_keys = 0;
};

struct RadixSortPolicy {
    SortAlgorithm algorithm = SortAlgorithm::blocks;
    std::size_t group_size = 1;   ///< onesweep: work-items per group
    std::size_t items = 1;        ///< onesweep: keys per work-item in a tile
    bool match_rank = false;      ///< onesweep: rank with NVIDIA's warp match (inline PTX), else in local memory
    /// onesweep: the forms of NVIDIA's ranking and when the keys go to local memory, in the policy's tiles
    RadixForms forms;
    bool value_exchange = true;   ///< onesweep: values move through local memory like the keys, else are gathered
    bool early_values = true;     ///< onesweep, exchanged values: loaded while the keys are written out, not after
    bool early_counts = true;     ///< onesweep: each tile's counts published before its keys are placed
    /// onesweep on NVIDIA, the policy's own tiles: each tile's values asked into the L2 cache as the tile begins,
    /// so that their loads after the look-back find them there
    bool prefetch_values = false;
    /// onesweep, values exchanged and loaded early: each place's digit kept in registers from the keys' writes to
    /// the values' (four to a word), not in local memory, so that a tile of pairs holds as many keys as one of keys
    bool digits_in_registers = false;
    /// onesweep: a full tile's keys and values written by loops unrolled over a work-item's places with no test of
    /// the tile's end (the last tile, and tiles without this, test each place)
    bool full_tile_writes = false;
    /// onesweep: each digit's place in the output in 64 bits (CLALGO_SORT_WIDE_PLACES); else in 32 bits, which
    /// hold the places of at most narrow_places_max keys (RadixSortKernel takes the wide form past them)
    bool wide_places = false;
    /// onesweep: how many tiles before it a tile's look-back reads at once, each step (the policy's own tiles;
    /// the tiers' take default_look_back_window)
    std::size_t look_back_window = default_look_back_window;
    static constexpr std::size_t default_look_back_window = 8;
    static constexpr std::uint64_t narrow_places_max = std::uint64_t(1) << 32;
    /// The forms for tiles of fewer than 16 keys a work-item and for the one-tile sort (on an H100 the
    /// atomic match and counts, chosen for 32-bit keys in the policy's tiles, slowed the one-tile sort of 2^12
    /// keys by 18 %): the variables' choices where they are set, else ballots, warp barriers, keys after the
    /// look-back.
    RadixForms small_forms;
    /// This policy with the small tiles' forms.
    RadixSortPolicy with_small_forms() const {
        RadixSortPolicy small = *this;
        small.forms = small_forms;
        return small;
    }
    bool split_keys = false;      ///< onesweep, 64-bit keys: through local memory as two 32-bit halves
    /// the one-tile sort's program (cl/radix_sort_tile.cl.hpp), not the passes': radix_tile_policy's shapes
    bool one_tile = false;
    /// NVIDIA's ranking: its counters in local memory of their own, zeroed once and then by each warp as it has
    /// read its own, rather than in the region the keys pass through (the one-tile sort: two group barriers fewer
    /// a digit)
    bool counters_apart = false;
    bool shuffle_scan = false;    ///< onesweep: the group's scans by warp shuffles (NVIDIA's inline PTX), else in local memory
    std::size_t histogram_groups = 1;  ///< onesweep: groups of the histogram pass
    std::size_t tile_group_max = 1;    ///< onesweep: the largest work-group that sorts an input of one tile alone
    /// onesweep: inputs of at most `most_keys` keys (past one tile) sort in tiles of `items` keys a work-item, by
    /// the first tier that takes them; larger inputs in the policy's tiles. A few tiles' passes are bound by the
    /// ranking's latency, a few hundred by how evenly the tiles fill the device: both sort faster in more,
    /// smaller tiles.
    std::vector<RadixTier> tiers;
    std::size_t max_blocks = 1;   ///< blocks: the most contiguous blocks a pass splits the keys into
    std::size_t min_block = 4096; ///< blocks: the fewest keys a block holds

    std::size_t tile() const { return group_size * items; }

    /// The tier whose tiles the passes over n keys take: 1 + its index, or 0 for the policy's own tiles (always
    /// past narrow_places_max keys, whose places only the policy's own passes hold in 64 bits).
    std::size_t tier_of(std::uint64_t n) const {
        if (algorithm != SortAlgorithm::onesweep || n <= tile() || n > narrow_places_max) return 0;
        for (std::size_t t = 0; t < tiers.size(); ++t)
            if (n <= tiers[t].most_keys) return t + 1;
        return 0;
    }

    /// The policy of the passes of a tier (1 + its index; 0: this policy).
    RadixSortPolicy with_tier(std::size_t tier) const {
        RadixSortPolicy tiered = *this;
        if (tier > 0) {
            tiered.items = tiers.at(tier - 1).items;
            tiered.prefetch_values = false;
            tiered.digits_in_registers = false;
            tiered.full_tile_writes = false;
            tiered.look_back_window = default_look_back_window;
        }
        if (tiered.items < 16) tiered = tiered.with_small_forms();
        return tiered;
    }

    /// Keys the one-tile sort of size class k holds (onesweep): group_size x 1, 2, 4, 8 and then 4 more keys a
    /// work-item a class (12, 16, 20, ...), up to tile(). A one-tile sort's time grows with the keys its shape holds:
    /// on an H200, 4,500 uint32 keys sorted in 11.8 to 11.9 us in 256 x 18 against 22.9 to 23.0 in the shape of
    /// 8,192 keys, and 6,000 in 14.0 to 14.1 in 256 x 24 against 23.6 to 23.8 (docs/architecture.md).
    std::size_t one_tile_keys(std::size_t k) const {
        const std::size_t per_item = k <= 3 ? std::size_t(1) << k : 8 + 4 * (k - 3);
        return group_size * std::min<std::size_t>(items, per_item);
    }

    /// Blocks a pass over n keys uses, for the blocks algorithm.
    std::uint64_t blocks_for(std::uint64_t n) const {
        return std::max<std::uint64_t>(1, std::min<std::uint64_t>(max_blocks, (n + min_block - 1) / min_block));
    }

    /// Local memory of a onesweep tile (cl/radix_sort_onesweep.cl.hpp): one region that holds in turn the rank's
    /// counters, the keys in digit order and the values (or the items they come from, 2 bytes each); the
    /// per-digit arrays; with values, each place's digit. The one-tile sort's (one_tile, cl/radix_sort_tile.cl.hpp)
    /// has no places in the output, no ticket and no digits of places; with the counters apart, they and the items
    /// (2 bytes a key) take regions of their own.
    std::size_t local_bytes(std::size_t key_size, std::size_t value_size) const {
        const std::size_t rank = match_rank ? (group_size / 32) * 256 * 4 * (forms.match_or ? 3 : 1)
                                            : 16 * group_size * 4 + tile() * 5;
        std::size_t moved = split_keys ? 4 : key_size;
        if (value_size > 0) moved = std::max<std::size_t>({moved, value_exchange ? value_size : 0, 2});
        const std::size_t exchange = (std::max(rank, tile() * moved) + 7) / 8 * 8 + (counters_apart ? rank : 0);
        if (one_tile)  // tile_counts, tile_starts and the scan's sums beside the exchange
            return exchange + 256 * (4 + 8) + group_size * 8 + (value_size > 0 && counters_apart ? tile() * 2 : 0);
        const std::size_t digits = 256 * (4 + 8 + 8) + group_size * 8 + 4;
        const bool digits_kept = value_size > 0 && value_exchange && early_values && digits_in_registers;
        return exchange + digits + (value_size > 0 && !digits_kept ? tile() : 0);
    }
};

/// The tiers a variable names, as `items:most_keys` separated by commas, most_keys rising (`none`: no tiers);
/// nothing where it is unset or empty. Anything else throws, naming the variable.
inline std::optional<std::vector<RadixTier>> radix_tiers_variable(const char* name) {
    const auto value = environment(name);
    if (!value || value->empty()) return std::nullopt;
    std::vector<RadixTier> tiers;
    if (*value == "none") return tiers;
    auto fail = [&]() -> std::invalid_argument {
        return std::invalid_argument(std::string("clalgo: ") + name + "='" + *value +
                                     "': expected none or tiers items:keys separated by commas (such as "
                                     "8:32768,16:2097152), items 1 to 32 and keys rising");
    };
    std::size_t at = 0;
    while (at <= value->size()) {
        const std::size_t end = std::min(value->find(',', at), value->size());
        const std::string tier = value->substr(at, end - at);
        const std::size_t colon = tier.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == tier.size() ||
            tier.find_first_not_of("0123456789:") != std::string::npos || tier.find(':', colon + 1) != std::string::npos ||
            colon > 2 || tier.size() - colon - 1 > 13)
            throw fail();
        const std::size_t items = std::stoul(tier.substr(0, colon));
        const std::uint64_t keys = std::stoull(tier.substr(colon + 1));
        if (items < 1 || items > 32 || (!tiers.empty() && keys <= tiers.back().most_keys)) throw fail();
        tiers.push_back({items, keys});
        at = end + 1;
    }
    return tiers;
}

/// The policy of a radix sort of keys of key_size bytes (floating point: `floating_keys`) with values of
/// value_size bytes (0: keys alone); `positions`: a sort that also makes its values from the keys' positions
/// (argsort's RadixSortKernel).
inline RadixSortPolicy radix_sort_policy(const DeviceInfo& info, std::size_t key_size, std::size_t value_size,
                                         SortAlgorithm requested, const TunedValues& tuned = {},
                                         bool floating_keys = false, bool positions = false) {
    RadixSortPolicy policy;
    const DeviceClass device = device_class(info);
    if (requested == SortAlgorithm::automatic) {
        if (auto forced = tuning_choice("CLALGO_SORT_ALGORITHM", {"blocks", "onesweep"}))
            requested = *forced == "blocks" ? SortAlgorithm::blocks : SortAlgorithm::onesweep;
    }
    // onesweep needs 64-bit atomics for its look-back words and groups of at least 32; CPUs want the blocks
    const bool onesweep_possible = info.has_int64_atomics && info.max_work_group_size >= 32;
    policy.algorithm = requested;
    if (policy.algorithm == SortAlgorithm::automatic)
        policy.algorithm = device != DeviceClass::cpu && onesweep_possible ? SortAlgorithm::onesweep : SortAlgorithm::blocks;
    if (policy.algorithm == SortAlgorithm::onesweep && !onesweep_possible) policy.algorithm = SortAlgorithm::blocks;

    // the autotuner's values (policy/tuned.hpp) replace the hand-set defaults; the CLALGO_SORT_* variables win
    policy.max_blocks = std::size_t(info.compute_units) * tuned.get("sort.blocks_per_unit", 1, 256).value_or(8);
    if (policy.algorithm == SortAlgorithm::blocks) return policy;

    const std::size_t largest = std::min<std::size_t>(1024, info.max_work_group_size);
    // keys of up to 32 bits without values (integer or float): the form measured fastest for them
    // (docs/architecture.md)
    const bool narrow_keys = key_size <= 4 && value_size == 0;
    // 64-bit keys alone or 64-bit integer keys with values (not double keys with values): the forms measured
    // fastest for uint64 keys (double keys alone too: on an H200, doubles in [-1, 1), at 2^24 1,173 to 1,181 µs
    // against 1,248 to 1,255 in their own, at 2^26 4,138 to 4,159 against 4,460 to 4,478, at 2^22 393 to 394
    // against 434; in tiles of 30 they took 1,348 µs at 2^24)
    const bool wide_keys = key_size == 8 && (value_size == 0 || !floating_keys);
    if (device == DeviceClass::nvidia_gpu) {
        // groups of 256 (fewer keys a work-item where local memory runs short). Each tile as large as NVIDIA's
        // compiler still gives 128 registers (two groups an SM; at 149 to 185 registers one group fits, and a
        // pass takes 30 to 48 µs longer). On an H200, with the items' indices in 32 bits: 32-bit keys alone in
        // 38 keys a work-item (the most local memory holds; 2^24 keys in 415 to 416 µs against 425 in 36), pairs
        // of them in 36 (577 to 582 µs against 606 in 33 or 34, 619 in 30, 699 to 717 in 35, 37 or 38 and 766
        // in 32, which take 149 to 185 registers), 64-bit keys in 30 (1,108 to 1,114 µs against 1,142 in 29,
        // 1,154 in 26, 1,156 in 28 and 1,318 to 1,347 in 31 or 32); float and int32 keys alike as uint32 (414
        // to 417 µs), int64 keys as uint64 (1,119 to 1,124 µs); double keys in 28 (wide_keys above). Other keys
        // keep 28 (not timed so) (docs/architecture.md)
        policy.group_size = 256;
        if (narrow_keys)
            policy.items = 38;
        else if (key_size <= 4 && !floating_keys)
            policy.items = value_size <= 4 ? 36 : 32;
        else
            policy.items = key_size == 8 && value_size == 0 && !floating_keys ? 30 : 28;
    } else if (device == DeviceClass::other_gpu) {
        policy.group_size = 128;
        policy.items = 8;
    } else {
        // forced onto a CPU (tests): small tiles, so that a few thousand keys make many tiles
        policy.group_size = 64;
        policy.items = 4;
    }
    if (auto group = tuned.get("sort.group_size", 32, 1024)) policy.group_size = static_cast<std::size_t>(*group);
    if (auto items = tuned.get("sort.items", 1, 48)) policy.items = static_cast<std::size_t>(*items);
    if (auto group = tuning_number("CLALGO_SORT_GROUP", 32, 1024)) policy.group_size = static_cast<std::size_t>(*group);
    if (auto items = tuning_number("CLALGO_SORT_ITEMS", 1, 48)) policy.items = static_cast<std::size_t>(*items);
    // NVIDIA ranks (count_tile, place_tile) and scans (scan_sums) a warp of 32 at a time, so any number of whole
    // warps serves there (CUB's tiles are of 384); elsewhere a power of two
    const std::size_t group = std::min(policy.group_size, largest);
    policy.group_size = device == DeviceClass::nvidia_gpu && group >= 32 ? group / 32 * 32 : power_of_two_at_most(group);
    policy.match_rank = device == DeviceClass::nvidia_gpu && policy.group_size % 32 == 0;
    // checked on every onesweep device. On an H100, 32-bit keys alone (integer or float) ranked fastest with both
    // the atomic match and the atomic counters, 64-bit keys with ballots and warp barriers; on an H200, pairs of
    // 32-bit integer keys and values ranked like keys alone (and their keys in local memory before the look-back,
    // below) sorted 1 to 4 % faster from 2^22 to 2^28 (docs/architecture.md); float keys with values, not timed
    // so, keep ballots
    const bool ranked_as_keys = narrow_keys || (key_size <= 4 && value_size <= 4 && !floating_keys);
    const auto rank = tuning_choice("CLALGO_SORT_RANK", {"sync", "atomic"});
    policy.forms.rank_atomics = policy.match_rank && rank.value_or(ranked_as_keys ? "atomic" : "sync") == "atomic";
    policy.small_forms.rank_atomics = policy.match_rank && rank.value_or("sync") == "atomic";
    const auto match = tuning_choice("CLALGO_SORT_MATCH", {"ballots", "or"});
    policy.forms.match_or = policy.match_rank && match.value_or(ranked_as_keys ? "or" : "ballots") == "or";
    policy.small_forms.match_or = policy.match_rank && match.value_or("ballots") == "or";
    const bool shuffle = tuning_switch("CLALGO_SORT_SHUFFLE_SCAN").value_or(true);  // checked on every onesweep device
    policy.shuffle_scan = policy.match_rank && shuffle;
    // on an H100, 2^14 keys sorted fastest in tiles of 8 keys a work-item, 2^16 to 2^20 in tiles of 16, from 2^22
    // on in tiles of 28 (docs/architecture.md): tiers up to 2^15 and 2^21 keys; 64-bit integer keys (and double
    // keys alone: wide_keys) up to 2^22 in tiles of 20 (at 2^22 447 to 452 µs against 464 to 467 in their tiles of
    // 28; 32-bit keys and pairs were slower in tiles of 16, 20 or 24 there)
    if (device == DeviceClass::nvidia_gpu) policy.tiers = {{8, std::uint64_t(1) << 15}, {16, std::uint64_t(1) << 21}};
    if (device == DeviceClass::nvidia_gpu && wide_keys) policy.tiers.push_back({20, std::uint64_t(1) << 22});
    if (auto tiers = radix_tiers_variable("CLALGO_SORT_TIERS")) policy.tiers = *tiers;
    if (auto values = tuning_choice("CLALGO_SORT_VALUES", {"exchange", "late", "gather"})) {
        policy.value_exchange = *values != "gather";
        policy.early_values = *values == "exchange";
    }
    // each tile's counts published before its keys are placed: on an H200 at 2^28 keys, 32-bit keys took
    // 7.16 ms for 7.64 alone and 9.27 for 9.87 in pairs, but 64-bit keys (in halves) 22.9 ms for 19.0
    policy.early_counts = tuning_switch("CLALGO_SORT_EARLY_COUNTS").value_or(key_size <= 4);
    // each tile's values asked into the L2 cache as the tile begins, so that their loads after the look-back wait
    // less: on an H200, pairs of uint32 keys and values sorted in 612 to 616 µs against 630 to 636 at 2^24, 2,153
    // to 2,155 against 2,182 to 2,187 at 2^26 (argsort alike), but no faster in the tiers' smaller tiles
    // (with_tier); pairs in the form of ballots (64-bit values, float keys) not timed so
    const auto prefetch = tuning_switch("CLALGO_SORT_PREFETCH_VALUES");
    policy.prefetch_values = device == DeviceClass::nvidia_gpu && value_size > 0 && prefetch.value_or(ranked_as_keys);
    // each place's digit kept in registers between the keys' writes and the values', so that local memory holds
    // a tile of 36 pairs (not 31) or of 19 keys with 64-bit values (not 17): on an H200 (in tiles of 32, the
    // items' indices in 64 bits), integer keys of 32 bits with values at 2^24 618 to 619 µs against 624 to 625,
    // argsort 635 to 636 against 642 to 643, with 64-bit values 784 to 787 against 801 to 803, and pairs at 2^26
    // 2,143 to 2,147 against 2,176 to 2,191; tiles of 36 pairs then took 173 registers (one group an SM) and 780 µs
    // at 2^24. The tiers' smaller tiles keep local memory (with_tier), as do 64-bit and float keys with values (not
    // timed so).
    const auto digits = tuning_switch("CLALGO_SORT_DIGITS_IN_REGISTERS");
    policy.digits_in_registers = value_size > 0 && digits.value_or(key_size <= 4 && !floating_keys);
    // a full tile's writes with no test of the tile's end, unrolled over a work-item's places, so that NVIDIA's
    // compiler issues the local reads ahead of the writes: on an H200 (one command, two rounds, alternately) 64-bit
    // keys at 2^24 in 1,180 to 1,182 µs against 1,212 to 1,222, at 2^28 16,209 to 16,223 against 16,618 to 16,659;
    // pairs at 2^24 597 to 602 against 612, argsort 609 to 610 against 621 to 628, uint32 keys with uint64 values
    // 749 against 771 to 772; but 32-bit keys alone 431 to 435 against 426 to 427 (2^28: 5,778 to 5,794 against
    // 5,743 to 5,747) and the tiers' tiles of pairs at 2^20 75.3 to 75.7 against 73.6 to 73.8, which keep tests.
    // Double keys alone take them as 64-bit integer keys alone do; float keys with values and 64-bit keys with
    // values were not timed so and keep the tests
    const auto full_writes = tuning_switch("CLALGO_SORT_FULL_TILE_WRITES");
    const bool full_writes_timed = value_size > 0 ? key_size <= 4 && !floating_keys : key_size == 8;
    policy.full_tile_writes = full_writes.value_or(device == DeviceClass::nvidia_gpu && full_writes_timed);
    // each digit's place in the output in 32 bits (RadixSortKernel takes 64 bits past 2^32 keys), which spares
    // the writes the high halves of their sums: on an H200 (one command, two rounds, alternately) pairs at 2^24 in
    // 568 to 569 µs against 577 to 578 in 64 bits, at 2^26 1,945 to 1,956 against 2,052 to 2,055, at 2^28 7,406
    // to 7,440 against 7,864 to 7,911, argsort at 2^26 2,004 to 2,011 against 2,102 to 2,104; 32-bit keys alone and
    // double keys as fast either way. 64-bit integer keys in tiles of 30 took 180 registers so (one group an SM;
    // 1,348 µs at 2^24 against 1,110) and keep 64 bits, with values too (not timed so)
    policy.wide_places = tuning_switch("CLALGO_SORT_WIDE_PLACES").value_or(key_size == 8 && !floating_keys);
    // a look-back of four tiles a step for pairs of integer keys and values of up to 32 bits (timed with 32-bit
    // ones): on an H200 (one command, two rounds, in turn with 8, 16 and 32) 562 to 564 µs at 2^24 against 568 to
    // 570, 1,923 to 1,924 at 2^26 against 1,937 to 1,941, 7,288 to 7,291 at 2^28 against 7,339 to 7,357; but
    // argsort (its positions as the values) 556 to 557 against 549 to 551 at 2^24 and 7,469 to 7,478 against
    // 7,113 to 7,125 at 2^28, uint64 keys 1,337 to 1,353 against 1,111 to 1,115 at 2^24; uint32 keys were mixed
    // (1,454 to 1,457 against 1,463 to 1,466 at 2^26, 5,588 to 5,602 against 5,538 to 5,551 at 2^28); 16 and 32
    // were no faster for any. Eight for the rest, and in the tiers' tiles (not timed so)
    const bool pairs_window = device == DeviceClass::nvidia_gpu && ranked_as_keys && value_size > 0 && !positions;
    policy.look_back_window = static_cast<std::size_t>(
        tuning_number("CLALGO_SORT_LOOK_BACK_WINDOW", 1, 32).value_or(pairs_window ? 4 : RadixSortPolicy::default_look_back_window));
    // the tile's keys into local memory before the look-back: on an H100, 64-bit keys sorted 5 to 9 % faster from
    // 2^22 on, 32-bit keys alone in tiles of 36 fastest so; pairs of 32-bit keys no faster with ballots, but with
    // the atomic ranking above (on an H200 at 2^24, 635 µs against 643 with their keys after the look-back)
    const auto keys_before = tuning_switch("CLALGO_SORT_KEYS_BEFORE_LOOK_BACK");
    policy.forms.keys_before_look_back = keys_before.value_or(ranked_as_keys || wide_keys);
    policy.small_forms.keys_before_look_back = keys_before.value_or(false);
    // 64-bit keys in halves: a tile holds 28 of them, not 19
    policy.split_keys = key_size == 8 && tuning_switch("CLALGO_SORT_SPLIT_KEYS").value_or(device == DeviceClass::nvidia_gpu);
    const std::size_t budget = info.local_memory_bytes > 2048 ? info.local_memory_bytes - 2048 : 0;
    // the or-match's words (3 KiB a warp) where not even a tile of one key a work-item fits beside them (groups of
    // 512): lanes matched by ballots instead, so that the group stays as asked
    RadixSortPolicy single = policy;
    single.items = 1;
    if (policy.forms.match_or && single.local_bytes(key_size, value_size) > budget) policy.forms.match_or = false;
    // fewer keys a work-item where local memory runs short, then (tuned or forced groups) fewer work-items
    while (policy.local_bytes(key_size, value_size) > budget && (policy.items > 1 || policy.group_size > 32)) {
        if (policy.items > 1)
            --policy.items;
        else  // whole warps where the ranking takes them
            policy.group_size = policy.match_rank ? std::max<std::size_t>(32, policy.group_size / 64 * 32) : policy.group_size / 2;
    }
    // tiers only of smaller tiles, each taking inputs of more than one (whole) tile
    std::vector<RadixTier> kept;
    for (const auto& tier : policy.tiers)
        if (tier.items < policy.items && tier.most_keys > policy.tile()) kept.push_back(tier);
    policy.tiers = kept;
    policy.histogram_groups = std::size_t(info.compute_units) * 8;  // enough work-items to fill the device
    // one work-group alone ranks an input of one tile digit after digit: more work-items, each with fewer keys,
    // shorten each digit (GPUs: groups of up to 1024, as local memory allows); CPUs keep their small groups
    policy.tile_group_max = device == DeviceClass::cpu ? policy.group_size
                                                       : power_of_two_at_most(std::min<std::size_t>(1024, info.max_work_group_size));
    if (auto group = tuning_number("CLALGO_SORT_TILE_GROUP", 1, 1024))
        policy.tile_group_max = power_of_two_at_most(std::min<std::size_t>(std::size_t(*group), info.max_work_group_size));
    policy.tile_group_max = std::max(policy.tile_group_max, policy.group_size);
    return policy;
}

/// The radix sort policies the autotuner tries on a device (timed with 32-bit keys): on GPUs the onesweep tile
/// (work-items, keys each), each as the policy takes it (within local memory) and of 2,048 keys or more (each
/// tile costs 2 KiB of look-back words); on CPUs the most blocks a pass splits the keys into, per compute unit.
inline std::vector<TunedValues> radix_sort_candidates(const DeviceInfo& info) {
    std::vector<TunedValues> candidates;
    const RadixSortPolicy plain = radix_sort_policy(info, 4, 0, SortAlgorithm::automatic);
    if (plain.algorithm == SortAlgorithm::blocks) {
        for (std::uint64_t per_unit : {1, 2, 4, 8, 16, 32}) {
            TunedValues values;
            values.set("sort.blocks_per_unit", per_unit);
            candidates.push_back(values);
        }
        return candidates;
    }
    for (std::uint64_t group : {64, 128, 256, 512})
        for (std::uint64_t items : {8, 12, 16, 20, 24, 28, 32}) {
            TunedValues values;
            values.set("sort.group_size", group);
            values.set("sort.items", items);
            const RadixSortPolicy policy = radix_sort_policy(info, 4, 0, SortAlgorithm::automatic, values);
            if (policy.group_size == group && policy.items == items && policy.tile() >= 2048) candidates.push_back(values);
        }
    return candidates;
}

/// The shape of the one-tile sort of size class k (policy.one_tile_keys(k) keys) on a device. On NVIDIA the
/// ranking's counters apart from the keys (fewer warps to wait for at each barrier) in the largest group of at most
/// 16 keys a work-item where local memory holds them so; else keys alone in the passes' group. Otherwise (pairs on
/// NVIDIA, every sort elsewhere) work-items of at least 8 keys each where the group can grow (up to tile_group_max
/// and the device's local memory), so that each digit's ranking is short. On an H100, 4096 keys sorted fastest in
/// 256 x 16 with the counters apart (against 512 x 8 and 1024 x 4); on an H200, 8,192 uint32 keys in 256 x 32 with
/// them apart (18.7 to 18.9 us against 24.9 to 25.1 in 1024 x 8), pairs of 8,192 in 1024 x 8 (28.6 to 28.8 us
/// against 31.9 to 32.3 in 256 x 32) and a whole tile of 9,216 pairs in 512 x 18 (34.6 to 34.7 against 35.6 to 36.0
/// in 256 x 36; docs/architecture.md). The one-tile sort moves item numbers through local memory, not values (it
/// gathers each value once, at the end).
inline RadixSortPolicy radix_tile_policy(const DeviceInfo& info, const RadixSortPolicy& policy, std::size_t k,
                                         std::size_t key_size, std::size_t value_size) {
    RadixSortPolicy shape = policy.with_small_forms();
    shape.one_tile = true;
    shape.value_exchange = false;
    shape.early_values = false;
    shape.prefetch_values = false;
    shape.early_counts = false;  // one tile publishes nothing: the variable need not build these programs again
    shape.full_tile_writes = false;  // the one-tile sort has loops of its own
    const std::size_t keys = policy.one_tile_keys(k);
    const std::size_t budget = info.local_memory_bytes > 2048 ? info.local_memory_bytes - 2048 : 0;
    // the shape in groups of `group`: whether local memory holds it, with the ranking's counters apart from the
    // keys where it holds both (`apart_only`: only so)
    auto fits = [&](std::size_t group, bool apart_only) {
        shape.group_size = group;
        shape.items = (keys + group - 1) / group;
        shape.counters_apart = policy.match_rank;
        if (shape.local_bytes(key_size, value_size) <= budget) return true;
        shape.counters_apart = false;
        return !apart_only && shape.local_bytes(key_size, value_size) <= budget;
    };
    if (policy.match_rank) {
        // NVIDIA: the counters apart, in the largest group of at most 16 keys a work-item where they fit so (fewer
        // warps to wait for at each barrier): on an H200, 8,192 uint32 keys sorted in 18.7 to 18.8 us in 256 x 32
        // so, against 24.8 to 25.0 in 1024 x 8 and 27.1 in 512 x 16 with the counters among the keys
        const std::size_t fewer = std::min(policy.tile_group_max, power_of_two_at_most(std::max<std::size_t>(1, keys / 16)));
        for (std::size_t group = fewer; group >= policy.group_size; group /= 2)
            if (fits(group, true)) return shape;
        // keys alone whose counters cannot be apart keep the passes' group: 9,216 uint32 keys sorted in 34.0 to
        // 34.8 us in 256 x 38 against 35.0 to 35.8 in 512 x 19
        if (value_size == 0) {
            fits(policy.group_size, false);
            return shape;
        }
    }
    for (std::size_t group = std::min(policy.tile_group_max, power_of_two_at_most(std::max<std::size_t>(1, keys / 8)));
         group >= policy.group_size; group /= 2)
        if (fits(group, false) || group == policy.group_size) return shape;
    fits(policy.group_size, false);
    return shape;
}

}  // namespace detail
}  // namespace clalgo
