// The op writers of hlo-fuzz's generator (conformance/fuzz_generator.cc
// calls them, one opcode at a time). Each writes one instance of its op
// into the builder, with operands it finds or makes of fitting types and
// shapes, and returns false when the module's values give it nothing to
// work on (no value of a rank it needs, say); the generator then tries
// another opcode.
#pragma once

#include "conformance/fuzz_builder.h"
#include "hlo/opcode.h"

namespace hlo::conformance::fuzz {

// fuzz_ops_elementwise.cc: the elementwise ops of the opcode table (unary,
// binary, compare, select, clamp, complex, conversions, map).
bool writeElementwise(Builder& b, Opcode op);

// fuzz_ops_movement.cc
bool writeBroadcast(Builder& b);
bool writeReshape(Builder& b, bool asBitcast);
bool writeTranspose(Builder& b);
bool writeSlice(Builder& b);
bool writeConcatenate(Builder& b);
bool writePad(Builder& b);
bool writeReverse(Builder& b);
bool writeDynamicSlice(Builder& b);
bool writeDynamicUpdateSlice(Builder& b);
bool writeGather(Builder& b);
bool writeScatter(Builder& b);
bool writeIota(Builder& b);
bool writeConstant(Builder& b);
bool writeCopy(Builder& b);
bool writeTuple(Builder& b, bool throughBarrier);
bool writeGetDimensionSize(Builder& b);
bool writeSetDimensionSize(Builder& b);

// fuzz_ops_compute.cc
bool writeReduce(Builder& b);
bool writeReduceWindow(Builder& b);
bool writeSelectAndScatter(Builder& b);
bool writeSort(Builder& b);
bool writeTopK(Builder& b, bool asCustomCall);
bool writeScan(Builder& b);
bool writeDot(Builder& b);
bool writeRaggedDot(Builder& b);
bool writeConvolution(Builder& b);
bool writeFft(Builder& b);
bool writeCholesky(Builder& b);
bool writeTriangularSolve(Builder& b);
bool writeBatchNorm(Builder& b, Opcode op);
bool writeRng(Builder& b);
bool writeRngBitGenerator(Builder& b);
bool writeRngState(Builder& b);
bool writeStochasticConvert(Builder& b);

// fuzz_ops_control.cc
bool writeCall(Builder& b);
bool writeFusion(Builder& b);
bool writeWhile(Builder& b);
bool writeConditional(Builder& b);
bool writeAsync(Builder& b);
bool writeCopyStartDone(Builder& b);
bool writeAddDependency(Builder& b);
bool writeDomain(Builder& b);
bool writeAnnotation(Builder& b);
bool writeDeviceId(Builder& b, Opcode op);
// A collective over one participant (replica_groups={}), whose value is
// what one device gives it: its operand (all-reduce, all-gather, ...).
bool writeCollective(Builder& b, Opcode op);

}  // namespace hlo::conformance::fuzz
