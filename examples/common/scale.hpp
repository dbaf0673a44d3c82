// Where an example's index ranges run: on one device (the default), on several devices of this process
// (--devices: a DeviceSet), or, in the examples' MPI builds (euler43_mpi, pi_mpi, run with mpirun -np N), on one
// device per rank. The example's code is the same in the three modes: it calls reduce, copy_if and each here.
//   example::Scale scale = example::open_scale(command_line, devices_option);
//   std::int64_t s = scale.reduce(kernel, clalgo::range(0, n), arguments...);   // every process gets the result
//   scale.each(clalgo::range(0, n), [&](std::size_t d, const clalgo::Queue& q, clalgo::IndexRange share) {...});
#pragma once

#include "common/device.hpp"

#include <clalgo/clalgo.hpp>
#ifdef CLALGO_EXAMPLE_MPI
#include <clalgo/multi/mpi.hpp>
#endif

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace example {

/// The devices of an example: see the header's first lines.
struct Scale {
    Device device;            ///< the first device of the process (its kernels are built on device.context)
    clalgo::DeviceSet devices;  ///< one queue, or --devices' queues
#ifdef CLALGO_EXAMPLE_MPI
    std::shared_ptr<clalgo::mpi::Ranks> ranks;
#endif

    int rank() const {
#ifdef CLALGO_EXAMPLE_MPI
        return ranks->rank();
#else
        return 0;
#endif
    }

    /// `kernel` over `indices`, split across the devices or the ranks; the whole result, on every process.
    template <class T, class... Args>
    T reduce(const clalgo::ReductionKernel<T>& kernel, const clalgo::IndexRange& indices, const Args&... arguments) const {
#ifdef CLALGO_EXAMPLE_MPI
        return ranks->reduce(kernel, indices, arguments...);
#else
        return devices.reduce(kernel, indices, arguments...);
#endif
    }

    /// copy_if over `indices`, split likewise: every kept value in order, on the host of every process, and the
    /// exact count (which may exceed the values where options.capacity is smaller).
    std::pair<std::vector<std::int64_t>, std::int64_t> copy_if(const clalgo::IndexRange& indices, const std::string& predicate,
                                                               const clalgo::SelectionOptions& options) const {
#ifdef CLALGO_EXAMPLE_MPI
        auto mine = ranks->copy_if(indices, predicate, options);
        const int kept = int(std::min<std::int64_t>(mine.count, mine.values.size()));
        auto local = mine.values.view(0, std::size_t(kept)).to_host(ranks->queue());
        std::vector<int> counts(std::size_t(ranks->size())), offsets(std::size_t(ranks->size()), 0);
        MPI_Allgather(&kept, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
        for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
        std::vector<std::int64_t> all(std::size_t(offsets.back() + counts.back()));
        MPI_Allgatherv(local.data(), kept, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T,
                       MPI_COMM_WORLD);
        return {all, mine.total};
#else
        auto [values, count] = clalgo::copy_if(devices, indices, predicate, options);
        const std::int64_t total = count.get(devices.queue(0));
        const auto kept = std::min<std::int64_t>(total, std::int64_t(values.size()));
        return {values.view(0, std::size_t(kept)).to_host(devices.queue(0)), total};
#endif
    }

    /// Runs `work(d, queue, share)` for each device d of this process whose share of `indices` is not empty (with
    /// MPI: d = 0, the rank's device and its share), then waits for them: DeviceSet::each. Arrays of each device's
    /// own are a SplitArray's parts (SplitArray::with_part_sizes(devices, ...): one part in an MPI build).
    template <class Work>
    void each(const clalgo::IndexRange& indices, const Work& work) const {
#ifdef CLALGO_EXAMPLE_MPI
        const clalgo::IndexRange mine = ranks->share(indices);
        if (mine.size() == 0) return;
        work(std::size_t(0), ranks->queue(), mine);
        ranks->queue().finish();
#else
        devices.each(indices, work);
#endif
    }

    /// The part of `indices` this process works on alone: its rank's share, or all of them.
    clalgo::IndexRange local(const clalgo::IndexRange& indices) const {
#ifdef CLALGO_EXAMPLE_MPI
        return ranks->share(indices);
#else
        return indices;
#endif
    }

    /// The sum over the processes of each one's `value` (MPI_Allreduce); `value` itself without MPI.
    std::int64_t sum_over_processes(std::int64_t value) const {
#ifdef CLALGO_EXAMPLE_MPI
        std::int64_t total = 0;
        MPI_Allreduce(&value, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        return total;
#else
        return value;
#endif
    }

    /// True where `passed` holds on every process.
    bool everywhere(bool passed) const {
#ifdef CLALGO_EXAMPLE_MPI
        int mine = passed ? 1 : 0, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return all == 1;
#else
        return passed;
#endif
    }
};

/// The devices for `--devices` (N: N queues on the device --device chooses; else comma-separated specs) and, in
/// an MPI build, one device per rank (--device or CLALGO_DEVICE: the same for every rank; else by node-local
/// rank). Only rank 0 prints: the others' stdout is closed.
inline Scale open_scale(const CommandLine& command_line, const std::optional<std::string>& devices_option) {
#ifdef CLALGO_EXAMPLE_MPI
    if (devices_option) throw UsageError("--devices: in an MPI build each rank has one device; use mpirun -np N");
    Stopwatch clock;
    auto ranks = command_line.device_spec()
                     ? std::make_shared<clalgo::mpi::Ranks>(MPI_COMM_WORLD,
                                                            clalgo::Queue(clalgo::Context::from_spec(*command_line.device_spec())))
                     : std::make_shared<clalgo::mpi::Ranks>(MPI_COMM_WORLD);
    if (ranks->rank() != 0 && !std::freopen("/dev/null", "w", stdout)) throw clalgo::Error("cannot silence rank");
    Device device{ranks->context(), ranks->queue(), clock.seconds()};
    std::printf("mpi:      %d rank%s, each on its own device (rank 0's below), the range split evenly\n",
                ranks->size(), ranks->size() == 1 ? "" : "s");
    std::printf("device:   %s\ncontext:  %s\n", device.info().description().c_str(),
                format_duration(device.context_seconds).c_str());
    return Scale{device, clalgo::DeviceSet(std::vector<clalgo::Queue>{device.queue}), ranks};
#else
    if (!devices_option) {
        Device device = open_device(command_line.device_spec());
        return Scale{device, clalgo::DeviceSet(std::vector<clalgo::Queue>{device.queue})};
    }
    std::optional<clalgo::DeviceSet> set;
    try {
        if (!devices_option->empty() &&
            devices_option->find_first_not_of("0123456789") == std::string::npos) {
            const Device one = open_device(command_line.device_spec());
            const auto copies = parse_count(*devices_option, "--devices");
            if (copies < 1 || copies > 64) throw UsageError("--devices: need 1 to 64 queues");
            std::vector<clalgo::Queue> queues{one.queue};
            for (std::int64_t k = 1; k < copies; ++k) queues.emplace_back(one.context);
            set.emplace(std::move(queues));
        } else {
            set.emplace(clalgo::DeviceSet::from_spec(*devices_option));
        }
    } catch (const std::invalid_argument& error) {
        throw UsageError(std::string("--devices: ") + error.what());
    }
    Device device{set->context(), set->queue(0), 0};
    std::printf("devices:  %zu queues, the range split by compute units:\n", set->size());
    for (std::size_t d = 0; d < set->size(); ++d)
        std::printf("          %zu: %s\n", d, set->queue(d).info().description().c_str());
    return Scale{device, *set};
#endif
}

}  // namespace example
