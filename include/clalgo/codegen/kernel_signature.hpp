// The __kernel functions of hand-written OpenCL C and their parameters, read from the source text (portable:
// clGetKernelArgInfo needs -cl-kernel-arg-info, which not every driver honours), for RawProgram's checks.
//   auto kernels = clalgo::detail::read_kernel_signatures("__kernel void axpy(float a, __global float *y) {...}");
//   kernels[0].name == "axpy"; kernels[0].parameters[1].space == KernelParameter::Space::global
// Comments are skipped; macros are not expanded (a signature built by a macro is not read, and RawProgram says so).
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/core/types.hpp>

#include <cctype>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace clalgo {

/// One parameter of a hand-written kernel, as its source declares it.
struct KernelParameter {
    /// The address space of a parameter: a value, or a `__global`, `__constant` or `__local` pointer.
    enum class Space { private_value, global, constant, local };
    /// The parameter's name.
    std::string name;
    std::string type;        ///< the element type, canonical ("uint"); "" where clalgo cannot read it
    /// Its address space.
    Space space = Space::private_value;
    /// Declared with `*`.
    bool is_pointer = false;
    /// Points to `const`.
    bool is_const = false;
    /// The elements an array parameter declares (`__global float x[256]`), checked against the array a call
    /// passes (for a `__local` one, against the local memory it asks for); 0 where none is declared (`x[]`,
    /// `*x`, or an extent a macro spells).
    std::uint64_t extent = 0;
    std::string declared;    ///< the parameter as written
    /// Whether clalgo knows the type (a builtin, a vector, a registered struct), so that calls can be checked.
    bool is_known() const { return !type.empty() && detail::type_size(type) != 0; }
};

/// A __kernel function read from the source.
struct KernelSignature {
    /// The kernel's name.
    std::string name;
    /// The parameters, in order.
    std::vector<KernelParameter> parameters;
};

namespace detail {

/// The source with comments replaced by spaces (line breaks kept).
inline std::string without_comments(const std::string& source) {
    std::string text = source;
    for (std::size_t k = 0; k + 1 < text.size(); ++k) {
        if (text[k] == '/' && text[k + 1] == '/') {
            while (k < text.size() && text[k] != '\n') text[k++] = ' ';
        } else if (text[k] == '/' && text[k + 1] == '*') {
            const std::size_t end = text.find("*/", k + 2);
            const std::size_t stop = end == std::string::npos ? text.size() : end + 2;
            for (; k < stop; ++k)
                if (text[k] != '\n') text[k] = ' ';
            --k;
        }
    }
    return text;
}

/// Splits `text` at `separator` outside parentheses and brackets.
inline std::vector<std::string> split_top_level(const std::string& text, char separator) {
    std::vector<std::string> pieces(1);
    int depth = 0;
    for (char c : text) {
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (c == separator && depth == 0) pieces.emplace_back();
        else pieces.back() += c;
    }
    return pieces;
}

/// The number between an array parameter's brackets: decimal, octal or hexadecimal digits with an optional
/// u/l suffix; 0 for anything else (a macro, an expression, nothing, more than 2^62).
inline std::uint64_t declared_extent(const std::string& brackets) {
    const std::string text = trim(brackets);
    std::size_t end = text.size();
    while (end > 0 && (text[end - 1] == 'u' || text[end - 1] == 'U' || text[end - 1] == 'l' || text[end - 1] == 'L')) --end;
    if (end == 0 || !std::isdigit(static_cast<unsigned char>(text[0]))) return 0;
    const bool hexadecimal = end > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const unsigned base = hexadecimal ? 16 : text[0] == '0' ? 8 : 10;
    std::uint64_t value = 0;
    for (std::size_t k = hexadecimal ? 2 : 0; k < end; ++k) {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[k])));
        const unsigned digit = std::isdigit(static_cast<unsigned char>(c)) ? unsigned(c - '0')
                               : (c >= 'a' && c <= 'f')                    ? unsigned(c - 'a' + 10)
                                                                           : 99;
        if (digit >= base || value > (std::uint64_t(1) << 62) / base) return 0;
        value = value * base + digit;
    }
    return value;
}

inline KernelParameter read_parameter(const std::string& piece) {
    KernelParameter parameter;
    parameter.declared = trim(piece);
    std::string spaced;
    for (std::size_t k = 0; k < piece.size(); ++k) {
        if (piece.compare(k, 13, "__attribute__") == 0) {  // an attribute: skipped with its parentheses
            std::size_t at = piece.find('(', k);
            if (at == std::string::npos) at = piece.size();  // none: the rest of the piece
            int depth = 0;
            for (; at < piece.size(); ++at) {
                if (piece[at] == '(') ++depth;
                if (piece[at] == ')' && --depth == 0) break;
            }
            k = at;
            spaced += ' ';
        } else if (piece[k] == '*') {
            spaced += " * ";
            parameter.is_pointer = true;
        } else if (piece[k] == '[') {  // "float x[]" is a pointer, "float x[16]" one to 16 elements
            parameter.is_pointer = true;
            const std::size_t close = piece.find(']', k);
            if (close != std::string::npos) parameter.extent = declared_extent(piece.substr(k + 1, close - k - 1));
            k = close == std::string::npos ? piece.size() : close;
            spaced += ' ';
        } else {
            spaced += piece[k];
        }
    }
    std::istringstream words(spaced);
    std::vector<std::string> type_words;
    bool unreadable = false;
    for (std::string word; words >> word;) {
        if (word == "*") continue;
        if (word == "__global" || word == "global") parameter.space = KernelParameter::Space::global;
        else if (word == "__constant" || word == "constant") parameter.space = KernelParameter::Space::constant;
        else if (word == "__local" || word == "local") parameter.space = KernelParameter::Space::local;
        else if (word == "__private" || word == "private") parameter.space = KernelParameter::Space::private_value;
        else if (word == "const") parameter.is_const = true;
        else if (word == "volatile" || word == "restrict" || word == "__restrict" || word == "__read_only" ||
                 word == "read_only" || word == "__write_only" || word == "write_only" || word == "struct")
            continue;
        else if (is_identifier(word)) type_words.push_back(word);
        else unreadable = true;
    }
    if (type_words.empty()) return parameter;
    parameter.name = type_words.back();
    type_words.pop_back();
    std::string spelled;
    for (const auto& word : type_words) spelled += (spelled.empty() ? "" : " ") + word;
    if (!unreadable) parameter.type = canonical_type_name(spelled);
    return parameter;
}

/// Every __kernel function defined or declared in `source`, once each, in order.
inline std::vector<KernelSignature> read_kernel_signatures(const std::string& source) {
    const std::string text = without_comments(source);
    std::vector<KernelSignature> kernels;
    std::set<std::string> seen;  // a set: a source of many kernels is read in n log n
    auto is_word_at = [&](std::size_t at, const std::string& word) {
        return text.compare(at, word.size(), word) == 0 &&
               (at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) &&
               (at + word.size() >= text.size() ||
                !(std::isalnum(static_cast<unsigned char>(text[at + word.size()])) || text[at + word.size()] == '_'));
    };
    for (std::size_t at = 0; at < text.size(); ++at) {
        std::size_t after = 0;
        if (is_word_at(at, "__kernel")) after = at + 8;
        else if (is_word_at(at, "kernel")) after = at + 6;
        else continue;
        // the name is the identifier before the first '(' that is not an attribute's
        std::size_t open = after;
        std::string name;
        while (open < text.size()) {
            open = text.find('(', open);
            if (open == std::string::npos) break;
            std::size_t end = open;
            while (end > after && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
            std::size_t begin = end;
            while (begin > after && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_'))
                --begin;
            name = text.substr(begin, end - begin);
            if (name != "__attribute__" && name != "reqd_work_group_size" && name != "work_group_size_hint" &&
                name != "vec_type_hint" && !name.empty() && text.compare(open, 2, "((") != 0)
                break;
            int depth = 0;  // skip the attribute's parentheses
            for (; open < text.size(); ++open) {
                if (text[open] == '(') ++depth;
                if (text[open] == ')' && --depth == 0) break;
            }
        }
        // no '(' after it, or an attribute's parentheses never closed: no kernel can be read from here on
        if (open == std::string::npos || open >= text.size()) break;
        // a name that is not one: every `kernel` word up to this '(' comes to the same one, so the scan goes on
        // from there (a text of many such words is read once)
        if (!is_identifier(name)) {
            at = open;
            continue;
        }
        int depth = 0;
        std::size_t close = open;
        for (; close < text.size(); ++close) {
            if (text[close] == '(') ++depth;
            if (text[close] == ')' && --depth == 0) break;
        }
        KernelSignature signature;
        signature.name = name;
        const std::string list = trim(text.substr(open + 1, close - open - 1));
        if (!list.empty() && list != "void")
            for (const auto& piece : split_top_level(list, ',')) signature.parameters.push_back(read_parameter(piece));
        if (seen.insert(name).second) kernels.push_back(std::move(signature));
        at = close;
    }
    return kernels;
}

}  // namespace detail
}  // namespace clalgo
