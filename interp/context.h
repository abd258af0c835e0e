// EvalContext: what an op implementation may ask of the interpreter —
// evaluating a called computation and allocating guarded result storage.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "hlo/computation.h"
#include "hlo/literal.h"
#include "interp/evaluator.h"
#include "interp/scalar_program.h"

namespace hlo::interp {

using Operands = std::span<const Literal* const>;

class EvalContext {
 public:
  explicit EvalContext(const Options& options) : options_(options) {}

  const Options& options() const { return options_; }

  // Evaluates `computation` on `args` (one per parameter).
  StatusOr<Literal> call(const Computation& computation, Operands args);
  // Convenience for scalar computations such as reduce's to_apply.
  StatusOr<Literal> call(const Computation& computation, std::initializer_list<const Literal*> args) {
    return call(computation, Operands(args.begin(), args.size()));
  }

  // The compiled form of a computation over scalars, or nullptr (see
  // interp/scalar_program.h); ops that call one per element use it directly.
  const ScalarProgram* scalarProgram(const Computation& computation) {
    return scalarPrograms_.get(computation);
  }

  // A zero-filled literal of `shape`, refused with a clear error when it would
  // push the live bytes past Options::maxMemoryBytes.
  StatusOr<Literal> allocate(const Shape& shape, const Instruction& forInstr);
  // Checks that `bytes` more could be allocated now.
  Status checkMemory(int64_t bytes, const Instruction& forInstr) const;

  // Bookkeeping of live bytes (the evaluator calls these).
  void addLive(int64_t bytes) {
    liveBytes_ += bytes;
    peakLiveBytes_ = std::max(peakLiveBytes_, liveBytes_);
  }
  void removeLive(int64_t bytes) { liveBytes_ -= bytes; }
  int64_t peakLiveBytes() const { return peakLiveBytes_; }

  // An error for an opcode that has no meaning on one device or is not
  // implemented: `unsupported: <opcode> in <instruction> (line N)`.
  static Status unsupported(const Instruction& instr, const std::string& why = "");

 private:
  // The working storage of one call, kept per call depth and reused: a
  // reducer applied to a million elements is a million calls, and fresh
  // vectors for each would cost more than its arithmetic.
  struct Frame {
    std::vector<Literal> values;         // what each instruction computed
    std::vector<const Literal*> slots;   // where each instruction's value is
    std::vector<int64_t> bytes;          // live bytes counted for each value
    std::vector<int> uses;               // remaining uses of each value
    std::vector<const Literal*> operands;
  };
  // How many operand slots read each instruction's value, per computation.
  const std::vector<int>& useCounts(const Computation& computation);

  Options options_;
  // Computations over scalars run as compiled step lists (the per-element
  // comparators, reducers and combiners); the rest instruction by instruction.
  ScalarProgramCache scalarPrograms_;
  int64_t liveBytes_ = 0;
  int64_t peakLiveBytes_ = 0;
  int depth_ = 0;
  std::vector<std::unique_ptr<Frame>> frames_;
  std::unordered_map<const Computation*, std::vector<int>> useCounts_;
};

// Bytes a value of `shape` occupies (tuples: the sum of their elements).
int64_t shapeBytes(const Shape& shape);

}  // namespace hlo::interp
