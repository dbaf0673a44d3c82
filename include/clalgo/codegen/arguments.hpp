// Kernel argument declarations ("float a, __global const float *x, long n") and the check of a call's C++
// arguments against them. A `*` makes an argument an array (passed as Array<T> or ArrayView<T>), anything else
// is a scalar passed by value (a number, an OpenCL vector type or a registered struct).
//   auto declared = clalgo::parse_arguments("float a, const float *x");   // {a: float}, {x: const float *}
// Malformed declarations and unknown types throw std::invalid_argument naming the piece; so does a call whose
// arguments do not match.
#pragma once

#include <clalgo/core/array.hpp>
#include <clalgo/core/config.hpp>
#include <clalgo/core/queue.hpp>
#include <clalgo/core/range.hpp>
#include <clalgo/core/types.hpp>
#include <clalgo/codegen/names.hpp>
#include <clalgo/codegen/scalar_conversion.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace clalgo {

/// One parsed argument declaration.
struct ArgumentDeclaration {
    /// The argument's name.
    std::string name;
    std::string type;         ///< the OpenCL C element type, canonical ("uint", not "unsigned int")
    bool is_array = false;    ///< declared with '*'
    /// Declared `const`.
    bool is_const = false;
    /// Declared `volatile`.
    bool is_volatile = false;
    /// Declared `restrict`.
    bool is_restrict = false;
    std::string declared;     ///< the piece as the user wrote it

    /// "const float *" or "long": the declared type as it reads in messages.
    std::string type_text() const { return (is_const ? "const " : "") + type + (is_array ? " *" : ""); }
};

namespace detail {

inline std::string trim(const std::string& text) {
    std::size_t begin = 0, end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    return text.substr(begin, end - begin);
}

/// Prefix of every identifier clalgo generates; user names may not start with it.
inline constexpr const char* reserved_prefix = "clalgo_";

}  // namespace detail

/// Parses a comma-separated list of argument declarations. An empty string declares no arguments.
inline std::vector<ArgumentDeclaration> parse_arguments(const std::string& declarations) {
    std::vector<ArgumentDeclaration> parsed;
    if (detail::trim(declarations).empty()) return parsed;
    std::stringstream pieces(declarations);
    std::string piece;
    std::vector<std::string> all_pieces;
    std::set<std::string> names;  // a set: a declaration of many arguments is checked in n log n
    while (std::getline(pieces, piece, ',')) all_pieces.push_back(piece);
    if (!declarations.empty() && declarations.back() == ',') all_pieces.push_back("");
    for (const auto& raw : all_pieces) {
        const std::string text = detail::trim(raw);
        auto fail = [&](const std::string& why) {
            auto head = [](const std::string& quoted) {  // a declaration of megabytes is quoted by its head
                return quoted.size() <= 200 ? quoted : quoted.substr(0, 200) + "...";
            };
            throw std::invalid_argument("clalgo: argument declaration \"" + head(text) + "\" in \"" +
                                        head(declarations) + "\": " + why);
        };
        if (text.empty()) fail("an argument is empty (a stray comma?)");
        std::string spaced;
        for (char c : text) {
            if (c == '*') spaced += " * ";
            else spaced += c;
        }
        std::istringstream words(spaced);
        std::vector<std::string> tokens;
        for (std::string word; words >> word;) tokens.push_back(word);

        ArgumentDeclaration declaration;
        declaration.declared = text;
        declaration.name = tokens.back();
        tokens.pop_back();
        if (declaration.name.size() > detail::max_name_length)
            fail("the name is longer than " + std::to_string(detail::max_name_length) + " characters");
        if (!detail::is_identifier(declaration.name)) fail("'" + declaration.name + "' is not a name");
        if (declaration.name.rfind(detail::reserved_prefix, 0) == 0)
            fail("names starting with '" + std::string(detail::reserved_prefix) + "' are reserved for clalgo");
        bool is_global = false;
        int stars = 0;
        std::vector<std::string> type_words;
        for (const auto& token : tokens) {
            if (token == "*") {
                ++stars;
            } else if (token == "__global" || token == "global") {
                is_global = true;
            } else if (token == "const") {
                declaration.is_const = true;
            } else if (token == "volatile") {
                declaration.is_volatile = true;
            } else if (token == "restrict" || token == "__restrict") {
                declaration.is_restrict = true;
            } else if (token == "__local" || token == "local" || token == "__constant" || token == "constant" ||
                       token == "__private" || token == "private") {
                fail("the address space '" + token + "' is not supported: arrays are __global");
            } else if (detail::is_identifier(token)) {
                if (stars > 0) fail("unexpected " + detail::quoted_head(token) + " after '*'");
                type_words.push_back(token);
            } else {
                fail("unexpected " + detail::quoted_head(token));
            }
        }
        if (type_words.empty()) fail("expected a type and a name");
        if (stars > 1) fail("pointers to pointers are not supported");
        declaration.is_array = stars == 1;
        if (is_global && !declaration.is_array) fail("__global needs a pointer ('*')");
        std::string spelled;
        for (const auto& word : type_words) spelled += (spelled.empty() ? "" : " ") + word;
        declaration.type = detail::canonical_type_name(spelled);
        if (!detail::is_builtin_type_name(declaration.type) && !detail::StructRegistry::instance().find(declaration.type))
            fail("unknown type " + detail::quoted_head(spelled) +
                 " (use an OpenCL C scalar or vector type, or register a struct with clalgo::register_struct)");
        if (!names.insert(declaration.name).second) fail("the name '" + declaration.name + "' is declared twice");
        parsed.push_back(std::move(declaration));
    }
    return parsed;
}

namespace detail {

/// Throws where an argument takes a name the kernel defines itself (`i`, `n`, ...).
inline void reject_reserved_names(const std::vector<ArgumentDeclaration>& declarations,
                                  const std::vector<std::string>& reserved, const std::string& kernel) {
    for (const auto& declaration : declarations)
        if (std::find(reserved.begin(), reserved.end(), declaration.name) != reserved.end())
            throw std::invalid_argument("clalgo: " + kernel + ": an argument may not be called '" +
                                        declaration.name + "': the kernel defines that name itself");
}

inline std::string qualifiers(const ArgumentDeclaration& declaration) {
    return std::string(declaration.is_const ? "const " : "") + (declaration.is_volatile ? "volatile " : "");
}

/// The kernel's parameters for the user's arguments, each after ",\n    ": an array becomes its buffer and an
/// element offset.
inline std::string kernel_parameters(const std::vector<ArgumentDeclaration>& declarations) {
    std::string text;
    for (const auto& declaration : declarations) {
        text += ",\n    ";
        if (declaration.is_array)
            text += "__global " + qualifiers(declaration) + declaration.type + " *" +
                    (declaration.is_restrict ? "restrict " : "") + "clalgo_" + declaration.name + "_base, long clalgo_" +
                    declaration.name + "_offset";
        else
            text += "const " + declaration.type + " " + declaration.name;
    }
    return text;
}

/// Statements that make each array's name point at its first element.
inline std::string array_pointers(const std::vector<ArgumentDeclaration>& declarations) {
    std::string text;
    for (const auto& declaration : declarations)
        if (declaration.is_array)
            text += "__global " + qualifiers(declaration) + declaration.type + " *" +
                    (declaration.is_restrict ? "restrict " : "") + declaration.name + " = clalgo_" + declaration.name +
                    "_base + clalgo_" + declaration.name + "_offset;\n";
    return text;
}

/// A scalar argument's bytes: held in place up to 64 bytes (every OpenCL C scalar and vector type), on the heap
/// beyond (large registered structs). A call binds each argument afresh, and a call's host cost counts at small
/// sizes, so the common case allocates nothing.
class ArgumentBytes {
public:
    const unsigned char* data() const noexcept { return size_ <= sizeof local_ ? local_ : heap_.data(); }
    std::size_t size() const noexcept { return size_; }
    void assign(const void* bytes, std::size_t size) {
        size_ = size;
        if (size <= sizeof local_) {
            heap_.clear();
            if (size > 0) std::memcpy(local_, bytes, size);
        } else {
            const auto* first = static_cast<const unsigned char*>(bytes);
            heap_.assign(first, first + size);
        }
    }
    void assign(const std::vector<unsigned char>& bytes) { assign(bytes.data(), bytes.size()); }

private:
    unsigned char local_[64] = {};
    std::vector<unsigned char> heap_;
    std::size_t size_ = 0;
};

/// An array argument's buffer, lent for the call: no retain and release a call (the caller's array holds the
/// buffer until the call returns). What keeps a bound argument beyond a call holds its buffer itself
/// (clalgo::Argument does).
struct BufferHandle {
    cl_mem memory = nullptr;
    cl_mem operator()() const noexcept { return memory; }
};

/// A C++ call argument, reduced to what a kernel argument needs.
struct BoundArgument {
    /// What the caller passed, for messages.
    enum class Kind { scalar, array, array_view, local_memory };
    Kind kind = Kind::scalar;
    bool is_array = false;
    std::string type;                 ///< OpenCL C element type
    BufferHandle buffer;              ///< arrays
    std::size_t offset = 0;           ///< arrays, in elements
    std::size_t size = 0;             ///< arrays, in elements
    ArgumentBytes bytes;              ///< scalars
    ScalarValue value;                ///< arithmetic scalars: the value, for exact conversions

    /// For messages: "Array<float>", "ArrayView<int>", "double", "clalgo::LocalMemory" (built only for one).
    std::string cpp_type() const {
        switch (kind) {
            case Kind::array: return "Array<" + type + ">";
            case Kind::array_view: return "ArrayView<" + type + ">";
            case Kind::local_memory: return "clalgo::LocalMemory";
            case Kind::scalar: break;
        }
        return type;
    }
};

template <class T>
struct IsArray : std::false_type {};
template <class T>
struct IsArray<Array<T>> : std::true_type {
    using element = T;
};
template <class T>
struct IsArray<ArrayView<T>> : std::true_type {
    using element = T;
};

template <class A>
constexpr bool is_call_option_v = std::is_same_v<std::decay_t<A>, IndexRange> || std::is_same_v<std::decay_t<A>, WaitFor>;

template <class T>
std::string cpp_label() {
    try {
        return type_name<T>();
    } catch (const std::invalid_argument&) {
        return std::string("unregistered type ") + typeid(T).name();
    }
}

/// Sets `type` to cpp_label's text, made once for the types clalgo names without registration (a registered
/// struct's name is looked up each time: it can be registered after a first call).
template <class T>
void set_label(std::string& type) {
    if constexpr (is_builtin_type_v<T>) {
        static const std::string label = type_name<T>();
        if (type != label) type = label;  // a kept argument is usually rebound to the same type
    } else {
        type = cpp_label<T>();
    }
}

/// Binds `argument` into `bound`, overwriting what it held: a caller that keeps its bound arguments between
/// calls (a thread's vector) then builds no strings and allocates nothing.
template <class A>
void bind_into(BoundArgument& bound, const A& argument) {
    using U = std::decay_t<A>;
    if constexpr (IsArray<U>::value) {
        using T = typename IsArray<U>::element;
        bound.kind = std::is_same_v<U, Array<T>> ? BoundArgument::Kind::array : BoundArgument::Kind::array_view;
        bound.is_array = true;
        set_label<T>(bound.type);
        bound.buffer = BufferHandle{argument.buffer()()};
        bound.offset = argument.offset();
        bound.size = argument.size();
        bound.bytes.assign(nullptr, 0);
        bound.value = ScalarValue{};
    } else {
        static_assert(std::is_trivially_copyable_v<U> && !std::is_pointer_v<U>,
                      "clalgo kernel arguments are arrays (Array<T>, ArrayView<T>) or scalars passed by value");
        bound.kind = BoundArgument::Kind::scalar;
        bound.is_array = false;
        set_label<U>(bound.type);
        bound.buffer = BufferHandle{};
        bound.offset = 0;
        bound.size = 0;
        bound.bytes.assign(&argument, sizeof(U));
        bound.value = ScalarValue::of(argument);
    }
}

template <class A>
BoundArgument bind(const A& argument) {
    BoundArgument bound;
    bind_into(bound, argument);
    return bound;
}

/// Binds `arguments` in order into `kept` (a vector the caller keeps between calls, resized to them).
template <class... A>
std::vector<BoundArgument>& bind_all_into(std::vector<BoundArgument>& kept, const A&... arguments) {
    kept.resize(sizeof...(A));
    std::size_t k = 0;
    (bind_into(kept[k++], arguments), ...);
    return kept;
}

/// What a call passed besides the declared arguments.
struct CallOptions {
    std::optional<IndexRange> range;
    std::vector<cl::Event> wait;
};

/// A vector of bound arguments that the calling thread keeps from one call to the next, so that a call binds
/// its arguments in place and allocates nothing once the thread has made a call of as many arguments. Held for
/// the length of a call; a call made while another holds one (a sort computing its keys with an elementwise
/// kernel, a first build) takes the next vector, so nested calls never share one.
class KeptArguments {
public:
    KeptArguments() : frames_(&frames()) {
        const std::size_t depth = frames_->depth;
        if (frames_->vectors.size() == depth) frames_->vectors.emplace_back();  // a deque: the vectors in use stay put
        vector_ = &frames_->vectors[depth];
        ++frames_->depth;  // last: where emplace_back throws, no lease was taken
    }
    ~KeptArguments() { --frames_->depth; }
    KeptArguments(const KeptArguments&) = delete;
    KeptArguments& operator=(const KeptArguments&) = delete;

    std::vector<BoundArgument>& get() const noexcept { return *vector_; }

private:
    struct Frames {
        std::deque<std::vector<BoundArgument>> vectors;
        std::size_t depth = 0;
    };
    static Frames& frames() {
        thread_local Frames kept;
        return kept;
    }

    Frames* frames_;
    std::vector<BoundArgument>* vector_ = nullptr;
};

/// Splits a call's arguments into the declared ones, bound in order into `bound` (resized to them), and the
/// options (an IndexRange, a WaitFor: its events as the wait list of a command on `queue`).
template <class... Args>
std::vector<BoundArgument>& bind_call(std::vector<BoundArgument>& bound, const Queue& queue, CallOptions& options,
                                      const Args&... arguments) {
    bound.resize((std::size_t(0) + ... + std::size_t(!is_call_option_v<Args>)));
    std::size_t k = 0;
    auto one = [&](const auto& argument) {
        using U = std::decay_t<decltype(argument)>;
        if constexpr (std::is_same_v<U, IndexRange>) {
            if (options.range) throw std::invalid_argument("clalgo: a call takes at most one clalgo::range");
            options.range = argument;
        } else if constexpr (std::is_same_v<U, WaitFor>) {
            append_wait_list(queue, argument, options.wait);
        } else {
            bind_into(bound[k++], argument);
        }
    };
    (one(arguments), ...);
    (void)one;  // a call with no arguments uses none
    (void)k;
    return bound;
}

/// Throws std::invalid_argument where `argument` (at 0-based `position`) does not match `declaration`; converts a
/// scalar of another arithmetic type where its value stays the same (codegen/scalar_conversion.hpp).
inline void check_argument(const std::string& kernel, std::size_t position, const ArgumentDeclaration& declaration,
                           BoundArgument& argument) {
    // the common case first, with no message built: a call's host cost counts at small sizes
    if (declaration.is_array == argument.is_array && declaration.type == argument.type) return;
    const std::string where = "clalgo: kernel '" + kernel + "', argument " + std::to_string(position + 1) + " '" +
                              declaration.name + "' is declared '" + declaration.type_text() + "' but ";
    if (declaration.is_array && !argument.is_array)
        throw std::invalid_argument(where + "a scalar " + argument.cpp_type() +
                                    " was given (pass a clalgo::Array or ArrayView)");
    if (!declaration.is_array && argument.is_array)
        throw std::invalid_argument(where + "an array (" + argument.cpp_type() + ") was given");
    if (declaration.type == argument.type) return;
    if (argument.is_array) throw std::invalid_argument(where + "an " + argument.cpp_type() + " was given");
    std::string why;
    if (auto converted = convert_scalar(argument.value, declaration.type, why)) {
        // no value changes: the argument is passed as the declared type
        argument.bytes.assign(*converted);
        argument.type = declaration.type;
        return;
    }
    if (!why.empty())
        throw std::invalid_argument(where + "the " + argument.type + " " + argument.value.text() + " was given, and " +
                                    why + ": cast the value to the declared type");
    throw std::invalid_argument(where + "a " + argument.type + " was given (cast the value to the declared type)");
}

/// Throws std::invalid_argument naming the first argument that does not match its declaration. A scalar of
/// another arithmetic type is converted to the declared one where its value stays the same
/// (codegen/scalar_conversion.hpp): its bytes and type are replaced.
inline void check_arguments(const std::string& kernel, const std::vector<ArgumentDeclaration>& declarations,
                            std::vector<BoundArgument>& arguments) {
    if (declarations.size() != arguments.size()) {
        std::string names;
        for (const auto& declaration : declarations) names += (names.empty() ? "" : ", ") + declaration.declared;
        throw std::invalid_argument("clalgo: kernel '" + kernel + "' takes " + std::to_string(declarations.size()) +
                                    " argument(s) (" + names + ") but " + std::to_string(arguments.size()) +
                                    " were given");
    }
    for (std::size_t k = 0; k < declarations.size(); ++k) check_argument(kernel, k, declarations[k], arguments[k]);
}

/// Sets the declared arguments from index `first` on; returns the index after them.
inline cl_uint set_arguments(cl::Kernel& kernel, cl_uint first, const std::vector<BoundArgument>& arguments) {
    cl_uint index = first;
    for (const auto& argument : arguments) {
        if (argument.is_array) {
            const cl_mem memory = argument.buffer();
            kernel.setArg(index++, sizeof(cl_mem), memory ? &memory : nullptr);
            kernel.setArg(index++, static_cast<cl_long>(argument.offset));
        } else {
            kernel.setArg(index++, argument.bytes.size(), argument.bytes.data());
        }
    }
    return index;
}

/// The indices a call runs over: its clalgo::range, else [0, size of its first array argument).
inline IndexRange call_indices(const std::string& kernel, const std::optional<IndexRange>& range,
                               const std::vector<BoundArgument>& arguments) {
    if (range) return *range;
    for (const auto& argument : arguments)
        if (argument.is_array) return IndexRange{0, static_cast<std::int64_t>(argument.size), 1};
    throw std::invalid_argument("clalgo: kernel '" + kernel +
                                "' has no array argument to take its size from: pass a clalgo::range");
}

}  // namespace detail
}  // namespace clalgo
