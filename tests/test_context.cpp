// core/context.hpp and core/queue.hpp: choosing a device, wrapping the program's own OpenCL objects, queues.
#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <set>
#include <utility>
#include <chrono>
#include <thread>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

// What the OpenCL runtime reports, read with plain CLHPP, to compare clalgo's choices with.

std::vector<cl::Platform> raw_platforms() {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    return platforms;
}

std::vector<cl::Device> raw_devices(const cl::Platform& platform) {
    std::vector<cl::Device> devices;
    try {
        platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
        devices.clear();
    }
    return devices;
}

bool is_gpu(const cl::Device& device) { return (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0; }

/// A platform's first GPU, else its first device.
cl::Device preferred_device(const std::vector<cl::Device>& devices) {
    for (const auto& device : devices)
        if (is_gpu(device)) return device;
    return devices.front();
}

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

/// The middle part of `text` with the case of every letter flipped, so only a case-insensitive search finds it.
std::string flipped_middle(const std::string& text) {
    const std::size_t length = std::max<std::size_t>(1, text.size() / 2);
    std::string part = text.substr((text.size() - length) / 2, length);
    for (auto& c : part) {
        const auto u = static_cast<unsigned char>(c);
        c = static_cast<char>(std::islower(u) ? std::toupper(u) : std::tolower(u));
    }
    return part;
}

/// y = 3x - 1 on `q` with a kernel built on `ctx`, checked against the CPU.
void expect_kernel_runs(const clalgo::Context& ctx, const clalgo::Queue& q) {
    clalgo::ElementwiseKernel affine(ctx, "const int *x, int *y", "y[i] = 3 * x[i] - 1");
    const auto hx = clalgo_test::random_values<int>(1000);
    auto x = clalgo::to_device(q, hx);
    clalgo::Array<int> y(q, hx.size());
    affine(q, x, y);
    const auto hy = y.to_host(q);
    for (std::size_t k = 0; k < hx.size(); ++k) ASSERT_EQ(hy[k], 3 * hx[k] - 1) << k;
}

/// The process's resident memory in bytes (/proc/self/statm's second field, in pages).
std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t total_pages = 0, resident_pages = 0;
    statm >> total_pages >> resident_pages;
    return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST(Context, DefaultContextPicksTheFirstGpuElseTheFirstDevice) {
    if (std::getenv("CLALGO_DEVICE") != nullptr) GTEST_SKIP() << "CLALGO_DEVICE chooses the device";
    cl::Device expected;
    for (const auto& platform : raw_platforms())
        for (const auto& device : raw_devices(platform))
            if (!expected() && is_gpu(device)) expected = device;
    if (!expected())
        for (const auto& platform : raw_platforms())
            if (!expected() && !raw_devices(platform).empty()) expected = raw_devices(platform).front();

    const auto ctx = clalgo::Context::default_context();
    ASSERT_EQ(ctx.devices().size(), 1u);
    EXPECT_EQ(ctx.device()(), expected());
    EXPECT_EQ(ctx.info().name, clalgo::DeviceInfo(expected).name);
    EXPECT_FALSE(ctx.info().name.empty());
}

TEST(Context, DefaultContextIsMadeOnceAndCopiesShareIt) {
    const auto a = clalgo::Context::default_context();
    const auto b = clalgo::Context::default_context();
    EXPECT_TRUE(a == b);
    EXPECT_EQ(a.get()(), b.get()());
    const clalgo::Context copy = a;
    EXPECT_TRUE(copy == a);
}

TEST(Context, SpecWithPlatformIndexPicksThatPlatformsPreferredDevice) {
    const auto expected = preferred_device(raw_devices(raw_platforms().at(0)));
    const auto ctx = clalgo::Context::from_spec("0");
    EXPECT_EQ(ctx.device()(), expected());
    EXPECT_TRUE(ctx != clalgo::Context::default_context());
}

TEST(Context, SpecWithPlatformAndDeviceIndexPicksThatDevice) {
    const auto platforms = raw_platforms();
    for (std::size_t p = 0; p < platforms.size(); ++p) {
        const auto devices = raw_devices(platforms[p]);
        for (std::size_t d = 0; d < devices.size(); ++d) {
            const std::string spec = std::to_string(p) + ":" + std::to_string(d);
            EXPECT_EQ(clalgo::Context::from_spec(spec).device()(), devices[d]()) << spec;
        }
    }
}

TEST(Context, SpecWithPlatformNamePartIgnoresCase) {
    const std::string platform_name = context().info().platform_name;
    const std::string part = flipped_middle(platform_name);
    ASSERT_EQ(platform_name.find(part), std::string::npos) << "the flipped part should differ in case";
    const auto ctx = clalgo::Context::from_spec(part);
    EXPECT_TRUE(contains(lowercase(ctx.info().platform_name), lowercase(part)));
    EXPECT_TRUE(contains(lowercase(clalgo::Context::from_spec(lowercase(part)).info().platform_name), lowercase(part)));
}

TEST(Context, SpecWithDeviceNamePartPicksAMatchingDevice) {
    const std::string device_name = context().info().name;
    const std::string part = flipped_middle(device_name);
    const auto ctx = clalgo::Context::from_spec(":" + part);
    EXPECT_TRUE(contains(lowercase(ctx.info().name), lowercase(part)));
}

TEST(Context, BadSpecThrowsListingTheAvailableDevices) {
    for (const std::string spec : {"99", "nosuchplatform", "0:99", "0:nosuchdevice"}) {
        const std::string message = message_of<std::invalid_argument>([&] { clalgo::Context::from_spec(spec); });
        EXPECT_TRUE(contains(message, "\"" + spec + "\"")) << spec;
        EXPECT_TRUE(contains(message, "available")) << spec;
        EXPECT_TRUE(contains(message, context().info().name)) << spec;
        EXPECT_TRUE(contains(message, context().info().platform_name)) << spec;
    }
}

TEST(Context, WrapsTheProgramsOwnContextAndQueue) {
    const cl::Device device = context().device();
    cl::Context raw_context(device);
    cl::CommandQueue raw_queue(raw_context, device);

    clalgo::Context wrapped(raw_context);
    EXPECT_EQ(wrapped.get()(), raw_context());
    EXPECT_TRUE(wrapped != context());
    clalgo::Queue q(raw_queue);
    EXPECT_EQ(q.get()(), raw_queue());
    EXPECT_TRUE(q.context() == wrapped);
    expect_kernel_runs(wrapped, q);

    // results are ordinary buffers the program's own OpenCL code can read
    clalgo::ElementwiseKernel square(wrapped, "int *x", "x[i] = x[i] * x[i]");
    const auto host = clalgo_test::random_values<int>(100);
    auto x = clalgo::to_device(q, host);
    square(q, x);
    std::vector<int> read_back(host.size());
    raw_queue.enqueueReadBuffer(x.buffer(), CL_TRUE, 0, x.bytes(), read_back.data());
    for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(read_back[k], host[k] * host[k]) << k;
}

TEST(Context, WrappingOneContextTwiceSharesTheProgramCache) {
    cl::Context raw_context(context().device());
    clalgo::Context first(raw_context), second(raw_context);
    EXPECT_TRUE(first == second);
    const char* operation = "y[i] = x[i] + 17";
    clalgo::ElementwiseKernel built(first, "const int *x, int *y", operation);
    const auto before = clalgo::cache_statistics();
    clalgo::ElementwiseKernel again(second, "const int *x, int *y", operation);
    const auto after = clalgo::cache_statistics();
    EXPECT_EQ(after.source_builds + after.disk_hits, before.source_builds + before.disk_hits);
    EXPECT_GT(after.memory_hits, before.memory_hits);
}

namespace {
/// Types to attach to a context: each holds the number it was made with (its type's), and counts its making.
std::atomic<int> attachments_made{0};
template <int K>
struct Attached {
    int number = (attachments_made++, K);
};

/// Attaches Attached<0> ... Attached<K> to `state`: where each was found, and each one's number in `numbers`.
template <int... K>
void attach_each(clalgo::detail::ContextState& state, std::integer_sequence<int, K...>, std::vector<void*>& found,
                 std::vector<int>& numbers) {
    ((found[K] = &state.attachment<Attached<K>>()), ...);
    ((numbers[K] = state.attachment<Attached<K>>().number), ...);
}
}  // namespace

TEST(Context, EachAttachedTypeIsMadeOnceAndEveryThreadFindsTheSameObject) {
    // more types than the lock-free table holds, from eight threads at once: the table and the map behind it
    cl::Context raw_context(context().device());  // a context of its own: nothing attached yet
    clalgo::Context fresh(raw_context);
    auto& state = fresh.state();
    constexpr int types = 24;
    const int made_before = attachments_made.load();
    std::vector<std::vector<void*>> found(8, std::vector<void*>(types, nullptr));
    std::vector<std::vector<int>> numbers(8, std::vector<int>(types, -1));
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 3; ++round)
                attach_each(state, std::make_integer_sequence<int, types>{}, found[t], numbers[t]);
        });
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(attachments_made.load() - made_before, types);
    for (int t = 0; t < 8; ++t)
        for (int k = 0; k < types; ++k) EXPECT_EQ(numbers[t][k], k) << "thread " << t;
    for (int t = 1; t < 8; ++t) EXPECT_EQ(found[t], found[0]) << "thread " << t;
    EXPECT_EQ(std::set<void*>(found[0].begin(), found[0].end()).size(), std::size_t(types));
}

TEST(Queue, WrappedQueueOfTheDefaultContextRunsItsKernels) {
    cl::CommandQueue raw_queue(context().get(), context().device());
    clalgo::Queue q(raw_queue);
    EXPECT_TRUE(q.context() == context());
    expect_kernel_runs(context(), q);
}

TEST(Queue, OutOfOrderQueueIsRejected) {
    EXPECT_TRUE(contains(message_of<std::invalid_argument>(
                             [] { clalgo::Queue(context(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); }),
                         "out-of-order"));

    const auto supported = context().device().getInfo<CL_DEVICE_QUEUE_PROPERTIES>();
    if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) GTEST_SKIP() << "the device has no out-of-order queues";
    cl::CommandQueue raw_queue(context().get(), context().device(), CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::Queue{raw_queue}; }), "out-of-order"));
}

TEST(Queue, QueueOfAnotherContextIsRejectedByAKernel) {
    clalgo::ElementwiseKernel kernel(context(), "int *x", "x[i] = 1");
    clalgo::Array<int> x(queue(), 10);
    const clalgo::Context other(context().device());  // a second context on the same device
    const clalgo::Queue other_queue(other);
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { kernel(other_queue, x); }), "another context"));
}

TEST(Queue, InfoDescribesTheQueuesDevice) {
    const auto& info = queue().info();
    EXPECT_EQ(info.name, clalgo::DeviceInfo(queue().device()).name);
    EXPECT_EQ(info.max_allocation_bytes, queue().device().getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>());
    EXPECT_EQ(info.compute_units, queue().device().getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    EXPECT_TRUE(contains(info.description(), info.name));
}

namespace {

/// The OpenCL reference count of a context.
cl_uint references(cl_context context) {
    cl_uint count = 0;
    clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof(count), &count, nullptr);
    return count;
}

}  // namespace

TEST(Context, IsFreedWithItsLastHandleAfterEveryAlgorithmRanOnIt) {
    // the algorithms keep their kernels with the context: those must not keep the context alive in turn
    cl_context raw = nullptr;
    {
        const clalgo::Context own(context().device());
        raw = own.get()();
        clRetainContext(raw);  // ours, to read the count after clalgo's handles are gone
        const clalgo::Queue q(own);
        std::vector<int> host(3000);
        for (std::size_t k = 0; k < host.size(); ++k) host[k] = int(k * 7919 % 1000);
        auto values = clalgo::to_device(q, host);
        {
            auto kept = clalgo::copy_if(q, values, "ary[i] % 2 == 0");
            auto parts = clalgo::partition(q, values, "ary[i] < 500");
            clalgo::sort(q, values);
            auto order = clalgo::argsort(q, values);
            clalgo::sort(q, values, "a > b");
            auto keys = clalgo::to_device(q, std::vector<int>(3000, 1));
            auto runs = clalgo::reduce_by_key(q, keys, values, "a+b", "0");
            clalgo::Array<std::uint32_t> bins(q, 16);
            clalgo::histogram(q, values, bins, {0, 1000});
            auto offsets = clalgo::to_device(q, std::vector<std::int64_t>{0, 1000, 3000});
            clalgo::Array<int> sums(q, 2);
            clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0");
            q.finish();
            EXPECT_EQ(runs.count.get(q), 1);
        }
        EXPECT_GT(references(raw), 1u);  // clalgo's handles hold it while they live
    }
    // a runtime may drop its own references a little later (PoCL's compiler threads): wait up to 10 s for them
    for (int wait = 0; wait < 1000 && references(raw) > 1; ++wait)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(references(raw), 1u) << "only our own reference is left: the context was freed with its caches";
    clReleaseContext(raw);
}

TEST(Queue, KernelsKeepScratchForLiveQueuesOnly) {
    clalgo::detail::PerQueue<int> per_queue;
    const clalgo::Queue kept(context());
    per_queue.get(kept) = 7;
    for (int k = 0; k < 100; ++k) {
        const clalgo::Queue short_lived(context());
        per_queue.get(short_lived) = k;
    }
    EXPECT_LE(per_queue.size(), 2u) << "states of queues no Queue wraps any more are dropped";
    EXPECT_EQ(per_queue.get(kept), 7);
    const clalgo::Queue same(kept.get());  // another wrapper of the same queue shares its state
    EXPECT_EQ(per_queue.get(same), 7);

    // a long-lived kernel on short-lived queues: right every time, its scratch made again where needed
    clalgo::InclusiveScanKernel<int> scan(context(), "a+b", "0");
    for (int k = 0; k < 20; ++k) {
        const clalgo::Queue q(context());
        auto in = clalgo::to_device(q, std::vector<int>(5000, k));
        clalgo::Array<int> out(q, 5000);
        scan(q, in, out);
        EXPECT_EQ(out.read_at(q, 4999), 5000 * k);
    }
}

// GCC says __SANITIZE_ADDRESS__, Clang __has_feature(address_sanitizer)
#if defined(__SANITIZE_ADDRESS__)
#define CLALGO_TEST_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLALGO_TEST_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef CLALGO_TEST_ADDRESS_SANITIZER
#define CLALGO_TEST_ADDRESS_SANITIZER 0
#endif

TEST(Context, AThousandContextsAndTenThousandQueuesMadeAndFreedLeaveMemoryFlat) {
    // each context: a queue, an array from its memory pool, written and read; each queue: a launch of one
    // long-lived kernel (which keeps scratch per queue) and an array
    const clalgo::ElementwiseKernel fill(context(), "int *x, int v", "x[i] = v + (int)i");
    const auto contexts = [&](int count) {
        for (int k = 0; k < count; ++k) {
            const clalgo::Context own(context().device());
            const clalgo::Queue q(own);
            clalgo::Array<int> x(q, 64);
            x.fill(q, k);
            ASSERT_EQ(x.read_at(q, 63), k);
        }
    };
    const auto queues = [&](int count) {
        for (int k = 0; k < count; ++k) {
            const clalgo::Queue q(context());
            clalgo::Array<int> x(q, 64);
            fill(q, x, k);
            ASSERT_EQ(x.read_at(q, 63), k + 63);
        }
    };
    // On PoCL a context costs about a millisecond; NVIDIA's driver takes much longer for each (its contexts
    // measured 0.1-1.3 s): there the counts shrink so that the test stays within a minute, and it says so.
    const auto timing = std::chrono::steady_clock::now();
    contexts(5);
    const double per_context = std::chrono::duration<double>(std::chrono::steady_clock::now() - timing).count() / 5;
    const int context_count = per_context < 0.01 ? 1000 : std::max(20, static_cast<int>(20.0 / per_context));
    const int queue_count = per_context < 0.01 ? 10000 : 1000;
    if (context_count < 1000)
        std::cout << "contexts take " << per_context << " s each here: " << context_count << " contexts and "
                  << queue_count << " queues instead of 1,000 and 10,000\n";
    contexts(std::min(100, context_count / 2));  // warm-up: the runtime's and the allocator's pools reach their working size
    queues(queue_count / 10);
    const std::size_t before = resident_bytes();
    const auto start = std::chrono::steady_clock::now();
    contexts(context_count);
    queues(queue_count);
    const std::size_t after = resident_bytes();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#if CLALGO_TEST_ADDRESS_SANITIZER
    // AddressSanitizer keeps freed memory in quarantine (256 MiB by default), so resident memory grows by design:
    // here the loops run for its checks and LeakSanitizer's at exit; the bound below holds in the normal build
    GTEST_SKIP() << "resident memory under AddressSanitizer: " << before / 1024 << " KiB before, " << after / 1024
                 << " KiB after (its quarantine); leaks are LeakSanitizer's to find here";
#endif
    // a leak of 1 KiB per context and 200 bytes per queue would be 3 MiB
    EXPECT_LT(after, before + (std::size_t(2) << 20))
        << "resident memory grew from " << before / 1024 << " KiB to " << after / 1024 << " KiB";
    std::cout << "resident " << before / 1024 << " KiB before, " << after / 1024 << " KiB after, " << seconds
              << " s\n";
}
