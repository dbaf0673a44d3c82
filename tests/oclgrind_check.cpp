// Representative scans for Oclgrind's simulated device (tests/CMakeLists.txt runs this program under oclgrind
// once per scan algorithm, and says which checks each gets): an inclusive sum over about four tiles with its total,
// a copy_if, a scan over a descending range with an input fetch at offset -1, reduce_by_key and unique_by_key, with
// each scan algorithm named on the command line (all three by default), on small sizes; and, in the process of the
// serial algorithm alone, segmented_reduce. Results are checked against the CPU: a mismatch prints MISMATCH and the exit status counts them. Oclgrind
// itself reports races, uses of uninitialised values, out-of-bounds accesses and API misuse on stderr; the ctest
// tests fail on those too.
//   oclgrind --data-races --uninitialized --check-api ./oclgrind_check reduce_then_scan serial
#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

int mismatches = 0;

void check(bool ok, const std::string& what) {
    if (!ok) {
        std::cerr << "MISMATCH: " << what << "\n";
        ++mismatches;
    }
}

const clalgo::ScanAlgorithm every_algorithm[] = {clalgo::ScanAlgorithm::single_pass,
                                                 clalgo::ScanAlgorithm::reduce_then_scan, clalgo::ScanAlgorithm::serial};

const char* name_of(clalgo::ScanAlgorithm algorithm) {
    switch (algorithm) {
        case clalgo::ScanAlgorithm::single_pass: return "single_pass";
        case clalgo::ScanAlgorithm::reduce_then_scan: return "reduce_then_scan";
        case clalgo::ScanAlgorithm::serial: return "serial";
        default: return "automatic";
    }
}

void run(const clalgo::Context& context, const std::vector<clalgo::ScanAlgorithm>& algorithms) {
    const clalgo::Queue queue(context);
    std::cout << "device: " << context.info().description() << "\n";

    std::mt19937_64 engine(7);
    std::uniform_int_distribution<int> dist(-50, 100);
    std::vector<std::int32_t> host(1000);  // about four tiles of 256 on a CPU-like device
    for (auto& v : host) v = dist(engine);
    const auto input = clalgo::to_device(queue, host);

    std::vector<std::int32_t> expected_sums(host.size());
    std::partial_sum(host.begin(), host.end(), expected_sums.begin());
    const std::size_t selected = 700;
    std::vector<std::int32_t> expected_kept;
    std::copy_if(host.begin(), host.begin() + selected, std::back_inserter(expected_kept),
                 [](std::int32_t v) { return v % 3 == 0; });

    for (auto algorithm : algorithms) {
        const std::string label = name_of(algorithm);
        std::cout << label << "\n";
        clalgo::ScanOptions options;
        options.name = "oclgrind_sum";
        options.algorithm = algorithm;
        clalgo::GenericScanKernel<std::int32_t> sum(context, "const int *x, int *out", "x[i]", "a+b", "0",
                                                    "out[i] = item", options);
        clalgo::Array<std::int32_t> out(queue, host.size()), total(queue, 1);
        sum.with_total(queue, total, input, out);
        check(out.to_host(queue) == expected_sums, label + ": inclusive sum");
        check(total.read_at(queue, 0) == expected_sums.back(), label + ": total");

        clalgo::SelectionOptions selection;
        selection.algorithm = algorithm;
        auto [kept, count] = clalgo::copy_if(queue, input.view(0, selected), "ary[i] % 3 == 0", selection);
        const std::int64_t how_many = count.get(queue);
        check(how_many == static_cast<std::int64_t>(expected_kept.size()), label + ": copy_if count");
        if (how_many == static_cast<std::int64_t>(expected_kept.size()))
            check(kept.view(0, expected_kept.size()).to_host(queue) == expected_kept, label + ": copy_if values");

        // an input fetch at offset -1 over a descending range: at i = 0 it must not read x[-1]
        options.name = "oclgrind_descending";
        options.input_fetch_exprs = {{"before", "x", -1}};
        clalgo::GenericScanKernel<std::int32_t> descending(context, "const int *x, int *out", "x[i] - before", "a+b",
                                                           "0", "out[i] = item", options);
        const std::int64_t n = static_cast<std::int64_t>(host.size());
        descending(queue, clalgo::range(n - 1, -1, -1), input, out);
        std::vector<std::int32_t> expected_descending(host.size());
        std::int32_t running = 0;
        for (std::int64_t i = n - 1; i >= 0; --i)
            expected_descending[i] = running += host[i] - host[i > 0 ? i - 1 : i];
        check(out.to_host(queue) == expected_descending, label + ": descending input fetch");

        // reduce_by_key and unique_by_key (the by-key kernel) on runs of 1 to 9 keys
        std::vector<std::int32_t> keys(host.size());
        for (std::size_t k = 0, key = 0; k < keys.size(); ++key)
            for (std::size_t r = 0; r < 1 + key % 9 && k < keys.size(); ++r) keys[k++] = static_cast<std::int32_t>(key);
        const auto device_keys = clalgo::to_device(queue, keys);
        for (bool fold : {true, false}) {
            clalgo::detail::ByKeySpec spec;
            spec.name = fold ? "oclgrind_reduce_by_key" : "oclgrind_unique_by_key";
            spec.key_type = "int";
            spec.value_type = "int";
            spec.fold = fold;
            spec.reduce_expr = "a+b";
            spec.neutral = "0";
            spec.algorithm = algorithm;
            const clalgo::detail::ByKeyKernel<cl_uint, std::int32_t> by_key(context, spec);
            clalgo::Array<std::int32_t> keys_out(queue, host.size()), values_out(queue, host.size());
            clalgo::Array<std::int64_t> runs(queue, 1);
            by_key.enqueue(queue, device_keys.view(), input.view(), keys_out.view(), values_out.view(), runs.view());
            std::vector<std::int32_t> expected_keys, expected_values;
            for (std::size_t k = 0; k < keys.size(); ++k) {
                if (k == 0 || keys[k] != keys[k - 1]) {
                    expected_keys.push_back(keys[k]);
                    expected_values.push_back(host[k]);
                } else if (fold) {
                    expected_values.back() += host[k];
                }
            }
            const std::int64_t found = runs.read_at(queue, 0);
            check(found == static_cast<std::int64_t>(expected_keys.size()), label + ": by key, runs");
            if (found == static_cast<std::int64_t>(expected_keys.size())) {
                check(keys_out.view(0, found).to_host(queue) == expected_keys, label + ": by key, keys");
                check(values_out.view(0, found).to_host(queue) == expected_values, label + ": by key, values");
            }
        }
    }

    // segmented_reduce over segments of 0 to 30 items (no scan: once per process is enough)
    if (algorithms.size() == 1 && algorithms[0] == clalgo::ScanAlgorithm::serial) {
        std::vector<std::int64_t> offsets{0};
        for (std::size_t s = 0; offsets.back() < static_cast<std::int64_t>(host.size()); ++s)
            offsets.push_back(std::min<std::int64_t>(offsets.back() + static_cast<std::int64_t>(s * 7 % 31),
                                                     static_cast<std::int64_t>(host.size())));
        clalgo::Array<std::int32_t> sums(queue, offsets.size() - 1);
        clalgo::segmented_reduce(queue, input.view(), clalgo::to_device(queue, offsets).view(), sums.view(), "a+b", "0");
        std::vector<std::int32_t> expected(offsets.size() - 1);
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
            expected[s] = std::accumulate(host.begin() + offsets[s], host.begin() + offsets[s + 1], 0);
        check(sums.to_host(queue) == expected, "segmented_reduce");
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<clalgo::ScanAlgorithm> algorithms;
    for (int a = 1; a < argc; ++a) {
        const auto named = std::find_if(std::begin(every_algorithm), std::end(every_algorithm),
                                        [&](clalgo::ScanAlgorithm algorithm) { return argv[a] == std::string(name_of(algorithm)); });
        if (named == std::end(every_algorithm)) {
            std::cerr << "usage: oclgrind_check [single_pass | reduce_then_scan | serial]...\n";
            return 2;
        }
        algorithms.push_back(*named);
    }
    if (algorithms.empty()) algorithms.assign(std::begin(every_algorithm), std::end(every_algorithm));

    try {
        // A context of our own, released before main returns, rather than Context::default_context(), which lives
        // until exit: Oclgrind 21.10's runtime destroys its thread-local state before the exit handlers run, so
        // releasing OpenCL objects from them writes to freed memory ("corrupted double-linked list", whatever
        // plugins are on). Under oclgrind its simulator is the only device.
        const clalgo::Context context(clalgo::detail::default_device());
        run(context, algorithms);
    } catch (const std::exception& error) {
        std::cerr << "error: " << error.what() << "\n";
        return 1;
    }
    std::cout << (mismatches ? "FAILED" : "passed") << "\n";
    return mismatches;
}
