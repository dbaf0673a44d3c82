// MemoryPool: size classes, reuse only once the device is done with a buffer, statistics, free_all, the limit,
// CLALGO_POOL and CLALGO_POOL_LIMIT_MB, threads, and the allocating algorithms drawing from it. Memory pressure,
// with clalgo's byte budget standing for a full device: every allocation releases the pool's cache and tries
// again before it fails, and then fails with a message that says what was asked for and what was held.
#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <numeric>
#include <optional>
#include <set>
#include <thread>
#include <vector>

namespace {

using clalgo::Array;
using clalgo::MemoryPool;
using clalgo_test::Gate;
using clalgo_test::ScopedVariable;

/// A context of its own (a pool of its own) on the device under test, its pool configured as by default whatever
/// the run's environment, or (`from_environment`) left to read CLALGO_POOL and CLALGO_POOL_LIMIT_MB on first use.
clalgo::Context fresh_context(bool from_environment = false) {
    clalgo::Context ctx(clalgo_test::context().device());
    if (from_environment) return ctx;
    ScopedVariable pool("CLALGO_POOL", std::nullopt), limit("CLALGO_POOL_LIMIT_MB", std::nullopt);
    MemoryPool::of(ctx);
    return ctx;
}

/// Waits (up to 5 s) until nothing but the pool holds `buffer`. Call after the queue's finish(): PoCL counts its
/// commands as handles of their buffers and may drop a finished command's a moment after clFinish returns, and
/// the pool takes back only a buffer that it alone holds.
void wait_until_only_the_pool_holds(cl_mem buffer) {
    for (int k = 0; k < 5000; ++k) {
        cl_uint references = 0;
        if (clGetMemObjectInfo(buffer, CL_MEM_REFERENCE_COUNT, sizeof references, &references, nullptr) == CL_SUCCESS &&
            references <= 1)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

std::size_t power_of_two_from(std::size_t bytes, bool up) {
    std::size_t power = 1;
    while (up ? power < bytes : power * 2 <= bytes) power *= 2;
    return power;
}

/// Sets clalgo's memory budget for a scope: allocations past it fail as on a full device.
class ScopedBudget {
public:
    explicit ScopedBudget(std::uint64_t bytes) { clalgo::detail::DeviceMemoryBudget::instance().set(bytes); }
    ~ScopedBudget() { clalgo::detail::DeviceMemoryBudget::instance().set(std::nullopt); }
    ScopedBudget(const ScopedBudget&) = delete;
    ScopedBudget& operator=(const ScopedBudget&) = delete;
};

std::uint64_t live_bytes() { return clalgo::detail::DeviceMemoryBudget::instance().live(); }

/// Fills the pool of q's context with `bytes` of cached buffers (in 4 MiB pooled arrays) and waits until the
/// device is done with them.
void fill_the_cache(clalgo::Queue& q, std::size_t bytes) {
    std::vector<cl_mem> buffers;
    {
        std::vector<Array<std::uint8_t>> arrays;
        for (std::size_t held = 0; held < bytes; held += 4u << 20) {
            arrays.emplace_back(q, 4u << 20, clalgo::pooled);
            arrays.back().fill(q, 1);
            buffers.push_back(arrays.back().buffer()());
        }
    }  // given back: the pool holds them
    q.finish();
    for (cl_mem buffer : buffers) wait_until_only_the_pool_holds(buffer);
}

/// The process's resident memory in bytes (Linux; 0 elsewhere).
std::uint64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

}  // namespace

TEST(MemoryPool, SizeClassesArePowersOfTwoThenQuarterSteps) {
    EXPECT_EQ(MemoryPool::size_class(1), MemoryPool::smallest_class);
    for (std::size_t bytes : {std::size_t(1), std::size_t(255), std::size_t(257), std::size_t(1000), std::size_t(4096),
                              std::size_t(65537), std::size_t(1) << 20}) {
        EXPECT_EQ(MemoryPool::size_class(bytes), std::max(MemoryPool::smallest_class, power_of_two_from(bytes, true)));
    }
    for (std::size_t bytes : {(std::size_t(1) << 20) + 1, std::size_t(3000000), std::size_t(123456789)}) {
        const std::size_t size_class = MemoryPool::size_class(bytes), below = power_of_two_from(bytes, false);
        EXPECT_GE(size_class, bytes);
        EXPECT_LT(size_class - bytes, below / 4) << bytes;
        EXPECT_EQ(size_class % (below / 4), 0u) << bytes;
    }
}

TEST(MemoryPool, GivesTheSameBufferBackForTheSameSizeClassOnceItsWorkIsDone) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    cl_mem first = nullptr;
    {
        Array<float> a(q, 1000, clalgo::pooled);
        EXPECT_TRUE(a.pooled());
        a.fill(q, 1.0f);
        first = a.buffer()();
    }
    q.finish();
    wait_until_only_the_pool_holds(first);
    Array<float> b(q, 900, clalgo::pooled);  // 3600 bytes: the class of 4000, 4096
    EXPECT_EQ(b.buffer()(), first);
    EXPECT_EQ(b.size(), 900u);
    EXPECT_EQ(pool.statistics().hits, 1u);
    EXPECT_EQ(pool.statistics().misses, 1u);
    b.fill(q, 2.0f);
    EXPECT_EQ(b.to_host(q), std::vector<float>(900, 2.0f));

    Array<float> other_class(q, 2000, clalgo::pooled);  // 8000 bytes: a class of its own
    EXPECT_NE(other_class.buffer()(), first);
    EXPECT_EQ(pool.statistics().misses, 2u);
    const auto message = clalgo_test::message_of<std::invalid_argument>([&] { pool.allocate(clalgo_test::queue(), 64); });
    EXPECT_TRUE(clalgo_test::contains(message, "MemoryPool::allocate: the queue belongs to another context"));
}

TEST(MemoryPool, CountsBytesInUseAndCachedByClass) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    const std::size_t expected = MemoryPool::size_class(100 * 8) + MemoryPool::size_class(5000 * 4);
    {
        Array<std::int64_t> a(q, 100, clalgo::pooled);
        Array<float> b(q, 5000, clalgo::pooled);
        const auto held = pool.statistics();
        EXPECT_EQ(held.bytes_in_use, expected);
        EXPECT_EQ(held.buffers_in_use, 2u);
        EXPECT_EQ(held.bytes_cached, 0u);
        EXPECT_EQ(held.misses, 2u);
        EXPECT_EQ(held.hits, 0u);
    }
    q.finish();
    const auto back = pool.statistics();
    EXPECT_EQ(back.bytes_in_use, 0u);
    EXPECT_EQ(back.buffers_in_use, 0u);
    EXPECT_EQ(back.bytes_cached, expected);
    EXPECT_EQ(back.buffers_cached, 2u);

    Array<std::int64_t> moved_from(q, 100, clalgo::pooled);
    Array<std::int64_t> moved(std::move(moved_from));
    EXPECT_FALSE(moved_from.pooled());
    EXPECT_TRUE(moved.pooled());
    EXPECT_EQ(pool.statistics().buffers_in_use, 1u);
    moved = Array<std::int64_t>();  // assigning over a pooled array gives its buffer back
    EXPECT_EQ(pool.statistics().buffers_in_use, 0u);
    EXPECT_EQ(pool.statistics().buffers_cached, 2u);
}

TEST(MemoryPool, FreeAllReleasesTheCachedBuffers) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    { Array<float> a(q, 1000, clalgo::pooled); }
    q.finish();
    EXPECT_EQ(pool.statistics().buffers_cached, 1u);
    pool.free_all();
    EXPECT_EQ(pool.statistics().bytes_cached, 0u);
    EXPECT_EQ(pool.statistics().buffers_cached, 0u);
    Array<float> b(q, 1000, clalgo::pooled);
    EXPECT_EQ(pool.statistics().hits, 0u);
    EXPECT_EQ(pool.statistics().misses, 2u);
}

TEST(MemoryPool, KeepsNoMoreThanItsLimitAndDropsTheOldestFirst) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    pool.set_limit_bytes(3 * 4096);
    EXPECT_EQ(pool.limit_bytes(), 3u * 4096);
    std::vector<Array<float>> arrays;
    std::vector<cl_mem> order;
    for (int k = 0; k < 5; ++k) {
        arrays.emplace_back(q, 1024, clalgo::pooled);
        order.push_back(arrays.back().buffer()());
    }
    for (auto& array : arrays) {
        array = Array<float>();
        EXPECT_LE(pool.statistics().bytes_cached, pool.limit_bytes());
    }
    q.finish();
    EXPECT_EQ(pool.statistics().buffers_cached, 3u);
    std::vector<Array<float>> again;
    std::set<cl_mem> reused;
    for (int k = 0; k < 3; ++k) {
        again.emplace_back(q, 1024, clalgo::pooled);
        reused.insert(again.back().buffer()());
    }
    EXPECT_EQ(reused, (std::set<cl_mem>{order[2], order[3], order[4]}));
    EXPECT_EQ(pool.statistics().hits, 3u);

    again.clear();
    q.finish();
    { Array<float> too_large(q, 4 * 4096, clalgo::pooled); }  // larger than the limit: released, not kept
    q.finish();
    EXPECT_LE(pool.statistics().bytes_cached, pool.limit_bytes());
    EXPECT_EQ(pool.statistics().buffers_cached, 3u);
    pool.set_limit_bytes(4096);  // lowering the limit drops the oldest
    EXPECT_EQ(pool.statistics().buffers_cached, 1u);
    pool.set_limit_bytes(0);
    EXPECT_EQ(pool.statistics().buffers_cached, 0u);
}

TEST(MemoryPool, DoesNotReuseABufferWhileWorkThatUsesItIsPending) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    Gate gate(ctx);
    cl_mem first = nullptr;
    {
        Array<float> a(q, 1000, clalgo::pooled);
        a.fill(q, 1.0f, {gate.event});  // cannot start before the gate opens
        first = a.buffer()();
    }
    Array<float> b(q, 1000, clalgo::pooled);
    EXPECT_NE(b.buffer()(), first);
    EXPECT_EQ(MemoryPool::of(ctx).statistics().hits, 0u);
    gate.open();
    q.finish();
    wait_until_only_the_pool_holds(first);
    Array<float> c(q, 1000, clalgo::pooled);
    EXPECT_EQ(c.buffer()(), first);
}

TEST(MemoryPool, WaitsForTheWorkEnqueuedBeforeTheReleaseEvenWhereItUsesOtherBuffers) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    Gate gate(ctx);
    Array<float> unrelated(q, 10);
    cl_mem first = nullptr;
    {
        Array<float> a(q, 1000, clalgo::pooled);
        first = a.buffer()();
        unrelated.fill(q, 1.0f, {gate.event});  // a kernel enqueued earlier may still use `a`: the queue is held
    }
    Array<float> b(q, 1000, clalgo::pooled);
    EXPECT_NE(b.buffer()(), first);
    gate.open();
    q.finish();
    Array<float> c(q, 1000, clalgo::pooled);
    EXPECT_EQ(c.buffer()(), first);
}

TEST(MemoryPool, ClalgosOwnDrawsTakeABufferBackFromTheirQueueWithoutAMarker) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    cl_mem first = nullptr;
    {
        Array<float> a(q, 1000, clalgo::detail::pooled_in_queue_order);
        a.fill(q, 1.0f);
        first = a.buffer()();
    }
    q.finish();  // so that no driver still holds the buffer for the fill (PoCL's commands count as its handles)
    wait_until_only_the_pool_holds(first);
    // no marker was enqueued at a's return; the same queue's later commands follow the fill anyway
    Array<float> b(q, 1000, clalgo::detail::pooled_in_queue_order);
    EXPECT_EQ(b.buffer()(), first);
    EXPECT_EQ(MemoryPool::of(ctx).statistics().hits, 1u);
    b.fill(q, 2.0f);
    EXPECT_EQ(b.to_host(q), std::vector<float>(1000, 2.0f));
}

TEST(MemoryPool, ABufferTakenAgainInQueueOrderWhileItsOldWorkIsHeldStillSeesThatWorkRunFirst) {
    // drivers that do not count pending commands as holders of a buffer (NVIDIA's) hand it out again at once
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    Gate gate(ctx);
    {
        Array<float> a(q, 1000, clalgo::detail::pooled_in_queue_order);
        a.fill(q, 1.0f, {gate.event});  // held back until the gate opens
    }
    Array<float> b(q, 1000, clalgo::detail::pooled_in_queue_order);  // the same buffer, or (PoCL) another
    b.fill(q, 2.0f);
    gate.open();
    EXPECT_EQ(b.to_host(q), std::vector<float>(1000, 2.0f));  // a's fill, if it was the same buffer, ran first
}

TEST(MemoryPool, ABufferBackInQueueOrderWaitsForItsWorkBeforeOtherQueuesOrUserDrawsTakeIt) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx), other(ctx);
    Gate gate(ctx);
    cl_mem first = nullptr;
    {
        Array<float> a(q, 1000, clalgo::detail::pooled_in_queue_order);
        a.fill(q, 1.0f, {gate.event});
        first = a.buffer()();
    }
    std::vector<Array<float>> held;  // kept until the end, so that only `first` is in the pool to take
    held.emplace_back(other, 1000, clalgo::detail::pooled_in_queue_order);
    EXPECT_NE(held.back().buffer()(), first);
    held.emplace_back(q, 1000, clalgo::pooled);
    EXPECT_NE(held.back().buffer()(), first);
    EXPECT_EQ(MemoryPool::of(ctx).statistics().hits, 0u);
    gate.open();
    // the first draw that needs the proof enqueues the marker, which may not have completed when it looks
    bool taken = false;
    for (int attempt = 0; attempt < 3 && !taken; ++attempt) {
        q.finish();
        held.emplace_back(other, 1000, clalgo::pooled);
        taken = held.back().buffer()() == first;
    }
    EXPECT_TRUE(taken);
}

TEST(MemoryPool, DoesNotReuseABufferAViewStillHolds) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    clalgo::ArrayView<float> view;
    cl_mem first = nullptr;
    {
        Array<float> a(q, 1000, clalgo::pooled);
        a.fill(q, 3.0f);
        first = a.buffer()();
        view = a.view(0, 1000);
    }
    q.finish();
    Array<float> b(q, 1000, clalgo::pooled);
    EXPECT_NE(b.buffer()(), first);
    b.fill(q, 4.0f);
    EXPECT_EQ(view.to_host(q), std::vector<float>(1000, 3.0f));
    view = clalgo::ArrayView<float>();
    q.finish();
    wait_until_only_the_pool_holds(first);
    Array<float> c(q, 1000, clalgo::pooled);
    EXPECT_EQ(c.buffer()(), first);
}

TEST(MemoryPool, IsOffWithClalgoPoolZero) {
    ScopedVariable off("CLALGO_POOL", "0");
    auto ctx = fresh_context(true);
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    EXPECT_FALSE(pool.enabled());
    {
        Array<float> a(q, 1000, clalgo::pooled);
        EXPECT_FALSE(a.pooled());
        a.fill(q, 5.0f);
        EXPECT_EQ(a.to_host(q), std::vector<float>(1000, 5.0f));
    }
    const auto stats = pool.statistics();
    EXPECT_EQ(stats.hits + stats.misses, 0u);
    EXPECT_EQ(stats.bytes_cached, 0u);
    EXPECT_EQ(stats.bytes_in_use, 0u);
    auto values = clalgo::to_device(q, std::vector<int>{1, -2, 3});
    auto [kept, count] = clalgo::copy_if(q, values, "ary[i] > 0");
    EXPECT_FALSE(kept.pooled());
    EXPECT_EQ(count.get(q), 2);
    EXPECT_EQ(pool.statistics().misses, 0u);
}

TEST(MemoryPool, ReadsItsVariablesAndRefusesValuesOutsideTheirRange) {
    {
        ScopedVariable limit("CLALGO_POOL_LIMIT_MB", "3"), on("CLALGO_POOL", "on");
        EXPECT_EQ(MemoryPool::of(fresh_context(true)).limit_bytes(), std::size_t(3) << 20);
        EXPECT_TRUE(MemoryPool::of(fresh_context(true)).enabled());
    }
    auto ctx = fresh_context();  // configured with neither variable set
    EXPECT_EQ(MemoryPool::of(ctx).limit_bytes(), std::size_t(ctx.info().global_memory_bytes / 4));
    {
        ScopedVariable bad("CLALGO_POOL", "maybe");
        auto ctx = fresh_context(true);
        clalgo::Queue q(ctx);
        const auto message = clalgo_test::message_of<std::invalid_argument>([&] { Array<float> a(q, 10, clalgo::pooled); });
        EXPECT_TRUE(clalgo_test::contains(message, "CLALGO_POOL='maybe'"));
    }
    {
        ScopedVariable bad("CLALGO_POOL_LIMIT_MB", "-1");
        const auto message = clalgo_test::message_of<std::invalid_argument>([&] { MemoryPool::of(fresh_context(true)); });
        EXPECT_TRUE(clalgo_test::contains(message, "CLALGO_POOL_LIMIT_MB='-1'"));
        EXPECT_TRUE(clalgo_test::contains(message, "whole number"));
    }
}

TEST(MemoryPool, TurnedOffReleasesWhatItHoldsAndWhatComesBack) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    Array<float> in_use(q, 1000, clalgo::pooled);
    { Array<float> a(q, 3000, clalgo::pooled); }
    q.finish();
    EXPECT_EQ(pool.statistics().buffers_cached, 1u);
    pool.set_enabled(false);
    EXPECT_EQ(pool.statistics().buffers_cached, 0u);
    in_use = Array<float>();
    EXPECT_EQ(pool.statistics().buffers_in_use, 0u);
    EXPECT_EQ(pool.statistics().buffers_cached, 0u);
    pool.set_enabled(true);
    Array<float> again(q, 1000, clalgo::pooled);
    EXPECT_TRUE(again.pooled());
}

TEST(MemoryPool, ServesSeveralThreadsAtOnce) {
    auto ctx = fresh_context();
    auto& pool = MemoryPool::of(ctx);
    constexpr int threads = 4, rounds = 60;
    std::atomic<int> wrong{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            clalgo::Queue q(ctx);
            for (int round = 0; round < rounds; ++round) {
                const std::size_t n = 100 + std::size_t(round % 5) * 300;
                Array<std::int32_t> a(q, n, clalgo::pooled);
                const std::int32_t value = t * 1000 + round;
                a.fill(q, value);
                if (a.to_host(q) != std::vector<std::int32_t>(n, value)) ++wrong;
            }
            q.finish();
        });
    }
    for (auto& worker : workers) worker.join();
    EXPECT_EQ(wrong.load(), 0);
    const auto stats = pool.statistics();
    EXPECT_EQ(stats.hits + stats.misses, std::uint64_t(threads) * rounds);
    EXPECT_GT(stats.hits, 0u);
    EXPECT_EQ(stats.buffers_in_use, 0u);
    EXPECT_EQ(stats.bytes_in_use, 0u);
}

TEST(MemoryPool, AnArrayThatOutlivesItsContextIsReleased) {
    std::optional<Array<float>> survivor;
    {
        auto ctx = fresh_context();
        clalgo::Queue q(ctx);
        survivor.emplace(q, 100, clalgo::pooled);
        survivor->fill(q, 1.0f);
        q.finish();
    }
    survivor.reset();  // the pool went with the context: the buffer is released, nothing is touched
    SUCCEED();
}

TEST(MemoryPool, AllocatingAlgorithmsDrawFromItAndStayCorrectAcrossCalls) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    for (int call = 0; call < 30; ++call) {
        const std::size_t n = 500 + std::size_t(call % 7) * 1111;
        const auto host = clalgo_test::random_values<std::int32_t>(n, std::uint64_t(call));
        auto values = clalgo::to_device(q, host);

        std::vector<std::int32_t> expected_kept;
        std::copy_if(host.begin(), host.end(), std::back_inserter(expected_kept), [&](std::int32_t v) { return v > call; });
        auto [kept, count] = clalgo::copy_if(q, values, "ary[i] > " + std::to_string(call));
        EXPECT_TRUE(kept.pooled());
        EXPECT_TRUE(count.device.pooled());
        ASSERT_EQ(count.get(q), std::int64_t(expected_kept.size())) << call;
        EXPECT_EQ(kept.view(0, expected_kept.size()).to_host(q), expected_kept) << call;

        std::vector<std::int64_t> expected_order(n);
        std::iota(expected_order.begin(), expected_order.end(), 0);
        std::stable_sort(expected_order.begin(), expected_order.end(),
                         [&](std::int64_t x, std::int64_t y) { return host[x] < host[y]; });
        auto order = clalgo::argsort(q, values);
        EXPECT_TRUE(order.pooled());
        EXPECT_EQ(order.to_host(q), expected_order) << call;

        std::vector<std::int32_t> keys(n);
        for (std::size_t k = 0; k < n; ++k) keys[k] = std::int32_t(k / 3);
        std::vector<std::int32_t> expected_sums;
        for (std::size_t k = 0; k < n; ++k) {
            if (k % 3 == 0) expected_sums.push_back(0);
            expected_sums.back() += host[k];
        }
        auto device_keys = clalgo::to_device(q, keys);
        auto runs = clalgo::reduce_by_key(q, device_keys, values, "a + b", "0");
        ASSERT_EQ(runs.count.get(q), std::int64_t(expected_sums.size())) << call;
        EXPECT_EQ(runs.values.view(0, expected_sums.size()).to_host(q), expected_sums) << call;
    }
    const auto stats = pool.statistics();
    EXPECT_GT(stats.hits, stats.misses);
    EXPECT_LE(stats.bytes_cached, pool.limit_bytes());
}

TEST(MemoryPool, KernelScratchIsDrawnFromIt) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto values = clalgo::to_device(q, std::vector<float>(100000, 1.0f));  // a plain array: not counted
    EXPECT_FALSE(values.pooled());
    clalgo::ReductionKernel<float> sum(ctx, "0", "a+b", "x[i]", "const float *x");
    EXPECT_EQ(sum(q, values), 100000.0f);
    EXPECT_GE(MemoryPool::of(ctx).statistics().buffers_in_use, 1u);  // the partial sums it keeps for q
}

TEST(MemoryPoolDocs, ReuseLimitAndStatistics) {
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    // doc: docs/memory-pool.md
    auto& pool = clalgo::MemoryPool::of(ctx);
    {
        clalgo::Array<float> scratch(q, 1000, clalgo::pooled);  // a new buffer of 4096 bytes (its size class)
        scratch.fill(q, 0.0f);
    }                                                          // given back; reusable once the fill is done
    q.finish();
    clalgo::Array<float> again(q, 900, clalgo::pooled);        // the same class: the same buffer, no allocation
    clalgo::MemoryPoolStatistics stats = pool.statistics();    // hits 1, misses 1, bytes_in_use 4096
    pool.set_limit_bytes(std::size_t(64) << 20);              // keep at most 64 MiB for reuse
    pool.free_all();                                           // release what it keeps now
    EXPECT_EQ(stats.hits, 1u);
    EXPECT_EQ(stats.misses, 1u);
    EXPECT_EQ(stats.bytes_in_use, 4096u);
    EXPECT_EQ(pool.limit_bytes(), std::size_t(64) << 20);
    EXPECT_EQ(pool.statistics().buffers_cached, 0u);
}

TEST(MemoryPressure, EveryKindOfAllocationReleasesThePoolsCacheAndSucceedsWhereThatMakesRoom) {
    constexpr std::size_t mib = 1u << 20, cached = 48 * mib, wanted = 32 * mib;
    const auto host = clalgo_test::random_values<std::int32_t>(wanted / sizeof(std::int32_t), 5);
    for (const std::string kind : {"Array(q, n)", "to_device", "clone", "a pooled array", "copy_if's result"}) {
        auto ctx = fresh_context();
        clalgo::Queue q(ctx);
        auto& pool = MemoryPool::of(ctx);
        const auto source = clalgo::to_device(q, host);  // what clone and copy_if read, made before the budget bites
        fill_the_cache(q, cached);
        ASSERT_GE(pool.statistics().bytes_cached, cached) << kind;
        // room for what is asked only once half of the cache is gone
        const ScopedBudget budget(live_bytes() + wanted - cached / 2);
        std::vector<std::int32_t> made;
        if (kind == "Array(q, n)") {
            Array<std::int32_t> array(q, host.size());
            array.write(q, host);
            made = array.to_host(q);
        } else if (kind == "to_device") {
            made = clalgo::to_device(q, host).to_host(q);
        } else if (kind == "clone") {
            made = source.clone(q).to_host(q);
        } else if (kind == "a pooled array") {
            Array<std::int32_t> array(q, host.size(), clalgo::pooled);
            array.write(q, host);
            made = array.to_host(q);
        } else {
            auto [kept, count] = clalgo::copy_if(q, source, "true");
            made = kept.view(0, static_cast<std::size_t>(count.get(q))).to_host(q);
        }
        EXPECT_EQ(made, host) << kind;
        EXPECT_LT(pool.statistics().bytes_cached, cached) << kind << ": the cache was not released";
    }
}

TEST(MemoryPressure, AnAllocationThatCannotFitFailsNamingWhatWasAskedTheLimitsAndThePoolAndLeaksNothing) {
    constexpr std::size_t mib = 1u << 20;
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    auto& pool = MemoryPool::of(ctx);
    fill_the_cache(q, 8 * mib);
    Array<float> held(q, mib / 2, clalgo::pooled);  // 2 MiB in use (a class the cache does not hold)
    const ScopedBudget budget(live_bytes() + mib);
    const std::size_t too_many = 64 * mib / sizeof(float);
    const std::string message = clalgo_test::message_of<clalgo::DeviceMemoryError>([&] { Array<float> a(q, too_many); });
    EXPECT_TRUE(clalgo_test::contains(message, "cannot allocate 64.0 MiB (67108864 bytes) of device memory for an array of " +
                                                   std::to_string(too_many) + " x float"));
    EXPECT_TRUE(clalgo_test::contains(message, "CL_MEM_OBJECT_ALLOCATION_FAILURE, also after the memory pool's cached buffers were released"));
    EXPECT_TRUE(clalgo_test::contains(message, "'" + q.info().name + "' has "));
    EXPECT_TRUE(clalgo_test::contains(message, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
    EXPECT_TRUE(clalgo_test::contains(message, "the memory pool held 8.0 MiB (8388608 bytes) of cached buffers (released for a "
                                               "second try) and 2.0 MiB (2097152 bytes) in use"));
    EXPECT_TRUE(clalgo_test::contains(message, "CLALGO_MEMORY_BUDGET_MB"));
    // 9 MiB of room now: a 6 MiB array fits, its clone does not
    const auto source = clalgo::to_device(q, std::vector<float>(6 * mib / sizeof(float), 2.0f));
    const std::vector<float> host(4 * mib, 1.0f);  // 16 MiB
    const std::uint64_t live_before = live_bytes();
    const std::uint64_t resident_before = resident_bytes();
    for (int round = 0; round < 100; ++round) {  // every path, many times: nothing is left behind
        EXPECT_THROW(Array<float>(q, too_many), clalgo::DeviceMemoryError);
        EXPECT_THROW(Array<float>(q, too_many, clalgo::pooled), clalgo::DeviceMemoryError);
        EXPECT_THROW(clalgo::to_device(q, host), clalgo::DeviceMemoryError);
        EXPECT_THROW(source.clone(q), clalgo::DeviceMemoryError);
    }
    q.finish();
    EXPECT_EQ(live_bytes(), live_before);
    EXPECT_EQ(pool.statistics().bytes_in_use, 2 * mib);
    EXPECT_EQ(pool.statistics().bytes_cached, 0u);
    EXPECT_LT(resident_bytes(), resident_before + 16 * mib);
    // a size above what one buffer may hold fails at once, naming the limit
    const std::size_t above = static_cast<std::size_t>(q.info().max_allocation_bytes) + 1;
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<clalgo::DeviceMemoryError>([&] { Array<std::uint8_t> a(q, above); }),
                                      "more than '" + q.info().name + "' allows in one buffer"));
}

namespace {

/// Makes the next `count` commands clalgo enqueues be refused as a full device refuses them, for a scope.
class ScopedRefusals {
public:
    explicit ScopedRefusals(int count) { clalgo::detail::injected_command_refusals().store(count); }
    ~ScopedRefusals() { clalgo::detail::injected_command_refusals().store(0); }
    ScopedRefusals(const ScopedRefusals&) = delete;
    ScopedRefusals& operator=(const ScopedRefusals&) = delete;
    static int left() { return clalgo::detail::injected_command_refusals().load(); }
};

}  // namespace

// Drivers that place a buffer at its first use (NVIDIA's) refuse a full device at that command, not at
// clCreateBuffer: every kind of command clalgo enqueues then releases the pool's cache, waits for the queue and
// enqueues it once more; refused again, it throws DeviceMemoryError naming the command and what the pool held,
// and the queue and the arrays stay usable.
TEST(MemoryPressure, ACommandRefusedForWantOfMemoryReleasesThePoolsCacheAndIsEnqueuedOnceMore) {
    constexpr std::size_t cached = 8u << 20;
    const std::size_t n = 10007;
    const auto host = clalgo_test::random_values<std::int32_t>(n, 17);
    std::vector<std::int32_t> doubled(n), sorted = host;
    std::transform(host.begin(), host.end(), doubled.begin(), [](std::int32_t v) { return 2 * v; });
    std::sort(sorted.begin(), sorted.end());
    const std::int64_t sum = std::accumulate(host.begin(), host.end(), std::int64_t(0));
    const std::vector<std::string> commands = {"write", "read", "fill", "copy", "generated kernel", "raw kernel",
                                               "blocking reduction", "sort"};
    const std::vector<std::string> named = {"writing an array", "reading an array", "filling an array",
                                            "copying an array", "launching", "launching kernel 'twice'",
                                            "launching", "launching"};
    for (std::size_t c = 0; c < commands.size(); ++c) {
        const std::string& command = commands[c];
        auto ctx = fresh_context();
        clalgo::Queue q(ctx);
        auto& pool = MemoryPool::of(ctx);
        clalgo::RawProgram program(ctx, "__kernel void twice(__global int *x, long n) "
                                        "{ if (get_global_id(0) < n) x[get_global_id(0)] *= 2; }");
        clalgo::ReductionKernel<std::int64_t> total(ctx, "0", "a+b", "x[i]", "const int *x");
        Array<std::int32_t> x(q, n), y(q, n);
        x.write(q, host);
        // the kernels are built before the refusals count: a refused command is what is tested
        clalgo::transform(q, x, y, "2 * x[i]");
        EXPECT_EQ(total(q, x), sum);
        q.finish();
        for (const int refusals : {1, 2}) {
            fill_the_cache(q, cached);
            ASSERT_GE(pool.statistics().bytes_cached, cached) << command;
            if (command == "raw kernel" || command == "sort") x.copy_to(q, y);  // what the refused command works on
            else y.fill(q, -1);
            q.finish();
            std::vector<std::int32_t> expected = host;
            std::string refusal;
            try {
                const ScopedRefusals refused(refusals);
                if (command == "write") {
                    y.write(q, host);
                } else if (command == "read") {
                    EXPECT_EQ(x.to_host(q), host);
                    x.copy_to(q, y);  // refusals spent: an ordinary command
                } else if (command == "fill") {
                    y.fill(q, 7);
                    expected.assign(n, 7);
                } else if (command == "copy") {
                    x.copy_to(q, y);
                } else if (command == "generated kernel") {
                    clalgo::transform(q, x, y, "2 * x[i]");
                    expected = doubled;
                } else if (command == "raw kernel") {
                    program.kernel("twice")(q, cl::NDRange(n), clalgo::no_local_size, y, std::int64_t(n));
                    expected = doubled;
                } else if (command == "blocking reduction") {
                    EXPECT_EQ(total(q, x), sum);
                    x.copy_to(q, y);
                } else {
                    clalgo::sort(q, y);
                    expected = sorted;
                }
                q.finish();
            } catch (const clalgo::DeviceMemoryError& error) {
                refusal = error.what();
            }
            EXPECT_EQ(ScopedRefusals::left(), 0) << command;
            EXPECT_LT(pool.statistics().bytes_cached, cached) << command << ": the cache was not released";
            if (refusals == 1) {
                EXPECT_EQ(refusal, "") << command;
                EXPECT_EQ(y.to_host(q), expected) << command;
            } else {
                EXPECT_TRUE(clalgo_test::contains(refusal, "clalgo: " + named[c]) ||
                            (command == "sort" && clalgo_test::contains(refusal, "clalgo: clearing scratch memory")))
                    << refusal;
                EXPECT_TRUE(clalgo_test::contains(refusal, "CL_MEM_OBJECT_ALLOCATION_FAILURE")) << refusal;
                EXPECT_TRUE(clalgo_test::contains(refusal, "also after the memory pool's cached buffers were released"))
                    << refusal;
                EXPECT_TRUE(clalgo_test::contains(refusal, " of cached buffers (released for a second try)")) << refusal;
                EXPECT_TRUE(clalgo_test::contains(refusal, "'" + q.info().name + "' has ")) << refusal;
                // nothing half-done is left behind: the queue and the arrays work
                x.copy_to(q, y);
                EXPECT_EQ(y.to_host(q), host) << command;
            }
        }
    }
}

namespace {

/// One round of a device filled for real: plain arrays (each written, so that the driver places it) up to about
/// 95 % of the device's memory with two more in the pool's cache, then more arrays until the device refuses. Returns
/// whether an allocation succeeded by releasing the cache, and checks that the refusal names the call.
bool fill_the_device_once(clalgo::Queue& q, std::size_t chunk) {
    auto& pool = MemoryPool::of(q.context());
    const std::uint64_t total = q.info().global_memory_bytes;
    std::vector<Array<std::uint8_t>> held;
    std::uint64_t allocated = 0;
    try {
        while (allocated + 3 * chunk <= total / 100 * 95) {
            held.emplace_back(q, chunk);
            held.back().fill(q, static_cast<std::uint8_t>(held.size()));
            allocated += chunk;
        }
    } catch (const clalgo::DeviceMemoryError&) {
        // a device whose driver or other processes hold more than 5 % refuses earlier: room for the cache below
        for (int k = 0; k < 3 && !held.empty(); ++k) held.pop_back();
        q.finish();
    }
    {
        Array<std::uint8_t> a(q, chunk, clalgo::pooled), b(q, chunk, clalgo::pooled);
        a.fill(q, 1);
        b.fill(q, 2);
        q.finish();
    }
    EXPECT_GE(pool.statistics().bytes_cached, 2 * chunk);
    bool released_and_fit = false;
    std::string refusal;
    for (std::size_t attempt = 0; attempt < total / chunk + 4 && refusal.empty(); ++attempt) {
        const std::uint64_t cached_before = pool.statistics().bytes_cached;
        try {
            Array<std::uint8_t> more(q, chunk);
            more.fill(q, static_cast<std::uint8_t>(held.size() + 1));
            q.finish();
            held.push_back(std::move(more));
            if (cached_before >= chunk && pool.statistics().bytes_cached < cached_before) released_and_fit = true;
        } catch (const clalgo::DeviceMemoryError& error) {
            // NVIDIA's driver places a buffer at its first use: there the refusal comes from that command, after
            // the cache was released and the command enqueued once more
            refusal = error.what();
        }
    }
    EXPECT_FALSE(refusal.empty()) << "the device never refused";
    EXPECT_TRUE(clalgo_test::contains(refusal, "cannot allocate") ||
                clalgo_test::contains(refusal, "no memory left for the command"))
        << refusal;
    EXPECT_TRUE(clalgo_test::contains(refusal, "the memory pool held")) << refusal;
    // what was written is there: the first byte of every array (one given back first: a device left with no byte
    // free may refuse even a read's staging)
    if (!held.empty()) held.pop_back();
    q.finish();
    std::vector<std::uint8_t> first(held.size());
    for (std::size_t k = 0; k < held.size(); ++k) held[k].view(0, 1).read(q, &first[k]);
    for (std::size_t k = 0; k < held.size(); ++k) EXPECT_EQ(first[k], static_cast<std::uint8_t>(k + 1)) << k;
    std::printf("[ filled   ] %zu arrays of %zu MiB on '%s' (%.1f GiB in all); the cache released for one: %s\n",
                held.size(), chunk >> 20, q.info().name.c_str(), double(total) / double(1u << 30),
                released_and_fit ? "yes" : "no");
    return released_and_fit;
}

}  // namespace

// On a real device (CLALGO_TEST_FILL_DEVICE=1: it takes the whole device, so it is not run by default): filled to
// 95 %, an allocation that fits only once the pool's cache is released succeeds, one that cannot fit throws
// DeviceMemoryError naming the call, and a second round leaves the process's memory where the first left it.
TEST(MemoryPressure, ADeviceFilledForRealReleasesTheCacheThenRefusesAndLeaksNothing) {
    const char* on = std::getenv("CLALGO_TEST_FILL_DEVICE");
    if (on == nullptr || std::string(on) != "1") GTEST_SKIP() << "takes the whole device: set CLALGO_TEST_FILL_DEVICE=1";
    auto ctx = fresh_context();
    clalgo::Queue q(ctx);
    const std::size_t chunk = std::min<std::size_t>(std::size_t(1) << 30, q.info().max_allocation_bytes / 2);
    EXPECT_TRUE(fill_the_device_once(q, chunk));
    q.finish();
    MemoryPool::of(ctx).free_all();
    const std::uint64_t resident_after_first = resident_bytes();
    EXPECT_TRUE(fill_the_device_once(q, chunk));
    q.finish();
    MemoryPool::of(ctx).free_all();
    const std::uint64_t resident_after_second = resident_bytes();
    std::printf("[ resident ] %.1f MiB after the first round, %.1f MiB after the second\n",
                double(resident_after_first) / double(1u << 20), double(resident_after_second) / double(1u << 20));
    EXPECT_LT(resident_after_second, resident_after_first + (16u << 20));
    EXPECT_EQ(MemoryPool::of(ctx).statistics().bytes_in_use, 0u);
    EXPECT_EQ(MemoryPool::of(ctx).statistics().bytes_cached, 0u);
}
