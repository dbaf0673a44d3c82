// clalgo_by_key_queues: reduce_by_key over 0.5-4 M keys (runs of 1 to 9 equal keys, values of a given type) on
// several threads and queues of one device for a given time, a new size every call, each call's count checked
// against the host: a narrower soak for one algorithm. It prints each wrong count and a summary, and fails (exit 1)
// on any. CLALGO_REDUCE_BY_KEY=tile or scan picks the kernel. docs/reliability.md has what it found.
//   clalgo_by_key_queues --type double --threads 4 --queues 4 --seconds 60 [--same]
// --same keeps each thread's inputs for about 64 calls instead of making new ones (and a new size) every call.
#include <clalgo/clalgo.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Settings {
    std::string type = "double";
    int threads = 4, queues = 4;
    double seconds = 60;
    bool same = false;
};

struct Tally {
    std::atomic<long> calls{0}, wrong{0};
};

template <class T>
void calls_on(const clalgo::Queue& q, const Settings& settings, std::uint64_t seed, Tally& tally) {
    std::mt19937_64 random(seed);
    const auto start = std::chrono::steady_clock::now();
    std::optional<clalgo::Array<std::int32_t>> keys;
    std::optional<clalgo::Array<T>> values;
    std::size_t n = 0, run = 1;
    do {
        if (!settings.same || !keys || random() % 64 == 0) {
            n = 500000 + random() % 3500000;
            run = 1 + random() % 9;
            std::vector<std::int32_t> host_keys(n);
            std::vector<T> host_values(n);
            for (std::size_t k = 0; k < n; ++k) {
                host_keys[k] = std::int32_t(k / run);
                host_values[k] = T(k % 7);
            }
            keys.emplace(clalgo::to_device(q, host_keys));
            values.emplace(clalgo::to_device(q, host_values));
        }
        auto result = clalgo::reduce_by_key(q, *keys, *values, "a+b", "0");
        const std::int64_t got = result.count.get(q), expected = std::int64_t((n + run - 1) / run);
        ++tally.calls;
        if (got != expected) {
            ++tally.wrong;
            std::printf("WRONG: n = %zu in runs of %zu: %lld runs where the host has %lld\n", n, run, (long long)got,
                        (long long)expected);
        }
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < settings.seconds);
}

template <class T>
void run_all(const Settings& settings, Tally& tally) {
    const clalgo::Context& ctx = clalgo::Context::default_context();
    std::vector<clalgo::Queue> queues;
    for (int k = 0; k < settings.queues; ++k) queues.emplace_back(ctx);
    Settings once = settings;
    once.seconds = 0;
    Tally warm;
    calls_on<T>(queues[0], once, 1, warm);  // builds the kernels before the clock runs
    std::vector<std::thread> threads;
    for (int t = 0; t < settings.threads; ++t)
        threads.emplace_back([&, t] { calls_on<T>(queues[std::size_t(t % settings.queues)], settings, 100 + t, tally); });
    for (auto& thread : threads) thread.join();
}

}  // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int k = 1; k < argc; ++k) {
        const std::string option = argv[k];
        const bool valued = k + 1 < argc;
        if (option == "--type" && valued) settings.type = argv[++k];
        else if (option == "--threads" && valued) settings.threads = std::max(1, std::atoi(argv[++k]));
        else if (option == "--queues" && valued) settings.queues = std::max(1, std::atoi(argv[++k]));
        else if (option == "--seconds" && valued) settings.seconds = std::atof(argv[++k]);
        else if (option == "--same") settings.same = true;
        else {
            std::fprintf(stderr, "usage: clalgo_by_key_queues [--type int|long|float|double] [--threads T] "
                                 "[--queues Q] [--seconds S] [--same]\n");
            return 2;
        }
    }
    Tally tally;
    try {
        if (settings.type == "int") run_all<std::int32_t>(settings, tally);
        else if (settings.type == "long") run_all<std::int64_t>(settings, tally);
        else if (settings.type == "float") run_all<float>(settings, tally);
        else if (settings.type == "double") run_all<double>(settings, tally);
        else {
            std::fprintf(stderr, "clalgo_by_key_queues: --type takes int, long, float or double\n");
            return 2;
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "clalgo_by_key_queues: %s\n", error.what());
        return 1;
    }
    std::printf("%s values, %d threads on %d queues, %s inputs: %ld calls, %ld wrong\n", settings.type.c_str(),
                settings.threads, settings.queues, settings.same ? "kept" : "new", tally.calls.load(),
                tally.wrong.load());
    return tally.wrong.load() == 0 ? 0 : 1;
}
