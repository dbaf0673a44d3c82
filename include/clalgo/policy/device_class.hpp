// The device classes clalgo's policies tell apart, and the DeviceInfo of a typical member of each (for tests
// and for tuning on a machine that lacks the device).
//   switch (clalgo::device_class(queue.info())) { case clalgo::DeviceClass::nvidia_gpu: ... }
#pragma once

#include <clalgo/core/device_info.hpp>

#include <string>

namespace clalgo {

/// What a policy decides by: CPUs (PoCL and the like) want contiguous chunks and no waiting between
/// work-groups; NVIDIA's OpenCL allows inline PTX (warp shuffles, ballots, match) and device-wide fences;
/// other GPUs get the portable local-memory paths.
enum class DeviceClass { cpu, nvidia_gpu, other_gpu };

inline DeviceClass device_class(const DeviceInfo& info) {
    if (info.is_cpu) return DeviceClass::cpu;
    if (info.is_nvidia) return DeviceClass::nvidia_gpu;
    return DeviceClass::other_gpu;
}

inline const char* to_string(DeviceClass device) {
    switch (device) {
        case DeviceClass::cpu: return "cpu";
        case DeviceClass::nvidia_gpu: return "nvidia_gpu";
        case DeviceClass::other_gpu: return "other_gpu";
    }
    return "unknown";
}

/// A typical device of the class, with no OpenCL object behind it: a 2-core CPU, an H200-like GPU (132 compute
/// units, 48 KiB local memory), a generic GPU without 64-bit atomics.
inline DeviceInfo typical_device(DeviceClass device) {
    DeviceInfo info;
    info.name = std::string("typical ") + to_string(device);
    info.has_fp64 = true;
    info.global_memory_bytes = std::uint64_t(16) << 30;
    info.max_allocation_bytes = std::uint64_t(4) << 30;
    switch (device) {
        case DeviceClass::cpu:
            info.is_cpu = true;
            info.compute_units = 2;
            info.max_work_group_size = 4096;
            info.local_memory_bytes = 256 * 1024;
            info.has_int64_atomics = true;
            break;
        case DeviceClass::nvidia_gpu:
            info.is_gpu = info.is_nvidia = true;
            info.platform_name = "NVIDIA CUDA";
            info.compute_units = 132;
            info.max_work_group_size = 1024;
            info.local_memory_bytes = 48 * 1024;
            info.has_int64_atomics = true;
            break;
        case DeviceClass::other_gpu:
            info.is_gpu = true;
            info.compute_units = 32;
            info.max_work_group_size = 256;
            info.local_memory_bytes = 32 * 1024;
            info.has_int64_atomics = false;
            break;
    }
    return info;
}

}  // namespace clalgo
