// Kernel parameters declared once, in C++, and used twice: rendered into the template's parameter list and
// set by name at launch, so the two cannot drift apart. The user's declared arguments follow the library's.
//   const Signature pass{{"long", "n"}, {"__global uint *", "clalgo_counts"}};
//   render("__kernel void k(${signature}${parameters})", {{"signature", library_text(pass.text())}, ...});
//   KernelArguments(kernel, pass).set("n", n).set("clalgo_counts", counts).user(bound);  // throws if one is missing
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/buffer_watch.hpp>
#include <clalgo/core/config.hpp>

#include <algorithm>
#include <stdexcept>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

namespace clalgo::detail {

/// One library parameter of a kernel: its OpenCL C type as written in the parameter list, and its name.
struct Parameter {
    std::string type;
    std::string name;
};

/// The library's parameters of one kernel, in order.
class Signature {
public:
    Signature(std::initializer_list<Parameter> parameters) : parameters_(parameters) {}
    explicit Signature(std::vector<Parameter> parameters) : parameters_(std::move(parameters)) {}

    /// "long n, __global uint *clalgo_counts": the parameter list's text, on one line (the user's parameters
    /// follow it, each on a line of its own).
    std::string text() const {
        std::string out;
        for (const auto& parameter : parameters_)
            out += (out.empty() ? "" : ", ") + parameter.type + (parameter.type.back() == '*' ? "" : " ") + parameter.name;
        return out;
    }

    /// The place of parameter `name`; `guess` is tried first (calls set the parameters in their order, so the one
    /// after the last set is one comparison away).
    std::size_t index(std::string_view name, std::size_t guess = 0) const {
        if (guess < parameters_.size() && parameters_[guess].name == name) return guess;
        for (std::size_t k = 0; k < parameters_.size(); ++k)
            if (parameters_[k].name == name) return k;
        throw std::logic_error("clalgo: no kernel parameter '" + std::string(name) + "'");
    }

    std::size_t size() const noexcept { return parameters_.size(); }

private:
    std::vector<Parameter> parameters_;
};

/// The values last given to each argument of one kernel object. A kernel keeps its arguments between launches,
/// and most repeat from call to call (sizes, offsets, scalars, arrays), so a call that finds a value unchanged need
/// not set it again: clSetKernelArg costs time per argument on some drivers, and a launch after arguments were set
/// may cost more. A buffer counts as unchanged while it is the same live buffer (codegen/buffer_watch.hpp).
struct ArgumentMemo {
    struct Value {
        std::vector<unsigned char> bytes;  ///< a scalar's
        cl_mem buffer = nullptr;           ///< a buffer's handle, with its record
        std::shared_ptr<const WatchedBuffer> watched;
        void clear() {
            bytes.clear();
            buffer = nullptr;
            watched.reset();
        }
    };
    std::vector<Value> values;

    Value& at(std::size_t index) {
        if (values.size() <= index) values.resize(index + 1);
        return values[index];
    }
};

/// Sets a kernel's arguments by name; `user` then sets the user's declared ones after the library's. Checks on
/// `user` (or `done`) that every library parameter was set. With a memo (kept with the kernel object, used under
/// its launch lock), values equal to the last ones set are not set again.
class KernelArguments {
public:
    KernelArguments(cl::Kernel& kernel, const Signature& signature, ArgumentMemo* memo = nullptr)
        : kernel_(kernel), signature_(signature), memo_(memo) {
        if (signature.size() > 64) set_beyond_.assign(signature.size() - 64, false);
    }

    template <class V>
    KernelArguments& set(std::string_view name, const V& value) {
        const std::size_t k = next_index(name);
        if constexpr (std::is_same_v<V, cl::Buffer>) {
            buffer(static_cast<cl_uint>(k), value());
        } else {
            static_assert(std::is_trivially_copyable_v<V>, "kernel arguments are plain values or buffers");
            raw(static_cast<cl_uint>(k), sizeof(V), &value);
        }
        mark_set(k);
        return *this;
    }

    /// Sets a library parameter of a type the host knows only as bytes (a struct the kernel generates).
    KernelArguments& set_bytes(std::string_view name, const std::vector<unsigned char>& bytes) {
        const std::size_t k = next_index(name);
        raw(static_cast<cl_uint>(k), bytes.size(), bytes.data());
        mark_set(k);
        return *this;
    }

    /// Like user, for kernels that take each array's offset and some scalars (`in_struct[k]`) in a struct of
    /// the library's: sets each array's buffer and the other scalars (then, checked, as user does).
    KernelArguments& user_outside_struct(const std::vector<BoundArgument>& bound, const std::vector<bool>& in_struct,
                                         const cl::Buffer* violations = nullptr) {
        done();
        cl_uint index = static_cast<cl_uint>(signature_.size());
        for (std::size_t k = 0; k < bound.size(); ++k) {
            if (bound[k].is_array) buffer(index++, bound[k].buffer());
            else if (k >= in_struct.size() || !in_struct[k]) raw(index++, bound[k].bytes.size(), bound[k].bytes.data());
        }
        return violation_arguments(index, bound, violations);
    }

    /// Sets the user's declared arguments after the library's; with a violation buffer (checked mode), then
    /// the buffer and each array's size (codegen/checked.hpp).
    KernelArguments& user(const std::vector<BoundArgument>& bound, const cl::Buffer* violations = nullptr) {
        done();
        cl_uint index = static_cast<cl_uint>(signature_.size());
        for (const auto& argument : bound) {
            if (argument.is_array) {
                buffer(index++, argument.buffer());
                const cl_long offset = static_cast<cl_long>(argument.offset);
                raw(index++, sizeof offset, &offset);
            } else {
                raw(index++, argument.bytes.size(), argument.bytes.data());
            }
        }
        return violation_arguments(index, bound, violations);
    }

    /// Checked mode's arguments, from `index` on: the violation buffer and each array's size.
    KernelArguments& violation_arguments(cl_uint index, const std::vector<BoundArgument>& bound,
                                         const cl::Buffer* violations) {
        if (violations == nullptr) return *this;
        buffer(index++, (*violations)());
        for (const auto& argument : bound)
            if (argument.is_array) {
                const cl_long size = static_cast<cl_long>(argument.size);
                raw(index++, sizeof size, &size);
            }
        return *this;
    }

    /// Throws std::logic_error where a library parameter was left unset.
    void done() const {
        for (std::size_t k = 0; k < signature_.size(); ++k)
            if (!(k < 64 ? (set_ >> k & 1) != 0 : bool(set_beyond_[k - 64])))
                throw std::logic_error("clalgo: kernel parameter " + std::to_string(k) + " was not set");
    }

private:
    std::size_t next_index(std::string_view name) {
        const std::size_t k = signature_.index(name, next_);
        next_ = k + 1;
        return k;
    }

    void mark_set(std::size_t k) {
        if (k < 64) set_ |= std::uint64_t(1) << k;
        else set_beyond_[k - 64] = true;
    }

    /// Sets buffer argument `index`, unless the memo holds the same live buffer there: a released buffer's handle
    /// can come back as a new buffer's, and a driver may have resolved the old one when its argument was set
    /// (Oclgrind does), so an equal handle alone does not mean the same buffer.
    void buffer(cl_uint index, cl_mem memory) {
        if (!memo_) {
            kernel_.setArg(index, sizeof(cl_mem), memory ? &memory : nullptr);
            return;
        }
        auto& last = memo_->at(index);
        if (memory != nullptr && last.buffer == memory && last.watched && last.watched->alive()) return;
        last.clear();
        kernel_.setArg(index, sizeof(cl_mem), memory ? &memory : nullptr);
        if (memory == nullptr) return;
        last.watched = watch_buffer(memory);
        last.buffer = memory;
    }

    /// Whether `size` bytes at `a` and `b` are equal: the common 4- and 8-byte scalars without a call to memcmp.
    static bool same_bytes(const unsigned char* a, const unsigned char* b, std::size_t size) {
        if (size == 8) {
            std::uint64_t x, y;
            std::memcpy(&x, a, 8);
            std::memcpy(&y, b, 8);
            return x == y;
        }
        if (size == 4) {
            std::uint32_t x, y;
            std::memcpy(&x, a, 4);
            std::memcpy(&y, b, 4);
            return x == y;
        }
        return std::memcmp(a, b, size) == 0;
    }

    /// Sets argument `index` to `size` bytes at `value`, unless the memo has them.
    void raw(cl_uint index, std::size_t size, const void* value) {
        if (memo_) {
            const unsigned char* bytes = static_cast<const unsigned char*>(value);
            auto& last = memo_->at(index);
            if (last.buffer == nullptr && last.bytes.size() == size && size > 0 && same_bytes(last.bytes.data(), bytes, size))
                return;
            last.clear();
            kernel_.setArg(index, size, value);
            last.bytes.assign(bytes, bytes + size);
            return;
        }
        kernel_.setArg(index, size, value);
    }

    cl::Kernel& kernel_;
    const Signature& signature_;
    std::uint64_t set_ = 0;          ///< bit k: library parameter k was set (k < 64)
    std::size_t next_ = 0;           ///< the parameter after the last one set: the likely next
    std::vector<bool> set_beyond_;  ///< parameters 64 on (a list builder of many lists), where there are any
    ArgumentMemo* memo_ = nullptr;
};

}  // namespace clalgo::detail
