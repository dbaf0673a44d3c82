// Project Euler 43 by brute force, a reduction over an index range with no input array: the sum of the 0-9
// pandigital numbers d1..d10 whose substrings d2d3d4, d3d4d5, ..., d8d9d10 are divisible by 2, 3, 5, 7, 11, 13
// and 17. Every pandigital number is a multiple of 9 (its digits sum to 45), so the candidates are m = 9i for
// 0 <= i < 1111111112, i.e. every multiple of 9 below 10^10.
// On a GPU the whole range is reduced and must give the published answer, 16695334890. On a CPU that takes about
// 35 s a run, so the clalgo and std:: benchmarks share a slice of 1% of the candidates (picked to hold some
// solutions, so its check means something); its answer is computed on the host.
#include "bench_support.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <numeric>

namespace {

using clalgo_bench::check;
using clalgo_bench::queue;

constexpr std::int64_t all_candidates = 1111111112;
constexpr std::int64_t published_answer = 16695334890;
/// i in [slice_begin, slice_end): m = 9i from 1,400,000,004 to 1,499,999,994, 1% of all candidates.
constexpr std::int64_t slice_begin = 155555556, slice_end = slice_begin + all_candidates / 100;

const char* const euler_preamble = R"CLC(
__constant long euler_power[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
__constant int euler_divisor[7] = {2, 3, 5, 7, 11, 13, 17};

/* m has at most ten decimal digits and, padded with zeros to ten, holds each of 0..9 once */
inline bool is_pandigital(long m)
{
    uint seen = 0;
    for (int d = 0; d < 10; ++d, m /= 10) {
        const uint bit = 1u << (uint)(m % 10);
        if (seen & bit)
            return false;
        seen |= bit;
    }
    return m == 0 && seen == 0x3FF;
}

/* the three digits starting at digit k + 2 (from the left of ten) divide by the k-th prime, k = 0..6 */
inline bool is_substring_divisible(long m)
{
    for (int k = 0; k < 7; ++k)
        if ((m / euler_power[k]) % 1000 % euler_divisor[k] != 0)
            return false;
    return true;
}
)CLC";

const char* const euler_map = "(is_pandigital(9*i) && is_substring_divisible(9*i)) ? 9*i : 0";

// the same predicates in C++, for the std:: baselines and the check of the slice
bool is_pandigital(std::int64_t m) {
    unsigned seen = 0;
    for (int d = 0; d < 10; ++d, m /= 10) {
        const unsigned bit = 1u << (m % 10);
        if (seen & bit) return false;
        seen |= bit;
    }
    return m == 0 && seen == 0x3FF;
}

bool is_substring_divisible(std::int64_t m) {
    static constexpr std::int64_t power[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
    static constexpr int divisor[7] = {2, 3, 5, 7, 11, 13, 17};
    for (int k = 0; k < 7; ++k)
        if ((m / power[k]) % 1000 % divisor[k] != 0) return false;
    return true;
}

std::int64_t euler_term(std::int64_t i) {
    const std::int64_t m = 9 * i;
    return is_pandigital(m) && is_substring_divisible(m) ? m : 0;
}

/// 0, 1, 2, ... as a random-access iterator, so that std::transform_reduce runs over an index range.
class CountingIterator {
public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::int64_t;
    using difference_type = std::int64_t;
    using pointer = const std::int64_t*;
    using reference = std::int64_t;

    explicit CountingIterator(std::int64_t value = 0) : value_(value) {}
    std::int64_t operator*() const { return value_; }
    std::int64_t operator[](difference_type k) const { return value_ + k; }
    CountingIterator& operator++() { ++value_; return *this; }
    CountingIterator operator++(int) { return CountingIterator(value_++); }
    CountingIterator& operator--() { --value_; return *this; }
    CountingIterator operator--(int) { return CountingIterator(value_--); }
    CountingIterator& operator+=(difference_type k) { value_ += k; return *this; }
    CountingIterator& operator-=(difference_type k) { value_ -= k; return *this; }
    friend CountingIterator operator+(CountingIterator it, difference_type k) { return it += k; }
    friend CountingIterator operator+(difference_type k, CountingIterator it) { return it += k; }
    friend CountingIterator operator-(CountingIterator it, difference_type k) { return it -= k; }
    friend difference_type operator-(CountingIterator a, CountingIterator b) { return a.value_ - b.value_; }
    friend bool operator==(CountingIterator a, CountingIterator b) { return a.value_ == b.value_; }
    friend bool operator!=(CountingIterator a, CountingIterator b) { return a.value_ != b.value_; }
    friend bool operator<(CountingIterator a, CountingIterator b) { return a.value_ < b.value_; }
    friend bool operator>(CountingIterator a, CountingIterator b) { return a.value_ > b.value_; }
    friend bool operator<=(CountingIterator a, CountingIterator b) { return a.value_ <= b.value_; }
    friend bool operator>=(CountingIterator a, CountingIterator b) { return a.value_ >= b.value_; }

private:
    std::int64_t value_;
};

std::int64_t slice_answer() {
    static const std::int64_t answer = std::transform_reduce(CountingIterator(slice_begin), CountingIterator(slice_end),
                                                             std::int64_t(0), std::plus<>(), euler_term);
    return answer;
}

const clalgo::ReductionKernel<std::int64_t>& euler_kernel() {
    static const clalgo::ReductionKernel<std::int64_t> kernel(clalgo_bench::context(), "0", "a+b", euler_map, "",
                                                              clalgo_bench::reduction_options("euler43", euler_preamble));
    return kernel;
}

void register_clalgo(const std::string& name, std::int64_t begin, std::int64_t end, bool whole_range) {
    clalgo_bench::register_device(name, [=](benchmark::State& state) {
        const std::int64_t expected = whole_range ? published_answer : slice_answer();
        const std::int64_t result = euler_kernel()(queue(), clalgo::range(begin, end));
        if (!check(state, result == expected,
                   "wrong answer " + std::to_string(result) + ", expected " + std::to_string(expected)))
            return;
        clalgo_bench::time_device(state, [&] { benchmark::DoNotOptimize(euler_kernel()(queue(), clalgo::range(begin, end))); });
        state.SetItemsProcessed(state.iterations() * (end - begin));
        state.SetLabel(whole_range ? "all candidates" : "1% slice i in [" + std::to_string(begin) + ", " +
                                                            std::to_string(end) + ")");
    });
}

/// `run` reduces the slice on the host.
template <class Run>
void register_std(const std::string& name, Run run) {
    clalgo_bench::register_host(name, [run](benchmark::State& state) {
        if (!check(state, run() == slice_answer(), "wrong answer")) return;
        for (auto _ : state) benchmark::DoNotOptimize(run());
        state.SetItemsProcessed(state.iterations() * (slice_end - slice_begin));
        state.SetLabel("1% slice i in [" + std::to_string(slice_begin) + ", " + std::to_string(slice_end) + ")");
    });
}

void register_all() {
    if (queue().info().is_gpu) register_clalgo("euler43/clalgo/all", 0, all_candidates, true);
    register_clalgo("euler43/clalgo/slice", slice_begin, slice_end, false);
    register_std("euler43/std_transform_reduce_seq/slice", [] {
        return std::transform_reduce(CountingIterator(slice_begin), CountingIterator(slice_end), std::int64_t(0),
                                     std::plus<>(), euler_term);
    });
#if CLALGO_BENCH_HAVE_TBB
    register_std("euler43/std_transform_reduce_par_unseq/slice", [] {
        return std::transform_reduce(std::execution::par_unseq, CountingIterator(slice_begin),
                                     CountingIterator(slice_end), std::int64_t(0), std::plus<>(), euler_term);
    });
#endif
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
