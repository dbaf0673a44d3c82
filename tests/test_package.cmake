# The packaging test (ctest label "package"), run as a CMake script:
#   cmake -DCLALGO_SOURCE_DIR=<source> -DCLALGO_BINARY_DIR=<configured build> -DWORK_DIR=<scratch> -P test_package.cmake
# Installs clalgo from the build tree into a fresh prefix, then configures, builds and runs tests/package twice:
# against the installed package (find_package through CMAKE_PREFIX_PATH) and through add_subdirectory.
cmake_minimum_required(VERSION 3.16)

foreach(required CLALGO_SOURCE_DIR CLALGO_BINARY_DIR WORK_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "test_package.cmake: pass -D${required}=...")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_source ${CLALGO_SOURCE_DIR}/tests/package)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Runs a command; stops the test with its output where it fails.
function(step description)
  message(STATUS "package test: ${description}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "package test: ${description} failed (${result}):\n${output}")
  endif()
  message(STATUS "${output}")
endfunction()

set(compiler_options)
if(DEFINED CXX_COMPILER AND CXX_COMPILER)
  list(APPEND compiler_options -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(DEFINED GENERATOR AND GENERATOR)
  list(APPEND compiler_options -G ${GENERATOR})
endif()

# 1. install, and check that what a consumer needs is there
step("install clalgo into ${prefix}" ${CMAKE_COMMAND} --install ${CLALGO_BINARY_DIR} --prefix ${prefix})
file(GLOB_RECURSE config_files ${prefix}/*/clalgoConfig.cmake)
foreach(needed include/clalgo/clalgo.hpp include/clalgo/cl/elementwise.cl.hpp share/doc/clalgo/LICENSE bin/clalgo-tune)
  if(NOT EXISTS ${prefix}/${needed})
    message(FATAL_ERROR "package test: ${needed} was not installed")
  endif()
endforeach()
if(NOT config_files)
  message(FATAL_ERROR "package test: no clalgoConfig.cmake was installed under ${prefix}")
endif()

# 1b. a first configure must give the same package as the build tree's (which may have been configured again)
set(fresh_build ${WORK_DIR}/fresh-configure)
step("configure clalgo afresh" ${CMAKE_COMMAND} -S ${CLALGO_SOURCE_DIR} -B ${fresh_build} ${compiler_options}
     -DCLALGO_BUILD_TESTS=OFF -DCLALGO_BUILD_EXAMPLES=OFF -DCLALGO_BUILD_BENCHMARKS=OFF -DCLALGO_BUILD_TOOLS=OFF)
step("install the fresh configuration" ${CMAKE_COMMAND} --install ${fresh_build} --prefix ${WORK_DIR}/fresh-prefix)
set(from_build_tree)
set(from_fresh_configure)
foreach(root build_tree fresh_configure)
  if(root STREQUAL "build_tree")
    file(GLOB_RECURSE targets_file ${prefix}/*/clalgoTargets.cmake)
  else()
    file(GLOB_RECURSE targets_file ${WORK_DIR}/fresh-prefix/*/clalgoTargets.cmake)
  endif()
  if(NOT targets_file)
    message(FATAL_ERROR "package test: no clalgoTargets.cmake installed from the ${root}")
  endif()
  file(READ ${targets_file} from_${root})
  string(FIND "${from_${root}}" "INTERFACE_INCLUDE_DIRECTORIES \"\${_IMPORT_PREFIX}/include\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "package test: ${targets_file} does not give its users the installed include directory")
  endif()
endforeach()
if(NOT from_build_tree STREQUAL from_fresh_configure)
  message(FATAL_ERROR "package test: a fresh configure installs another clalgoTargets.cmake than the build tree")
endif()

# 2. a consumer of the installed package, which must find this prefix's clalgo and nothing else
set(installed_build ${WORK_DIR}/find-package)
step("configure the find_package consumer" ${CMAKE_COMMAND} -S ${consumer_source} -B ${installed_build}
     ${compiler_options} -DCMAKE_PREFIX_PATH=${prefix}
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
file(STRINGS ${installed_build}/CMakeCache.txt found_at REGEX "^clalgo_DIR:")
string(FIND "${found_at}" "${prefix}/" at)
if(NOT at GREATER -1)
  message(FATAL_ERROR "package test: the consumer found clalgo elsewhere than ${prefix}: ${found_at}")
endif()
step("build the find_package consumer" ${CMAKE_COMMAND} --build ${installed_build})
step("run the find_package consumer" ${installed_build}/consumer)

# 3. a consumer that adds clalgo's source tree; clalgo's own tests and examples stay off there
set(subdirectory_build ${WORK_DIR}/add-subdirectory)
step("configure the add_subdirectory consumer" ${CMAKE_COMMAND} -S ${consumer_source} -B ${subdirectory_build}
     ${compiler_options} -DCLALGO_SOURCE=${CLALGO_SOURCE_DIR})
file(STRINGS ${subdirectory_build}/CMakeCache.txt tests_option REGEX "^CLALGO_BUILD_TESTS:")
if(NOT tests_option MATCHES "=OFF$")
  message(FATAL_ERROR "package test: clalgo as a subdirectory should not build its tests: ${tests_option}")
endif()
file(STRINGS ${subdirectory_build}/CMakeCache.txt install_option REGEX "^CLALGO_INSTALL:")
if(NOT install_option MATCHES "=OFF$")
  message(FATAL_ERROR "package test: clalgo as a subdirectory should add no install rules: ${install_option}")
endif()
step("build the add_subdirectory consumer" ${CMAKE_COMMAND} --build ${subdirectory_build})
step("run the add_subdirectory consumer" ${subdirectory_build}/consumer)
step("install the add_subdirectory consumer" ${CMAKE_COMMAND} --install ${subdirectory_build} --prefix ${WORK_DIR}/consumer-prefix)
if(EXISTS ${WORK_DIR}/consumer-prefix/include/clalgo)
  message(FATAL_ERROR "package test: a project that adds clalgo as a subdirectory installed clalgo's headers")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
