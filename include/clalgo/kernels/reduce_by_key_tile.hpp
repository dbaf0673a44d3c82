// reduce_by_key's tile kernel (cl/reduce_by_key.cl.hpp): one launch over the keys and values, each work-item
// folding its consecutive items in registers, one (runs, value) pair per work-item scanned and carried between
// tiles by decoupled look-back. Used where the policy says so (GPUs); kernels/by_key.hpp chooses.
//   detail::ReduceByKeyTileKernel<cl_uint, float> kernel(ctx, spec);   // spec: a ByKeySpec with fold = true
//   kernel.enqueue(q, keys, values, keys_out, values_out, count);
#pragma once

#include <clalgo/cl/group.cl.hpp>
#include <clalgo/cl/reduce_by_key.cl.hpp>
#include <clalgo/cl/scan_look_back.cl.hpp>
#include <clalgo/codegen/program.hpp>
#include <clalgo/codegen/renderer.hpp>
#include <clalgo/codegen/signature.hpp>
#include <clalgo/core/array.hpp>
#include <clalgo/kernels/by_key_spec.hpp>
#include <clalgo/kernels/scratch.hpp>
#include <clalgo/policy/segments.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo::detail {

/// The tile kernel's scalars, laid out as the template's clalgo_by_key_args_t.
struct ReduceByKeyArgs {
    cl_long n, room, keys_offset, values_offset, keys_out_offset, values_out_offset, count_offset;
    cl_long status_at, aggregates_at, inclusives_at;
    cl_uint tiles, epoch;
};
static_assert(sizeof(ReduceByKeyArgs) == 88, "ReduceByKeyArgs must match clalgo_by_key_args_t");

/// Look-back state kept per queue between calls, in one buffer: the ticket, the tiles' status words, and (where
/// the pair is not in the status word) their aggregates and inclusive prefixes.
struct ReduceByKeyScratch {
    GrowingBuffer state;
    LookBackEpochs look_back;  ///< the parts stay put between calls
};

template <class Count, class V>
class ReduceByKeyTileKernel {
    struct Pair {  ///< the scanned pair as the device lays it out: its size sizes the look-back state
        Count runs;
        V value;
    };

public:
    ReduceByKeyTileKernel(const Context& context, const ByKeySpec& spec, std::size_t key_size) : name_(spec.name) {
        auto generate = [&](const DeviceInfo& info) {
            const auto policy = reduce_by_key_policy(info, key_size + sizeof(V), sizeof(Pair));
            policies_[&info] = policy;
            std::string pattern = cl_source::reduce_by_key_tile;
            pattern += cl_source::scan_look_back;
            pattern += cl_source::reduce_by_key_tile_kernel;
            return render(pattern,
                          {{"prologue", library_text(program_prologue(info, {spec.key_type, spec.value_type}))},
                           {"preamble", user_text("preamble", spec.preamble)},
                           {"key_type", library_text(spec.key_type)},
                           {"value_type", library_text(spec.value_type)},
                           {"count_type", library_text(sizeof(Count) == 4 ? "uint" : "ulong")},
                           {"group_size", library_text(std::to_string(policy.group_size))},
                           {"items", library_text(std::to_string(policy.items))},
                           {"warp_shuffle", library_text(policy.warp_shuffle ? "1" : "0")},
                           {"nvidia", library_text(device_class(info) == DeviceClass::nvidia_gpu ? "1" : "0")},
                           {"warp_shuffle_functions", library_text(cl_source::warp_shuffle)},
                           {"packed_status", library_text(policy.wide_status ? "2" : "0")},
                           {"status_type", library_text(policy.wide_status ? "ulong2" : "uint")},
                           {"keys_differ", library_text(spec.vector_key() ? "any(a != b)" : "a != b")},
                           {"reduce_expr", user_text("reduce_expr", spec.reduce_expr)},
                           {"neutral", user_text("neutral", spec.neutral)},
                           {"name", library_text(name_)},
                           {"signature", library_text(signature_.text())}});
        };
        program_ = KernelProgram(context, generate, spec.build_options,
                                 BuildLabel{name_, {{"reduce_expr", spec.reduce_expr}, {"neutral", spec.neutral},
                                                    {"preamble", spec.preamble}}},
                                 {spec.key_type, spec.value_type}, {name_});
    }

    /// Runs over keys.size() items; results beyond the outputs' room are not written, count[0] receives the
    /// number of runs.
    template <class K>
    Event enqueue(const Queue& queue, const ArrayView<K>& keys, const ArrayView<V>& values,
                  const ArrayView<K>& keys_out, const ArrayView<V>& values_out,
                  const ArrayView<std::int64_t>& count, const std::vector<cl::Event>& wait = {}) const {
        auto& on = program_.on(queue);
        const ReduceByKeyPolicy& policy = policies_.at(on.info);
        const std::uint64_t n = keys.size();
        const std::uint64_t tile = policy.group_size * policy.items;
        const std::uint64_t tiles = std::max<std::uint64_t>(1, (n + tile - 1) / tile);
        if (tiles > 0xffffffffull) throw std::invalid_argument("clalgo::" + name_ + ": too many keys for one call");
        std::lock_guard<std::mutex> lock(*on.launch_mutex);
        auto& scratch = scratch_.get(queue);
        // [ticket | status words | aggregates | inclusives], each part 16-byte aligned and laid out for the tiles
        // held, not this call's (LookBackEpochs)
        const bool relaid = scratch.look_back.hold(tiles, scratch.state);
        const std::uint64_t held = scratch.look_back.tiles_held;
        const auto aligned = [](std::uint64_t bytes) { return (bytes + 15) / 16 * 16; };
        const std::uint64_t status_at = 16;
        const std::uint64_t aggregates_at = status_at + aligned(held * (policy.wide_status ? 16 : 4));
        const std::uint64_t pairs = policy.wide_status ? 0 : aligned(held * sizeof(Pair));
        const std::uint64_t inclusives_at = aggregates_at + pairs;
        const std::uint32_t epoch = scratch.look_back.begin_call(queue, scratch.state, inclusives_at + pairs, relaid);
        ReduceByKeyArgs args{};
        args.n = static_cast<cl_long>(n);
        args.room = static_cast<cl_long>(std::min(keys_out.size(), values_out.size()));
        args.keys_offset = static_cast<cl_long>(keys.offset());
        args.values_offset = static_cast<cl_long>(values.offset());
        args.keys_out_offset = static_cast<cl_long>(keys_out.offset());
        args.values_out_offset = static_cast<cl_long>(values_out.offset());
        args.count_offset = static_cast<cl_long>(count.offset());
        args.status_at = static_cast<cl_long>(status_at);
        args.aggregates_at = static_cast<cl_long>(aggregates_at);
        args.inclusives_at = static_cast<cl_long>(inclusives_at);
        args.tiles = static_cast<cl_uint>(tiles);
        args.epoch = epoch;
        KernelSlot& slot = on.slot(name_);
        cl::Kernel& kernel = slot.kernel;
        KernelArguments(kernel, signature_, &slot.memo)
            .set("clalgo_args", args)
            .set("clalgo_keys", keys.buffer())
            .set("clalgo_values", values.buffer())
            .set("clalgo_keys_out", keys_out.buffer())
            .set("clalgo_values_out", values_out.buffer())
            .set("clalgo_count", count.buffer())
            .set("clalgo_state", scratch.state.buffer)
            .done();
        const std::size_t groups = n == 0 ? 1 : static_cast<std::size_t>(tiles);
        return launch(queue, kernel, groups * policy.group_size, policy.group_size, wait, name_.c_str());
    }

    const std::string& source(std::size_t device_index = 0) const { return program_.source(device_index); }
    const std::string& build_log(std::size_t device_index = 0) const { return program_.build_log(device_index); }

private:
    Signature signature_{{"const clalgo_by_key_args_t", "clalgo_args"},
                         {"__global const clalgo_key_t *", "clalgo_keys"},
                         {"__global const clalgo_item_t *", "clalgo_values"},
                         {"__global clalgo_key_t *", "clalgo_keys_out"},
                         {"__global clalgo_item_t *", "clalgo_values_out"},
                         {"__global long *", "clalgo_count"},
                         {"__global uchar *", "clalgo_state"}};

    friend struct ContextCache;
    void release_context() noexcept { program_.release_context(); }

    std::string name_;
    std::map<const DeviceInfo*, ReduceByKeyPolicy> policies_;
    KernelProgram program_;
    mutable PerQueue<ReduceByKeyScratch> scratch_;
};

}  // namespace clalgo::detail
