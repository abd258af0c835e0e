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

enum class EditKind {
  kRootToOperand, kToOperand, kToZeros, kDropParameter, kUnfuse, kInlineCalls,
  kDropRootElement, kBranchToCall, kConstantToZeros, kDropHeaderAttribute, kDropMetadata, kRemoveUnused,
};

struct Edit {
  EditKind kind;
  Place at;  // empty for kInlineCalls and kDropMetadata, which edit every instruction;
             // kDropHeaderAttribute: at.instruction names the attribute
  int operand = 0;  // kRootToOperand, kToOperand, kDropRootElement; kBranchToCall: the branch
};

// Every instruction's metadata and frontend attributes (the source lines
// and op names a front end records), gone; whether any was there.
bool dropMetadata(Module& module) {
  bool any = false;
  for (const auto& c : module.computations())
    for (const auto& instr : c->instructions())
      for (AttrKey key : {AttrKey::kMetadata, AttrKey::kFrontendAttributes})
        if (instr->attrs().has(key)) {
          instr->attrs().erase(key);
          any = true;
        }
  return any;
}

// An instruction whose uses another took, removed even where dce would keep
// it (a custom call that may have side effects): the test decides whether
// it mattered.
void removeBypassed(Computation& c, Instruction* instr) {
  if (instr->users().empty() && instr != c.root() && !instr->hasControlEdges()) c.remove(instr);
}

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
  if (edit.kind == EditKind::kDropMetadata) return dropMetadata(module);
  if (edit.kind == EditKind::kDropHeaderAttribute) {
    auto& header = module.headerAttributes();
    return std::erase_if(header, [&](const auto& kv) { return kv.first == edit.at.instruction; }) > 0;
  }
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
      removeBypassed(c, instr);
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
      removeBypassed(c, instr);
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
    case EditKind::kDropRootElement: {
      // The ENTRY's result tuple less one element.
      if (&c != module.entry() || instr != c.root() || instr->opcode() != Opcode::kTuple ||
          instr->operandCount() < 2 || edit.operand >= instr->operandCount())
        return false;
      std::vector<Instruction*> kept = instr->operands();
      kept.erase(kept.begin() + edit.operand);
      std::vector<Shape> shapes;
      for (const Instruction* k : kept) shapes.push_back(k->shape());
      c.setRoot(c.add(Opcode::kTuple, freshName(c, "fewer"), Shape::tuple(std::move(shapes)), kept));
      forgetEntryLayout(module);
      return true;
    }
    case EditKind::kBranchToCall: {
      // A conditional as if its selector chose branch `operand`: a call of
      // that branch on its operand, inlined.
      if (instr->opcode() != Opcode::kConditional) return false;
      std::vector<Computation*> branches = instr->attrs().conditionalBranches();
      if (edit.operand >= static_cast<int>(branches.size()) || edit.operand + 1 >= instr->operandCount()) return false;
      Instruction* call = c.add(Opcode::kCall, freshName(c, "branch"), instr->shape(), {instr->operand(edit.operand + 1)});
      call->attrs().setComputation(AttrKey::kToApply, branches[edit.operand]);
      c.replaceAllUses(instr, call);
      c.remove(instr);
      return c.sortTopologically().ok() && runInline(module);
    }
    case EditKind::kRemoveUnused:
      // What nothing reads and dce keeps for its side effects (a
      // collective's start and done, a custom call), with what only it read.
      // (An async start goes with its done: the verifier wants the pair.)
      if (!instr->users().empty() || instr == c.root() || instr->hasControlEdges()) return false;
      for (std::vector<Instruction*> gone = {instr}; !gone.empty();) {
        Instruction* next = gone.back();
        gone.pop_back();
        std::vector<Instruction*> operands = next->operands();
        c.remove(next);
        for (Instruction* operand : operands)
          if (operand->users().empty() && operand != c.root() && operand->opcode() != Opcode::kParameter &&
              !operand->hasControlEdges() && std::find(gone.begin(), gone.end(), operand) == gone.end())
            gone.push_back(operand);
      }
      return true;
    case EditKind::kConstantToZeros: {
      // An array constant's values all zero: as many instructions, in less
      // text, and one number fewer to read about.
      if (instr->opcode() != Opcode::kConstant || !instr->shape().isArray() || instr->literal().elided()) return false;
      Literal zeros(instr->shape());
      if (zeros == instr->literal()) return false;
      instr->setLiteral(std::move(zeros));
      return true;
    }
    case EditKind::kInlineCalls:
    case EditKind::kDropMetadata:
    case EditKind::kDropHeaderAttribute:
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
  edits.push_back({EditKind::kDropMetadata, {}});
  for (const auto& [key, value] : module.headerAttributes())
    edits.push_back({EditKind::kDropHeaderAttribute, {"", key}});
  if (const Instruction* root = entry.root()) {
    for (int k = 0; k < root->operandCount(); ++k)
      edits.push_back({EditKind::kRootToOperand, {entry.name(), root->name()}, k});
    if (root->opcode() == Opcode::kTuple && root->operandCount() > 1)
      for (int k = 0; k < root->operandCount(); ++k)
        edits.push_back({EditKind::kDropRootElement, {entry.name(), root->name()}, k});
  }
  for (const auto& c : module.computations()) {
    const auto& instrs = c->instructions();
    for (auto it = instrs.rbegin(); it != instrs.rend(); ++it) {
      const Instruction& instr = **it;
      Place at{c->name(), instr.name()};
      if (instr.opcode() == Opcode::kParameter) {
        if (c.get() == &entry && instr.users().empty()) edits.push_back({EditKind::kDropParameter, at});
        continue;
      }
      if (instr.users().empty() && &instr != c->root()) edits.push_back({EditKind::kRemoveUnused, at});
      if (instr.opcode() == Opcode::kFusion) edits.push_back({EditKind::kUnfuse, at});
      if (instr.opcode() == Opcode::kConditional)
        for (int k = 0; k < static_cast<int>(instr.attrs().conditionalBranches().size()); ++k)
          edits.push_back({EditKind::kBranchToCall, at, k});
      if (instr.opcode() == Opcode::kConstant && instr.shape().isArray())
        edits.push_back({EditKind::kConstantToZeros, at});
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
  const size_t batch = options.interestingEach && options.jobs > 1 ? static_cast<size_t>(options.jobs) : 1;
  // Sweeps until one keeps nothing. Within a sweep an edit is tried once:
  // after a kept edit the new module's edits are listed again, less those
  // already tried.
  bool changed = true;
  while (changed) {
    changed = false;
    std::set<std::string> tried;
    for (bool kept = true; kept;) {
      kept = false;
      // The candidates of this listing that are worth a test, in order,
      // `batch` at a time.
      std::vector<Edit> edits = editsOf(*result.module);
      size_t next = 0;
      while (!kept && next < edits.size()) {
        std::vector<std::unique_ptr<Module>> candidates;
        std::vector<std::string> texts;
        std::vector<int64_t> counts;
        std::vector<size_t> editOf;  // each candidate's position in `edits`
        std::vector<std::pair<size_t, std::string>> marked;  // tried in this batch
        for (; next < edits.size() && candidates.size() < batch; ++next) {
          if (options.maxTests > 0 && result.tests + static_cast<int64_t>(candidates.size()) >= options.maxTests) {
            next = edits.size();
            break;
          }
          std::string key = keyOf(edits[next]);
          if (!tried.insert(key).second) continue;
          marked.emplace_back(next, std::move(key));
          std::unique_ptr<Module> candidate = result.module->clone();
          if (!apply(*candidate, edits[next])) continue;
          runDce(*candidate);
          if (!verify(*candidate).ok()) continue;
          // Kept only when smaller: fewer instructions (sizeOf), or as many in less text.
          std::string text = printModule(*candidate);
          int64_t count = sizeOf(*candidate);
          if (count > size || (count == size && text.size() >= textSize)) continue;
          candidates.push_back(std::move(candidate));
          texts.push_back(std::move(text));
          counts.push_back(count);
          editOf.push_back(next);
        }
        if (candidates.empty()) continue;
        std::vector<bool> verdicts =
            batch > 1 ? options.interestingEach(texts) : std::vector<bool>{options.interesting(texts[0])};
        result.tests += static_cast<int64_t>(candidates.size());
        for (size_t k = 0; k < candidates.size(); ++k) {
          if (!verdicts[k]) continue;
          size = counts[k];
          textSize = texts[k].size();
          result.module = std::move(candidates[k]);
          changed = kept = true;
          if (options.progress) options.progress(instructionCount(*result.module), result.tests);
          // The edits after the kept one were looked at on the module before
          // it, as a single job would not have: they stay untried, for the
          // new module's listing.
          for (const auto& [position, key] : marked)
            if (position > editOf[k]) tried.erase(key);
          break;
        }
      }
    }
  }
  result.instructionsAfter = instructionCount(*result.module);
  return result;
}

}  // namespace hlo::conformance
