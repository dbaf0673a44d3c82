// Tuning as data: tuned values replace the hand-set policies for every device class (and the tuning variables
// still win), tuning files are read back for their own device and driver only, stale and corrupt files read as
// nothing, CLALGO_TUNING=0 ignores them, and the autotuner on this machine's device stores a policy that the
// kernels made afterwards use, with results still right.
#include "support.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using clalgo::DeviceClass;
using clalgo::ScanAlgorithm;
using clalgo::typical_device;
using clalgo::detail::ScanTraits;
using clalgo::detail::TunedValues;
using clalgo_test::ScopedVariable;

namespace {

TEST(TunedPolicy, TunedValuesReplaceTheHandSetReductionOnEveryDeviceClass) {
    for (auto device : {DeviceClass::cpu, DeviceClass::nvidia_gpu, DeviceClass::other_gpu}) {
        const auto info = typical_device(device);
        const auto plain = clalgo::detail::reduction_policy(info, {4, true, 4});
        TunedValues tuned;
        tuned.set("reduction.groups_per_unit", 3);
        tuned.set("reduction.unroll", 7);
        tuned.set("reduction.group_size", 128);
        const auto plan = clalgo::detail::reduction_policy(info, {4, true, 4}, tuned);
        EXPECT_EQ(plan.max_groups, std::size_t(info.compute_units) * 3);
        EXPECT_EQ(plan.unroll, 7);
        EXPECT_EQ(plan.group_size, device == DeviceClass::cpu ? 1u : 128u);  // CPUs keep one work-item per group
        EXPECT_NE(plan.max_groups, plain.max_groups);
        // values outside their range are ignored, not used
        TunedValues wild;
        wild.set("reduction.unroll", 1000);
        wild.set("reduction.group_size", 3);
        const auto kept = clalgo::detail::reduction_policy(info, {4, true, 4}, wild);
        EXPECT_EQ(kept.unroll, plain.unroll);
        EXPECT_EQ(kept.group_size, plain.group_size);
    }
}

TEST(TunedPolicy, TunedTilesReplaceTheScansAndTheBallotCompactionsAndTheVariablesStillWin) {
    const auto nvidia = typical_device(DeviceClass::nvidia_gpu);
    TunedValues tuned;
    tuned.set("scan.4.group_size", 128);
    tuned.set("scan.4.items", 24);
    tuned.set("compaction.group_size", 256);
    tuned.set("compaction.items", 16);
    const auto scan = clalgo::detail::scan_policy(nvidia, ScanTraits{4, false, false, false, ScanAlgorithm::automatic}, tuned);
    EXPECT_EQ(scan.group_size, 128u);
    EXPECT_EQ(scan.items, 24u);
    const auto wide = clalgo::detail::scan_policy(nvidia, ScanTraits{8, false, false, false, ScanAlgorithm::automatic}, tuned);
    EXPECT_EQ(wide.group_size, 64u);  // 8-byte values have keys of their own
    const auto ballot = clalgo::detail::scan_policy(nvidia, ScanTraits{4, false, false, true, ScanAlgorithm::automatic}, tuned);
    EXPECT_TRUE(ballot.ballot_compaction);
    EXPECT_EQ(ballot.group_size, 256u);
    EXPECT_EQ(ballot.items, 16u);
    {
        ScopedVariable items("CLALGO_SCAN_ITEMS", std::string("8"));
        EXPECT_EQ(clalgo::detail::scan_policy(nvidia, ScanTraits{4, false, false, false, ScanAlgorithm::automatic}, tuned).items, 8u);
    }
    // a tuned tile that the local memory cannot hold still shrinks until it fits
    TunedValues huge;
    huge.set("scan.8.group_size", 1024);
    huge.set("scan.8.items", 64);
    const auto other = typical_device(DeviceClass::other_gpu);
    const auto fitted = clalgo::detail::scan_policy(other, ScanTraits{8, false, false, false, ScanAlgorithm::automatic}, huge);
    EXPECT_LE(clalgo::detail::scan_local_bytes(fitted, ScanTraits{8}) + 1024, other.local_memory_bytes);
    // CPUs tune the chained blocks' items, and the number of serial blocks (outputs that use last_item)
    const auto cpu = typical_device(DeviceClass::cpu);
    TunedValues blocks;
    blocks.set("scan.4.blocks_per_unit", 2);
    blocks.set("scan.4.block_items", 8192);
    EXPECT_EQ(clalgo::detail::scan_policy(cpu, ScanTraits{4, false, true, false, ScanAlgorithm::automatic}, blocks).max_groups,
              std::size_t(cpu.compute_units) * 2);
    if (clalgo::detail::host_orders_stores()) {
        EXPECT_EQ(clalgo::detail::scan_policy(cpu, {}, blocks).block_items, 8192u);
    }
}

TEST(TunedPolicy, EveryDeviceClassHasCandidatesThatItsPolicyTakesAsTheyAre) {
    for (auto device : {DeviceClass::cpu, DeviceClass::nvidia_gpu, DeviceClass::other_gpu}) {
        const auto info = typical_device(device);
        EXPECT_GE(clalgo::detail::reduction_candidates(info).size(), 6u);
        for (std::size_t bytes : {4u, 8u}) {
            const auto candidates = clalgo::detail::scan_candidates(info, bytes, false);
            EXPECT_GE(candidates.size(), 4u) << bytes;
            for (const auto& candidate : candidates) {
                const auto plan = clalgo::detail::scan_policy(info, ScanTraits{bytes}, candidate);
                if (plan.algorithm == ScanAlgorithm::serial) continue;  // CPUs other than x86-64
                if (plan.algorithm == ScanAlgorithm::chained)
                    EXPECT_EQ(plan.block_items, *candidate.get("scan." + std::to_string(bytes) + ".block_items"));
                else
                    EXPECT_EQ(plan.items, *candidate.get("scan." + std::to_string(bytes) + ".items"));
            }
        }
        // only NVIDIA counts kept items by ballots
        EXPECT_EQ(clalgo::detail::scan_candidates(info, 4, true).empty(), device != DeviceClass::nvidia_gpu);
    }
}

TEST(TunedPolicy, TunedSortTilesAndBlocksReplaceTheHandSetOnesAndTheVariablesStillWin) {
    using clalgo::SortAlgorithm;
    using clalgo::detail::radix_sort_policy;
    const auto nvidia = typical_device(DeviceClass::nvidia_gpu);
    const auto plain = radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic);
    TunedValues tuned;
    tuned.set("sort.group_size", 128);
    tuned.set("sort.items", 16);
    const auto policy = radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic, tuned);
    EXPECT_EQ(policy.algorithm, SortAlgorithm::onesweep);
    EXPECT_EQ(policy.group_size, 128u);
    EXPECT_EQ(policy.items, 16u);
    EXPECT_TRUE(policy.match_rank);
    EXPECT_TRUE(policy.shuffle_scan);
    for (const auto& tier : policy.tiers) EXPECT_LT(tier.items, 16u);  // the tier of 16 keys a work-item is dropped
    EXPECT_NE(policy.tile(), plain.tile());
    {
        ScopedVariable items("CLALGO_SORT_ITEMS", std::string("20"));
        ScopedVariable group("CLALGO_SORT_GROUP", std::string("64"));
        const auto forced = radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic, tuned);
        EXPECT_EQ(forced.items, 20u);
        EXPECT_EQ(forced.group_size, 64u);
    }
    {
        ScopedVariable scan("CLALGO_SORT_SHUFFLE_SCAN", std::string("off"));
        EXPECT_FALSE(radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic).shuffle_scan);
    }
    for (const char* bad : {"16", "2000", "256x", "-1"}) {
        ScopedVariable group("CLALGO_SORT_GROUP", std::string(bad));
        try {
            radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic);
            ADD_FAILURE() << bad;
        } catch (const std::invalid_argument& error) {
            EXPECT_NE(std::string(error.what()).find("CLALGO_SORT_GROUP"), std::string::npos) << error.what();
        }
    }
    // another GPU (with the 64-bit atomics onesweep needs) ranks in local memory, with no warp shuffles; a tuned
    // tile too large for its group limit (256) and its local memory (32 KiB) shrinks to fit: for 8-byte keys and
    // values, 256 x 4
    auto other = typical_device(DeviceClass::other_gpu);
    other.has_int64_atomics = true;
    TunedValues huge;
    huge.set("sort.group_size", 1024);
    huge.set("sort.items", 32);
    const auto fitted = radix_sort_policy(other, 8, 8, SortAlgorithm::automatic, huge);
    EXPECT_EQ(fitted.algorithm, SortAlgorithm::onesweep);
    EXPECT_FALSE(fitted.match_rank);
    EXPECT_FALSE(fitted.shuffle_scan);
    EXPECT_EQ(fitted.group_size, 256u);
    EXPECT_EQ(fitted.items, 4u);
    EXPECT_LE(fitted.local_bytes(8, 8) + 2048, other.local_memory_bytes);
    // CPUs sort by blocks: they tune how many blocks a pass splits the keys into; values out of range are ignored
    const auto cpu = typical_device(DeviceClass::cpu);
    TunedValues blocks;
    blocks.set("sort.blocks_per_unit", 2);
    EXPECT_EQ(radix_sort_policy(cpu, 4, 0, SortAlgorithm::automatic, blocks).max_blocks, std::size_t(cpu.compute_units) * 2);
    TunedValues wild;
    wild.set("sort.blocks_per_unit", 100000);
    wild.set("sort.items", 99);
    EXPECT_EQ(radix_sort_policy(cpu, 4, 0, SortAlgorithm::automatic, wild).max_blocks,
              radix_sort_policy(cpu, 4, 0, SortAlgorithm::automatic).max_blocks);
    EXPECT_EQ(radix_sort_policy(nvidia, 4, 0, SortAlgorithm::automatic, wild).items, plain.items);
}

TEST(TunedPolicy, EverySortCandidateIsTakenAsItIs) {
    using clalgo::SortAlgorithm;
    auto other_with_atomics = typical_device(DeviceClass::other_gpu);
    other_with_atomics.has_int64_atomics = true;  // onesweep's tiles, not blocks
    for (const auto& info : {typical_device(DeviceClass::cpu), typical_device(DeviceClass::nvidia_gpu),
                             typical_device(DeviceClass::other_gpu), other_with_atomics}) {
        const auto candidates = clalgo::detail::radix_sort_candidates(info);
        EXPECT_GE(candidates.size(), 4u) << info.name;
        for (const auto& candidate : candidates) {
            const auto policy = clalgo::detail::radix_sort_policy(info, 4, 0, SortAlgorithm::automatic, candidate);
            if (policy.algorithm == SortAlgorithm::blocks) {
                EXPECT_EQ(policy.max_blocks, std::size_t(info.compute_units) * *candidate.get("sort.blocks_per_unit"));
            } else {
                EXPECT_EQ(policy.group_size, *candidate.get("sort.group_size"));
                EXPECT_EQ(policy.items, *candidate.get("sort.items"));
                EXPECT_GE(policy.tile(), 2048u);  // each tile costs 2 KiB of look-back words
            }
        }
    }
}

TEST(TuningFile, ReadsBackForItsOwnDeviceAndDriverOnlyAndNeverFailsOnGarbage) {
    auto info = typical_device(DeviceClass::nvidia_gpu);
    TunedValues values;
    values.set("scan.4.items", 32);
    values.set("reduction.unroll", 8);
    const std::string text = clalgo::detail::tuning_text(values, info);
    auto parsed = clalgo::detail::parse_tuning_text(text, info);
    EXPECT_EQ(parsed.state, clalgo::detail::TuningFileState::sound);
    EXPECT_EQ(parsed.values, values);

    auto updated = info;
    updated.driver_version = "999.1";
    parsed = clalgo::detail::parse_tuning_text(text, updated);
    EXPECT_EQ(parsed.state, clalgo::detail::TuningFileState::stale);
    EXPECT_TRUE(parsed.values.empty());
    EXPECT_EQ(clalgo::detail::parse_tuning_text("clalgo tuning 0\n", info).state, clalgo::detail::TuningFileState::stale);

    for (const std::string& bad : {std::string(), std::string("garbage"), text + "scan.4.items -3\n",
                                  text + "Scan.4.items 3\n", text + "scan.4.items\n", text + "x 99999999999999999999\n",
                                  text.substr(0, text.size() / 2)}) {
        parsed = clalgo::detail::parse_tuning_text(bad, info);
        EXPECT_NE(parsed.state, clalgo::detail::TuningFileState::sound) << bad;
        EXPECT_TRUE(parsed.values.empty());
    }
}

TEST(TuningFile, StoredValuesAreUsedLaterAndCorruptFilesOrTheSwitchMeanNone) {
    const auto dir = std::filesystem::temp_directory_path() / ("clalgo-tuning-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    ScopedVariable cache("CLALGO_CACHE_DIR", dir.string());
    auto& store = clalgo::detail::TuningStore::instance();
    store.forget();
    const auto info = typical_device(DeviceClass::other_gpu);
    EXPECT_TRUE(clalgo::detail::tuned_values(info).empty());

    TunedValues values;
    values.set("reduction.unroll", 2);
    const auto file = store.store(info, values);
    ASSERT_TRUE(file.has_value());
    EXPECT_TRUE(std::filesystem::is_regular_file(*file));
    store.forget();
    EXPECT_EQ(clalgo::detail::tuned_values(info), values);
    {
        ScopedVariable off("CLALGO_TUNING", std::string("off"));
        EXPECT_TRUE(clalgo::detail::tuned_values(info).empty());
        ScopedVariable bad("CLALGO_TUNING", std::string("sometimes"));
        EXPECT_THROW(clalgo::detail::tuned_values(info), std::invalid_argument);
    }
    // another device of the same class but another model has no tuning
    auto other = info;
    other.name = "Another GPU";
    EXPECT_TRUE(clalgo::detail::tuned_values(other).empty());

    std::ofstream(*file, std::ios::trunc) << "clalgo tuning 1\ndevice \x01\x02 half a file";
    store.forget();
    EXPECT_TRUE(clalgo::detail::tuned_values(info).empty());
    std::filesystem::remove(*file);
    std::filesystem::create_directories(*file);  // a directory where the file should be
    store.forget();
    EXPECT_TRUE(clalgo::detail::tuned_values(info).empty());
    store.forget();
    std::filesystem::remove_all(dir);
}

/// A cache directory of its own for the test's tuning file, the store reading from it; both gone at the end.
class TuningDirectory {
public:
    explicit TuningDirectory(const std::string& name)
        : dir_(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))),
          cache_("CLALGO_CACHE_DIR", dir_.string()) {
        std::filesystem::remove_all(dir_);
        clalgo::detail::TuningStore::instance().forget();
    }
    ~TuningDirectory() {
        clalgo::detail::TuningStore::instance().forget();
        std::filesystem::remove_all(dir_);
    }

private:
    std::filesystem::path dir_;
    ScopedVariable cache_;
};

/// The tuner's report for one primitive at `sizes`, after checking that every candidate (and the hand-set
/// default) ran at every size and exactly one was chosen; then what the store reads back, which must be what
/// the report chose (a new process would read the file: so does this one once it forgets what it stored).
std::pair<clalgo::TuningReport, TunedValues> tune_one(const std::string& primitive, std::vector<std::int64_t> sizes,
                                                      std::size_t candidates) {
    auto& q = clalgo_test::queue();
    clalgo::TuningOptions options;
    options.primitives = {primitive};
    options.sizes = std::move(sizes);
    options.batches = 1;
    auto report = clalgo::autotune(q, options);
    EXPECT_TRUE(report.file.has_value());
    EXPECT_EQ(report.sizes, options.sizes);
    EXPECT_EQ(report.trials.size(), candidates + 1);  // and the hand-set default
    std::size_t chosen = 0;
    for (const auto& trial : report.trials) {
        EXPECT_EQ(trial.primitive, primitive);
        EXPECT_TRUE(trial.error.empty()) << trial.policy << ": " << trial.error;
        EXPECT_EQ(trial.seconds.size(), options.sizes.size());
        EXPECT_GE(trial.score, 1.0);
        chosen += trial.chosen;
    }
    EXPECT_EQ(chosen, 1u);
    EXPECT_NE(report.summary().find(primitive), std::string::npos);
    clalgo::detail::TuningStore::instance().forget();
    TunedValues expected;
    for (const auto& [key, value] : report.chosen) expected.set(key, value);
    EXPECT_EQ(clalgo::detail::tuned_values(q.info()), expected);
    return {std::move(report), expected};
}

TEST(Autotune, StoresAPolicyThatLaterKernelsUseAndTheirResultsStayRight) {
    TuningDirectory directory("clalgo-autotune-test");
    auto& q = clalgo_test::queue();
    const auto [report, expected] = tune_one("reduction", {3000, 50001}, clalgo::detail::reduction_candidates(q.info()).size());
    clalgo::ReductionOptions named;
    named.name = "tuned_sum";
    clalgo::ReductionKernel<std::int64_t> sum(clalgo_test::context(), "0", "a+b", "x[i]", "const long *x", named);
    const auto unroll = expected.get("reduction.unroll");
    const auto plan = clalgo::detail::reduction_policy(q.info(), {8, true, 8}, expected);
    EXPECT_NE(sum.source().find("#define CLALGO_UNROLL " + std::to_string(plan.unroll)), std::string::npos);
    if (unroll) {
        EXPECT_EQ(static_cast<std::uint64_t>(plan.unroll), *unroll);
    }
    for (std::int64_t n : {0, 1, 4097, 100003}) {
        std::vector<std::int64_t> host(static_cast<std::size_t>(n));
        std::iota(host.begin(), host.end(), -7);
        EXPECT_EQ(sum(q, clalgo::to_device(q, host)), std::accumulate(host.begin(), host.end(), std::int64_t(0))) << n;
    }
}

TEST(Autotune, TunesTheScanAndLaterScansUseItsChoiceAndStayRight) {
    TuningDirectory directory("clalgo-autotune-scan");
    auto& q = clalgo_test::queue();
    const auto [report, expected] = tune_one("scan.4", {3000, 300001}, clalgo::detail::scan_candidates(q.info(), 4, false).size());
    const auto plan = clalgo::detail::scan_policy(q.info(), ScanTraits{4}, clalgo::detail::tuned_values(q.info()));
    if (auto items = expected.get("scan.4.block_items")) {  // CPUs: the chained blocks
        EXPECT_EQ(plan.algorithm, ScanAlgorithm::chained);
        EXPECT_EQ(plan.block_items, *items);
    }
    if (auto items = expected.get("scan.4.items")) {
        EXPECT_EQ(plan.items, *items);
    }
    // sizes around a whole number of the blocks or tiles the calls use: a chained call takes smaller blocks
    // where the input is under four blocks per work-item
    const std::size_t block = plan.algorithm == ScanAlgorithm::chained ? plan.block_items : plan.tile();
    const std::size_t whole = plan.algorithm == ScanAlgorithm::chained ? 4 * plan.max_groups * block : 3 * block;
    const clalgo::InclusiveScanKernel<std::int32_t> scan(clalgo_test::context(), "a+b", "0");
    for (std::size_t n : {std::size_t(0), std::size_t(1), block - 1, block + 1, whole - 1, whole, whole + 1, whole + block + 5}) {
        std::vector<std::int32_t> host(n);
        for (std::size_t k = 0; k < n; ++k) host[k] = static_cast<std::int32_t>(k % 7) - 3;
        clalgo::Array<std::int32_t> out(q, n);
        scan(q, clalgo::to_device(q, host), out);
        std::partial_sum(host.begin(), host.end(), host.begin());
        EXPECT_EQ(out.to_host(q), host) << n;
    }
}

TEST(Autotune, TunesTheSortAndLaterSortsUseItsChoiceAndStayRight) {
    TuningDirectory directory("clalgo-autotune-sort");
    auto& q = clalgo_test::queue();
    const auto [report, expected] = tune_one("sort", {5000, 70001}, clalgo::detail::radix_sort_candidates(q.info()).size());
    const auto policy = clalgo::detail::radix_sort_policy(q.info(), 4, 0, clalgo::SortAlgorithm::automatic,
                                                          clalgo::detail::tuned_values(q.info()));
    if (auto per_unit = expected.get("sort.blocks_per_unit")) {
        EXPECT_EQ(policy.max_blocks, std::size_t(q.info().compute_units) * *per_unit);
    }
    if (auto items = expected.get("sort.items")) {
        EXPECT_EQ(policy.items, *items);
    }
    if (auto group = expected.get("sort.group_size")) {
        EXPECT_EQ(policy.group_size, *group);
    }
    clalgo::RadixSortKernel<std::uint32_t> sort(clalgo_test::context());
    for (std::size_t n : {0u, 1u, 4097u, 100003u}) {
        std::vector<std::uint32_t> host(n);
        std::uint32_t state = 12345;
        for (auto& key : host) key = state = state * 1664525u + 1013904223u;
        auto keys = clalgo::to_device(q, host);
        sort(q, keys).wait();
        std::sort(host.begin(), host.end());
        EXPECT_EQ(keys.to_host(q), host) << n;
    }
}

}  // namespace
