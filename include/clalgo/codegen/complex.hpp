// Complex arithmetic in every generated program and RawProgram: std::complex<float> and <double> are float2 and
// double2 on the device (real in .x, imaginary in .y), so + - and * by a real number work as they are; these
// functions do the rest. Each takes and gives float2, or double2 where the device has double precision (overloads:
// compilers built on Clang, which is nearly all; on others float2 only):
//   clalgo_cmul(a, b)  clalgo_cdiv(a, b)  clalgo_conj(z)  clalgo_cabs(z)  clalgo_creal(z)  clalgo_cimag(z)  clalgo_cexp(z)
//   ElementwiseKernel rotate(ctx, "const float2 *z, float2 w, float2 *out", "out[i] = clalgo_cmul(z[i], w)");
#pragma once

#include <string>
#include <vector>

namespace clalgo::detail {

/// The functions for one complex type (`real` "float" or "double"), `attribute` before each.
inline std::string complex_functions(const std::string& real, const std::string& attribute) {
    const std::string c = real + "2";
    const std::string f = "inline " + attribute;
    return f + real + " clalgo_creal(const " + c + " z) { return z.x; }\n" +
           f + real + " clalgo_cimag(const " + c + " z) { return z.y; }\n" +
           f + c + " clalgo_conj(const " + c + " z) { return (" + c + ")(z.x, -z.y); }\n" +
           f + real + " clalgo_cabs(const " + c + " z) { return hypot(z.x, z.y); }\n" +
           f + c + " clalgo_cmul(const " + c + " a, const " + c + " b)\n{\n    return (" + c +
           ")(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);\n}\n" +
           f + c + " clalgo_cdiv(const " + c + " a, const " + c + " b)\n{\n" +
           "    /* scaled by the larger part of b, so that |b|^2 neither overflows nor underflows first */\n" +
           "    const " + real + " s = fmax(fabs(b.x), fabs(b.y));\n" +
           "    const " + c + " bs = b / s, as = a / s;\n" +
           "    const " + real + " d = bs.x * bs.x + bs.y * bs.y;\n" +
           "    return (" + c + ")((as.x * bs.x + as.y * bs.y) / d, (as.y * bs.x - as.x * bs.y) / d);\n}\n" +
           f + c + " clalgo_cexp(const " + c + " z)\n{\n    const " + real + " m = exp(z.x);\n    return (" + c +
           ")(m * cos(z.y), m * sin(z.y));\n}\n";
}

/// The names of the complex functions, for a source that may define its own (RawProgram).
inline const std::vector<std::string>& complex_function_names() {
    static const std::vector<std::string> names{"clalgo_creal", "clalgo_cimag", "clalgo_conj", "clalgo_cabs",
                                                "clalgo_cmul",  "clalgo_cdiv",  "clalgo_cexp"};
    return names;
}

/// The complex functions for a program: float2 always, double2 beside it where the device has double precision
/// and the compiler can overload.
inline std::string complex_prologue(bool has_fp64) {
    std::string text = "/* clalgo's complex functions: float2 and double2 are (real, imaginary) */\n#ifdef __clang__\n";
    text += complex_functions("float", "__attribute__((overloadable)) ");
    if (has_fp64) text += complex_functions("double", "__attribute__((overloadable)) ");
    text += "#else\n" + complex_functions("float", "") + "#endif\n";
    return text;
}

}  // namespace clalgo::detail
