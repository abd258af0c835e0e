// Float sums: how a reduction whose to_apply is one add of two f32 or f64
// parameters is defined here, by the reference interpreter and the CPU
// runtime alike.
//
// The operation semantics leave the order of a reduction's steps to the
// implementation, and a sum rounded to its type at every step depends on
// it: an f32 sum of a million terms taken left to right can lose several
// digits to cancellation, where XLA:CPU and our JIT, which add in vector
// blocks, lose next to none. The reference gives each such sum as exactly
// as it can instead (as it gives dot, interp/dot_conv.cc): the terms are
// added in double precision with Neumaier's compensated summation, which is
// nearly exact for f64 terms too, and the sum is rounded to the element
// type once. Any order an engine takes then agrees with it to the type's
// accuracy.
// Sums of f16, bf16, f8 and f4 are applied as written, rounding at every
// step in row-major order (a bf16 sum of 300 ones stops at 256): at these
// precisions the rounding is the point of the type, XLA's evaluator rounds
// so, and so does XLA:CPU on all but a few of the corpus's narrow sums.
// Every other reducer, including the same add written with another
// instruction after it, is applied as written, step by step.
#pragma once

#include <cmath>

namespace hlo {

class Instruction;

// Whether reduce or reduce-window `instr` sums exactly: one input, f32 or
// f64 throughout (input, init, result and to_apply's parameters), and
// to_apply one add of its two parameters.
bool sumsExactly(const Instruction& instr);

// The sum of `init` and the terms added, to double's accuracy or better.
class ExactSum {
 public:
  explicit ExactSum(double init) : sum_(init) {}
  void add(double x) {
    double next = sum_ + x;
    // What this addition rounded away, from the larger operand's side.
    carry_ += std::abs(sum_) >= std::abs(x) ? (sum_ - next) + x : (x - next) + sum_;
    sum_ = next;
  }
  // An infinite or NaN sum has no meaningful carry (inf - inf).
  double value() const { return std::isfinite(sum_) ? sum_ + carry_ : sum_; }

 private:
  double sum_;
  double carry_ = 0;
};

}  // namespace hlo
