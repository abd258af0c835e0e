// The HLO module parser: recursive descent over the text, then name
// resolution and the post-parse stage (parser/post_parse.cc).
//
// Algorithm:
//   1. Header: `HloModule name, key=value, ...` (optional) and the stack-frame
//      index sections, checked and kept verbatim (parser/module_header.cc).
//   2. Each computation: `[ENTRY] name [(params) -> shape] { instructions }`.
//      Instructions are created as they are read (instruction_parser.cc);
//      an operand defined earlier is linked at once, the others when the
//      computation closes (uses may precede definitions). Only if some use
//      does precede its definition are the instructions sorted so every
//      operand comes first.
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

#include "parser/module_header.h"
#include "parser/module_parser.h"
#include "parser/shape_parser.h"

namespace hlo {
namespace parse_detail {

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
      std::string_view pname = c_.name(/*digitFirst=*/true);
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

StatusOr<Computation*> ModuleParser::parseInlineComputation(const std::string& caller) {
  if (nesting_ >= kMaxNesting) return c_.error("inline computations nested too deeply");
  size_t start = c_.pos();
  auto comp = std::make_unique<Computation>(generatedName(caller + ".body"));
  comp->setLoc(c_.locAt(start));
  comp->setInline(true);
  // Claim the name now, so a computation inlined inside this one gets another.
  Computation* raw = addGenerated(std::move(comp));
  ++nesting_;
  Body body(raw);
  Status parsed = parseBody(body);
  --nesting_;
  HLO_RETURN_IF_ERROR(parsed);
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
  bool& ordered = body.ordered;
  for (const PendingOperand& p : body.operands) {
    Instruction* operand = body.names.find(p.name);
    if (!operand) return c_.errorAt(p.pos, "use of undefined instruction '" + std::string(p.name) + "'");
    if (!p.gtePath.empty()) {
      HLO_ASSIGN_OR_RETURN(operand, compactGte(body, operand, p));
    }
    std::optional<Shape> declared;
    if (p.declaredShape >= 0) declared = std::move(body.declaredShapes[p.declaredShape]);
    HLO_RETURN_IF_ERROR(linkOperand(body, p.user, operand, declared, p.shapePos));
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

Status ModuleParser::resolveComputationRefs() {
  for (const ComputationFixup& f : fixups_) {
    auto it = written_.find(f.name);
    if (it == written_.end())
      return c_.errorAt(f.pos, "computation '" + std::string(f.name) + "' is not defined");
    f.instr->attrs().find(f.key)->comps[f.index] = it->second;
  }
  return okStatus();
}

}  // namespace parse_detail

StatusOr<std::unique_ptr<Module>> parseModule(std::string_view text) {
  parse_detail::ModuleParser parser(text);
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

StatusOr<Literal> parseLiteralValues(std::string_view text, const Shape& shape) {
  Cursor c(text);
  HLO_ASSIGN_OR_RETURN(Literal lit, parseLiteralValuesAt(c, shape));
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
