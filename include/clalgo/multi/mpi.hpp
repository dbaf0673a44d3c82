// clalgo across processes with MPI: an index range split across the ranks of a communicator, each rank on its own
// device (chosen by its rank on the node), and results combined in rank order with clalgo's own kernels, so any
// associative operator and any registered struct works. Not included by clalgo.hpp; link with MPI.
//   MPI_Init(&argc, &argv);
//   clalgo::mpi::Ranks ranks(MPI_COMM_WORLD);               // this rank's device and queue
//   clalgo::ReductionKernel<long> count(ranks.context(), "0", "a + b", "is_ok(i)", "");
//   long total = ranks.reduce(count, clalgo::range(0, n));  // on every rank
// Every call here is collective: each rank of the communicator makes it, with the same range and weights.
#pragma once

#include <clalgo/multi/split_algorithms.hpp>

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace clalgo::mpi {

namespace detail {

inline void check(int code, const char* call) {
    if (code != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(code, text, &length);
        throw clalgo::Error(std::string("clalgo::mpi: ") + call + " failed: " + std::string(text, std::size_t(length)));
    }
}

/// The devices ranks of one node share out: those CLALGO_DEVICE names (several separated by commas), else every
/// GPU of every platform, else the default device.
inline std::vector<cl::Device> node_devices() {
    std::vector<cl::Device> devices;
    if (auto spec = clalgo::detail::environment("CLALGO_DEVICE"); spec && !spec->empty()) {
        std::size_t begin = 0;
        while (begin <= spec->size()) {
            const std::size_t comma = std::min(spec->find(',', begin), spec->size());
            devices.push_back(clalgo::detail::select_device(spec->substr(begin, comma - begin)));
            begin = comma + 1;
        }
        return devices;
    }
    for (const auto& platform : clalgo::detail::platforms())
        for (const auto& device : clalgo::detail::devices_of(platform))
            if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) devices.push_back(device);
    if (devices.empty()) devices.push_back(clalgo::detail::default_device());
    return devices;
}

}  // namespace detail

/// The kept items of this rank's share and where they stand among all ranks' (copy_if over ranks).
template <class Value>
struct RankSelection {
    Array<Value> values;     ///< this rank's kept items, in order: the first `count` elements
    std::int64_t count = 0;  ///< how many this rank kept
    std::int64_t offset = 0; ///< how many the ranks before it kept (MPI_Exscan)
    std::int64_t total = 0;  ///< how many all ranks kept
};

/// This rank of a communicator with its device and queue, and the collective calls over index ranges.
class Ranks {
public:
    /// Opens the device of this rank's place on its node (node-local rank modulo the node's devices).
    explicit Ranks(MPI_Comm communicator = MPI_COMM_WORLD)
        : Ranks(communicator, Queue(Context(pick(communicator)))) {}

    /// Uses the queue given (the caller chose the device).
    Ranks(MPI_Comm communicator, const Queue& queue) : communicator_(communicator), queue_(queue) {
        detail::check(MPI_Comm_rank(communicator, &rank_), "MPI_Comm_rank");
        detail::check(MPI_Comm_size(communicator, &size_), "MPI_Comm_size");
        weights_.assign(std::size_t(size_), 1.0);
    }

    /// This rank's number in the communicator.
    int rank() const noexcept { return rank_; }
    /// How many ranks.
    int size() const noexcept { return size_; }
    /// The communicator.
    MPI_Comm communicator() const noexcept { return communicator_; }
    /// This rank's queue.
    const Queue& queue() const noexcept { return queue_; }
    /// This rank's context.
    const Context& context() const noexcept { return queue_.context(); }

    /// Each rank's share of the work (equal until set or calibrated); the same on every rank.
    const std::vector<double>& weights() const noexcept { return weights_; }
    /// Sets each rank's share (one positive weight per rank; the same on every rank).
    void set_weights(std::vector<double> weights) {
        if (weights.size() != std::size_t(size_))
            throw std::invalid_argument("clalgo::mpi::Ranks::set_weights: " + std::to_string(weights.size()) +
                                        " weights for " + std::to_string(size_) + " ranks");
        clalgo::detail::split_range(IndexRange{0, 0, 1}, weights);  // checks them
        weights_ = std::move(weights);
    }

    /// Collective: times `work(queue, range)` (which must wait for what it runs) over `sample` indices on each
    /// rank's device, after one run to build and warm up, and sets every rank's weights to the speeds measured.
    template <class Work>
    void calibrate(const Work& work, std::int64_t sample) {
        work(queue_, range(0, sample));
        const auto begin = std::chrono::steady_clock::now();
        work(queue_, range(0, sample));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        const double speed = double(sample) / std::max(seconds, 1e-9);
        std::vector<double> speeds(static_cast<std::size_t>(size_));
        detail::check(MPI_Allgather(&speed, 1, MPI_DOUBLE, speeds.data(), 1, MPI_DOUBLE, communicator_), "MPI_Allgather");
        set_weights(std::move(speeds));
    }

    /// This rank's consecutive share of `indices`, in proportion to the weights, rank 0 first.
    IndexRange share(const IndexRange& indices) const {
        return clalgo::detail::split_range(indices, weights_)[std::size_t(rank_)];
    }

    /// Collective: `kernel` over this rank's share; the partials of the ranks with a share are gathered to every
    /// rank and combined in rank order with the kernel's reduce_expr on each rank's device. The result, on every
    /// rank, is the neutral element for an empty range.
    template <class T, class... Args>
    T reduce(const ReductionKernel<T>& kernel, const IndexRange& indices, const Args&... arguments) const {
        if (size_ == 1)  // one rank: the single-device call
            return kernel(queue_, indices, clalgo::detail::part_of(arguments, 0, indices.start)...);
        const IndexRange mine = share(indices);
        const T partial = kernel(queue_, mine, clalgo::detail::part_of(arguments, 0, mine.start)...);
        const auto& options = kernel.options();
        return combine(partial, mine.size() > 0, kernel.neutral(), kernel.reduce_expr(), options.preamble,
                       options.build_options,
                       [&] { return kernel(queue_, range(0, 0), clalgo::detail::part_of(arguments, 0, 0)...); })
            .back();
    }

    /// Collective: `kernel` over this rank's share of `indices`; waits for it (arrays are the rank's own;
    /// clalgo::share_start passes the first index of the rank's share).
    template <class... Args>
    void run(const ElementwiseKernel& kernel, const IndexRange& indices, const Args&... arguments) const {
        const IndexRange mine = share(indices);
        if (mine.size() > 0) kernel(queue_, mine, clalgo::detail::part_of(arguments, 0, mine.start)...).wait();
    }

    /// Collective: copy_if over this rank's share; its kept items with their place among all ranks'.
    template <class Value = std::int64_t>
    RankSelection<Value> copy_if(const IndexRange& indices, const std::string& predicate,
                                 const SelectionOptions& options = {}) const {
        auto [values, count] = clalgo::copy_if<Value>(queue_, share(indices), predicate, options);
        RankSelection<Value> result{std::move(values), count.get(queue_), 0, 0};
        std::int64_t before = 0;
        detail::check(MPI_Exscan(&result.count, &before, 1, MPI_INT64_T, MPI_SUM, communicator_), "MPI_Exscan");
        result.offset = rank_ == 0 ? 0 : before;  // MPI_Exscan leaves rank 0's undefined
        detail::check(MPI_Allreduce(&result.count, &result.total, 1, MPI_INT64_T, MPI_SUM, communicator_),
                      "MPI_Allreduce");
        return result;
    }

    /// Collective: `partial` of this rank (`has` false: the rank had nothing and is left out) gathered from every
    /// rank; returns the inclusive prefixes, in rank order, of the ranks that had one (`neutral_value()` alone
    /// where none had).
    template <class T, class Neutral>
    std::vector<T> combine(const T& partial, bool has, const std::string& neutral, const std::string& expr,
                           const std::string& preamble, const std::string& build_options,
                           const Neutral& neutral_value) const {
        std::vector<T> all(static_cast<std::size_t>(size_));
        std::vector<int> flags(static_cast<std::size_t>(size_));
        const int flag = has ? 1 : 0;
        detail::check(MPI_Allgather(&partial, int(sizeof(T)), MPI_BYTE, all.data(), int(sizeof(T)), MPI_BYTE, communicator_),
                      "MPI_Allgather");
        detail::check(MPI_Allgather(&flag, 1, MPI_INT, flags.data(), 1, MPI_INT, communicator_), "MPI_Allgather");
        std::vector<T> present;
        for (std::size_t r = 0; r < all.size(); ++r)
            if (flags[r]) present.push_back(all[r]);
        if (present.empty()) return {neutral_value()};
        return clalgo::detail::prefixes_in_order(queue_, present, neutral, expr, preamble, build_options);
    }

private:
    static cl::Device pick(MPI_Comm communicator) {
        MPI_Comm node;
        detail::check(MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                      "MPI_Comm_split_type");
        int local = 0;
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
        const auto devices = detail::node_devices();
        return devices[std::size_t(local) % devices.size()];
    }

    MPI_Comm communicator_;
    Queue queue_;
    int rank_ = 0, size_ = 1;
    std::vector<double> weights_;
};

/// GenericScanKernel's scan over an index range split across the ranks: each rank scans its share for its total,
/// the totals are gathered and combined in rank order on each rank's device, and each rank scans its share again
/// from the ranks before it (its carry-in). i is the index in the whole range, n the count of the rank's share;
/// output arrays are the rank's own. As SplitScanKernel: no segmented scans, no last_item. `ranks` must outlive it.
template <class T>
class ScanKernel {
public:
    /// A scan over `ranks` with the arguments and expressions of GenericScanKernel.
    ScanKernel(const Ranks& ranks, const std::string& arguments, const std::string& input_expr,
               const std::string& scan_expr, const std::string& neutral, const std::string& output_statement,
               ScanOptions options = {})
        : ranks_(&ranks), device_(std::make_shared<const DeviceSet>(std::vector<Queue>{ranks.queue()})),
          one_(*device_, arguments, input_expr, scan_expr, neutral, output_statement, options),
          neutral_(neutral), scan_expr_(scan_expr), preamble_(options.preamble), build_options_(options.build_options) {}

    /// Collective: scans this rank's share of `indices`; waits until it is written.
    template <class... Args>
    void operator()(const IndexRange& indices, const Args&... arguments) const {
        const auto shares = clalgo::detail::split_range(indices, ranks_->weights());
        const IndexRange mine = shares[std::size_t(ranks_->rank())];
        // the last rank with a share needs no total: no rank takes a carry from it
        bool later = false;
        for (std::size_t r = std::size_t(ranks_->rank()) + 1; r < shares.size(); ++r) later = later || shares[r].size() > 0;
        T total{};
        if (mine.size() > 0 && later) total = one_.total(0, mine, clalgo::detail::part_of(arguments, 0, mine.start)...);
        const auto prefixes = ranks_->combine(total, mine.size() > 0, neutral_, scan_expr_, preamble_, build_options_,
                                             [] { return T{}; });
        // this rank's carry: the prefix of the ranks before it that had a share
        int before = 0;
        const int has = mine.size() > 0 ? 1 : 0;
        detail::check(MPI_Exscan(&has, &before, 1, MPI_INT, MPI_SUM, ranks_->communicator()), "MPI_Exscan");
        if (ranks_->rank() == 0) before = 0;
        if (mine.size() > 0)
            one_.scan_from(0, mine, before > 0, before > 0 ? prefixes[std::size_t(before - 1)] : T{},
                           clalgo::detail::part_of(arguments, 0, mine.start)...)
                .wait();
    }

private:
    const Ranks* ranks_;  ///< the caller's, so that its weights are the ones in force
    std::shared_ptr<const DeviceSet> device_;  ///< the rank's one device, which one_ refers to (copies share it)
    SplitScanKernel<T> one_;
    std::string neutral_, scan_expr_, preamble_, build_options_;
};

}  // namespace clalgo::mpi
