// The argument checks shared by the one-call array algorithms (reductions.hpp, subset_reductions.hpp,
// transforms.hpp): sizes that must agree, and one-element results of the queue's context, each refused with
// std::invalid_argument naming the call and the argument; index arrays of 32- or 64-bit integers, at compile time.
//   detail::require_same_size("dot", "y", y.size(), "x", x.size());  // "clalgo: dot: y has 5 elements but x has 6"
//   detail::require_result("sum", result, queue);  // "clalgo: sum: 'result' belongs to another context than ..."
#pragma once

#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/queue.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace clalgo::detail {

inline void require_same_size(const char* call, const char* name, std::size_t size, const char* other_name,
                              std::size_t other_size) {
    if (size != other_size)
        throw std::invalid_argument(std::string("clalgo: ") + call + ": " + name + " has " + std::to_string(size) +
                                    " elements but " + other_name + " has " + std::to_string(other_size));
}

inline void require_one_element(const char* call, std::size_t size) {
    if (size != 1)
        throw std::invalid_argument(std::string("clalgo: ") + call + ": result has " + std::to_string(size) +
                                    " elements but must have exactly one");
}

/// A device result: one element, in the queue's context.
template <class T>
void require_result(const char* call, const ArrayView<T>& result, const Queue& queue) {
    require_one_element(call, result.size());
    check_same_context(call, "result", result.buffer(), queue);
}

template <class Index>
constexpr void require_index() {
    static_assert(std::is_integral_v<Index> && !std::is_same_v<Index, bool> && sizeof(Index) >= 4,
                  "clalgo: indices are 32- or 64-bit integers");
}

}  // namespace clalgo::detail
