// Questions the generators ask of the user's OpenCL C text (expressions, statements, preambles), answered by
// scans that read each character a bounded number of times, without regular expressions or recursion: the
// time is linear in the text and the stack does not grow with it, whatever its length.
//   detail::mentions("for (int k = 0; ...)", "for");                 // true: the word, not a part of one
//   detail::called_names("f(x) + g (y)");                            // {"f", "g"}
//   detail::defined_functions("inline int f(int x) { ... }");       // {"f"}
//   detail::indexed_at_i("  x [ i ] ");                              // "x"
#pragma once

#include <cctype>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace clalgo::detail {

inline bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
inline bool is_space_char(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

/// Whether `word` appears in `code` as a whole word (not inside a longer one).
inline bool mentions(const std::string& code, const std::string& word) {
    if (word.empty()) return false;
    for (std::size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
        const std::size_t end = at + word.size();
        if ((at == 0 || !is_word_char(code[at - 1])) && (end == code.size() || !is_word_char(code[end]))) return true;
    }
    return false;
}

/// Calls each whole word of `code` that starts with a letter or '_' with its position and length.
template <class EachName>
void for_each_name(const std::string& code, EachName&& each) {
    for (std::size_t at = 0; at < code.size();) {
        if (!is_word_char(code[at])) {
            ++at;
            continue;
        }
        std::size_t end = at;
        while (end < code.size() && is_word_char(code[end])) ++end;
        if (!std::isdigit(static_cast<unsigned char>(code[at]))) each(at, end - at);
        at = end;
    }
}

/// The position after the white space from `at`.
inline std::size_t skip_spaces(const std::string& code, std::size_t at) {
    while (at < code.size() && is_space_char(code[at])) ++at;
    return at;
}

/// The names followed by an opening parenthesis (`f(`, `g (`): calls, and keywords such as `if (`.
inline std::vector<std::string> called_names(const std::string& code) {
    std::vector<std::string> names;
    for_each_name(code, [&](std::size_t at, std::size_t length) {
        const std::size_t after = skip_spaces(code, at + length);
        if (after < code.size() && code[after] == '(') names.push_back(code.substr(at, length));
    });
    return names;
}

/// The names of the functions `code` defines: a name, '(', anything but ';' and '{', ')', white space, '{'.
inline std::set<std::string> defined_functions(const std::string& code) {
    std::set<std::string> names;
    // the first ';' or '{' after a '(', and the last character before it that is not white space: the scan's
    // places only grow, so each is found once per stretch of the text
    std::size_t stop = 0, before_stop = 0;
    bool stop_known = false;
    for_each_name(code, [&](std::size_t at, std::size_t length) {
        const std::size_t open = skip_spaces(code, at + length);
        if (open >= code.size() || code[open] != '(') return;
        if (!stop_known || stop <= open) {
            stop = code.find_first_of(";{", open + 1);
            stop_known = true;
            if (stop != std::string::npos) {
                before_stop = stop;
                while (before_stop > 0 && is_space_char(code[before_stop - 1])) --before_stop;
            }
        }
        if (stop == std::string::npos || code[stop] != '{') return;
        // before_stop - 1 is the ')' that closes the parameters: after the '(' (which is not white space)
        if (before_stop > open + 1 && code[before_stop - 1] == ')') names.insert(code.substr(at, length));
    });
    return names;
}

/// The array name where `expression` is `name[i]` (white space allowed around each part); "" otherwise.
inline std::string indexed_at_i(const std::string& expression) {
    std::size_t at = skip_spaces(expression, 0);
    if (at >= expression.size() || std::isdigit(static_cast<unsigned char>(expression[at])) ||
        !is_word_char(expression[at]))
        return "";
    std::size_t end = at;
    while (end < expression.size() && is_word_char(expression[end])) ++end;
    const std::string name = expression.substr(at, end - at);
    std::size_t k = skip_spaces(expression, end);
    if (k >= expression.size() || expression[k] != '[') return "";
    k = skip_spaces(expression, k + 1);
    if (k >= expression.size() || expression[k] != 'i') return "";
    k = skip_spaces(expression, k + 1);
    if (k >= expression.size() || expression[k] != ']') return "";
    return skip_spaces(expression, k + 1) == expression.size() ? name : "";
}

}  // namespace clalgo::detail
