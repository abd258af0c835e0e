// Module statistics: counts, fusion sizes, kernel traffic and buffer bytes.
#include "hlo/passes/stats.h"

#include <cstdio>
#include <unordered_set>

#include "hlo/passes/buffer_assignment.h"

namespace hlo {
namespace {

double shapeBytes(const Shape& shape) {
  if (shape.isTuple()) {
    double sum = 0;
    for (const Shape& e : shape.tupleElements()) sum += shapeBytes(e);
    return sum;
  }
  if (!shape.isArray()) return 0;
  double n = storageBytes(shape.type());
  for (int64_t d : shape.dims()) n *= static_cast<double>(d > 0 ? d : 0);
  return n;
}

bool runsAsProgram(Opcode op) {
  return op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall;
}

// Whether an instruction moves no data of its own (the model in stats.h).
bool movesNothing(Opcode op) {
  return op == Opcode::kParameter || op == Opcode::kConstant || op == Opcode::kTuple ||
         op == Opcode::kGetTupleElement || op == Opcode::kBitcast ||
         op == Opcode::kOptimizationBarrier || op == Opcode::kDomain ||
         op == Opcode::kAddDependency || op == Opcode::kAfterAll || runsAsProgram(op);
}

// ENTRY and what while, conditional and call run, each once.
std::vector<const Computation*> programComputations(const Module& module) {
  std::vector<const Computation*> out, stack;
  std::unordered_set<const Computation*> seen;
  if (module.entry()) stack.push_back(module.entry());
  while (!stack.empty()) {
    const Computation* c = stack.back();
    stack.pop_back();
    if (!c || !seen.insert(c).second) continue;
    out.push_back(c);
    for (const auto& i : c->instructions())
      if (runsAsProgram(i->opcode()))
        for (const Computation* callee : i->calledComputations()) stack.push_back(callee);
  }
  return out;
}

// "3-4" for the power-of-two bucket holding n.
std::string bucketOf(int64_t n) {
  if (n <= 2) return std::to_string(n);
  int64_t high = 2;
  while (high < n) high *= 2;
  return std::to_string(high / 2 + 1) + "-" + std::to_string(high);
}

}  // namespace

ModuleStats moduleStats(const Module& module) {
  ModuleStats stats;
  for (const auto& comp : module.computations()) {
    ++stats.computations;
    for (const auto& instr : comp->instructions()) {
      ++stats.instructions;
      ++stats.perOpcode[std::string(opcodeName(instr->opcode()))];
      const Computation* body = instr->opcode() == Opcode::kFusion
                                    ? instr->attrs().getComputation(AttrKey::kCalls)
                                    : nullptr;
      if (body) stats.fusionSizes.push_back(body->instructionCount() - body->parameterCount());
    }
  }
  for (const Computation* comp : programComputations(module))
    for (const auto& instr : comp->instructions()) {
      ++stats.programInstructions;
      if (opcodeCategory(instr->opcode()) == OpCategory::kElementwise) ++stats.elementwise;
      if (movesNothing(instr->opcode())) continue;
      std::unordered_set<const Instruction*> read;  // an operand twice is read once
      for (const Instruction* op : instr->operands())
        if (read.insert(op).second) stats.bytesRead += shapeBytes(op->shape());
      stats.bytesWritten += shapeBytes(instr->shape());
    }
  if (auto buffers = assignBuffers(module); buffers.ok()) {
    stats.arenaBytes = buffers->arenaBytes();
    stats.peakBytes = buffers->peakBytes();
    stats.noReuseBytes = buffers->noReuseBytes();
  }
  return stats;
}

bool elementwiseHeavy(const ModuleStats& stats) {
  return stats.elementwise >= 2 && 2 * stats.elementwise >= stats.programInstructions;
}

std::string formatStats(std::string_view moduleName, const ModuleStats& before,
                        const ModuleStats& after) {
  char line[160];
  std::string out = "stats for module '" + std::string(moduleName) + "':\n";
  std::snprintf(line, sizeof line, "  %-32s %14s %14s\n", "", "before", "after");
  out += line;
  auto row = [&](const std::string& name, double b, double a) {
    auto text = [](double v) { return v < 0 ? std::string("-") : std::to_string(static_cast<long long>(v)); };
    std::snprintf(line, sizeof line, "  %-32s %14s %14s\n", name.c_str(), text(b).c_str(),
                  text(a).c_str());
    out += line;
  };
  row("computations", before.computations, after.computations);
  row("instructions", before.instructions, after.instructions);
  std::map<std::string, std::pair<int64_t, int64_t>> rows;
  for (const auto& [name, n] : before.perOpcode) rows[name].first = n;
  for (const auto& [name, n] : after.perOpcode) rows[name].second = n;
  for (const auto& [name, counts] : rows) row("  " + name, counts.first, counts.second);

  row("fusions", static_cast<double>(before.fusionSizes.size()), static_cast<double>(after.fusionSizes.size()));
  // By size, in power-of-two buckets, smallest first.
  std::map<int64_t, std::pair<std::string, std::pair<int64_t, int64_t>>> buckets;
  auto count = [&](const std::vector<int64_t>& sizes, bool isAfter) {
    for (int64_t n : sizes) {
      int64_t key = n <= 0 ? 0 : 1;
      while (key < n) key *= 2;
      auto& [label, counts] = buckets[key];
      label = bucketOf(n);
      ++(isAfter ? counts.second : counts.first);
    }
  };
  count(before.fusionSizes, false);
  count(after.fusionSizes, true);
  for (const auto& [key, bucket] : buckets)
    row("  of " + bucket.first + " instructions", bucket.second.first, bucket.second.second);
  row("kernel bytes read", before.bytesRead, after.bytesRead);
  row("kernel bytes written", before.bytesWritten, after.bytesWritten);
  row("kernel bytes read+written", before.bytesRead + before.bytesWritten,
      after.bytesRead + after.bytesWritten);
  row("buffer peak bytes (reuse)", before.peakBytes, after.peakBytes);
  row("buffer arena bytes (reuse)", before.arenaBytes, after.arenaBytes);
  row("buffer bytes without reuse", before.noReuseBytes, after.noReuseBytes);
  return out;
}

}  // namespace hlo
