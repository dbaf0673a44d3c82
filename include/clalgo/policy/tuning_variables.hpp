// The tuning environment variables, each read and checked in one place: a value outside its documented range
// is an error that names the variable and what it accepts, never a silent default.
//   std::optional<std::size_t> items = clalgo::detail::tuning_number("CLALGO_SCAN_ITEMS", 1, 64);
//   std::optional<bool> ballot = clalgo::detail::tuning_switch("CLALGO_SCAN_BALLOT");
#pragma once

#include <clalgo/core/environment.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace clalgo::detail {

/// The variable's whole-number value in [low, high]; nothing where unset or empty; std::invalid_argument naming
/// the variable for anything else.
inline std::optional<std::uint64_t> tuning_number(const char* name, std::uint64_t low, std::uint64_t high) {
    return environment_number(name, low, high);
}

/// The variable as a switch (environment_switch: 1/on/true/yes or 0/off/false/no, any case); nothing where unset
/// or empty.
inline std::optional<bool> tuning_switch(const char* name) { return environment_switch(name); }

/// The variable as one of `choices`; nothing where unset or empty.
inline std::optional<std::string> tuning_choice(const char* name, std::initializer_list<const char*> choices) {
    auto value = environment(name);
    if (!value || value->empty()) return std::nullopt;
    std::string accepted;
    for (const char* choice : choices) {
        if (*value == choice) return *value;
        accepted += (accepted.empty() ? "" : ", ") + std::string(choice);
    }
    throw std::invalid_argument(std::string("clalgo: ") + name + "='" + *value + "': expected one of " + accepted);
}

inline std::size_t power_of_two_at_most(std::size_t value) {
    std::size_t p = 1;
    while (p * 2 <= value) p *= 2;
    return p;
}

}  // namespace clalgo::detail
