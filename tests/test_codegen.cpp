// codegen/renderer.hpp and codegen/program_cache.hpp, through ElementwiseKernel: filling templates with user
// text, build errors that point at the user's code, the memory cache, build options, and launches.
#include "support.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using clalgo::detail::library_text;
using clalgo::detail::render;
using clalgo::detail::user_text;
using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::message_of;
using clalgo_test::queue;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/// The 1-based numbers of the lines of `text` that contain `part`.
std::vector<std::size_t> lines_containing(const std::string& text, const std::string& part) {
    std::vector<std::size_t> numbers;
    const auto lines = lines_of(text);
    for (std::size_t k = 0; k < lines.size(); ++k)
        if (lines[k].find(part) != std::string::npos) numbers.push_back(k + 1);
    return numbers;
}

/// Sets an environment variable for the lifetime of the object, then restores what it was.
using ScopedEnvironment = clalgo_test::ScopedVariable;

clalgo::ElementwiseOptions named(std::string name) {
    clalgo::ElementwiseOptions options;
    options.name = std::move(name);
    return options;
}

}  // namespace

// ---- clalgo's environment variables ----

TEST(ClalgoVariables, SeesEverySetenvUnsetenvAndPutenvAndKeepsItsGenerationOtherwise) {
    using clalgo::detail::ClalgoVariables;
    ::unsetenv("CLALGO_TEST_VARIABLE");
    const std::uint64_t first = ClalgoVariables::current().generation();
    EXPECT_EQ(ClalgoVariables::current().generation(), first);  // nothing changed: the same generation
    EXPECT_EQ(ClalgoVariables::current().get("CLALGO_TEST_VARIABLE"), nullptr);
    auto value = [] {
        const char* got = ClalgoVariables::current().get("CLALGO_TEST_VARIABLE");
        return got ? std::optional<std::string>(got) : std::nullopt;
    };
    std::uint64_t last = first;
    auto changed = [&] {
        const std::uint64_t now = ClalgoVariables::current().generation();
        const bool different = now != last;
        last = now;
        return different;
    };
    ::setenv("CLALGO_TEST_VARIABLE", "1", 1);
    EXPECT_EQ(value(), "1");
    EXPECT_TRUE(changed());
    ::setenv("CLALGO_TEST_VARIABLE", "22", 1);
    EXPECT_EQ(value(), "22");
    EXPECT_TRUE(changed());
    ::setenv("CLALGO_TEST_VARIABLE", "1", 1);  // glibc may hand back the string it made for "1" before
    EXPECT_EQ(value(), "1");
    EXPECT_TRUE(changed());
    EXPECT_FALSE(changed());
    // a longer name that starts with the same letters is another variable
    ::setenv("CLALGO_TEST_VARIABLE_LONGER", "3", 1);
    EXPECT_EQ(value(), "1");
    EXPECT_STREQ(ClalgoVariables::current().get("CLALGO_TEST_VARIABLE_LONGER"), "3");
    ::unsetenv("CLALGO_TEST_VARIABLE_LONGER");
    ::unsetenv("CLALGO_TEST_VARIABLE");
    EXPECT_EQ(value(), std::nullopt);
    EXPECT_TRUE(changed());
    // other variables change the generation, not clalgo's values
    ::setenv("CLALGO_TEST_OTHER_THAN_CLALGO", "x", 1);
    ::setenv("NOT_CLALGO_TEST_VARIABLE", "x", 1);
    EXPECT_TRUE(changed());
    EXPECT_EQ(value(), std::nullopt);
    ::unsetenv("NOT_CLALGO_TEST_VARIABLE");
    ::unsetenv("CLALGO_TEST_OTHER_THAN_CLALGO");
    // putenv's string is the variable: changed in place, the value changes
    static char entry[] = "CLALGO_TEST_VARIABLE=a";
    ::putenv(entry);
    EXPECT_EQ(value(), "a");
    changed();
    entry[sizeof entry - 2] = 'b';
    EXPECT_EQ(value(), "b");
    EXPECT_TRUE(changed());
    ::unsetenv("CLALGO_TEST_VARIABLE");
    EXPECT_EQ(value(), std::nullopt);
    // the key parts calls build from them
    ::setenv("CLALGO_TEST_VARIABLE", "7", 1);
    std::string key;
    clalgo::detail::append_environment(key, {"CLALGO_TEST_VARIABLE", "CLALGO_TEST_UNSET_VARIABLE"});
    clalgo::detail::append_environment(key, "CLALGO_TEST_VARIABLE");
    EXPECT_EQ(key, std::string("7\0\0" "7\0", 5));
    ::unsetenv("CLALGO_TEST_VARIABLE");
}

// ---- the renderer ----

TEST(Render, FillsEveryHoleWithItsText) {
    const auto out = render("a ${x} b ${y} c ${x}\n", {{"x", library_text("1")}, {"y", library_text("two")}});
    EXPECT_EQ(out.text, "a 1 b two c 1\n");
    EXPECT_TRUE(out.regions.empty());
}

TEST(Render, CopiesUserTextVerbatimNeverInterpretingIt) {
    const std::string tricky = "printf(\"%d %s\", ${x}, $${y}) { } %% ${";
    const auto out = render("before ${code} after", {{"code", user_text("operation", tricky)}, {"x", library_text("X")}});
    EXPECT_EQ(out.text, "before " + tricky + " after");
}

TEST(Render, IndentsEveryLineOfAFillThatIsAloneOnItsLine) {
    const auto out = render("{\n    ${body}\n}\n", {{"body", user_text("operation", "a = 1;\nif (a) {\n  b();\n}\n")}});
    EXPECT_EQ(out.text, "{\n    a = 1;\n    if (a) {\n      b();\n    }\n}\n");
}

TEST(Render, DoesNotIndentBlankLinesOrFillsThatShareTheirLine) {
    const auto blank = render("  ${body}\n", {{"body", library_text("a;\n\nb;")}});
    EXPECT_EQ(blank.text, "  a;\n\n  b;\n");
    const auto shared = render("x = ${value} + 1;\n", {{"value", library_text("(2\n*3)")}});
    EXPECT_EQ(shared.text, "x = (2\n*3) + 1;\n");
}

TEST(Render, EmptyHoleAloneOnItsLineRemovesTheLine) {
    const auto out = render("first\n    ${nothing}\nlast\n${also_nothing}\n", {{"nothing", user_text("preamble", "")},
                                                                               {"also_nothing", library_text("")}});
    EXPECT_EQ(out.text, "first\nlast\n");
    EXPECT_TRUE(out.regions.empty());
    const auto inline_hole = render("a(${nothing});\n", {{"nothing", library_text("")}});
    EXPECT_EQ(inline_hole.text, "a();\n");
}

TEST(Render, HoleWithoutTextIsALogicError) {
    EXPECT_THROW(render("x ${missing} y", {{"other", library_text("1")}}), std::logic_error);
    EXPECT_THROW(render("x ${unterminated", {}), std::logic_error);
}

TEST(Render, RecordsTheLinesUserTextLandsOn) {
    const std::string pattern = "${prologue}\n${preamble}\n\nvoid f()\n{\n    ${operation};\n}\n";
    const auto out = render(pattern, {{"prologue", library_text("#define A 1\n#define B 2")},
                                      {"preamble", user_text("preamble", "int g() {\n  return 1;\n}\n")},
                                      {"operation", user_text("operation", "y = g()")}});
    ASSERT_EQ(out.regions.size(), 2u);
    const auto& preamble = out.regions[0];
    EXPECT_EQ(preamble.label, "preamble");
    EXPECT_EQ(preamble.first_line, lines_containing(out.text, "int g() {").at(0));
    EXPECT_EQ(preamble.last_line, preamble.first_line + 2);
    EXPECT_EQ(lines_of(out.text).at(preamble.last_line - 1), "}");
    const auto& operation = out.regions[1];
    EXPECT_EQ(operation.label, "operation");
    EXPECT_EQ(operation.first_line, lines_containing(out.text, "y = g()").at(0));
    EXPECT_EQ(operation.last_line, operation.first_line);
}

// ---- generated kernels ----

TEST(GeneratedKernel, PercentInOperationAndPreambleIsOpenClRemainder) {
    clalgo::ElementwiseOptions options;
    options.preamble = "int mod7(int v) { return v % 7; }";
    clalgo::ElementwiseKernel kernel(context(), "const int *x, int *y", "y[i] = mod7(x[i]) % 5", options);
    const auto hx = clalgo_test::random_values<int>(2000);
    auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<int> y(queue(), hx.size());
    kernel(queue(), x, y);
    const auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) ASSERT_EQ(hy[k], (hx[k] % 7) % 5) << hx[k];
}

TEST(GeneratedKernel, TrailingLineCommentsInOneLineExpressionsAreHarmless) {
    clalgo::ReductionKernel<int> sum(context(), "0 // the neutral element", "a+b // add", "x[i] * 2 // twice",
                                     "const int *x");
    clalgo::ElementwiseKernel twice(context(), "const int *x, int *y", "y[i] = 2 * x[i] // double it");
    const auto hx = clalgo_test::random_values<int>(1000);
    auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<int> y(queue(), hx.size());
    twice(queue(), x, y);
    const auto hy = y.to_host(queue());
    long long expected = 0;
    for (std::size_t k = 0; k < hx.size(); ++k) {
        ASSERT_EQ(hy[k], 2 * hx[k]);
        expected += 2LL * hx[k];
    }
    EXPECT_EQ(sum(queue(), x), static_cast<int>(expected));
}

TEST(GeneratedKernel, AKernelNamedLikeABuiltInFunctionIsAClearErrorNotARawOpenClOne) {
    clalgo::ElementwiseOptions options;
    options.name = "max";
    try {
        clalgo::ElementwiseKernel kernel(context(), "int *y", "y[i] = 1", options);
        clalgo::Array<int> y(queue(), 4);
        kernel(queue(), y);
        queue().finish();
        EXPECT_EQ(y.to_host(queue()), std::vector<int>(4, 1));  // a device that allows the name runs it
    } catch (const cl::Error& error) {
        FAIL() << "a raw cl::Error escaped: " << error.what();
    } catch (const std::exception& error) {
        EXPECT_NE(std::string(error.what()).find("max"), std::string::npos) << error.what();
    }
}

TEST(GeneratedKernel, LoopPrepAndAfterLoopRunOncePerWorkItemAroundTheLoop) {
    clalgo::ElementwiseOptions options;
    options.loop_prep = "const int shift = base * 2;\nint processed = 0;";
    options.after_loop = "atomic_add(&total[0], processed);";
    clalgo::ElementwiseKernel kernel(context(), "int base, const int *x, int *y, int *total",
                                     "y[i] = x[i] + shift; ++processed", options);
    const int base = 21;
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        const auto hx = clalgo_test::random_values<int>(n);
        auto x = clalgo::to_device(queue(), hx);
        clalgo::Array<int> y(queue(), n), total(queue(), 1);
        total.fill(queue(), 0);
        kernel(queue(), base, x, y, total);
        const auto hy = y.to_host(queue());
        for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(hy[k], hx[k] + 2 * base) << k;
        EXPECT_EQ(total.read_at(queue(), 0), int(n)) << "every index processed exactly once, n=" << n;
    }
}

TEST(GeneratedKernel, SourceIsReadableAndMarksNothingOutsideTheTemplate) {
    clalgo::ElementwiseKernel kernel(context(), "float a, float *x", "x[i] *= a", named("scale"));
    const std::string source = kernel.source();
    EXPECT_TRUE(contains(source, "__kernel void scale("));
    EXPECT_TRUE(contains(source, "x[i] *= a;"));
    EXPECT_EQ(source.find("${"), std::string::npos);
}

TEST(GeneratedKernel, SecondIdenticalKernelComesFromTheMemoryCache) {
    const std::string arguments = "const float *x, float *y", operation = "y[i] = x[i] * 0.5f + 1234.0f";
    clalgo::ElementwiseKernel first(context(), arguments, operation);
    const auto before = clalgo::cache_statistics();
    clalgo::ElementwiseKernel second(context(), arguments, operation);
    const auto after = clalgo::cache_statistics();
    EXPECT_EQ(after.source_builds, before.source_builds);
    EXPECT_EQ(after.disk_hits, before.disk_hits);
    EXPECT_EQ(after.memory_hits, before.memory_hits + context().devices().size());

    const auto hx = clalgo_test::random_values<float>(100);
    auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<float> y(queue(), hx.size());
    second(queue(), x, y);
    const auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) ASSERT_FLOAT_EQ(hy[k], hx[k] * 0.5f + 1234.0f) << k;
}

TEST(GeneratedKernel, BadExpressionThrowsBuildErrorPointingAtTheUsersCode) {
    const std::string snippet = "y[i] = x[i] + clalgo_test_no_such_variable";
    clalgo::ElementwiseOptions options;
    options.name = "broken_kernel";
    try {
        clalgo::ElementwiseKernel kernel(context(), "const float *x, float *y", snippet, options);
        FAIL() << "the kernel built";
    } catch (const clalgo::BuildError& error) {
        const std::string what = error.what();
        EXPECT_EQ(error.kernel_name(), "broken_kernel");
        EXPECT_TRUE(contains(what, "'broken_kernel'"));
        EXPECT_TRUE(contains(what, "your operation: " + snippet));
        EXPECT_FALSE(error.log().empty());
        EXPECT_TRUE(contains(what, error.log()));
        EXPECT_TRUE(contains(error.source(), snippet));
        EXPECT_TRUE(contains(error.numbered_source(), snippet));

        // the user's lines, and only they, are marked in the numbered source inside what(): every line where
        // the operation stands (a GPU's loop applies it in two places: four items a round, then the rest)
        std::size_t marked = 0;
        for (const auto& line : lines_of(what)) {
            if (line.find(" > | ") == std::string::npos) continue;
            ++marked;
            EXPECT_TRUE(contains(line, snippet));
            EXPECT_TRUE(contains(line, "<- your operation"));
        }
        EXPECT_GE(marked, 1u);
        EXPECT_EQ(marked, lines_containing(error.source(), snippet).size());
        // line numbers count the source's lines
        const auto number = lines_containing(error.source(), snippet).at(0);
        EXPECT_TRUE(contains(what, std::to_string(number) + " > | "));
    }
}

TEST(GeneratedKernel, BadPreambleIsMarkedOnEachOfItsLines) {
    clalgo::ElementwiseOptions options;
    options.preamble = "int helper(int v)\n{\n    return v +;\n}";
    try {
        clalgo::ElementwiseKernel kernel(context(), "int *x", "x[i] = helper(x[i])", options);
        FAIL() << "the kernel built";
    } catch (const clalgo::BuildError& error) {
        const auto marked = lines_containing(error.numbered_source(), "<- your preamble");
        ASSERT_EQ(marked.size(), 4u);
        EXPECT_EQ(marked.back(), marked.front() + 3);
        EXPECT_EQ(lines_of(error.source()).at(marked.front() - 1), "int helper(int v)");
    }
}

TEST(GeneratedKernel, FailedBuildIsNotCachedAndThrowsAgain) {
    const auto build = [] { clalgo::ElementwiseKernel(context(), "int *x", "x[i] = ]"); };
    EXPECT_THROW(build(), clalgo::BuildError);
    EXPECT_THROW(build(), clalgo::BuildError);
}

TEST(GeneratedKernel, HonoursClalgoBuildOptions) {
    const char* operation = "y[i] = x[i] * CLALGO_TEST_VALUE";
    EXPECT_THROW(clalgo::ElementwiseKernel(context(), "const int *x, int *y", operation), clalgo::BuildError)
        << "without the option the macro is undefined";
    const int value = 7;
    clalgo::ElementwiseKernel kernel = [&] {
        ScopedEnvironment options("CLALGO_BUILD_OPTIONS", "-DCLALGO_TEST_VALUE=" + std::to_string(value));
        return clalgo::ElementwiseKernel(context(), "const int *x, int *y", operation);
    }();
    const auto hx = clalgo_test::random_values<int>(500);
    auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<int> y(queue(), hx.size());
    kernel(queue(), x, y);
    const auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) ASSERT_EQ(hy[k], hx[k] * value) << k;
}

TEST(GeneratedKernel, InvalidBuildOptionsThrowBuildErrorNamingThem) {
    clalgo::ElementwiseOptions options;
    options.build_options = "-clalgo-no-such-option";
    const std::string message = message_of<clalgo::BuildError>(
        [&] { clalgo::ElementwiseKernel(context(), "int *x", "x[i] = 1", options); });
    EXPECT_TRUE(contains(message, "-clalgo-no-such-option"));
}

// ---- compiler output ----

TEST(CompilerOutput, WarningsOfASuccessfulBuildAreOnTheKernelAndPrintedOnRequestAlsoFromTheDiskCache) {
    // a unique warning, so that neither cache has the program yet
    const std::string mark =
        "clalgo_test_warning_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    std::string dir = (std::filesystem::temp_directory_path() / "clalgo-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    ScopedEnvironment no_cache("CLALGO_NO_CACHE", std::nullopt);
    ScopedEnvironment cache_dir("CLALGO_CACHE_DIR", dir);
    clalgo::ElementwiseOptions options = named("warns");
    // the function too: PoCL's own cache is keyed by the preprocessed source, which has no #warning line
    options.preamble = "#warning " + mark + "\nint " + mark + "(void) { return 1; }";
    const auto make = [&](const clalgo::Context& in, const char* print) {
        ScopedEnvironment output("CLALGO_COMPILER_OUTPUT", print);
        ::testing::internal::CaptureStderr();
        clalgo::ElementwiseKernel kernel(in, "int *x", "x[i] = 2", options);
        return std::make_pair(kernel.build_log(), ::testing::internal::GetCapturedStderr());
    };
    const auto before = clalgo::cache_statistics();
    const auto [built_log, built_printed] = make(context(), "1");
    EXPECT_EQ(clalgo::cache_statistics().source_builds, before.source_builds + 1);
    EXPECT_TRUE(contains(built_log, mark));
    EXPECT_TRUE(contains(built_printed, "clalgo: kernel 'warns' built on"));
    EXPECT_TRUE(contains(built_printed, mark));

    const clalgo::Context fresh(context().devices().front());  // its own memory cache: the program comes from disk
    const auto [loaded_log, loaded_printed] = make(fresh, "on");
    EXPECT_EQ(clalgo::cache_statistics().disk_hits, before.disk_hits + 1);
    EXPECT_EQ(loaded_log, built_log) << "the disk cache keeps the log with the binary";
    EXPECT_TRUE(contains(loaded_printed, "loaded from the disk cache"));
    EXPECT_TRUE(contains(loaded_printed, mark));

    const clalgo::Context quiet(context().devices().front());
    const auto [quiet_log, quiet_printed] = make(quiet, "0");
    EXPECT_TRUE(contains(quiet_log, mark));
    EXPECT_FALSE(contains(quiet_printed, mark)) << "printed only on request";

    ScopedEnvironment bad("CLALGO_COMPILER_OUTPUT", "loud");
    const clalgo::Context other(context().devices().front());
    EXPECT_TRUE(contains(message_of<std::invalid_argument>([&] { clalgo::ElementwiseKernel(other, "int *x", "x[i] = 2", options); }),
                         "CLALGO_COMPILER_OUTPUT='loud'"));
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}

TEST(CompilerOutput, AQuietBuildHasAnEmptyishLogAndPrintsNothing) {
    ScopedEnvironment output("CLALGO_COMPILER_OUTPUT", "1");
    ScopedEnvironment no_cache("CLALGO_NO_CACHE", "1");
    ::testing::internal::CaptureStderr();
    clalgo::ElementwiseKernel kernel(context(), "int *x", "x[i] = 3", named("quiet_build"));
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    EXPECT_FALSE(clalgo::detail::log_says_something(kernel.build_log())) << kernel.build_log();
}

TEST(CompilerOutput, NvidiasNoteOnNoinlineKernelsIsNotOutput) {
    using clalgo::detail::log_says_something;
    EXPECT_FALSE(log_says_something(""));
    EXPECT_FALSE(log_says_something(" \n\t\n"));
    // the note NVIDIA's compiler (H100, driver 580) writes for kernels of some programs that build cleanly
    EXPECT_FALSE(log_says_something("(): Warning: Function quiet_build is a kernel, so overriding noinline attribute. "
                                    "The function may be inlined when called.\n\n"));
    EXPECT_TRUE(log_says_something("(): Warning: Function k is a kernel, so overriding noinline attribute.\n"
                                   "<source>:3:5: warning: unused variable 'y'\n"));
}

// ---- launches ----

TEST(Launch, EmptyArrayLaunchesNothingAndReturnsAWaitableEvent) {
    clalgo::ElementwiseKernel kernel(context(), "int *x", "x[i] = 1");
    clalgo::Array<int> empty(queue(), 0);
    cl::Event done = kernel(queue(), empty);
    ASSERT_NE(done(), nullptr);
    done.wait();
    EXPECT_EQ(done.getInfo<CL_EVENT_COMMAND_TYPE>(), cl_command_type(CL_COMMAND_MARKER));
    EXPECT_EQ(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
}

TEST(Launch, EmptyRangeTouchesNothing) {
    clalgo::ElementwiseKernel kernel(context(), "int *x", "x[i] = 1");
    clalgo::Array<int> x(queue(), 10);
    x.fill(queue(), -5);
    for (const auto empty : {clalgo::range(3, 3), clalgo::range(5, 2), clalgo::range(2, 5, -1)})
        EXPECT_EQ(kernel(queue(), empty, x).get().getInfo<CL_EVENT_COMMAND_TYPE>(), cl_command_type(CL_COMMAND_MARKER));
    EXPECT_EQ(x.to_host(queue()), std::vector<int>(10, -5));
}

TEST(Launch, NegativeStepRangeVisitsItsIndicesDownwards) {
    clalgo::ElementwiseKernel mark(context(), "int *out", "out[i] = (int)i + 1000");
    const std::size_t n = 100;
    clalgo::Array<int> out(queue(), n);
    out.fill(queue(), -1);
    mark(queue(), clalgo::range(90, 3, -4), out);
    const auto host = out.to_host(queue());
    for (std::size_t k = 0; k < n; ++k) {
        const bool touched = k > 3 && k <= 90 && (90 - k) % 4 == 0;
        ASSERT_EQ(host[k], touched ? int(k) + 1000 : -1) << k;
    }
}

TEST(Launch, KernelWithNoArrayAndNoRangeThrows) {
    clalgo::ElementwiseKernel kernel(context(), "float a", "(void)a", named("no_array"));
    const std::string message = message_of<std::invalid_argument>([&] { kernel(queue(), 1.0f); });
    EXPECT_TRUE(contains(message, "'no_array'"));
    EXPECT_TRUE(contains(message, "range"));
    EXPECT_NO_THROW(kernel(queue(), 1.0f, clalgo::range(0, 4)).wait());
}

TEST(Launch, WaitForDelaysTheLaunchUntilTheEventCompletes) {
    clalgo::ElementwiseKernel kernel(context(), "const int *x, int *y", "y[i] = x[i] + 1");
    const auto hx = clalgo_test::random_values<int>(1000);
    auto x = clalgo::to_device(queue(), hx);
    clalgo::Array<int> y(queue(), hx.size());
    cl::UserEvent gate(context().get());
    struct Opener {  // opens the gate however the test ends, so the queue never waits forever
        cl::UserEvent& gate;
        ~Opener() { gate.setStatus(CL_COMPLETE); }
    };
    cl::Event done, marker;
    {
        Opener opener{gate};
        done = kernel(queue(), x, y, clalgo::wait_for(gate));
        clalgo::Array<int> empty(queue(), 0);
        marker = kernel(queue(), empty, empty, clalgo::wait_for(std::vector<cl::Event>{gate}));
        queue().flush();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        EXPECT_NE(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
        EXPECT_NE(marker.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
    }
    done.wait();
    marker.wait();
    const auto hy = y.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) ASSERT_EQ(hy[k], hx[k] + 1) << k;
}

TEST(Launch, WaitForAnEarlierEventOrdersTheWork) {
    clalgo::ElementwiseKernel twice(context(), "int *x", "x[i] = 2 * x[i]");
    const auto hx = clalgo_test::random_values<int>(300);
    auto x = clalgo::to_device(queue(), hx);
    cl::Event first = twice(queue(), x);
    cl::Event second = twice(queue(), x, clalgo::wait_for(first));
    second.wait();
    EXPECT_EQ(first.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), CL_COMPLETE);
    const auto host = x.to_host(queue());
    for (std::size_t k = 0; k < hx.size(); ++k) ASSERT_EQ(host[k], 4 * hx[k]) << k;
}

TEST(KernelArguments, ALibraryKernelOfMoreThan64ParametersIsSetByNameAndEveryOneIsChecked) {
    // a list builder of many lists has more library parameters than one 64-bit mask records
    const int count = 70;
    std::vector<clalgo::detail::Parameter> parameters;
    std::string source = "__kernel void many(__global long *out";
    std::string sum = "0";
    for (int k = 0; k < count; ++k) {
        parameters.push_back({"long", "p" + std::to_string(k)});
        source += ", long p" + std::to_string(k);
        sum += " + p" + std::to_string(k);
    }
    source += ")\n{\n    out[0] = " + sum + ";\n}\n";
    parameters.insert(parameters.begin(), {"__global long *", "out"});
    const clalgo::detail::Signature signature(parameters);
    cl::Program program(context().get(), source);
    program.build();
    cl::Kernel kernel(program, "many");
    clalgo::Array<std::int64_t> out(queue(), 1);
    clalgo::detail::KernelArguments all(kernel, signature);
    all.set("out", out.buffer());
    for (int k = 0; k < count; ++k) all.set("p" + std::to_string(k), cl_long(k + 1));
    EXPECT_NO_THROW(all.done());
    queue().get().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(1), cl::NullRange);
    EXPECT_EQ(out.to_host(queue())[0], std::int64_t(count) * (count + 1) / 2);

    clalgo::detail::KernelArguments one_short(kernel, signature);
    one_short.set("out", out.buffer());
    for (int k = 0; k < count - 1; ++k) one_short.set("p" + std::to_string(k), cl_long(k + 1));
    const std::string message = clalgo_test::message_of<std::logic_error>([&] { one_short.done(); });
    EXPECT_TRUE(clalgo_test::contains(message, "parameter " + std::to_string(count))) << message;
}
