// A static estimate of how much work the reference interpreter does on a
// module, and the interpreter limits that follow from it: what the corpus
// programs use to skip modules too costly to run and to stop endless loops.
//
// Work: a count of scalar operations from the instruction shapes. Each
// instruction costs its result's element count, except
//   dot            result elements x contracted size
//   convolution    result elements x kernel elements / output features
//   reduce, map, scatter, all-reduce, reduce-scatter:
//                  operand elements x (1 + instructions of the applied computation,
//                  and of what it calls; 1 for a plain add/max/... reducer,
//                  which the interpreter applies without a call)
//   reduce-window, select-and-scatter:
//                  result elements x window size x the same factor
//   sort           n log2 n x (1 + comparator instructions)
//   fft            n log2 n;  cholesky, triangular-solve  n^3 per matrix
//   a custom call that stands for HLO (hlo/custom_call_forms.h): that HLO's
//                  work (a cuDNN convolution is its convolution)
// Every computation is counted once, so a while loop may do far more: see
// corpusEvaluationOptions. On several devices each device does all of it,
// and each folds the values of its whole group in an all-reduce or
// reduce-scatter: those count once more per device.
#pragma once

#include <cstdint>

#include "hlo/module.h"
#include "hlo/shape.h"
#include "interp/evaluator.h"

namespace hlo::conformance {

// The estimated work of evaluating `module` (above) on `devices` devices.
double moduleWork(const Module& module, int64_t devices = 1);

// The elements of every array in `shape` (tuples summed), as a double so
// huge shapes cannot overflow.
double shapeElements(const Shape& shape);

// Whether the entry's arguments alone, at 16 bytes an element at most, would
// need more than `maxMemory` bytes.
bool argumentsOverMemory(const Computation& entry, int64_t maxMemory);

// Interpreter options for a module of estimated work `work`: live values
// capped at `maxMemory` bytes, and while loops stopped after
// maxWhileIterations, or after fewer for a costly module,
// 10 x min(maxWork, kLoopWorkScale) / work iterations (but at least 10), so
// that a never-ending loop with a big body ends as a while-limit error well
// before the CPU-time limit. A larger maxWork admits bigger modules, not
// longer loops.
inline constexpr double kLoopWorkScale = 2e8;
interp::Options corpusEvaluationOptions(double work, double maxWork, int64_t maxMemory,
                                        int64_t maxWhileIterations);

}  // namespace hlo::conformance
