// Megabytes of user text at every entry point: expressions, predicates, preambles, declarations, names and build
// options end in a clalgo exception (std::invalid_argument, or a BuildError where the compiler had its say), never
// a crash, and before any compiler sees them within a second. The linear scanners that replaced regular
// expressions are compared with those expressions on short random texts.
#include "support.hpp"

#include <clalgo/codegen/code_shape.hpp>
#include <clalgo/codegen/source_text.hpp>

#include <chrono>
#include <functional>
#include <regex>

namespace {

using clalgo_test::contains;
using clalgo_test::context;
using clalgo_test::queue;

constexpr std::size_t megabyte = 1 << 20;

/// The bounds on time hold for an optimised build; the sanitizers' build (.ci/run: -O0, every access checked) is
/// given ten times as long.
#if defined(__SANITIZE_ADDRESS__)
constexpr double slower = 10.0;
#else
constexpr double slower = 1.0;
#endif

std::string repeated(const std::string& unit, std::size_t bytes) {
    std::string text;
    text.reserve(bytes + unit.size());
    while (text.size() + unit.size() <= bytes) text += unit;
    return text;
}

/// Texts of a megabyte that no compiler may be given: a word (spelling suggestions take minutes), a chain of
/// operators and nested brackets (the compiler's recursion overflows its stack), unary operators and casts.
std::vector<std::pair<std::string, std::string>> refused_texts() {
    return {{"a word", repeated("a", megabyte)},
            {"a chain of +", repeated("1+", megabyte) + "1"},
            {"unary minuses", repeated("- ", megabyte) + "1"},
            {"casts", repeated("(float)", megabyte) + "1"},
            {"nested brackets", repeated("(", megabyte)},
            {"nested ifs", repeated("if (1) ", megabyte) + ";"},
            {"nested accesses", repeated("x[", megabyte)}};
}

/// Runs `action`, which must throw std::invalid_argument (BuildError also where `may_build`), and returns its
/// time in seconds.
double seconds_to_refuse(const std::string& what, const std::function<void()>& action, bool may_build = false) {
    const auto start = std::chrono::steady_clock::now();
    try {
        action();
        ADD_FAILURE() << what << ": nothing was thrown";
    } catch (const std::invalid_argument&) {
    } catch (const clalgo::BuildError& error) {
        if (!may_build) ADD_FAILURE() << what << ": a BuildError, where the text should not reach the compiler";
    } catch (const std::exception& error) {
        ADD_FAILURE() << what << ": " << typeid(error).name() << ": " << std::string(error.what()).substr(0, 300);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// One role a user string plays at an entry point: a call that passes `text` there.
struct Role {
    std::string name;
    std::function<void(const std::string&)> call;
};

std::vector<Role> every_role() {
    auto& ctx = context();
    auto& q = queue();
    static const auto x = clalgo::to_device(q, std::vector<float>{1, 2, 3, 4});
    static const auto keys = clalgo::to_device(q, std::vector<std::int32_t>{1, 1, 2, 2});
    static const auto offsets = clalgo::to_device(q, std::vector<std::int64_t>{0, 2, 4});
    static clalgo::Array<float> out(q, 4), sums(q, 2);
    auto elementwise = [&](std::string arguments, std::string operation, clalgo::ElementwiseOptions options) {
        clalgo::ElementwiseKernel(ctx, arguments, operation, options);
    };
    auto reduction = [&](std::string neutral, std::string reduce, std::string map, clalgo::ReductionOptions options) {
        clalgo::ReductionKernel<float>(ctx, neutral, reduce, map, "const float *x", options);
    };
    auto scan = [&](std::string input, std::string scan_expr, std::string output, clalgo::ScanOptions options) {
        clalgo::GenericScanKernel<float>(ctx, "const float *x, float *y", input, scan_expr, "0", output, options);
    };
    auto with = [](auto options, auto set) {
        set(options);
        return options;
    };
    return {
        {"ElementwiseKernel arguments", [=](const std::string& t) { elementwise("float *x, " + t, "x[i] = 1", {}); }},
        {"ElementwiseKernel operation", [=](const std::string& t) { elementwise("float *x", t, {}); }},
        {"ElementwiseKernel preamble",
         [=](const std::string& t) { elementwise("float *x", "x[i] = 1", with(clalgo::ElementwiseOptions{}, [&](auto& o) { o.preamble = t; })); }},
        {"ElementwiseKernel name",
         [=](const std::string& t) { elementwise("float *x", "x[i] = 1", with(clalgo::ElementwiseOptions{}, [&](auto& o) { o.name = t; })); }},
        {"ElementwiseKernel build options",
         [=](const std::string& t) { elementwise("float *x", "x[i] = 1", with(clalgo::ElementwiseOptions{}, [&](auto& o) { o.build_options = t; })); }},
        {"ReductionKernel map_expr", [=](const std::string& t) { reduction("0", "a+b", t, {}); }},
        {"ReductionKernel reduce_expr", [=](const std::string& t) { reduction("0", t, "x[i]", {}); }},
        {"ReductionKernel neutral", [=](const std::string& t) { reduction(t, "a+b", "x[i]", {}); }},
        {"ReductionKernel preamble",
         [=](const std::string& t) { reduction("0", "a+b", "x[i]", with(clalgo::ReductionOptions{}, [&](auto& o) { o.preamble = t; })); }},
        {"ReductionKernel name",
         [=](const std::string& t) { reduction("0", "a+b", "x[i]", with(clalgo::ReductionOptions{}, [&](auto& o) { o.name = t; })); }},
        {"GenericScanKernel input_expr", [=](const std::string& t) { scan(t, "a+b", "y[i] = item;", {}); }},
        {"GenericScanKernel scan_expr", [=](const std::string& t) { scan("x[i]", t, "y[i] = item;", {}); }},
        {"GenericScanKernel output_statement", [=](const std::string& t) { scan("x[i]", "a+b", t, {}); }},
        {"GenericScanKernel is_segment_start_expr",
         [=](const std::string& t) { scan("x[i]", "a+b", "y[i] = item;", with(clalgo::ScanOptions{}, [&](auto& o) { o.is_segment_start_expr = t; })); }},
        {"GenericScanKernel preamble",
         [=](const std::string& t) { scan("x[i]", "a+b", "y[i] = item;", with(clalgo::ScanOptions{}, [&](auto& o) { o.preamble = t; })); }},
        {"GenericScanKernel name",
         [=](const std::string& t) { scan("x[i]", "a+b", "y[i] = item;", with(clalgo::ScanOptions{}, [&](auto& o) { o.name = t; })); }},
        {"InclusiveScanKernel scan_expr", [=](const std::string& t) { clalgo::InclusiveScanKernel<float>(ctx, t, "0"); }},
        {"HistogramKernel bin_expr", [=](const std::string& t) { clalgo::HistogramKernel<std::uint32_t>(ctx, "const float *x", t); }},
        {"ListOfListsBuilder generate",
         [=](const std::string& t) { clalgo::ListOfListsBuilder(ctx, {{"items", "int"}}, t, "const float *x"); }},
        {"ListOfListsBuilder list name",
         [=](const std::string& t) { clalgo::ListOfListsBuilder(ctx, {{t, "int"}}, "APPEND_items(1);", "const float *x"); }},
        {"RawProgram source", [=](const std::string& t) { clalgo::RawProgram(ctx, "__kernel void f(__global float *x) { x[0] = " + t + "; }"); }},
        {"RawProgram kernel name", [=](const std::string& t) { clalgo::RawProgram(ctx, "__kernel void " + t + "(__global float *x) { }"); }},
        {"RawProgram build options", [=](const std::string& t) { clalgo::RawProgram(ctx, "__kernel void f(__global float *x) { }", t); }},
        {"copy_if predicate", [=](const std::string& t) { clalgo::copy_if(q, x, t); }},
        {"Argument name", [=](const std::string& t) { clalgo::Argument(t, 1.0f); }},
        {"count_if predicate", [=](const std::string& t) { clalgo::count_if(q, x, t); }},
        {"transform expression", [=](const std::string& t) { clalgo::transform(q, x, out, t); }},
        {"sort less", [=](const std::string& t) { clalgo::sort(q, out, t); }},
        {"RadixSort key_expr",
         [=](const std::string& t) { clalgo::RadixSort<std::uint32_t>(ctx, "const float *x, float *x_out", t, {"x"}); }},
        {"reduce_by_key reduce_expr", [=](const std::string& t) { clalgo::reduce_by_key(q, keys, x, t, "0"); }},
        {"segmented_reduce neutral", [=](const std::string& t) { clalgo::segmented_reduce(q, x, offsets, sums, "a+b", t); }},
        {"segmented_reduce preamble",
         [=](const std::string& t) { clalgo::segmented_reduce(q, x, offsets, sums, "a+b", "0", clalgo::SegmentOptions{t, ""}); }},
    };
}

TEST(LongInputs, EveryEntryPointRefusesAMegabyteOfTextThatWouldStallOrCrashTheCompilerWithinASecond) {
    // what some entry points build before they read the text (the radix sort's passes, the list builder's scan)
    clalgo::RadixSort<std::uint32_t>(context(), "const float *x, float *x_out", "1", {"x"});
    clalgo::ListOfListsBuilder(context(), {{"items", "int"}}, "APPEND_items(1);", "const float *x");
    for (const auto& role : every_role())
        for (const auto& [shape, text] : refused_texts()) {
            const double seconds = seconds_to_refuse(role.name + ", " + shape, [&, &code = text] { role.call(code); });
            EXPECT_LT(seconds, 1.0 * slower) << role.name << ", " << shape;
        }
}

TEST(LongInputs, TheIssuesCrashCasesEndInAClalgoException) {
    auto& ctx = context();
    const std::string map_expr(200000, 'a'), spaces(200000, ' ');
    const std::string message = clalgo_test::message_of<std::invalid_argument>(
        [&] { clalgo::ReductionKernel<float>(ctx, "0", "a+b", map_expr, "const float *x, const float *y"); });
    EXPECT_TRUE(contains(message, "kernel 'reduce': your map_expr holds an identifier or number of 200000 characters"));
    // spaces alone: an empty map_expr, which reads the first array
    const auto x = clalgo::to_device(queue(), std::vector<float>{1, 2, 3});
    clalgo::ReductionKernel<float> sum(ctx, "0", "a+b", spaces, "const float *x, const float *y");
    EXPECT_EQ(sum(queue(), x, x), 6.0f);
    EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>([&] { clalgo::copy_if(queue(), x, std::string(286379, 'a')); }),
                         "clalgo: copy_if: your predicate holds an identifier or number of 286379 characters"));
    clalgo::ReductionOptions named;
    named.name = std::string(200000, 'a');
    EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>(
                             [&] { clalgo::ReductionKernel<float>(ctx, "0", "a+b", "x[i]", "const float *x", named); }),
                         "clalgo::ReductionKernel: the kernel name 'aaaa"));
}

TEST(LongInputs, CopyIfChecksAPredicateAtEveryCallUntilAKernelIsMadeOfIt) {
    // a call like an earlier one finds its kernel and does not scan the predicate again: one that failed the
    // check made no kernel, so it fails at every call, over an array, an empty one, and into kept arrays
    auto& q = queue();
    const auto x = clalgo::to_device(q, std::vector<int>{1, 2, 3, 4});
    clalgo::Array<int> out(q, 4), none(q, 0);
    clalgo::Array<std::int64_t> count(q, 1);
    std::string deep;
    for (int k = 0; k < 300; ++k) deep += "(";
    deep += "ary[i]";
    for (int k = 0; k < 300; ++k) deep += ")";
    deep += " > 2";
    for (int round = 0; round < 2; ++round) {
        EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>([&] { clalgo::copy_if(q, x, deep); }),
                             "clalgo: copy_if: your predicate"));
        EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>([&] { clalgo::copy_if(q, none, deep); }),
                             "clalgo: copy_if: your predicate"));
        EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>(
                                 [&] { clalgo::copy_if(q, x, out, count, deep); }),
                             "clalgo: copy_if: your predicate"));
    }
    // a predicate within the bounds, called twice (the second finds its kernel), keeps what the host keeps
    for (int round = 0; round < 2; ++round) {
        clalgo::copy_if(q, x, out, count, "ary[i] > 2");
        EXPECT_EQ(count.to_host(q), std::vector<std::int64_t>{2});
        EXPECT_EQ(out.view(0, 2).to_host(q), (std::vector<int>{3, 4}));
    }
}

TEST(LongInputs, FlatMegabytesReachTheCompilerAndBuildOrFailCleanly) {
    auto& q = queue();
    const auto x = clalgo::to_device(q, std::vector<float>{1, 2, 3});
    // a megabyte of comment and a table of ten thousand elements in a preamble build and run
    clalgo::ReductionOptions options;
    std::string table = "__constant float table[] = {";
    for (int k = 0; k < 10000; ++k) table += std::to_string(k % 7) + ", ";
    options.preamble = "/*" + repeated("a", megabyte) + "*/\n" + table + "0};\n";
    clalgo::ReductionKernel<float> sum(context(), "0", "a+b", "x[i] * table[i + 1]", "const float *x", options);
    EXPECT_EQ(sum(q, x), 1 * 1 + 2 * 2 + 3 * 3);
    // half a million undeclared names, each short: the compiler says so
    const double seconds = seconds_to_refuse(
        "undeclared names", [&] { clalgo::ReductionKernel<float>(context(), "0", "a+b", repeated("a ", megabyte), "const float *x"); },
        true);
    EXPECT_LT(seconds, 60.0);
}

TEST(LongInputs, CodeAtTheBoundsBuildsAndOneStepPastThemIsRefused) {
    using clalgo::detail::max_code_chain;
    using clalgo::detail::max_code_nesting;
    using clalgo::detail::max_code_word;
    auto& q = queue();
    const auto x = clalgo::to_device(q, std::vector<float>{1, 2, 3});
    auto sum_of = [&](const std::string& map_expr) {
        return clalgo::ReductionKernel<float>(context(), "0", "a+b", map_expr, "const float *x")(q, x);
    };
    // each '-' is a link of the chain, and so is the subscript
    EXPECT_EQ(sum_of(repeated("- ", 2 * (max_code_chain - 2)) + "x[i]"), 6.0f);
    EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>(
                             [&] { sum_of(repeated("- ", 2 * max_code_chain) + "x[i]"); }),
                         "chains 4097 operators"));
    // x[i] is one level: the brackets around it reach the bound
    EXPECT_EQ(sum_of(repeated("(", max_code_nesting - 1) + "x[i]" + repeated(")", max_code_nesting - 1)), 6.0f);
    EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>(
                             [&] { sum_of(repeated("(", max_code_nesting) + "x[i]" + repeated(")", max_code_nesting)); }),
                         "nests brackets 201 deep"));
    const std::string word(max_code_word, 'w');
    clalgo::ReductionOptions options;
    options.preamble = "#define " + word + " 2\n";
    EXPECT_EQ(clalgo::ReductionKernel<float>(context(), "0", "a+b", "x[i] * " + word, "const float *x", options)(q, x), 12.0f);
    options.preamble = "#define " + word + "w 2\n";
    EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>([&] {
                             clalgo::ReductionKernel<float>(context(), "0", "a+b", "x[i]", "const float *x", options);
                         }),
                         "your preamble holds an identifier or number of 1025 characters"));
}

TEST(CodeShape, MeasuresNestingChainsAndWordsAsTheCompilerRecurses) {
    using clalgo::detail::code_shape;
    EXPECT_EQ(code_shape("f(a, b, c)").chain, 0u);                     // a call's arguments are separate
    EXPECT_EQ(code_shape("a + b * c").chain, 2u);
    EXPECT_EQ(code_shape("(a + b) * (c + d)").chain, 3u);                 // a group is a link; its inside adds while open
    EXPECT_EQ(code_shape("x = 1; y = 2; z = 3;").chain, 1u);             // statements end chains
    EXPECT_EQ(code_shape("{1 + 1, 2 + 2, 3 + 3}").chain, 1u);            // an initialiser's elements are separate
    EXPECT_EQ(code_shape("(1, 2, 3)").chain, 2u);                        // the comma operator chains
    EXPECT_EQ(code_shape("if (a) if (b) x = 1;").chain, 5u);            // if, (a), if, (b), =
    EXPECT_EQ(code_shape("if (a) {} else if (b) {} else {}").chain, 6u);  // else continues the statement
    EXPECT_EQ(code_shape("if (a) {} x = 1;").chain, 2u);                 // ... anything else starts one
    EXPECT_EQ(code_shape("a /* - - - - */ + \"- - - -\"").chain, 1u);     // comments and literals are not code
    EXPECT_EQ(code_shape("#define A - - -\nx").chain, 3u);               // a directive ends with its line
    EXPECT_EQ(code_shape("a[b[c(d)]]").nesting, 3u);
    EXPECT_EQ(code_shape("abc + 12345").word, 5u);
}

TEST(SourceText, ScannersAgreeWithTheRegularExpressionsTheyReplacedOnRandomTexts) {
    std::mt19937 engine(7);
    const std::vector<std::string> pieces{"f", "g", "for", "while", "x", "i", " ", "\n", "(", ")", "{", "}", ";",
                                          "[", "]", "1", "_a", "if", "+", ",", "f2"};
    for (int round = 0; round < 1500; ++round) {
        std::string text;
        const int length = std::uniform_int_distribution<int>(0, 14)(engine);
        for (int k = 0; k < length; ++k) text += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(engine)];
        for (const char* word : {"for", "while", "f"})
            EXPECT_EQ(clalgo::detail::mentions(text, word), std::regex_search(text, std::regex(std::string("\\b") + word + "\\b")))
                << "'" << text << "'";
        std::vector<std::string> calls;
        static const std::regex call("\\b([A-Za-z_][A-Za-z0-9_]*)\\s*\\(");
        for (std::sregex_iterator at(text.begin(), text.end(), call), end; at != end; ++at) calls.push_back((*at)[1].str());
        EXPECT_EQ(clalgo::detail::called_names(text), calls) << "'" << text << "'";
        const auto defined = clalgo::detail::defined_functions(text);
        for (const char* name : {"f", "g", "f2", "_a", "x"})
            EXPECT_EQ(defined.count(name) == 1,
                      std::regex_search(text, std::regex(std::string("\\b") + name + "\\s*\\([^;{]*\\)\\s*\\{")))
                << "'" << text << "' " << name;
        static const std::regex plain(R"(^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[\s*i\s*\]\s*$)");
        std::smatch match;
        EXPECT_EQ(clalgo::detail::indexed_at_i(text), std::regex_match(text, match, plain) ? match[1].str() : "")
            << "'" << text << "'";
    }
}

TEST(SourceText, CheckedModeRewritesAMegabyteOfNestedAccessesInOnePass) {
    const auto declarations = clalgo::parse_arguments("const int *x");
    const clalgo::detail::Checked checked(declarations, true);
    const std::size_t depth = megabyte / 2;
    std::string code, expected;
    for (std::size_t k = 0; k < depth; ++k) code += "x[";
    code += "i";
    for (std::size_t k = 0; k < depth; ++k) code += "]";
    for (std::size_t k = 0; k < depth; ++k) expected += "clalgo_at_x(";
    expected += "i";
    for (std::size_t k = 0; k < depth; ++k) expected += ")";
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(checked.text(code), expected);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0 * slower);
}

TEST(SourceText, RawSignaturesOfMegabytesAreReadInLinearTime) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(clalgo::detail::read_kernel_signatures(repeated("kernel ", megabyte)).empty());
    EXPECT_TRUE(clalgo::detail::read_kernel_signatures(repeated("kernel (", megabyte)).empty());
    const auto attributes = clalgo::detail::read_kernel_signatures("kernel void f(" + repeated("__attribute__ ", megabyte) + "int x) {}");
    ASSERT_EQ(attributes.size(), 1u);
    EXPECT_EQ(attributes[0].name, "f");
    std::string many;
    for (int k = 0; k < 30000; ++k) many += "kernel void k" + std::to_string(k) + "(global int *x) {}\n";
    EXPECT_EQ(clalgo::detail::read_kernel_signatures(many).size(), 30000u);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0 * slower);
}

TEST(SourceText, ADeclarationOfManyArgumentsIsParsedInLinearTime) {
    std::string declarations;
    for (int k = 0; k < 60000; ++k) declarations += (k ? ", int a" : "int a") + std::to_string(k);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(clalgo::parse_arguments(declarations).size(), 60000u);
    EXPECT_TRUE(contains(clalgo_test::message_of<std::invalid_argument>([&] { clalgo::parse_arguments(declarations + ", int a7"); }),
                         "the name 'a7' is declared twice"));
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0 * slower);
}

}  // namespace
