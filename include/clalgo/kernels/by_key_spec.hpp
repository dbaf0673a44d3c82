// What shapes a by-key kernel (reduce_by_key, unique_by_key): the types, the operator and its neutral, the
// user's helpers. Shared by the scan-based kernel (kernels/by_key.hpp) and the tile kernel
// (kernels/reduce_by_key_tile.hpp).
#pragma once

#include <clalgo/policy/scan.hpp>

#include <string>

namespace clalgo::detail {

/// Everything that shapes a by-key kernel's source.
struct ByKeySpec {
    std::string name = "reduce_by_key";
    std::string key_type;    ///< OpenCL C scalar or vector type, compared with ==
    std::string value_type;  ///< any type clalgo knows
    bool fold = true;        ///< reduce_by_key; false: unique_by_key (each run's first key and value)
    std::string reduce_expr, neutral;  ///< fold only: the user's operator over a and b, and its identity
    std::string preamble;              ///< the user's helpers for the operator
    std::string build_options;
    ScanAlgorithm algorithm = ScanAlgorithm::automatic;

    /// Vector keys (their type names end in their width) are compared with any(a != b).
    bool vector_key() const { return key_type.find_first_of("0123456789") != std::string::npos; }

    std::string arguments() const {
        return "const " + key_type + " *keys, const " + value_type + " *values, " + key_type + " *keys_out, " +
               value_type + " *values_out, long *count, long room";
    }

    /// Appends a key that differs wherever the source differs to `text`.
    void append_key(std::string& text) const {
        text += name;
        for (const std::string* part : {&key_type, &value_type, &reduce_expr, &neutral, &preamble, &build_options}) {
            text += '\0';
            text += *part;
        }
        text += '\0';
        text += fold ? '1' : '0';
        text += static_cast<char>('0' + static_cast<int>(algorithm));
    }
};

}  // namespace clalgo::detail
