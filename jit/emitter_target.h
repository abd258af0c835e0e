// The elemental emitter's target hooks (jit/elemental_emitter.h). Free of
// LLVM, so a backend's LLVM-free headers can hold their target's values.
#pragma once
#include <string>

namespace hlo::jit {

// What the emitter asks of the machine it emits for: each backend has one.
// Which ops the emitter computes rather than a library is the backend's
// choice too (emitsDot's limit), as is what code may call: a GPU backend
// refuses a kernel that calls the host runtime's helpers (kDecodeSmallFloat
// ...), which only CPU code can reach.
struct EmitterTarget {
  // The math library: the function the C library names `exp` (`expf` for
  // f32) is mathPrefix + that name: "" for libm on a CPU, "__nv_" for the
  // CUDA toolkit's libdevice on an NVIDIA GPU.
  std::string mathPrefix;
  // exp of f32 through the module's own kExpF32 (emitExpF32), which a CPU's
  // loop vectorizer widens; else the math library's function.
  bool inlineExpF32 = true;
  // Whether the emitter's loops (a reduce's, a dot's) may be unrolled. Off
  // on a GPU: LLVM and ptxas then leave them rolled ("nounroll"), where
  // ptxas would otherwise spend minutes unrolling a long loop of constant
  // trip count, and a thread's serial loop gains little from unrolling.
  bool unrollLoops = true;
  // Whether code may call the host runtime's helpers (kDecodeSmallFloat,
  // ...). Where it may not (a GPU), the f8, f6 and f4 codecs are emitted as
  // IR over tables made from the same definitions (elemental_codecs.cc);
  // the backend refuses code that calls the other helpers.
  bool hostRuntime = true;
};

}  // namespace hlo::jit
