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
  // `add(f32[2] %x, ...)`: the shape written before an operand's name.
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
  };
  std::vector<OperandShape> operandShapes;
  std::vector<Signature> signatures;
  std::vector<AsyncUse> asyncUses;
  std::vector<Instruction*> needsShape;  // written without a shape
};

// Completes a parsed module (its entry must be set):
//   1. async-update/-done get their start's computation, checked against
//      what they name themselves;
//   2. instructions written without a shape get the inferred one, callees
//      first;
//   3. the checks XLA's parser makes once operand shapes are known: declared
//      operand shapes, signature results, conditional branch attributes,
//      custom-call operand layout constraints.
Status completeModule(Module& module, ParsedFacts& facts, Cursor& c);

}  // namespace hlo
