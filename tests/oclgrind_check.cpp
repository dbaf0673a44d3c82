// Every generated kernel family on Oclgrind's simulated device, at sizes 1, 2, 255, 257 and 4097 (tile edges and
// a few tiles: Oclgrind is slow). tests/CMakeLists.txt runs this program under oclgrind once per mode, with the
// environment variables that force each path (the GPU paths too), and says which checks each run gets:
//   single_pass | reduce_then_scan | serial | chained
//                                             scans with totals and carry-ins, input fetches at -1 and +1 over
//                                             ascending and descending ranges, copy_if, remove_if, partition, unique
//                                             (over arrays and over index ranges), reduce_by_key and unique_by_key,
//                                             with that scan algorithm
//   map                                       ElementwiseKernel over arrays and descending ranges
//   reduction                                 ReductionKernel: the vector loads of a plain x[i], a general map
//   radix                                     sort, sort_by_key, descending and 64-bit keys, argsort
//                                             (CLALGO_SORT_ALGORITHM picks blocks or onesweep)
//   comparison                                sort and sort_by_key by a less expression (CLALGO_COMPARISON_SORT_CLASS
//                                             and CLALGO_COMPARISON_SORT_TILE pick tile sort or merge passes)
//   segments                                  histogram, segmented_reduce (CLALGO_*_GROUP_SIZE pick the CPU or the
//                                             GPU path)
//   lists                                     ListOfListsBuilder
//   by_key_tile                               reduce_by_key by its tile kernel (CLALGO_REDUCE_BY_KEY=tile), twice
// Results are checked against the CPU: a mismatch prints MISMATCH and the exit status counts them. Oclgrind itself
// reports races, uses of uninitialised values, out-of-bounds accesses and API misuse on stderr; the ctest tests
// fail on those too.
//   oclgrind --data-races --uninitialized --check-api ./oclgrind_check serial
#include <clalgo/clalgo.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
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

std::vector<std::int64_t> sizes = {1, 2, 255, 257, 4097};

std::vector<std::int32_t> random_ints(std::size_t n, int low, int high, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> dist(low, high);
    std::vector<std::int32_t> values(n);
    for (auto& v : values) v = dist(engine);
    return values;
}

// ---- scans and everything on them ----

void scans(const clalgo::Queue& queue, clalgo::ScanAlgorithm algorithm, const std::string& label) {
    const clalgo::Context& context = queue.context();
    clalgo::ScanOptions options;
    options.algorithm = algorithm;
    options.name = "oclgrind_sum";
    const clalgo::GenericScanKernel<std::int32_t> sum(context, "const int *x, int *out", "x[i]", "a+b", "0",
                                                      "out[i] = item", options);
    options.name = "oclgrind_fetch_before";
    options.input_fetch_exprs = {{"before", "x", -1}};
    const clalgo::GenericScanKernel<std::int32_t> fetch_before(context, "const int *x, int *out", "x[i] - before",
                                                               "a+b", "0", "out[i] = item", options);
    options.name = "oclgrind_fetch_after";
    options.input_fetch_exprs = {{"after", "x", 1}};
    const clalgo::GenericScanKernel<std::int32_t> fetch_after(context, "const int *x, int *out", "after - x[i]", "a+b",
                                                              "0", "out[i] = item", options);
    clalgo::SelectionOptions selection;
    selection.algorithm = algorithm;

    for (const std::int64_t n : sizes) {
        const std::string at = label + " n=" + std::to_string(n) + ": ";
        const auto host = random_ints(static_cast<std::size_t>(n), -50, 100, 7 + n);
        const auto input = clalgo::to_device(queue, host);
        clalgo::Array<std::int32_t> out(queue, host.size()), total(queue, 1);

        std::vector<std::int32_t> expected(host.size());
        std::partial_sum(host.begin(), host.end(), expected.begin());
        sum.with_total(queue, total, input, out);
        check(out.to_host(queue) == expected, at + "inclusive sum");
        check(total.read_at(queue, 0) == expected.back(), at + "total");

        // a carry-in from the host, in the call's struct (one from a device array is copied into the scratch buffer
        // by clEnqueueCopyBuffer, which Oclgrind's --uninitialized does not track: test_scan checks that one)
        std::vector<std::int32_t> carried(expected);
        for (auto& v : carried) v += -1000;
        sum.with_carry_and_total(queue, -1000, total, input, out);
        check(out.to_host(queue) == carried && total.read_at(queue, 0) == carried.back(), at + "host carry-in");

        // input fetches at -1 and +1, ascending and descending: never outside the array
        for (const bool descending : {false, true}) {
            const clalgo::IndexRange indices = descending ? clalgo::range(n - 1, -1, -1) : clalgo::range(0, n);
            for (const int offset : {-1, 1}) {
                (offset < 0 ? fetch_before : fetch_after)(queue, indices, input, out);
                std::vector<std::int32_t> wanted(host.size());
                std::int32_t running = 0;
                for (std::int64_t k = 0; k < n; ++k) {
                    const std::int64_t i = descending ? n - 1 - k : k;
                    // the fetch at a position outside the call's indices gives the item itself
                    const std::int64_t neighbour = std::clamp<std::int64_t>(i + offset, 0, n - 1);
                    running += offset < 0 ? host[i] - host[neighbour] : host[neighbour] - host[i];
                    wanted[i] = running;
                }
                check(out.to_host(queue) == wanted, at + "input fetch at " + std::to_string(offset) +
                                                       (descending ? " descending" : " ascending"));
            }
        }

        // selections over arrays
        const auto keep = [](std::int32_t v) { return v % 3 == 0; };
        std::vector<std::int32_t> kept, rejected, distinct;
        for (auto v : host) (keep(v) ? kept : rejected).push_back(v);
        auto copied = clalgo::copy_if(queue, input.view(), "ary[i] % 3 == 0", selection);
        const std::int64_t copied_count = copied.count.get(queue);
        check(copied_count == static_cast<std::int64_t>(kept.size()) &&
                  copied.values.view(0, copied_count).to_host(queue) == kept,
              at + "copy_if");
        auto removed = clalgo::remove_if(queue, input.view(), "ary[i] % 3 == 0", selection);
        const std::int64_t removed_count = removed.count.get(queue);
        check(removed_count == static_cast<std::int64_t>(rejected.size()) &&
                  removed.values.view(0, removed_count).to_host(queue) == rejected,
              at + "remove_if");
        auto parts = clalgo::partition(queue, input.view(), "ary[i] % 3 == 0", selection);
        const std::int64_t part_count = parts.count.get(queue);
        check(part_count == static_cast<std::int64_t>(kept.size()) &&
                  parts.kept.view(0, part_count).to_host(queue) == kept &&
                  parts.rejected.view(0, n - part_count).to_host(queue) == rejected,
              at + "partition");
        std::vector<std::int32_t> runs_host(host.size());
        for (std::size_t k = 0; k < runs_host.size(); ++k) runs_host[k] = static_cast<std::int32_t>(k / (1 + k % 4));
        std::unique_copy(runs_host.begin(), runs_host.end(), std::back_inserter(distinct));
        const auto runs_input = clalgo::to_device(queue, runs_host);
        auto uniques = clalgo::unique(queue, runs_input.view(), "a == b", selection);
        const std::int64_t unique_count = uniques.count.get(queue);
        check(unique_count == static_cast<std::int64_t>(distinct.size()) &&
                  uniques.values.view(0, unique_count).to_host(queue) == distinct,
              at + "unique");

        // a selection over an index range
        auto indices = clalgo::copy_if(queue, clalgo::range(0, n), "i % 5 == 1", selection);
        std::vector<std::int64_t> wanted_indices;
        for (std::int64_t i = 0; i < n; ++i)
            if (i % 5 == 1) wanted_indices.push_back(i);
        const std::int64_t index_count = indices.count.get(queue);
        check(index_count == static_cast<std::int64_t>(wanted_indices.size()) &&
                  (index_count == 0 || indices.values.view(0, index_count).to_host(queue) == wanted_indices),
              at + "copy_if over a range");

        // reduce_by_key and unique_by_key (the by-key kernel) on runs of 1 to 9 keys
        std::vector<std::int32_t> keys(host.size());
        for (std::size_t k = 0, key = 0; k < keys.size(); ++key)
            for (std::size_t r = 0; r < 1 + key % 9 && k < keys.size(); ++r) keys[k++] = static_cast<std::int32_t>(key);
        const auto device_keys = clalgo::to_device(queue, keys);
        for (const bool fold : {true, false}) {
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
            check(found == static_cast<std::int64_t>(expected_keys.size()) &&
                      keys_out.view(0, found).to_host(queue) == expected_keys &&
                      values_out.view(0, found).to_host(queue) == expected_values,
                  at + (fold ? "reduce_by_key" : "unique_by_key"));
        }
    }
}

// ---- maps and reductions ----

void maps(const clalgo::Queue& queue) {
    const clalgo::ElementwiseKernel affine(queue.context(), "const int *x, int *y", "y[i] = 3 * x[i] - 1");
    for (const std::int64_t n : sizes) {
        const std::string at = "n=" + std::to_string(n) + ": ";
        const auto host = random_ints(static_cast<std::size_t>(n), -50, 100, 11 + n);
        const auto x = clalgo::to_device(queue, host);
        clalgo::Array<std::int32_t> y(queue, host.size());
        affine(queue, x, y);
        std::vector<std::int32_t> wanted(host.size());
        for (std::size_t k = 0; k < host.size(); ++k) wanted[k] = 3 * host[k] - 1;
        check(y.to_host(queue) == wanted, at + "elementwise");
        affine(queue, clalgo::range(n - 1, -1, -2), x, y);  // every other index, downwards: the same values
        check(y.to_host(queue) == wanted, at + "elementwise over a descending range");
        // arrays made and released between calls: a new buffer may come at a released one's handle, and the
        // kernel, which kept its last buffers as arguments, must be given it again (Oclgrind resolves a buffer
        // argument when it is set)
        for (int round = 1; round <= 3; ++round) {
            std::vector<std::int32_t> shifted(host.size()), shifted_wanted(host.size());
            for (std::size_t k = 0; k < host.size(); ++k) {
                shifted[k] = host[k] + round;
                shifted_wanted[k] = 3 * shifted[k] - 1;
            }
            const auto fresh = clalgo::to_device(queue, shifted);
            clalgo::Array<std::int32_t> out(queue, host.size());
            affine(queue, fresh, out);
            check(out.to_host(queue) == shifted_wanted, at + "elementwise on arrays made after others were released");
        }
    }
}

void reductions(const clalgo::Queue& queue) {
    const clalgo::Context& context = queue.context();
    clalgo::ReductionOptions options;
    options.name = "oclgrind_sum";
    const clalgo::ReductionKernel<std::int64_t> plain(context, "0", "a+b", "x[i]", "const long *x", options);
    options.name = "oclgrind_dot";
    const clalgo::ReductionKernel<std::int64_t> dot(context, "0", "a+b", "x[i] * x[n - 1 - i]", "const long *x", options);
    options.name = "oclgrind_float_sum";
    const clalgo::ReductionKernel<float> floats(context, "0", "a+b", "", "const float *f", options);
    for (const std::int64_t n : sizes) {
        const std::string at = "n=" + std::to_string(n) + ": ";
        const auto host = random_ints(static_cast<std::size_t>(n), -50, 100, 11 + n);
        const std::vector<std::int64_t> wide(host.begin(), host.end());
        const auto device_wide = clalgo::to_device(queue, wide);
        check(plain(queue, device_wide) == std::accumulate(wide.begin(), wide.end(), std::int64_t(0)), at + "plain sum");
        check(plain(queue, device_wide.view(1, n - 1)) == std::accumulate(wide.begin() + 1, wide.end(), std::int64_t(0)),
              at + "plain sum of an unaligned view");
        std::int64_t wanted_dot = 0;
        for (std::int64_t k = 0; k < n; ++k) wanted_dot += wide[k] * wide[n - 1 - k];
        check(dot(queue, device_wide) == wanted_dot, at + "dot with its reverse");
        const std::vector<float> small(host.begin(), host.end());  // whole numbers: sums are exact
        check(floats(queue, clalgo::to_device(queue, small)) == std::accumulate(small.begin(), small.end(), 0.0f),
              at + "float sum");
    }
}

// ---- sorts ----

void radix(const clalgo::Queue& queue) {
    for (const std::int64_t n : sizes) {
        const std::string at = "n=" + std::to_string(n) + ": ";
        const auto host = random_ints(static_cast<std::size_t>(n), 0, 1 << 30, 13 + n);
        const std::vector<std::uint32_t> keys(host.begin(), host.end());
        std::vector<std::uint32_t> sorted = keys;
        std::stable_sort(sorted.begin(), sorted.end());

        auto device_keys = clalgo::to_device(queue, keys);
        clalgo::sort(queue, device_keys.view());
        check(device_keys.to_host(queue) == sorted, at + "sort uint32");

        device_keys.write(queue, keys);
        std::vector<std::int32_t> values(keys.size());
        std::iota(values.begin(), values.end(), 0);
        auto device_values = clalgo::to_device(queue, values);
        clalgo::sort_by_key(queue, device_keys.view(), device_values.view());
        std::vector<std::int32_t> order = values;
        std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return keys[a] < keys[b]; });
        check(device_keys.to_host(queue) == sorted && device_values.to_host(queue) == order, at + "sort_by_key");

        clalgo::SortOptions descending;
        descending.descending = true;
        device_keys.write(queue, keys);
        clalgo::sort(queue, device_keys.view(), descending);
        check(device_keys.to_host(queue) == std::vector<std::uint32_t>(sorted.rbegin(), sorted.rend()), at + "descending");

        std::vector<std::int64_t> wide(keys.size());
        for (std::size_t k = 0; k < wide.size(); ++k) wide[k] = (static_cast<std::int64_t>(host[k]) - (1 << 29)) * 977;
        auto device_wide = clalgo::to_device(queue, wide);
        const auto by_order = clalgo::argsort(queue, device_wide.view());
        std::vector<std::int64_t> wanted(wide.size());
        std::iota(wanted.begin(), wanted.end(), 0);
        std::stable_sort(wanted.begin(), wanted.end(), [&](std::int64_t a, std::int64_t b) { return wide[a] < wide[b]; });
        check(by_order.to_host(queue) == wanted, at + "argsort int64");
    }
}

void comparison(const clalgo::Queue& queue) {
    for (const std::int64_t n : sizes) {
        const std::string at = "n=" + std::to_string(n) + ": ";
        const auto host = random_ints(static_cast<std::size_t>(n), -1000, 1000, 17 + n);
        std::vector<std::int32_t> sorted = host;
        std::stable_sort(sorted.begin(), sorted.end(), std::greater<>());
        auto values = clalgo::to_device(queue, host);
        clalgo::sort(queue, values.view(), "a > b");
        check(values.to_host(queue) == sorted, at + "sort by a > b");

        values.write(queue, host);
        std::vector<std::int32_t> positions(host.size());
        std::iota(positions.begin(), positions.end(), 0);
        auto device_positions = clalgo::to_device(queue, positions);
        clalgo::sort_by_key(queue, values.view(), device_positions.view(), "a / 10 < b / 10");  // many ties: stable
        std::stable_sort(positions.begin(), positions.end(),
                         [&](std::int32_t a, std::int32_t b) { return host[a] / 10 < host[b] / 10; });
        check(device_positions.to_host(queue) == positions, at + "sort_by_key by a / 10 < b / 10");
    }
}

// ---- histograms, segments, lists ----

void segments(const clalgo::Queue& queue) {
    for (const std::int64_t n : sizes) {
        const std::string at = "n=" + std::to_string(n) + ": ";
        const auto host = random_ints(static_cast<std::size_t>(n), -5, 105, 19 + n);
        const auto values = clalgo::to_device(queue, host);

        clalgo::Array<std::uint32_t> bins(queue, 10);
        clalgo::histogram(queue, values.view(), bins.view(), {0, 100});
        std::vector<std::uint32_t> wanted_bins(10, 0);
        for (auto v : host)
            if (v >= 0 && v < 100) ++wanted_bins[v / 10];
        check(bins.to_host(queue) == wanted_bins, at + "histogram");

        std::vector<std::int64_t> offsets{0};
        for (std::size_t s = 0; offsets.back() < n; ++s)
            offsets.push_back(std::min<std::int64_t>(offsets.back() + static_cast<std::int64_t>(s * 37 % 301), n));
        clalgo::Array<std::int32_t> sums(queue, offsets.size() - 1);
        clalgo::segmented_reduce(queue, values.view(), clalgo::to_device(queue, offsets).view(), sums.view(), "a+b", "0");
        std::vector<std::int32_t> wanted_sums(offsets.size() - 1);
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
            wanted_sums[s] = std::accumulate(host.begin() + offsets[s], host.begin() + offsets[s + 1], 0);
        check(sums.to_host(queue) == wanted_sums, at + "segmented_reduce");

    }
}

void lists(const clalgo::Queue& queue) {
    const clalgo::ListOfListsBuilder builder(queue.context(), {{"multiples", "long"}},
                                             "for (long m = 2 * i; m < n; m += i + 1) APPEND_multiples(m);", "");
    for (const std::int64_t n : sizes) {
        const std::string at = "n=" + std::to_string(n) + ": ";
        const auto lists = builder(queue, clalgo::range(0, n));
        const auto multiples = lists.get<std::int64_t>("multiples");
        std::vector<std::int64_t> wanted_items, wanted_offsets{0};
        for (std::int64_t i = 0; i < n; ++i) {
            for (std::int64_t m = 2 * i; m < n; m += i + 1) wanted_items.push_back(m);
            wanted_offsets.push_back(static_cast<std::int64_t>(wanted_items.size()));
        }
        check(multiples.count == static_cast<std::int64_t>(wanted_items.size()) &&
                  multiples.offsets.to_host(queue) == wanted_offsets &&
                  (multiples.count == 0 || multiples.items.view(0, multiples.count).to_host(queue) == wanted_items),
              at + "list builder");
    }
}

// ---- reduce_by_key's tile kernel (CLALGO_REDUCE_BY_KEY=tile) ----

void by_key_tile(const clalgo::Queue& queue) {
    for (const std::int64_t n : sizes) {
        const std::string at = "n=" + std::to_string(n) + ": ";
        const auto values = random_ints(static_cast<std::size_t>(n), -50, 50, 11);
        std::vector<std::int32_t> keys(values.size());
        for (std::size_t k = 0, key = 0; k < keys.size(); ++key)
            for (std::size_t r = 0; r < 1 + key % 9 && k < keys.size(); ++r) keys[k++] = static_cast<std::int32_t>(key);
        std::vector<std::int32_t> expected_keys, expected_sums;
        for (std::size_t k = 0; k < keys.size(); ++k) {
            if (k == 0 || keys[k] != keys[k - 1]) {
                expected_keys.push_back(keys[k]);
                expected_sums.push_back(values[k]);
            } else {
                expected_sums.back() += values[k];
            }
        }
        const auto device_keys = clalgo::to_device(queue, keys);
        const auto device_values = clalgo::to_device(queue, values);
        for (int call = 0; call < 2; ++call) {  // the second reads look-back words of the first call's epoch
            auto result = clalgo::reduce_by_key(queue, device_keys, device_values, "a+b", "0");
            const std::int64_t found = result.count.get(queue);
            check(found == static_cast<std::int64_t>(expected_keys.size()) &&
                      result.keys.view(0, found).to_host(queue) == expected_keys &&
                      result.values.view(0, found).to_host(queue) == expected_sums,
                  at + "reduce_by_key by the tile kernel");
        }
    }
}

const std::map<std::string, clalgo::ScanAlgorithm> scan_modes = {{"single_pass", clalgo::ScanAlgorithm::single_pass},
                                                                 {"reduce_then_scan", clalgo::ScanAlgorithm::reduce_then_scan},
                                                                 {"serial", clalgo::ScanAlgorithm::serial},
                                                                 {"chained", clalgo::ScanAlgorithm::chained}};

}  // namespace

int main(int argc, char** argv) {
    const std::map<std::string, std::function<void(const clalgo::Queue&)>> modes = {
        {"map", maps},         {"reduction", reductions}, {"radix", radix},
        {"comparison", comparison}, {"segments", segments}, {"lists", lists},
        {"by_key_tile", by_key_tile}};
    const std::string mode = argc >= 2 ? argv[1] : "";
    if (!scan_modes.count(mode) && !modes.count(mode)) {
        std::cerr << "usage: oclgrind_check single_pass | reduce_then_scan | serial | chained | map | reduction | radix | comparison | segments | lists | by_key_tile"
                     " [size]...\n";
        return 2;
    }
    if (argc > 2) sizes.clear();
    for (int a = 2; a < argc; ++a) sizes.push_back(std::stoll(argv[a]));
    try {
        // A context of our own, released before main returns, rather than Context::default_context(), which lives
        // until exit: Oclgrind 21.10's runtime destroys its thread-local state before the exit handlers run, so
        // releasing OpenCL objects from them writes to freed memory ("corrupted double-linked list", whatever
        // plugins are on). Under oclgrind its simulator is the only device.
        const std::vector<std::int64_t> all = sizes;
        for (const std::int64_t n : all) {
            sizes = {n};
            const clalgo::Context context(clalgo::detail::default_device());
            const clalgo::Queue queue(context);
            std::cout << "device: " << context.info().description() << "\n" << mode << " n=" << n << std::endl;
            if (scan_modes.count(mode)) scans(queue, scan_modes.at(mode), mode);
            else modes.at(mode)(queue);
        }
    } catch (const std::exception& error) {
        std::cerr << "error: " << error.what() << "\n";
        return 1;
    }
    std::cout << (mismatches ? "FAILED" : "passed") << "\n";
    return mismatches;
}
