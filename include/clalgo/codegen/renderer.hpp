// Fills the named holes of an OpenCL C template, `${name}`, with text. Only the template is scanned for holes:
// the text put into them (a user's expression, a preamble) is copied as it is, so `%`, `{` or `${` in user
// code is just that. A hole alone on its line indents every line of its text like the hole. The lines that
// user text lands on are recorded, so that build errors can point at them. User text whose last line holds a
// `//` comment is followed by a line break, so that the comment cannot swallow the template's code after it.
// User text past the bounds the compilers can take (codegen/code_shape.hpp) is refused with CodeShapeError.
//   auto source = render("x = ${expr};\n", {{"expr", user_text("map_expr", "a % b")}});
#pragma once

#include <clalgo/codegen/code_shape.hpp>
#include <clalgo/core/error.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace clalgo::detail {

/// The text for one hole; `label` is set where the text is the user's (it then appears in build errors).
struct Fill {
    std::string text;
    std::string label;
};

inline Fill library_text(std::string text) { return Fill{std::move(text), {}}; }
inline Fill user_text(std::string label, std::string text) { return Fill{std::move(text), std::move(label)}; }

/// Generated OpenCL C and where the user's text lies in it.
struct GeneratedSource {
    std::string text;
    std::vector<SourceRegion> regions;
};

inline GeneratedSource render(std::string_view pattern, const std::map<std::string, Fill>& fills) {
    GeneratedSource out;
    std::size_t reserved = pattern.size();
    for (const auto& [name, fill] : fills) reserved += fill.text.size();
    out.text.reserve(reserved + reserved / 8);  // and the indentation of filled lines
    std::size_t line = 1;
    std::size_t at = 0;
    auto append = [&](std::string_view text) {
        line += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
        out.text.append(text);
    };
    while (at < pattern.size()) {
        const std::size_t open = pattern.find("${", at);
        if (open == std::string_view::npos) {
            append(pattern.substr(at));
            break;
        }
        append(pattern.substr(at, open - at));
        const std::size_t close = pattern.find('}', open);
        if (close == std::string_view::npos) throw std::logic_error("clalgo: unterminated hole in a template");
        const std::string name(pattern.substr(open + 2, close - open - 2));
        auto fill = fills.find(name);
        if (fill == fills.end()) throw std::logic_error("clalgo: template hole '" + name + "' has no text");

        // the whitespace between the start of the line and the hole, if nothing else is there
        const std::size_t line_start = out.text.rfind('\n') == std::string::npos ? 0 : out.text.rfind('\n') + 1;
        std::string indent = out.text.substr(line_start);
        if (indent.find_first_not_of(" \t") != std::string::npos) indent.clear();

        if (!fill->second.label.empty()) check_code_shape(fill->second.label, fill->second.text);
        std::string_view text = fill->second.text;
        while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
        const bool alone_on_line = out.text.size() - line_start == indent.size() &&
                                   (close + 1 == pattern.size() || pattern[close + 1] == '\n');
        if (text.empty() && alone_on_line) {
            out.text.resize(line_start);  // an empty hole on a line of its own leaves no blank line
            at = close + 2;
            continue;
        }
        const std::size_t first_line = line;
        for (std::size_t k = 0; k < text.size();) {  // line by line, each indented like the hole
            const std::size_t end = std::min(text.find('\n', k), text.size());
            out.text.append(text.substr(k, end - k));
            if (end == text.size()) break;
            out.text += '\n';
            ++line;
            k = end + 1;
            if (k < text.size() && text[k] != '\n') out.text += indent;
        }
        if (!fill->second.label.empty() && !text.empty())
            out.regions.push_back(SourceRegion{fill->second.label, first_line, line});
        // a // comment on the user's last line would swallow what the template puts after the hole ("x[i] //
        // square" in `return ${map_expr};`): end that line, unless the template ends it anyway
        const std::size_t last_line = text.rfind('\n') == std::string_view::npos ? 0 : text.rfind('\n') + 1;
        if (!fill->second.label.empty() && text.find("//", last_line) != std::string_view::npos &&
            !(close + 1 < pattern.size() && pattern[close + 1] == '\n')) {
            out.text += '\n';
            ++line;
            out.text += indent.empty() ? "    " : indent;
        }
        at = close + 1;
    }
    return out;
}

}  // namespace clalgo::detail
