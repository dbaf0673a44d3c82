// copy_if against std::copy_if: keep the even values of int32 data of which half are even, in order.
// Two device forms: into arrays allocated once (clalgo::copy_if(q, input, output, count, predicate): nothing is
// allocated per call, the form comparable with CUB's DeviceSelect::If, which writes into preallocated memory) and
// the allocating form (a new output of n elements and a new count each call).
// Two inputs: random values (the parity of each is a coin toss) and, suffixed "_alternating", the data of
// CUB's comparison (benchmarks/gpu/cub_compare.cu), (i * 2654435761) & 1023, whose parity alternates: a branch on it is always
// predicted right, which makes a sequential std::copy_if several times faster on a CPU than on random data.
// Bytes per run: the input read once and the kept values written once ((n + kept) x 4 bytes); the count and the
// scan's own scratch traffic are not counted. Items per run: n, the items tested.
// partition beside them (clalgo::partition, allocating, against std::partition_copy into two arrays): every item
// read once and written once (8n bytes).
#include "bench_support.hpp"

#include <algorithm>
#include <iterator>

namespace {

using clalgo_bench::check;
using clalgo_bench::queue;

const char* const keep_even = "(ary[i] & 1) == 0";
// a lambda, not a function: std::copy_if then inlines the test instead of calling through a pointer
const auto is_even = [](std::int32_t value) { return (value & 1) == 0; };

/// One input and what copy_if keeps of it: "" for random values, "_alternating" for cuda_peers' data.
struct Data {
    std::string suffix;
    const clalgo_bench::Input<std::int32_t>& (*input)(std::int64_t n);
};

const clalgo_bench::Input<std::int32_t>& random_input(std::int64_t n) {
    return clalgo_bench::input<std::int32_t>(n, 1);
}

const clalgo_bench::Input<std::int32_t>& alternating_input(std::int64_t n) {
    return clalgo_bench::cached_input<std::int32_t>(n, 0, [](std::size_t size) {
        std::vector<std::int32_t> values(size);
        for (std::size_t k = 0; k < size; ++k)
            values[k] = static_cast<std::int32_t>(std::uint32_t(k * 2654435761u) & 1023);
        return values;
    });
}

/// The even values of the input, in order (for the checks and the bytes count), kept for the last size asked.
const std::vector<std::int32_t>& expected(const Data& data, std::int64_t n) {
    static std::map<std::string, std::pair<std::int64_t, std::vector<std::int32_t>>> kept;
    auto& entry = kept[data.suffix];
    if (entry.first != n) {
        const auto& x = data.input(n).host;
        entry.second.clear();
        std::copy_if(x.begin(), x.end(), std::back_inserter(entry.second), is_even);
        entry.first = n;
    }
    return entry.second;
}

/// True where the device holds the expected count and, in front of `output`, the expected values.
bool is_kept(const Data& data, const clalgo::ArrayView<std::int32_t>& output, std::int64_t count, std::int64_t n) {
    const auto& want = expected(data, n);
    return count == static_cast<std::int64_t>(want.size()) && output.view(0, want.size()).to_host(queue()) == want;
}

/// Sets the per-run figures and a label saying how many items were kept.
void set_processed(benchmark::State& state, const Data& data, std::int64_t n) {
    const auto kept = static_cast<std::int64_t>(expected(data, n).size());
    clalgo_bench::set_processed(state, n, (n + kept) * 4);
    state.SetLabel("kept " + std::to_string(kept) + " of " + std::to_string(n));
}

void register_size(const Data& data, std::int64_t n, bool allocating_form) {
    const std::string size = "/" + std::to_string(n);

    const std::string into_name = "copy_if/clalgo_even_int32_into" + data.suffix + size;
    clalgo_bench::register_device(into_name, [data, n](benchmark::State& state) {
        const auto& x = data.input(n);
        const clalgo::Array<std::int32_t> output(queue(), n);
        const clalgo::Array<std::int64_t> count(queue(), 1);
        clalgo::copy_if(queue(), x.device, output, count, keep_even);
        if (!check(state, is_kept(data, output, count.read_at(queue(), 0), n), "wrong copy_if")) return;
        clalgo_bench::time_device(state, [&] { clalgo::copy_if(queue(), x.device, output, count, keep_even); });
        set_processed(state, data, n);
    });

    if (allocating_form) {
        const std::string name = "copy_if/clalgo_even_int32" + data.suffix + size;
        clalgo_bench::register_device(name, [data, n](benchmark::State& state) {
            const auto& x = data.input(n);
            {
                const auto selection = clalgo::copy_if(queue(), x.device, keep_even);
                if (!check(state, is_kept(data, selection.values, selection.count.get(queue()), n), "wrong copy_if"))
                    return;
            }
            const auto before = clalgo::MemoryPool::of(clalgo_bench::context()).statistics();
            clalgo_bench::time_device(state,
                                      [&] { benchmark::DoNotOptimize(clalgo::copy_if(queue(), x.device, keep_even)); });
            // the draws for the result and its count that found no reusable buffer: each costs an allocation
            const auto after = clalgo::MemoryPool::of(clalgo_bench::context()).statistics();
            const double draws = double(after.hits + after.misses - before.hits - before.misses);
            state.counters["pool_misses"] = draws > 0 ? double(after.misses - before.misses) / draws : 0.0;
            set_processed(state, data, n);
        });
    }

    clalgo_bench::register_device("copy_if/clalgo_partition_even_int32" + data.suffix + size, [data, n](benchmark::State& state) {
        const auto& x = data.input(n);
        {
            const auto parts = clalgo::partition(queue(), x.device, keep_even);
            std::vector<std::int32_t> odd;
            std::copy_if(x.host.begin(), x.host.end(), std::back_inserter(odd), [](std::int32_t v) { return !is_even(v); });
            if (!check(state, is_kept(data, parts.kept, parts.count.get(queue()), n) &&
                                  parts.rejected.view(0, odd.size()).to_host(queue()) == odd,
                       "wrong partition"))
                return;
        }
        clalgo_bench::time_device(state, [&] { benchmark::DoNotOptimize(clalgo::partition(queue(), x.device, keep_even)); });
        clalgo_bench::set_processed(state, n, n * 8);
        state.SetLabel("kept " + std::to_string(expected(data, n).size()) + " of " + std::to_string(n));
    });

    clalgo_bench::register_host("copy_if/std_partition_copy_seq" + data.suffix + size, [data, n](benchmark::State& state) {
        const auto& x = data.input(n).host;
        std::vector<std::int32_t> kept(n), rejected(n);
        clalgo_bench::time_host(state, [&] { return std::partition_copy(x.begin(), x.end(), kept.begin(), rejected.begin(), is_even); });
        clalgo_bench::set_processed(state, n, n * 8);
    });

    clalgo_bench::register_host("copy_if/std_copy_if_seq" + data.suffix + size, [data, n](benchmark::State& state) {
        const auto& x = data.input(n).host;
        std::vector<std::int32_t> output(n);
        clalgo_bench::time_host(state, [&] { return std::copy_if(x.begin(), x.end(), output.begin(), is_even); });
        set_processed(state, data, n);
    });

#if CLALGO_BENCH_HAVE_TBB
    clalgo_bench::register_host("copy_if/std_copy_if_par" + data.suffix + size, [data, n](benchmark::State& state) {
        const auto& x = data.input(n).host;
        std::vector<std::int32_t> output(n);
        clalgo_bench::time_host(state, [&] {
            return std::copy_if(std::execution::par, x.begin(), x.end(), output.begin(), is_even);
        });
        set_processed(state, data, n);
    });

    clalgo_bench::register_host("copy_if/std_partition_copy_par" + data.suffix + size, [data, n](benchmark::State& state) {
        const auto& x = data.input(n).host;
        std::vector<std::int32_t> kept(n), rejected(n);
        clalgo_bench::time_host(state, [&] {
            return std::partition_copy(std::execution::par, x.begin(), x.end(), kept.begin(), rejected.begin(), is_even);
        });
        clalgo_bench::set_processed(state, n, n * 8);
    });
#endif
}

void register_all() {
    const Data random{"", random_input}, alternating{"_alternating", alternating_input};
    for (std::int64_t n : clalgo_bench::sizes()) {
        register_size(random, n, true);
        register_size(alternating, n, false);
    }
}

}  // namespace

CLALGO_BENCHMARK_MAIN(register_all)
