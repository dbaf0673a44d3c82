// The names and options clalgo passes on to the OpenCL compiler and driver, each checked before it gets there:
// identifiers, kernel names (at most max_name_length characters: drivers name files after kernels) and build
// options (at most max_build_options_length). A refusal is a std::invalid_argument naming the call; long user
// text is quoted by its head only.
//   detail::check_kernel_name("clalgo::ReductionKernel", options.name);
//   detail::check_build_options("kernel 'reduce'", options);
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace clalgo::detail {

/// The longest name (of a kernel, an argument, a list) clalgo accepts. PoCL names its cache files after the
/// kernel and asserts on long ones; C99 promises 63 significant characters of an identifier.
inline constexpr std::size_t max_name_length = 200;

/// The longest build options clalgo passes to the compiler (CLALGO_BUILD_OPTIONS included).
inline constexpr std::size_t max_build_options_length = 32 * 1024;

inline bool is_identifier(const std::string& text) {
    if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
    return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

/// `text` for a message: whole where short, else its head and its length.
inline std::string quoted_head(const std::string& text, std::size_t at_most = 60) {
    if (text.size() <= at_most) return "'" + text + "'";
    return "'" + text.substr(0, at_most) + "...' (" + std::to_string(text.size()) + " characters)";
}

/// Throws std::invalid_argument where `name` is not an identifier of at most max_name_length characters; `call`
/// and `what` name the call and the name's role in the message ("clalgo::ReductionKernel", "kernel name").
inline void check_name(const std::string& call, const std::string& what, const std::string& name) {
    if (name.size() > max_name_length)
        throw std::invalid_argument(call + ": the " + what + " " + quoted_head(name) + " is longer than " +
                                    std::to_string(max_name_length) + " characters");
    if (!is_identifier(name)) throw std::invalid_argument(call + ": " + quoted_head(name) + " is not a " + what);
}

inline void check_kernel_name(const std::string& call, const std::string& name) { check_name(call, "kernel name", name); }

/// Throws std::invalid_argument where the build options of `kernel` are longer than max_build_options_length.
inline void check_build_options(const std::string& kernel, const std::string& options) {
    if (options.size() > max_build_options_length)
        throw std::invalid_argument("clalgo: " + kernel + ": the build options are " + std::to_string(options.size()) +
                                    " characters long (CLALGO_BUILD_OPTIONS included), more than the " +
                                    std::to_string(max_build_options_length) + " clalgo passes to a compiler");
}

}  // namespace clalgo::detail
