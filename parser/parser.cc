// The HLO module parser: recursive descent over the text, then name
// resolution and the post-parse stage (parser/post_parse.cc).
//
// Algorithm:
//   1. Header: `HloModule name, key=value, ...` (optional) and the stack-frame
//      index sections, checked and kept verbatim (parser/module_header.cc).
//   2. Each computation: `[ENTRY] name [(params) -> shape] { instructions }`.
//      Instructions are created as they are read; operand names are resolved
//      when the computation closes (so uses may precede definitions), then,
//      only if some use does precede its definition, the instructions are
//      sorted so every operand comes first.
//   3. When the text ends: computation references are resolved, the entry is
//      chosen (the ENTRY one, else the last), and completeModule() links
//      async chains, infers the shapes the text left out and makes the
//      checks that need operand shapes.
//
// Computations written inline (`calls={...}`) and those built for async
// sugar (`add-start`) get generated names. A generated name never captures a
// reference written in the text, and a computation written later under the
// same name takes it over (the generated one is renamed).
#include "parser/parser.h"

#include <algorithm>
#include <map>

#include "parser/attribute_parser.h"
#include "parser/lookup.h"
#include "parser/module_header.h"
#include "parser/name_table.h"
#include "parser/post_parse.h"
#include "parser/shape_parser.h"

namespace hlo {
namespace {

// Inline computations and instructions written as operands may nest; each
// level costs stack, so the nesting is bounded.
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
};

class ModuleParser {
 public:
  explicit ModuleParser(std::string_view text) : c_(text) {}
  StatusOr<std::unique_ptr<Module>> run();

 private:
  Status parseComputation();
  Status parseSignature(ParsedFacts::Signature& sig);
  // Parses `{ instructions }` into body.comp and resolves its operands.
  Status parseBody(Body& body);
  Status resolveOperands(Body& body);
  StatusOr<Instruction*> compactGte(Body& body, Instruction* base, const PendingOperand& p);
  Status parseInstruction(Body& body);
  // Everything after `name =`; `nested` for an instruction written inline as
  // an operand, e.g. `broadcast(f32[] constant(0))`.
  StatusOr<Instruction*> parseRhs(Body& body, std::string name, size_t start, bool nested, int depth);
  // At a word that may start a shape (`f32[2]`, `(f32[])`, `b(s32[4])`):
  // reads the shape, or else leaves the word read in `word` (so the hot path
  // scans it once) with its position in `wordPos`.
  StatusOr<std::optional<Shape>> shapeOrWord(std::string_view& word, size_t& wordPos);
  StatusOr<int> parseOperands(Body& body, Instruction* user, int depth);
  Status parseOperand(Body& body, Instruction* user, int depth);
  Status buildAsyncWrapped(Instruction* start, Opcode wrapped, std::string_view opText, int operandCount,
                           size_t pos, Instruction*& attrTarget);
  // `nested`: stop at a ',' that is not followed by `key=` (the next operand).
  Status parseAttributes(Body& body, Instruction* instr, Instruction* target, bool nested);
  Status parseControlPredecessors(Body& body, Instruction* instr);
  StatusOr<Computation*> parseInlineComputation();
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
  std::vector<std::pair<std::string_view, size_t>> unresolvedRefs_;
  ParsedFacts facts_;
  Computation* entry_ = nullptr;
  std::string currentInstruction_;
  int inlineDepth_ = 0;
};

StatusOr<std::unique_ptr<Module>> ModuleParser::run() {
  if (c_.consumeWord("HloModule")) HLO_RETURN_IF_ERROR(parseModuleHeader(c_, *module_));
  while (!c_.atEnd()) {
    if (atStackFrameSection(c_)) {
      HLO_RETURN_IF_ERROR(parseStackFrameSection(c_, *module_));
      continue;
    }
    HLO_RETURN_IF_ERROR(parseComputation());
  }
  if (c_.unterminatedComment()) return c_.error("unterminated /* comment");
  if (module_->computations().empty()) return c_.error("the module has no computation");
  HLO_RETURN_IF_ERROR(resolveComputationRefs());
  module_->setEntry(entry_ ? entry_ : module_->computations().back().get());
  HLO_RETURN_IF_ERROR(completeModule(*module_, facts_, c_));
  return std::move(module_);
}

Status ModuleParser::parseSignature(ParsedFacts::Signature& sig) {
  c_.consume('(');
  if (!c_.consume(')')) {
    do {
      std::string_view pname = c_.name();
      if (pname.empty()) return c_.error("expected 'name: shape' in the computation signature");
      c_.consume(':');  // older dumps write `name shape`
      HLO_ASSIGN_OR_RETURN(Shape ignored, parseShapeAt(c_));
      (void)ignored;  // XLA ignores the parameter list too
    } while (c_.consume(','));
    if (!c_.consume(')')) return c_.error("expected ')' to close the signature");
  }
  if (!c_.consumeText("->")) return c_.error("expected '->' and the result shape");
  HLO_ASSIGN_OR_RETURN(sig.result, parseShapeAt(c_));
  return okStatus();
}

std::string ModuleParser::generatedName(const std::string& base) {
  std::string name = base;
  for (int i = 1; written_.count(name) || generated_.count(name); ++i) name = base + "." + std::to_string(i);
  return name;
}

Computation* ModuleParser::addGenerated(std::unique_ptr<Computation> comp) {
  std::string name = comp->name();
  Computation* raw = module_->add(std::move(comp));
  generated_[name] = raw;
  return raw;
}

Status ModuleParser::addWritten(std::unique_ptr<Computation> comp, size_t pos) {
  std::string name = comp->name();
  if (written_.count(name)) return c_.errorAt(pos, "computation '" + name + "' is already defined");
  Computation* added = module_->add(std::move(comp));
  written_[name] = added;
  // A generated computation holding the name gives it up: nothing in the
  // text can refer to it by that name.
  if (auto it = generated_.find(name); it != generated_.end()) {
    Computation* taken = it->second;
    generated_.erase(it);
    taken->setName(generatedName(name));
    generated_[taken->name()] = taken;
  }
  return okStatus();
}

Status ModuleParser::parseComputation() {
  c_.skipSpace();
  size_t start = c_.pos();
  bool isEntry = c_.consumeWord("ENTRY");
  std::string_view name = c_.name();
  if (name.empty()) return c_.error("expected a computation name or ENTRY");
  auto comp = std::make_unique<Computation>(std::string(name));
  comp->setLoc(c_.locAt(start));
  ParsedFacts::Signature sig{comp.get(), Shape(), start};
  bool hasSignature = c_.peek() == '(';
  if (hasSignature) HLO_RETURN_IF_ERROR(parseSignature(sig));
  if (c_.peek() != '{') return c_.error("expected '{' to start computation '" + std::string(name) + "'");
  if (written_.count(name))
    return c_.errorAt(start, "computation '" + std::string(name) + "' is already defined");
  Computation* raw = comp.get();
  Body body(raw);
  HLO_RETURN_IF_ERROR(parseBody(body));
  if (c_.consume(',')) {
    if (!c_.consumeWord("execution_thread") || !c_.consume('='))
      return c_.error("expected execution_thread=\"...\" after the computation");
    std::string thread;
    if (!c_.quotedString(thread)) return c_.error("expected a quoted execution thread name");
    raw->setExecutionThread(thread);
  }
  HLO_RETURN_IF_ERROR(addWritten(std::move(comp), start));
  if (isEntry) {
    if (entry_) return c_.errorAt(start, "more than one ENTRY computation");
    entry_ = raw;
  }
  if (hasSignature) facts_.signatures.push_back(std::move(sig));
  return okStatus();
}

StatusOr<Computation*> ModuleParser::parseInlineComputation() {
  if (inlineDepth_ >= kMaxNesting) return c_.error("inline computations nested too deeply");
  size_t start = c_.pos();
  auto comp = std::make_unique<Computation>(generatedName(currentInstruction_ + ".body"));
  comp->setLoc(c_.locAt(start));
  comp->setInline(true);
  // Claim the name now, so a computation inlined inside this one gets another.
  Computation* raw = addGenerated(std::move(comp));
  std::string saved = currentInstruction_;
  ++inlineDepth_;
  Body body(raw);
  Status parsed = parseBody(body);
  --inlineDepth_;
  HLO_RETURN_IF_ERROR(parsed);
  currentInstruction_ = saved;
  return raw;
}

Status ModuleParser::parseBody(Body& body) {
  Computation* comp = body.comp;
  c_.skipSpace();
  size_t open = c_.pos();
  if (!c_.consume('{')) return c_.error("expected '{'");
  while (!c_.consume('}')) {
    if (c_.atEnd()) return c_.errorAt(open, "computation '" + comp->name() + "' is not closed with '}'");
    HLO_RETURN_IF_ERROR(parseInstruction(body));
  }
  if (comp->instructions().empty())
    return c_.errorAt(open, "computation '" + comp->name() + "' has no instructions");
  HLO_RETURN_IF_ERROR(resolveOperands(body));
  comp->setRoot(body.root ? body.root : comp->instructions().back().get());
  return okStatus();
}

// Adds each operand and control edge now that every name of the body is
// known; sorts the body only when some use precedes its definition.
Status ModuleParser::resolveOperands(Body& body) {
  Computation* comp = body.comp;
  bool ordered = true;
  for (const PendingOperand& p : body.operands) {
    Instruction* operand = body.names.find(p.name);
    if (!operand) return c_.errorAt(p.pos, "use of undefined instruction '" + std::string(p.name) + "'");
    if (!p.gtePath.empty()) {
      HLO_ASSIGN_OR_RETURN(operand, compactGte(body, operand, p));
    }
    if (p.declaredShape >= 0)
      facts_.operandShapes.push_back({p.user, p.user->operandCount(),
                                      std::move(body.declaredShapes[p.declaredShape]), p.shapePos});
    ordered &= operand->id() < p.user->id();
    comp->addOperand(p.user, operand);
  }
  for (const PendingControl& p : body.controls) {
    Instruction* predecessor = body.names.find(p.name);
    if (!predecessor)
      return c_.errorAt(p.pos, "control predecessor '" + std::string(p.name) + "' is not defined");
    ordered &= predecessor->id() < p.successor->id();
    comp->addControlDependency(predecessor, p.successor);
  }
  return ordered ? okStatus() : comp->sortTopologically();
}

// `%p#1#0`: get-tuple-elements of `base` along the path, made once per
// path and computation, named after it (`p_1_0`).
StatusOr<Instruction*> ModuleParser::compactGte(Body& body, Instruction* base, const PendingOperand& p) {
  Instruction* current = base;
  size_t hash = p.gtePath.find('#');
  while (hash != std::string_view::npos) {
    size_t next = p.gtePath.find('#', hash + 1);
    std::string_view prefix = p.gtePath.substr(0, next);
    int64_t index = 0;
    Cursor(p.gtePath.substr(hash + 1, next - hash - 1)).integer(index);  // checked when read
    hash = next;
    if (Instruction* made = body.gteByPath.find(prefix)) {
      current = made;
      continue;
    }
    const Shape& s = current->shape();
    if (!s.isTuple())
      return c_.errorAt(p.pos, "'" + std::string(prefix) + "' takes an element of a non-tuple: " + s.toString());
    if (index >= s.tupleSize())
      return c_.errorAt(p.pos, "tuple index " + std::to_string(index) + " is out of range for " + s.toString());
    std::string base(prefix);
    for (char& ch : base) ch = ch == '#' ? '_' : ch;
    std::string name = base;
    for (int i = 1; body.names.find(name); ++i) name = base + "." + std::to_string(i);
    Instruction* gte = body.comp->add(Opcode::kGetTupleElement, name, s.tupleElement(static_cast<int>(index)),
                                      {current});
    gte->attrs().setInt(AttrKey::kIndex, index);
    gte->setLoc(c_.locAt(p.pos));
    body.names.insert(gte->name(), gte);
    body.gteByPath.insert(prefix, gte);
    current = gte;
  }
  return current;
}

Status ModuleParser::parseInstruction(Body& body) {
  c_.skipSpace();
  size_t start = c_.pos();
  bool isRoot = c_.consumeWord("ROOT");
  std::string_view name = c_.name();
  if (name.empty()) return c_.error("expected an instruction name or '}'");
  if (!c_.consume('=')) return c_.error("expected '=' after instruction name '" + std::string(name) + "'");
  if (body.names.find(name))
    return c_.errorAt(start, "instruction '" + std::string(name) + "' is already defined in computation '" +
                                 body.comp->name() + "'");
  HLO_ASSIGN_OR_RETURN(Instruction * instr, parseRhs(body, std::string(name), start, /*nested=*/false, 0));
  if (isRoot) {
    if (body.root) return c_.errorAt(start, "computation '" + body.comp->name() + "' has more than one ROOT");
    body.root = instr;
  }
  return okStatus();
}

// An opcode, or `X-start` / `X-update` / `X-done` written for an async
// operation wrapping X (`wrapped` = X).
std::optional<Opcode> parseOpcodeOrAsyncSugar(std::string_view text, std::optional<Opcode>& wrapped) {
  if (std::optional<Opcode> op = lookupOpcode(text)) return op;
  static constexpr std::pair<std::string_view, Opcode> kSuffixes[] = {
      {"-start", Opcode::kAsyncStart}, {"-update", Opcode::kAsyncUpdate}, {"-done", Opcode::kAsyncDone}};
  for (auto [suffix, asyncOp] : kSuffixes) {
    if (text.size() <= suffix.size() || !text.ends_with(suffix)) continue;
    wrapped = lookupOpcode(text.substr(0, text.size() - suffix.size()));
    if (wrapped) return asyncOp;
  }
  return std::nullopt;
}

StatusOr<std::optional<Shape>> present(StatusOr<Shape> shape) {
  if (!shape.ok()) return shape.status();
  return std::optional<Shape>(std::move(shape).value());
}

StatusOr<std::optional<Shape>> ModuleParser::shapeOrWord(std::string_view& word, size_t& wordPos) {
  c_.skipSpace();
  size_t start = c_.pos();
  word = {};
  wordPos = start;
  if (c_.rawPeek() == '(') return present(parseShapeAt(c_, /*spacedLayout=*/true));
  bool percent = c_.rawPeek() == '%';
  word = c_.name();
  if (percent || word.empty()) return std::optional<Shape>();
  if (word == "b" && c_.rawPeek() == '(') {
    c_.setPos(start);
    word = {};
    return present(parseShapeAt(c_, /*spacedLayout=*/true));
  }
  if (c_.peek() == '[') {
    if (std::optional<ElementType> type = lookupElementType(word)) {
      word = {};
      return present(parseArrayShapeAfterType(c_, *type, /*spacedLayout=*/true));
    }
  }
  return std::optional<Shape>();
}

StatusOr<Instruction*> ModuleParser::parseRhs(Body& body, std::string name, size_t start, bool nested,
                                              int depth) {
  if (depth > kMaxNesting) return c_.error("instructions nested too deeply");
  currentInstruction_ = name;
  std::string_view opText;
  size_t opcodePos;
  HLO_ASSIGN_OR_RETURN(std::optional<Shape> shape, shapeOrWord(opText, opcodePos));
  if (shape) {
    c_.skipSpace();
    opcodePos = c_.pos();
    opText = c_.name();
  }
  if (opText.empty()) return c_.error("expected an opcode");
  std::optional<Opcode> wrapped;
  std::optional<Opcode> opcode = parseOpcodeOrAsyncSugar(opText, wrapped);
  if (!opcode) {
    if (!shape && c_.rawPeek() == '[')
      return c_.errorAt(opcodePos, "unknown element type '" + std::string(opText) + "'");
    return c_.errorAt(opcodePos, "unknown opcode '" + std::string(opText) + "'");
  }
  if (!c_.consume('(')) return c_.error("expected '(' after the opcode");
  if (nested) {
    // A generated name that cannot clash with a written one.
    do {
      name = std::string(opText) + ".nested." + std::to_string(++body.nestedCount);
    } while (body.names.find(name));
  }
  bool hasShape = shape.has_value();
  auto owned = std::make_unique<Instruction>(*opcode, std::move(name), hasShape ? std::move(*shape) : Shape());
  owned->setLoc(c_.locAt(start));
  Instruction* raw = owned.get();
  int operandCount = 0;
  if (*opcode == Opcode::kParameter) {
    int64_t n;
    if (!c_.integer(n) || n < 0) return c_.error("expected a parameter number");
    raw->setParameterNumber(n);
    if (!c_.consume(')')) return c_.error("expected ')' after the parameter number");
  } else if (*opcode == Opcode::kConstant) {
    if (!hasShape) return c_.errorAt(start, "constant '" + raw->name() + "' needs a shape");
    HLO_ASSIGN_OR_RETURN(Literal lit, parseLiteralValuesAt(c_, raw->shape()));
    raw->setLiteral(std::move(lit));
    if (!c_.consume(')')) return c_.error("expected ')' after the constant's value");
  } else {
    HLO_ASSIGN_OR_RETURN(operandCount, parseOperands(body, raw, depth));
  }
  int arity = opcodeArity(*opcode);
  if (!wrapped && arity != kVariadic && operandCount != arity)
    return c_.errorAt(opcodePos, std::string(opText) + " expects " + std::to_string(arity) +
                                     " operand(s) but has " + std::to_string(operandCount));

  Instruction* attrTarget = raw;
  if (wrapped && *opcode == Opcode::kAsyncStart) {
    HLO_RETURN_IF_ERROR(buildAsyncWrapped(raw, *wrapped, opText, operandCount, start, attrTarget));
  } else if (*opcode == Opcode::kAsyncUpdate || *opcode == Opcode::kAsyncDone) {
    facts_.asyncUses.push_back({raw, wrapped, opcodePos});
  }
  HLO_RETURN_IF_ERROR(parseAttributes(body, raw, attrTarget, nested));
  if (!hasShape) {
    if (wrapped) return c_.errorAt(start, "'" + std::string(opText) + "' needs a shape");
    facts_.needsShape.push_back(raw);
  }
  // Added last, so instructions written inside its operand list come first.
  body.comp->add(std::move(owned));
  body.names.insert(raw->name(), raw);
  return raw;
}

// The operand list after `opcode(`, through the closing ')'.
StatusOr<int> ModuleParser::parseOperands(Body& body, Instruction* user, int depth) {
  if (c_.consume(')')) return 0;
  int count = 0;
  do {
    HLO_RETURN_IF_ERROR(parseOperand(body, user, depth));
    ++count;
  } while (c_.consume(','));
  if (!c_.consume(')')) return c_.error("expected ',' or ')' in the operand list");
  return count;
}

// One operand: `%name`, `shape %name`, `%name#1#0`, or an instruction
// written in place (`f32[] constant(0)`, `negate(%x)`).
Status ModuleParser::parseOperand(Body& body, Instruction* user, int depth) {
  c_.skipSpace();
  size_t pos = c_.pos();
  std::string_view operandName;
  size_t namePos;
  HLO_ASSIGN_OR_RETURN(std::optional<Shape> shape, shapeOrWord(operandName, namePos));
  if (shape) {
    c_.skipSpace();
    namePos = c_.pos();
    operandName = c_.name();
  }
  if (operandName.empty()) return c_.error("expected an operand name");
  if (!shape && c_.rawPeek() == '[')
    return c_.errorAt(namePos, "unknown element type '" + std::string(operandName) + "'");
  // `[shape] opcode(...)`: an instruction written inline as an operand.
  if (c_.peek() == '(' && (shape || lookupOpcode(operandName))) {
    c_.setPos(pos);
    HLO_ASSIGN_OR_RETURN(Instruction * inner, parseRhs(body, "", pos, /*nested=*/true, depth + 1));
    currentInstruction_ = user->name();
    body.operands.push_back({user, inner->name(), {}, pos, -1, pos});
    return okStatus();
  }
  int declared = -1;
  if (shape) {
    body.declaredShapes.push_back(std::move(*shape));
    declared = static_cast<int>(body.declaredShapes.size()) - 1;
  }
  // `%p#1#0`: the path, spelled as in the text, keys the generated elements.
  size_t pathStart = c_.pos() - operandName.size();
  while (c_.rawPeek() == '#') {
    c_.setPos(c_.pos() + 1);
    size_t indexPos = c_.pos();
    int64_t index;
    if (!c_.integer(index)) return c_.error("expected a tuple index after '#'");
    if (index < 0) return c_.errorAt(indexPos, "negative tuple index");
  }
  std::string_view path = c_.pos() > pathStart + operandName.size()
                              ? c_.text().substr(pathStart, c_.pos() - pathStart)
                              : std::string_view();
  body.operands.push_back({user, operandName, path, namePos, declared, pos});
  return okStatus();
}

// `X-start(operands)` with shape ((operand shapes...), result, ...): builds
// the computation it wraps, one parameter per operand and X as the root; the
// attributes that follow belong to X.
Status ModuleParser::buildAsyncWrapped(Instruction* start, Opcode wrapped, std::string_view opText,
                                       int operandCount, size_t pos, Instruction*& attrTarget) {
  const Shape& shape = start->shape();
  if (!shape.isTuple() || shape.tupleSize() < 2 || !shape.tupleElement(0).isTuple())
    return c_.errorAt(pos, "'" + std::string(opText) + "' needs a shape of the form ((operands...), result, ...)");
  const Shape& operandShapes = shape.tupleElement(0);
  if (operandShapes.tupleSize() != operandCount)
    return c_.errorAt(pos, "'" + std::string(opText) + "' shape lists " + std::to_string(operandShapes.tupleSize()) +
                               " operands but has " + std::to_string(operandCount));
  auto body = std::make_unique<Computation>(generatedName(start->name() + ".wrapped"));
  body->setLoc(start->loc());
  std::vector<Instruction*> params;
  for (int i = 0; i < operandCount; ++i) {
    auto p = std::make_unique<Instruction>(Opcode::kParameter, "param." + std::to_string(i),
                                           operandShapes.tupleElement(i));
    p->setParameterNumber(i);
    p->setLoc(start->loc());
    params.push_back(body->add(std::move(p)));
  }
  Instruction* op = body->add(wrapped, std::string(opText.substr(0, opText.size() - 6)),
                              shape.tupleElement(1), params);
  op->setLoc(start->loc());
  body->setRoot(op);
  attrTarget = op;
  start->attrs().setComputation(AttrKey::kCalls, addGenerated(std::move(body)));
  return okStatus();
}

Status ModuleParser::parseControlPredecessors(Body& body, Instruction* instr) {
  if (!c_.consume('{')) return c_.error("expected '{' after control-predecessors=");
  if (c_.consume('}')) return okStatus();
  do {
    c_.skipSpace();
    size_t pos = c_.pos();
    std::string_view n = c_.name();
    if (n.empty()) return c_.error("expected an instruction name");
    body.controls.push_back({instr, n, pos});
  } while (c_.consume(','));
  if (!c_.consume('}')) return c_.error("expected '}' to close control-predecessors");
  return okStatus();
}

// Unary operations XLA lets carry result_accuracy=.
bool takesResultAccuracy(Opcode op) {
  static constexpr Opcode kOps[] = {
      Opcode::kAcos, Opcode::kAcosh, Opcode::kAsin,  Opcode::kAsinh, Opcode::kAtanh,
      Opcode::kCbrt, Opcode::kCos,   Opcode::kCosh,  Opcode::kErf,   Opcode::kExp,
      Opcode::kExpm1, Opcode::kLog,  Opcode::kLog1p, Opcode::kLogistic, Opcode::kRsqrt,
      Opcode::kSin,  Opcode::kSinh,  Opcode::kSqrt,  Opcode::kTan,   Opcode::kTanh};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

Status ModuleParser::parseAttributes(Body& body, Instruction* instr, Instruction* target, bool nested) {
  ComputationResolver resolver;
  resolver.byName = [this](std::string_view n, size_t pos) -> StatusOr<Computation*> {
    auto it = written_.find(n);
    if (it != written_.end()) return it->second;
    unresolvedRefs_.emplace_back(n, pos);
    return static_cast<Computation*>(nullptr);
  };
  resolver.inlineBody = [this]() { return parseInlineComputation(); };
  for (;;) {
    size_t beforeComma = c_.pos();
    if (!c_.consume(',')) break;
    if (nested) {
      c_.name();
      bool isAttr = c_.peek() == '=';
      c_.setPos(beforeComma);
      if (!isAttr) break;
      c_.consume(',');
    }
    c_.skipSpace();
    size_t keyPos = c_.pos();
    std::string_view key = c_.name();
    if (key.empty() || !c_.consume('=')) return c_.error("expected an attribute name=value");
    if (key == "control-predecessors") {
      HLO_RETURN_IF_ERROR(parseControlPredecessors(body, instr));
      continue;
    }
    std::optional<AttrKey> attrKey = parseAttrKey(key);
    if (!attrKey) return c_.errorAt(keyPos, "unknown attribute '" + std::string(key) + "'");
    if (target->attrs().has(*attrKey))
      return c_.errorAt(keyPos, "attribute '" + std::string(key) + "' is given twice");
    if (*attrKey == AttrKey::kResultAccuracy && !takesResultAccuracy(target->opcode()))
      return c_.errorAt(keyPos, "unexpected attribute \"result_accuracy\" on " +
                                    std::string(opcodeName(target->opcode())));
    unresolvedRefs_.clear();
    HLO_ASSIGN_OR_RETURN(AttrValue value, parseAttrValue(c_, *attrKey, resolver));
    AttrValue& stored = target->attrs().set(*attrKey, std::move(value));
    size_t next = 0;
    for (size_t i = 0; i < stored.comps.size(); ++i) {
      if (stored.comps[i]) continue;
      auto [n, pos] = unresolvedRefs_[next++];
      fixups_.push_back({target, *attrKey, i, n, pos});
    }
  }
  return okStatus();
}

Status ModuleParser::resolveComputationRefs() {
  for (const ComputationFixup& f : fixups_) {
    auto it = written_.find(f.name);
    if (it == written_.end())
      return c_.errorAt(f.pos, "computation '" + std::string(f.name) + "' is not defined");
    f.instr->attrs().find(f.key)->comps[f.index] = it->second;
  }
  return okStatus();
}

}  // namespace

StatusOr<std::unique_ptr<Module>> parseModule(std::string_view text) {
  ModuleParser parser(text);
  return parser.run();
}

StatusOr<Shape> parseShape(std::string_view text) {
  Cursor c(text);
  HLO_ASSIGN_OR_RETURN(Shape s, parseShapeAt(c));
  if (!c.atEnd()) return c.error("unexpected text after the shape");
  return s;
}

StatusOr<Literal> parseLiteral(std::string_view text) {
  Cursor c(text);
  HLO_ASSIGN_OR_RETURN(Literal lit, parseLiteralAt(c));
  if (!c.atEnd()) return c.error("unexpected text after the literal");
  return lit;
}

std::string formatError(const Status& status, std::string_view fileName, std::string_view text) {
  std::string out(fileName);
  SourceLoc loc = status.loc();
  if (loc.known()) out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
  out += ": error: " + status.message() + "\n";
  if (!loc.known()) return out;
  // The source line and a caret under the column.
  size_t lineStart = 0;
  for (int line = 1; line < loc.line && lineStart < text.size(); ++line) {
    size_t nl = text.find('\n', lineStart);
    if (nl == std::string_view::npos) break;
    lineStart = nl + 1;
  }
  size_t lineEnd = text.find('\n', lineStart);
  std::string_view line = text.substr(lineStart, lineEnd == std::string_view::npos
                                                     ? std::string_view::npos
                                                     : lineEnd - lineStart);
  if (line.size() > 200) line = line.substr(0, 200);
  // Show only printable bytes so binary input does not garble the terminal.
  std::string shown;
  for (char ch : line) shown += (ch == '\t' || (ch >= 32 && ch < 127)) ? ch : '?';
  out += shown + "\n";
  out += std::string(loc.column > 1 ? std::min<size_t>(loc.column - 1, 200) : 0, ' ') + "^\n";
  return out;
}

}  // namespace hlo
