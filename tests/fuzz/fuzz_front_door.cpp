// A libFuzzer harness over clalgo's front door, with no device: argument declarations, expressions, statements,
// preambles, names and build options go through the parsers, the checks and the source generators of the kernel
// classes, on contexts for sources (detail::context_for_sources: generated, never built) that describe an NVIDIA
// GPU, a CPU and another GPU. Every input must either generate a kernel's source or end in a clalgo exception
// (std::invalid_argument, clalgo::Error); anything else (another exception, a crash, a sanitizer report, a
// timeout) is a finding.
// An input is a selector byte (which entry point, which device), a byte of options (checked mode, the scan's
// algorithm) and up to eight fields separated by 0x1f bytes; tests/fuzz/corpus holds seeds, tests/fuzz/opencl.dict
// words of the language.
//   clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_front_door.cpp \
//       -lOpenCL -o fuzz_front_door
//   ./fuzz_front_door -dict=tests/fuzz/opencl.dict -max_len=4096 -max_total_time=60 corpus_copy tests/fuzz/corpus
#include <clalgo/clalgo.hpp>
#include <clalgo/codegen/checked.hpp>
#include <clalgo/codegen/code_shape.hpp>
#include <clalgo/codegen/kernel_signature.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

const clalgo::Context& context(int which) {
    static const std::vector<clalgo::Context> contexts = [] {
        std::vector<clalgo::Context> made;
        for (auto device : {clalgo::DeviceClass::nvidia_gpu, clalgo::DeviceClass::cpu, clalgo::DeviceClass::other_gpu}) {
            clalgo::DeviceInfo info = clalgo::typical_device(device);
            info.version = info.opencl_c_version = "OpenCL 1.2";
            made.push_back(clalgo::detail::context_for_sources({info}));
        }
        return made;
    }();
    return contexts[static_cast<std::size_t>(which)];
}

/// The fields after the selector byte, separated by 0x1f; missing ones are empty.
std::vector<std::string> fields(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> out(1);
    for (std::size_t k = 0; k < size; ++k) {
        if (data[k] == 0x1f && out.size() < 8) out.emplace_back();
        else out.back() += static_cast<char>(data[k]);
    }
    out.resize(8);
    return out;
}

template <class Options>
Options named(Options options, const std::string& name, const std::string& preamble, bool checked) {
    if (!name.empty()) options.name = name;
    options.preamble = preamble;
    options.checked = checked;
    return options;
}

void one_input(std::uint8_t selector, std::uint8_t flags, const std::vector<std::string>& f) {
    const clalgo::Context& ctx = context(selector % 3);
    const bool checked = (flags & 1) != 0;
    switch ((selector / 3) % 11) {
        case 0:
            clalgo::parse_arguments(f[0]);
            break;
        case 1: {
            clalgo::ElementwiseOptions options = named(clalgo::ElementwiseOptions{}, f[2], f[3], checked);
            options.loop_prep = f[4];
            options.after_loop = f[5];
            options.build_options = f[6];
            clalgo::ElementwiseKernel(ctx, f[0], f[1], options);
            break;
        }
        case 2:
            clalgo::ReductionKernel<float>(ctx, f[0], f[1], f[2], f[3],
                                           named(clalgo::ReductionOptions{}, f[4], f[5], checked));
            break;
        case 3:
            clalgo::ReductionKernel<std::int64_t>(ctx, f[0], f[1], f[2], f[3],
                                                  named(clalgo::ReductionOptions{}, f[4], f[5], checked));
            break;
        case 4: {
            clalgo::ScanOptions options = named(clalgo::ScanOptions{}, f[6], f[7], checked);
            options.is_segment_start_expr = f[5];
            options.algorithm = static_cast<clalgo::ScanAlgorithm>((flags >> 1) % 5);
            clalgo::GenericScanKernel<std::int32_t>(ctx, f[0], f[1], f[2], f[3], f[4], options);
            break;
        }
        case 5:
            clalgo::InclusiveScanKernel<double>(ctx, f[0], f[1], named(clalgo::ScanOptions{}, f[2], f[3], checked));
            break;
        case 6:
            clalgo::HistogramKernel<std::uint32_t>(ctx, f[0], f[1], named(clalgo::HistogramOptions{}, f[2], f[3], checked));
            break;
        case 7:
            clalgo::ListOfListsBuilder(ctx, {{f[0], f[1]}, {f[2], "int"}}, f[3], f[4],
                                       named(clalgo::ListOfListsOptions{}, f[5], f[6], checked));
            break;
        case 8:
            clalgo::RawProgram(ctx, f[0], f[1]);
            break;
        case 9: {
            clalgo::ComparisonSortOptions options;
            if (!f[1].empty()) options.name = f[1];
            options.preamble = f[2];
            clalgo::MergeSortKernel<float, std::int32_t>(ctx, f[0], options);
            break;
        }
        default: {
            // the text scanners alone, on text of any shape
            const auto declarations = clalgo::parse_arguments(f[0]);
            clalgo::detail::Checked(declarations, true).text(f[1]);
            clalgo::detail::code_shape(f[2]);
            clalgo::detail::read_kernel_signatures(f[3]);
            break;
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    try {
        one_input(data[0], data[1], fields(data + 2, size - 2));
    } catch (const std::invalid_argument&) {
        // refused with a message: as it should be
    } catch (const clalgo::Error&) {
        // UnsupportedError and the like: as it should be
    }
    return 0;
}
