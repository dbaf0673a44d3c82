// A record of the kernel launches clalgo makes on one thread, for tests that count the kernels a call takes and
// for tools that time a call against its own kernels launched straight through OpenCL
// (benchmarks/gpu/host_cost.cpp). While a LaunchLog is open on a thread, every launch of that thread is also
// written to it: the kernel object, whose arguments stay as the call set them, and the launch's shape. Nothing is
// recorded, and a launch pays one thread-local read, while none is open.
//   detail::LaunchLog log;
//   clalgo::sort(q, keys);                                   // its launches, recorded
//   for (const auto& launch : log.launches()) q.get().enqueueNDRangeKernel(launch.kernel, ...);
#pragma once

#include <clalgo/core/config.hpp>

#include <cstddef>
#include <vector>

namespace clalgo::detail {

/// One recorded launch: 1-D, `global` work-items in groups of `local` (0: the driver's choice).
struct RecordedLaunch {
    cl::Kernel kernel;
    std::size_t global = 0, local = 0;
};

/// Records the launches of the thread that opens it, until it is destroyed (logs nest: the innermost records).
class LaunchLog {
public:
    LaunchLog() : outer_(current()) { current() = this; }
    ~LaunchLog() { current() = outer_; }
    LaunchLog(const LaunchLog&) = delete;
    LaunchLog& operator=(const LaunchLog&) = delete;

    const std::vector<RecordedLaunch>& launches() const noexcept { return launches_; }

    /// Called by every launch clalgo makes (codegen/program.hpp's enqueue_launch).
    static void record(const cl::Kernel& kernel, std::size_t global, std::size_t local) {
        if (LaunchLog* log = current()) log->launches_.push_back({kernel, global, local});
    }

private:
    static LaunchLog*& current() noexcept {
        static thread_local LaunchLog* log = nullptr;
        return log;
    }

    LaunchLog* outer_;
    std::vector<RecordedLaunch> launches_;
};

}  // namespace clalgo::detail
