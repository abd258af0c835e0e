// Shape inference: the result shape of an instruction from its opcode, its
// operands' shapes, its attributes and the computations it calls, following
// XLA's operation semantics. One function serves the parser (instructions
// written without a shape), the verifier and whoever builds instructions.
#pragma once
#include <span>
#include <string>

#include "hlo/instruction.h"
#include "hlo/shape.h"
#include "hlo/status.h"

namespace hlo {

// The result shape of `instr` (no layout). Parameters and constants answer
// their declared shape. Opcodes whose result the operands and attributes do
// not determine (reshape, broadcast, iota, convert, custom-call, infeed, ...)
// fail with "cannot infer the shape of <opcode> '<name>': write it"; an
// ill-typed instruction fails with a message naming it.
StatusOr<Shape> inferShape(const Instruction& instr);

// The shape `instr` must have when its text declares `declared`: what
// inferShape computes, except that what only the text can say (dot's result
// type, convert's target type, reshape's and broadcast's dimensions, an async
// op's context, a custom-call's anything) is taken from `declared` once it is
// checked against the operands. The verifier compares the answer with
// `declared`.
StatusOr<Shape> inferShapeGiven(const Instruction& instr, const Shape& declared);

// Fails, naming the instruction, unless inferShapeGiven accepts `instr` and
// gives its declared element types and dimensions (dynamism and layouts
// aside; tuples element by element). Both engines refuse to run an
// instruction that fails it: its attributes could index outside its
// operands.
Status checkDeclaredShape(const Instruction& instr);

// Fails, naming the instruction, when inferShapeGiven accepts `instr` but
// gives other dimensions than it declares (a `?` where its operands give a
// size counts as other), tuples element by element; element types aside,
// as HLO mixes float precisions. What an engine that plans code from
// declared shapes checks first.
Status checkDeclaredDimensions(const Instruction& instr);

// Whether `shape`, or any tuple element of it, has an unbounded (`?`)
// dimension. The verifier lets `?` stand for any size; such a dimension has
// no size to run at, so both engines also refuse an instruction whose shape
// or operands have one.
bool hasUnboundedDim(const Shape& shape);

// The same for an instruction that is in no computation: opcode `op` named
// `name`, with operands of the shapes `operands`, attributes `attrs` and
// the declared shape `declared` (what a custom call stands for).
Status checkDeclaredShape(Opcode op, const std::string& name, std::span<const Shape> operands,
                          const Attributes& attrs, const Shape& declared);

}  // namespace hlo
