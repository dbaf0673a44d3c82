// Compiled program binaries on disk, under $CLALGO_CACHE_DIR, else $XDG_CACHE_HOME/clalgo, else
// ~/.cache/clalgo; CLALGO_NO_CACHE=1 turns it off. Each entry stores its full key (library version, platform,
// device, driver, build options, source) and a checksum: an entry whose key differs, or that is truncated or
// corrupt, is ignored and rebuilt. Entries are written to a temporary file and renamed, so readers never see
// half an entry. A directory that cannot be written means no disk cache, never an error.
// Binaries for CPU devices are native code, so the cache is a security boundary: the directory is created private
// (0700), and a directory or entry that another user owns or that others may write is not used (one warning);
// only regular files are read (no FIFO, device or symbolic link); temporary files left by a crash are removed
// after an hour; the entries are bounded in size (CLALGO_CACHE_MAX_MB, 1024 by default), the least recently used
// going first. clalgo::disk_cache_bytes() and clalgo::clear_disk_cache() measure and empty it.
#pragma once

#include <clalgo/codegen/hash.hpp>
#include <clalgo/core/environment.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace clalgo::detail {

class DiskCache {
public:
    /// The cache directory configured, or nothing where the disk cache is off (whether it is usable is
    /// usable_directory's question).
    static std::optional<std::filesystem::path> directory() {
        if (environment_flag("CLALGO_NO_CACHE")) return std::nullopt;
        if (auto dir = environment("CLALGO_CACHE_DIR"); dir && !dir->empty()) return std::filesystem::path(*dir);
        if (auto xdg = environment("XDG_CACHE_HOME"); xdg && !xdg->empty())
            return std::filesystem::path(*xdg) / "clalgo";
        if (auto home = environment("HOME"); home && !home->empty())
            return std::filesystem::path(*home) / ".cache" / "clalgo";
        return std::nullopt;
    }

    /// The configured directory where it is safe to use: it exists (created 0700 where it did not), is a
    /// directory, is owned by this user and cannot be written by others. Otherwise nothing, with one warning on
    /// stderr per directory and process.
    static std::optional<std::filesystem::path> usable_directory(bool create) {
        auto dir = directory();
        if (!dir) return std::nullopt;
        struct stat info;
        if (::stat(dir->c_str(), &info) != 0) {
            if (!create) return std::nullopt;
            std::error_code error;
            std::filesystem::create_directories(*dir, error);
            if (error) return std::nullopt;
            ::chmod(dir->c_str(), 0700);
            if (::stat(dir->c_str(), &info) != 0) return std::nullopt;
        }
        if (!S_ISDIR(info.st_mode)) return refuse(*dir, "is not a directory");
        if (info.st_uid != ::geteuid()) return refuse(*dir, "belongs to another user");
        if (info.st_mode & (S_IWGRP | S_IWOTH)) return refuse(*dir, "may be written by other users");
        return dir;
    }

    /// The file an entry with this key lives in.
    static std::filesystem::path entry_path(const std::filesystem::path& dir, const std::string& key) {
        return dir / (Fnv1a().add(key).hex() + ".clbin");
    }

    /// The binary stored under `key`, if a sound entry is there. A corrupt entry is removed; anything that is not
    /// a regular file of this user's, writable by no one else, is left alone and not read.
    static std::optional<std::vector<unsigned char>> load(const std::string& key) {
        auto dir = usable_directory(false);
        if (!dir) return std::nullopt;
        const auto path = entry_path(*dir, key);
        const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) return std::nullopt;
        std::string content;
        bool sound = false;
        struct stat info;
        if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid() &&
            !(info.st_mode & (S_IWGRP | S_IWOTH)) && static_cast<std::uint64_t>(info.st_size) <= max_entry_bytes) {
            content.resize(static_cast<std::size_t>(info.st_size));
            std::size_t done = 0;
            while (done < content.size()) {
                const ssize_t got = ::read(fd, content.data() + done, content.size() - done);
                if (got <= 0) break;
                done += static_cast<std::size_t>(got);
            }
            sound = done == content.size();
        }
        ::close(fd);
        if (!sound) return std::nullopt;
        auto binary = parse(content, key);
        if (!binary) {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
        } else {
            ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recently used: the size bound keeps it longer
        }
        return binary;
    }

    /// Stores `binary` under `key`; silently does nothing where the directory cannot be written. Then keeps the
    /// cache within its size bound and removes stale temporary files.
    static void store(const std::string& key, const std::vector<unsigned char>& binary) {
        auto dir = usable_directory(true);
        if (!dir || binary.empty()) return;
        const auto path = entry_path(*dir, key);
        static std::atomic<unsigned> counter{0};
        auto temporary = path;
        temporary += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
        const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) return;
        const std::string content = serialize(key, binary);
        std::size_t done = 0;
        while (done < content.size()) {
            const ssize_t wrote = ::write(fd, content.data() + done, content.size() - done);
            if (wrote <= 0) break;
            done += static_cast<std::size_t>(wrote);
        }
        const bool closed = ::close(fd) == 0;
        std::error_code error;
        if (done != content.size() || !closed) {
            std::filesystem::remove(temporary, error);
            return;
        }
        std::filesystem::rename(temporary, path, error);
        if (error) std::filesystem::remove(temporary, error);
        tidy(*dir, limit_bytes());
    }

    /// The bound on the entries' total size: CLALGO_CACHE_MAX_MB (1 to 10^7 MiB), 1024 MiB by default.
    static std::uint64_t limit_bytes() {
        return environment_number("CLALGO_CACHE_MAX_MB", 1, 10000000).value_or(1024) << 20;
    }

    /// Removes temporary files older than an hour and, while the entries together exceed `limit`, the least
    /// recently used ones (down to 90 % of it). Returns the entries' total size after.
    static std::uint64_t tidy(const std::filesystem::path& dir, std::uint64_t limit) {
        std::vector<std::pair<std::filesystem::file_time_type, std::pair<std::filesystem::path, std::uint64_t>>> entries;
        std::uint64_t total = 0;
        std::error_code error;
        const auto now = std::filesystem::file_time_type::clock::now();
        for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
            const auto& path = it->path();
            const std::string name = path.filename().string();
            std::error_code ignored;
            if (!it->is_regular_file(ignored)) continue;
            const auto written = std::filesystem::last_write_time(path, ignored);
            if (name.find(".clbin.tmp.") != std::string::npos) {
                if (!ignored && now - written > std::chrono::hours(1)) std::filesystem::remove(path, ignored);
                continue;
            }
            if (path.extension() != ".clbin") continue;
            const std::uint64_t size = it->file_size(ignored);
            if (ignored) continue;
            entries.push_back({written, {path, size}});
            total += size;
        }
        if (total <= limit) return total;
        std::sort(entries.begin(), entries.end());
        for (const auto& [written, entry] : entries) {
            if (total <= limit / 10 * 9) break;
            std::error_code ignored;
            if (std::filesystem::remove(entry.first, ignored)) total -= entry.second;
        }
        return total;
    }

    /// An entry larger than this is not read (a sound one is a few MiB at most).
    static constexpr std::uint64_t max_entry_bytes = std::uint64_t(1) << 30;

    static constexpr const char magic[] = "CLALGO-PROGRAM-BINARY-1\n";

    static std::string serialize(const std::string& key, const std::vector<unsigned char>& binary) {
        std::string content(magic);
        append_size(content, key.size());
        content += key;
        append_size(content, binary.size());
        content.append(reinterpret_cast<const char*>(binary.data()), binary.size());
        append_size(content, checksum(key, binary.data(), binary.size()));
        return content;
    }

    static std::optional<std::vector<unsigned char>> parse(const std::string& content, const std::string& key) {
        const std::size_t magic_size = std::strlen(magic);
        std::size_t at = magic_size;
        if (content.compare(0, magic_size, magic) != 0) return std::nullopt;
        std::uint64_t key_size = 0, binary_size = 0, stored_checksum = 0;
        if (!read_size(content, at, key_size) || content.size() - at < key_size) return std::nullopt;
        if (content.compare(at, key_size, key) != 0 || key_size != key.size()) return std::nullopt;
        at += key_size;
        if (!read_size(content, at, binary_size) || content.size() - at < binary_size) return std::nullopt;
        const auto* binary = reinterpret_cast<const unsigned char*>(content.data() + at);
        at += binary_size;
        if (!read_size(content, at, stored_checksum) || at != content.size()) return std::nullopt;
        if (stored_checksum != checksum(key, binary, binary_size)) return std::nullopt;
        return std::vector<unsigned char>(binary, binary + binary_size);
    }

private:
    static std::optional<std::filesystem::path> refuse(const std::filesystem::path& dir, const char* why) {
        static std::mutex mutex;
        static std::set<std::string> warned;
        std::lock_guard<std::mutex> lock(mutex);
        if (warned.insert(dir.string()).second)
            std::fprintf(stderr, "clalgo: not using the disk cache '%s': it %s (programs are built without it)\n",
                         dir.c_str(), why);
        return std::nullopt;
    }

    static std::uint64_t checksum(const std::string& key, const unsigned char* binary, std::size_t size) {
        return Fnv1a().add(key).add(binary, size).value();
    }

    static void append_size(std::string& content, std::uint64_t value) {
        for (int byte = 0; byte < 8; ++byte) content.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
    }

    static bool read_size(const std::string& content, std::size_t& at, std::uint64_t& value) {
        if (content.size() - at < 8) return false;
        value = 0;
        for (int byte = 0; byte < 8; ++byte)
            value |= std::uint64_t(static_cast<unsigned char>(content[at + byte])) << (8 * byte);
        at += 8;
        return true;
    }
};

}  // namespace clalgo::detail

namespace clalgo {

/// The total size in bytes of the program binaries in the disk cache (0 where it is off or unusable).
inline std::uint64_t disk_cache_bytes() {
    auto dir = detail::DiskCache::usable_directory(false);
    return dir ? detail::DiskCache::tidy(*dir, UINT64_MAX) : 0;
}

/// Removes every program binary (and temporary file) from the disk cache; other files are left alone.
inline void clear_disk_cache() {
    auto dir = detail::DiskCache::usable_directory(false);
    if (!dir) return;
    detail::DiskCache::tidy(*dir, 0);
    std::error_code error;
    for (std::filesystem::directory_iterator it(*dir, error), end; !error && it != end; it.increment(error)) {
        std::error_code ignored;
        if (it->is_regular_file(ignored) && it->path().filename().string().find(".clbin.tmp.") != std::string::npos)
            std::filesystem::remove(it->path(), ignored);
    }
}

}  // namespace clalgo
