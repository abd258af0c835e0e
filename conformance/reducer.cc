// Test-case reduction (reducer.h).
//
// An edit is named by where it applies, (computation, instruction) names,
// and made on a fresh copy of the current module, so a rejected edit costs
// nothing to undo. Each sweep walks the instructions from the root up:
// removing what is near the root first drops the most with dce.
#include "conformance/reducer.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hlo/passes/pass.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"

namespace hlo::conformance {
namespace {

// Where an edit applies, by name: it survives the module's copying.
struct Place {
  std::string computation, instruction;
};

enum class EditKind { kRootToOperand, kToOperand, kToZeros, kDropParameter, kUnfuse, kInlineCalls };

struct Edit {
  EditKind kind;
  Place at;  // empty for kInlineCalls, which inlines every call
  int operand = 0;  // kRootToOperand, kToOperand
};

Instruction* locate(Module& module, const Place& at) {
  Computation* c = module.find(at.computation);
  return c ? c->find(at.instruction) : nullptr;
}

// A name in `c` that no instruction has yet.
std::string freshName(const Computation& c, const std::string& base) {
  for (int n = 0;; ++n) {
    std::string name = base + "." + std::to_string(n);
    if (!c.find(name)) return name;
  }
}

// The header's entry_computation_layout is dropped: it would describe the
// ENTRY as it was.
void forgetEntryLayout(Module& module) {
  auto& header = module.headerAttributes();
  std::erase_if(header, [](const auto& kv) { return kv.first == "entry_computation_layout"; });
}

// Makes `edit` on `module`; false when it no longer applies.
bool apply(Module& module, const Edit& edit) {
  if (edit.kind == EditKind::kInlineCalls) return runInline(module);
  Instruction* instr = locate(module, edit.at);
  if (!instr) return false;
  Computation& c = *module.find(edit.at.computation);
  switch (edit.kind) {
    case EditKind::kRootToOperand:
      if (edit.operand >= instr->operandCount()) return false;
      c.setRoot(instr->operand(edit.operand));
      forgetEntryLayout(module);
      return true;
    case EditKind::kToOperand: {
      if (edit.operand >= instr->operandCount()) return false;
      Instruction* to = instr->operand(edit.operand);
      if (!to->shape().compatible(instr->shape())) return false;
      c.replaceAllUses(instr, to);
      return true;
    }
    case EditKind::kToZeros: {
      const Shape& shape = instr->shape();
      if (!shape.isArray()) return false;
      Instruction* zero = c.add(Opcode::kConstant, freshName(c, "zero"), Shape::scalar(shape.type()));
      zero->setLiteral(Literal(Shape::scalar(shape.type())));
      Instruction* zeros = c.add(Opcode::kBroadcast, freshName(c, "zeros"), shape, {zero});
      zeros->attrs().setInts(AttrKey::kDimensions, {});
      c.replaceAllUses(instr, zeros);
      return c.sortTopologically().ok();
    }
    case EditKind::kUnfuse: {
      // The fusion as a call of its computation, inlined: its instructions
      // become the caller's, each open to the edits.
      Computation* body = instr->attrs().getComputation(AttrKey::kCalls);
      if (instr->opcode() != Opcode::kFusion || !body) return false;
      Instruction* call = c.add(Opcode::kCall, freshName(c, "unfused"), instr->shape(), instr->operands());
      call->attrs().setComputation(AttrKey::kToApply, body);
      c.replaceAllUses(instr, call);
      c.remove(instr);
      return c.sortTopologically().ok() && runInline(module);
    }
    case EditKind::kInlineCalls:
      break;  // above: not an instruction's
    case EditKind::kDropParameter: {
      if (instr->opcode() != Opcode::kParameter || !instr->users().empty() || &c != module.entry()) return false;
      int64_t gone = instr->parameterNumber();
      c.remove(instr);
      for (Instruction* p : c.parameters())
        if (p->parameterNumber() > gone) p->setParameterNumber(p->parameterNumber() - 1);
      forgetEntryLayout(module);
      return true;
    }
  }
  return false;
}

std::string keyOf(const Edit& edit) {
  return std::to_string(static_cast<int>(edit.kind)) + "/" + edit.at.computation + "/" + edit.at.instruction + "/" +
         std::to_string(edit.operand);
}

// The edits worth trying on `module`, in the order they are tried.
std::vector<Edit> editsOf(const Module& module) {
  std::vector<Edit> edits;
  const Computation& entry = *module.entry();
  edits.push_back({EditKind::kInlineCalls, {}});  // the whole module
  if (const Instruction* root = entry.root())
    for (int k = 0; k < root->operandCount(); ++k)
      edits.push_back({EditKind::kRootToOperand, {entry.name(), root->name()}, k});
  for (const auto& c : module.computations()) {
    const auto& instrs = c->instructions();
    for (auto it = instrs.rbegin(); it != instrs.rend(); ++it) {
      const Instruction& instr = **it;
      Place at{c->name(), instr.name()};
      if (instr.opcode() == Opcode::kParameter) {
        if (c.get() == &entry && instr.users().empty()) edits.push_back({EditKind::kDropParameter, at});
        continue;
      }
      if (instr.opcode() == Opcode::kFusion) edits.push_back({EditKind::kUnfuse, at});
      for (int k = 0; k < instr.operandCount(); ++k)
        if (instr.operand(k)->shape().compatible(instr.shape())) edits.push_back({EditKind::kToOperand, at, k});
      if (instr.operandCount() > 0 && instr.shape().isArray() && instr.opcode() != Opcode::kBroadcast)
        edits.push_back({EditKind::kToZeros, at});
    }
  }
  return edits;
}

}  // namespace

int64_t instructionCount(const Module& module) {
  int64_t n = 0;
  for (const auto& c : module.computations()) n += c->instructionCount();
  return n;
}

namespace {

// What a kept edit must make smaller: the instructions, less the ENTRY's
// parameters nothing reads (which an edit of their own removes after the
// edit that left them unread).
int64_t sizeOf(const Module& module) {
  int64_t unread = 0;
  for (const Instruction* p : module.entry()->parameters()) unread += p->users().empty() ? 1 : 0;
  return instructionCount(module) - unread;
}

}  // namespace

StatusOr<ReduceResult> reduceModule(const Module& module, const ReduceOptions& options) {
  ReduceResult result;
  result.module = module.clone();
  result.instructionsBefore = instructionCount(module);
  ++result.tests;
  std::string given = printModule(*result.module);
  if (!options.interesting(given)) return errorStatus("reduce: the test does not hold for the module as given");
  int64_t size = sizeOf(*result.module);
  size_t textSize = given.size();
  // Sweeps until one keeps nothing. Within a sweep an edit is tried once:
  // after a kept edit the new module's edits are listed again, less those
  // already tried.
  bool changed = true;
  while (changed) {
    changed = false;
    std::set<std::string> tried;
    for (bool kept = true; kept;) {
      kept = false;
      for (const Edit& edit : editsOf(*result.module)) {
        if (options.maxTests > 0 && result.tests >= options.maxTests) break;
        if (!tried.insert(keyOf(edit)).second) continue;
        std::unique_ptr<Module> candidate = result.module->clone();
        if (!apply(*candidate, edit)) continue;
        runDce(*candidate);
        if (!verify(*candidate).ok()) continue;
        // Kept only when smaller: fewer instructions (sizeOf), or as many in less text.
        std::string text = printModule(*candidate);
        int64_t count = sizeOf(*candidate);
        if (count > size || (count == size && text.size() >= textSize)) continue;
        ++result.tests;
        if (!options.interesting(text)) continue;
        size = count;
        textSize = text.size();
        result.module = std::move(candidate);
        changed = kept = true;
        if (options.progress) options.progress(instructionCount(*result.module), result.tests);
        break;
      }
    }
  }
  result.instructionsAfter = instructionCount(*result.module);
  return result;
}

}  // namespace hlo::conformance
