// clalgo's version and the one place that includes the OpenCL C++ bindings (CLHPP), configured for clalgo:
// exceptions on, the OpenCL 1.2 API (which every platform offers, OpenCL 3.0 ones included).
//   #include <clalgo/core/config.hpp>   // then cl::Context, cl::Buffer, ... are available
#pragma once

// The version, written here only: CMake's project() reads these three lines.
#define CLALGO_VERSION_MAJOR 0
#define CLALGO_VERSION_MINOR 1
#define CLALGO_VERSION_PATCH 0
#define CLALGO_STRINGIFY_(x) #x
#define CLALGO_STRINGIFY(x) CLALGO_STRINGIFY_(x)
#define CLALGO_VERSION_STRING \
    CLALGO_STRINGIFY(CLALGO_VERSION_MAJOR) "." CLALGO_STRINGIFY(CLALGO_VERSION_MINOR) "." CLALGO_STRINGIFY(CLALGO_VERSION_PATCH)

#if defined(CL_HPP_) && !defined(CL_HPP_ENABLE_EXCEPTIONS)
#error "clalgo needs CLHPP with exceptions: include <clalgo/clalgo.hpp> before <CL/opencl.hpp>, or define CL_HPP_ENABLE_EXCEPTIONS"
#endif
#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#include <CL/opencl.hpp>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
