// The HLO module parser: recursive descent over the text, then name
// resolution, cycle checks and shape inference for shape-less instructions.
//
// Algorithm:
//   1. Header: `HloModule name, key=value, ...` (optional) and the stack-frame
//      index sections, kept verbatim.
//   2. Each computation: `[ENTRY] name [(params) -> shape] { instructions }`.
//      Instructions are created as they are read; operand names are resolved
//      when the computation closes (so uses may precede definitions), then
//      the instructions are sorted so every operand comes first.
//   3. When the text ends: computation references are resolved, the entry is
//      chosen (the ENTRY one, else the last), instructions written without a
//      shape get the inferred one (callees first), and each signature is
//      checked against its computation.
#include "parser/parser.h"

#include <unordered_map>
#include <unordered_set>

#include "hlo/shape_inference.h"
#include "parser/attribute_parser.h"
#include "parser/shape_parser.h"

namespace hlo {
namespace {

constexpr int kMaxInlineDepth = 64;

struct PendingOperand {
  Instruction* user;
  std::string_view name;
  size_t pos;
  int64_t tupleIndex;  // `%p#1` compact get-tuple-element, or -1
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

// `X-update` / `X-done` written as sugar for async-update / async-done.
// Explicit async-update / async-done may omit `calls=`: it is the operand's.
struct AsyncSugarUse {
  Instruction* instr;
  std::optional<Opcode> wrapped;
  size_t pos;
};

struct Signature {
  Computation* computation;
  std::vector<std::pair<std::string_view, Shape>> params;
  Shape result;
  size_t pos;
};

class ModuleParser {
 public:
  explicit ModuleParser(std::string_view text) : c_(text) {}
  StatusOr<std::unique_ptr<Module>> run();

 private:
  Status parseHeader();
  Status parseStackFrameSection();
  Status parseComputation();
  Status parseSignature(Signature& sig);
  // Parses `{ instructions }` into `comp` and resolves its operands.
  Status parseBody(Computation* comp);
  struct BodyState {
    std::unordered_map<std::string_view, Instruction*> names;
    std::vector<PendingOperand> operands;
    std::vector<PendingControl> controls;
    Instruction* root = nullptr;
    int nestedCount = 0;
  };
  Status parseInstruction(Computation* comp, BodyState& body);
  // Everything after `name =`; `nested` for an instruction written inline as
  // an operand, e.g. `broadcast(f32[] constant(0))`.
  StatusOr<Instruction*> parseRhs(Computation* comp, BodyState& body, std::string name,
                                  size_t start, bool nested, int depth);
  // `nested`: stop at a ',' that is not followed by `key=` (the next operand).
  Status parseAttributes(Instruction* instr, Instruction* attrTarget,
                         std::vector<PendingControl>& controls, bool nested = false);
  StatusOr<Computation*> parseInlineComputation();
  Status finish();
  Status inferShapes();
  Status addComputation(std::unique_ptr<Computation> comp, size_t pos);
  std::string uniqueComputationName(const std::string& base);

  Cursor c_;
  std::unique_ptr<Module> module_ = std::make_unique<Module>();
  std::unordered_map<std::string, Computation*> computations_;
  std::vector<ComputationFixup> fixups_;
  std::vector<std::pair<std::string_view, size_t>> unresolvedRefs_;
  std::vector<Instruction*> needsShape_;
  std::vector<AsyncSugarUse> asyncSugar_;
  std::vector<Signature> signatures_;
  Computation* entry_ = nullptr;
  std::string currentInstruction_;
  int inlineDepth_ = 0;
  size_t lastComputationPos_ = 0;
};

StatusOr<std::unique_ptr<Module>> ModuleParser::run() {
  if (c_.consumeWord("HloModule")) HLO_RETURN_IF_ERROR(parseHeader());
  while (!c_.atEnd()) {
    if (c_.unterminatedComment()) return c_.error("unterminated /* comment");
    std::string_view word = c_.peekName();
    if (word == "FileNames" || word == "FunctionNames" || word == "FileLocations" ||
        word == "StackFrames") {
      HLO_RETURN_IF_ERROR(parseStackFrameSection());
      continue;
    }
    HLO_RETURN_IF_ERROR(parseComputation());
  }
  if (c_.unterminatedComment()) return c_.error("unterminated /* comment");
  if (module_->computations().empty()) return c_.error("the module has no computation");
  HLO_RETURN_IF_ERROR(finish());
  return std::move(module_);
}

// A header or verbatim value: bracketed, quoted, or a bare word.
static StatusOr<std::string> parseHeaderValue(Cursor& c) {
  char p = c.peek();
  size_t start = c.pos();
  if (p == '{' || p == '[' || p == '(') {
    std::string_view body;
    if (!c.balanced(body)) return c.error("unbalanced brackets in the module header");
    return std::string(body);
  }
  if (p == '"') {
    std::string ignored;
    if (!c.quotedString(ignored)) return c.error("unterminated string");
    return std::string(c.text().substr(start, c.pos() - start));
  }
  std::string_view word = c.name();
  if (word.empty()) {
    int64_t v;
    if (!c.integer(v)) return c.error("expected a value in the module header");
    return std::to_string(v);
  }
  return std::string(word);
}

Status ModuleParser::parseHeader() {
  std::string_view name = c_.name();
  if (name.empty()) return c_.error("expected the module name after HloModule");
  module_->setName(std::string(name));
  c_.consume(':');  // some tests write `HloModule name:`
  while (c_.consume(',')) {
    std::string_view key = c_.name();
    if (key.empty() || !c_.consume('=')) return c_.error("expected key=value in the module header");
    HLO_ASSIGN_OR_RETURN(std::string value, parseHeaderValue(c_));
    module_->headerAttributes().emplace_back(std::string(key), std::move(value));
  }
  return okStatus();
}

Status ModuleParser::parseStackFrameSection() {
  c_.skipSpace();
  size_t start = c_.pos();
  c_.name();
  for (;;) {
    int64_t id;
    size_t save = c_.pos();
    if (!c_.integer(id)) {
      c_.setPos(save);
      break;
    }
    std::string_view body;
    if (c_.peek() == '"') {
      std::string ignored;
      if (!c_.quotedString(ignored)) return c_.error("unterminated string");
    } else if (!c_.balanced(body)) {
      return c_.error("expected a string or {...} entry in the stack-frame section");
    }
  }
  std::string& text = module_->stackFrameText();
  text += std::string(c_.text().substr(start, c_.pos() - start));
  text += '\n';
  return okStatus();
}

Status ModuleParser::parseSignature(Signature& sig) {
  c_.consume('(');
  if (!c_.consume(')')) {
    do {
      std::string_view pname = c_.name();
      if (pname.empty()) return c_.error("expected 'name: shape' in the computation signature");
      c_.consume(':');  // older dumps write `name shape`
      HLO_ASSIGN_OR_RETURN(Shape s, parseShapeAt(c_));
      sig.params.emplace_back(pname, std::move(s));
    } while (c_.consume(','));
    if (!c_.consume(')')) return c_.error("expected ')' to close the signature");
  }
  if (!c_.consumeText("->")) return c_.error("expected '->' and the result shape");
  HLO_ASSIGN_OR_RETURN(sig.result, parseShapeAt(c_));
  return okStatus();
}

Status ModuleParser::addComputation(std::unique_ptr<Computation> comp, size_t pos) {
  std::string name = comp->name();
  if (computations_.count(name))
    return c_.errorAt(pos, "computation '" + name + "' is already defined");
  computations_[name] = module_->add(std::move(comp));
  return okStatus();
}

std::string ModuleParser::uniqueComputationName(const std::string& base) {
  std::string name = base;
  for (int i = 1; computations_.count(name); ++i) name = base + "." + std::to_string(i);
  return name;
}

Status ModuleParser::parseComputation() {
  c_.skipSpace();
  size_t start = c_.pos();
  bool isEntry = c_.consumeWord("ENTRY");
  std::string_view name = c_.name();
  if (name.empty()) return c_.error("expected a computation name or ENTRY");
  auto comp = std::make_unique<Computation>(std::string(name));
  comp->setLoc(c_.locAt(start));
  Signature sig{comp.get(), {}, Shape(), start};
  bool hasSignature = c_.peek() == '(';
  if (hasSignature) HLO_RETURN_IF_ERROR(parseSignature(sig));
  if (c_.peek() != '{') return c_.error("expected '{' to start computation '" + std::string(name) + "'");
  if (computations_.count(std::string(name)))
    return c_.errorAt(start, "computation '" + std::string(name) + "' is already defined");
  Computation* raw = comp.get();
  HLO_RETURN_IF_ERROR(parseBody(raw));
  if (c_.consume(',')) {
    if (!c_.consumeWord("execution_thread") || !c_.consume('='))
      return c_.error("expected execution_thread=\"...\" after the computation");
    std::string thread;
    if (!c_.quotedString(thread)) return c_.error("expected a quoted execution thread name");
    raw->setExecutionThread(thread);
  }
  HLO_RETURN_IF_ERROR(addComputation(std::move(comp), start));
  if (isEntry) {
    if (entry_) return c_.errorAt(start, "more than one ENTRY computation");
    entry_ = raw;
  }
  if (hasSignature) signatures_.push_back(std::move(sig));
  lastComputationPos_ = start;
  return okStatus();
}

StatusOr<Computation*> ModuleParser::parseInlineComputation() {
  if (++inlineDepth_ > kMaxInlineDepth) return c_.error("inline computations nested too deeply");
  size_t start = c_.pos();
  auto comp = std::make_unique<Computation>(uniqueComputationName(currentInstruction_ + ".body"));
  comp->setLoc(c_.locAt(start));
  comp->setInline(true);
  Computation* raw = comp.get();
  std::string saved = currentInstruction_;
  HLO_RETURN_IF_ERROR(parseBody(raw));
  currentInstruction_ = saved;
  HLO_RETURN_IF_ERROR(addComputation(std::move(comp), start));
  --inlineDepth_;
  return raw;
}

Status ModuleParser::parseBody(Computation* comp) {
  size_t open = c_.pos();
  if (!c_.consume('{')) return c_.error("expected '{'");
  BodyState body;
  auto& names = body.names;
  auto& operands = body.operands;
  auto& controls = body.controls;
  Instruction*& root = body.root;
  while (!c_.consume('}')) {
    if (c_.atEnd()) return c_.errorAt(open, "computation '" + comp->name() + "' is not closed with '}'");
    HLO_RETURN_IF_ERROR(parseInstruction(comp, body));
  }
  if (comp->instructions().empty())
    return c_.errorAt(open, "computation '" + comp->name() + "' has no instructions");
  // Resolve operand names now that every instruction of the body is known.
  for (const PendingOperand& p : operands) {
    auto it = names.find(p.name);
    if (it == names.end())
      return c_.errorAt(p.pos, "use of undefined instruction '" + std::string(p.name) + "'");
    Instruction* operand = it->second;
    if (p.tupleIndex >= 0 || p.tupleIndex == -2) {
      // `%p#N`: an implicit get-tuple-element.
      const Shape& s = operand->shape();
      if (!s.isTuple())
        return c_.errorAt(p.pos, "'" + std::string(p.name) + "#...' takes an element of a non-tuple");
      if (p.tupleIndex < 0 || p.tupleIndex >= s.tupleSize())
        return c_.errorAt(p.pos, "tuple index out of range for '" + std::string(p.name) + "'");
      Instruction* gte = comp->add(Opcode::kGetTupleElement,
                                   std::string(p.name) + ".gte" + std::to_string(p.tupleIndex),
                                   s.tupleElement(static_cast<int>(p.tupleIndex)), {operand});
      gte->attrs().setInt(AttrKey::kIndex, p.tupleIndex);
      gte->setLoc(c_.locAt(p.pos));
      operand = gte;
    }
    comp->addOperand(p.user, operand);
  }
  for (const PendingControl& p : controls) {
    auto it = names.find(p.name);
    if (it == names.end())
      return c_.errorAt(p.pos, "control predecessor '" + std::string(p.name) + "' is not defined");
    comp->addControlDependency(it->second, p.successor);
  }
  comp->setRoot(root ? root : comp->instructions().back().get());
  HLO_RETURN_IF_ERROR(comp->sortTopologically());
  return okStatus();
}

Status ModuleParser::parseInstruction(Computation* comp, BodyState& body) {
  c_.skipSpace();
  size_t start = c_.pos();
  bool isRoot = c_.consumeWord("ROOT");
  std::string_view name = c_.name();
  if (name.empty()) return c_.error("expected an instruction name");
  if (!c_.consume('=')) return c_.error("expected '=' after instruction name '" + std::string(name) + "'");
  if (body.names.count(name))
    return c_.errorAt(start, "instruction '" + std::string(name) + "' is already defined in computation '" +
                                 comp->name() + "'");
  HLO_ASSIGN_OR_RETURN(Instruction * instr,
                       parseRhs(comp, body, std::string(name), start, /*nested=*/false, 0));
  if (isRoot) {
    if (body.root) return c_.errorAt(start, "computation '" + comp->name() + "' has more than one ROOT");
    body.root = instr;
  }
  return okStatus();
}

StatusOr<Instruction*> ModuleParser::parseRhs(Computation* comp, BodyState& body, std::string name,
                                              size_t start, bool nested, int depth) {
  if (depth > kMaxInlineDepth) return c_.error("instructions nested too deeply");
  currentInstruction_ = name;
  std::optional<Shape> shape;
  if (atShape(c_)) {
    HLO_ASSIGN_OR_RETURN(Shape s, parseShapeAt(c_, /*spacedLayout=*/true));
    shape = std::move(s);
  }
  c_.skipSpace();
  size_t opcodePos = c_.pos();
  std::string_view opText = c_.name();
  if (opText.empty()) return c_.error("expected an opcode");
  std::optional<Opcode> opcode = parseOpcode(opText);
  // Async sugar: `add-start`, `custom-call-update`, `call-done`, ...
  std::optional<Opcode> wrapped;
  if (!opcode) {
    for (auto [suffix, asyncOp] : {std::pair{std::string_view("-start"), Opcode::kAsyncStart},
                                   std::pair{std::string_view("-update"), Opcode::kAsyncUpdate},
                                   std::pair{std::string_view("-done"), Opcode::kAsyncDone}}) {
      if (opText.size() > suffix.size() && opText.ends_with(suffix)) {
        wrapped = parseOpcode(opText.substr(0, opText.size() - suffix.size()));
        if (wrapped) {
          opcode = asyncOp;
          break;
        }
      }
    }
  }
  if (!opcode) return c_.errorAt(opcodePos, "unknown opcode '" + std::string(opText) + "'");
  if (!c_.consume('(')) return c_.error("expected '(' after the opcode");
  if (nested) {
    // A generated name that cannot clash with a written one.
    do {
      name = std::string(opText) + ".nested." + std::to_string(++body.nestedCount);
    } while (body.names.count(name));
  }

  auto instr = std::make_unique<Instruction>(*opcode, name, shape ? *shape : Shape());
  instr->setLoc(c_.locAt(start));
  Instruction* raw = instr.get();
  int operandCount = 0;
  if (*opcode == Opcode::kParameter) {
    int64_t n;
    if (!c_.integer(n) || n < 0) return c_.error("expected a parameter number");
    raw->setParameterNumber(n);
    if (!c_.consume(')')) return c_.error("expected ')' after the parameter number");
  } else if (*opcode == Opcode::kConstant) {
    if (!shape) return c_.errorAt(start, "constant '" + name + "' needs a shape");
    HLO_ASSIGN_OR_RETURN(Literal lit, parseLiteralValuesAt(c_, *shape));
    raw->setLiteral(std::move(lit));
    if (!c_.consume(')')) return c_.error("expected ')' after the constant's value");
  } else if (!c_.consume(')')) {
    do {
      c_.skipSpace();
      size_t pos = c_.pos();
      bool typed = atShape(c_);
      if (typed) {
        size_t beforeShape = c_.pos();
        HLO_ASSIGN_OR_RETURN(Shape ignored, parseShapeAt(c_, /*spacedLayout=*/true));
        (void)ignored;
        // `shape opcode(...)`: an instruction written inline as an operand.
        size_t afterShape = c_.pos();
        std::string_view word = c_.name();
        bool nestedInstr = !word.empty() && c_.peek() == '(';
        c_.setPos(nestedInstr ? beforeShape : afterShape);
        if (nestedInstr) {
          HLO_ASSIGN_OR_RETURN(Instruction * inner,
                               parseRhs(comp, body, "", pos, /*nested=*/true, depth + 1));
          currentInstruction_ = name;
          body.operands.push_back({raw, inner->name(), pos, -1});
          ++operandCount;
          continue;
        }
      }
      c_.skipSpace();
      pos = c_.pos();
      std::string_view operandName = c_.name();
      if (operandName.empty()) return c_.error("expected an operand name");
      if (!typed && c_.peek() == '(' && parseOpcode(operandName)) {
        c_.setPos(pos);
        HLO_ASSIGN_OR_RETURN(Instruction * inner,
                             parseRhs(comp, body, "", pos, /*nested=*/true, depth + 1));
        currentInstruction_ = name;
        body.operands.push_back({raw, inner->name(), pos, -1});
        ++operandCount;
        continue;
      }
      int64_t tupleIndex = -1;
      if (c_.rawPeek() == '#') {
        c_.setPos(c_.pos() + 1);
        if (!c_.integer(tupleIndex)) return c_.error("expected a tuple index after '#'");
        if (tupleIndex < 0) return c_.errorAt(pos, "negative tuple index");
      }
      body.operands.push_back({raw, operandName, pos, tupleIndex});
      ++operandCount;
    } while (c_.consume(','));
    if (!c_.consume(')')) return c_.error("expected ',' or ')' in the operand list");
  }
  int arity = opcodeArity(*opcode);
  if (!wrapped && arity != kVariadic && operandCount != arity)
    return c_.errorAt(opcodePos, std::string(opText) + " expects " + std::to_string(arity) +
                                     " operand(s) but has " + std::to_string(operandCount));

  Instruction* attrTarget = raw;
  if (wrapped && *opcode == Opcode::kAsyncStart) {
    // Build the wrapped computation: one parameter per operand, the op as root.
    if (!shape || !shape->isTuple() || shape->tupleSize() < 2 || !shape->tupleElement(0).isTuple())
      return c_.errorAt(start, "'" + std::string(opText) +
                                   "' needs a shape of the form ((operands...), result, ...)");
    const Shape& operandShapes = shape->tupleElement(0);
    if (operandShapes.tupleSize() != operandCount)
      return c_.errorAt(start, "'" + std::string(opText) + "' shape lists " +
                                   std::to_string(operandShapes.tupleSize()) + " operands but has " +
                                   std::to_string(operandCount));
    auto wrappedBody = std::make_unique<Computation>(uniqueComputationName(name + ".wrapped"));
    wrappedBody->setLoc(raw->loc());
    std::vector<Instruction*> params;
    for (int i = 0; i < operandCount; ++i) {
      auto p = std::make_unique<Instruction>(Opcode::kParameter, "param." + std::to_string(i),
                                             operandShapes.tupleElement(i));
      p->setParameterNumber(i);
      p->setLoc(raw->loc());
      params.push_back(wrappedBody->add(std::move(p)));
    }
    Instruction* op = wrappedBody->add(*wrapped, std::string(opText.substr(0, opText.size() - 6)),
                                       shape->tupleElement(1), params);
    op->setLoc(raw->loc());
    wrappedBody->setRoot(op);
    attrTarget = op;
    Computation* bodyRaw = wrappedBody.get();
    HLO_RETURN_IF_ERROR(addComputation(std::move(wrappedBody), start));
    raw->attrs().setComputation(AttrKey::kCalls, bodyRaw);
  } else if (wrapped) {
    asyncSugar_.push_back({raw, wrapped, opcodePos});
  } else if (*opcode == Opcode::kAsyncUpdate || *opcode == Opcode::kAsyncDone) {
    asyncSugar_.push_back({raw, std::nullopt, opcodePos});
  }
  HLO_RETURN_IF_ERROR(parseAttributes(raw, attrTarget, body.controls, nested));
  if (!shape) {
    if (wrapped) return c_.errorAt(start, "'" + std::string(opText) + "' needs a shape");
    needsShape_.push_back(raw);
  }
  body.names[raw->name()] = raw;
  comp->add(std::move(instr));
  return raw;
}

Status ModuleParser::parseAttributes(Instruction* instr, Instruction* target,
                                     std::vector<PendingControl>& controls, bool nested) {
  ComputationResolver resolver;
  resolver.byName = [this](std::string_view n, size_t pos) -> StatusOr<Computation*> {
    auto it = computations_.find(std::string(n));
    if (it != computations_.end()) return it->second;
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
      if (!c_.consume('{')) return c_.error("expected '{' after control-predecessors=");
      if (!c_.consume('}')) {
        do {
          c_.skipSpace();
          size_t pos = c_.pos();
          std::string_view n = c_.name();
          if (n.empty()) return c_.error("expected an instruction name");
          controls.push_back({instr, n, pos});
        } while (c_.consume(','));
        if (!c_.consume('}')) return c_.error("expected '}' to close control-predecessors");
      }
      continue;
    }
    std::optional<AttrKey> attrKey = parseAttrKey(key);
    if (!attrKey) return c_.errorAt(keyPos, "unknown attribute '" + std::string(key) + "'");
    if (target->attrs().has(*attrKey))
      return c_.errorAt(keyPos, "attribute '" + std::string(key) + "' is given twice");
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

Status ModuleParser::finish() {
  for (const ComputationFixup& f : fixups_) {
    auto it = computations_.find(std::string(f.name));
    if (it == computations_.end())
      return c_.errorAt(f.pos, "computation '" + std::string(f.name) + "' is not defined");
    f.instr->attrs().find(f.key)->comps[f.index] = it->second;
  }
  // `X-update`/`X-done` (and explicit forms without calls=): take the wrapped
  // computation of the operand, which must wrap the same operation.
  for (const AsyncSugarUse& use : asyncSugar_) {
    if (use.instr->operandCount() < 1)
      return c_.errorAt(use.pos, "'" + use.instr->name() + "' needs the async state as its operand");
    if (!use.wrapped && use.instr->attrs().has(AttrKey::kCalls)) continue;
    Instruction* operand = use.instr->operand(0);
    Opcode op = operand->opcode();
    if (op != Opcode::kAsyncStart && op != Opcode::kAsyncUpdate) {
      if (op == Opcode::kAsyncDone)
        return c_.errorAt(use.pos, "operand of '" + use.instr->name() + "' is already done");
      continue;  // e.g. the state comes in as a parameter
    }
    Computation* body = operand->attrs().getComputation(AttrKey::kCalls);
    if (use.wrapped && body && body->root() && body->root()->opcode() != *use.wrapped)
      return c_.errorAt(use.pos, "'" + use.instr->name() + "' does not match the operation its operand wraps");
    if (body) use.instr->attrs().setComputation(AttrKey::kCalls, body);
  }
  module_->setEntry(entry_ ? entry_ : module_->computations().back().get());
  HLO_RETURN_IF_ERROR(inferShapes());
  for (const Signature& sig : signatures_) {
    Computation* comp = sig.computation;
    // XLA ignores the parameter list of a signature; only the result must agree.
    if (!comp->root()->shape().compatible(sig.result))
      return c_.errorAt(sig.pos, "computation '" + comp->name() + "' returns " +
                                     comp->root()->shape().toString() + " but its signature says " +
                                     sig.result.toString());
  }
  return okStatus();
}

Status ModuleParser::inferShapes() {
  if (needsShape_.empty()) return okStatus();
  std::unordered_set<Instruction*> pending(needsShape_.begin(), needsShape_.end());
  // Post-order over the call graph so callees' root shapes are known first.
  std::vector<Computation*> order;
  std::unordered_set<Computation*> seen;
  std::vector<std::pair<Computation*, size_t>> stack;
  std::vector<std::vector<Computation*>> callees;
  for (const auto& top : module_->computations()) {
    if (seen.count(top.get())) continue;
    seen.insert(top.get());
    auto calleesOf = [](Computation* comp) {
      std::vector<Computation*> out;
      for (const auto& i : comp->instructions())
        for (Computation* callee : i->calledComputations())
          if (callee) out.push_back(callee);
      return out;
    };
    stack.push_back({top.get(), 0});
    callees.push_back(calleesOf(top.get()));
    while (!stack.empty()) {
      auto& [comp, next] = stack.back();
      std::vector<Computation*>& list = callees.back();
      if (next < list.size()) {
        Computation* callee = list[next++];
        if (!seen.count(callee)) {
          seen.insert(callee);
          stack.push_back({callee, 0});
          callees.push_back(calleesOf(callee));
        }
        continue;
      }
      order.push_back(comp);
      stack.pop_back();
      callees.pop_back();
    }
  }
  for (Computation* comp : order) {
    for (const auto& instr : comp->instructions()) {
      if (!pending.count(instr.get())) continue;
      StatusOr<Shape> inferred = inferShape(*instr);
      if (!inferred.ok()) return inferred.status().withLoc(instr->loc());
      instr->setShape(std::move(inferred).value());
    }
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
