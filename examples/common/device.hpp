// Opening the device an example runs on, timed and printed, and the main() wrapper that turns errors into
// messages and exit codes: 0 all checks passed, 1 a wrong result or a run-time error, 2 a bad command line.
//   int main(int argc, char** argv) {
//       return example::run_main("pi", [&] { ...; return passed ? 0 : 1; });
//   }
#pragma once

#include "common/cli.hpp"
#include "common/timing.hpp"

#include <clalgo/clalgo.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

namespace example {

/// The context and queue an example runs on, and how long making the context took.
struct Device {
    clalgo::Context context;
    clalgo::Queue queue;
    double context_seconds = 0;

    const clalgo::DeviceInfo& info() const { return queue.info(); }
};

/// Opens the device `spec` names (platform[:device]), else the default one (CLALGO_DEVICE, else the first GPU,
/// else the first device), and prints which it is and how long the context took: on a GPU about a second, paid
/// once per process, so it is reported apart from the kernels' times.
inline Device open_device(const std::optional<std::string>& spec) {
    Stopwatch clock;
    std::optional<clalgo::Context> chosen;
    try {
        chosen = spec ? clalgo::Context::from_spec(*spec) : clalgo::Context::default_context();
    } catch (const std::invalid_argument& error) {
        // a spec that matches no device: clalgo's message lists the devices there are
        throw UsageError(std::string(spec ? "--device" : "CLALGO_DEVICE") + ": " + error.what());
    }
    clalgo::Context context = *chosen;
    clalgo::Queue queue(context);
    Device device{context, queue, clock.seconds()};
    const auto& info = device.info();
    std::printf("device:   %s\n          %s with %u compute units%s\n", info.description().c_str(),
                info.is_gpu ? "GPU" : info.is_cpu ? "CPU" : "accelerator", info.compute_units,
                spec                        ? ", chosen with --device"
                : std::getenv("CLALGO_DEVICE") ? ", chosen with CLALGO_DEVICE"
                                               : ", the default device (--device or CLALGO_DEVICE choose another)");
    std::printf("context:  %s\n", format_duration(device.context_seconds).c_str());
    return device;
}

/// Runs an example's body, turning exceptions into a message on stderr and an exit code.
template <class Body>
int run_main(const char* program, Body&& body) {
    try {
        return body();
    } catch (const UsageError& error) {
        std::fprintf(stderr, "%s: %s\nTry '%s --help'.\n", program, error.what(), program);
        return 2;
    } catch (const clalgo::DeviceMemoryError& error) {
        std::fprintf(stderr, "%s: not enough device memory: %s\n", program, error.what());
        return 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s: error: %s\n", program, error.what());
        return 1;
    }
}

}  // namespace example
