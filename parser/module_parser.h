// The module parser's shared state, split over parser/parser.cc (the module,
// its computations and name resolution) and parser/instruction_parser.cc
// (one instruction: shape, opcode, operands, attributes). Internal to
// parser/; the interface is parser/parser.h.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "hlo/module.h"
#include "parser/cursor.h"
#include "parser/name_table.h"
#include "parser/post_parse.h"

namespace hlo::parse_detail {

// Inline computations and instructions written as operands may nest, in
// each other too; each level costs stack, so the levels of both kinds
// together are bounded (recursion in shapes is bounded separately).
constexpr int kMaxNesting = 64;

struct PendingOperand {
  Instruction* user;
  std::string_view name;     // the base name, without `#i#j`
  std::string_view gtePath;  // `%p#1#0` compact get-tuple-element: "p#1#0", else empty
  size_t pos;                // of the name
  int declaredShape;         // index into Body::declaredShapes, or -1
  size_t shapePos;           // of the declared shape
};

struct PendingControl {
  Instruction* successor;
  std::string_view name;
  size_t pos;
};

struct ComputationFixup {
  Instruction* instr;
  AttrKey key;
  size_t index;
  std::string_view name;
  size_t pos;
};

// The state of one computation body while it is read.
struct Body {
  explicit Body(Computation* c) : comp(c) {}
  Computation* comp;
  NameTable<Instruction> names;
  std::vector<PendingOperand> operands;
  std::vector<Shape> declaredShapes;
  std::vector<PendingControl> controls;
  NameTable<Instruction> gteByPath;  // compact get-tuple-elements made so far
  Instruction* root = nullptr;
  int nestedCount = 0;
  bool ordered = true;  // every operand so far is defined before its user
};

class ModuleParser {
 public:
  explicit ModuleParser(std::string_view text) : c_(text) {}
  StatusOr<std::unique_ptr<Module>> run();

 private:
  // parser.cc: the module, computations, bodies, names.
  Status parseComputation();
  Status parseSignature(ParsedFacts::Signature& sig);
  // Parses `{ instructions }` into body.comp and resolves its operands.
  Status parseBody(Body& body);
  Status resolveOperands(Body& body);
  StatusOr<Instruction*> compactGte(Body& body, Instruction* base, const PendingOperand& p);
  // instruction_parser.cc: one instruction.
  Status parseInstruction(Body& body);
  // Everything after `name =`; `nested` for an instruction written inline as
  // an operand, e.g. `broadcast(f32[] constant(0))`.
  StatusOr<Instruction*> parseRhs(Body& body, std::string name, size_t start, bool nested);
  // At a word that may start a shape (`f32[2]`, `(f32[])`, `b(s32[4])`):
  // reads the shape, or else leaves the word read in `word` (so the hot path
  // scans it once) with its position in `wordPos`.
  StatusOr<std::optional<Shape>> shapeOrWord(std::string_view& word, size_t& wordPos);
  StatusOr<int> parseOperands(Body& body, Instruction* user);
  // `deferred`: an earlier operand of `user` waits for the end of the body,
  // so this one must too.
  Status parseOperand(Body& body, Instruction* user, bool& deferred);
  Status linkOperand(Body& body, Instruction* user, Instruction* operand, std::optional<Shape>& declared,
                     size_t shapePos);
  Status buildAsyncWrapped(Instruction* start, Opcode wrapped, std::string_view opText, int operandCount,
                           size_t pos, Instruction*& attrTarget);
  // `nested`: stop at a ',' that is not followed by `key=` (the next operand).
  Status parseAttributes(Body& body, Instruction* instr, Instruction* target, bool nested);
  Status parseControlPredecessors(Body& body, Instruction* instr);
  // A computation written inline in an attribute of instruction `caller`.
  StatusOr<Computation*> parseInlineComputation(const std::string& caller);
  Status resolveComputationRefs();
  // A name no computation has, for an inline or async-wrapped computation.
  std::string generatedName(const std::string& base);
  Computation* addGenerated(std::unique_ptr<Computation> comp);
  Status addWritten(std::unique_ptr<Computation> comp, size_t pos);

  Cursor c_;
  std::unique_ptr<Module> module_ = std::make_unique<Module>();
  std::map<std::string, Computation*, std::less<>> written_;    // named in the text
  std::map<std::string, Computation*, std::less<>> generated_;  // named by the parser
  std::vector<ComputationFixup> fixups_;
  ParsedFacts facts_;
  std::unordered_set<const Instruction*> shapeless_;  // facts_.needsShape, for lookups
  Computation* entry_ = nullptr;
  int nesting_ = 0;  // inline computations and operand instructions open now
};

}  // namespace hlo::parse_detail
