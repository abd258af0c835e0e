// Library ops: instructions the CPU backend runs by calling C++ code of its
// own runtime rather than as an emitted loop — dot through BLAS, sort,
// gather, scatter and the like, whose loops are irregular or whose best
// implementation is a tuned library.
//
// Planning happens at compile time: the op checks it can run the
// instruction (element types, dimensions) and may emit helper functions into
// the LLVM module — a sort's comparator, a scatter's combiner — with
// emitScalarFunction(), which the runtime then calls through pointers.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hlo/instruction.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace llvm {
class Module;
}

namespace hlo::cpu {

class ThreadPool;

// A compiled scalar computation (see emitScalarFunction): args[i] points at
// one element of parameter i, results[k] at where element k of the result
// (one, or one per tuple element of the root) is stored.
using ScalarFn = void (*)(const char* const* args, char* const* results);

// What a library op is given when it runs.
struct RuntimeCall {
  const Instruction& instr;
  std::span<const Literal* const> operands;
  Literal& result;                  // already allocated with instr.shape()
  ThreadPool& pool;                 // for ops that split their work
  std::span<void* const> helpers;   // the compiled helpers, in the order planned
  const void* state = nullptr;      // RuntimePlan::state, or null
};
using RuntimeFn = Status (*)(const RuntimeCall&);

// The arrays of a result: the elements of a tuple, else the result itself
// (the outputs of a multi-operand sort or scatter).
inline std::vector<Literal*> resultArrays(Literal& result) {
  std::vector<Literal*> out;
  if (!result.shape().isTuple()) return {&result};
  for (Literal& e : result.tupleElements()) out.push_back(&e);
  return out;
}

// Where a planner puts the helper functions its library op calls (a sort's
// comparator, a scatter's combiner): the compiler emits them into the LLVM
// module (planRuntimeOp); an ahead-of-time library, whose helpers are
// compiled already, only checks their names (aot_image.h).
class HelperModule {
 public:
  virtual ~HelperModule() = default;
  // emitScalarFunction's contract, into this module.
  virtual Status scalarFunction(const Computation& computation, const std::string& name,
                                const std::vector<ElementType>& argTypes = {},
                                const std::vector<ElementType>& resultTypes = {}) = 0;
  // emitConvertFunction's contract, into this module.
  virtual Status convertFunction(const Instruction& instr, const std::string& name, const std::vector<ElementType>& from,
                                 const std::vector<ElementType>& to) = 0;
};

struct RuntimePlan {
  RuntimeFn fn = nullptr;                // null: the opcode is not a library op
  std::vector<std::string> helperNames;  // functions emitted into the LLVM module
  // What the planner worked out once for every call (a dot's dimensions),
  // handed to each as RuntimeCall::state; null: nothing.
  std::shared_ptr<const void> state = nullptr;
};

// The library op for `instr`. A plan with fn == nullptr when its opcode has
// none, or this instance is one the elemental emitter computes (the kernel
// emitter is tried next); an error "cannot compile ..."
// when it has one but this instance is unsupported. Helper functions are
// named `prefix` + ".helper.<n>".
StatusOr<RuntimePlan> planRuntimeOp(llvm::Module& module, const Instruction& instr, const std::string& prefix);

// The planner of an opcode's library op (one per runtime_<op>.cc), or null
// when it has none. Which instances the elemental emitter computes instead is
// planRuntimeOp's choice, made when compiling.
using PlanFn = StatusOr<RuntimePlan> (*)(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
PlanFn libraryPlanner(Opcode opcode);

// Whether `instr` runs only as a library op (a fusion holding one cannot be
// a single kernel); a transpose, a library op on its own, is also emitted
// inside fusions, and so is a reduce the elemental emitter folds.
bool isLibraryOp(const Instruction& instr);

// Emits `computation` (parameters and root scalars, or a root tuple of
// scalars) as a ScalarFn named `name`. The elements its pointers address
// are of the types the computation declares, unless `argTypes` (one per
// parameter) or `resultTypes` (one per result) say otherwise: then each
// argument is converted to its parameter's type on the way in and each
// result to its storage type on the way out, as convert does (the
// interpreter calls a computation on its declared types the same way).
Status emitScalarFunction(llvm::Module& module, const Computation& computation, const std::string& name,
                          const std::vector<ElementType>& argTypes = {},
                          const std::vector<ElementType>& resultTypes = {});

// Emits a ScalarFn named `name` that converts args[k], an element of type
// from[k], to results[k] of type to[k], as convert does (`instr` names the
// op in errors).
Status emitConvertFunction(llvm::Module& module, const Instruction& instr, const std::string& name,
                           const std::vector<ElementType>& from, const std::vector<ElementType>& to);

// The planners of the library ops, one per runtime_<op>.cc.
StatusOr<RuntimePlan> planDot(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planRaggedDot(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planScaledDot(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planConvolution(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
// A dot's result [M, N] = lhs [M, K] . rhs [K, N] (either operand stored
// transposed, of f32 or a narrower float type; the result f32 or narrower)
// computed as a convolution of M one-position images by a 1x1 kernel,
// through the direct convolution tiles (conv_tiles.h), which must exist for
// this CPU.
Status productByConvTiles(const RuntimeCall& call, bool lhsTransposed, bool rhsTransposed);
// For tests: dots of two matrices go through the tiles whenever they have
// enough rows (true), never (false), or when the tiles outrun OpenBLAS's
// kernels here (nullopt, the default).
void forceDotTiles(std::optional<bool> use);
StatusOr<RuntimePlan> planSort(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planTopK(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planFft(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planGather(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planScatter(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planReduce(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planBitcastConvert(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
bool sameWidthBitcastConvert(const Instruction& instr);  // emitted elementwise
StatusOr<RuntimePlan> planTriangularSolve(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planCholesky(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
// jax's LAPACK custom calls (hlo/lapack_call.h); no plan for other custom calls.
StatusOr<RuntimePlan> planLapackCall(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planSelectAndScatter(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
StatusOr<RuntimePlan> planTranspose(HelperModule& helpers, const Instruction& instr, const std::string& prefix);
// out[j * outStride + i] = in[i * inStride + j] for j < rows, i < cols:
// elements of `bytes` bytes (2, 4 or 8 in vector blocks, any other size one
// by one), as the transpose op moves them.
void transposeTile(const void* in, void* out, int64_t inStride, int64_t outStride, int64_t rows, int64_t cols,
                   int bytes);
// For tests: transposes use vectors of at most `bytes` bytes (64: AVX-512,
// 32: AVX2, 0: element by element; never more than the CPU has) from now on.
void limitTransposeVectorBytes(int bytes);

}  // namespace hlo::cpu
