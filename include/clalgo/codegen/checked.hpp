// Checked mode (CLALGO_CHECKED=1, or a kernel's `checked` option): the generated kernel bounds-checks every access
// `name[index]` that the user's code makes to a declared array. The access is rewritten into
// `clalgo_at_name(index)`, a macro over a function that compares the index with the array's length (a hidden
// argument after the user's) and, out of bounds, records the first violation in a small buffer (which argument,
// which index) and points the access at a scratch slot of that buffer instead. The call reads the buffer after its
// launches (so a checked call blocks) and throws OutOfBoundsError naming the kernel, the argument, the index and
// the size. Off, nothing of this is generated: the source is the same as without checked mode.
//   detail::Checked checked(declarations, options.checked);
//   fills: checked.helpers() in the prologue, checked.text(map_expr), parameters + checked.parameters(), ...
//   detail::Violations violations(checked.on(), queue);  ... .user(bound, violations.buffer()) ...
//   violations.throw_if_any(queue, done, "my_kernel", declarations, bound);
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/core/environment.hpp>
#include <clalgo/core/error.hpp>
#include <clalgo/core/memory_pool.hpp>
#include <clalgo/core/queue.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clalgo::detail {

/// The violation buffer: an int (the 1-based argument of the first violation, 0 for none), padding, the index as a
/// long at byte 8, then the scratch slot that out-of-bounds accesses use (large enough for any element of up to
/// this many bytes).
inline constexpr std::size_t violation_header_bytes = 16;
inline constexpr std::size_t violation_scratch_bytes = 4096;

/// What checked mode generates for one kernel's declarations; nothing where it is off.
class Checked {
public:
    /// On where `option` is, or where CLALGO_CHECKED is on.
    Checked(const std::vector<ArgumentDeclaration>& declarations, bool option)
        : declarations_(declarations), on_(option || environment_flag("CLALGO_CHECKED")) {
        for (const auto& d : declarations_)
            if (d.is_array) arrays_.insert(d.name);
    }

    bool on() const noexcept { return on_; }

    /// File-scope OpenCL C: per array, the checking function and the macro the rewritten accesses use.
    std::string helpers() const {
        if (!on_) return "";
        std::string text = "/* checked mode: each access name[index] of your code is clalgo_at_name(index) */\n";
        for (std::size_t k = 0; k < declarations_.size(); ++k) {
            const ArgumentDeclaration& d = declarations_[k];
            if (!d.is_array) continue;
            const std::string pointer = "__global " + qualifiers(d) + d.type + " *";
            text += "inline " + pointer + "clalgo_check_" + d.name + "(" + pointer +
                    "clalgo_pointer, const long clalgo_size, const long clalgo_index, __global int *clalgo_violation)\n"
                    "{\n"
                    "    if (clalgo_index >= 0 && clalgo_index < clalgo_size) return clalgo_pointer + clalgo_index;\n"
                    "    if (atomic_cmpxchg(clalgo_violation, 0, " + std::to_string(k + 1) + ") == 0)\n"
                    "        ((__global long *)clalgo_violation)[1] = clalgo_index;\n"
                    "    return (" + pointer + ")((__global char *)clalgo_violation + " +
                    std::to_string(violation_header_bytes) + ");\n"
                    "}\n"
                    "#define clalgo_at_" + d.name + "(clalgo_index) (*clalgo_check_" + d.name + "(" + d.name +
                    ", clalgo_" + d.name + "_size, (long)(clalgo_index), clalgo_violation))\n";
        }
        return text;
    }

    /// The kernel's hidden parameters, after the user's (each after ",\n    ").
    std::string parameters() const {
        if (!on_) return "";
        std::string text = ",\n    __global int *clalgo_violation";
        for (const auto& d : declarations_)
            if (d.is_array) text += ",\n    long clalgo_" + d.name + "_size";
        return text;
    }

    /// The same, for helper functions that receive the user's arguments, and the arguments that pass them.
    std::string function_parameters() const {
        if (!on_) return "";
        std::string text = ", __global int *clalgo_violation";
        for (const auto& d : declarations_)
            if (d.is_array) text += ", const long clalgo_" + d.name + "_size";
        return text;
    }
    std::string function_arguments() const {
        if (!on_) return "";
        std::string text = ", clalgo_violation";
        for (const auto& d : declarations_)
            if (d.is_array) text += ", clalgo_" + d.name + "_size";
        return text;
    }

    /// The user's code with each access `name[index]` to a declared array (not a member `.name`, `->name`, nor
    /// inside a comment or a literal) rewritten as `clalgo_at_name(index)`; the code itself where off.
    std::string text(const std::string& code) const { return on_ ? rewrite(code) : code; }

private:
    static bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

    /// The end of the comment or literal that starts at `at`, or `at` where none does.
    static std::size_t skip_verbatim(const std::string& code, std::size_t at) {
        if (code.compare(at, 2, "//") == 0) {
            const std::size_t end = code.find('\n', at);
            return end == std::string::npos ? code.size() : end;
        }
        if (code.compare(at, 2, "/*") == 0) {
            const std::size_t end = code.find("*/", at + 2);
            return end == std::string::npos ? code.size() : end + 2;
        }
        if (code[at] == '"' || code[at] == '\'') {
            std::size_t k = at + 1;
            while (k < code.size() && code[k] != code[at]) k += code[k] == '\\' ? 2 : 1;
            return std::min(k + 1, code.size());
        }
        return at;
    }

    /// For each '[' or '(' of `code` outside comments and literals: where the bracket that brings the nesting back
    /// to it lies (`close`, npos where none does) and whether a ',' lies directly inside it (`comma`).
    static void match_brackets(const std::string& code, std::vector<std::size_t>& close, std::vector<bool>& comma) {
        close.assign(code.size(), std::string::npos);
        comma.assign(code.size(), false);
        std::vector<std::size_t> open;
        for (std::size_t k = 0; k < code.size();) {
            if (const std::size_t end = skip_verbatim(code, k); end != k) {
                k = end;
                continue;
            }
            const char c = code[k];
            if (c == '[' || c == '(') {
                open.push_back(k);
            } else if ((c == ']' || c == ')') && !open.empty()) {
                close[open.back()] = k;
                open.pop_back();
            } else if (c == ',' && !open.empty()) {
                comma[open.back()] = true;
            }
            ++k;
        }
    }

    /// One pass, whatever the nesting (`a[b[c[i]]]`): the accesses being rewritten are a stack of the places
    /// of their closing ']'.
    std::string rewrite(const std::string& code) const {
        std::vector<std::size_t> close;
        std::vector<bool> comma;
        match_brackets(code, close, comma);
        std::string out;
        out.reserve(code.size() + code.size() / 4);
        std::vector<std::pair<std::size_t, bool>> open_accesses;  // (its ']', its index has a top-level comma)
        std::size_t at = 0;
        while (at < code.size()) {
            if (!open_accesses.empty() && at == open_accesses.back().first) {
                out += open_accesses.back().second ? "))" : ")";  // a comma's index was put in parentheses
                open_accesses.pop_back();
                ++at;
                continue;
            }
            if (const std::size_t end = skip_verbatim(code, at); end != at) {
                out.append(code, at, end - at);
                at = end;
                continue;
            }
            if (std::isdigit(static_cast<unsigned char>(code[at]))) {  // a number, 0x1f and 1e5 included
                const std::size_t begin = at;
                while (at < code.size() && (name_char(code[at]) || code[at] == '.')) ++at;
                out.append(code, begin, at - begin);
                continue;
            }
            if (!name_char(code[at])) {
                out += code[at++];
                continue;
            }
            std::size_t end = at;
            while (end < code.size() && name_char(code[end])) ++end;
            const std::string name = code.substr(at, end - at);
            std::size_t before = out.size();
            while (before > 0 && std::isspace(static_cast<unsigned char>(out[before - 1]))) --before;
            const bool member = before > 0 && (out[before - 1] == '.' || (before > 1 && out.compare(before - 2, 2, "->") == 0));
            std::size_t open = end;
            while (open < code.size() && std::isspace(static_cast<unsigned char>(code[open]))) ++open;
            if (member || !arrays_.count(name) || open >= code.size() || code[open] != '[' ||
                close[open] == std::string::npos || code[close[open]] != ']') {
                out += name;
                at = end;
                continue;
            }
            out += "clalgo_at_" + name + (comma[open] ? "((" : "(");
            open_accesses.emplace_back(close[open], comma[open]);
            at = open + 1;
        }
        return out;
    }

    std::vector<ArgumentDeclaration> declarations_;
    std::set<std::string> arrays_;  ///< the names of the array arguments
    bool on_ = false;
};

/// One checked call's violation buffer: made and zeroed where checked mode is on, nothing otherwise.
class Violations {
public:
    Violations(bool on, const Queue& queue) {
        if (!on) return;
        try {
            buffer_ = allocate_buffer(queue.context(), violation_header_bytes + violation_scratch_bytes,
                                      "the violation buffer of a checked call");
            const unsigned char zeros[violation_header_bytes] = {};
            queue.get().enqueueWriteBuffer(buffer_, CL_TRUE, 0, sizeof zeros, zeros);
        } catch (const cl::Error& error) {
            rethrow(error, "making the violation buffer of a checked call");
        }
    }

    /// The buffer to pass as the hidden argument, or nullptr where checked mode is off.
    const cl::Buffer* buffer() const noexcept { return buffer_() ? &buffer_ : nullptr; }

    /// Waits for `done` (the call's Event on `queue`) and throws OutOfBoundsError where a launch recorded a violation.
    void throw_if_any(const Queue& queue, const Event& done, const std::string& kernel,
                      const std::vector<ArgumentDeclaration>& declarations,
                      const std::vector<BoundArgument>& bound) const {
        if (!buffer_()) return;
        unsigned char header[violation_header_bytes];
        try {
            const std::vector<cl::Event> wait = wait_list_for(queue, done);
            queue.get().enqueueReadBuffer(buffer_, CL_TRUE, 0, sizeof header, header, wait_list(wait));
        } catch (const cl::Error& error) {
            rethrow(error, "reading the violations of checked kernel '" + kernel + "'");
        }
        std::int32_t argument = 0;
        std::int64_t index = 0;
        std::memcpy(&argument, header, sizeof argument);
        std::memcpy(&index, header + 8, sizeof index);
        if (argument <= 0 || static_cast<std::size_t>(argument) > declarations.size()) return;
        const std::size_t k = static_cast<std::size_t>(argument) - 1;
        throw OutOfBoundsError("clalgo: kernel '" + kernel + "', argument " + std::to_string(argument) + " '" +
                               declarations[k].name + "': index " + std::to_string(index) +
                               " is out of bounds: the array has " +
                               std::to_string(k < bound.size() ? bound[k].size : 0) +
                               " elements (checked mode; the first violation of the call)");
    }

private:
    cl::Buffer buffer_;
};

}  // namespace clalgo::detail
