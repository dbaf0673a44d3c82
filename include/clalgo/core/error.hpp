// The exceptions clalgo throws, beside std::invalid_argument for bad declarations and arguments:
//   clalgo::Error              base of clalgo's run-time errors (an OpenCL call failed, ...)
//   clalgo::BuildError         a generated kernel did not compile: carries the log and the numbered source
//   clalgo::DeviceMemoryError  an allocation or a launch needed more device memory than there is
//   clalgo::UnsupportedError   the device lacks what a kernel needs (double precision, ...)
//   clalgo::OutOfBoundsError   a checked kernel indexed an array out of its bounds (checked mode)
//   try { kernel(q, x); } catch (const clalgo::BuildError& e) { std::cerr << e.what(); }
#pragma once

#include <clalgo/core/config.hpp>

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace clalgo {

/// Base of the run-time errors clalgo throws itself.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Too little device memory for an allocation or a launch.
class DeviceMemoryError : public Error {
public:
    using Error::Error;
};

/// A checked kernel (checked mode: CLALGO_CHECKED=1 or the kernel's `checked` option) accessed an array out of
/// its bounds; the message names the kernel, the argument, the index and the array's size.
class OutOfBoundsError : public Error {
public:
    using Error::Error;
};

/// The device lacks something a kernel needs (double precision, 64-bit atomics, ...).
class UnsupportedError : public Error {
public:
    using Error::Error;
};

/// A part of the generated source that came from the user (a preamble, an expression), by line.
struct SourceRegion {
    std::string label;     ///< which of the user's strings: "preamble", "map_expr", ...
    std::size_t first_line;  ///< 1-based, inclusive
    std::size_t last_line;   ///< 1-based, inclusive
};

/// A generated kernel failed to compile. what() names the kernel, quotes the user's code, and holds the
/// compiler's log and the generated source with line numbers, the user's lines marked.
class BuildError : public Error {
public:
    /// The failed build of `kernel_name` on `device_name`: the compiler's log, the source, the user's regions.
    BuildError(std::string kernel_name, std::string device_name, std::string log, std::string source,
               std::vector<SourceRegion> regions, std::vector<std::pair<std::string, std::string>> snippets)
        : Error(compose(kernel_name, device_name, log, source, regions, snippets)),
          kernel_name_(std::move(kernel_name)),
          log_(std::move(log)),
          source_(std::move(source)),
          regions_(std::move(regions)) {}

    /// The name of the kernel that failed.
    const std::string& kernel_name() const noexcept { return kernel_name_; }
    /// The compiler's build log.
    const std::string& log() const noexcept { return log_; }
    /// The generated OpenCL C source, as compiled.
    const std::string& source() const noexcept { return source_; }
    /// The source with line numbers; lines from the user's strings are marked with their label.
    std::string numbered_source() const { return number_lines(source_, regions_); }

    /// `source` with line numbers, the lines of `regions` marked with their labels.
    static std::string number_lines(const std::string& source, const std::vector<SourceRegion>& regions) {
        std::ostringstream out;
        std::istringstream in(source);
        std::string line;
        std::size_t number = 0;
        while (std::getline(in, line)) {
            ++number;
            std::string label;
            for (const auto& region : regions)
                if (number >= region.first_line && number <= region.last_line) label = region.label;
            char prefix[32];
            std::snprintf(prefix, sizeof prefix, "%5zu", number);
            out << prefix << (label.empty() ? "   | " : " > | ") << line;
            if (!label.empty()) out << "    <- your " << label;
            out << '\n';
        }
        return out.str();
    }

private:
    static std::string compose(const std::string& kernel_name, const std::string& device_name,
                               const std::string& log, const std::string& source,
                               const std::vector<SourceRegion>& regions,
                               const std::vector<std::pair<std::string, std::string>>& snippets) {
        std::string message = "clalgo: kernel '" + kernel_name + "' failed to build on '" + device_name + "'\n";
        for (const auto& snippet : snippets)
            if (!snippet.second.empty()) message += "  your " + snippet.first + ": " + snippet.second + "\n";
        message += "--- build log ---\n" + log;
        if (!log.empty() && log.back() != '\n') message += '\n';
        message += "--- generated source (lines marked > come from your code) ---\n";
        message += number_lines(source, regions);
        return message;
    }

    std::string kernel_name_;
    std::string log_;
    std::string source_;
    std::vector<SourceRegion> regions_;
};

namespace detail {

inline const char* error_name(cl_int code) {
    switch (code) {
#define CLALGO_CASE(x) \
    case x: return #x;
        CLALGO_CASE(CL_SUCCESS)
        CLALGO_CASE(CL_DEVICE_NOT_FOUND)
        CLALGO_CASE(CL_DEVICE_NOT_AVAILABLE)
        CLALGO_CASE(CL_COMPILER_NOT_AVAILABLE)
        CLALGO_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        CLALGO_CASE(CL_OUT_OF_RESOURCES)
        CLALGO_CASE(CL_OUT_OF_HOST_MEMORY)
        CLALGO_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
        CLALGO_CASE(CL_MEM_COPY_OVERLAP)
        CLALGO_CASE(CL_BUILD_PROGRAM_FAILURE)
        CLALGO_CASE(CL_MAP_FAILURE)
        CLALGO_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        CLALGO_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        CLALGO_CASE(CL_INVALID_VALUE)
        CLALGO_CASE(CL_INVALID_DEVICE_TYPE)
        CLALGO_CASE(CL_INVALID_PLATFORM)
        CLALGO_CASE(CL_INVALID_DEVICE)
        CLALGO_CASE(CL_INVALID_CONTEXT)
        CLALGO_CASE(CL_INVALID_QUEUE_PROPERTIES)
        CLALGO_CASE(CL_INVALID_COMMAND_QUEUE)
        CLALGO_CASE(CL_INVALID_MEM_OBJECT)
        CLALGO_CASE(CL_INVALID_BINARY)
        CLALGO_CASE(CL_INVALID_BUILD_OPTIONS)
        CLALGO_CASE(CL_INVALID_PROGRAM)
        CLALGO_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
        CLALGO_CASE(CL_INVALID_KERNEL_NAME)
        CLALGO_CASE(CL_INVALID_KERNEL)
        CLALGO_CASE(CL_INVALID_ARG_INDEX)
        CLALGO_CASE(CL_INVALID_ARG_VALUE)
        CLALGO_CASE(CL_INVALID_ARG_SIZE)
        CLALGO_CASE(CL_INVALID_KERNEL_ARGS)
        CLALGO_CASE(CL_INVALID_WORK_DIMENSION)
        CLALGO_CASE(CL_INVALID_WORK_GROUP_SIZE)
        CLALGO_CASE(CL_INVALID_WORK_ITEM_SIZE)
        CLALGO_CASE(CL_INVALID_GLOBAL_OFFSET)
        CLALGO_CASE(CL_INVALID_EVENT_WAIT_LIST)
        CLALGO_CASE(CL_INVALID_EVENT)
        CLALGO_CASE(CL_INVALID_OPERATION)
        CLALGO_CASE(CL_INVALID_BUFFER_SIZE)
        CLALGO_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
#undef CLALGO_CASE
        default: return "unknown OpenCL error";
    }
}

inline bool is_memory_error(cl_int code) {
    return code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
           code == CL_OUT_OF_HOST_MEMORY || code == CL_INVALID_BUFFER_SIZE;
}

/// Turns a failed OpenCL call into clalgo's exception: DeviceMemoryError where memory ran out, else Error.
[[noreturn]] inline void rethrow(const cl::Error& error, const std::string& doing) {
    std::string message = "clalgo: " + doing + " failed: " + error.what() + " returned " +
                          error_name(error.err()) + " (" + std::to_string(error.err()) + ")";
    if (is_memory_error(error.err()))
        throw DeviceMemoryError(message + "; the device is out of memory or resources");
    throw Error(message);
}

}  // namespace detail
}  // namespace clalgo
