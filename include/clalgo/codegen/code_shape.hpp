// What the OpenCL compilers can take of the user's code. Clang (PoCL's, and the LLVM-based compilers of the GPU
// drivers) recurses over an expression's operators and a statement's nesting, in the calling process: an
// expression of a hundred thousand operators in a row (`1+1+...`, `- - - x`, `(float)(float)...x`) or nested
// `if`s overflow its stack and end the process, and a word of megabytes stalls its spelling suggestions for
// minutes. So each piece of user text is measured by one linear scan before it is put into a kernel, and refused
// (std::invalid_argument naming the piece) past these bounds, which code written or generated for a kernel stays
// far below:
//   nesting: brackets ( [ { inside one another, at most 200 (clang's own limit is 256 for the whole source,
//            -fbracket-depth: the template around the user's code keeps the rest);
//   chain:   operators, control keywords and parenthesised groups that one expression or statement chains
//            without a ';', a block or a separating ',' between them, at most 4096;
//   word:    an identifier or number, at most 1024 characters (string literals and comments are not limited).
// The compiler runs on a thread with a large stack of its own (codegen/compiler_stack.hpp), where a chain of 4096
// of the deepest kind needs about a fifth of it (measured with PoCL 5's clang: 0.4 kB a level of `+`, 3 kB of a
// unary `-`, 6 kB of a cast).
//   const detail::CodeShape shape = detail::code_shape("x[i] * 2");
//   detail::check_code_shape("map_expr", text);   // CodeShapeError (a std::invalid_argument) past a bound
//   detail::check_user_code("copy_if", "predicate", predicate);   // the same, naming the call
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo::detail {

inline constexpr std::size_t max_code_nesting = 200;
inline constexpr std::size_t max_code_chain = 4096;
inline constexpr std::size_t max_code_word = 1024;

/// The measures of a piece of code that the bounds above limit.
struct CodeShape {
    std::size_t nesting = 0;  ///< the deepest brackets
    std::size_t chain = 0;    ///< the longest chain
    std::size_t word = 0;     ///< the longest identifier or number
};

/// Measures `code` in one pass (comments and literals skipped; their contents are not code).
inline CodeShape code_shape(const std::string& code) {
    CodeShape shape;
    struct Open {
        char bracket;
        std::size_t chain;  ///< the chain where it opened: what its contents add to
        bool separates;     ///< a ',' directly inside separates (a call's arguments, an initialiser's elements)
    };
    std::vector<Open> open;
    std::size_t chain = 0;
    bool after_block = false;      // a '}' came last: an `else` continues the statement, anything else starts one
    bool after_name = false;       // the last token was a name: a '(' now is a call (OpenCL C has no function
                                   // pointers: `(float)(x)` is a cast of a group, not a call)
    bool line_start = true, in_directive = false;
    auto base = [&] { return open.empty() ? std::size_t(0) : open.back().chain; };
    auto add = [&](std::size_t links) {
        chain += links;
        shape.chain = std::max(shape.chain, chain);
    };
    auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const std::size_t size = code.size();
    for (std::size_t at = 0; at < size;) {
        const char c = code[at];
        if (c == '\n') {
            if (in_directive && !(at > 0 && code[at - 1] == '\\')) {
                in_directive = false;
                chain = base();
            }
            line_start = true;
            ++at;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++at;
            continue;
        }
        if (code.compare(at, 2, "//") == 0) {
            while (at < size && code[at] != '\n') ++at;
            continue;
        }
        if (code.compare(at, 2, "/*") == 0) {
            const std::size_t end = code.find("*/", at + 2);
            at = end == std::string::npos ? size : end + 2;
            continue;
        }
        const bool first_on_line = line_start;
        line_start = false;
        if (c == '"' || c == '\'') {
            std::size_t k = at + 1;
            while (k < size && code[k] != c && code[k] != '\n') k += code[k] == '\\' ? 2 : 1;
            at = std::min(k + 1, size);
            after_name = after_block = false;
            continue;
        }
        if (c == '#' && first_on_line) {  // a directive: its own statement, to the end of its line
            in_directive = true;
            chain = base();
            ++at;
            continue;
        }
        if (is_word(c)) {
            std::size_t end = at;
            while (end < size && is_word(code[end])) ++end;
            shape.word = std::max(shape.word, end - at);
            const std::string word = end - at <= 8 ? code.substr(at, end - at) : std::string();
            if (after_block && word != "else") chain = base();
            after_block = false;
            const bool keyword = word == "if" || word == "else" || word == "for" || word == "while" || word == "do" ||
                                 word == "switch" || word == "case" || word == "default" || word == "sizeof" ||
                                 word == "return";
            if (keyword && word != "return") add(1);
            after_name = !keyword;  // `if (`, `while (`: a condition, not a call
            at = end;
            continue;
        }
        if (after_block) chain = base();
        after_block = false;
        if (c == '(' || c == '[' || c == '{') {
            const bool call = c == '(' && after_name;
            // a block's statements, an initialiser's elements and a call's arguments each start from here
            open.push_back(Open{c, chain, call || c == '{'});
            shape.nesting = std::max(shape.nesting, open.size());
        } else if (c == ')' || c == ']' || c == '}') {
            if (!open.empty()) {
                chain = open.back().chain;
                const bool grouped = c != '}' && !open.back().separates;
                open.pop_back();
                if (grouped) add(1);  // a parenthesised group or a condition: a link of the chain it stands in
                if (c == '}') after_block = true;
            }
        } else if (c == ';') {
            chain = base();
        } else if (c == ',') {
            if (!open.empty() && open.back().separates) chain = base();
            else add(1);  // the comma operator
        } else {
            add(1);  // an operator character (a unary or binary one, '.', '?', ':')
        }
        after_name = false;
        ++at;
    }
    return shape;
}

/// A piece of user text past a bound; the kernel that was being made adds its name (KernelProgram).
class CodeShapeError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// Throws CodeShapeError naming `label` (the user's piece: "map_expr", "preamble") where `code` passes a bound.
inline void check_code_shape(const std::string& label, const std::string& code) {
    const CodeShape shape = code_shape(code);
    auto refuse = [&](const std::string& what, const std::string& why) {
        throw CodeShapeError("your " + label + " " + what + " (" + why + ")");
    };
    if (shape.nesting > max_code_nesting)
        refuse("nests brackets " + std::to_string(shape.nesting) + " deep, more than " +
                   std::to_string(max_code_nesting),
               "the compiler's limit is 256, the kernel around it included");
    if (shape.chain > max_code_chain)
        refuse("chains " + std::to_string(shape.chain) + " operators, keywords or parenthesised groups without a ';', "
                   "a block or a separating ',' between them, more than " + std::to_string(max_code_chain),
               "the compiler recurses on each and would overflow its stack");
    if (shape.word > max_code_word)
        refuse("holds an identifier or number of " + std::to_string(shape.word) + " characters, more than " +
                   std::to_string(max_code_word),
               "the compiler's spelling suggestions take minutes on longer ones");
}

/// check_code_shape for calls that put the user's text into a kernel of their own (copy_if's predicate,
/// transform's expression): std::invalid_argument naming the call and the piece.
inline void check_user_code(const std::string& call, const std::string& label, const std::string& code) {
    try {
        check_code_shape(label, code);
    } catch (const CodeShapeError& error) {
        throw std::invalid_argument("clalgo: " + call + ": " + error.what());
    }
}

}  // namespace clalgo::detail
