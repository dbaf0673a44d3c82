// ListOfListsBuilder (PyOpenCL's): every index i appends any number of items to lists of its own, through
// `APPEND_<list>(value)` in a user statement. A first pass counts, an exclusive scan turns the counts into
// offsets, a second pass writes the items.
//   clalgo::ListOfListsBuilder builder(ctx, {{"divisors", "long"}},
//       "for (long d = 1; d <= i; ++d) if (i % d == 0) APPEND_divisors(d);", "");
//   auto lists = builder(q, clalgo::range(0, 100));
//   auto divisors = lists.get<std::int64_t>("divisors");  // .items, .offsets (n + 1), .count
//   // index k's items are divisors.items[offsets[k] .. offsets[k+1])
#pragma once

#include <clalgo/cl/list_builder.cl.hpp>
#include <clalgo/codegen/arguments.hpp>
#include <clalgo/codegen/call_checks.hpp>
#include <clalgo/codegen/checked.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/kernels/scan.hpp>
#include <clalgo/policy/segments.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo {

/// One list a ListOfListsBuilder fills: its name (APPEND_<name>) and the OpenCL C type of its items.
struct ListSpec {
    /// The list's name: the statement appends to it with APPEND_<name>(value).
    std::string name;
    /// The OpenCL C type of its items.
    std::string type;
};

/// What a ListOfListsBuilder may add: a name, helper code, compiler options, checked mode.
struct ListOfListsOptions {
    std::string name = "build_lists";  ///< the kernels' names start with it
    std::string preamble;              ///< OpenCL C helpers for the statement
    /// Passed to the OpenCL compiler.
    std::string build_options;
    /// Checked mode: bounds-check every access name[index] of the statement to an array argument
    /// (OutOfBoundsError, after the pass that made it). CLALGO_CHECKED=1 turns it on for every builder.
    bool checked = false;
};

/// One built list: items of index k at items[offsets[k] .. offsets[k+1]), `count` items in all.
template <class T>
struct BuiltList {
    /// The items of every index, one after the other.
    ArrayView<T> items;
    ArrayView<std::int64_t> offsets;  ///< n + 1 elements; offsets[n] == count
    /// How many items in all.
    std::int64_t count = 0;
};

/// The lists of one call, by name.
class BuiltLists {
public:
    /// One list as the builder keeps it: its type name, its items' buffer, its offsets and its count.
    struct Stored {
        /// The OpenCL C type of the items.
        std::string type;
        detail::PooledBuffer items;  ///< from the context's MemoryPool
        /// n + 1 offsets into the items.
        Array<std::int64_t> offsets;
        /// How many items in all.
        std::int64_t count = 0;
    };

    /// The list `name`, whose items must be of type T; std::invalid_argument otherwise.
    template <class T>
    BuiltList<T> get(const std::string& name) const {
        auto found = lists_.find(name);
        if (found == lists_.end()) throw std::invalid_argument("clalgo::ListOfListsBuilder: no list '" + name + "'");
        if (found->second.type != type_name<T>())
            throw std::invalid_argument("clalgo::ListOfListsBuilder: list '" + name + "' holds " + found->second.type +
                                        ", not " + type_name<T>());
        const Stored& list = found->second;
        return BuiltList<T>{ArrayView<T>(list.items.buffer(), 0, static_cast<std::size_t>(list.count)), list.offsets.view(),
                            list.count};
    }

    /// The lists by name, for the builder that fills them.
    std::map<std::string, Stored>& stored() { return lists_; }

private:
    std::map<std::string, Stored> lists_;
};

/// PyOpenCL's ListOfListsBuilder: a statement run for every index appends items to named lists; two passes
/// (count, then write) give index i its items at offsets[i] .. offsets[i+1] of each list.
class ListOfListsBuilder {
public:
    /// `generate`: a statement over i, n and `arguments` (declarations as in ElementwiseKernel) that calls
    /// APPEND_<list>(value) for the lists in `lists`; it must append the same items when run twice.
    ListOfListsBuilder(const Context& context, std::vector<ListSpec> lists, const std::string& generate,
                       const std::string& arguments, ListOfListsOptions options = {})
        : lists_(std::move(lists)), declarations_(parse_arguments(arguments)), options_(std::move(options)),
          checked_(declarations_, options_.checked), signature_(parameters(lists_)), scan_(context, "a+b", "0") {
        const std::string where = "clalgo::ListOfListsBuilder " + detail::quoted_head(options_.name);
        detail::check_kernel_name(where, options_.name);
        if (lists_.empty()) throw std::invalid_argument(where + ": no lists");
        detail::reject_reserved_names(declarations_, {"i", "n"}, where);
        indexed_ = detail::indexed_by_launch_index(declarations_, {generate, options_.preamble});
        std::vector<std::string> types;
        for (const auto& declaration : declarations_) types.push_back(declaration.type);
        std::string count_start, count_appends, count_end, count_total, write_start, write_appends, undefine;
        for (const auto& list : lists_) {
            detail::check_name(where, "list name", list.name);
            for (const auto& other : lists_)
                if (&other != &list && other.name == list.name)
                    throw std::invalid_argument(where + ": two lists are named '" + list.name + "'");
            const std::string type = detail::canonical_type_name(list.type);
            if (detail::type_size(type) == 0)
                throw std::invalid_argument(where + ": list '" + list.name + "' has the unknown type '" + list.type + "'");
            types.push_back(type);
            const std::string p = "clalgo_" + list.name;
            count_start += "long " + p + "_at = 0;\n";
            count_appends += "#define APPEND_" + list.name + "(value) do { ++" + p + "_at; } while (0)\n";
            count_end += p + "_offsets[clalgo_k] = " + p + "_at;\n";
            count_total += p + "_offsets[n] = 0;\n";
            write_start += "long " + p + "_at = " + p + "_offsets[clalgo_k];\nconst long " + p + "_end = " + p +
                           "_offsets[clalgo_k + 1];\n";
            write_appends += "#define APPEND_" + list.name + "(value) do { if (" + p + "_at < " + p + "_end) " + p +
                             "_items[" + p + "_at++] = (value); } while (0)\n";
            undefine += "#undef APPEND_" + list.name + "\n";
        }
        const std::string user_parameters = detail::kernel_parameters(declarations_) + checked_.parameters();
        auto render = [&](const DeviceInfo& info) {
            return detail::render(
                detail::cl_source::list_builder,
                {{"prologue", detail::library_text(detail::program_prologue(info, types) + checked_.helpers())},
                 {"preamble", detail::user_text("preamble", options_.preamble)},
                 {"contiguous_chunks", detail::library_text(list_builder_policy(info, 0).contiguous_chunks ? "1" : "0")},
                 {"name", detail::library_text(options_.name)},
                 {"signature", detail::library_text(signature_.text())},
                 {"parameters", detail::library_text(user_parameters)},
                 {"array_pointers", detail::library_text(detail::array_pointers(declarations_))},
                 {"count_start", detail::library_text(count_start)},
                 {"count_appends", detail::library_text(count_appends)},
                 {"count_end", detail::library_text(count_end)},
                 {"count_total", detail::library_text(count_total)},
                 {"write_start", detail::library_text(write_start)},
                 {"write_appends", detail::library_text(write_appends)},
                 {"undefine_appends", detail::library_text(undefine)},
                 {"generate", detail::user_text("generate", checked_.text(generate))}});
        };
        program_ = detail::KernelProgram(context, render, options_.build_options,
                                         detail::BuildLabel{options_.name, {{"generate", generate}, {"preamble", options_.preamble}}},
                                         types, {options_.name + "_count", options_.name + "_write"});
    }

    /// Builds the lists over [0, size of the first array argument), or a clalgo::range among the arguments.
    /// Blocks until the counts are known (to allocate the items); the items are written asynchronously.
    template <class... Args>
    BuiltLists operator()(const Queue& queue, const Args&... arguments) const {
        detail::CallOptions call;
        const detail::KeptArguments kept;  // bound in place, in a vector the thread keeps
        auto& bound = detail::bind_call(kept.get(), queue, call, arguments...);
        detail::check_arguments(options_.name, declarations_, bound);
        const IndexRange indices = detail::call_indices(options_.name, call.range, bound);
        detail::check_call_arrays(options_.name, declarations_, bound, indexed_, queue, indices);
        const std::int64_t n = indices.size();
        BuiltLists result;
        for (const auto& list : lists_) {
            auto& stored = result.stored()[list.name];
            stored.type = detail::canonical_type_name(list.type);
            stored.offsets = Array<std::int64_t>(queue, static_cast<std::size_t>(n) + 1, detail::pooled_in_queue_order);
            if (n == 0) {  // no count pass to write offsets[0]; written, not filled (Oclgrind does not see fills)
                const std::int64_t zero = 0;
                stored.offsets.write(queue, &zero);
            }
        }
        // one violation buffer for both passes: a statement out of bounds throws after the count, before the write
        const detail::Violations violations(checked_.on(), queue);
        if (n > 0) {
            const Event counted = run(queue, "_count", indices, result, bound, call.wait, violations.buffer());
            violations.throw_if_any(queue, counted, options_.name + "_count", declarations_, bound);
        }
        for (const auto& list : lists_) {
            auto& stored = result.stored()[list.name];
            scan_(queue, stored.offsets, stored.offsets);
            stored.count = stored.offsets.read_at(queue, static_cast<std::size_t>(n));
            if (stored.count > 0)
                stored.items = MemoryPool::of(queue.context())
                                   .allocate(queue, static_cast<std::size_t>(stored.count) * detail::type_size(stored.type));
        }
        if (n > 0) {
            const Event written = run(queue, "_write", indices, result, bound, {}, violations.buffer());
            violations.throw_if_any(queue, written, options_.name + "_write", declarations_, bound);
        }
        return result;
    }

private:
    Event run(const Queue& queue, const std::string& pass, const IndexRange& indices, BuiltLists& lists,
              const std::vector<detail::BoundArgument>& bound, const std::vector<cl::Event>& wait,
              const cl::Buffer* violations) const {
        auto& on = program_.on(queue);
        const auto policy = list_builder_policy(*on.info, indices.size());
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        cl::Kernel& kernel = on.kernel(options_.name + pass);
        detail::KernelArguments arguments(kernel, signature_);
        arguments.set("clalgo_start", cl_long(indices.start)).set("clalgo_step", cl_long(indices.step))
            .set("n", cl_long(indices.size()));
        for (const auto& list : lists_) {
            auto& stored = lists.stored()[list.name];
            arguments.set("clalgo_" + list.name + "_offsets", stored.offsets.buffer())
                .set("clalgo_" + list.name + "_items", stored.items.buffer());
        }
        arguments.user(bound, violations);
        return detail::launch(queue, kernel, policy.groups * policy.group_size, policy.group_size, wait,
                              options_.name.c_str());
    }

    static detail::Signature parameters(const std::vector<ListSpec>& lists) {
        std::vector<detail::Parameter> list{{"long", "clalgo_start"}, {"long", "clalgo_step"}, {"long", "n"}};
        for (const auto& one : lists) {
            list.push_back({"__global long *", "clalgo_" + one.name + "_offsets"});
            list.push_back({"__global " + detail::canonical_type_name(one.type) + " *", "clalgo_" + one.name + "_items"});
        }
        return detail::Signature(std::move(list));
    }

    std::vector<ListSpec> lists_;
    std::vector<ArgumentDeclaration> declarations_;
    std::vector<bool> indexed_;  ///< arrays the statement indexes only at [i]: checked to hold every index
    ListOfListsOptions options_;
    detail::Checked checked_;  ///< checked mode's parts of the source; nothing where it is off
    detail::Signature signature_;
    ExclusiveScanKernel<std::int64_t> scan_;
    detail::KernelProgram program_;
};

}  // namespace clalgo
