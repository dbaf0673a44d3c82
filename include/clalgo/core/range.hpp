// An index range for kernels that need no input array: i = start, start + step, ... while i < stop
// (i > stop for a negative step), with 64-bit indices.
//   euler(q, clalgo::range(0, 1111111112));    saxpy(q, clalgo::range(0, n, 2), x, y);
#pragma once

#include <cstdint>
#include <stdexcept>

namespace clalgo {

/// The indices start, start + step, ... while below stop (above it for a negative step); see clalgo::range.
struct IndexRange {
    std::int64_t start = 0;
    std::int64_t stop = 0;
    std::int64_t step = 1;

    /// How many indices the range holds.
    std::int64_t size() const {
        if (step > 0) return stop > start ? (stop - start - 1) / step + 1 : 0;
        return start > stop ? (start - stop - 1) / -step + 1 : 0;
    }
};

/// An index range to pass among a kernel call's arguments instead of taking the size of its first array;
/// throws std::invalid_argument for a step of 0.
inline IndexRange range(std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
    if (step == 0) throw std::invalid_argument("clalgo::range: the step must not be 0");
    return IndexRange{start, stop, step};
}

}  // namespace clalgo
