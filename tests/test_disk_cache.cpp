// codegen/disk_cache.hpp: program binaries on disk, shared between processes. The cross-process tests run this
// very program again as a child (CLALGO_TEST_CHILD=1): the child builds one kernel whose source is new to this
// test run, checks its result, prints what the program cache did, and exits before GoogleTest starts.
#include "support.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using clalgo::detail::DiskCache;

namespace {

// ---- the child ----

int run_as_child() {
    try {
        const char* constant = std::getenv("CLALGO_TEST_CONSTANT");
        if (constant == nullptr) throw std::runtime_error("CLALGO_TEST_CONSTANT is not set");
        auto ctx = clalgo::Context::default_context();
        clalgo::Queue q(ctx);
        clalgo::ElementwiseKernel kernel(ctx, "const long *x, long *y", std::string("y[i] = x[i] * 3 + ") + constant + "L");
        const auto hx = clalgo_test::random_values<std::int64_t>(1000);
        auto x = clalgo::to_device(q, hx);
        clalgo::Array<std::int64_t> y(q, hx.size());
        kernel(q, x, y);
        const auto hy = y.to_host(q);
        bool correct = true;
        for (std::size_t k = 0; k < hx.size(); ++k) correct = correct && hy[k] == hx[k] * 3 + std::stoll(constant);
        const auto statistics = clalgo::cache_statistics();
        std::printf("clalgo-child source_builds=%llu disk_hits=%llu correct=%d\n",
                    static_cast<unsigned long long>(statistics.source_builds),
                    static_cast<unsigned long long>(statistics.disk_hits), correct ? 1 : 0);
        return 0;
    } catch (const std::exception& error) {
        std::printf("clalgo-child error: %s\n", error.what());
        return 1;
    }
}

[[maybe_unused]] const bool ran_as_child = std::getenv("CLALGO_TEST_CHILD") != nullptr && (std::exit(run_as_child()), true);

// ---- the parent ----

/// What one child run reported.
struct ChildReport {
    bool reported = false;
    unsigned long long source_builds = 0;
    unsigned long long disk_hits = 0;
    bool correct = false;
    std::string output;
};

std::ostream& operator<<(std::ostream& out, const ChildReport& report) { return out << report.output; }

/// A number no earlier run of these tests used, so that the child's kernel source is new to any cache.
std::string unique_constant() {
    std::random_device entropy;
    const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const std::uint64_t mixed = now ^ (std::uint64_t(entropy()) << 24) ^ (std::uint64_t(::getpid()) << 44);
    return std::to_string(mixed % 1000000000000ull);
}

/// Runs this program as a child with `environment` (values "" are unset) and the kernel constant.
ChildReport run_child(const std::map<std::string, std::string>& environment, const std::string& constant) {
    std::string command = "env -u CLALGO_NO_CACHE -u CLALGO_BUILD_OPTIONS CLALGO_TEST_CHILD=1 CLALGO_TEST_CONSTANT=" +
                          constant;
    for (const auto& [name, value] : environment) command += " '" + name + "=" + value + "'";
    command += " '" + fs::read_symlink("/proc/self/exe").string() + "' 2>&1";
    ChildReport report;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return report;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
        report.output += buffer;
        int correct = 0;
        if (std::sscanf(buffer, "clalgo-child source_builds=%llu disk_hits=%llu correct=%d", &report.source_builds,
                        &report.disk_hits, &correct) == 3) {
            report.reported = true;
            report.correct = correct == 1;
        }
    }
    const int status = ::pclose(pipe);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) report.reported = false;
    return report;
}

/// A fresh directory under the system's temporary directory, removed with everything in it at the end.
class TemporaryDirectory {
public:
    TemporaryDirectory() {
        std::string pattern = (fs::temp_directory_path() / "clalgo-test-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

/// Every file in `dir`.
std::vector<fs::path> files_in(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) files.push_back(entry.path());
    return files;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

/// The one cache entry in `dir`; fails the test where there is not exactly one file, an entry.
fs::path only_entry(const fs::path& dir) {
    const auto files = files_in(dir);
    EXPECT_EQ(files.size(), 1u) << "files in the cache directory";
    if (files.empty()) return {};
    EXPECT_EQ(files[0].extension(), ".clbin") << files[0];
    return files[0];
}

/// Sets an environment variable for the lifetime of the object, then restores what it was.
using ScopedEnvironment = clalgo_test::ScopedVariable;

std::vector<unsigned char> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

/// The cache directory DiskCache would use now, as text.
std::string cache_directory() {
    const auto dir = DiskCache::directory();
    return dir ? dir->string() : "(no disk cache)";
}

}  // namespace

// ---- across processes ----

TEST(DiskCacheAcrossProcesses, SecondProcessLoadsTheBinaryTheFirstStored) {
    TemporaryDirectory dir;
    const std::string constant = unique_constant();
    const auto first = run_child({{"CLALGO_CACHE_DIR", dir.path().string()}}, constant);
    ASSERT_TRUE(first.reported) << first;
    EXPECT_TRUE(first.correct) << first;
    EXPECT_EQ(first.source_builds, 1u) << first;
    EXPECT_EQ(first.disk_hits, 0u) << first;
    only_entry(dir.path());

    const auto second = run_child({{"CLALGO_CACHE_DIR", dir.path().string()}}, constant);
    ASSERT_TRUE(second.reported) << second;
    EXPECT_TRUE(second.correct) << second;
    EXPECT_EQ(second.source_builds, 0u) << second;
    EXPECT_EQ(second.disk_hits, 1u) << second;
}

TEST(DiskCacheAcrossProcesses, CorruptEntryIsRebuiltFromSourceAndRewritten) {
    TemporaryDirectory dir;
    const std::string constant = unique_constant();
    const std::map<std::string, std::string> environment = {{"CLALGO_CACHE_DIR", dir.path().string()}};
    ASSERT_TRUE(run_child(environment, constant).reported);
    const fs::path entry = only_entry(dir.path());

    const std::map<std::string, std::string (*)(std::string)> corruptions = {
        {"truncated", [](std::string content) { return content.substr(0, content.size() / 2); }},
        {"flipped bytes", [](std::string content) {
             content[content.size() / 2] ^= 0x5a;
             content[content.size() / 3] ^= 0x01;
             return content;
         }},
        {"empty", [](std::string) { return std::string(); }}};
    for (const auto& [what, corrupt] : corruptions) {
        SCOPED_TRACE(what);
        write_file(entry, corrupt(read_file(entry)));
        const auto rebuilt = run_child(environment, constant);
        ASSERT_TRUE(rebuilt.reported) << rebuilt;
        EXPECT_TRUE(rebuilt.correct) << rebuilt;
        EXPECT_EQ(rebuilt.source_builds, 1u) << rebuilt;
        EXPECT_EQ(rebuilt.disk_hits, 0u) << rebuilt;
        EXPECT_EQ(only_entry(dir.path()).string(), entry.string());
    }

    const auto reloaded = run_child(environment, constant);
    ASSERT_TRUE(reloaded.reported) << reloaded;
    EXPECT_TRUE(reloaded.correct) << reloaded;
    EXPECT_EQ(reloaded.disk_hits, 1u) << "the rewritten entry is sound: " << reloaded;
    EXPECT_EQ(reloaded.source_builds, 0u) << reloaded;
}

TEST(DiskCacheAcrossProcesses, UnwritableDirectoryMeansNoCacheAndNoError) {
    TemporaryDirectory dir;
    const fs::path regular_file = dir.path() / "a-file";
    write_file(regular_file, "not a directory");
    // paths that cannot be created even by root: below a regular file, and below /proc
    for (const fs::path& unwritable : {regular_file / "cache", fs::path("/proc/clalgo-forbidden/cache")}) {
        SCOPED_TRACE(unwritable.string());
        const auto report = run_child({{"CLALGO_CACHE_DIR", unwritable.string()}}, unique_constant());
        ASSERT_TRUE(report.reported) << report;
        EXPECT_TRUE(report.correct) << report;
        EXPECT_EQ(report.source_builds, 1u) << report;
        EXPECT_EQ(report.disk_hits, 0u) << report;
        std::error_code error;
        EXPECT_FALSE(fs::exists(unwritable, error));
    }
}

TEST(DiskCacheAcrossProcesses, NoCacheWritesNoFiles) {
    TemporaryDirectory dir;
    const std::string constant = unique_constant();
    for (int run = 0; run < 2; ++run) {
        const auto report = run_child({{"CLALGO_CACHE_DIR", dir.path().string()}, {"CLALGO_NO_CACHE", "1"}}, constant);
        ASSERT_TRUE(report.reported) << report;
        EXPECT_TRUE(report.correct) << report;
        EXPECT_EQ(report.source_builds, 1u) << "run " << run << ": " << report;
        EXPECT_EQ(report.disk_hits, 0u) << report;
        EXPECT_TRUE(files_in(dir.path()).empty());
    }
}

// ---- in this process, without OpenCL ----

TEST(DiskCacheDirectory, FollowsTheEnvironmentInOrderOfPrecedence) {
    ScopedEnvironment no_cache("CLALGO_NO_CACHE", std::nullopt);
    ScopedEnvironment cache_dir("CLALGO_CACHE_DIR", "/somewhere/cache");
    ScopedEnvironment xdg("XDG_CACHE_HOME", "/xdg");
    ScopedEnvironment home("HOME", "/home/someone");
    EXPECT_EQ(cache_directory(), "/somewhere/cache");
    {
        ScopedEnvironment off("CLALGO_NO_CACHE", "1");
        EXPECT_EQ(cache_directory(), "(no disk cache)");
    }
    {
        ScopedEnvironment on("CLALGO_NO_CACHE", "0");
        EXPECT_EQ(cache_directory(), "/somewhere/cache");
    }
    {
        ScopedEnvironment unset("CLALGO_CACHE_DIR", std::nullopt);
        EXPECT_EQ(cache_directory(), (fs::path("/xdg") / "clalgo").string());
        ScopedEnvironment no_xdg("XDG_CACHE_HOME", std::nullopt);
        EXPECT_EQ(cache_directory(), (fs::path("/home/someone") / ".cache" / "clalgo").string());
    }
}

TEST(Environment, EverySwitchTakesTheDocumentedValuesAndNamesTheVariableOtherwise) {
    for (const char* name : {"CLALGO_NO_CACHE", "CLALGO_PRINT_SOURCE", "CLALGO_COMPILER_OUTPUT"}) {
        for (const char* on : {"1", "on", "TRUE", "Yes"}) {
            ScopedEnvironment set(name, on);
            EXPECT_TRUE(clalgo::detail::environment_flag(name)) << name << "=" << on;
        }
        for (const char* off : {"0", "OFF", "false", "no", ""}) {
            ScopedEnvironment set(name, off);
            EXPECT_FALSE(clalgo::detail::environment_flag(name)) << name << "=" << off;
        }
        for (const char* bad : {"2", "enabled", "yes please", " 1"}) {
            ScopedEnvironment set(name, bad);
            const auto message = clalgo_test::message_of<std::invalid_argument>([&] { clalgo::detail::environment_flag(name); });
            EXPECT_TRUE(clalgo_test::contains(message, std::string(name) + "='" + bad + "'")) << message;
            EXPECT_TRUE(clalgo_test::contains(message, "expected 1, on, true, yes or 0, off, false, no")) << message;
        }
    }
}

TEST(DiskCacheFile, StoredEntryLoadsAndCorruptOneIsRemoved) {
    TemporaryDirectory dir;
    ScopedEnvironment no_cache("CLALGO_NO_CACHE", std::nullopt);
    ScopedEnvironment cache_dir("CLALGO_CACHE_DIR", (dir.path() / "nested" / "cache").string());
    const std::string key = "clalgo test key\nsource:\n__kernel void k() {}\n";
    const auto binary = bytes_of(std::string("\x7f" "ELF binary\0with zeros", 21));
    EXPECT_FALSE(DiskCache::load(key).has_value());
    DiskCache::store(key, binary);
    const fs::path entry = DiskCache::entry_path(dir.path() / "nested" / "cache", key);
    ASSERT_TRUE(fs::exists(entry));
    EXPECT_EQ(files_in(entry.parent_path()).size(), 1u) << "no temporary file is left behind";
    EXPECT_EQ(DiskCache::load(key), binary);
    EXPECT_FALSE(DiskCache::load(key + " ").has_value()) << "another key, another file";

    std::string content = read_file(entry);
    content[content.size() - 12] ^= 0x10;
    write_file(entry, content);
    EXPECT_FALSE(DiskCache::load(key).has_value());
    EXPECT_FALSE(fs::exists(entry));
}

TEST(DiskCacheFormat, SerializedEntryParsesBackToTheBinary) {
    const std::string key = "clalgo 0.1.0\nplatform: test\nsource:\nkernel";
    for (const auto& binary : {bytes_of(""), bytes_of("x"), bytes_of(std::string("\0\1\2\xff binary", 10))}) {
        const auto parsed = DiskCache::parse(DiskCache::serialize(key, binary), key);
        ASSERT_TRUE(parsed.has_value());
        EXPECT_EQ(*parsed, binary);
    }
}

TEST(DiskCacheFormat, EntryForAnotherKeyIsRejected) {
    const std::string key = "device: A\nsource: k";
    const std::string content = DiskCache::serialize(key, bytes_of("binary"));
    for (const std::string other : {"device: B\nsource: k", "device: A\nsource: k2", "device: A\nsource: ", ""})
        EXPECT_FALSE(DiskCache::parse(content, other).has_value()) << other;
}

TEST(DiskCacheFormat, EveryTruncationIsRejected) {
    const std::string key = "key";
    const std::string content = DiskCache::serialize(key, bytes_of("some binary bytes"));
    for (std::size_t length = 0; length < content.size(); ++length)
        EXPECT_FALSE(DiskCache::parse(content.substr(0, length), key).has_value()) << length;
    EXPECT_FALSE(DiskCache::parse(content + "trailing", key).has_value());
}

TEST(DiskCacheFormat, EveryFlippedByteIsRejected) {
    const std::string key = "key of the entry";
    const std::string content = DiskCache::serialize(key, bytes_of("some binary bytes"));
    for (std::size_t at = 0; at < content.size(); ++at) {
        std::string corrupt = content;
        corrupt[at] = static_cast<char>(corrupt[at] ^ 0x04);
        EXPECT_FALSE(DiskCache::parse(corrupt, key).has_value()) << "byte " << at;
    }
}

// ---- the cache as a security boundary, and its size (in this process, without OpenCL) ----

namespace {

std::vector<unsigned char> binary_of(std::size_t size, unsigned char fill) { return std::vector<unsigned char>(size, fill); }

void age(const fs::path& path, std::chrono::minutes by) {
    fs::last_write_time(path, fs::file_time_type::clock::now() - by);
}

}  // namespace

TEST(DiskCacheSafety, CreatesItsDirectoryPrivateAndRefusesOneOthersMayWrite) {
    TemporaryDirectory dir;
    const fs::path cache = dir.path() / "new" / "cache";
    ScopedEnvironment no_cache("CLALGO_NO_CACHE", std::nullopt);
    ScopedEnvironment cache_dir("CLALGO_CACHE_DIR", cache.string());
    DiskCache::store("key one", bytes_of("binary one"));
    EXPECT_EQ(fs::status(cache).permissions() & fs::perms::all, fs::perms::owner_all);
    ASSERT_TRUE(DiskCache::load("key one"));
    for (const auto others : {fs::perms::group_write, fs::perms::others_write}) {
        fs::permissions(cache, others, fs::perm_options::add);
        EXPECT_FALSE(DiskCache::load("key one")) << "a directory others may write is not read";
        DiskCache::store("key two", bytes_of("binary two"));
        EXPECT_FALSE(fs::exists(DiskCache::entry_path(cache, "key two"))) << "nor written";
        fs::permissions(cache, others, fs::perm_options::remove);
    }
    EXPECT_TRUE(DiskCache::load("key one"));
}

TEST(DiskCacheSafety, ReadsOnlyRegularFilesOfItsOwnThatNoOneElseMayWrite) {
    TemporaryDirectory dir;
    ScopedEnvironment no_cache("CLALGO_NO_CACHE", std::nullopt);
    ScopedEnvironment cache_dir("CLALGO_CACHE_DIR", dir.path().string());
    // a directory, a FIFO (reading it would wait forever), a link to an endless device, a group-writable entry
    fs::create_directory(DiskCache::entry_path(dir.path(), "a directory"));
    ASSERT_EQ(::mkfifo(DiskCache::entry_path(dir.path(), "a fifo").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", DiskCache::entry_path(dir.path(), "a link"));
    DiskCache::store("writable", bytes_of("binary"));
    const auto writable = DiskCache::entry_path(dir.path(), "writable");
    ASSERT_TRUE(DiskCache::load("writable"));
    fs::permissions(writable, fs::perms::group_write, fs::perm_options::add);
    const auto start = std::chrono::steady_clock::now();
    for (const char* key : {"a directory", "a fifo", "a link", "writable"}) {
        EXPECT_FALSE(DiskCache::load(key)) << key;
        EXPECT_TRUE(fs::exists(fs::symlink_status(DiskCache::entry_path(dir.path(), key)))) << key << " is left alone";
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(DiskCacheSafety, StaleTemporaryFilesAreRemovedAndTheSizeBoundEvictsTheLeastRecentlyUsed) {
    TemporaryDirectory dir;
    ScopedEnvironment no_cache("CLALGO_NO_CACHE", std::nullopt);
    ScopedEnvironment cache_dir("CLALGO_CACHE_DIR", dir.path().string());
    ScopedEnvironment limit("CLALGO_CACHE_MAX_MB", "1");
    const fs::path stale = dir.path() / "0123.clbin.tmp.99.0", fresh = dir.path() / "4567.clbin.tmp.99.1";
    write_file(stale, "left by a crash");
    write_file(fresh, "being written");
    age(stale, std::chrono::minutes(120));
    const std::size_t size = 400 * 1024;
    DiskCache::store("a", binary_of(size, 1));
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(fresh));
    DiskCache::store("b", binary_of(size, 2));
    age(DiskCache::entry_path(dir.path(), "a"), std::chrono::minutes(60));
    age(DiskCache::entry_path(dir.path(), "b"), std::chrono::minutes(30));
    ASSERT_TRUE(DiskCache::load("a"));  // a is now the most recently used
    DiskCache::store("c", binary_of(size, 3));  // 1.2 MiB in all: the least recently used goes
    EXPECT_TRUE(fs::exists(DiskCache::entry_path(dir.path(), "a")));
    EXPECT_FALSE(fs::exists(DiskCache::entry_path(dir.path(), "b")));
    EXPECT_TRUE(fs::exists(DiskCache::entry_path(dir.path(), "c")));
    EXPECT_GE(clalgo::disk_cache_bytes(), 2 * size);
    EXPECT_LE(clalgo::disk_cache_bytes(), std::uint64_t(1) << 20);
    write_file(dir.path() / "notes.txt", "not the cache's");
    clalgo::clear_disk_cache();
    EXPECT_EQ(clalgo::disk_cache_bytes(), 0u);
    EXPECT_TRUE(fs::exists(dir.path() / "notes.txt"));
    EXPECT_FALSE(fs::exists(fresh));
    ScopedEnvironment bad("CLALGO_CACHE_MAX_MB", "lots");
    EXPECT_TRUE(clalgo_test::contains(clalgo_test::message_of<std::invalid_argument>([] { DiskCache::limit_bytes(); }),
                                      "CLALGO_CACHE_MAX_MB='lots'"));
}
