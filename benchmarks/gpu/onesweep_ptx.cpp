// A onesweep pass of clalgo's radix sort, as NVIDIA's OpenCL compiled it, launched through CUDA's driver API, so
// that Nsight Compute can profile it: ncu sees no OpenCL kernels, but NVIDIA's OpenCL program binaries are PTX, and
// clalgo's disk cache keeps them. The program reads every entry of a clalgo disk cache (CLALGO_CACHE_DIR of a run on
// NVIDIA's OpenCL, for example of sort_kernels), takes those whose PTX holds `clalgo_radix_onesweep` with uint or
// ulong keys and no values or uint values, and for each launches the pass of the first digit over random keys
// (values 0, 1, 2, ...) as the sort would: its digits' counts in the histograms, a status array of tiles x 256 words
// left zero (each launch a new epoch), a ticket at zero. Each launch's time by CUDA events; the last launch's
// output checked (keys in order of their first digit, stable, each value with its key). Of the PTX's environment
// registers, %envreg6 (OpenCL's count of work-groups, which NVIDIA's get_global_size multiplies by the group's
// size) reads as %nctaid.x, the others (the global offset among them) as zero. Where the program holds the
// histogram pass too, it is launched first over the same keys, as the sort would (8 groups an SM, every digit
// counted), each launch timed, its last launch's histograms checked.
//   onesweep_ptx CACHE_DIR [--n N] [--launches K] [--dump DIR] [--directive TEXT]
// --directive: each pass also launched with TEXT (a PTX performance tuning directive, such as ".minnctapersm 2")
// after its entry's .reqntid.
// Profile: ncu --kernel-name clalgo_radix_onesweep --launch-skip 3 --launch-count 1 --set full -o rep
//              ./onesweep_ptx CACHE_DIR --launches 4
// (the histogram pass: --kernel-name clalgo_radix_histogram)
// Not built by CMake: g++ -O2 -std=c++17 -I/usr/local/cuda/include benchmarks/gpu/onesweep_ptx.cpp
//                     -L/usr/local/cuda/lib64/stubs -lcuda -o onesweep_ptx
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

void check(CUresult result, const char* what) {
    if (result == CUDA_SUCCESS) return;
    const char* text = nullptr;
    cuGetErrorString(result, &text);
    std::fprintf(stderr, "onesweep_ptx: %s: %s\n", what, text ? text : "?");
    std::exit(1);
}

struct Entry {
    std::string path, key, ptx;
};

std::uint64_t read_size(const std::string& content, std::size_t& at) {
    std::uint64_t value = 0;
    for (int byte = 0; byte < 8; ++byte) value |= std::uint64_t(static_cast<unsigned char>(content[at + byte])) << (8 * byte);
    at += 8;
    return value;
}

/// The entries of clalgo's disk cache (codegen/disk_cache.hpp: magic, key size, key, payload size, payload,
/// checksum) whose binary is PTX.
std::vector<Entry> read_cache(const std::string& dir) {
    const std::string magic = "CLALGO-PROGRAM-BINARY-1\n";
    std::vector<Entry> entries;
    for (const auto& file : std::filesystem::recursive_directory_iterator(dir)) {
        if (!file.is_regular_file()) continue;
        std::ifstream in(file.path(), std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        const std::string content = buffer.str();
        if (content.compare(0, magic.size(), magic) != 0) continue;
        std::size_t at = magic.size();
        if (content.size() < at + 8) continue;
        const auto key_size = read_size(content, at);
        if (content.size() < at + key_size + 8) continue;
        Entry entry{file.path().string(), content.substr(at, key_size), {}};
        at += key_size;
        const auto payload_size = read_size(content, at);
        if (payload_size < 8 || content.size() < at + payload_size) continue;
        // the payload (codegen/program_cache.hpp, pack_entry): the build log's size, the log, then the binary,
        // which NVIDIA's driver makes the PTX text ended by a zero byte
        const auto log_size = read_size(content, at);
        if (log_size > payload_size - 8) continue;
        const std::string binary = content.substr(at + log_size, payload_size - 8 - log_size);
        entry.ptx = binary.substr(0, binary.find('\0'));
        if (entry.ptx.find(".version") == std::string::npos) continue;
        entries.push_back(std::move(entry));
    }
    return entries;
}

std::string match(const std::string& text, const std::string& pattern) {
    std::smatch found;
    return std::regex_search(text, found, std::regex(pattern)) ? found[1].str() : std::string();
}

/// The onesweep pass's struct argument (cl/radix_sort_onesweep.cl.hpp: clalgo_onesweep_pass_t).
struct PassArgs {
    std::int64_t n;
    std::uint64_t flip;
    std::int64_t keys_in_offset, keys_out_offset, values_in_offset, values_out_offset;
    std::uint32_t shift, mask, pass, tiles, epoch;
    std::uint32_t index_values;
    std::uint32_t write_keys, unused;
};
static_assert(sizeof(PassArgs) == 80, "PassArgs must match clalgo_onesweep_pass_t");

/// The PTX with `directive` (a performance tuning directive, e.g. ".minnctapersm 2") after the onesweep entry's
/// .reqntid, as CUDA's __launch_bounds__ would put it there.
std::string with_directive(const std::string& ptx, const std::string& directive) {
    if (directive.empty()) return ptx;
    const auto entry = ptx.find(".entry clalgo_radix_onesweep(");
    const auto reqntid = entry == std::string::npos ? entry : ptx.find(".reqntid", entry);
    const auto end = reqntid == std::string::npos ? reqntid : ptx.find('\n', reqntid);
    if (end == std::string::npos) return ptx;
    return ptx.substr(0, end + 1) + directive + "\n" + ptx.substr(end + 1);
}

/// `function` launched `launches` times in `grid` groups of `group`, each launch's parameters from
/// `params_of(launch)`: each launch's time by CUDA events, in µs, sorted.
template <class Params>
std::vector<float> timed_launches(CUfunction function, unsigned grid, int group, int launches, const char* what,
                                  Params params_of) {
    CUevent start, end;
    cuEventCreate(&start, CU_EVENT_DEFAULT);
    cuEventCreate(&end, CU_EVENT_DEFAULT);
    std::vector<float> times;
    for (int launch = 0; launch < launches; ++launch) {
        cuEventRecord(start, nullptr);
        check(cuLaunchKernel(function, grid, 1, 1, group, 1, 1, 0, nullptr, params_of(launch), nullptr), "cuLaunchKernel");
        cuEventRecord(end, nullptr);
        check(cuEventSynchronize(end), what);
        float ms = 0;
        cuEventElapsedTime(&ms, start, end);
        times.push_back(ms * 1000);
    }
    cuEventDestroy(start);
    cuEventDestroy(end);
    std::sort(times.begin(), times.end());
    return times;
}

/// The program's histogram pass over `keys` (on the device at `keys_in`), launched `launches` times as the sort
/// launches it: its median time in µs, and whether the last launch counted every digit right. A negative time:
/// the program has no histogram pass.
template <class Key>
std::pair<double, bool> histogram_pass(CUmodule module, const std::vector<Key>& keys, CUdeviceptr keys_in, int group,
                                       int launches) {
    CUfunction histogram;
    if (cuModuleGetFunction(&histogram, module, "clalgo_radix_histogram") != CUDA_SUCCESS) return {-1.0, false};
    CUdevice device;
    int units = 0;
    check(cuCtxGetDevice(&device), "cuCtxGetDevice");
    check(cuDeviceGetAttribute(&units, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "cuDeviceGetAttribute");
    std::int64_t n = std::int64_t(keys.size()), offset = 0;
    std::uint32_t begin_bit = 0, end_bit = 8 * sizeof(Key), passes = sizeof(Key);
    std::uint64_t flip = 0;
    const std::size_t bytes = std::size_t(passes) * 256 * 8;
    CUdeviceptr histograms, sums, ticket;
    check(cuMemAlloc(&histograms, bytes), "cuMemAlloc");
    check(cuMemAlloc(&sums, bytes), "cuMemAlloc");
    check(cuMemAlloc(&ticket, 4), "cuMemAlloc");
    check(cuMemsetD8(sums, 0, bytes), "cuMemsetD8");  // zero between launches: the last group clears them
    check(cuMemsetD8(ticket, 0, 4), "cuMemsetD8");
    const auto groups = unsigned(std::min<std::int64_t>(std::int64_t(units) * 8, std::max<std::int64_t>(1, n / group)));
    void* params[] = {&n, &begin_bit, &end_bit, &passes, &flip, &keys_in, &offset, &histograms, &sums, &ticket};
    const auto times = timed_launches(histogram, groups, group, launches, "the histogram pass", [&](int) { return params; });
    std::vector<std::uint64_t> counted(std::size_t(passes) * 256), expected(counted.size(), 0);
    check(cuMemcpyDtoH(counted.data(), histograms, bytes), "cuMemcpyDtoH");
    for (const auto key : keys)
        for (std::uint32_t pass = 0; pass < passes; ++pass) ++expected[pass * 256 + ((std::uint64_t(key) >> (8 * pass)) & 255)];
    for (CUdeviceptr p : {histograms, sums, ticket}) cuMemFree(p);
    return {times[times.size() / 2], counted == expected};
}

template <class Key>
void run(const Entry& entry, bool values, int group, int items, std::int64_t n, int launches,
         const std::string& directive) {
    const std::string groups = std::regex_replace(entry.ptx, std::regex("%envreg6\\b"), "%nctaid.x");
    std::string ptx = with_directive(std::regex_replace(groups, std::regex("%envreg[0-9]+"), "0"), directive);
    CUmodule module;
    char log[8192] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* option_values[] = {log, reinterpret_cast<void*>(sizeof log)};
    if (cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, option_values) != CUDA_SUCCESS) {
        std::fprintf(stderr, "onesweep_ptx: the PTX did not load: %s\n", log);
        std::exit(1);
    }
    CUfunction pass;
    check(cuModuleGetFunction(&pass, module, "clalgo_radix_onesweep"), "cuModuleGetFunction");
    int registers = 0, shared = 0, blocks = 0;
    cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, pass);
    cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, pass);
    cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pass, group, 0);
    const std::int64_t tile = std::int64_t(group) * items;
    const auto tiles = std::uint32_t((n + tile - 1) / tile);

    std::mt19937_64 random(42);
    std::vector<Key> keys(n);
    for (auto& key : keys) key = Key(random());
    std::vector<std::uint64_t> histograms(256 * sizeof(Key), 0);
    for (const auto key : keys) ++histograms[key & 255];
    std::vector<std::uint32_t> indices(n);
    for (std::int64_t k = 0; k < n; ++k) indices[k] = std::uint32_t(k);

    CUdeviceptr keys_in, keys_out, values_in = 0, values_out = 0, status, histogram, ticket;
    check(cuMemAlloc(&keys_in, n * sizeof(Key)), "cuMemAlloc");
    check(cuMemAlloc(&keys_out, n * sizeof(Key)), "cuMemAlloc");
    if (values) {
        check(cuMemAlloc(&values_in, n * 4), "cuMemAlloc");
        check(cuMemAlloc(&values_out, n * 4), "cuMemAlloc");
        check(cuMemcpyHtoD(values_in, indices.data(), n * 4), "cuMemcpyHtoD");
    }
    check(cuMemAlloc(&status, std::size_t(tiles) * 256 * 8), "cuMemAlloc");
    check(cuMemAlloc(&histogram, histograms.size() * 8), "cuMemAlloc");
    check(cuMemAlloc(&ticket, 4), "cuMemAlloc");
    check(cuMemcpyHtoD(keys_in, keys.data(), n * sizeof(Key)), "cuMemcpyHtoD");
    check(cuMemcpyHtoD(histogram, histograms.data(), histograms.size() * 8), "cuMemcpyHtoD");
    check(cuMemsetD8(status, 0, std::size_t(tiles) * 256 * 8), "cuMemsetD8");
    check(cuMemsetD8(ticket, 0, 4), "cuMemsetD8");
    if (directive.empty()) {
        const auto counted = histogram_pass(module, keys, keys_in, group, launches);
        if (counted.first >= 0)
            std::printf("%s: %s keys, the histogram pass in groups of %d; n=%lld: %.1f us (median of %d); "
                        "histograms %s\n",
                        std::filesystem::path(entry.path).filename().c_str(), sizeof(Key) == 4 ? "uint" : "ulong",
                        group, (long long)n, counted.first, launches, counted.second ? "right" : "WRONG");
    }

    PassArgs args{};
    void* params[] = {&args, &ticket, &status, &histogram, &keys_in, &keys_out, &values_in, &values_out};
    const auto times = timed_launches(pass, tiles, group, launches, "the pass", [&](int launch) {
        args = PassArgs{n, 0, 0, 0, 0, 0, 0, 255, 0, tiles, std::uint32_t(launch + 1), 0, 1, 0};  // each launch a new epoch
        return params;
    });
    std::vector<Key> sorted(n);
    std::vector<std::uint32_t> moved(values ? n : 0);
    check(cuMemcpyDtoH(sorted.data(), keys_out, n * sizeof(Key)), "cuMemcpyDtoH");
    if (values) check(cuMemcpyDtoH(moved.data(), values_out, n * 4), "cuMemcpyDtoH");
    std::vector<Key> expected = keys;
    std::stable_sort(expected.begin(), expected.end(), [](Key a, Key b) { return (a & 255) < (b & 255); });
    bool right = sorted == expected;
    for (std::int64_t k = 0; values && right && k < n; ++k)
        right = moved[k] < std::uint32_t(n) && keys[moved[k]] == sorted[k] && (k == 0 || (sorted[k] & 255) != (sorted[k - 1] & 255) || moved[k] > moved[k - 1]);
    std::printf("%s%s%s: %s keys%s, %d x %d, %d registers, %d bytes of shared memory, %d groups an SM; n=%lld: "
                "%.1f us a pass (median of %d, fastest %.1f); output %s\n",
                std::filesystem::path(entry.path).filename().c_str(), directive.empty() ? "" : " with ",
                directive.c_str(), sizeof(Key) == 4 ? "uint" : "ulong",
                values ? " with uint values" : "", group, items, registers, shared, blocks, (long long)n,
                times[times.size() / 2], launches, times.front(), right ? "right" : "WRONG");
    for (CUdeviceptr p : {keys_in, keys_out, values_in, values_out, status, histogram, ticket})
        if (p) cuMemFree(p);
    cuModuleUnload(module);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: onesweep_ptx CACHE_DIR [--n N] [--launches K] [--dump DIR] [--directive TEXT]\n");
        return 2;
    }
    std::int64_t n = std::int64_t(1) << 24;
    int launches = 9;
    std::string dump, directive;
    for (int a = 2; a + 1 < argc; a += 2) {
        const std::string option = argv[a];
        if (option == "--n") n = std::atoll(argv[a + 1]);
        else if (option == "--launches") launches = std::atoi(argv[a + 1]);
        else if (option == "--dump") dump = argv[a + 1];
        else if (option == "--directive") directive = argv[a + 1];
    }
    check(cuInit(0), "cuInit");
    CUdevice device;
    CUcontext context;
    check(cuDeviceGet(&device, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    auto entries = read_cache(argv[1]);
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
    for (const auto& entry : entries) {
        if (entry.ptx.find(".entry clalgo_radix_onesweep") == std::string::npos) continue;
        if (entry.key.find("#define CLALGO_ONE_TILE 0") == std::string::npos) continue;
        const std::string key_type = match(entry.key, "typedef (\\w+) clalgo_key_t;");
        const std::string value_type = match(entry.key, "typedef (\\w+) clalgo_sort_value_t;");
        const bool values = entry.key.find("#define CLALGO_HAS_VALUES 1") != std::string::npos;
        const int group = std::atoi(match(entry.key, "#define CLALGO_GROUP_SIZE (\\d+)").c_str());
        const int items = std::atoi(match(entry.key, "#define CLALGO_ITEMS (\\d+)").c_str());
        if (!dump.empty()) {
            std::filesystem::create_directories(dump);
            const auto name = std::filesystem::path(entry.path).filename().string();
            std::ofstream(dump + "/" + name + ".ptx") << entry.ptx;
            std::ofstream(dump + "/" + name + ".cl") << entry.key;
        }
        if (group <= 0 || items <= 0 || (values && value_type != "uint")) continue;
        for (const std::string& with : {std::string(), directive}) {
            if (key_type == "uint") run<std::uint32_t>(entry, values, group, items, n, launches, with);
            else if (key_type == "ulong") run<std::uint64_t>(entry, values, group, items, n, launches, with);
            if (directive.empty()) break;
        }
    }
    cuDevicePrimaryCtxRelease(device);
    return 0;
}
