// clalgo-tune: runs the autotuner on one device and stores the policies it chose in the cache directory, where
// every later program that uses clalgo on that device finds them.
//   clalgo-tune                      the default device (CLALGO_DEVICE, else the first GPU)
//   clalgo-tune --device portable:0  a device by platform[:device] (indices or name parts)
//   clalgo-tune --only reduction,scan.4 --sizes 1048576,16777216 --dry-run --verbose
#include <clalgo/clalgo.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');)
        if (!part.empty()) parts.push_back(part);
    return parts;
}

int usage(const char* why) {
    std::cerr << "clalgo-tune: " << why << "\n"
              << "usage: clalgo-tune [--device SPEC] [--only P1,P2] [--sizes N1,N2] [--batches K] [--dry-run] [--verbose]\n"
              << "  primitives: reduction, scan.4, scan.8, compaction, sort\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    clalgo::TuningOptions options;
    std::string device;
    for (int k = 1; k < argc; ++k) {
        const std::string flag = argv[k];
        const bool has_value = k + 1 < argc;
        try {
            if (flag == "--device" && has_value) device = argv[++k];
            else if (flag == "--only" && has_value) options.primitives = split(argv[++k]);
            else if (flag == "--sizes" && has_value)
                for (const auto& size : split(argv[++k])) options.sizes.push_back(std::stoll(size));
            else if (flag == "--batches" && has_value) options.batches = std::stoi(argv[++k]);
            else if (flag == "--dry-run") options.store = false;
            else if (flag == "--verbose") options.log = &std::cout;
            else return usage(("unknown argument '" + flag + "'").c_str());
        } catch (const std::exception&) {
            return usage(("a bad value for '" + flag + "'").c_str());
        }
    }
    if (options.batches < 1) return usage("--batches needs at least 1");
    try {
        const clalgo::Context context = device.empty() ? clalgo::Context::default_context() : clalgo::Context::from_spec(device);
        const clalgo::Queue queue(context);
        std::cout << "tuning " << queue.info().description() << "\n";
        const clalgo::TuningReport report = clalgo::autotune(queue, options);
        std::cout << report.summary();
        return 0;
    } catch (const std::exception& error) {
        std::cerr << "clalgo-tune: " << error.what() << "\n";
        return 1;
    }
}
