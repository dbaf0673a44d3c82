// The look-and-say sequence on the device, as in "Look-and-say: [Alea.]CUDA": each term reads the previous one
// aloud, run by run ("1113222113" -> three 1s, one 3, three 2s, two 1s, one 3 -> "3113322113"). The article's GPU
// step is "mark runs, scan, compact": a kernel marks where runs start and writes (count, digit) pairs, a scan of
// the marks gives each pair's place in the next term, and a compaction writes the pairs there. Here the three
// are one GenericScanKernel: its input is, at each run start, how many digits the run becomes (the count's
// decimal digits and the digit), 0 elsewhere; the scan turns those into places; its output statement writes each
// run's digits at its place. The term never leaves the device: only its new length comes back, each step.
// Counts above 9 (possible in a start string: "1111111111111" -> "131") take as many digits as they need.
// A next term is at most twice as long: its buffer is allocated so; where the device cannot hold that much (after
// the memory pool released its cache), the next term's length is counted first (a reduction of the same input)
// and its buffer allocated exactly, and where even that does not fit, the program ends naming the sizes.
#include "common/device.hpp"

#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using Digits = std::vector<std::uint8_t>;

const char* const look_and_say_preamble = R"CLC(
/* Does a run of equal digits start at i? */
inline bool is_run_start(__global const uchar *digits, long i)
{
    return i == 0 || digits[i] != digits[i - 1];
}

/* The length of the run that starts at i (runs are short: at most 3 after the first steps) */
inline long run_length(__global const uchar *digits, long i, long n)
{
    long end = i + 1;
    while (end < n && digits[end] == digits[i])
        ++end;
    return end - i;
}

/* How many digits the run starting at i becomes: its length in decimal, then its digit */
inline uint spoken_length(__global const uchar *digits, long i, long n)
{
    uint spoken = 2;
    for (long count = run_length(digits, i, n); count >= 10; count /= 10)
        ++spoken;
    return spoken;
}

/* Writes what the run starting at i becomes into next[.. end - 1]: the count's digits, then the digit */
inline void speak_run(__global const uchar *digits, long i, long n, __global uchar *next, long end)
{
    next[--end] = digits[i];
    for (long count = run_length(digits, i, n); count > 0; count /= 10)
        next[--end] = (uchar)(count % 10);
}
)CLC";

/// Look-and-say on the host, one core, for --verify: the plain loop, over two buffers used in turn as on the
/// device.
class HostLookAndSay {
public:
    explicit HostLookAndSay(const Digits& start) : term_(start), length_(start.size()) {}

    void step() {
        if (next_.size() < 2 * length_) next_.resize(2 * length_);  // at most twice as long, as on the device
        std::size_t out = 0;
        for (std::size_t i = 0; i < length_;) {
            std::size_t end = i + 1;
            while (end < length_ && term_[end] == term_[i]) ++end;
            const std::size_t count = end - i;
            if (count < 10) {
                next_[out++] = static_cast<std::uint8_t>(count);
            } else {
                for (char c : std::to_string(count)) next_[out++] = static_cast<std::uint8_t>(c - '0');
            }
            next_[out++] = term_[i];
            i = end;
        }
        std::swap(term_, next_);
        length_ = out;
    }

    std::size_t length() const { return length_; }
    Digits term() const { return Digits(term_.begin(), term_.begin() + static_cast<std::ptrdiff_t>(length_)); }

private:
    Digits term_, next_;
    std::size_t length_;
};

std::string as_text(const Digits& digits, std::size_t at_most) {
    std::string text;
    for (std::size_t k = 0; k < std::min(digits.size(), at_most); ++k) text += char('0' + digits[k]);
    return text;
}

/// Iterates look-and-say on the device. Keeps its two term buffers (grown as needed) and kernels between runs.
class LookAndSay {
public:
    /// `wide_places`: 64-bit places from the first step, instead of only where 32 bits would not do.
    LookAndSay(const example::Device& device, bool wide_places)
        : device_(device), queue_(device.queue), wide_places_(wide_places) {
        if (wide_places_) make_scan(scan64_);
        else make_scan(scan32_);
    }

    struct Run {
        std::vector<std::int64_t> lengths;  ///< after each step, 1..steps
        double late_build_seconds = 0;      ///< building the 64-bit scan or the count, where this run needed them
        int first_exact_step = 0;           ///< the first step whose term was counted first (memory was short); 0: none
        bool operator==(const Run& other) const { return lengths == other.lengths; }
    };

    /// `steps` steps from `start`; `each_step(step, length)` is called after each (for --print).
    template <class EachStep>
    Run iterate(const Digits& start, int steps, EachStep&& each_step) {
        Run run;
        std::uint64_t length = start.size();
        reserve(term_, length);
        term_.view(0, length).write(queue_, start.data());
        for (int step = 1; step <= steps; ++step) {
            const auto term = term_.view(0, length);
            if (!reserve_next(term, run) && run.first_exact_step == 0) run.first_exact_step = step;
            if (2 * length <= 0xffffffffull && !wide_places_) {
                // places below 2^32: 32-bit scan values, half the traffic and packed look-back words
                scan32_->with_total(queue_, total32_, term, next_);
                length = total32_.read_at(queue_, 0);
            } else {
                if (!scan64_) {
                    example::Stopwatch clock;
                    make_scan(scan64_);
                    run.late_build_seconds += clock.seconds();
                }
                scan64_->with_total(queue_, total64_, term, next_);
                length = total64_.read_at(queue_, 0);
            }
            std::swap(term_, next_);
            run.lengths.push_back(static_cast<std::int64_t>(length));
            each_step(step, length);
        }
        return run;
    }

    Run iterate(const Digits& start, int steps) {
        return iterate(start, steps, [](int, std::uint64_t) {});
    }

    /// The current term's first `count` digits.
    Digits read_term(std::uint64_t count) const { return term_.view(0, count).to_host(queue_); }

private:
    /// The step as one scan over the term's digits, with places of type T.
    template <class T>
    void make_scan(std::optional<clalgo::GenericScanKernel<T>>& scan) {
        clalgo::ScanOptions options;
        options.name = sizeof(T) == 4 ? "look_and_say" : "look_and_say_64";
        options.preamble = look_and_say_preamble;
        scan.emplace(device_.context, "const uchar *digits, uchar *next",
                     "is_run_start(digits, i) ? spoken_length(digits, i, n) : 0", "a + b", "0",
                     "if (item != prev_item) speak_run(digits, i, n, next, item);", options);
    }

    /// Makes next_ hold the term after `term`: twice its digits (a run of r digits becomes at most r + 1 <= 2r),
    /// or, where the device cannot hold that, exactly the next term's digits, counted first; false in that case.
    bool reserve_next(const clalgo::ArrayView<cl_uchar>& term, Run& run) {
        const std::uint64_t bound = 2 * term.size();
        if (next_.size() >= bound) return true;
        next_ = clalgo::Array<cl_uchar>();  // free the old one first: the device may not hold both
        try {
            next_ = clalgo::Array<cl_uchar>(queue_, static_cast<std::size_t>(bound));
            return true;
        } catch (const clalgo::DeviceMemoryError&) {
            // the pool released its cache and the device still refused: count the next term, allocate that
        }
        if (!count_) {
            example::Stopwatch clock;
            clalgo::ReductionOptions options;
            options.name = "look_and_say_count";
            options.preamble = look_and_say_preamble;
            count_.emplace(device_.context, "0", "a + b", "is_run_start(digits, i) ? spoken_length(digits, i, n) : 0",
                           "const uchar *digits", options);
            run.late_build_seconds += clock.seconds();
        }
        reserve(next_, (*count_)(queue_, term));
        return false;
    }

    /// Makes `buffer` hold at least `size` digits; its contents are lost where it grows.
    void reserve(clalgo::Array<cl_uchar>& buffer, std::uint64_t size) {
        if (buffer.size() >= size) return;
        buffer = clalgo::Array<cl_uchar>();  // free the old one first: the device may not hold both
        try {
            buffer = clalgo::Array<cl_uchar>(queue_, static_cast<std::size_t>(size));
        } catch (const clalgo::DeviceMemoryError& error) {
            throw clalgo::DeviceMemoryError("the next term needs room for " + example::with_commas(size) +
                                            " digits, one byte each: " + error.what());
        }
    }

    const example::Device& device_;
    const clalgo::Queue& queue_;
    bool wide_places_;
    std::optional<clalgo::GenericScanKernel<cl_uint>> scan32_;
    std::optional<clalgo::GenericScanKernel<cl_ulong>> scan64_;
    std::optional<clalgo::ReductionKernel<cl_ulong>> count_;  ///< the next term's length, where memory is short
    clalgo::Array<cl_uchar> term_, next_;
    clalgo::Array<cl_uint> total32_{queue_, 1};
    clalgo::Array<cl_ulong> total64_{queue_, 1};
};

Digits parse_start(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw example::UsageError("the start must be a string of decimal digits, not '" + text + "'");
    Digits digits;
    for (char c : text) digits.push_back(static_cast<std::uint8_t>(c - '0'));
    return digits;
}

int run(int argc, char** argv) {
    example::CommandLine command_line("look_and_say",
                                      "Iterates the look-and-say sequence on the device: one scan per step, only the "
                                      "new length comes back.");
    std::optional<std::string> start_text;
    std::optional<std::int64_t> steps_option;
    bool verify = false, print = false, wide_places = false;
    command_line.positional("START", "the first term, decimal digits (default 1113222113)", start_text);
    command_line.count("--steps", "N", "how many steps (default 50: 3,579,328 digits from 1113222113)", steps_option);
    command_line.flag("--verify",
                      "run the plain host implementation too and compare every length, and the digits of the last "
                      "term up to 10^8 of them",
                      verify);
    command_line.flag("--print", "print each step's length and term (its first 60 digits)", print);
    command_line.flag("--wide-places",
                      "scan with 64-bit places from the first step (by default only where a term passes 2^31 "
                      "digits): to test that path on small terms",
                      wide_places);
    command_line.epilogue("Examples:\n  look_and_say\n  look_and_say 1111111111111 --steps 5 --print\n"
                          "  look_and_say --steps 60 --verify");
    if (!command_line.parse(argc, argv)) return 0;
    const Digits start = parse_start(start_text.value_or("1113222113"));
    const std::int64_t steps64 = steps_option.value_or(50);
    if (steps64 > 200) throw example::UsageError("--steps: at most 200 (the terms grow by about 1.3 a step)");
    const int steps = static_cast<int>(steps64);
    const int runs = command_line.runs();

    std::printf("look_and_say: the look-and-say sequence on the device\n");
    example::Device device = example::open_device(command_line.device_spec());

    example::BuildTimer builds;
    LookAndSay look_and_say(device, wide_places);
    std::printf("kernels:  %s\n", builds.report().c_str());
    std::printf("start:    %s (%zu digits), %d steps\n", as_text(start, 60).c_str(), start.size(), steps);

    // the timed runs: the first allocates the term buffers (and builds the 64-bit scan where a term passes 2^31
    // digits, which is not counted), later runs reuse them
    LookAndSay::Run result;
    double first = 0, best = 0;
    for (int r = 0; r < runs; ++r) {
        example::Stopwatch clock;
        LookAndSay::Run run = look_and_say.iterate(start, steps);
        const double seconds = clock.seconds() - run.late_build_seconds;
        if (run.late_build_seconds > 0)
            std::printf("kernels:  + the 64-bit scan for terms past 2^31 digits or the count for short memory, built "
                        "in %s (not counted below)\n",
                        example::format_duration(run.late_build_seconds).c_str());
        if (run.first_exact_step > 0 && r == 0)
            std::printf("memory:   the device could not hold twice a term from step %d on: each next term was counted "
                        "first and allocated exactly\n",
                        run.first_exact_step);
        if (r == 0) {
            result = std::move(run);
            first = best = seconds;
        } else {
            best = std::min(best, seconds);
            if (!(run == result)) throw clalgo::Error("a repeated run gave other lengths");
        }
    }
    const std::int64_t final_length = steps > 0 ? result.lengths.back() : std::int64_t(start.size());
    std::int64_t digits_made = 0;
    for (auto length : result.lengths) digits_made += length;
    std::printf("result:   %s digits after %d steps\n", example::with_commas(final_length).c_str(), steps);
    std::printf("          time %s", example::format_duration(best).c_str());
    if (runs == 1) std::printf(" (one run)");
    else std::printf(" (best of %d; first run %s)", runs, example::format_duration(first).c_str());
    std::printf(", %s digits/s made\n", example::si(double(digits_made) / best).c_str());

    if (print) {
        // an untimed pass that reads each term's head back
        look_and_say.iterate(start, steps, [&](int step, std::uint64_t length) {
            const Digits head = look_and_say.read_term(std::min<std::uint64_t>(length, 60));
            std::printf("  %3d: %14s  %s%s\n", step, example::with_commas(static_cast<std::int64_t>(length)).c_str(),
                        as_text(head, 60).c_str(), length > 60 ? "..." : "");
        });
    }

    bool passed = true;
    if (verify) {
        example::Stopwatch clock;
        HostLookAndSay host(start);
        std::vector<std::int64_t> host_lengths;
        for (int step = 1; step <= steps; ++step) {
            host.step();
            host_lengths.push_back(static_cast<std::int64_t>(host.length()));
        }
        const double host_seconds = clock.seconds();
        std::printf("host:     %s digits after %d steps, in %s on one core: the device is %.3gx as fast\n",
                    example::with_commas(static_cast<std::int64_t>(host.length())).c_str(), steps,
                    example::format_duration(host_seconds).c_str(), host_seconds / best);
        if (host_lengths != result.lengths) {
            std::printf("MISMATCH: the lengths differ from the host's\n");
            passed = false;
        } else if (host.length() <= 100000000) {
            // the device holds the last term of its last run
            if (look_and_say.read_term(host.length()) != host.term()) {
                std::printf("MISMATCH: the last term's digits differ from the host's\n");
                passed = false;
            } else {
                std::printf("PASS:     every length and the last term's digits equal the host's\n");
            }
        } else {
            std::printf("PASS:     every length equals the host's (the digits are compared up to 10^8 of them)\n");
        }
    }
    return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    return example::run_main("look_and_say", [&] { return run(argc, argv); });
}
