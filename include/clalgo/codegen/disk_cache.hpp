// Compiled program binaries on disk, under $CLALGO_CACHE_DIR, else $XDG_CACHE_HOME/clalgo, else
// ~/.cache/clalgo; CLALGO_NO_CACHE=1 turns it off. Each entry stores its full key (library version, platform,
// device, driver, build options, source) and a checksum: an entry whose key differs, or that is truncated or
// corrupt, is ignored and rebuilt. Entries are written to a temporary file and renamed, so readers never see
// half an entry. A directory that cannot be written means no disk cache, never an error.
#pragma once

#include <clalgo/codegen/hash.hpp>
#include <clalgo/core/environment.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace clalgo::detail {

class DiskCache {
public:
    /// The cache directory in use, or nothing where the disk cache is off.
    static std::optional<std::filesystem::path> directory() {
        if (environment_flag("CLALGO_NO_CACHE")) return std::nullopt;
        if (auto dir = environment("CLALGO_CACHE_DIR"); dir && !dir->empty()) return std::filesystem::path(*dir);
        if (auto xdg = environment("XDG_CACHE_HOME"); xdg && !xdg->empty())
            return std::filesystem::path(*xdg) / "clalgo";
        if (auto home = environment("HOME"); home && !home->empty())
            return std::filesystem::path(*home) / ".cache" / "clalgo";
        return std::nullopt;
    }

    /// The file an entry with this key lives in.
    static std::filesystem::path entry_path(const std::filesystem::path& dir, const std::string& key) {
        return dir / (Fnv1a().add(key).hex() + ".clbin");
    }

    /// The binary stored under `key`, if a sound entry is there. A corrupt entry is removed.
    static std::optional<std::vector<unsigned char>> load(const std::string& key) {
        auto dir = directory();
        if (!dir) return std::nullopt;
        const auto path = entry_path(*dir, key);
        std::ifstream in(path, std::ios::binary);
        if (!in) return std::nullopt;
        const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto binary = parse(content, key);
        if (!binary) {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
        }
        return binary;
    }

    /// Stores `binary` under `key`; silently does nothing where the directory cannot be written.
    static void store(const std::string& key, const std::vector<unsigned char>& binary) {
        auto dir = directory();
        if (!dir || binary.empty()) return;
        std::error_code error;
        std::filesystem::create_directories(*dir, error);
        if (error) return;
        const auto path = entry_path(*dir, key);
        static std::atomic<unsigned> counter{0};
        auto temporary = path;
        temporary += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
        {
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            if (!out) return;
            const std::string content = serialize(key, binary);
            out.write(content.data(), static_cast<std::streamsize>(content.size()));
            out.close();
            if (!out) {
                std::filesystem::remove(temporary, error);
                return;
            }
        }
        std::filesystem::rename(temporary, path, error);
        if (error) std::filesystem::remove(temporary, error);
    }

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
