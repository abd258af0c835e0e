// Vector variants of the elemental emitter's out-of-line math functions
// (jit/elemental_emitter.h: kExpF32) for the loop vectorizer, and the
// inlining of all of them once LLVM's optimization is done.
//
// The emitter writes scalar code; the loop vectorizer widens it. A call it
// cannot see into stays a call per lane unless the function names vector
// variants ("vector-function-abi-variant"), which the vectorizer calls in
// its place, a vector at a time. Here each variant is written with what the
// host has: on AVX-512, exp's final p * 2^n is one vscalefps instead of
// eight integer and float operations.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetLibraryInfoImpl;
class TargetMachine;
}  // namespace llvm

namespace hlo::cpu {

// Before optimization: defines the vector variants (4, 8 and 16 lanes) of
// the math functions `module` uses and names them on the scalar functions.
void addMathVectorVariants(llvm::Module& module, const llvm::TargetMachine& machine);

// After optimization: inlines every call of the math functions and their
// variants, and deletes the functions.
void inlineMathFunctions(llvm::Module& module);

// The C library's math functions the loop vectorizer may call a vector at a
// time: glibc's vector math library (libmvec). LLVM's own table of it
// (LIBMVEC_X86) lists sin, cos, tan, exp, log and pow for SSE and AVX2 only;
// glibc 2.35 added tanh, erf, log1p, atan and a dozen more, and has AVX-512
// forms of all. Scalar tanhf costs 10 ns an element, its AVX-512 form 0.4
// (glibc documents at most 4 ulp of error for libmvec; tanhf measured 1).
struct LibraryVariant {
  std::string scalar;  // "tanhf"
  std::string vector;  // "_ZGVeN16v_tanhf"
  int lanes;           // 16
  std::string abi;     // "_ZGV_LLVM_N16v": the vector function ABI's prefix
};

// The variants beyond LLVM's table that `has` (whether the loaded libmvec
// defines a symbol) finds, in the instruction sets the host runs
// (`hostHas`, given an LLVM feature name: "avx2", "avx512f"). libmvec
// defines its AVX-512 forms on every machine, and where the CPU has no
// AVX-512 they fault (SIGILL) on their first zmm register.
std::vector<LibraryVariant> libmvecVariants(const std::function<bool(const std::string&)>& has,
                                            const std::function<bool(const std::string&)>& hostHas);

// Adds `variants` to `library`, after LLVM's table.
void addLibraryVariants(llvm::TargetLibraryInfoImpl& library, const std::vector<LibraryVariant>& variants);

}  // namespace hlo::cpu
