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

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace hlo::cpu {

// Before optimization: defines the vector variants (4, 8 and 16 lanes) of
// the math functions `module` uses and names them on the scalar functions.
void addMathVectorVariants(llvm::Module& module, const llvm::TargetMachine& machine);

// After optimization: inlines every call of the math functions and their
// variants, and deletes the functions.
void inlineMathFunctions(llvm::Module& module);

}  // namespace hlo::cpu
