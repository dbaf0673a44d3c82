// Reading clalgo's environment variables (CLALGO_DEVICE, CLALGO_CACHE_DIR, CLALGO_NO_CACHE,
// CLALGO_BUILD_OPTIONS, CLALGO_PRINT_SOURCE, CLALGO_POOL, ...); docs/caching-and-environment.md lists them all.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

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

/// Appends the variable's value (nothing where unset) and a '\0' to `key`: a kernel cache's key part, with no
/// copy made (a call builds its cache key each time, and its host cost counts at small sizes).
inline void append_environment(std::string& key, const char* name) {
    if (const char* value = std::getenv(name)) key += value;
    key += '\0';
}

/// As append_environment for each of `names` (clalgo's CLALGO_* variables), in order, reading the environment
/// once for all of them: a lookup walks the whole environment, which takes a tenth of a microsecond where it is
/// large, and a call reads its variables each time (a program may change them between calls).
inline void append_environment(std::string& key, std::initializer_list<const char*> names) {
    const char* values[8] = {};
    if (names.size() > 8) {
        for (const char* name : names) append_environment(key, name);
        return;
    }
#if !defined(__linux__)
    std::size_t k = 0;
    for (const char* name : names) values[k++] = std::getenv(name);
#else
    for (char** entry = ::environ; entry != nullptr && *entry != nullptr; ++entry) {
        const char* text = *entry;
        if (text[0] != 'C' || text[1] != 'L' || std::strncmp(text, "CLALGO_", 7) != 0) continue;
        std::size_t k = 0;
        for (const char* name : names) {
            const std::size_t length = std::strlen(name);
            // the first definition wins, as getenv's
            if (values[k] == nullptr && std::strncmp(text, name, length) == 0 && text[length] == '=') values[k] = text + length + 1;
            ++k;
        }
    }
#endif
    std::size_t k = 0;
    for (const char* name : names) {
        (void)name;
        if (values[k] != nullptr) key += values[k];
        key += '\0';
        ++k;
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
