// Kernel parameters declared once, in C++, and used twice: rendered into the template's parameter list and
// set by name at launch, so the two cannot drift apart. The user's declared arguments follow the library's.
//   const Signature pass{{"long", "n"}, {"__global uint *", "clalgo_counts"}};
//   render("__kernel void k(${signature}${parameters})", {{"signature", library_text(pass.text())}, ...});
//   KernelArguments(kernel, pass).set("n", n).set("clalgo_counts", counts).user(bound);  // throws if one is missing
#pragma once

#include <clalgo/codegen/arguments.hpp>
#include <clalgo/core/config.hpp>

#include <stdexcept>
#include <string>
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

    /// "long n, __global uint *clalgo_counts": the parameter list's text (the user's parameters follow it).
    std::string text() const {
        std::string out;
        for (const auto& parameter : parameters_)
            out += (out.empty() ? "" : ",\n    ") + parameter.type + (parameter.type.back() == '*' ? "" : " ") + parameter.name;
        return out;
    }

    std::size_t index(const std::string& name) const {
        for (std::size_t k = 0; k < parameters_.size(); ++k)
            if (parameters_[k].name == name) return k;
        throw std::logic_error("clalgo: no kernel parameter '" + name + "'");
    }

    std::size_t size() const noexcept { return parameters_.size(); }

private:
    std::vector<Parameter> parameters_;
};

/// Sets a kernel's arguments by name; `user` then sets the user's declared ones after the library's. Checks on
/// `user` (or `done`) that every library parameter was set.
class KernelArguments {
public:
    KernelArguments(cl::Kernel& kernel, const Signature& signature)
        : kernel_(kernel), signature_(signature), set_(signature.size(), false) {}

    template <class V>
    KernelArguments& set(const std::string& name, const V& value) {
        const std::size_t k = signature_.index(name);
        if constexpr (std::is_same_v<V, cl::Buffer>) {
            const cl_mem memory = value();
            kernel_.setArg(static_cast<cl_uint>(k), sizeof(cl_mem), memory ? &memory : nullptr);
        } else {
            kernel_.setArg(static_cast<cl_uint>(k), value);
        }
        set_[k] = true;
        return *this;
    }

    /// Sets the user's declared arguments after the library's.
    KernelArguments& user(const std::vector<BoundArgument>& bound) {
        done();
        set_arguments(kernel_, static_cast<cl_uint>(signature_.size()), bound);
        return *this;
    }

    /// Throws std::logic_error where a library parameter was left unset.
    void done() const {
        for (std::size_t k = 0; k < set_.size(); ++k)
            if (!set_[k]) throw std::logic_error("clalgo: kernel parameter " + std::to_string(k) + " was not set");
    }

private:
    cl::Kernel& kernel_;
    const Signature& signature_;
    std::vector<bool> set_;
};

}  // namespace clalgo::detail
