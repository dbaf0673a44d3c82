// How a scan runs on a device class: the algorithm (chained blocks on CPUs, serial blocks there where the output
// needs the total first, single pass with decoupled look-back on NVIDIA, reduce-then-scan on other GPUs), the
// tile, warp shuffles and ballots on NVIDIA, and the tuning variables CLALGO_SCAN_ALGORITHM, CLALGO_SCAN_ITEMS,
// CLALGO_SCAN_GROUP_SIZE, CLALGO_SCAN_BLOCK and CLALGO_SCAN_BALLOT, each checked. Tuned values replace the hand-set tile:
// scan.<value bytes>.group_size and .items, compaction.group_size and .items (the ballot path),
// scan.<value bytes>.block_items (chained), scan.<value bytes>.blocks_per_unit (serial: read where a tuning file
// has it; the tuner times the chained blocks).
//   detail::ScanPlan plan = detail::scan_policy(info, {sizeof(int), false, false, false, ScanAlgorithm::automatic});
#pragma once

#include <clalgo/core/device_info.hpp>
#include <clalgo/policy/device_class.hpp>
#include <clalgo/policy/map.hpp>
#include <clalgo/policy/tuned.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace clalgo {

/// How a scan runs. `automatic` picks single_pass on NVIDIA GPUs, reduce_then_scan on other GPUs and chained on
/// x86-64 CPUs (serial there where the output statement uses last_item, and on other CPUs); the others force a
/// choice (for tests, or for a device whose needs you know).
enum class ScanAlgorithm {
    automatic,
    single_pass,       ///< decoupled look-back: reads and writes each item once
    reduce_then_scan,  ///< tiles reduced, then rescanned: reads twice, never waits on other work-groups
    serial,            ///< one work-item per contiguous block, reduced then rescanned: for CPU devices
    /// one work-item per core takes cache-sized blocks in turn: folds a block, takes the total before it from the
    /// blocks before (look-back), scans the block again while it is still in the cache; for CPU devices
    chained,
};

namespace detail {

struct ScanPlan {
    ScanAlgorithm algorithm = ScanAlgorithm::serial;
    std::size_t group_size = 1;
    std::size_t items = 1;        ///< per work-item in a tile
    std::size_t max_groups = 1;   ///< reduce_then_scan: work-groups; serial: blocks; chained: work-items
    std::size_t block_items = 0;  ///< chained: items of a block
    bool warp_shuffle = false;
    bool packed_status = false;   ///< look-back status and value in one 64-bit word
    /// look-back status and a value of 5 to 8 bytes in one 16-byte word, written and read as one 16-byte access
    /// (NVIDIA, as CUB's tile state does; CLALGO_SCAN_WIDE_STATUS switches it)
    bool wide_packed_status = false;
    bool ballot_compaction = false;  ///< compaction by warp ballots, with no scan of values (NVIDIA, single pass)
    bool device_fence_ptx = false;   ///< publish look-back values with NVIDIA's membar.gl (inline PTX)
    std::size_t tile() const { return group_size * items; }
    /// chained: the items of a block in a call over n items; smaller than block_items where the input is small,
    /// so that every work-item gets about four blocks, but none below 4,096 items
    std::uint64_t chained_block(std::uint64_t n) const {
        const std::uint64_t spread = divide_up(n, 4 * std::uint64_t(max_groups));
        return std::min<std::uint64_t>(block_items, std::max<std::uint64_t>(std::min<std::uint64_t>(block_items, 4096), spread));
    }
};

/// What the policy needs to know of a scan kernel.
struct ScanTraits {
    std::size_t value_size = 4;
    bool segmented = false;
    bool uses_last_item = false;    ///< the output statement needs the total first: no single pass
    bool plain_compaction = false;  ///< a compaction and nothing else: the ballot path may count kept items
    ScanAlgorithm requested = ScanAlgorithm::automatic;
    bool composite = false;         ///< values of a kernel built on the scan (reduce_by_key's (count, value) pairs)
};

/// Local memory of a tile (an upper bound for ballot compaction, which keeps no values there).
inline std::size_t scan_local_bytes(const ScanPlan& plan, const ScanTraits& traits) {
    const std::size_t tile = plan.tile();
    return (tile + tile / 32 + plan.group_size) * traits.value_size + (traits.segmented ? tile : 1) + plan.group_size * 4 + 256;
}

/// Whether the host keeps stores in order, and loads in order (x86-64): what the chained scan's look-back needs
/// of a CPU device, which runs on the host.
constexpr bool host_orders_stores() {
#if defined(__x86_64__) || defined(_M_X64)
    return true;
#else
    return false;
#endif
}

inline ScanPlan scan_policy(const DeviceInfo& info, const ScanTraits& traits, const TunedValues& tuned = {}) {
    const DeviceClass device = device_class(info);
    const bool cpu = device == DeviceClass::cpu, nvidia = device == DeviceClass::nvidia_gpu;
    ScanPlan plan;
    plan.device_fence_ptx = nvidia;
    plan.algorithm = traits.requested;
    if (plan.algorithm == ScanAlgorithm::automatic) {
        // CLALGO_SCAN_ALGORITHM overrides the choice, where the output statement allows it (for comparisons)
        if (auto forced = tuning_choice("CLALGO_SCAN_ALGORITHM", {"serial", "chained", "single_pass", "reduce_then_scan"})) {
            const bool one_pass = *forced == "chained" || *forced == "single_pass";
            if (!(one_pass && traits.uses_last_item))
                plan.algorithm = *forced == "serial"        ? ScanAlgorithm::serial
                                 : *forced == "chained"     ? ScanAlgorithm::chained
                                 : *forced == "single_pass" ? ScanAlgorithm::single_pass
                                                            : ScanAlgorithm::reduce_then_scan;
        }
    }
    if (plan.algorithm == ScanAlgorithm::automatic) {
        // chained relies on the CPU's ordering of stores and of loads (x86-64's) for its look-back words, which
        // PoCL's fences and relaxed atomics do not order by themselves; other CPUs keep the serial blocks
        if (cpu) plan.algorithm = traits.uses_last_item || !host_orders_stores() ? ScanAlgorithm::serial : ScanAlgorithm::chained;
        else if (nvidia && !traits.uses_last_item) plan.algorithm = ScanAlgorithm::single_pass;
        else plan.algorithm = ScanAlgorithm::reduce_then_scan;
    }
    if (plan.algorithm == ScanAlgorithm::serial) {
        const std::string key = "scan." + std::to_string(traits.value_size) + ".blocks_per_unit";
        plan.max_groups = std::size_t(info.compute_units) * tuned.get(key, 1, 256).value_or(8);
        return plan;
    }
    if (plan.algorithm == ScanAlgorithm::chained) {
        // blocks of 256 KiB of values stay in a core's cache between the fold and the scan (on the 2-core
        // development machine 64 to 256 KiB did best, docs/architecture.md); forced, small blocks exercise the
        // look-back over many blocks
        const std::string key = "scan." + std::to_string(traits.value_size) + ".block_items";
        const std::uint64_t automatic = std::max<std::uint64_t>(256, (256 << 10) / std::max<std::size_t>(1, traits.value_size));
        const std::uint64_t hand_set = traits.requested == ScanAlgorithm::chained
                                           ? 64  // forced (tests): a tuned block would hide the look-back
                                           : tuned.get(key, 1, std::uint64_t(1) << 30).value_or(automatic);
        plan.block_items = static_cast<std::size_t>(tuning_number("CLALGO_SCAN_BLOCK", 1, std::uint64_t(1) << 30).value_or(hand_set));
        plan.max_groups = std::size_t(info.compute_units);
        plan.packed_status = traits.value_size <= 4 && info.has_int64_atomics;
        return plan;
    }
    // a compaction and nothing else counts kept items with warp ballots on NVIDIA (CLALGO_SCAN_BALLOT=0: not)
    const bool ballot = traits.plain_compaction && plan.algorithm == ScanAlgorithm::single_pass && nvidia &&
                        tuning_switch("CLALGO_SCAN_BALLOT").value_or(true);
    // tiles of 64 work-items with up to 64 items each, about 16 KiB of values: on an H200, 64 x 64 int32
    // beat 256 x 16, 128 x 32, 32 x 128 and the other shapes tried (docs/architecture.md); smaller tiles
    // where a tiled algorithm is forced on a CPU, to exercise many tiles. Ballot compaction keeps no values
    // in local memory: there 128 x 32 beat the other shapes from 32 x 16 to 256 x 64 on an H200.
    const std::size_t largest = power_of_two_at_most(std::min<std::size_t>(256, info.max_work_group_size));
    // reduce_by_key's pairs: on an H100, 256 x 8 took 2,267 us for 2^28 items against 2,622 us for the plain
    // scans' 64 x 32 and 2,486 us for 128 x 16 (docs/architecture.md, "Design notes")
    const std::string prefix = ballot ? "compaction." : traits.composite ? "scan.composite." + std::to_string(traits.value_size) + "."
                                                                         : "scan." + std::to_string(traits.value_size) + ".";
    plan.group_size = power_of_two_at_most(std::min<std::size_t>(
        tuned.get(prefix + "group_size", 32, 1024).value_or(ballot ? 128 : traits.composite && nvidia ? 256 : 64), largest));
    plan.items = ballot ? 32
                 : traits.composite && nvidia ? 8
                 : std::clamp<std::size_t>(16384 / (plan.group_size * traits.value_size), 1, 64);
    if (cpu) plan.items = std::min<std::size_t>(plan.items, 4);
    if (auto items = tuned.get(prefix + "items", 1, 64)) plan.items = static_cast<std::size_t>(*items);
    // tuning knobs for experiments (docs/caching-and-environment.md): items per work-item, work-group size
    if (auto items = tuning_number("CLALGO_SCAN_ITEMS", 1, 64)) plan.items = static_cast<std::size_t>(*items);
    if (auto group = tuning_number("CLALGO_SCAN_GROUP_SIZE", 32, 1024))
        plan.group_size = power_of_two_at_most(std::min<std::size_t>(static_cast<std::size_t>(*group), largest));
    while (plan.items > 1 && scan_local_bytes(plan, traits) + 1024 > info.local_memory_bytes) plan.items /= 2;
    while (plan.group_size > 32 && scan_local_bytes(plan, traits) + 1024 > info.local_memory_bytes) plan.group_size /= 2;
    plan.warp_shuffle = nvidia && traits.value_size % 4 == 0 && plan.group_size >= 32;
    plan.packed_status = traits.value_size <= 4 && info.has_int64_atomics;
    // reduce_by_key's 8-byte (run count, value) pairs on an H100: 1,722 us at 2^28 with one 16-byte word,
    // 2,303 us with the status and the value apart behind a device fence (docs/architecture.md)
    const bool wide_possible =
        !plan.packed_status && traits.value_size <= 8 && plan.algorithm == ScanAlgorithm::single_pass;
    plan.wide_packed_status = wide_possible && tuning_switch("CLALGO_SCAN_WIDE_STATUS").value_or(nvidia);
    plan.ballot_compaction = ballot && plan.warp_shuffle && plan.group_size % 32 == 0 && plan.items <= 64;
    plan.max_groups = std::size_t(info.compute_units) * (cpu ? 4 : 8);
    return plan;
}

/// The scan policies the autotuner tries on a device of this class, for values of `value_size` bytes (or, with
/// `ballot`, for the ballot compaction): those that the device's local memory holds as they are.
inline std::vector<TunedValues> scan_candidates(const DeviceInfo& info, std::size_t value_size, bool ballot) {
    std::vector<TunedValues> candidates;
    const ScanTraits traits{value_size, false, false, ballot, ScanAlgorithm::automatic};
    const ScanPlan plain = scan_policy(info, traits);
    if (plain.algorithm == ScanAlgorithm::chained) {
        if (ballot) return candidates;
        for (std::uint64_t bytes : {32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1024 << 10}) {
            TunedValues values;
            values.set("scan." + std::to_string(value_size) + ".block_items", bytes / value_size);
            if (scan_policy(info, traits, values).block_items == bytes / value_size) candidates.push_back(values);
        }
        return candidates;
    }
    if (plain.algorithm == ScanAlgorithm::serial) {
        if (ballot) return candidates;
        for (std::uint64_t per_unit : {1, 2, 4, 8, 16, 32}) {
            TunedValues values;
            values.set("scan." + std::to_string(value_size) + ".blocks_per_unit", per_unit);
            candidates.push_back(values);
        }
        return candidates;
    }
    if (ballot && !plain.ballot_compaction) return candidates;
    const std::string prefix = ballot ? "compaction." : "scan." + std::to_string(value_size) + ".";
    for (std::uint64_t group : {64, 128, 256})
        for (std::uint64_t items : {8, 16, 24, 32, 48, 64}) {
            TunedValues values;
            values.set(prefix + "group_size", group);
            values.set(prefix + "items", items);
            const ScanPlan plan = scan_policy(info, traits, values);
            if (plan.group_size == group && plan.items == items) candidates.push_back(values);
        }
    return candidates;
}

}  // namespace detail
}  // namespace clalgo
