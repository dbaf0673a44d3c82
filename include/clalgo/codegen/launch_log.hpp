// A record of the kernel launches clalgo makes on one thread, for tests that count the kernels a call takes and
// for tools that time a call against its own kernels launched straight through OpenCL
// (benchmarks/gpu/host_cost.cpp) or time each kernel of a call (benchmarks/gpu/sort_kernels.cpp). While a
// LaunchLog is open on a thread, every launch of that thread is also written to it: the kernel object, whose
// arguments stay as the call set them, the launch's shape and, where the log asks for them, the launch's event
// (on a queue made with CL_QUEUE_PROFILING_ENABLE, its device times). Nothing is recorded, and a launch pays one
// thread-local read, while none is open.
//   detail::LaunchLog log;
//   clalgo::sort(q, keys);                                   // its launches, recorded
//   for (const auto& launch : log.launches()) q.get().enqueueNDRangeKernel(launch.kernel, ...);
#pragma once

#include <clalgo/core/config.hpp>

#include <cstddef>
#include <vector>

namespace clalgo::detail {

/// One recorded launch: 1-D, `global` work-items in groups of `local` (0: the driver's choice); its event where the
/// log asked for events (else none, even where the call made one).
struct RecordedLaunch {
    cl::Kernel kernel;
    std::size_t global = 0, local = 0;
    cl::Event event;
};

/// Records the launches of the thread that opens it, until it is destroyed (logs nest: the innermost records).
class LaunchLog {
public:
    /// `with_events`: every launch makes an event (where its call would not) and the log keeps it.
    explicit LaunchLog(bool with_events = false) : outer_(current()), with_events_(with_events) { current() = this; }
    ~LaunchLog() { current() = outer_; }
    LaunchLog(const LaunchLog&) = delete;
    LaunchLog& operator=(const LaunchLog&) = delete;

    const std::vector<RecordedLaunch>& launches() const noexcept { return launches_; }

    /// The log open on this thread (nullptr: none), asked by every launch clalgo makes (codegen/program.hpp's
    /// enqueue_launch) before it enqueues.
    static LaunchLog* open() noexcept { return current(); }
    bool with_events() const noexcept { return with_events_; }
    /// `event`: the launch's, if it made one (kept only where the log asks for events).
    void record(const cl::Kernel& kernel, std::size_t global, std::size_t local, const cl::Event* event) {
        launches_.push_back({kernel, global, local, with_events_ && event ? *event : cl::Event()});
    }

private:
    static LaunchLog*& current() noexcept {
        static thread_local LaunchLog* log = nullptr;
        return log;
    }

    LaunchLog* outer_;
    bool with_events_;
    std::vector<RecordedLaunch> launches_;
};

}  // namespace clalgo::detail
