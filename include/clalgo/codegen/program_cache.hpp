// Building generated programs, each once: a per-context memory cache keyed by device, build options and the
// full source (thread-safe: concurrent requests for one program wait for a single build), in front of the
// disk cache of binaries. CLALGO_BUILD_OPTIONS is appended to every build; CLALGO_PRINT_SOURCE=1 prints each
// generated source to stderr; CLALGO_COMPILER_OUTPUT=1 prints what the compiler said of each successful build (its
// warnings), which the disk cache keeps with the binary. clalgo::cache_statistics() counts what happened.
#pragma once

#include <clalgo/codegen/compiler_stack.hpp>
#include <clalgo/codegen/disk_cache.hpp>
#include <clalgo/codegen/names.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/core/config.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace clalgo {

/// Process-wide counts of how programs were obtained.
struct CacheStatistics {
    std::uint64_t source_builds = 0;  ///< compiled from source
    std::uint64_t disk_hits = 0;      ///< loaded from a binary on disk
    std::uint64_t memory_hits = 0;    ///< found already built in this context
};

namespace detail {

struct CacheCounters {
    std::atomic<std::uint64_t> source_builds{0}, disk_hits{0}, memory_hits{0};
    static CacheCounters& instance() {
        static CacheCounters counters;
        return counters;
    }
};

/// What a build error should say about the kernel: its name and the user's strings.
struct BuildLabel {
    std::string kernel_name;
    std::vector<std::pair<std::string, std::string>> snippets;
};

/// A built program and what the compiler said building it (the log of the build from source, also where the
/// binary came from the disk cache, which keeps it with the entry).
struct BuiltProgram {
    cl::Program program;
    std::string log;
    bool from_disk = false;
};

/// Attached to each context: its programs by (device, options, source).
struct ProgramCache {
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_future<BuiltProgram>> programs;
};

/// A disk-cache entry's payload: the build log's size (8 bytes, little-endian), the log, then the binary.
inline std::vector<unsigned char> pack_entry(const std::string& log, const std::vector<unsigned char>& binary) {
    std::vector<unsigned char> payload;
    payload.reserve(8 + log.size() + binary.size());
    for (int byte = 0; byte < 8; ++byte) payload.push_back(static_cast<unsigned char>((std::uint64_t(log.size()) >> (8 * byte)) & 0xff));
    payload.insert(payload.end(), log.begin(), log.end());
    payload.insert(payload.end(), binary.begin(), binary.end());
    return payload;
}

/// The (log, binary) of a payload; nothing where it is malformed.
inline std::optional<std::pair<std::string, std::vector<unsigned char>>> unpack_entry(const std::vector<unsigned char>& payload) {
    if (payload.size() < 8) return std::nullopt;
    std::uint64_t log_size = 0;
    for (int byte = 0; byte < 8; ++byte) log_size |= std::uint64_t(payload[byte]) << (8 * byte);
    if (log_size > payload.size() - 8) return std::nullopt;
    const auto log_end = payload.begin() + 8 + static_cast<std::ptrdiff_t>(log_size);
    if (log_end == payload.end()) return std::nullopt;  // no binary
    return std::make_pair(std::string(payload.begin() + 8, log_end), std::vector<unsigned char>(log_end, payload.end()));
}

/// True where a build log says something (more than white space).
inline bool log_says_something(const std::string& log) {
    // NVIDIA's compiler notes of every kernel of some programs that it is "a kernel, so overriding noinline
    // attribute" (seen on an H100, driver 580): a line about its own choice, not about the user's code
    std::size_t at = 0;
    while (at < log.size()) {
        std::size_t end = log.find('\n', at);
        if (end == std::string::npos) end = log.size();
        const std::string line = log.substr(at, end - at);
        at = end + 1;
        if (line.find("so overriding noinline attribute") != std::string::npos) continue;
        if (std::any_of(line.begin(), line.end(), [](unsigned char c) { return !std::isspace(c); })) return true;
    }
    return false;
}

/// With CLALGO_COMPILER_OUTPUT on: what the compiler said of a successful build, on stderr.
inline void print_compiler_output(const BuildLabel& label, const std::string& device_name, const BuiltProgram& built) {
    if (!environment_flag("CLALGO_COMPILER_OUTPUT") || !log_says_something(built.log)) return;
    std::fprintf(stderr, "clalgo: kernel '%s' built on '%s'%s, and the compiler said:\n%s%s",
                 label.kernel_name.c_str(), device_name.c_str(),
                 built.from_disk ? " (its binary loaded from the disk cache, the log kept with it)" : "",
                 built.log.c_str(), built.log.back() == '\n' ? "" : "\n");
}

inline std::string effective_options(const std::string& options) {
    std::string all = options;
    if (auto extra = environment("CLALGO_BUILD_OPTIONS"); extra && !extra->empty())
        all += (all.empty() ? "" : " ") + *extra;
    return all;
}

inline std::string disk_key(const DeviceInfo& info, const std::string& options, const std::string& source) {
    // "entry 2": the payload holds the build log before the binary (pack_entry)
    return std::string("clalgo ") + CLALGO_VERSION_STRING + " entry 2\nplatform: " + info.platform_name + " / " +
           info.platform_version + "\ndevice: " + info.name + " / " + info.vendor + " / " + info.version +
           "\ndriver: " + info.driver_version + "\noptions: " + options + "\nsource:\n" + source;
}

inline std::vector<unsigned char> program_binary(const cl::Program& program, const cl::Device& device) {
    const auto devices = program.getInfo<CL_PROGRAM_DEVICES>();
    const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    for (std::size_t d = 0; d < devices.size() && d < binaries.size(); ++d)
        if (devices[d]() == device()) return binaries[d];
    return {};
}

inline std::string build_log(const cl::Program& program, const cl::Device& device) {
    try {
        return program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (const cl::Error&) {
        return "(no build log)";
    }
}

/// Compiles from source; a failure becomes a BuildError carrying the log and the numbered source.
inline cl::Program build_from_source(const Context& context, const cl::Device& device, const GeneratedSource& source,
                                     const std::string& options, const BuildLabel& label) {
    cl::Program program;
    try {
        program = cl::Program(context.get(), source.text);
        on_compiler_stack([&] { program.build({device}, options.c_str()); });
    } catch (const cl::Error& error) {
        if (error.err() != CL_BUILD_PROGRAM_FAILURE && error.err() != CL_INVALID_BUILD_OPTIONS &&
            error.err() != CL_COMPILE_PROGRAM_FAILURE)
            rethrow(error, "building kernel '" + label.kernel_name + "'");
        std::string log = program() ? build_log(program, device) : std::string();
        if (error.err() == CL_INVALID_BUILD_OPTIONS) log = "invalid build options: \"" + options + "\"\n" + log;
        throw BuildError(label.kernel_name, context.info(device).name, log, source.text, source.regions,
                         label.snippets);
    }
    CacheCounters::instance().source_builds++;
    return program;
}

inline BuiltProgram build_uncached(const Context& context, const cl::Device& device, const GeneratedSource& source,
                                   const std::string& options, const BuildLabel& label) {
    const auto& info = context.info(device);
    const std::string key = disk_key(info, options, source.text);
    if (auto payload = DiskCache::load(key)) {
        if (auto entry = unpack_entry(*payload)) {
            try {
                cl::Program program(context.get(), {device}, cl::Program::Binaries{entry->second});
                program.build({device}, options.c_str());
                CacheCounters::instance().disk_hits++;
                BuiltProgram built{program, std::move(entry->first), true};
                print_compiler_output(label, info.name, built);
                return built;
            } catch (const cl::Error&) {
                // a binary the driver no longer accepts: compile from source below and replace it
            }
        }
    }
    BuiltProgram built{build_from_source(context, device, source, options, label), std::string(), false};
    built.log = build_log(built.program, device);
    print_compiler_output(label, info.name, built);
    try {
        const auto binary = program_binary(built.program, device);
        if (!binary.empty()) DiskCache::store(key, pack_entry(built.log, binary));
    } catch (const cl::Error&) {
        // a driver that cannot hand out binaries simply gets no disk cache
    }
    return built;
}

/// The program for `source` on `device` with its build log, built at most once per context, device and options.
inline BuiltProgram build_program_with_log(const Context& context, const cl::Device& device,
                                           const GeneratedSource& source, const std::string& options_in,
                                           const BuildLabel& label) {
    const std::string options = effective_options(options_in);
    check_build_options("kernel " + quoted_head(label.kernel_name), options);
    if (environment_flag("CLALGO_PRINT_SOURCE"))
        std::fprintf(stderr, "/* clalgo: kernel '%s' for '%s', options \"%s\" */\n%s\n", label.kernel_name.c_str(),
                     context.info(device).name.c_str(), options.c_str(), source.text.c_str());
    auto& cache = context.state().attachment<ProgramCache>();
    std::string key;
    key.reserve(source.text.size() + options.size() + 32);
    key += std::to_string(reinterpret_cast<std::uintptr_t>(device()));
    key += '\0';
    key += options;
    key += '\0';
    key += source.text;

    std::promise<BuiltProgram> promise;
    std::shared_future<BuiltProgram> future;
    bool builder = false;
    {
        std::lock_guard<std::mutex> lock(cache.mutex);
        auto found = cache.programs.find(key);
        if (found != cache.programs.end()) {
            future = found->second;
        } else {
            future = promise.get_future().share();
            cache.programs.emplace(key, future);
            builder = true;
        }
    }
    if (!builder) {
        CacheCounters::instance().memory_hits++;
        return future.get();  // rethrows the builder's BuildError where its build failed
    }
    try {
        promise.set_value(build_uncached(context, device, source, options, label));
    } catch (...) {
        promise.set_exception(std::current_exception());
        std::lock_guard<std::mutex> lock(cache.mutex);
        cache.programs.erase(key);
    }
    return future.get();
}

/// The program for `source` on `device`, built at most once per context, device and options.
inline cl::Program build_program(const Context& context, const cl::Device& device, const GeneratedSource& source,
                                 const std::string& options, const BuildLabel& label) {
    return build_program_with_log(context, device, source, options, label).program;
}

}  // namespace detail

/// How the programs of this process were obtained so far: compiled, loaded from disk, found in memory.
inline CacheStatistics cache_statistics() {
    auto& counters = detail::CacheCounters::instance();
    return CacheStatistics{counters.source_builds.load(), counters.disk_hits.load(), counters.memory_hits.load()};
}

}  // namespace clalgo
