// Reading one instruction: `[ROOT] name = [shape] opcode(operands), attrs`.
//
// Operands defined earlier in the body are linked as they are read; the
// others wait for the end of the body (parser.cc resolves them). Async sugar
// (`add-start`) builds the computation it wraps here, and an attribute may
// hold a whole computation written inline (`to_apply={...}`).
#include "parser/module_parser.h"

#include <algorithm>

#include "parser/attribute_parser.h"
#include "parser/lookup.h"
#include "parser/shape_parser.h"

namespace hlo::parse_detail {
namespace {

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

// Unary operations XLA lets carry result_accuracy=.
bool takesResultAccuracy(Opcode op) {
  static constexpr Opcode kOps[] = {
      Opcode::kAcos, Opcode::kAcosh, Opcode::kAsin,  Opcode::kAsinh, Opcode::kAtanh,
      Opcode::kCbrt, Opcode::kCos,   Opcode::kCosh,  Opcode::kErf,   Opcode::kExp,
      Opcode::kExpm1, Opcode::kLog,  Opcode::kLog1p, Opcode::kLogistic, Opcode::kRsqrt,
      Opcode::kSin,  Opcode::kSinh,  Opcode::kSqrt,  Opcode::kTan,   Opcode::kTanh};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

}  // namespace

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
  HLO_ASSIGN_OR_RETURN(Instruction * instr, parseRhs(body, std::string(name), start, /*nested=*/false));
  if (isRoot) {
    if (body.root) return c_.errorAt(start, "computation '" + body.comp->name() + "' has more than one ROOT");
    body.root = instr;
  }
  return okStatus();
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

StatusOr<Instruction*> ModuleParser::parseRhs(Body& body, std::string name, size_t start, bool nested) {
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
  if (*opcode == Opcode::kParameter) {  // numbered before add(), which registers parameters
    int64_t n;
    if (!c_.integer(n) || n < 0) return c_.error("expected a parameter number");
    raw->setParameterNumber(n);
  }
  // Into the computation and the name table before the operands are read,
  // so an operand defined earlier is linked at once, while its definition
  // is still in the cache (see parseOperand).
  body.comp->add(std::move(owned));
  body.names.insert(raw->name(), raw);
  if (!hasShape) shapeless_.insert(raw);
  int operandCount = 0;
  if (*opcode == Opcode::kParameter) {
    if (!c_.consume(')')) return c_.error("expected ')' after the parameter number");
  } else if (*opcode == Opcode::kConstant) {
    if (!hasShape) return c_.errorAt(start, "constant '" + raw->name() + "' needs a shape");
    HLO_ASSIGN_OR_RETURN(Literal lit, parseLiteralValuesAt(c_, raw->shape()));
    raw->setLiteral(std::move(lit));
    if (!c_.consume(')')) return c_.error("expected ')' after the constant's value");
  } else {
    HLO_ASSIGN_OR_RETURN(operandCount, parseOperands(body, raw));
  }
  int arity = opcodeArity(*opcode);
  if (!wrapped && arity != kVariadic && operandCount != arity)
    return c_.errorAt(opcodePos, std::string(opText) + " expects " + std::to_string(arity) +
                                     " operand(s) but has " + std::to_string(operandCount));

  Instruction* attrTarget = raw;
  if (wrapped && *opcode == Opcode::kAsyncStart) {
    HLO_RETURN_IF_ERROR(buildAsyncWrapped(raw, *wrapped, opText, operandCount, start, attrTarget));
  } else if (*opcode == Opcode::kAsyncUpdate || *opcode == Opcode::kAsyncDone) {
    facts_.asyncUses.push_back({raw, wrapped, opcodePos, hasShape});
  }
  HLO_RETURN_IF_ERROR(parseAttributes(body, raw, attrTarget, nested));
  if (!hasShape) {
    if (wrapped) return c_.errorAt(start, "'" + std::string(opText) + "' needs a shape");
    facts_.needsShape.push_back(raw);
  }
  return raw;
}

// The operand list after `opcode(`, through the closing ')'.
StatusOr<int> ModuleParser::parseOperands(Body& body, Instruction* user) {
  if (c_.consume(')')) return 0;
  int count = 0;
  bool deferred = false;
  size_t operandEnd;
  do {
    HLO_RETURN_IF_ERROR(parseOperand(body, user, deferred));
    operandEnd = c_.pos();
    ++count;
  } while (c_.consume(','));
  if (!c_.consume(')')) return c_.errorAfter(operandEnd, "expected ',' or ')' in the operand list");
  return count;
}

// Links `operand` to `user` now, checking a declared shape when the
// operand's shape is known already.
Status ModuleParser::linkOperand(Body& body, Instruction* user, Instruction* operand,
                                 std::optional<Shape>& declared, size_t shapePos) {
  if (declared) {
    if (shapeless_.count(operand))
      facts_.operandShapes.push_back({user, user->operandCount(), std::move(*declared), shapePos});
    else
      HLO_RETURN_IF_ERROR(checkDeclaredShape(*declared, *operand, shapePos, c_));
  }
  body.ordered &= operand->id() < user->id();
  body.comp->addOperand(user, operand);
  return okStatus();
}

// One operand: `%name`, `shape %name`, `%name#1#0`, or an instruction
// written in place (`f32[] constant(0)`, `negate(%x)`).
Status ModuleParser::parseOperand(Body& body, Instruction* user, bool& deferred) {
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
    if (++nesting_ > kMaxNesting) return c_.error("instructions nested too deeply");
    HLO_ASSIGN_OR_RETURN(Instruction * inner, parseRhs(body, "", pos, /*nested=*/true));
    --nesting_;
    std::optional<Shape> none;
    if (!deferred) return linkOperand(body, user, inner, none, pos);
    body.operands.push_back({user, inner->name(), {}, pos, -1, pos});
    return okStatus();
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
  // Defined already: link it now. Otherwise this operand, and the user's
  // later ones (their order matters), wait until the body is read.
  if (!deferred && path.empty()) {
    if (Instruction* operand = body.names.find(operandName))
      return linkOperand(body, user, operand, shape, pos);
  }
  deferred = true;
  int declared = -1;
  if (shape) {
    body.declaredShapes.push_back(std::move(*shape));
    declared = static_cast<int>(body.declaredShapes.size()) - 1;
  }
  body.operands.push_back({user, operandName, path, namePos, declared, pos});
  return okStatus();
}

// `X-start(operands)` with shape ((operand shapes...), result, ...): builds
// the computation it wraps, one parameter per operand and X as the root; the
// attributes that follow belong to X. A start may pass fewer operands than X
// takes (later `X-update`s bring the rest, see completeModule): as in XLA,
// the missing parameters start out as f32[1] and are fixed up then.
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
  int paramCount = std::max(operandCount, opcodeArity(wrapped));
  for (int i = 0; i < paramCount; ++i) {
    Shape paramShape = i < operandCount ? operandShapes.tupleElement(i) : Shape(ElementType::kF32, {1});
    auto p = std::make_unique<Instruction>(Opcode::kParameter, "param." + std::to_string(i), paramShape);
    p->setParameterNumber(i);
    p->setLoc(start->loc());
    params.push_back(body->add(std::move(p)));
  }
  Instruction* op = body->add(wrapped, std::string(opText.substr(0, opText.size() - 6)),
                              shape.tupleElement(1), params);
  op->setLoc(start->loc());
  body->setRoot(op);
  attrTarget = op;
  Computation* raw = addGenerated(std::move(body));
  facts_.sugarWrapped.push_back(raw);
  start->attrs().setComputation(AttrKey::kCalls, raw);
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

Status ModuleParser::parseAttributes(Body& body, Instruction* instr, Instruction* target, bool nested) {
  // Names of computations not defined yet, in the order the value holds
  // them; local, as an inline computation in the value parses attributes too.
  std::vector<std::pair<std::string_view, size_t>> unresolved;
  ComputationResolver resolver;
  resolver.byName = [this, &unresolved](std::string_view n, size_t pos) -> StatusOr<Computation*> {
    auto it = written_.find(n);
    if (it != written_.end()) return it->second;
    unresolved.emplace_back(n, pos);
    return static_cast<Computation*>(nullptr);
  };
  resolver.inlineBody = [this, instr]() { return parseInlineComputation(instr->name()); };
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
    std::optional<AttrKey> attrKey = lookupAttrKey(key);
    if (!attrKey) return c_.errorAt(keyPos, "unknown attribute '" + std::string(key) + "'");
    if (target->attrs().has(*attrKey))
      return c_.errorAt(keyPos, "attribute '" + std::string(key) + "' is given twice");
    if (*attrKey == AttrKey::kResultAccuracy && !takesResultAccuracy(target->opcode()))
      return c_.errorAt(keyPos, "unexpected attribute \"result_accuracy\" on " +
                                    std::string(opcodeName(target->opcode())));
    unresolved.clear();
    AttrValue& stored = target->attrs().set(*attrKey, AttrValue());
    HLO_RETURN_IF_ERROR(parseAttrValue(c_, *attrKey, resolver, stored));
    size_t next = 0;
    for (size_t i = 0; i < stored.comps.size(); ++i) {
      if (stored.comps[i]) continue;
      auto [n, pos] = unresolved[next++];
      fixups_.push_back({target, *attrKey, i, n, pos});
    }
  }
  return okStatus();
}

}  // namespace hlo::parse_detail
