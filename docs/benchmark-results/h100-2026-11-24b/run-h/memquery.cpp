// Time of clGetMemObjectInfo(CL_MEM_CONTEXT), the context check of a call, on the driver at hand.
#include <CL/cl.h>
#include <chrono>
#include <cstdio>
int main() {
    cl_platform_id platform; cl_device_id device; cl_uint count;
    clGetPlatformIDs(1, &platform, &count);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &count);
    cl_int error;
    cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &error);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 1 << 20, nullptr, &error);
    for (int round = 0; round < 3; ++round) {
        const int calls = 1000000;
        cl_context owner = nullptr;
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < calls; ++k) clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof(owner), &owner, nullptr);
        auto t1 = std::chrono::steady_clock::now();
        std::printf("clGetMemObjectInfo(CL_MEM_CONTEXT): %.1f ns a call (%s)\n",
                    std::chrono::duration<double>(t1 - t0).count() / calls * 1e9, owner == context ? "right" : "wrong");
    }
    return 0;
}
