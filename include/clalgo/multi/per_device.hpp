// What each device of a multi-device call receives, and the rule that keeps every device on its own memory.
// A SplitArray argument becomes the device's part and clalgo::share_start the first index of the device's share;
// other arguments pass as they are. A plain array (Array, ArrayView) that the kernel may write (declared without
// const) is refused where more than one device would run: OpenCL moves a whole buffer to each device that uses
// it, so one array written from several devices travels between them at every call.
//   clalgo::SplitArray<long> marked = clalgo::SplitArray<long>::with_part_sizes(devices, {chunk, chunk});
//   devices.run(mark, clalgo::range(0, n), marked, clalgo::share_start);  // "long *marked, long start"
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/range.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo {

template <class T>
class SplitArray;

/// Among the arguments of a multi-device call (or of an MPI call): each device's (rank's) own first index, passed
/// as a `long`. In a call over a range, the first index of the device's share of it; in a call over SplitArrays,
/// the index in the whole array of the first element of the device's part.
struct ShareStart {
    explicit constexpr ShareStart() = default;
};
inline constexpr ShareStart share_start{};

namespace detail {

/// The argument device `d`, whose share starts at `start`, receives in place of `argument`.
template <class A>
const A& part_of(const A& argument, std::size_t, std::int64_t) {
    return argument;
}
template <class T>
ArrayView<T> part_of(const SplitArray<T>& argument, std::size_t d, std::int64_t) {
    return argument.part(d);
}
inline cl_long part_of(const ShareStart&, std::size_t, std::int64_t start) {
    return static_cast<cl_long>(start);
}

template <class A>
struct IsSplitArray : std::false_type {};
template <class T>
struct IsSplitArray<SplitArray<T>> : std::true_type {};

/// Throws std::invalid_argument where `devices` (the count of devices that run) is 2 or more and a plain array
/// is passed for an array the kernel may write; see the header's first lines. `call` names the multi-device call,
/// `kernel` the kernel.
template <class... Args>
void refuse_shared_writes(const char* call, const std::string& kernel,
                          const std::vector<ArgumentDeclaration>& declarations, std::size_t devices,
                          const Args&... arguments) {
    if (devices < 2) return;
    std::size_t position = 0;
    auto one = [&](const auto& argument) {
        using U = std::decay_t<decltype(argument)>;
        if constexpr (!is_call_option_v<U>) {
            if constexpr (IsArray<U>::value) {
                if (position < declarations.size() && declarations[position].is_array &&
                    !declarations[position].is_const) {
                    const ArgumentDeclaration& declared = declarations[position];
                    throw std::invalid_argument(
                        std::string("clalgo::") + call + ": kernel '" + kernel + "', argument " +
                        std::to_string(position + 1) + " '" + declared.name + "' (" + declared.type_text() +
                        ") is one array that " + std::to_string(devices) +
                        " devices would write: OpenCL moves a whole buffer to each device that uses it, so it would "
                        "travel between the devices at every call, and their writes to it are undefined. Give each "
                        "device an array of its own: a clalgo::SplitArray (device d gets its part d; "
                        "clalgo::share_start passes each device the first index of its share), or declare the "
                        "argument const if the kernel only reads it");
                }
            }
            ++position;
        }
    };
    (one(arguments), ...);
    (void)one;
}

}  // namespace detail
}  // namespace clalgo
