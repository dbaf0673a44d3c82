// C++ types and their OpenCL C names: every fixed-width integer, float, double, the OpenCL vector types
// (cl_float4 -> "float4", ...), std::complex<float> and <double> ("float2", "double2": real in .x, imaginary in
// .y) and user structs registered with their OpenCL C definition.
//   clalgo::type_name<std::int64_t>()  == "long"
//   struct MinMax { float lo, hi; std::int64_t where; };
//   clalgo::register_struct<MinMax>("min_max", "typedef struct { float lo, hi; long where; } min_max;",
//                                   {CLALGO_FIELD(MinMax, lo), CLALGO_FIELD(MinMax, hi), CLALGO_FIELD(MinMax, where)});
// Or declared once, the OpenCL C definition written from the fields' C++ types:
//   clalgo::adapt_struct<MinMax>("min_max", {CLALGO_FIELD(MinMax, lo), CLALGO_FIELD(MinMax, hi), CLALGO_FIELD(MinMax, where)});
// A registered struct's size and field offsets are checked on each device before its first use.
#pragma once

#include <clalgo/core/config.hpp>

#include <cctype>
#include <complex>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <vector>

namespace clalgo {

/// One field of a registered struct: its name in the OpenCL C definition and its offset in the C++ struct, and
/// for adapt_struct its OpenCL C type ("" where it has none) and element count (a C++ array member: its length).
struct StructField {
    /// The field's name in the OpenCL C definition.
    std::string name;
    /// The field's offset in the C++ struct, in bytes.
    std::size_t offset;
    /// The field's OpenCL C type.
    std::string type;
    /// How many elements: a C++ array member's length, else 1.
    std::size_t count = 1;
};

/// `CLALGO_FIELD(MyStruct, member)`: the field's name, C++ offset and type, for register_struct and adapt_struct.
#define CLALGO_FIELD(Type, member) \
    ::clalgo::detail::make_field<decltype(Type::member)>(#member, offsetof(Type, member))

namespace detail {

struct StructInfo {
    std::string name;        ///< the OpenCL C type name
    std::string definition;  ///< OpenCL C that defines it
    std::size_t size;        ///< sizeof in C++
    std::vector<StructField> fields;
    std::type_index type;
    std::vector<std::string> uses;  ///< registered structs its definition names, defined before it
};

class StructRegistry {
public:
    static StructRegistry& instance() {
        static StructRegistry registry;
        return registry;
    }

    void add(StructInfo info) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto by_name = by_name_.find(info.name);
        if (by_name != by_name_.end() && by_name->second->type != info.type)
            throw std::invalid_argument("clalgo::register_struct: the OpenCL C name '" + info.name +
                                        "' is already registered for another C++ type");
        auto shared = std::make_shared<const StructInfo>(std::move(info));
        by_name_[shared->name] = shared;
        by_type_.erase(shared->type);
        by_type_.emplace(shared->type, shared);
    }

    std::shared_ptr<const StructInfo> find(const std::string& name) const {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = by_name_.find(name);
        return it == by_name_.end() ? nullptr : it->second;
    }

    std::shared_ptr<const StructInfo> find(std::type_index type) const {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = by_type_.find(type);
        return it == by_type_.end() ? nullptr : it->second;
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<const StructInfo>> by_name_;
    std::map<std::type_index, std::shared_ptr<const StructInfo>> by_type_;
};

template <class T>
struct VectorTypeName {
    static constexpr const char* value = nullptr;
};
#define CLALGO_VECTOR_TYPE(base)                                                               \
    template <> struct VectorTypeName<cl_##base##2> { static constexpr const char* value = #base "2"; };   \
    template <> struct VectorTypeName<cl_##base##4> { static constexpr const char* value = #base "4"; };   \
    template <> struct VectorTypeName<cl_##base##8> { static constexpr const char* value = #base "8"; };   \
    template <> struct VectorTypeName<cl_##base##16> { static constexpr const char* value = #base "16"; };
CLALGO_VECTOR_TYPE(char)
CLALGO_VECTOR_TYPE(uchar)
CLALGO_VECTOR_TYPE(short)
CLALGO_VECTOR_TYPE(ushort)
CLALGO_VECTOR_TYPE(int)
CLALGO_VECTOR_TYPE(uint)
CLALGO_VECTOR_TYPE(long)
CLALGO_VECTOR_TYPE(ulong)
CLALGO_VECTOR_TYPE(float)
CLALGO_VECTOR_TYPE(double)
#undef CLALGO_VECTOR_TYPE
// std::complex<F> is (real, imaginary) in memory, as float2 and double2 are (x, y)
template <> struct VectorTypeName<std::complex<float>> { static constexpr const char* value = "float2"; };
template <> struct VectorTypeName<std::complex<double>> { static constexpr const char* value = "double2"; };

/// The OpenCL C name of an arithmetic C++ type, by signedness and width (so int64_t is "long" whatever the
/// platform calls it); nullptr for a type with none.
template <class T>
constexpr const char* scalar_type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, bool> || !std::is_integral_v<T>) return nullptr;
    else if constexpr (sizeof(T) == 1) return std::is_signed_v<T> ? "char" : "uchar";
    else if constexpr (sizeof(T) == 2) return std::is_signed_v<T> ? "short" : "ushort";
    else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? "int" : "uint";
    else if constexpr (sizeof(T) == 8) return std::is_signed_v<T> ? "long" : "ulong";
    else return nullptr;
}

inline bool is_builtin_type_name(const std::string& name) {
    static const char* const scalars[] = {"char", "uchar", "short", "ushort", "int",   "uint",
                                          "long", "ulong", "float", "double"};
    for (const char* scalar : scalars) {
        const std::string base(scalar);
        if (name == base) return true;
        for (const char* width : {"2", "4", "8", "16"})
            if (name == base + width) return true;
    }
    return false;
}

}  // namespace detail

/// True for the C++ types clalgo can name in OpenCL C without registration.
template <class T>
constexpr bool is_builtin_type_v =
    detail::scalar_type_name<T>() != nullptr || detail::VectorTypeName<T>::value != nullptr;

namespace detail {
template <class T>
void add_struct(std::string name, std::string definition, std::vector<StructField> fields, std::vector<std::string> uses);
}  // namespace detail

/// Registers a trivially copyable C++ struct under an OpenCL C name with the OpenCL C `definition` of that
/// name. Kernels that use the name get the definition prepended; do not repeat it in a preamble.
template <class T>
void register_struct(std::string name, std::string definition, std::vector<StructField> fields) {
    detail::add_struct<T>(std::move(name), std::move(definition), std::move(fields), {});
}

namespace detail {

template <class T>
void add_struct(std::string name, std::string definition, std::vector<StructField> fields, std::vector<std::string> uses) {
    static_assert(std::is_trivially_copyable_v<T>, "clalgo::register_struct needs a trivially copyable type");
    static_assert(!is_builtin_type_v<T>, "clalgo::register_struct: this type already has an OpenCL C name");
    if (name.empty() || definition.find(name) == std::string::npos)
        throw std::invalid_argument("clalgo::register_struct: the definition must define the name '" + name + "'");
    for (const auto& field : fields)
        if (field.offset >= sizeof(T))
            throw std::invalid_argument("clalgo::register_struct: field '" + field.name + "' lies outside '" +
                                        name + "'");
    StructRegistry::instance().add(
        StructInfo{std::move(name), std::move(definition), sizeof(T), std::move(fields), typeid(T), std::move(uses)});
}

/// The definitions of a registered struct and of the structs it uses (those first), each once per `defined`.
inline std::string struct_definitions(const std::string& type, std::set<std::string>& defined) {
    auto registered = StructRegistry::instance().find(type);
    if (!registered || !defined.insert(type).second) return "";
    std::string text;
    for (const auto& used : registered->uses) text += struct_definitions(used, defined);
    return text + registered->definition + "\n";
}

}  // namespace detail

namespace detail {

/// The field of CLALGO_FIELD: a member of C++ type M. Never refuses a type (register_struct's definition is
/// hand-written): one with no OpenCL C name gets the type "", which adapt_struct refuses.
template <class M>
StructField make_field(std::string name, std::size_t offset) {
    StructField field{std::move(name), offset, "", 1};
    using U = std::remove_cv_t<M>;
    if constexpr (std::is_array_v<U>) {
        field = make_field<std::remove_extent_t<U>>(field.name, offset);
        field.count *= std::extent_v<U>;
    } else if constexpr (scalar_type_name<U>() != nullptr) {
        field.type = scalar_type_name<U>();
    } else if constexpr (VectorTypeName<U>::value != nullptr) {
        field.type = VectorTypeName<U>::value;
    } else if (auto info = StructRegistry::instance().find(std::type_index(typeid(U)))) {
        field.type = info->name;  // a struct registered before this one
    }
    return field;
}

template <class T>
struct IsStdComplex : std::false_type {};
template <class T>
struct IsStdComplex<std::complex<T>> : std::true_type {};
}  // namespace detail

/// The OpenCL C name of T; throws std::invalid_argument for a struct that was never registered. Types that can
/// never have one are refused at compile time.
template <class T>
std::string type_name() {
    using U = std::remove_cv_t<T>;
    static_assert(!std::is_same_v<U, bool>,
                  "clalgo: bool has no OpenCL C type of a fixed size: use std::uint8_t (uchar) or int instead");
    static_assert(!std::is_same_v<U, long double>, "clalgo: long double has no OpenCL C type: use double instead");
    static_assert(!detail::IsStdComplex<U>::value || detail::VectorTypeName<U>::value != nullptr,
                  "clalgo: std::complex<long double> has no OpenCL C type: use std::complex<double> (double2)");
    if constexpr (detail::scalar_type_name<U>() != nullptr) {
        return detail::scalar_type_name<U>();
    } else if constexpr (detail::VectorTypeName<U>::value != nullptr) {
        return detail::VectorTypeName<U>::value;
    } else {
        if (auto info = detail::StructRegistry::instance().find(std::type_index(typeid(U)))) return info->name;
        throw std::invalid_argument(std::string("clalgo: the C++ type '") + typeid(U).name() +
                                    "' has no OpenCL C name; register it with clalgo::register_struct");
    }
}

namespace detail {

/// A type name as a user might spell it in C++ or OpenCL C, mapped to the OpenCL C name when clalgo knows the
/// type ("unsigned int" -> "uint", "int64_t" -> "long"); otherwise returned unchanged.
inline std::string canonical_type_name(const std::string& spelled) {
    static const std::map<std::string, std::string> aliases = {
        {"unsigned char", "uchar"}, {"signed char", "char"},   {"unsigned short", "ushort"},
        {"unsigned int", "uint"},   {"unsigned", "uint"},      {"signed int", "int"},
        {"unsigned long", "ulong"}, {"signed long", "long"},   {"int8_t", "char"},
        {"uint8_t", "uchar"},       {"int16_t", "short"},      {"uint16_t", "ushort"},
        {"int32_t", "int"},         {"uint32_t", "uint"},      {"int64_t", "long"},
        {"uint64_t", "ulong"},      {"cl_char", "char"},       {"cl_uchar", "uchar"},
        {"cl_short", "short"},      {"cl_ushort", "ushort"},   {"cl_int", "int"},
        {"cl_uint", "uint"},        {"cl_long", "long"},       {"cl_ulong", "ulong"},
        {"cl_float", "float"},      {"cl_double", "double"}};
    auto it = aliases.find(spelled);
    return it == aliases.end() ? spelled : it->second;
}

/// The size in bytes of an OpenCL C type clalgo knows (a builtin scalar or vector, or a registered struct);
/// 0 for any other name.
inline std::size_t type_size(const std::string& name) {
    static const std::map<std::string, std::size_t> scalars = {
        {"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"int", 4},    {"uint", 4},
        {"long", 8}, {"ulong", 8}, {"float", 4}, {"double", 8}};
    for (const auto& [scalar, size] : scalars) {
        if (name == scalar) return size;
        for (std::size_t width : {2, 4, 8, 16})
            if (name == scalar + std::to_string(width)) return size * width;
    }
    if (auto info = StructRegistry::instance().find(name)) return info->size;
    return 0;
}

inline bool is_type_identifier(const std::string& text) {
    if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
    for (char c : text)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

/// Whether code that uses this OpenCL C type needs double precision.
inline bool type_needs_fp64(const std::string& name) {
    if (name.rfind("double", 0) == 0) return true;
    if (auto info = StructRegistry::instance().find(name)) {
        if (info->definition.find("double") != std::string::npos) return true;
        for (const auto& used : info->uses)
            if (type_needs_fp64(used)) return true;
    }
    return false;
}

}  // namespace detail

/// Registers a trivially copyable C++ struct under an OpenCL C name, writing its OpenCL C definition from the
/// fields (declared once, in C++): each CLALGO_FIELD gives its name, offset and type (a number, an OpenCL vector,
/// std::complex, a struct registered before, or a C++ array of one of those). List every field, in the order of
/// the struct; the size and offsets are checked on each device before first use, as for register_struct.
///   clalgo::adapt_struct<Particle>("particle", {CLALGO_FIELD(Particle, position), CLALGO_FIELD(Particle, mass)});
template <class T>
void adapt_struct(std::string name, std::vector<StructField> fields) {
    static_assert(std::is_trivially_copyable_v<T>, "clalgo::adapt_struct needs a trivially copyable type");
    static_assert(!is_builtin_type_v<T>, "clalgo::adapt_struct: this type already has an OpenCL C name");
    const std::string where = "clalgo::adapt_struct '" + name + "': ";
    if (!detail::is_type_identifier(name)) throw std::invalid_argument(where + "the name is not an OpenCL C name");
    if (fields.empty()) throw std::invalid_argument(where + "list the struct's fields with CLALGO_FIELD");
    std::string definition = "typedef struct {\n";
    std::vector<std::string> uses;
    std::size_t end = 0;
    for (const auto& field : fields) {
        if (field.type.empty())
            throw std::invalid_argument(where + "field '" + field.name +
                                        "' has a C++ type with no OpenCL C name (bool, a pointer, an unregistered "
                                        "struct ...): give its OpenCL C definition to clalgo::register_struct instead");
        if (field.offset < end)
            throw std::invalid_argument(where + "field '" + field.name +
                                        "' overlaps the one before it: list the fields in the order of the struct");
        if (!detail::is_builtin_type_name(field.type)) uses.push_back(field.type);
        end = field.offset + detail::type_size(field.type) * field.count;
        if (end > sizeof(T)) throw std::invalid_argument(where + "field '" + field.name + "' lies outside the struct");
        definition += "    " + field.type + " " + field.name +
                      (field.count > 1 ? "[" + std::to_string(field.count) + "]" : std::string()) + ";\n";
    }
    definition += "} " + name + ";";
    detail::add_struct<T>(std::move(name), std::move(definition), std::move(fields), std::move(uses));
}

}  // namespace clalgo
