// What clalgo's kernels need to know of a device, read once when a Context is made.
//   const clalgo::DeviceInfo& info = queue.info();
//   if (info.is_gpu) ...; info.compute_units; info.local_memory_bytes; info.has_fp64
#pragma once

#include <clalgo/core/config.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace clalgo {

/// The facts clalgo reads of a device when a Context is made: names, versions, capabilities and limits.
struct DeviceInfo {
    /// CL_DEVICE_NAME.
    std::string name;
    /// CL_DEVICE_VENDOR.
    std::string vendor;
    std::string version;           ///< CL_DEVICE_VERSION
    std::string driver_version;    ///< CL_DRIVER_VERSION
    std::string opencl_c_version;  ///< CL_DEVICE_OPENCL_C_VERSION
    /// CL_PLATFORM_NAME.
    std::string platform_name;
    /// CL_PLATFORM_VERSION.
    std::string platform_version;
    /// CL_DEVICE_EXTENSIONS, space-separated.
    std::string extensions;
    /// A GPU (CL_DEVICE_TYPE_GPU).
    bool is_gpu = false;
    /// A CPU (CL_DEVICE_TYPE_CPU).
    bool is_cpu = false;
    bool is_nvidia = false;        ///< NVIDIA's own OpenCL: inline PTX may be used
    /// Double precision is available (cl_khr_fp64).
    bool has_fp64 = false;
    /// 64-bit atomics are available (cl_khr_int64_base_atomics).
    bool has_int64_atomics = false;
    /// CL_DEVICE_MAX_COMPUTE_UNITS.
    unsigned compute_units = 1;
    /// CL_DEVICE_MAX_WORK_GROUP_SIZE.
    std::size_t max_work_group_size = 1;
    /// CL_DEVICE_LOCAL_MEM_SIZE.
    std::uint64_t local_memory_bytes = 0;
    /// CL_DEVICE_GLOBAL_MEM_SIZE.
    std::uint64_t global_memory_bytes = 0;
    std::uint64_t max_allocation_bytes = 0;  ///< CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest single buffer

    /// Facts set by hand, for tests of the policies on device classes the machine does not have.
    DeviceInfo() = default;

    /// Reads the facts of `device` and of its platform.
    explicit DeviceInfo(const cl::Device& device) {
        cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
        name = trim(device.getInfo<CL_DEVICE_NAME>());
        vendor = trim(device.getInfo<CL_DEVICE_VENDOR>());
        version = trim(device.getInfo<CL_DEVICE_VERSION>());
        driver_version = trim(device.getInfo<CL_DRIVER_VERSION>());
        opencl_c_version = trim(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
        platform_name = trim(platform.getInfo<CL_PLATFORM_NAME>());
        platform_version = trim(platform.getInfo<CL_PLATFORM_VERSION>());
        extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
        const auto type = device.getInfo<CL_DEVICE_TYPE>();
        is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
        is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
        is_nvidia = platform_name.find("NVIDIA") != std::string::npos;
        has_fp64 = has_extension("cl_khr_fp64") || device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
        has_int64_atomics = has_extension("cl_khr_int64_base_atomics");
        compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
        max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
        local_memory_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
        global_memory_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
        max_allocation_bytes = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    }

    /// Whether the device lists `extension`.
    bool has_extension(const std::string& extension) const {
        std::size_t at = 0;
        while ((at = extensions.find(extension, at)) != std::string::npos) {
            const std::size_t end = at + extension.size();
            if ((at == 0 || extensions[at - 1] == ' ') && (end == extensions.size() || extensions[end] == ' '))
                return true;
            at = end;
        }
        return false;
    }

    /// One line for logs and example output: "NVIDIA H100 (NVIDIA CUDA, driver 580.159.04)".
    std::string description() const { return name + " (" + platform_name + ", driver " + driver_version + ")"; }

private:
    static std::string trim(std::string text) {
        while (!text.empty() && (text.back() == '\0' || text.back() == ' ' || text.back() == '\n')) text.pop_back();
        std::size_t start = 0;
        while (start < text.size() && text[start] == ' ') ++start;
        return text.substr(start);
    }
};

}  // namespace clalgo
