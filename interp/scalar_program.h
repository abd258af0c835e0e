// A computation over scalars, compiled once into a flat list of steps over a
// register file.
//
// Sort comparators, reducers, map functions and scatter combiners are called
// once per element, often millions of times; evaluating them as computations
// (a frame, one Literal per instruction, a dispatch through the array ops)
// costs far more than their arithmetic. A ScalarProgram runs the same
// semantics — the same scalar_ops.h functions and the same load/store rounding
// as the array loops of interp/elementwise.cc — on raw element storage:
//
//   1. compile: every instruction must be a scalar parameter, constant,
//      elementwise op, compare, select, clamp, convert, bitcast-convert of one
//      width, copy, or a call/fusion of another such computation (which may
//      return a tuple of scalars, read by get-tuple-element); the root may be
//      a tuple of scalars. Each
//      instruction becomes one step: a function pointer instantiated for its
//      opcode and element types, and the registers it reads and writes.
//      Anything else (a mixed-precision operand, an array, an op not listed)
//      leaves the computation to the general evaluator.
//   2. run: copy the arguments into the parameter registers, run the steps in
//      order, and build the result literal from the root's register(s).
//
// Only what the general evaluator computes without error is compiled, so a
// program never fails at run time; the two paths agree bit for bit (the
// elementwise op tests run both).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "hlo/computation.h"
#include "hlo/literal.h"

namespace hlo::interp {

// One register: the storage of one element of any type (up to c128).
struct alignas(16) ScalarRegister {
  unsigned char bytes[16];
};

class ScalarProgramCache;

class ScalarProgram {
 public:
  struct Step;
  using StepFn = void (*)(const Step&, ScalarRegister* registers);
  struct Step {
    StepFn fn;
    int out;
    int in[3];
    int imm;                                  // compare TOTALORDER: the bit width
    void (*convert)(const void*, void*);      // convert: the element converter
    const ScalarProgram* callee;              // call and fusion: the called program
    int callArgs;                             // call and fusion: operand count,
    int argsBegin;                            //   their registers from callOperands_[argsBegin]
    const int* args;                          //   (set once the list is complete)
    int callResults;                          //   results, in out, out + 1, ...
  };

  // The result of running on `args`, or nullopt when an argument is not the
  // scalar its parameter declares (the general evaluator then decides).
  std::optional<Literal> run(std::span<const Literal* const> args) const;

  // Element by element, for the ops that call a program per element without
  // building literals: check the types once with takes(), then set the
  // arguments, runInPlace(), and read the result(s).
  bool takes(std::span<const ElementType> parameters, std::span<const ElementType> results) const {
    return std::equal(parameters.begin(), parameters.end(), parameterTypes_.begin(), parameterTypes_.end()) &&
           std::equal(results.begin(), results.end(), rootTypes_.begin(), rootTypes_.end());
  }
  // Parameter i takes element `index` of `array` (of the parameter's type).
  void setArgument(int i, const Literal& array, int64_t index) const {
    size_t bytes = storageBytes(parameterTypes_[i]);
    std::memcpy(registers_[parameters_[i]].bytes, array.untypedData() + index * bytes, bytes);
  }
  // Parameters 0..n-1 take results 0..n-1 of the last run (a fold's
  // accumulators); a result may be a parameter's own register, so all are
  // read before any is written.
  void resultsToArguments(int n) const {
    ScalarRegister held[8];
    std::vector<ScalarRegister> more;
    ScalarRegister* tmp = held;
    if (n > 8) tmp = (more.resize(n), more.data());
    for (int k = 0; k < n; ++k) tmp[k] = registers_[roots_[k]];
    for (int k = 0; k < n; ++k) registers_[parameters_[k]] = tmp[k];
  }
  // Element `index` of `array` takes result k of the last run.
  void getResult(int k, Literal& array, int64_t index) const {
    size_t bytes = storageBytes(rootTypes_[k]);
    std::memcpy(array.untypedData() + index * bytes, registers_[roots_[k]].bytes, bytes);
  }
  // Element `index` of `array` takes parameter i's current value.
  void getArgument(int i, Literal& array, int64_t index) const {
    size_t bytes = storageBytes(parameterTypes_[i]);
    std::memcpy(array.untypedData() + index * bytes, registers_[parameters_[i]].bytes, bytes);
  }
  bool resultIsTrue() const { return registers_[roots_[0]].bytes[0] != 0; }

  // Runs on values already in the parameter registers; the result is left in
  // the root's register(s).
  void runInPlace() const;
  ScalarRegister& parameterRegister(int i) const { return registers_[parameters_[i]]; }
  const ScalarRegister& resultRegister(int k) const { return registers_[roots_[k]]; }

 private:
  friend class ScalarProgramCache;
  friend class ScalarProgramBuilder;

  std::vector<Step> steps_;
  std::vector<int> parameters_;          // register of each parameter
  std::vector<int> callOperands_;        // operand registers of the call steps
  std::vector<ElementType> parameterTypes_;
  std::vector<int> roots_;               // register of the root, or of each tuple element
  std::vector<ElementType> rootTypes_;
  bool tupleRoot_ = false;
  Shape resultShape_;
  // Registers hold constants from compilation on; the rest is scratch, which
  // is why run() is const but not reentrant (the interpreter is one thread,
  // and a program never calls itself).
  mutable std::vector<ScalarRegister> registers_;
};

// Compiles each computation once, on first use; remembers the ones that
// cannot be compiled.
class ScalarProgramCache {
 public:
  // The program of `computation`, or nullptr when it is not all scalars.
  const ScalarProgram* get(const Computation& computation);

 private:
  std::unordered_map<const Computation*, std::unique_ptr<ScalarProgram>> programs_;
  std::vector<const Computation*> compiling_;  // guards against call cycles
};

}  // namespace hlo::interp
