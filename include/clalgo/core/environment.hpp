// Reading clalgo's environment variables (CLALGO_DEVICE, CLALGO_CACHE_DIR, CLALGO_NO_CACHE,
// CLALGO_BUILD_OPTIONS, CLALGO_PRINT_SOURCE, CLALGO_POOL, ...); docs/caching-and-environment.md lists them all.
#pragma once

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__linux__)
#include <unistd.h>  // environ
#endif

namespace clalgo::detail {

/// The variable's value, or nothing where it is unset.
inline std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

/// This thread's copy of the CLALGO_* variables, read again only where the environment has changed since the
/// thread last looked. Looking costs a walk over environ's pointers, not over its strings (getenv compares every
/// variable's name: a tenth of a microsecond where the environment is large), so that a call may read clalgo's
/// variables each time (a program may change them between calls). setenv, putenv and unsetenv change environ's
/// pointers; a string given to putenv and then changed in place is seen where it is a CLALGO_* variable.
class ClalgoVariables {
public:
    /// The variables as the environment holds them now.
    static const ClalgoVariables& current() {
        thread_local ClalgoVariables variables;
        if (!variables.unchanged()) variables.read();
        return variables;
    }

    /// The variable's value, or null where it is unset (the first definition, as getenv's).
    const char* get(const char* name) const {
#if defined(__linux__)
        const std::size_t length = std::strlen(name);
        for (const Variable& variable : variables_)
            if (variable.text.compare(0, length, name) == 0 && variable.text.size() > length &&
                variable.text[length] == '=')
                return variable.text.c_str() + length + 1;
        return nullptr;
#else
        return std::getenv(name);
#endif
    }

    /// Equal in two looks of one thread only where the variables were equal between them: a call may remember
    /// what it found under the generation it found it in.
    std::uint64_t generation() const noexcept { return generation_; }

private:
    struct Variable {
        const char* entry;  ///< environ's string
        std::string text;   ///< its text when read
    };

    bool unchanged() const {
#if defined(__linux__)
        if (generation_ == 0 || ::environ != environ_) return false;
        if (environ_ == nullptr) return true;
        if (std::memcmp(environ_, entries_.data(), entries_.size() * sizeof(char*)) != 0 ||
            environ_[entries_.size()] != nullptr)
            return false;
        for (const Variable& variable : variables_)
            if (variable.text != variable.entry) return false;
        return true;
#else
        return false;  // no environ to watch: every look is a new generation, and get() asks getenv
#endif
    }

    void read() {
        static std::atomic<std::uint64_t> generations{0};
#if defined(__linux__)
        variables_.clear();
        entries_.clear();
        environ_ = ::environ;
        for (char** entry = environ_; entry != nullptr && *entry != nullptr; ++entry) {
            entries_.push_back(*entry);
            if (std::strncmp(*entry, "CLALGO_", 7) == 0) variables_.push_back({*entry, *entry});
        }
#endif
        generation_ = ++generations;
    }

    char** environ_ = nullptr;
    std::vector<char*> entries_;
    std::vector<Variable> variables_;
    std::uint64_t generation_ = 0;
};

/// Appends the variable's value (nothing where unset) and a '\0' to `key`: a kernel cache's key part, with no
/// copy made (a call builds its cache key each time, and its host cost counts at small sizes).
inline void append_environment(std::string& key, const char* name) {
    if (const char* value = ClalgoVariables::current().get(name)) key += value;
    key += '\0';
}

/// As append_environment for each of `names` (clalgo's CLALGO_* variables), in order.
inline void append_environment(std::string& key, std::initializer_list<const char*> names) {
    const ClalgoVariables& variables = ClalgoVariables::current();
    for (const char* name : names) {
        if (const char* value = variables.get(name)) key += value;
        key += '\0';
    }
}

/// The variable as a switch: 1/on/true/yes or 0/off/false/no (any case); nothing where unset or empty;
/// std::invalid_argument naming the variable and what it accepts for anything else. Every CLALGO_* switch is
/// read here.
inline std::optional<bool> environment_switch(const char* name) {
    auto value = environment(name);
    if (!value || value->empty()) return std::nullopt;
    std::string lower = *value;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower == "1" || lower == "on" || lower == "true" || lower == "yes") return true;
    if (lower == "0" || lower == "off" || lower == "false" || lower == "no") return false;
    throw std::invalid_argument(std::string("clalgo: ") + name + "='" + *value +
                                "': expected 1, on, true, yes or 0, off, false, no (any case), or nothing");
}

/// The variable's whole-number value in [low, high]; nothing where unset or empty; std::invalid_argument naming
/// the variable and the range for anything else. Every numeric CLALGO_* variable is read here.
inline std::optional<std::uint64_t> environment_number(const char* name, std::uint64_t low, std::uint64_t high) {
    const auto value = environment(name);
    if (!value || value->empty()) return std::nullopt;
    const bool digits = value->size() <= 18 &&
                        std::all_of(value->begin(), value->end(), [](unsigned char c) { return std::isdigit(c); });
    const std::uint64_t number = digits ? std::stoull(*value) : 0;
    if (!digits || number < low || number > high)
        throw std::invalid_argument(std::string("clalgo: ") + name + "='" + *value + "': expected a whole number from " +
                                    std::to_string(low) + " to " + std::to_string(high));
    return number;
}

/// A switch that is off unless set on (environment_switch's values; others throw).
inline bool environment_flag(const char* name) { return environment_switch(name).value_or(false); }

}  // namespace clalgo::detail
