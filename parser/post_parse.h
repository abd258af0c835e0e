// The module parser's last stage: what can only be done once the whole text
// is read and every name is resolved.
#pragma once

#include <optional>
#include <vector>

#include "hlo/module.h"
#include "parser/cursor.h"

namespace hlo {

// What the text says that the module does not keep, collected while parsing.
// Positions are byte offsets into the text (turned into line:column only
// for an error).
struct ParsedFacts {
  // `add(f32[2] %x, ...)`: the shape written before an operand's name,
  // checked here when the operand's shape is inferred (else at once).
  struct OperandShape {
    Instruction* user;
    int index;
    Shape declared;
    size_t pos;
  };
  // `(a: f32[]) -> f32[]`: the result shape of a computation's signature.
  struct Signature {
    Computation* computation;
    Shape result;
    size_t pos;
  };
  // async-update / async-done (explicit or as `X-update` / `X-done` sugar,
  // `wrapped` = X): they take the computation of the start they continue.
  struct AsyncUse {
    Instruction* instr;
    std::optional<Opcode> wrapped;
    size_t pos;
    bool hasShape;  // written with one (else it is inferred later)
  };
  std::vector<OperandShape> operandShapes;
  std::vector<Signature> signatures;
  std::vector<AsyncUse> asyncUses;
  std::vector<Instruction*> needsShape;  // written without a shape
  // Computations built for `X-start` sugar; their parameters and root shape
  // follow the shapes of the chain (XLA's late binding of operands).
  std::vector<Computation*> sugarWrapped;
};

// `f32[2] %x`: the written shape must be XLA-compatible with the operand's
// (equal up to layout and dynamism); the error points at `pos`.
Status checkDeclaredShape(const Shape& declared, const Instruction& operand, size_t pos, Cursor& c);

// Completes a parsed module (its entry must be set):
//   1. async-update/-done get their start's computation, checked against
//      what they name themselves; computations built for `X-start` sugar take
//      their parameters from X's callee (call, fusion) and from the shapes
//      of later `X-update`/`X-done` (operands passed late, as XLA allows);
//   2. instructions written without a shape get the inferred one, callees
//      first;
//   3. the checks XLA's parser makes once operand shapes are known: declared
//      operand shapes, signature results, conditional branch attributes,
//      custom-call operand layout constraints.
Status completeModule(Module& module, ParsedFacts& facts, Cursor& c);

}  // namespace hlo
