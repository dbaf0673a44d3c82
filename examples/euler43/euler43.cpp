// Project Euler 43 by brute force on the device, as in "Solving Project Euler 43 with OpenCL" (PyOpenCL): the sum
// of the 0-9 pandigital numbers d1 d2 ... d10 whose three-digit substrings d2d3d4, d3d4d5, ..., d8d9d10 divide by
// 2, 3, 5, 7, 11, 13 and 17. Every such number is a multiple of 9 (its digits sum to 45), so the candidates are
// n = 9i for 0 <= i < 1,111,111,112. Four ways, each over the index range, so nothing is copied to the device:
//   1. copy_if keeps the passing numbers (a handful), the host sums them;
//   2. a ReductionKernel sums "n if it passes, else 0";
//   3. an ElementwiseKernel writes that value for a chunk of candidates into a device array and a ReductionKernel
//      sums the array, chunk after chunk: the article's "map, then reduce";
//   4. a hand-written kernel (RawProgram) sums its share of the candidates in each work-item and the work-items
//      of a group in local memory; clalgo::sum adds the groups' sums: the article's kernel, written by hand.
// Ways 3 and 4 keep arrays on the device; across several devices each device has arrays of its own (the parts of
// a clalgo::SplitArray) and works through its share of the range alone, and only the sums travel.
// Each must give the others' answer and the expected one: Project Euler's 16695334890 over all candidates, the
// host's brute force over a part of them. --devices splits the range across several devices of this process (a
// clalgo::DeviceSet); the MPI build, euler43_mpi, across the ranks of `mpirun -np N euler43_mpi` (clalgo::mpi).
#include "common/device.hpp"
#include "common/scale.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::int64_t all_candidates = 1111111112;  // n = 9i < 10^10
constexpr std::int64_t published_answer = 16695334890;
// What a CPU device checks by default: 1% of the candidates (n from 1,400,000,004 to 1,500,000,003), which holds
// three of the six numbers; the whole range takes about a minute per way there.
constexpr std::int64_t cpu_slice_first = 155555556, cpu_slice_last = 166666667;

// The predicate on the device. It is the article's is_pandigital(n) && is_substring_divisible(n), written for speed:
// - n is split once into two five-digit halves; everything after is 32-bit arithmetic (GPUs emulate 64-bit
//   division and remainder with dozens of instructions, and the article's version does about forty of them);
// - the tests on d1..d6 come first: neighbouring work-items hold neighbouring candidates, 9 apart, which share
//   those digits, so a whole warp usually fails them together and leaves early;
// - a repeated digit ends the test at once.
// It accepts exactly the numbers the article's predicate accepts: compared on all 1,111,111,112 candidates on the
// host when this example was written; --verify compares the two again (the host brute force uses the article's),
// and the ctest test does so on a slice holding three of the six numbers.
const char* const predicate_preamble = R"CLC(
/* Is n (below 10^10, read as ten digits d1..d10 with leading zeros) 0-9 pandigital with d2d3d4, d3d4d5, ...,
   d8d9d10 divisible by 2, 3, 5, 7, 11, 13 and 17? */
inline bool is_euler43_number(long n)
{
    const uint high = (uint)((ulong)n / 100000);  /* d1 d2 d3 d4 d5 */
    const uint low = (uint)((ulong)n % 100000);   /* d6 d7 d8 d9 d10 */

    /* d1..d5 all different: one bit per digit seen */
    uint seen = 0;
    uint rest = high;
    for (int k = 0; k < 5; ++k, rest /= 10) {
        const uint bit = 1u << (rest % 10);
        if (seen & bit)
            return false;
        seen |= bit;
    }
    /* d2d3d4 by 2: d4 even; d3d4d5 by 3; d4d5d6 by 5: d6 is 0 or 5 */
    const uint d6 = low / 10000;
    if ((high / 10) % 2 != 0 || (high % 1000) % 3 != 0 || d6 % 5 != 0)
        return false;
    /* d5d6d7 by 7, d6d7d8 by 11, d7d8d9 by 13, d8d9d10 by 17 */
    if (((high % 10) * 100 + low / 1000) % 7 != 0 || (low / 100) % 11 != 0 ||
        (low / 10) % 1000 % 13 != 0 || low % 1000 % 17 != 0)
        return false;
    /* d6..d10: the five digits d1..d5 lack */
    rest = low;
    for (int k = 0; k < 5; ++k, rest /= 10) {
        const uint bit = 1u << (rest % 10);
        if (seen & bit)
            return false;
        seen |= bit;
    }
    return seen == 0x3FF;
}
)CLC";

// Way 4's kernel, after the predicate: each work-item sums the passing numbers among the candidates 9i, i in
// [first, last), that a grid-stride loop gives it; the work-items of a group then add their sums in local memory.
const char* const raw_kernel_source = R"CLC(
__kernel void euler43_group_sums(const long first, const long last, __global long *group_sums,
                                 __local long *scratch)
{
    long sum = 0;
    for (long i = first + (long)get_global_id(0); i < last; i += (long)get_global_size(0))
        sum += is_euler43_number(9 * i) ? 9 * i : 0;
    const uint lid = get_local_id(0);
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint width = get_local_size(0) / 2; width > 0; width /= 2) {
        if (lid < width)
            scratch[lid] += scratch[lid + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        group_sums[get_group_id(0)] = scratch[0];
}
)CLC";

// The article's predicate, unchanged but for the language, for the host's brute force.
bool is_pandigital(std::int64_t x) {
    unsigned set = 0x3FF;  // one bit per digit 0..9, toggled by each digit: zero where each appears once
    for (int k = 0; k < 10; ++k) {
        set ^= 1u << (x % 10);
        x /= 10;
    }
    return set == 0;
}

bool is_substring_divisible(std::int64_t x) {
    static constexpr std::int64_t divisor[7] = {2, 3, 5, 7, 11, 13, 17};
    static constexpr std::int64_t pow10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                               1000000000};
    for (int k = 0; k < 7; ++k)
        if ((x % pow10[9 - k]) / pow10[6 - k] % divisor[k] != 0) return false;
    return true;
}

/// The numbers 9i, first <= i < last, that pass the article's predicate, in order; on all host threads.
std::vector<std::int64_t> host_brute_force(std::int64_t first, std::int64_t last) {
    const std::int64_t threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::vector<std::int64_t>> found(threads);
    std::vector<std::thread> workers;
    for (std::int64_t t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            const std::int64_t begin = first + (last - first) * t / threads, end = first + (last - first) * (t + 1) / threads;
            for (std::int64_t i = begin; i < end; ++i)
                if (is_pandigital(9 * i) && is_substring_divisible(9 * i)) found[t].push_back(9 * i);
        });
    for (auto& worker : workers) worker.join();
    std::vector<std::int64_t> numbers;
    for (const auto& part : found) numbers.insert(numbers.end(), part.begin(), part.end());
    return numbers;
}

/// "no numbers", "1 number: 4106357289", "3 numbers: 1406357289 1430952867 1460357289".
std::string describe(const std::vector<std::int64_t>& numbers) {
    if (numbers.empty()) return "no numbers";
    std::string text = std::to_string(numbers.size()) + (numbers.size() == 1 ? " number:" : " numbers:");
    for (auto number : numbers) text += " " + std::to_string(number);
    return text;
}

/// "i in [A, B)": the candidate indices to check.
std::pair<std::int64_t, std::int64_t> parse_range(const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) throw example::UsageError("--range: expected FIRST:LAST, got '" + text + "'");
    const std::int64_t first = example::parse_count(text.substr(0, colon), "--range FIRST");
    const std::int64_t last = example::parse_count(text.substr(colon + 1), "--range LAST");
    if (first >= last || last > all_candidates)
        throw example::UsageError("--range: need 0 <= FIRST < LAST <= " + std::to_string(all_candidates) + ", got " +
                                  text);
    return {first, last};
}

struct WayResult {
    std::int64_t sum = 0;
    std::vector<std::int64_t> numbers;  ///< way 1 only: the survivors
    bool operator==(const WayResult& other) const { return sum == other.sum && numbers == other.numbers; }
};

int run(int argc, char** argv) {
    example::CommandLine command_line(
        "euler43",
        "Project Euler 43 by brute force on the device: the sum of the 0-9 pandigital numbers with the sub-string\n"
        "divisibility property, over the 1,111,111,112 multiples of 9 below 10^10, in four ways.");
    bool all = false, verify = false;
    std::optional<std::string> range_text, devices_text;
    std::optional<std::int64_t> chunk;
    command_line.flag("--all", "check all 1,111,111,112 candidates (the default on a GPU)", all);
    command_line.text("--range", "FIRST:LAST",
                      "check the candidates 9i for FIRST <= i < LAST only (default on a CPU: 155555556:166666667, 1%)",
                      range_text);
    command_line.text("--devices", "N|SPECS",
                      "split the range across N queues on the device, or the devices of comma-separated specs "
                      "(\"0:0,0:1\"), in proportion to their compute units",
                      devices_text);
    command_line.count("--chunk", "N", "way 3: candidates per chunk (default: as many as fit, at most 2^27)", chunk);
    command_line.flag("--verify",
                      "also brute force on the host with the article's predicate and compare the numbers found "
                      "(always done for a part of the range)",
                      verify);
    command_line.epilogue("Examples:\n  euler43                 # all candidates on a GPU, 1% of them on a CPU\n"
                          "  euler43 --all --verify  # all, checked on the host too (about a minute per host core)");
    if (!command_line.parse(argc, argv)) return 0;
    if (all && range_text) throw example::UsageError("--all and --range exclude each other");
    if (chunk && *chunk < 1) throw example::UsageError("--chunk: need at least 1");
    const int runs = command_line.runs();

    std::int64_t first = 0, last = all_candidates;
    if (range_text) std::tie(first, last) = parse_range(*range_text);

    std::printf("euler43:  Project Euler 43 by brute force, four ways\n");
    const example::Scale scale = example::open_scale(command_line, devices_text);
    const example::Device& device = scale.device;
    const clalgo::Queue& queue = device.queue;
    if (!all && !range_text && !device.info().is_gpu) std::tie(first, last) = std::pair{cpu_slice_first, cpu_slice_last};
    const std::int64_t count = last - first;
    const bool whole_range = first == 0 && last == all_candidates;
    std::printf("range:    n = 9i for i in [%lld, %lld): %s of the %s candidates\n", (long long)first,
                (long long)last, example::with_commas(count).c_str(), example::with_commas(all_candidates).c_str());
    if (!whole_range && !range_text)
        std::printf("          (1%% of them, the default on a CPU device; --all checks them all)\n");

    // way 3's chunk: as many candidates as fit in half the largest buffer, at most 2^27 (1 GiB of longs); each
    // device (or rank) goes through its own share of the range chunk by chunk
    const std::int64_t fitting = static_cast<std::int64_t>(device.info().max_allocation_bytes / sizeof(std::int64_t) / 2);
    const std::int64_t chunk_size = std::min({count, chunk.value_or(std::int64_t(1) << 27), fitting});
    const std::int64_t chunks = (count + chunk_size - 1) / chunk_size;  // at most this many per device

    // --- the kernels: built (or loaded from the disk cache) once, before any timing ---
    example::BuildTimer builds;
    clalgo::SelectionOptions selection;
    selection.preamble = predicate_preamble;
    selection.value_expr = "9 * i";
    selection.capacity = 1024;  // room for the survivors; the count is exact even if there were more
    const std::string predicate = "is_euler43_number(9 * i)";
    // copy_if builds its scan on first use: a call over one candidate does that here
    clalgo::copy_if(queue, clalgo::range(0, 1), predicate, selection).count.get(queue);

    clalgo::ReductionOptions reduction_options;
    reduction_options.name = "euler43_sum";
    reduction_options.preamble = predicate_preamble;
    const clalgo::ReductionKernel<std::int64_t> sum_of_numbers(
        device.context, "0", "a + b", "is_euler43_number(9 * i) ? 9 * i : 0", "", reduction_options);

    clalgo::ElementwiseOptions mark_options;
    mark_options.name = "euler43_mark";
    mark_options.preamble = predicate_preamble;
    const clalgo::ElementwiseKernel mark(device.context, "long *marked, long chunk_start",
                                         "marked[i - chunk_start] = is_euler43_number(9 * i) ? 9 * i : 0",
                                         mark_options);
    clalgo::ReductionOptions chunk_options;
    chunk_options.name = "euler43_chunk_sum";
    const clalgo::ReductionKernel<std::int64_t> sum_of_chunk(device.context, "0", "a + b", "marked[i]",
                                                             "const long *marked", chunk_options);
    // way 4: the predicate and a kernel of our own, which sums a grid-stride share of the candidates per work-item,
    // then the work-items of its group in local memory (a power-of-two group size)
    const clalgo::RawProgram raw_program(device.context, std::string(predicate_preamble) + raw_kernel_source);
    const clalgo::RawKernel raw_sums = raw_program.kernel("euler43_group_sums");
    const std::size_t raw_group_size = 64;
    const std::size_t raw_groups = std::size_t(device.info().compute_units) * (device.info().is_gpu ? 32 : 4);
    clalgo::sum(queue, clalgo::Array<std::int64_t>(queue, 1).view());  // builds the sum's kernel here, before the timing
    std::printf("kernels:  %s\n", builds.report().c_str());

    // ways 3 and 4's arrays, made once on each device (a SplitArray's part d lives on device d): the marks of one
    // chunk, each chunk's sum, the hand-written kernel's group sums, and each device's total
    const std::size_t devices_here = scale.devices.size();
    auto per_device = [&](std::int64_t size) {
        return clalgo::SplitArray<std::int64_t>::with_part_sizes(scale.devices,
                                                                 std::vector<std::size_t>(devices_here, std::size_t(size)));
    };
    const auto marked = per_device(chunk_size);
    const auto chunk_sums = per_device(chunks);
    const auto group_sums = per_device(std::int64_t(raw_groups));
    const auto device_sums = per_device(1);
    // the sum of the totals of the devices that had a share (ran[d]), read back from every device at once (and
    // added over the MPI ranks)
    std::vector<char> ran(devices_here);
    auto total_of_devices = [&] {
        const auto totals = device_sums.to_host(scale.devices);
        std::int64_t sum = 0;
        for (std::size_t d = 0; d < devices_here; ++d) sum += ran[d] ? totals[d] : 0;
        return scale.sum_over_processes(sum);
    };

    // --- the four ways, each timed over `runs` runs; every run waits for its result ---
    std::printf("\n1. copy_if over the index range, then a host sum of the survivors\n");
    const auto way1 = example::best_of(runs, [&] {
        auto [numbers, kept] = scale.copy_if(clalgo::range(first, last), predicate, selection);
        if (kept > *selection.capacity)
            throw clalgo::Error("copy_if kept " + std::to_string(kept) + " numbers, more than the " +
                                std::to_string(*selection.capacity) + " there is room for: the predicate is wrong");
        WayResult result;
        result.numbers = std::move(numbers);
        result.sum = std::accumulate(result.numbers.begin(), result.numbers.end(), std::int64_t(0));
        return result;
    });
    std::printf("   sum %s of %s\n   time %s\n", example::with_commas(way1.result.sum).c_str(),
                describe(way1.result.numbers).c_str(), way1.report().c_str());

    std::printf("2. ReductionKernel over the index range (map: n if it passes, else 0)\n");
    const auto way2 = example::best_of(runs, [&] {
        return WayResult{scale.reduce(sum_of_numbers, clalgo::range(first, last)), {}};
    });
    std::printf("   sum %s\n   time %s, %s candidates/s\n", example::with_commas(way2.result.sum).c_str(),
                way2.report().c_str(), example::si(double(count) / way2.best).c_str());

    std::printf("3. ElementwiseKernel marking a device array, then a ReductionKernel, chunk by chunk\n"
                "   (%lld chunk%s of up to %s candidates)\n",
                (long long)chunks, chunks == 1 ? "" : "s", example::with_commas(chunk_size).c_str());
    const auto way3 = example::best_of(runs, [&] {
        std::fill(ran.begin(), ran.end(), 0);
        // each device its share of the range, chunk by chunk, on its own arrays. Everything is enqueued at once:
        // the in-order queue runs each chunk's marking after the previous chunk's sum, and the sums stay on the
        // device until its total is read
        scale.each(clalgo::range(first, last), [&](std::size_t d, const clalgo::Queue& on, clalgo::IndexRange share) {
            const auto marks = marked.part(d), sums = chunk_sums.part(d);
            const std::int64_t my_chunks = (share.size() + chunk_size - 1) / chunk_size;
            for (std::int64_t c = 0; c < my_chunks; ++c) {
                const std::int64_t chunk_start = share.start + c * chunk_size;
                const std::int64_t chunk_end = std::min(chunk_start + chunk_size, share.stop);
                mark(on, clalgo::range(chunk_start, chunk_end), marks, chunk_start);
                sum_of_chunk.into(on, sums.view(static_cast<std::size_t>(c), 1),
                                  marks.view(0, static_cast<std::size_t>(chunk_end - chunk_start)));
            }
            clalgo::sum(on, sums.view(0, std::size_t(my_chunks)), device_sums.part(d));
            ran[d] = 1;
        });
        return WayResult{total_of_devices(), {}};
    });
    std::printf("   sum %s\n   time %s\n", example::with_commas(way3.result.sum).c_str(), way3.report().c_str());

    std::printf("4. a hand-written kernel (RawProgram): a sum per work-group, then clalgo::sum\n"
                "   (%zu groups of %zu work-items)\n", raw_groups, raw_group_size);
    const auto way4 = example::best_of(runs, [&] {
        std::fill(ran.begin(), ran.end(), 0);
        scale.each(clalgo::range(first, last), [&](std::size_t d, const clalgo::Queue& on, clalgo::IndexRange share) {
            raw_sums(on, raw_groups * raw_group_size, raw_group_size, share.start, share.stop, group_sums.part(d),
                     clalgo::local_memory<std::int64_t>(raw_group_size));
            clalgo::sum(on, group_sums.part(d), device_sums.part(d));
            ran[d] = 1;
        });
        return WayResult{total_of_devices(), {}};
    });
    std::printf("   sum %s\n   time %s\n", example::with_commas(way4.result.sum).c_str(), way4.report().c_str());

    // --- the checks ---
    bool passed = true;
    auto check = [&passed](bool ok, const std::string& what) {
        if (!ok) std::printf("MISMATCH: %s\n", what.c_str());
        passed = passed && ok;
    };
    std::printf("\n");
    std::int64_t expected = published_answer;
    if (whole_range) std::printf("expected: %s, Project Euler's published answer\n", example::with_commas(expected).c_str());
    if (verify || !whole_range) {
        example::Stopwatch clock;
        const auto host_numbers = host_brute_force(first, last);
        const std::int64_t host_sum = std::accumulate(host_numbers.begin(), host_numbers.end(), std::int64_t(0));
        std::printf("host:     %s, the sum of %s\n          (brute force with the article's predicate on %u threads, %s)\n",
                    example::with_commas(host_sum).c_str(), describe(host_numbers).c_str(),
                    std::max(1u, std::thread::hardware_concurrency()), example::format_duration(clock.seconds()).c_str());
        if (whole_range) check(host_sum == published_answer, "the host's sum differs from the published answer");
        else expected = host_sum;
        check(way1.result.numbers == host_numbers, "copy_if found other numbers than the host");
    }
    check(way1.all_equal && way2.all_equal && way3.all_equal && way4.all_equal, "repeated runs gave different results");
    check(way1.result.sum == expected, "way 1 gave " + std::to_string(way1.result.sum));
    check(way2.result.sum == expected, "way 2 gave " + std::to_string(way2.result.sum));
    check(way3.result.sum == expected, "way 3 gave " + std::to_string(way3.result.sum));
    check(way4.result.sum == expected, "way 4 gave " + std::to_string(way4.result.sum));
    passed = scale.everywhere(passed);
    if (passed) std::printf("PASS:     all four ways give %s\n", example::with_commas(expected).c_str());
    else std::printf("FAIL:     expected %s\n", example::with_commas(expected).c_str());
    return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef CLALGO_EXAMPLE_MPI
    MPI_Init(&argc, &argv);
    const int code = example::run_main("euler43_mpi", [&] { return run(argc, argv); });
    int worst = 0;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
#else
    return example::run_main("euler43", [&] { return run(argc, argv); });
#endif
}
