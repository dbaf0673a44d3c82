// A representative scan and copy_if for Oclgrind's simulated device (tests/CMakeLists.txt runs this program under
// oclgrind once per scan algorithm, and says which checks each gets): an inclusive sum over about four tiles with
// its total, and a copy_if, with each scan algorithm named on the command line (all three by default), on small
// sizes. Results are checked against the CPU: a mismatch prints MISMATCH and the exit status counts them. Oclgrind
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
