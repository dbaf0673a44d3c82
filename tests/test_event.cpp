// core/event.hpp: what calls that do not wait return, an event made only when it is asked for.
#include "support.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <thread>
#include <vector>

using clalgo_test::context;
using clalgo_test::queue;

namespace {

cl_int status_of(const cl::Event& event) { return event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(); }

}  // namespace

TEST(Event, ACallMakesNoOpenClEventUntilOneIsAskedFor) {
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(queue(), 1000);
    x.fill(queue(), 41);
    const clalgo::Event done = add_one(queue(), x);
    EXPECT_FALSE(done.made());
    const cl::Event& made = done.get();
    ASSERT_NE(made(), nullptr);
    EXPECT_TRUE(done.made());
    EXPECT_EQ(done.get()(), made());  // made once, then kept
    made.wait();
    EXPECT_EQ(x.to_host(queue()), std::vector<int>(1000, 42));
}

TEST(Event, TheMadeEventCompletesOnlyAfterTheCallsWork) {
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(queue(), 4096);
    x.fill(queue(), 1);
    clalgo_test::Gate gate(context());
    const clalgo::Event done = add_one(queue(), x, clalgo::wait_for(gate.event));
    const clalgo::Event copy = done;  // copies share the one event
    const cl::Event made = done;
    queue().flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_NE(status_of(made), CL_COMPLETE);
    gate.open();
    copy.wait();
    EXPECT_EQ(copy.get()(), made());
    EXPECT_EQ(status_of(made), CL_COMPLETE);
    EXPECT_EQ(x.to_host(queue()), std::vector<int>(4096, 2));
}

TEST(Event, ServesAsAWaitListEntryOnAnotherQueue) {
    clalgo::ElementwiseKernel twice(context(), "int *x", "x[i] *= 2");
    clalgo::Queue other(context());
    const std::vector<int> host = clalgo_test::random_values<int>(3000);
    auto x = clalgo::to_device(queue(), host);
    const clalgo::Event first = twice(queue(), x);
    const clalgo::Event second = twice(other, x, clalgo::wait_for(first));
    second.wait();
    const auto result = x.to_host(other);
    for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(result[k], 4 * host[k]) << k;
}

TEST(Event, AnEmptyEventNeedsNoWaiting) {
    const clalgo::Event nothing;
    EXPECT_NO_THROW(nothing.wait());
    EXPECT_FALSE(nothing.made());
    EXPECT_EQ(nothing.get()(), nullptr);
}

TEST(Event, AProfilingQueueGetsTheLaunchsOwnEvent) {
    if (!(queue().device().getInfo<CL_DEVICE_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE))
        GTEST_SKIP() << "the device has no profiling queues";
    clalgo::Queue timed(context(), context().device(), CL_QUEUE_PROFILING_ENABLE);
    EXPECT_TRUE(timed.profiling());
    EXPECT_FALSE(queue().profiling());
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(timed, 1 << 16);
    x.fill(timed, 0).wait();
    const clalgo::Event done = add_one(timed, x);
    EXPECT_TRUE(done.made());
    done.wait();
    EXPECT_EQ(done.get().getInfo<CL_EVENT_COMMAND_TYPE>(), cl_command_type(CL_COMMAND_NDRANGE_KERNEL));
    const auto start = done.get().getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const auto end = done.get().getProfilingInfo<CL_PROFILING_COMMAND_END>();
    EXPECT_LE(start, end);
}

TEST(Event, EveryKindOfCallReturnsOneThatCompletesAfterItsWork) {
    const std::size_t n = 5000;
    std::vector<std::uint32_t> host(n);
    for (std::size_t k = 0; k < n; ++k) host[k] = static_cast<std::uint32_t>((k * 2654435761u) >> 7);
    auto keys = clalgo::to_device(queue(), host);
    clalgo::Array<std::uint64_t> sum(queue(), 1);
    std::vector<cl::Event> events;
    events.push_back(clalgo::sum(queue(), keys, sum));  // converts: the marker is made here
    const clalgo::Event sorted = clalgo::sort(queue(), keys);
    events.push_back(sorted);
    clalgo::Array<std::uint32_t> copy(queue(), n);
    const clalgo::Event copied = keys.copy_to(queue(), copy);
    cl::WaitForEvents(events);
    copied.wait();
    std::vector<std::uint32_t> expected = host;
    std::sort(expected.begin(), expected.end());
    std::uint64_t total = 0;
    for (auto v : host) total += v;
    EXPECT_EQ(copy.to_host(queue()), expected);
    EXPECT_EQ(sum.read_at(queue(), 0), total);
}

TEST(Event, EagerEventsMakeEachCallsEventAtOnce) {
    ::setenv("CLALGO_EAGER_EVENTS", "1", 1);
    clalgo::Queue eager(context());
    ::unsetenv("CLALGO_EAGER_EVENTS");
    EXPECT_TRUE(eager.events_at_once());
    EXPECT_FALSE(queue().events_at_once());
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(eager, 100);
    x.fill(eager, 6);
    const clalgo::Event done = add_one(eager, x);
    EXPECT_TRUE(done.made());
    EXPECT_EQ(done.get().getInfo<CL_EVENT_COMMAND_TYPE>(), cl_command_type(CL_COMMAND_NDRANGE_KERNEL));
    done.wait();
    EXPECT_EQ(x.to_host(eager), std::vector<int>(100, 7));
}

TEST(Event, AConstReferenceToTheConvertedEventOutlivesTheCall) {
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(queue(), 500);
    x.fill(queue(), 1);
    const cl::Event& done = add_one(queue(), x);  // a cl::Event of its own, not a reference into a temporary
    done.wait();
    EXPECT_EQ(x.to_host(queue()), std::vector<int>(500, 2));
}

TEST(Event, WaitingForAnEventOfTheSameQueueMakesNoMarker) {
    clalgo::ElementwiseKernel twice(context(), "int *x", "x[i] *= 2");
    const std::vector<int> host = clalgo_test::random_values<int>(2000);
    auto x = clalgo::to_device(queue(), host);
    const clalgo::Event first = twice(queue(), x);
    const clalgo::Event second = twice(queue(), x, clalgo::wait_for(first));
    EXPECT_FALSE(first.made());  // the in-order queue runs it first anyway
    twice(queue(), x, clalgo::wait_for(clalgo::Event()));  // nothing to wait for: no null event in the wait list
    second.wait();
    const auto result = x.to_host(queue());
    for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(result[k], 8 * host[k]) << k;
}

TEST(Event, AQueueSetToMakeEventsAtOnceGivesEveryCallItsLastCommandsEvent) {
    clalgo::Queue eager(context());
    EXPECT_FALSE(eager.events_at_once());
    eager.set_events_at_once(true);
    EXPECT_TRUE(eager.events_at_once());
    const std::size_t n = 300000;  // several radix passes, not one tile
    std::vector<std::uint32_t> host(n);
    for (std::size_t k = 0; k < n; ++k) host[k] = static_cast<std::uint32_t>(k * 2654435761u);
    auto keys = clalgo::to_device(eager, host);
    const clalgo::Event sorted = clalgo::sort(eager, keys);
    EXPECT_TRUE(sorted.made());
    sorted.wait();
    std::vector<std::uint32_t> expected = host;
    std::sort(expected.begin(), expected.end());
    std::vector<std::uint32_t> got(n);
    keys.read(eager, got.data());
    EXPECT_EQ(got, expected);
}

TEST(Event, ACountOnTheDeviceReadsRightFromAnotherQueue) {
    clalgo::Queue other(context());
    const std::vector<int> host = clalgo_test::random_values<int>(10000, 5);
    auto x = clalgo::to_device(queue(), host);
    const auto kept = clalgo::copy_if(queue(), x, "ary[i] % 2 == 0");
    std::int64_t expected = 0;
    for (int v : host) expected += v % 2 == 0;
    EXPECT_EQ(kept.count.get(other), expected);  // waits for the copy_if's event, made for it
}

TEST(Event, OutlivesTheQueueItWasMadeOn) {
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(queue(), 1000);
    x.fill(queue(), 3).wait();
    clalgo::Event done;
    {
        clalgo::Queue short_lived(context());
        done = add_one(short_lived, x);
    }  // the Event keeps the OpenCL queue it needs for its marker
    EXPECT_FALSE(done.made());
    done.wait();
    EXPECT_EQ(x.to_host(queue()), std::vector<int>(1000, 4));
}

TEST(Event, CallsBackToBackShareOnePendingEventUntilItIsAskedFor) {
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(queue(), 1000);
    x.fill(queue(), 0);
    const clalgo::Event first = add_one(queue(), x);
    const clalgo::Event second = add_one(queue(), x);
    const cl::Event marker = first.get();  // made now: after both calls
    ASSERT_NE(marker(), nullptr);
    EXPECT_TRUE(second.made());
    EXPECT_EQ(second.get()(), marker());
    const clalgo::Event third = add_one(queue(), x);  // after the marker: an event of its own, made when asked
    EXPECT_FALSE(third.made());
    EXPECT_NE(third.get()(), marker());
    third.wait();
    std::vector<int> seen(1000);
    x.read(queue(), seen.data());
    EXPECT_EQ(seen, std::vector<int>(1000, 3));
}

TEST(Event, ThreadsAskingForOneEventAtOnceGetTheSameMarker) {
    clalgo::ElementwiseKernel add_one(context(), "int *x", "x[i] += 1");
    clalgo::Array<int> x(queue(), 1000);
    x.fill(queue(), 0);
    const clalgo::Event done = add_one(queue(), x);
    std::vector<cl_event> seen(8, nullptr);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < seen.size(); ++t)
        threads.emplace_back([&, t] {
            const clalgo::Event copy = done;  // copies share the one pending event
            seen[t] = copy.get()();
        });
    for (auto& thread : threads) thread.join();
    for (cl_event event : seen) EXPECT_EQ(event, seen.front());
    ASSERT_NE(seen.front(), nullptr);
    done.wait();
    EXPECT_EQ(x.to_host(queue()), std::vector<int>(1000, 1));
}
