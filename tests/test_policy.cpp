// The policies of the map, the reduction and the scan for every device class, from a typical DeviceInfo of each
// (no device needed), and the checks of their tuning variables. The sort and by-key policies are tested beside
// their algorithms (test_sort.cpp, test_comparison_sort.cpp, test_by_key.cpp).
#include "support.hpp"

#include <clalgo/policy/map.hpp>
#include <clalgo/policy/reduction.hpp>
#include <clalgo/policy/scan.hpp>

#include <string>

using clalgo::DeviceClass;
using clalgo::ScanAlgorithm;
using clalgo::typical_device;
using clalgo::detail::ScanTraits;

namespace {

TEST(MapPolicy, ContiguousChunksOnCpusAndTilesOnGpus) {
    const auto cpu = typical_device(DeviceClass::cpu);
    EXPECT_TRUE(clalgo::detail::map_policy(cpu).contiguous_chunks);
    EXPECT_FALSE(clalgo::detail::map_policy(cpu).fill_by_kernel);
    const auto cpu_shape = clalgo::detail::map_shape(cpu, clalgo::detail::map_policy(cpu), 1 << 20, 4096);
    EXPECT_EQ(cpu_shape.group_size, 1u);
    EXPECT_EQ(cpu_shape.groups, std::size_t(cpu.compute_units) * 8);
    EXPECT_EQ(clalgo::detail::map_shape(cpu, clalgo::detail::map_policy(cpu), 5, 4096).groups, 5u);
    for (auto device : {DeviceClass::nvidia_gpu, DeviceClass::other_gpu}) {
        const auto info = typical_device(device);
        EXPECT_FALSE(clalgo::detail::map_policy(info).contiguous_chunks);
        EXPECT_TRUE(clalgo::detail::map_policy(info).fill_by_kernel);
        EXPECT_EQ(clalgo::detail::map_policy(info).items, 4u);
        const auto shape = clalgo::detail::map_shape(info, clalgo::detail::map_policy(info), std::int64_t(1) << 40, 1024);
        EXPECT_EQ(shape.group_size, 256u);
        EXPECT_EQ(shape.groups, std::size_t(info.compute_units) * 4096);  // each group then takes several tiles
        EXPECT_EQ(clalgo::detail::map_shape(info, clalgo::detail::map_policy(info), 1 << 20, 1024).groups, std::size_t(1) << 10);  // tiles of 1024
        EXPECT_EQ(clalgo::detail::map_shape(info, clalgo::detail::map_policy(info), 1025, 1024).groups, 2u);
        EXPECT_EQ(clalgo::detail::map_shape(info, clalgo::detail::map_policy(info), 300, 1024).groups, 1u);
        EXPECT_EQ(clalgo::detail::map_shape(info, clalgo::detail::map_policy(info), 300, 64).group_size, 64u);  // a kernel that allows fewer
        EXPECT_EQ(clalgo::detail::map_shape(info, clalgo::detail::map_policy(info), 300, 64).groups, 2u);
        EXPECT_EQ(clalgo::detail::map_shape(info, clalgo::detail::map_policy(info), 0, 1024).groups, 0u);
    }
}

TEST(ReductionPolicy, ChunksOnCpusShufflesOnlyOnNvidiaVectorLoadsForPlainScalarReads) {
    const auto cpu = clalgo::detail::reduction_policy(typical_device(DeviceClass::cpu), {4, true, 4});
    EXPECT_TRUE(cpu.contiguous_chunks);
    EXPECT_EQ(cpu.group_size, 1u);
    EXPECT_FALSE(cpu.warp_shuffle);
    const auto nvidia = clalgo::detail::reduction_policy(typical_device(DeviceClass::nvidia_gpu), {4, true, 4});
    EXPECT_TRUE(nvidia.warp_shuffle);
    EXPECT_EQ(nvidia.vector_width, 4);
    EXPECT_EQ(nvidia.max_groups, 132u * 16);
    // a map reading one array at [i]: groups of 256 x 16 items up to two a compute unit, then up to 64 items a
    // work-item, then more groups
    const std::pair<std::uint64_t, std::size_t> launches[] = {
        {0, 1}, {1, 1}, {4096, 1}, {4097, 2}, {std::uint64_t(1) << 20, 256}, {132u * 2 * 4096, 264},
        {132u * 2 * 4096 + 1, 264}, {std::uint64_t(1) << 22, 264}, {std::uint64_t(1) << 24, 1024},
        {std::uint64_t(1) << 26, 132u * 16}, {std::uint64_t(1) << 36, 132u * 16}};
    for (const auto& [n, groups] : launches) EXPECT_EQ(nvidia.groups_for(n), groups) << "n = " << n;
    // any other map: groups of 256 x 16 items up to 16 a compute unit
    const auto other_map = clalgo::detail::reduction_policy(typical_device(DeviceClass::nvidia_gpu), {4, true, 0});
    EXPECT_EQ(other_map.vector_width, 0);
    EXPECT_EQ(other_map.groups_for(std::uint64_t(1) << 22), 1024u);
    EXPECT_EQ(other_map.groups_for(std::uint64_t(1) << 24), 132u * 16);
    EXPECT_EQ(other_map.groups_for(4097), 2u);
    // a CPU: one group of one work-item for every 4,096 items, up to its most
    EXPECT_EQ(cpu.groups_for(0), 1u);
    EXPECT_EQ(cpu.groups_for(4096 * 3), 3u);
    EXPECT_EQ(cpu.groups_for(std::uint64_t(1) << 40), cpu.max_groups);
    EXPECT_FALSE(clalgo::detail::reduction_policy(typical_device(DeviceClass::nvidia_gpu), {2, true, 2}).warp_shuffle);
    EXPECT_EQ(clalgo::detail::reduction_policy(typical_device(DeviceClass::nvidia_gpu), {8, false, 8}).vector_width, 0);
    const auto other = clalgo::detail::reduction_policy(typical_device(DeviceClass::other_gpu), {8, true, 8});
    EXPECT_FALSE(other.warp_shuffle);
    EXPECT_EQ(other.vector_width, 2);
}

TEST(ScanPolicy, EveryDeviceClassGetsItsAlgorithmAndATileThatFits) {
    const auto cpu = typical_device(DeviceClass::cpu);
    // chained blocks where the host orders its stores and loads (x86-64), serial blocks elsewhere
    EXPECT_EQ(clalgo::detail::scan_policy(cpu, {}).algorithm,
              clalgo::detail::host_orders_stores() ? ScanAlgorithm::chained : ScanAlgorithm::serial);
    const auto chained = clalgo::detail::scan_policy(cpu, ScanTraits{4, false, false, false, ScanAlgorithm::chained});
    EXPECT_EQ(chained.algorithm, ScanAlgorithm::chained);
    EXPECT_EQ(chained.block_items, 64u);  // forced: small blocks, for tests
    EXPECT_EQ(chained.max_groups, std::size_t(cpu.compute_units));
    {
        clalgo_test::ScopedVariable automatic("CLALGO_SCAN_ALGORITHM", "chained");
        EXPECT_EQ(clalgo::detail::scan_policy(cpu, {}).block_items, 65536u);  // 256 KiB of 4-byte values
        EXPECT_EQ(clalgo::detail::scan_policy(cpu, ScanTraits{8}).block_items, 32768u);
    }
    // an output that needs the total first: the serial blocks
    EXPECT_EQ(clalgo::detail::scan_policy(cpu, ScanTraits{4, false, true, false, ScanAlgorithm::automatic}).algorithm,
              ScanAlgorithm::serial);
    const auto forced = clalgo::detail::scan_policy(cpu, ScanTraits{4, false, false, false, ScanAlgorithm::single_pass});
    EXPECT_EQ(forced.algorithm, ScanAlgorithm::single_pass);
    EXPECT_LE(forced.items, 4u);  // small tiles where a tiled algorithm runs on a CPU
    EXPECT_FALSE(forced.warp_shuffle);
    EXPECT_FALSE(forced.device_fence_ptx);

    const auto nvidia_info = typical_device(DeviceClass::nvidia_gpu);
    const auto nvidia = clalgo::detail::scan_policy(nvidia_info, {});
    EXPECT_EQ(nvidia.algorithm, ScanAlgorithm::single_pass);
    EXPECT_TRUE(nvidia.warp_shuffle && nvidia.packed_status && nvidia.device_fence_ptx);
    EXPECT_FALSE(nvidia.ballot_compaction);
    EXPECT_EQ(nvidia.tile(), 64u * 64);
    const auto ballot = clalgo::detail::scan_policy(nvidia_info, ScanTraits{4, false, false, true, ScanAlgorithm::automatic});
    EXPECT_TRUE(ballot.ballot_compaction);
    EXPECT_EQ(ballot.group_size, 128u);
    EXPECT_EQ(clalgo::detail::scan_policy(nvidia_info, ScanTraits{4, false, true, false, ScanAlgorithm::automatic}).algorithm,
              ScanAlgorithm::reduce_then_scan);  // last_item needs the total first
    EXPECT_FALSE(clalgo::detail::scan_policy(nvidia_info, ScanTraits{8, false, false, false, ScanAlgorithm::automatic}).packed_status);
    // reduce_by_key's (count, value) pairs: tiles of 256 x 8 on NVIDIA, the plain scans' shape elsewhere
    const auto pairs = clalgo::detail::scan_policy(nvidia_info, ScanTraits{8, false, false, false, ScanAlgorithm::automatic, true});
    EXPECT_EQ(pairs.group_size, 256u);
    EXPECT_EQ(pairs.items, 8u);
    EXPECT_EQ(clalgo::detail::scan_policy(typical_device(DeviceClass::other_gpu), ScanTraits{8, false, false, false, ScanAlgorithm::automatic, true}).tile(),
              clalgo::detail::scan_policy(typical_device(DeviceClass::other_gpu), ScanTraits{8, false, false, false, ScanAlgorithm::automatic}).tile());

    const auto other_info = typical_device(DeviceClass::other_gpu);
    const auto other = clalgo::detail::scan_policy(other_info, ScanTraits{16, true, false, false, ScanAlgorithm::automatic});
    EXPECT_EQ(other.algorithm, ScanAlgorithm::reduce_then_scan);
    EXPECT_FALSE(other.warp_shuffle || other.device_fence_ptx || other.packed_status);
    for (const auto& info : {nvidia_info, other_info})
        for (std::size_t size : {1, 4, 8, 16, 64}) {
            const ScanTraits traits{size, true, false, false, ScanAlgorithm::reduce_then_scan};
            EXPECT_LE(clalgo::detail::scan_local_bytes(clalgo::detail::scan_policy(info, traits), traits) + 1024,
                      info.local_memory_bytes)
                << info.name << ", values of " << size << " bytes";
        }
}

TEST(ScanPolicy, TuningVariablesTakeDocumentedValuesAndNameTheVariableOtherwise) {
    const auto nvidia = typical_device(DeviceClass::nvidia_gpu);
    {
        clalgo_test::ScopedVariable items("CLALGO_SCAN_ITEMS", "8");
        clalgo_test::ScopedVariable group("CLALGO_SCAN_GROUP_SIZE", "100");
        const auto plan = clalgo::detail::scan_policy(nvidia, {});
        EXPECT_EQ(plan.items, 8u);
        EXPECT_EQ(plan.group_size, 64u);  // rounded down to a power of two
    }
    for (const char* bad : {"abc", "0", "1000", "-3", "4x"}) {
        clalgo_test::ScopedVariable items("CLALGO_SCAN_ITEMS", std::string(bad));
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::scan_policy(nvidia, {});
        }), "CLALGO_SCAN_ITEMS='" + std::string(bad) + "': expected a whole number from 1 to 64"));
    }
    {
        clalgo_test::ScopedVariable off("CLALGO_SCAN_BALLOT", "Off");
        EXPECT_FALSE(clalgo::detail::scan_policy(nvidia, ScanTraits{4, false, false, true, ScanAlgorithm::automatic}).ballot_compaction);
    }
    {
        clalgo_test::ScopedVariable maybe("CLALGO_SCAN_BALLOT", "maybe");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::scan_policy(nvidia, ScanTraits{4, false, false, true, ScanAlgorithm::automatic});
        }), "CLALGO_SCAN_BALLOT='maybe'"));
    }
    // CLALGO_SCAN_ALGORITHM overrides the automatic choice where the output allows it, not a requested one
    {
        clalgo_test::ScopedVariable serial("CLALGO_SCAN_ALGORITHM", "serial");
        EXPECT_EQ(clalgo::detail::scan_policy(nvidia, {}).algorithm, ScanAlgorithm::serial);
        EXPECT_EQ(clalgo::detail::scan_policy(nvidia, ScanTraits{4, false, false, false, ScanAlgorithm::single_pass}).algorithm,
                  ScanAlgorithm::single_pass);
        clalgo_test::ScopedVariable chained("CLALGO_SCAN_ALGORITHM", "chained");
        EXPECT_EQ(clalgo::detail::scan_policy(nvidia, {}).algorithm, ScanAlgorithm::chained);
        EXPECT_EQ(clalgo::detail::scan_policy(nvidia, {}).block_items, 65536u);  // not the small blocks of a request
        EXPECT_EQ(clalgo::detail::scan_policy(nvidia, ScanTraits{4, false, true, false, ScanAlgorithm::automatic}).algorithm,
                  ScanAlgorithm::reduce_then_scan);  // last_item: the automatic choice
        clalgo_test::ScopedVariable bad("CLALGO_SCAN_ALGORITHM", "fast");
        EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
            clalgo::detail::scan_policy(nvidia, {});
        }), "CLALGO_SCAN_ALGORITHM='fast': expected one of serial, chained, single_pass, reduce_then_scan"));
    }
    // the chained blocks' items: the variable wins over the tuned value, which wins over the hand-set one; a
    // forced chained scan keeps its small blocks whatever was tuned
    const auto cpu = typical_device(DeviceClass::cpu);
    const ScanTraits forced{4, false, false, false, ScanAlgorithm::chained};
    clalgo_test::ScopedVariable automatic("CLALGO_SCAN_ALGORITHM", "chained");
    clalgo::detail::TunedValues tuned;
    tuned.set("scan.4.block_items", 4096);
    EXPECT_EQ(clalgo::detail::scan_policy(cpu, {}, tuned).block_items, 4096u);
    EXPECT_EQ(clalgo::detail::scan_policy(cpu, forced, tuned).block_items, 64u);
    {
        clalgo_test::ScopedVariable block("CLALGO_SCAN_BLOCK", "1000");
        EXPECT_EQ(clalgo::detail::scan_policy(cpu, {}, tuned).block_items, 1000u);
        EXPECT_EQ(clalgo::detail::scan_policy(cpu, forced, tuned).block_items, 1000u);
    }
    clalgo_test::ScopedVariable block("CLALGO_SCAN_BLOCK", "0");
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([&] {
        clalgo::detail::scan_policy(cpu, {});
    }), "CLALGO_SCAN_BLOCK='0'"));
}

}  // namespace
