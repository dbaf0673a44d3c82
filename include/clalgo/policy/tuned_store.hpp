// Where tuned values live: one file per device and driver under the cache directory's tuning/ folder, written by
// the autotuner (tuning/autotune.hpp, the clalgo-tune program) and read once per process, the first time a
// kernel is made for that device. CLALGO_TUNING=0 (off, false, no) ignores the files. A stale file (another
// driver) or a corrupt one reads as nothing and is never an error; a corrupt one gets a one-line warning.
//   const detail::TunedValues& tuned = detail::tuned_values(info);   // what the kernels use for `info`
//   detail::store_tuned_values(info, values);                       // what the tuner keeps
#pragma once

#include <clalgo/codegen/disk_cache.hpp>
#include <clalgo/codegen/hash.hpp>
#include <clalgo/policy/tuned.hpp>
#include <clalgo/policy/tuning_variables.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>

#include <unistd.h>

namespace clalgo::detail {

/// What identifies a device's tuning: the same device model on the same driver and platform.
inline std::string tuning_device_key(const DeviceInfo& info) {
    return info.platform_name + '\0' + info.name + '\0' + info.driver_version + '\0' + std::to_string(info.compute_units);
}

/// The tuning file for `info`, or nothing where there is no cache directory.
inline std::optional<std::filesystem::path> tuning_file(const DeviceInfo& info) {
    auto dir = DiskCache::directory();
    if (!dir) return std::nullopt;
    return *dir / "tuning" / (Fnv1a().add(tuning_device_key(info)).hex() + ".txt");
}

/// Reads the tuning file for `info` (nothing where absent, stale or corrupt).
inline TunedValues read_tuning_file(const DeviceInfo& info) {
    const auto path = tuning_file(info);
    if (!path) return {};
    std::error_code error;
    if (!std::filesystem::is_regular_file(*path, error)) return {};
    std::ifstream in(*path, std::ios::binary);
    if (!in) return {};
    std::string text;
    char buffer[4096];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > (1u << 20)) return {};  // no tuning file is this large
    }
    const ParsedTuning parsed = parse_tuning_text(text, info);
    if (parsed.state == TuningFileState::corrupt)
        std::cerr << "clalgo: ignoring the corrupt tuning file " << path->string()
                  << " (run clalgo-tune again, or delete it)\n";
    return parsed.values;
}

/// Tuned values of this process, by device: read from the files on first use, replaced by the tuner.
class TuningStore {
public:
    static TuningStore& instance() {
        static TuningStore store;
        return store;
    }

    /// The values the kernels use for `info`: an override, else the device's tuning file (nothing with
    /// CLALGO_TUNING=0).
    TunedValues values(const DeviceInfo& info) {
        const std::string key = tuning_device_key(info);
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto found = overrides_.find(key); found != overrides_.end()) return found->second;
        if (!tuning_switch("CLALGO_TUNING").value_or(true)) return {};
        auto found = files_.find(key);
        if (found == files_.end()) found = files_.emplace(key, read_tuning_file(info)).first;
        return found->second;
    }

    /// Makes `values` what kernels made from now on use for `info` (the tuner, while it tries candidates).
    void set_override(const DeviceInfo& info, const TunedValues& values) {
        std::lock_guard<std::mutex> lock(mutex_);
        overrides_[tuning_device_key(info)] = values;
    }
    void clear_override(const DeviceInfo& info) {
        std::lock_guard<std::mutex> lock(mutex_);
        overrides_.erase(tuning_device_key(info));
    }

    /// Writes the tuning file for `info` (a temporary file, then renamed, so readers never see half of one) and
    /// uses `values` in this process from now on. Returns the file, or nothing where it could not be written.
    std::optional<std::filesystem::path> store(const DeviceInfo& info, const TunedValues& values) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            files_[tuning_device_key(info)] = values;
        }
        const auto path = tuning_file(info);
        if (!path) return std::nullopt;
        std::error_code error;
        std::filesystem::create_directories(path->parent_path(), error);
        const auto temporary = path->parent_path() / (path->filename().string() + ".tmp" + std::to_string(::getpid()));
        {
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            if (!out) return std::nullopt;
            out << tuning_text(values, info);
            if (!out.flush()) {
                out.close();
                std::filesystem::remove(temporary, error);
                return std::nullopt;
            }
        }
        std::filesystem::rename(temporary, *path, error);
        if (error) {
            std::filesystem::remove(temporary, error);
            return std::nullopt;
        }
        return path;
    }

    /// Forgets what was read, so that the next kernel reads the files again (tests).
    void forget() {
        std::lock_guard<std::mutex> lock(mutex_);
        files_.clear();
    }

private:
    std::mutex mutex_;
    std::map<std::string, TunedValues> files_;
    std::map<std::string, TunedValues> overrides_;
};

/// The tuned values the kernels use for a device.
inline TunedValues tuned_values(const DeviceInfo& info) { return TuningStore::instance().values(info); }

}  // namespace clalgo::detail
