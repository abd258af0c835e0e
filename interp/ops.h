// The interpreter's op implementations: one function per op (elementwise
// math shares one driver over the scalar semantics of interp/scalar_ops.h).
// Each takes the instruction (for its shape and attributes) and its operand
// values, and returns the result value.
#pragma once

#include "interp/context.h"

namespace hlo::interp {

#define HLO_INTERP_OP(fn) StatusOr<Literal> fn(EvalContext& ctx, const Instruction& instr, Operands ops);

// interp/elementwise.cc: unary, binary and ternary math, compare, select, clamp.
HLO_INTERP_OP(evalElementwise)
// interp/convert.cc
HLO_INTERP_OP(evalConvert)
HLO_INTERP_OP(evalBitcastConvert)
HLO_INTERP_OP(evalReducePrecision)
HLO_INTERP_OP(evalStochasticConvert)
HLO_INTERP_OP(evalMap)

// interp/data_movement.cc, interp/gather_scatter.cc, interp/sort.cc
// (dynamic-reshape, get- and set-dimension-size: interp/dynamic.cc)
HLO_INTERP_OP(evalBitcast)
HLO_INTERP_OP(evalBroadcast)
HLO_INTERP_OP(evalConcatenate)
HLO_INTERP_OP(evalCopy)
HLO_INTERP_OP(evalDynamicSlice)
HLO_INTERP_OP(evalDynamicUpdateSlice)
HLO_INTERP_OP(evalDynamicReshape)
HLO_INTERP_OP(evalGetDimensionSize)
HLO_INTERP_OP(evalSetDimensionSize)
HLO_INTERP_OP(evalGather)
HLO_INTERP_OP(evalScatter)
HLO_INTERP_OP(evalIota)
HLO_INTERP_OP(evalPad)
HLO_INTERP_OP(evalReshape)
HLO_INTERP_OP(evalReverse)
HLO_INTERP_OP(evalSlice)
HLO_INTERP_OP(evalSort)
HLO_INTERP_OP(evalTranspose)
HLO_INTERP_OP(evalTopK)
HLO_INTERP_OP(evalTopKCall)  // custom-call "TopK" (hlo/topk_call.h)
HLO_INTERP_OP(evalCudnnConvForward)  // custom-call "__cudnn$convForward" (hlo/cudnn_conv_call.h)
HLO_INTERP_OP(evalBlockScaledDotCall)  // custom-call "__op$block_scaled_dot" (hlo/block_scaled_dot_call.h)
HLO_INTERP_OP(evalBuilderMathCall)  // custom-call "xla_builder.math.*" (hlo/builder_math_call.h)
HLO_INTERP_OP(evalLapackCall)  // custom-call "lapack_*_ffi" (hlo/lapack_call.h, interp/lapack_call.cc)

// interp/reduce.cc, interp/dot_conv.cc, interp/linalg.cc
HLO_INTERP_OP(evalReduce)
HLO_INTERP_OP(evalReduceWindow)
HLO_INTERP_OP(evalSelectAndScatter)
HLO_INTERP_OP(evalDot)
HLO_INTERP_OP(evalRaggedDot)
HLO_INTERP_OP(evalScaledDot)
HLO_INTERP_OP(evalConvolution)
HLO_INTERP_OP(evalFft)
HLO_INTERP_OP(evalTriangularSolve)
HLO_INTERP_OP(evalCholesky)
HLO_INTERP_OP(evalBatchNormInference)
HLO_INTERP_OP(evalBatchNormTraining)
HLO_INTERP_OP(evalBatchNormGrad)

// interp/control.cc: calls, loops, branches, fusion.
HLO_INTERP_OP(evalCall)
HLO_INTERP_OP(evalWhile)
HLO_INTERP_OP(evalConditional)

// interp/shared_semantics.cc: the ops whose semantics live in hlo/, shared
// with the CPU runtime: collectives over one participant, async wrappers,
// annotation custom calls, replica-id and partition-id; scan; the
// random-number ops.
HLO_INTERP_OP(evalShared)

#undef HLO_INTERP_OP

// interp/dynamic.cc: ops given operands with runtime sizes (see there).
// Whether `instr` must go through evalWithDynamicSizes: an op that does not
// just pass values on, given a value with runtime sizes.
bool takesDynamicRules(const Instruction& instr, Operands ops);
StatusOr<Literal> evalWithDynamicSizes(EvalContext& ctx, const Instruction& instr, Operands ops);

// interp/evaluator.cc: runs `instr`'s op on static values (no parameter).
StatusOr<Literal> evalStaticOp(EvalContext& ctx, const Instruction& instr, Operands ops);

}  // namespace hlo::interp
