// Reading clalgo's environment variables (CLALGO_DEVICE, CLALGO_CACHE_DIR, CLALGO_NO_CACHE,
// CLALGO_BUILD_OPTIONS, CLALGO_PRINT_SOURCE); docs/caching-and-environment.md lists them all.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace clalgo::detail {

/// The variable's value, or nothing where it is unset.
inline std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

/// True where the variable is set to anything but "", "0", "false", "no" or "off".
inline bool environment_flag(const char* name) {
    auto value = environment(name);
    if (!value) return false;
    return !(value->empty() || *value == "0" || *value == "false" || *value == "no" || *value == "off");
}

}  // namespace clalgo::detail
