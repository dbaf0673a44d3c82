// Scalar call arguments converted to a declared type where no value can change: an integer for any integer type
// whose range holds it or for float/double where the value is exactly representable (5 for float, 3 for long), a
// float for double, a double that is exactly a float. Anything else is refused with the value and the reason:
//   detail::convert_scalar(value_of(16777217), "float")  -> nullopt, why = "float cannot hold it exactly ..."
// Floating-point values are never converted to integer types, and vectors and structs only match exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo::detail {

/// The value of an arithmetic C++ argument, kept beside its bytes so that it can be converted exactly.
struct ScalarValue {
    enum class Kind { none, signed_integer, unsigned_integer, floating } kind = Kind::none;
    std::int64_t signed_value = 0;
    std::uint64_t unsigned_value = 0;
    double floating_value = 0;  ///< a float is held exactly in a double

    template <class U>
    static ScalarValue of(const U& value) {
        ScalarValue held;
        if constexpr (std::is_floating_point_v<U> && sizeof(U) <= sizeof(double)) {
            held.kind = Kind::floating;
            held.floating_value = static_cast<double>(value);
        } else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool> && std::is_signed_v<U>) {
            held.kind = Kind::signed_integer;
            held.signed_value = static_cast<std::int64_t>(value);
        } else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, bool>) {
            held.kind = Kind::unsigned_integer;
            held.unsigned_value = static_cast<std::uint64_t>(value);
        }
        return held;
    }

    /// The value as it reads in messages: "16777217", "0.10000000000000001".
    std::string text() const {
        std::ostringstream out;
        if (kind == Kind::signed_integer) out << signed_value;
        else if (kind == Kind::unsigned_integer) out << unsigned_value;
        else out << std::setprecision(17) << floating_value;
        return out.str();
    }
};

template <class To>
std::vector<unsigned char> bytes_of(To value) {
    std::vector<unsigned char> bytes(sizeof(To));
    std::memcpy(bytes.data(), &value, sizeof(To));
    return bytes;
}

template <class To>
std::string number_text(To value) {
    std::ostringstream out;
    out << std::setprecision(std::numeric_limits<To>::max_digits10) << +value;
    return out.str();
}

/// The bytes of `value` as a `To`, where it is exactly a `To`; else nullopt and `why` (named `target` in it).
template <class To>
std::optional<std::vector<unsigned char>> convert_exactly(const ScalarValue& value, const std::string& target,
                                                          std::string& why) {
    using Kind = ScalarValue::Kind;
    if constexpr (std::is_integral_v<To>) {
        if (value.kind == Kind::floating) {
            why = "a floating-point value is not converted to the integer type " + target;
            return std::nullopt;
        }
        const bool fits = value.kind == Kind::signed_integer
                              ? (std::is_signed_v<To>
                                     ? value.signed_value >= static_cast<std::int64_t>(std::numeric_limits<To>::min()) &&
                                           value.signed_value <= static_cast<std::int64_t>(std::numeric_limits<To>::max())
                                     : value.signed_value >= 0 &&
                                           static_cast<std::uint64_t>(value.signed_value) <=
                                               static_cast<std::uint64_t>(std::numeric_limits<To>::max()))
                              : value.unsigned_value <= static_cast<std::uint64_t>(std::numeric_limits<To>::max());
        if (!fits) {
            why = "it is outside the range of " + target + " [" + number_text(std::numeric_limits<To>::min()) + ", " +
                  number_text(std::numeric_limits<To>::max()) + "]";
            return std::nullopt;
        }
        return bytes_of(value.kind == Kind::signed_integer ? static_cast<To>(value.signed_value)
                                                           : static_cast<To>(value.unsigned_value));
    } else {
        To converted;
        bool exact;
        if (value.kind == Kind::floating) {
            const double d = value.floating_value;
            const bool in_range = std::isnan(d) || std::isinf(d) || std::fabs(d) <= std::numeric_limits<To>::max();
            converted = in_range ? static_cast<To>(d) : (d > 0 ? std::numeric_limits<To>::infinity()
                                                               : -std::numeric_limits<To>::infinity());
            exact = in_range && (std::isnan(d) || static_cast<double>(converted) == d);
        } else if (value.kind == Kind::signed_integer) {
            converted = static_cast<To>(value.signed_value);
            // 2^63 rounds up from the largest values: it is no int64, so the round trip below must not be tried
            exact = converted < static_cast<To>(9223372036854775808.0) &&
                    static_cast<std::int64_t>(converted) == value.signed_value;
        } else {
            converted = static_cast<To>(value.unsigned_value);
            exact = converted < static_cast<To>(18446744073709551616.0) &&
                    static_cast<std::uint64_t>(converted) == value.unsigned_value;
        }
        if (!exact) {
            why = target + " cannot hold it exactly (the nearest " + target + " is " + number_text(converted) + ")";
            return std::nullopt;
        }
        return bytes_of(converted);
    }
}

/// The bytes of `value` as the OpenCL C scalar type `target`, where the value is exactly one; else nullopt and
/// `why`. Targets that are no scalar (vectors, structs) take nothing.
inline std::optional<std::vector<unsigned char>> convert_scalar(const ScalarValue& value, const std::string& target,
                                                                std::string& why) {
    if (value.kind == ScalarValue::Kind::none) return std::nullopt;
    if (target == "char") return convert_exactly<std::int8_t>(value, target, why);
    if (target == "uchar") return convert_exactly<std::uint8_t>(value, target, why);
    if (target == "short") return convert_exactly<std::int16_t>(value, target, why);
    if (target == "ushort") return convert_exactly<std::uint16_t>(value, target, why);
    if (target == "int") return convert_exactly<std::int32_t>(value, target, why);
    if (target == "uint") return convert_exactly<std::uint32_t>(value, target, why);
    if (target == "long") return convert_exactly<std::int64_t>(value, target, why);
    if (target == "ulong") return convert_exactly<std::uint64_t>(value, target, why);
    if (target == "float") return convert_exactly<float>(value, target, why);
    if (target == "double") return convert_exactly<double>(value, target, why);
    return std::nullopt;
}

}  // namespace clalgo::detail
