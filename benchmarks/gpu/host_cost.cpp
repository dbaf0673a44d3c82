// Host cost per call of the map, the reduction (and clalgo::sum, the same launch), the scan, copy_if, the
// compaction kernel, reduce_by_key, segmented_reduce, histogram and sort for a small and a mid-size input: the time to enqueue a call (no wait), and per call back to
// back with one wait at the end; and the driver calls a call may make besides its launch, each alone.
// Where both are equal, the calls are bound by the host (the driver's launch and clalgo's own work), not by the
// device. The scans and copy_if are timed with the device's own algorithm and with the single pass forced (the
// one NVIDIA runs, whose launch PoCL's serial default does not show). Last, a trivial kernel of 1 to 20 arguments
// launched straight through OpenCL: how the driver's launch cost grows with the number of arguments.
// First, every primitive's call against its own kernels launched raw with the call's arguments (calls_against_raw).
// `host_cost --segmented` runs only segmented_floor (below), twice; `host_cost --against-raw` only the first part;
// `host_cost --raw-launches` only the trivial kernels' launches.
// Build target host_cost; docs/performance.md quotes its output.
#include <clalgo/clalgo.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <set>
#include <string>
#include <vector>
using clock_ = std::chrono::steady_clock;
// CPU time of the calling thread: clalgo's and the driver's work in the enqueue loop, without the time the
// thread waits or is preempted (on a busy machine, or where the driver's worker threads share its cores)
static double thread_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
static void measure(const char* name, clalgo::Queue& q, const std::function<void()>& f, int calls = 2000) {
    for (int k = 0; k < 50; ++k) f();
    q.finish();
    auto t0 = clock_::now();
    const double cpu0 = thread_seconds();
    for (int k = 0; k < calls; ++k) f();
    const double cpu1 = thread_seconds();
    auto t1 = clock_::now();
    q.finish();
    auto t2 = clock_::now();
    std::printf("%-40s enqueue %.2f us/call (thread CPU %.2f), with finish %.2f us/call\n", name,
                std::chrono::duration<double>(t1 - t0).count() / calls * 1e6, (cpu1 - cpu0) / calls * 1e6,
                std::chrono::duration<double>(t2 - t0).count() / calls * 1e6);
}

// `f` alone in a loop of `calls` after a warm-up of `calls` / 100: the calling thread's CPU time a call. With a
// queue, finished before and after, so that no earlier work is waited for in the loop.
static void time_alone(const char* name, int calls, const std::function<void()>& f, clalgo::Queue* queue = nullptr) {
    for (int k = 0; k < calls / 100; ++k) f();
    if (queue) queue->finish();
    const double cpu0 = thread_seconds();
    for (int k = 0; k < calls; ++k) f();
    std::printf("%-48s %.3f us/call (thread CPU)\n", name, (thread_seconds() - cpu0) / calls * 1e6);
    if (queue) queue->finish();
}

// Time per call of `f` back to back: `calls` of them and one wait at the end. Where `loop_cpu` is given, it
// receives the calling thread's CPU time a call in the loop, before the wait.
static double batch_per_call(clalgo::Queue& q, const std::function<void()>& f, int calls, double* loop_cpu = nullptr) {
    auto t0 = clock_::now();
    const double cpu0 = thread_seconds();
    for (int k = 0; k < calls; ++k) f();
    if (loop_cpu) *loop_cpu = (thread_seconds() - cpu0) / calls * 1e6;
    q.finish();
    return std::chrono::duration<double>(clock_::now() - t0).count() / calls * 1e6;
}

static double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t half = values.size() / 2;
    return values.size() % 2 ? values[half] : (values[half - 1] + values[half]) / 2;
}

// A call back to back against the same kernels launched straight through OpenCL with the arguments the call set
// (its launches recorded by detail::LaunchLog), and where `read` is given, each replay followed by a blocking
// read of that many bytes (a blocking call's round trip): what the call costs besides its launches. Batches of
// the call and of the replay alternate, seven of each, so that a change of the device's or the host's pace
// between them reaches both sides alike; printed: the medians and the range of the seven paired differences.
static void against_raw(const char* name, clalgo::Queue& q, const std::function<void()>& f, int calls,
                        const cl::Buffer* read = nullptr, std::size_t bytes = 0) {
    std::vector<clalgo::detail::RecordedLaunch> launches;
    {
        clalgo::detail::LaunchLog log;
        f();
        launches = log.launches();
    }
    q.finish();
    unsigned char result[16] = {};
    auto replay = [&] {
        for (const auto& launch : launches)
            q.get().enqueueNDRangeKernel(launch.kernel, cl::NullRange, cl::NDRange(launch.global),
                                         launch.local ? cl::NDRange(launch.local) : cl::NullRange);
        if (read) q.get().enqueueReadBuffer(*read, CL_TRUE, 0, bytes, result);
    };
    (void)batch_per_call(q, f, calls / 20 + 1);  // warm-up of both
    (void)batch_per_call(q, replay, calls / 20 + 1);
    std::vector<double> call, raw, difference, call_cpu, raw_cpu;
    for (int round = 0; round < 7; ++round) {
        double cpu = 0;
        call.push_back(batch_per_call(q, f, calls, &cpu));
        call_cpu.push_back(cpu);
        raw.push_back(batch_per_call(q, replay, calls, &cpu));
        raw_cpu.push_back(cpu);
        difference.push_back(call.back() - raw.back());
    }
    // the thread's CPU in the loop besides: a replay reruns the call's look-back kernels with its epoch, whose
    // tiles may then find their predecessors' status at once, so where the device sets the pace the replay's
    // time can be shorter than the kernel's own; the loop's CPU time is the host's work alone (and its waits where
    // the driver's queue is full)
    std::printf("%-36s call %7.2f us, its %zu launch%s raw%s %7.2f us: %+.2f us (rounds %+.2f to %+.2f); thread CPU "
                "in the loop %.2f against %.2f: %+.2f us\n",
                name, median(call), launches.size(), launches.size() == 1 ? "" : "es", read ? " + blocking read" : "",
                median(raw), median(call) - median(raw), *std::min_element(difference.begin(), difference.end()),
                *std::max_element(difference.begin(), difference.end()), median(call_cpu), median(raw_cpu),
                median(call_cpu) - median(raw_cpu));
}

// The by-key family's inputs: float values, int keys in runs of 8, segments of 256.
struct ByKeyInputs {
    ByKeyInputs(clalgo::Queue& q, std::size_t n)
        : values(q, n), values_out(q, n), sums(q, n / 256) {
        std::vector<int> run_keys(n);
        for (std::size_t i = 0; i < n; ++i) run_keys[i] = int(i / 8);
        keys = clalgo::to_device(q, run_keys);
        values.fill(q, 1.0f);
        std::vector<std::int64_t> host_offsets(n / 256 + 1);
        for (std::size_t s = 0; s < host_offsets.size(); ++s) host_offsets[s] = std::int64_t(s * 256);
        offsets = clalgo::to_device(q, host_offsets);
    }
    clalgo::Array<int> keys;
    clalgo::Array<float> values, values_out, sums;
    clalgo::Array<std::int64_t> offsets;
};

// kernel k<count>: argument 0 a buffer, then buffers and longs alternating (as a user's array and its offset);
// kernel b<count>: <count> buffers; kernel l<count>: a buffer and <count> - 1 longs; kernel s<count>: a buffer
// and those longs in one struct argument
static std::string raw_kernel_source(int count) {
    const std::string c = std::to_string(count);
    std::string text = "__kernel void k" + c + "(__global long *out";
    std::string body = "    if (get_global_id(0) == 0) out[0] = 0";
    for (int a = 1; a < count; ++a) {
        if (a % 2) text += ", __global long *b" + std::to_string(a);
        else {
            text += ", long s" + std::to_string(a);
            body += " + s" + std::to_string(a);
        }
    }
    text += ")\n{\n" + body + ";\n}\n";
    std::string buffers = "__kernel void b" + c + "(__global long *out", longs = "__kernel void l" + c + "(__global long *out";
    std::string fields, longs_body = "    if (get_global_id(0) == 0) out[0] = 0", struct_body = longs_body;
    for (int a = 1; a < count; ++a) {
        buffers += ", __global long *b" + std::to_string(a);
        longs += ", long s" + std::to_string(a);
        fields += " long s" + std::to_string(a) + ";";
        longs_body += " + s" + std::to_string(a);
        struct_body += " + p.s" + std::to_string(a);
    }
    text += buffers + ")\n{\n    if (get_global_id(0) == 0) out[0] = 1;\n}\n";
    text += longs + ")\n{\n" + longs_body + ";\n}\n";
    if (count > 1)
        text += "typedef struct {" + fields + " } p" + c + "_t;\n__kernel void s" + c + "(__global long *out, const p" + c +
                "_t p)\n{\n" + struct_body + ";\n}\n";
    return text;
}

static void raw_launches(const clalgo::Context& ctx, clalgo::Queue& q) {
    const int counts[] = {1, 4, 8, 12, 16, 20};
    std::string source;
    for (int count : counts) source += raw_kernel_source(count);
    cl::Program program(ctx.get(), source);
    program.build();
    cl::Buffer buffer(ctx.get(), CL_MEM_READ_WRITE, 64);
    for (int count : counts) {
        cl::Kernel kernel(program, ("k" + std::to_string(count)).c_str());
        auto set_all = [&] {
            for (int a = 0; a < count; ++a) {
                if (a % 2 == 0 && a > 0) kernel.setArg(a, cl_long(a));
                else kernel.setArg(a, buffer);
            }
        };
        set_all();
        const std::string label = "raw kernel, " + std::to_string(count) + " args";
        measure((label + ": launch").c_str(), q, [&] {
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64));
        });
        measure((label + ": set, launch, event").c_str(), q, [&] {
            set_all();
            cl::Event done;
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64), nullptr, &done);
        });
        // each apart: an event asked for, every argument set again, one argument set to a new value (a call's
        // epoch)
        measure((label + ": launch, event").c_str(), q, [&] {
            cl::Event done;
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64), nullptr, &done);
        });
        measure((label + ": set, launch").c_str(), q, [&] {
            set_all();
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64));
        });
        cl_long epoch = 0;
        if (count > 2)
            measure((label + ": one set anew, launch").c_str(), q, [&] {
                kernel.setArg(2, ++epoch);  // argument 2 is a long
                q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64));
            });
    }
    // which arguments the launch's cost grows with: buffers, longs, or longs in one struct
    for (int count : counts) {
        if (count == 1) continue;
        const std::string c = std::to_string(count);
        cl::Kernel buffers(program, ("b" + c).c_str()), longs(program, ("l" + c).c_str()), packed(program, ("s" + c).c_str());
        std::vector<cl_long> fields(count - 1);
        for (int a = 0; a < count; ++a) {
            buffers.setArg(a, buffer);
            if (a == 0) longs.setArg(a, buffer);
            else longs.setArg(a, cl_long(a));
            fields[a > 0 ? a - 1 : 0] = a;
        }
        packed.setArg(0, buffer);
        packed.setArg(1, fields.size() * sizeof(cl_long), fields.data());
        auto launch = [&](cl::Kernel& kernel) {
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64));
        };
        measure(("raw kernel, " + c + " buffers: launch").c_str(), q, [&] { launch(buffers); });
        for (int a = 1; a < count; ++a) buffers.setArg(a, sizeof(cl_mem), nullptr);
        measure(("raw kernel, " + c + " buffers, all but one null: launch").c_str(), q, [&] { launch(buffers); });
        measure(("raw kernel, 1 buffer, " + std::to_string(count - 1) + " longs: launch").c_str(), q, [&] { launch(longs); });
        measure(("raw kernel, 1 buffer, " + std::to_string(count - 1) + " longs in a struct: launch").c_str(), q,
                [&] { launch(packed); });
    }
}

// The driver calls a call may make besides the launch, each timed alone in a loop: what a cl::Buffer's or a
// cl::Kernel's copy (a retain and a release) costs, setting an argument, and a heap allocation for scale.
static void driver_calls(const clalgo::Context& ctx, clalgo::Queue& q) {
    auto time = [](const char* name, const std::function<void()>& f) { time_alone(name, 200000, f); };
    cl::Buffer buffer(ctx.get(), CL_MEM_READ_WRITE, 64);
    cl::Program program(ctx.get(), raw_kernel_source(4));
    program.build();
    cl::Kernel kernel(program, "k4");
    volatile std::size_t sink = 0;
    time("cl::Buffer copy (retain, release)", [&] { cl::Buffer copy = buffer; sink = sink + (copy() != nullptr); });
    time("cl::Kernel copy (retain, release)", [&] { cl::Kernel copy = kernel; sink = sink + (copy() != nullptr); });
    time("setArg buffer", [&] { kernel.setArg(1, buffer); });
    time("setArg long", [&] { kernel.setArg(2, cl_long(7)); });
    time("std::string of 24 chars", [&] { std::string text(24, 'x'); sink = sink + text.size(); });
    cl::Event event;
    q.get().enqueueMarkerWithWaitList(nullptr, &event);
    q.finish();
    time("event status query", [&] { sink = sink + event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(); });
}

// The device's side of back-to-back calls, on a profiling queue: for each call's last kernel, how long it ran
// (end - start) and how long the device stood between it and the next call's (start - previous end). Where a
// call's enqueue takes no longer than these, the device, not the host, bounds calls back to back.
static void device_timeline(const clalgo::Context& ctx) {
    clalgo::Queue q(ctx, CL_QUEUE_PROFILING_ENABLE);
    auto timeline = [&](const char* name, const std::function<clalgo::Event()>& f) {
        const int calls = 200;
        for (int k = 0; k < 20; ++k) f();
        q.finish();
        std::vector<cl::Event> events;
        for (int k = 0; k < calls; ++k) events.push_back(f().get());
        q.finish();
        std::vector<double> run, gap;
        for (int k = 0; k < calls; ++k) {
            const double start = double(events[k].getProfilingInfo<CL_PROFILING_COMMAND_START>());
            const double end = double(events[k].getProfilingInfo<CL_PROFILING_COMMAND_END>());
            run.push_back((end - start) * 1e-3);
            if (k > 0) gap.push_back((start - double(events[k - 1].getProfilingInfo<CL_PROFILING_COMMAND_END>())) * 1e-3);
        }
        std::sort(run.begin(), run.end());
        std::sort(gap.begin(), gap.end());
        std::printf("%-40s last kernel takes %.2f us (median), device idle before it %.2f us (median)\n", name,
                    run[run.size() / 2], gap[gap.size() / 2]);
    };
    for (std::size_t n : {std::size_t(1024), std::size_t(1) << 20}) {
        std::printf("n=%zu\n", n);
        std::vector<int> h(n, 1);
        auto x = clalgo::to_device(q, h);
        clalgo::Array<int> out(q, n), one(q, 1);
        clalgo::Array<std::int64_t> count(q, 1);
        clalgo::Array<float> values(q, n), values_out(q, n), sums(q, n / 256);
        values.fill(q, 1.0f);
        std::vector<std::int64_t> host_offsets(n / 256 + 1);
        for (std::size_t s = 0; s < host_offsets.size(); ++s) host_offsets[s] = std::int64_t(s * 256);
        auto offsets = clalgo::to_device(q, host_offsets);
        clalgo::ElementwiseKernel copy(ctx, "const int *x, int *y", "y[i] = x[i]");
        clalgo::ReductionKernel<int> sum(ctx, "0", "a+b", "x[i]", "const int *x");
        clalgo::InclusiveScanKernel<int> scan(ctx, "a+b", "0");
        timeline("elementwise copy", [&] { return copy(q, x, out); });
        timeline("reduce into", [&] { return sum.into(q, one, x); });
        timeline("inclusive scan", [&] { return scan(q, x, out); });
        timeline("copy_if into", [&] { return clalgo::copy_if(q, x, out, count, "ary[i] % 2 == 0"); });
        timeline("segmented_reduce", [&] { return clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0"); });
        timeline("reduce_by_key into", [&] { return clalgo::reduce_by_key(q, x, values, out, values_out, count, "a+b", "0"); });
    }
    std::string source = raw_kernel_source(1);
    cl::Program program(ctx.get(), source);
    program.build();
    cl::Kernel kernel(program, "k1");
    cl::Buffer buffer(ctx.get(), CL_MEM_READ_WRITE, 64);
    kernel.setArg(0, buffer);
    timeline("raw kernel, 1 arg", [&] {
        cl::Event done;
        q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(64), cl::NDRange(64), nullptr, &done);
        return clalgo::Event(done);
    });
}

// The parts of a reduce_by_key and a segmented_reduce call, each timed alone in a loop (n = 1024, thread CPU):
// what clalgo does on the host besides the driver's launch.
static void call_parts(const clalgo::Context& ctx, clalgo::Queue& q) {
    auto time = [&](const char* name, const std::function<void()>& f) { time_alone(name, 20000, f, &q); };
    const std::size_t n = 1024;
    ByKeyInputs in(q, n);
    auto& keys = in.keys;
    auto& offsets = in.offsets;
    auto &values = in.values, &values_out = in.values_out, &sums = in.sums;
    clalgo::Array<int> keys_out(q, n);
    clalgo::Array<std::int64_t> count(q, 1);
    volatile std::size_t sink = 0;
    const cl_mem memory = values.buffer()();
    time("clGetMemObjectInfo (CL_MEM_CONTEXT)", [&] {
        cl_context owner = nullptr;
        clGetMemObjectInfo(memory, CL_MEM_CONTEXT, sizeof owner, &owner, nullptr);
        sink = sink + (owner != nullptr);
    });
    time("getenv (unset variable)", [&] { sink = sink + (std::getenv("CLALGO_REDUCE_BY_KEY") != nullptr); });
    time("bind(ArrayView<float>)", [&] { sink = sink + clalgo::detail::bind(values.view()).size; });
    time("queue.info()", [&] { sink = sink + q.info().compute_units; });
    auto spec_of = [&] {
        clalgo::detail::ByKeySpec spec;
        spec.key_type = "int";
        spec.value_type = "float";
        spec.reduce_expr = "a+b";
        spec.neutral = "0";
        return spec;
    };
    time("reduce_by_key: ByKeySpec and its key", [&] {
        std::string key;
        spec_of().append_key(key);
        sink = sink + key.size();
    });
    const auto spec = spec_of();
    time("reduce_by_key: cached_by_key (a made spec)", [&] {
        sink = sink + std::size_t(&clalgo::detail::cached_by_key<cl_uint, float>(ctx, spec) != nullptr);
    });
    const auto& kernel = clalgo::detail::cached_by_key<cl_uint, float>(ctx, spec);
    time("reduce_by_key: the kernel's enqueue", [&] { kernel.enqueue(q, keys.view(), values.view(), keys_out.view(), values_out.view(), count.view()); });
    time("reduce_by_key: the whole call", [&] { clalgo::reduce_by_key(q, keys, values, keys_out, values_out, count, "a+b", "0"); });
    const clalgo::detail::SegmentedShape shape{"float", "a+b", "0", {}, "segmented_reduce"};
    time("segmented_reduce: cached_segmented", [&] {
        sink = sink + std::size_t(&clalgo::detail::cached_segmented(ctx, shape) != nullptr);
    });
    const auto& segmented = clalgo::detail::cached_segmented(ctx, shape);
    time("segmented_reduce: the kernel's enqueue", [&] {
        segmented.enqueue(q, 257, 4, offsets.view(), values.buffer(), 0, std::int64_t(n), sums.buffer(), 0);
    });
    time("segmented_reduce: the whole call", [&] { clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0"); });
}

// Kernels alike but for one trait each (local memory, a struct argument, the group size, a required group size,
// atomics, more code), launched back to back: which of a kernel's traits NVIDIA's launch cost grows with.
static void launch_traits(const clalgo::Context& ctx, clalgo::Queue& q) {
    const char* source = R"CLC(
typedef struct { long a, b, c, d, e, f; } args_t;
__kernel void plain(__global long *out) { if (get_global_id(0) == 0) out[0] = 1; }
__kernel void local_small(__global long *out) {
    __local uint s[256]; s[get_local_id(0)] = get_local_id(0); barrier(CLK_LOCAL_MEM_FENCE);
    if (get_global_id(0) == 0) out[0] = s[get_local_size(0) - 1]; }
__kernel void local_big(__global long *out) {
    __local uint s[8192]; for (uint k = get_local_id(0); k < 8192; k += get_local_size(0)) s[k] = k;
    barrier(CLK_LOCAL_MEM_FENCE); if (get_global_id(0) == 0) out[0] = s[8191]; }
__kernel void local_argument(__global long *out, __local uint *s) {
    s[get_local_id(0)] = get_local_id(0); barrier(CLK_LOCAL_MEM_FENCE);
    if (get_global_id(0) == 0) out[0] = s[get_local_size(0) - 1]; }
__kernel void struct_argument(const args_t args, __global long *out) { if (get_global_id(0) == 0) out[0] = args.a + args.f; }
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void required_256(__global long *out) {
    if (get_global_id(0) == 0) out[0] = 1; }
__kernel void atomics(__global long *out, __global uint *counter) {
    if (get_local_id(0) == 0) atomic_inc(counter); if (get_global_id(0) == 0) out[0] = 1; }
)CLC";
    cl::Program program(ctx.get(), source);
    program.build();
    cl::Buffer buffer(ctx.get(), CL_MEM_READ_WRITE, 64), counter(ctx.get(), CL_MEM_READ_WRITE, 64);
    struct Args { cl_long a, b, c, d, e, f; } args{1, 2, 3, 4, 5, 6};
    auto run = [&](const char* name, std::size_t global, std::size_t local, const std::function<void(cl::Kernel&)>& set) {
        cl::Kernel kernel(program, name);
        set(kernel);
        const std::string label = std::string("kernel ") + name + ", " + std::to_string(global / local) + " x " + std::to_string(local);
        measure(label.c_str(), q, [&] {
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(local));
        });
    };
    auto out_only = [&](cl::Kernel& kernel) { kernel.setArg(0, buffer); };
    run("plain", 64, 64, out_only);
    run("plain", 256, 256, out_only);
    run("plain", 256 * 132, 256, out_only);
    run("local_small", 256, 256, out_only);
    run("local_big", 256, 256, out_only);
    run("local_argument", 256, 256, [&](cl::Kernel& kernel) { kernel.setArg(0, buffer); kernel.setArg(1, cl::Local(1024)); });
    run("struct_argument", 256, 256, [&](cl::Kernel& kernel) { kernel.setArg(0, sizeof args, &args); kernel.setArg(1, buffer); });
    run("required_256", 256, 256, out_only);
    run("atomics", 256, 256, [&](cl::Kernel& kernel) { kernel.setArg(0, buffer); kernel.setArg(1, counter); });
}

// segmented_reduce's call against its own kernel launched straight through OpenCL (arguments left as the call set
// them), the same kernel as one work-group, and a trivial kernel: whether the call's cost back to back is clalgo's
// host work, the driver's launch, or the kernel's time on the device.
static void segmented_floor(const clalgo::Context& ctx, clalgo::Queue& q) {
    cl::Program program(ctx.get(), raw_kernel_source(4));
    program.build();
    cl::Kernel trivial(program, "k4");
    cl::Buffer buffer(ctx.get(), CL_MEM_READ_WRITE, 64);
    trivial.setArg(0, buffer);
    trivial.setArg(1, buffer);
    trivial.setArg(2, cl_long(2));
    trivial.setArg(3, buffer);
    const clalgo::detail::SegmentedShape shape{"float", "a+b", "0", {}, "segmented_reduce"};
    const auto& segmented = clalgo::detail::cached_segmented(ctx, shape);
    const auto policy = clalgo::segmented_reduce_policy(q.info(), sizeof(float));
    for (std::size_t n : {std::size_t(1) << 10, std::size_t(1) << 16, std::size_t(1) << 20}) {
        ByKeyInputs in(q, n);
        const std::int64_t segments = std::int64_t(n / 256);
        const std::string size = " n=" + std::to_string(n);
        measure(("segmented_reduce call" + size).c_str(), q,
                [&] { clalgo::segmented_reduce(q, in.values, in.offsets, in.sums, "a+b", "0"); });
        // the call just set the kernel's arguments for this input; the launch shape as enqueue takes it
        cl::Kernel& kernel = segmented.program().on(q).kernel("segmented_reduce");
        const std::size_t groups = policy.groups(segments, std::int64_t(n) / segments + 1);
        measure(("segmented kernel, raw launch, " + std::to_string(groups) + " groups" + size).c_str(), q, [&] {
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups * policy.group_size),
                                         cl::NDRange(policy.group_size));
        });
        measure(("segmented kernel, raw launch, 1 group" + size).c_str(), q, [&] {
            q.get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(policy.group_size), cl::NDRange(policy.group_size));
        });
        measure(("trivial 4-argument kernel, " + std::to_string(groups) + " groups").c_str(), q, [&] {
            q.get().enqueueNDRangeKernel(trivial, cl::NullRange, cl::NDRange(groups * policy.group_size),
                                         cl::NDRange(policy.group_size));
        });
    }
}

// Every primitive's call against its own launches, at 2^10 and 2^16: what a call costs besides its launches.
static void calls_against_raw(const clalgo::Context& ctx, clalgo::Queue& q) {
    const bool cpu = q.info().is_cpu;
    for (std::size_t n : {std::size_t(1) << 10, std::size_t(1) << 16}) {
        std::printf("n=%zu\n", n);
        std::vector<int> h(n);
        for (std::size_t i = 0; i < n; ++i) h[i] = int(i * 7 % 13);
        auto x = clalgo::to_device(q, h);
        clalgo::Array<int> out(q, n), one(q, 1);
        clalgo::Array<std::int64_t> count(q, 1), bins(q, 256);
        clalgo::ElementwiseKernel copy(ctx, "const int *x, int *y", "y[i] = x[i]");
        clalgo::ElementwiseKernel axpby(ctx, "double a, const double *x, double b, double *y",
                                        "y[i] = a * x[i] + b * y[i]");
        clalgo::ReductionKernel<int> sum(ctx, "0", "a+b", "x[i]", "const int *x");
        clalgo::InclusiveScanKernel<int> scan(ctx, "a+b", "0");
        ByKeyInputs in(q, n);
        const int calls = cpu ? 200 : 2000;
        against_raw("elementwise copy", q, [&] { copy(q, x, out); }, calls);
        if (q.info().has_fp64) {
            clalgo::Array<double> dx(q, n), dy(q, n);
            dx.fill(q, 1.0);
            dy.fill(q, 0.0);
            against_raw("elementwise axpby (double)", q, [&] { axpby(q, 0.5, dx, 0.5, dy); }, calls);
        }
        against_raw("reduce into", q, [&] { sum.into(q, one, x); }, calls);
        volatile int sink = 0;
        against_raw("reduce, blocking", q, [&] { sink = sink + sum(q, x); }, calls, &one.buffer(), sizeof(int));
        against_raw("clalgo::sum into", q, [&] { clalgo::sum(q, x, count); }, calls);
        against_raw("inclusive scan", q, [&] { scan(q, x, out); }, calls);
        against_raw("copy_if into", q, [&] { clalgo::copy_if(q, x, out, count, "ary[i] % 2 == 0"); }, calls);
        // its results drawn from the memory pool and given back before the next call: the pool's cost besides
        against_raw("copy_if allocating", q, [&] { (void)clalgo::copy_if(q, x, "ary[i] % 2 == 0"); }, calls);
        against_raw("reduce_by_key into", q,
                    [&] { clalgo::reduce_by_key(q, in.keys, in.values, out, in.values_out, count, "a+b", "0"); }, calls);
        against_raw("segmented_reduce", q, [&] { clalgo::segmented_reduce(q, in.values, in.offsets, in.sums, "a+b", "0"); },
                    calls);
        against_raw("histogram", q, [&] { clalgo::histogram(q, x, bins, {0, 256}); }, calls);
        against_raw("sort uint32 into", q, [&] { clalgo::sort(q, in.keys, out); }, cpu ? 20 : 2000);
    }
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--segmented") {  // that section alone
        auto ctx = clalgo::Context::default_context();
        clalgo::Queue q(ctx);
        for (int round = 0; round < 2; ++round) segmented_floor(ctx, q);
        return 0;
    }
    auto ctx = clalgo::Context::default_context();
    clalgo::Queue q(ctx);
    if (argc > 1 && std::string(argv[1]) == "--raw-launches") {  // that section alone
        raw_launches(ctx, q);
        return 0;
    }
    std::printf("calls against their own kernels launched raw (us per call, back to back)\n");
    calls_against_raw(ctx, q);
    if (argc > 1 && std::string(argv[1]) == "--against-raw") return 0;  // that section alone
    const bool cpu = q.info().is_cpu;
    for (std::size_t n : {std::size_t(1024), std::size_t(1) << 20}) {
        std::printf("n=%zu\n", n);
        std::vector<int> h(n); for (std::size_t i = 0; i < n; ++i) h[i] = int(i * 7 % 13);
        auto x = clalgo::to_device(q, h);
        clalgo::Array<int> out(q, n), one(q, 1);
        clalgo::Array<std::int64_t> count(q, 1);
        clalgo::ElementwiseKernel copy(ctx, "const int *x, int *y", "y[i] = x[i]");
        clalgo::InclusiveScanKernel<int> scan(ctx, "a+b", "0");
        clalgo::ScanOptions single_pass_options;
        single_pass_options.name = "inclusive_scan_single_pass";
        single_pass_options.algorithm = clalgo::ScanAlgorithm::single_pass;
        clalgo::InclusiveScanKernel<int> single_pass_scan(ctx, "a+b", "0", single_pass_options);
        clalgo::ReductionKernel<int> sum(ctx, "0", "a+b", "x[i]", "const int *x");
        clalgo::detail::CompactionSpec spec; spec.value_type = "int"; spec.keep = "ary[i] % 2 == 0";
        clalgo::detail::CompactionKernel<cl_uint> compact(ctx, spec);
        clalgo::SelectionOptions single_pass_selection;
        single_pass_selection.algorithm = clalgo::ScanAlgorithm::single_pass;
        // the single pass spins on CPU devices: fewer calls there at the larger size
        const int single_pass_calls = cpu && n > 4096 ? 200 : 2000;
        measure("elementwise copy", q, [&] { copy(q, x, out); });
        measure("reduce into", q, [&] { sum.into(q, one, x); });
        measure("clalgo::sum into", q, [&] { clalgo::sum(q, x, count); });  // the same launch, found by type
        measure("inclusive scan", q, [&] { scan(q, x, out); });
        measure("inclusive scan, single pass", q, [&] { single_pass_scan(q, x, out); }, single_pass_calls);
        measure("copy_if into", q, [&] { clalgo::copy_if(q, x, out, count, "ary[i] % 2 == 0"); });
        {
            const auto before = clalgo::MemoryPool::of(ctx).statistics();
            std::set<cl_mem> drawn;  // the buffers its results came in: one where each draw reuses the last
            measure("copy_if allocating", q, [&] {
                auto kept = clalgo::copy_if(q, x, "ary[i] % 2 == 0");
                if (drawn.size() < 1000) drawn.insert(kept.values.buffer()());
            });
            const auto after = clalgo::MemoryPool::of(ctx).statistics();
            std::printf("  its pool draws: %llu reused, %llu new; its results came in %zu%s buffers\n",
                        (unsigned long long)(after.hits - before.hits),
                        (unsigned long long)(after.misses - before.misses), drawn.size(),
                        drawn.size() >= 1000 ? " or more" : "");
        }
        measure("copy_if into, single pass", q,
                [&] { clalgo::copy_if(q, x, out, count, "ary[i] % 2 == 0", single_pass_selection); }, single_pass_calls);
        measure("compaction kernel direct", q, [&] {
            std::vector<clalgo::detail::BoundArgument> bound{clalgo::detail::bind(x), clalgo::detail::bind(out),
                                                             clalgo::detail::bind(count),
                                                             clalgo::detail::bind(static_cast<cl_long>(n))};
            compact.enqueue(q, std::nullopt, bound, {}); });
        std::printf("  counts by ballots: %d\n", int(compact.counts_by_ballots()));
        ByKeyInputs in(q, n);
        auto& keys = in.keys;
        auto& offsets = in.offsets;
        auto &values = in.values, &values_out = in.values_out, &sums = in.sums;
        clalgo::Array<std::int64_t> bins(q, 256);
        measure("reduce_by_key into", q, [&] { clalgo::reduce_by_key(q, keys, values, out, values_out, count, "a+b", "0"); });
        measure("segmented_reduce", q, [&] { clalgo::segmented_reduce(q, values, offsets, sums, "a+b", "0"); });
        measure("histogram", q, [&] { clalgo::histogram(q, x, bins, {0, 256}); });
        measure("sort uint32 into", q, [&] { clalgo::sort(q, keys, out); }, cpu ? 100 : 2000);
    }
    std::printf("segmented_reduce against its kernel's raw launch\n");
    segmented_floor(ctx, q);
    std::printf("launch traits\n");
    launch_traits(ctx, q);
    std::printf("call parts\n");
    call_parts(ctx, q);
    std::printf("device timeline (profiling queue)\n");
    device_timeline(ctx);
    std::printf("driver calls\n");
    driver_calls(ctx, q);
    std::printf("raw launches (one work-group of 64)\n");
    raw_launches(ctx, q);
}
