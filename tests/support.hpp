// Shared by the tests: the device under test (the default device: PoCL on CI), random data, type lists.
#pragma once

#include <clalgo/clalgo.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <exception>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace clalgo_test {

inline clalgo::Context& context() {
    static clalgo::Context ctx = clalgo::Context::default_context();
    return ctx;
}

inline clalgo::Queue& queue() {
    static clalgo::Queue q(context());
    return q;
}

inline bool has_fp64() { return queue().info().has_fp64; }

/// n random values of T, small enough that sums of millions of them stay exact in T's range where it is an
/// integer, and in [-1, 1) where it is floating point.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed = 42) {
    std::mt19937_64 engine(seed);
    std::vector<T> values(n);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        for (auto& v : values) v = static_cast<T>(dist(engine));
    } else {
        std::uniform_int_distribution<int> dist(std::is_signed_v<T> ? -50 : 0, 100);
        for (auto& v : values) v = static_cast<T>(dist(engine));
    }
    return values;
}

/// Every scalar type clalgo supports.
using ScalarTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                                     std::uint32_t, std::int64_t, std::uint64_t, float, double>;

/// Skips the current test where T is double and the device lacks fp64.
#define CLALGO_SKIP_WITHOUT_FP64(T)                                                            \
    do {                                                                                       \
        if (std::is_same_v<T, double> && !clalgo_test::has_fp64()) GTEST_SKIP() << "no fp64"; \
    } while (0)

/// Passes where `text` contains `part`; a failure shows both.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << part << "\" is not in:\n" << text;
}

/// The what() of the exception of type E that `action` throws; fails the test (and returns "") where it
/// throws nothing or something else.
template <class E, class Action>
std::string message_of(Action&& action) {
    try {
        action();
    } catch (const E& error) {
        return error.what();
    } catch (const std::exception& other) {
        ADD_FAILURE() << "expected " << typeid(E).name() << ", got " << typeid(other).name() << ": " << other.what();
        return "";
    }
    ADD_FAILURE() << "expected " << typeid(E).name() << ", nothing was thrown";
    return "";
}

/// The scan algorithms a test runs through, and their names for messages.
inline const clalgo::ScanAlgorithm every_algorithm[] = {clalgo::ScanAlgorithm::serial,
                                                        clalgo::ScanAlgorithm::reduce_then_scan,
                                                        clalgo::ScanAlgorithm::single_pass,
                                                        clalgo::ScanAlgorithm::chained};

inline const char* name_of(clalgo::ScanAlgorithm algorithm) {
    switch (algorithm) {
        case clalgo::ScanAlgorithm::serial: return "serial";
        case clalgo::ScanAlgorithm::reduce_then_scan: return "reduce_then_scan";
        case clalgo::ScanAlgorithm::single_pass: return "single_pass";
        case clalgo::ScanAlgorithm::chained: return "chained";
        default: return "automatic";
    }
}

/// OpenCL C spellings of T's lowest and highest values: the neutral elements of max and min.
template <class T>
std::pair<std::string, std::string> cl_limits() {
    if constexpr (std::is_floating_point_v<T>) return {"-INFINITY", "INFINITY"};
    else if constexpr (std::is_same_v<T, std::int8_t>) return {"CHAR_MIN", "CHAR_MAX"};
    else if constexpr (std::is_same_v<T, std::uint8_t>) return {"0", "UCHAR_MAX"};
    else if constexpr (std::is_same_v<T, std::int16_t>) return {"SHRT_MIN", "SHRT_MAX"};
    else if constexpr (std::is_same_v<T, std::uint16_t>) return {"0", "USHRT_MAX"};
    else if constexpr (std::is_same_v<T, std::int32_t>) return {"INT_MIN", "INT_MAX"};
    else if constexpr (std::is_same_v<T, std::uint32_t>) return {"0", "UINT_MAX"};
    else if constexpr (std::is_same_v<T, std::int64_t>) return {"LONG_MIN", "LONG_MAX"};
    else return {"0", "ULONG_MAX"};
}

/// T's lowest and highest values (the infinities for floating-point types).
template <class T>
T lowest() {
    return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
}

template <class T>
T highest() {
    return std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}

/// Sets (or, with no value, unsets) an environment variable for a scope, then restores it.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const std::optional<std::string>& value) : name_(name) {
        if (const char* old = std::getenv(name)) previous_ = old;
        if (value) ::setenv(name, value->c_str(), 1);
        else ::unsetenv(name);
    }
    ~ScopedVariable() {
        if (previous_) ::setenv(name_, previous_->c_str(), 1);
        else ::unsetenv(name_);
    }
    ScopedVariable(const ScopedVariable&) = delete;
    ScopedVariable& operator=(const ScopedVariable&) = delete;

private:
    const char* name_;
    std::optional<std::string> previous_;
};

/// x -> mul * x + add over 64-bit integers: composing such maps is associative but not commutative, the test of
/// every combine that must keep its operands' order. Registered as the OpenCL C struct `affine`.
struct Affine {
    std::uint64_t mul, add;
    bool operator==(const Affine& other) const { return mul == other.mul && add == other.add; }
};

inline void register_affine() {
    static const bool registered = [] {
        clalgo::register_struct<Affine>("affine", "typedef struct { ulong mul, add; } affine;",
                                        {CLALGO_FIELD(Affine, mul), CLALGO_FIELD(Affine, add)});
        return true;
    }();
    (void)registered;
}

/// a first, then b (on the host, and as the OpenCL C expression over a and b)
inline Affine then(Affine a, Affine b) { return {a.mul * b.mul, b.mul * a.add + b.add}; }
inline constexpr const char* affine_then = "(affine){a.mul * b.mul, b.mul * a.add + b.add}";

/// A user event that holds back the commands that wait for it; open at the latest when the scope ends, so that a
/// failed test does not leave its queue blocked.
struct Gate {
    explicit Gate(const clalgo::Context& context) : event(context.get()) {}
    ~Gate() { open(); }
    void open() {
        if (!opened) event.setStatus(CL_COMPLETE);
        opened = true;
    }
    cl::UserEvent event;
    bool opened = false;
};

}  // namespace clalgo_test
