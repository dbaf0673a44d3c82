// What a kernel call checks of its arrays before anything is enqueued, beyond their types (check_arguments):
// that each array holds memory where the kernel runs over any index (an empty Array, or one moved from, holds
// none), that it belongs to the queue's context, and that each array the user's code indexes only with the
// launch index, as `name[i]`, holds every index the call runs over. Other arrays (lookup tables, outputs written
// at computed places) cannot be checked from the text and are not.
//   const auto indexed = detail::indexed_by_launch_index(declarations, {map_expr, reduce_expr});
//   detail::check_call_arrays("my_kernel", declarations, bound, indexed, queue, indices);
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/buffer_watch.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace clalgo::detail {

/// True where `code` declares a variable named i of its own (`int i`, `long i`, ...), which would hide the
/// launch index.
inline bool declares_own_i(const std::vector<std::string>& code) {
    auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (const std::string& text : code)
        for (std::size_t at = 0; at < text.size(); ++at) {
            if (text[at] != 'i' || (at > 0 && is_name_char(text[at - 1])) ||
                (at + 1 < text.size() && is_name_char(text[at + 1])))
                continue;
            std::size_t k = at;
            while (k > 0 && std::isspace(static_cast<unsigned char>(text[k - 1]))) --k;
            std::size_t begin = k;
            while (begin > 0 && is_name_char(text[begin - 1])) --begin;
            const std::string before = text.substr(begin, k - begin);
            for (const char* type : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "size_t",
                                     "unsigned", "signed", "float", "double"})
                if (before == type) return true;
        }
    return false;
}

/// True for each declared array whose every use in `code` is `name[i]` (spaces allowed inside the brackets),
/// and which is used at least once; all false where the code declares an `i` of its own.
inline std::vector<bool> indexed_by_launch_index(const std::vector<ArgumentDeclaration>& declarations,
                                                 const std::vector<std::string>& code) {
    std::vector<bool> indexed(declarations.size(), false);
    if (declares_own_i(code)) return indexed;
    auto is_name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t d = 0; d < declarations.size(); ++d) {
        if (!declarations[d].is_array) continue;
        const std::string& name = declarations[d].name;
        bool used = false, only_at_i = true;
        for (const std::string& text : code) {
            for (std::size_t at = text.find(name); at != std::string::npos && only_at_i; at = text.find(name, at + 1)) {
                const std::size_t end = at + name.size();
                if ((at > 0 && is_name_char(text[at - 1])) || (end < text.size() && is_name_char(text[end]))) continue;
                used = true;
                std::size_t k = end;
                auto skip_spaces = [&] {
                    while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
                };
                skip_spaces();
                if (k >= text.size() || text[k] != '[') { only_at_i = false; break; }
                ++k;
                skip_spaces();
                if (k >= text.size() || text[k] != 'i' || (k + 1 < text.size() && is_name_char(text[k + 1]))) {
                    only_at_i = false;
                    break;
                }
                ++k;
                skip_spaces();
                if (k >= text.size() || text[k] != ']') only_at_i = false;
            }
        }
        indexed[d] = used && only_at_i;
    }
    return indexed;
}

/// Whether `memory` (a buffer; null: no) belongs to another context than `queue`'s. A thread remembers the
/// buffers it found in a queue's context while they live (codegen/buffer_watch.hpp: a driver may give a destroyed
/// buffer's handle to a new one), so that a call with the arrays of the thread's last calls asks the driver nothing.
inline bool of_another_context(cl_mem memory, const Queue& queue) {
    if (memory == nullptr) return false;
    const cl_context context = queue.context().get()();
    struct Known {
        cl_mem memory = nullptr;
        cl_context context = nullptr;
        std::shared_ptr<const WatchedBuffer> watch;
    };
    thread_local std::array<Known, 16> known;
    // the handle's bits mixed (drivers align their objects, so low bits alone would share one slot)
    const std::uint64_t mixed = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(memory)) * 0x9e3779b97f4a7c15ull;
    Known& slot = known[mixed >> 60];
    if (slot.memory == memory && slot.context == context && slot.watch && slot.watch->alive()) return false;
    cl_context owner = nullptr;
    if (clGetMemObjectInfo(memory, CL_MEM_CONTEXT, sizeof(owner), &owner, nullptr) != CL_SUCCESS) return false;
    if (owner != context) return true;
    slot = Known{memory, context, watch_buffer(memory)};
    return false;
}

/// Throws std::invalid_argument naming the call (`call`: a kernel's name, or a function's such as "sum" or
/// "clalgo::segmented_reduce", whose other messages begin so) and its array argument `name` where that array
/// belongs to another context than the queue's. Nothing is built where it does not (a call's host cost counts at
/// small sizes).
inline void check_same_context(std::string_view call, const char* name, const cl::Buffer& buffer, const Queue& queue) {
    if (of_another_context(buffer(), queue))
        throw std::invalid_argument((call.substr(0, 8) == "clalgo::" ? "" : "clalgo: ") + std::string(call) + ": '" +
                                    name + "' belongs to another context than the queue's");
}

/// check_call_arrays' checks of one array argument (0-based `position`): `memory` its buffer, `size` its elements,
/// `cpp_type` what the caller passed (for messages), `at_i` whether the kernel reads or writes it at [i] for the
/// call's indices, n of them, from `lowest` to `highest`.
template <class CppType>
void check_call_array(const std::string& kernel, std::size_t position, const ArgumentDeclaration& declaration,
                      cl_mem memory, std::uint64_t size, const CppType& cpp_type, bool at_i, const Queue& queue,
                      std::int64_t n, std::int64_t lowest, std::int64_t highest, bool empty_allowed) {
    auto where = [&] {  // built only for a message: a call's host cost counts at small sizes
        return "clalgo: kernel '" + kernel + "', argument " + std::to_string(position + 1) + " '" + declaration.name +
               "': ";
    };
    if (!memory) {
        if (empty_allowed && !at_i) return;
        throw std::invalid_argument(where() + "the " + cpp_type() +
                                    " holds no memory (it is empty, or was moved from) but the call runs over " +
                                    std::to_string(n) + " indices");
    }
    if (of_another_context(memory, queue))
        throw std::invalid_argument(where() + "the array belongs to another context than the queue's");
    if (at_i && (lowest < 0 || static_cast<std::uint64_t>(highest) >= size))
        throw std::invalid_argument(where() + "the kernel reads or writes it at [i] for i in [" +
                                    std::to_string(lowest) + ", " + std::to_string(highest) + "] but it has " +
                                    std::to_string(size) + " elements");
}

/// Throws std::invalid_argument naming the kernel and the argument where an array of the call holds no memory
/// while there are indices to run over (unless `empty_allowed`: kernels the library composes, whose outputs may
/// have no room), belongs to another context than the queue's, or (where `indexed[k]`) is shorter than the
/// largest index of the call.
inline void check_call_arrays(const std::string& kernel, const std::vector<ArgumentDeclaration>& declarations,
                              const std::vector<BoundArgument>& arguments, const std::vector<bool>& indexed,
                              const Queue& queue, const IndexRange& indices, bool empty_allowed = false) {
    const std::int64_t n = indices.size();
    if (n == 0) return;
    // in unsigned arithmetic: the last index is representable, the product on the way may not be
    const std::int64_t last = static_cast<std::int64_t>(static_cast<std::uint64_t>(indices.start) +
                                                        static_cast<std::uint64_t>(n - 1) *
                                                            static_cast<std::uint64_t>(indices.step));
    const std::int64_t lowest = std::min(indices.start, last), highest = std::max(indices.start, last);
    for (std::size_t k = 0; k < arguments.size() && k < declarations.size(); ++k) {
        const BoundArgument& argument = arguments[k];
        if (!argument.is_array) continue;
        check_call_array(kernel, k, declarations[k], argument.buffer(), argument.size,
                         [&] { return argument.cpp_type(); }, k < indexed.size() && indexed[k], queue, n, lowest,
                         highest, empty_allowed);
    }
}

}  // namespace clalgo::detail
