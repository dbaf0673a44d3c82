// The sort benchmarks' keys: n keys uniformly random over all their bits (splitmix64 from one fixed state), the
// same in bench_sort and gpu/sort_kernels (and cub_sort.cu's keys of 32 bits), so that their figures are of one
// input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace clalgo_bench {

template <class T>
std::vector<T> random_bits(std::size_t n) {
    std::vector<T> keys(n);
    std::uint64_t state = 0x5EED;
    for (auto& key : keys) {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        key = static_cast<T>(z ^ (z >> 31));
    }
    return keys;
}

}  // namespace clalgo_bench
