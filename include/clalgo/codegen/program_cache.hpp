// Building generated programs, each once: a per-context memory cache keyed by device, build options and the
// full source (thread-safe: concurrent requests for one program wait for a single build), in front of the
// disk cache of binaries. CLALGO_BUILD_OPTIONS is appended to every build; CLALGO_PRINT_SOURCE=1 prints each
// generated source to stderr. clalgo::cache_statistics() counts what happened, for tests and curiosity.
#pragma once

#include <clalgo/codegen/disk_cache.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/core/config.hpp>
#include <clalgo/core/context.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <future>
#include <mutex>
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

/// Attached to each context: its programs by (device, options, source).
struct ProgramCache {
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_future<cl::Program>> programs;
};

inline std::string effective_options(const std::string& options) {
    std::string all = options;
    if (auto extra = environment("CLALGO_BUILD_OPTIONS"); extra && !extra->empty())
        all += (all.empty() ? "" : " ") + *extra;
    return all;
}

inline std::string disk_key(const DeviceInfo& info, const std::string& options, const std::string& source) {
    return std::string("clalgo ") + CLALGO_VERSION_STRING + "\nplatform: " + info.platform_name + " / " +
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
        program.build({device}, options.c_str());
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

inline cl::Program build_uncached(const Context& context, const cl::Device& device, const GeneratedSource& source,
                                  const std::string& options, const BuildLabel& label) {
    const auto& info = context.info(device);
    const std::string key = disk_key(info, options, source.text);
    if (auto binary = DiskCache::load(key)) {
        try {
            cl::Program program(context.get(), {device}, cl::Program::Binaries{*binary});
            program.build({device}, options.c_str());
            CacheCounters::instance().disk_hits++;
            return program;
        } catch (const cl::Error&) {
            // a binary the driver no longer accepts: compile from source below and replace it
        }
    }
    cl::Program program = build_from_source(context, device, source, options, label);
    try {
        DiskCache::store(key, program_binary(program, device));
    } catch (const cl::Error&) {
        // a driver that cannot hand out binaries simply gets no disk cache
    }
    return program;
}

/// The program for `source` on `device`, built at most once per context, device and options.
inline cl::Program build_program(const Context& context, const cl::Device& device, const GeneratedSource& source,
                                 const std::string& options_in, const BuildLabel& label) {
    const std::string options = effective_options(options_in);
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

    std::promise<cl::Program> promise;
    std::shared_future<cl::Program> future;
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

}  // namespace detail

/// How the programs of this process were obtained so far: compiled, loaded from disk, found in memory.
inline CacheStatistics cache_statistics() {
    auto& counters = detail::CacheCounters::instance();
    return CacheStatistics{counters.source_builds.load(), counters.disk_hits.load(), counters.memory_hits.load()};
}

}  // namespace clalgo
