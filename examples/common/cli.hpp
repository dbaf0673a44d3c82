// What the examples share on the command line: declaring and parsing options (with --help and clear messages for
// bad ones), sizes written as 100000000, 1e8 or 2^27, and opening the device (--device, else CLALGO_DEVICE, else
// the first GPU, else the first device) and --repeat, which all examples take.
//   example::CommandLine command_line("pi", "Estimates pi on the device.");
//   std::optional<std::int64_t> samples;
//   command_line.count("--samples", "N", "how many random points", samples);
//   if (!command_line.parse(argc, argv)) return 0;   // --help was shown
#pragma once

#include <clalgo/clalgo.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace example {

/// A bad command line: the message names the option and what was wrong; main prints it and exits with 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// "100000000", "1e8", "2^27" or "1_000_000" as a non-negative integer; throws UsageError naming `what`.
inline std::int64_t parse_count(const std::string& text, const std::string& what) {
    auto fail = [&]() -> std::int64_t {
        throw UsageError(what + ": '" + text + "' is not a count (write it as 100000000, 1e8 or 2^27)");
    };
    std::string digits;
    for (char c : text)
        if (c != '_' && c != '\'') digits += c;
    if (digits.empty()) return fail();
    const auto caret = digits.find('^');
    if (caret != std::string::npos) {
        const std::string base = digits.substr(0, caret), exponent = digits.substr(caret + 1);
        if (base != "2" || exponent.empty() || exponent.size() > 2 ||
            exponent.find_first_not_of("0123456789") != std::string::npos || std::stoi(exponent) > 62)
            return fail();
        return std::int64_t(1) << std::stoi(exponent);
    }
    if (digits.find_first_not_of("0123456789") == std::string::npos) {
        if (digits.size() > 18) return fail();
        return std::stoll(digits);
    }
    // 1e8, 2.5e9: allowed where the value is a whole number
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(digits, &used);
    } catch (const std::exception&) {
        return fail();
    }
    if (used != digits.size() || !(value >= 0) || value > 4e18 || value != std::floor(value)) return fail();
    return static_cast<std::int64_t>(value);
}

/// The options of one example: each declared with its help line and the variable it sets.
class CommandLine {
public:
    CommandLine(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {
        text("--device", "SPEC",
             "the OpenCL device, as platform[:device] by index or name part (\"0:1\", \"nvidia\", \"portable\"); "
             "default: CLALGO_DEVICE, else the first GPU, else the first device",
             device_);
        count("--repeat", "R", "time R runs of each computation and report the best (default 3)", repeat_);
    }

    /// `--name`, which sets `target` to true.
    void flag(const std::string& name, const std::string& help, bool& target) {
        options_.push_back({name, "", help, [&target](const std::string&) { target = true; }});
    }

    /// `--name N` with N a count (100000000, 1e8, 2^27).
    void count(const std::string& name, const std::string& placeholder, const std::string& help,
               std::optional<std::int64_t>& target) {
        options_.push_back({name, placeholder, help,
                            [&target, name](const std::string& value) { target = parse_count(value, name); }});
    }

    /// `--name TEXT`.
    void text(const std::string& name, const std::string& placeholder, const std::string& help,
              std::optional<std::string>& target) {
        options_.push_back({name, placeholder, help, [&target](const std::string& value) { target = value; }});
    }

    /// An argument without a name, at most one: `look_and_say 1113222113`.
    void positional(const std::string& placeholder, const std::string& help, std::optional<std::string>& target) {
        positional_ = Option{placeholder, placeholder, help, [&target](const std::string& value) { target = value; }};
    }

    /// Lines for --help after the options: examples of use.
    void epilogue(std::string text) { epilogue_ = std::move(text); }

    /// Parses the command line. Returns false where --help was asked for (the help is printed); throws
    /// UsageError for anything it does not understand.
    bool parse(int argc, char** argv) {
        bool positional_seen = false;
        for (int k = 1; k < argc; ++k) {
            std::string argument = argv[k];
            if (argument == "--help" || argument == "-h") {
                print_help();
                return false;
            }
            if (argument.rfind("--", 0) != 0 || argument == "--") {
                if (!positional_ || positional_seen)
                    throw UsageError("unexpected argument '" + argument + "'");
                positional_->set(argument);
                positional_seen = true;
                continue;
            }
            std::optional<std::string> value;
            if (const auto equals = argument.find('='); equals != std::string::npos) {
                value = argument.substr(equals + 1);
                argument = argument.substr(0, equals);
            }
            const Option* option = find(argument);
            if (!option) throw UsageError("unknown option '" + argument + "'");
            if (option->placeholder.empty()) {
                if (value) throw UsageError(argument + " takes no value");
                option->set("");
                continue;
            }
            if (!value) {
                if (k + 1 >= argc) throw UsageError(argument + " needs a value: " + argument + " " + option->placeholder);
                value = argv[++k];
            }
            option->set(*value);
        }
        if (repeat_ && (*repeat_ < 1 || *repeat_ > 1000)) throw UsageError("--repeat: need 1 to 1000 runs");
        return true;
    }

    /// The --device option's value, if given.
    const std::optional<std::string>& device_spec() const { return device_; }

    /// How many timed runs --repeat asks for (default 3): the first pays one-time costs (first launches,
    /// allocations), the best shows the computation itself.
    int runs() const { return static_cast<int>(repeat_.value_or(3)); }

    void print_help() const {
        std::printf("%s\n\nusage: %s [options]%s\n\n", summary_.c_str(), program_.c_str(),
                    positional_ ? (" [" + positional_->placeholder + "]").c_str() : "");
        // the help text wrapped at 100 columns, beside the option
        auto line = [](const std::string& left, const std::string& help) {
            const std::size_t width = 100 - 25;
            std::string rest = help;
            std::printf("  %-22s ", left.c_str());
            while (rest.size() > width) {
                std::size_t cut = rest.rfind(' ', width);
                if (cut == std::string::npos || cut == 0) cut = width;
                std::printf("%s\n%25s", rest.substr(0, cut).c_str(), "");
                rest = rest.substr(cut + (rest[cut] == ' ' ? 1 : 0));
            }
            std::printf("%s\n", rest.c_str());
        };
        if (positional_) line(positional_->placeholder, positional_->help);
        for (const auto& option : options_)
            line(option.name + (option.placeholder.empty() ? "" : " " + option.placeholder), option.help);
        line("--help", "show this help");
        std::printf("\nCounts may be written 100000000, 1e8 or 2^27.\n");
        if (!epilogue_.empty()) std::printf("\n%s\n", epilogue_.c_str());
    }

private:
    struct Option {
        std::string name;
        std::string placeholder;  ///< empty for flags
        std::string help;
        std::function<void(const std::string&)> set;
    };

    const Option* find(const std::string& name) const {
        for (const auto& option : options_)
            if (option.name == name) return &option;
        return nullptr;
    }

    std::string program_, summary_, epilogue_;
    std::vector<Option> options_;
    std::optional<Option> positional_;
    std::optional<std::string> device_;
    std::optional<std::int64_t> repeat_;
};

}  // namespace example
