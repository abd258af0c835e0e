// A pass of one's own (docs/tutorial/08-your-pass.md): power(x, 2) as
// multiply(x, x), which XLA's algebraic simplifier does too. A multiply costs
// one instruction; pow is a call of the C library.
//
// The program around it is what the toolchain does for every pass: parse
// and verify the module, run the pass, verify again, print what changed,
// and run the interpreter before and after on the same seeded inputs, so a
// pass that changes a result is caught at once (hlo-opt --bisect and the
// pass corpus do this for the registered passes).
#include <cstdio>

#include "hlo/passes/diff.h"
#include "hlo/passes/pass_util.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "parser/load_module.h"

namespace hlo {
namespace {

// Whether `i` is the constant 2: a scalar, or a broadcast of one.
bool isTwo(const Instruction& i) {
  if (i.opcode() == Opcode::kBroadcast) return isTwo(*i.operand(0));
  return i.opcode() == Opcode::kConstant && i.hasLiteral() && i.shape().isArray() && i.shape().rank() == 0 &&
         isFloat(i.shape().type()) && i.literal().toDouble(0) == 2.0;
}

}  // namespace

// The pass: a plain function that rewrites the module in place and says
// whether it changed anything, as every pass in hlo/passes/ does.
bool runSquareToMultiply(Module& module) {
  bool changed = false;
  SideEffects effects;
  for (const auto& comp : module.computations()) {
    // 1. Find the squares first: adding instructions while walking the
    //    list would change the list being walked.
    std::vector<Instruction*> squares;
    for (const auto& i : comp->instructions())
      if (i->opcode() == Opcode::kPower && isTwo(*i->operand(1)) && !i->hasControlEdges()) squares.push_back(i.get());
    // 2. Replace each by a multiply of its base with itself.
    NameUniquer names(*comp);
    for (Instruction* square : squares) {
      Instruction* x = square->operand(0);
      Instruction* product = comp->add(Opcode::kMultiply, names.make("multiply"), square->shape(), {x, x});
      comp->replaceAllUses(square, product);
    }
    if (squares.empty()) continue;
    // 3. Drop the powers and the constants only they read, and put the new
    //    instructions after their operands, as the text must list them.
    removeDeadChains(*comp, squares, effects);
    if (!comp->sortTopologically().ok()) continue;
    changed = true;
  }
  return changed;
}

}  // namespace hlo

int main(int argc, char** argv) {
  using namespace hlo;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.hlo\n", argv[0]);
    return 2;
  }
  auto loaded = loadModule(argv[1]);
  if (!loaded.ok()) return std::fputs(loaded.status().message().c_str(), stderr), 1;
  Module& module = *loaded->module;

  std::vector<Literal> inputs = interp::randomArguments(*module.entry(), /*seed=*/0);
  StatusOr<Literal> before = interp::evaluate(module, inputs);
  const std::string printedBefore = printModule(module);
  bool changed = runSquareToMultiply(module);
  if (Status ok = verify(module); !ok.ok())
    return std::fprintf(stderr, "the pass broke the module: %s\n", ok.message().c_str()), 1;
  std::fputs(unifiedDiff(printedBefore, printModule(module), "before", "after square-to-multiply").c_str(), stdout);
  StatusOr<Literal> after = interp::evaluate(module, inputs);
  if (!before.ok() || !after.ok()) return std::fprintf(stderr, "the interpreter failed\n"), 1;
  const bool same = *before == *after;
  std::printf("changed: %s; interpreter before and after (seed 0): %s\n", changed ? "yes" : "no",
              same ? "the same results" : "DIFFERENT results");
  return same ? 0 : 1;
}
