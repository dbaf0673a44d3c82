// An index range for kernels that need no input array: i = start, start + step, ... while i < stop
// (i > stop for a negative step), with 64-bit indices.
//   euler(q, clalgo::range(0, 1111111112));    saxpy(q, clalgo::range(0, n, 2), x, y);
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace clalgo {

/// The indices start, start + step, ... while below stop (above it for a negative step); see clalgo::range.
struct IndexRange {
    /// The first index.
    std::int64_t start = 0;
    /// The bound: no index reaches it.
    std::int64_t stop = 0;
    /// The step between indices (not 0).
    std::int64_t step = 1;

    /// How many indices the range holds. Computed in unsigned 64-bit arithmetic, so that start and stop may lie
    /// anywhere in the 64-bit range; throws std::invalid_argument for a step of 0 (the struct is public, so
    /// range()'s check can be bypassed) and std::overflow_error for more than 2^63 - 1 indices.
    std::int64_t size() const {
        if (step == 0) throw std::invalid_argument("clalgo::IndexRange: the step must not be 0");
        const bool up = step > 0;
        if (up ? stop <= start : start <= stop) return 0;
        const std::uint64_t span = up ? std::uint64_t(stop) - std::uint64_t(start) : std::uint64_t(start) - std::uint64_t(stop);
        const std::uint64_t stride = up ? std::uint64_t(step) : std::uint64_t(0) - std::uint64_t(step);
        const std::uint64_t count = (span - 1) / stride + 1;
        if (count > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            throw std::overflow_error("clalgo::IndexRange: more than 2^63 - 1 indices");
        return std::int64_t(count);
    }
};

/// An index range to pass among a kernel call's arguments instead of taking the size of its first array;
/// throws std::invalid_argument for a step of 0.
inline IndexRange range(std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
    if (step == 0) throw std::invalid_argument("clalgo::range: the step must not be 0");
    return IndexRange{start, stop, step};
}

}  // namespace clalgo
