// A planted bad pass, and bisection finding it (docs/tutorial/06-yardstick.md).
//
// The pass is a rewrite compilers are tempted by: x / c as x * (1/c), since
// a multiply is several times cheaper than a divide. It is exact only when
// 1/c is: for c a power of two. For c = 10, 1/c rounds, and x * round(1/10)
// then rounds again: two roundings where the divide has one, so some
// results move by an ulp. XLA does it only under fast-math flags.
//
// The program plants the pass in the CPU pipeline, after the first
// `simplify`, and bisects: the interpreter evaluates the module before the
// passes and after each, on the same seeded inputs, and the first pass whose
// module computes something else is named, with its diff.
#include <cstdio>
#include <vector>

#include "conformance/bisect.h"
#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"
#include "parser/load_module.h"

namespace hlo {
namespace {

// The f32 constant `i` stands for (a scalar, or a broadcast of one), if any.
std::optional<float> constantValue(const Instruction& i) {
  if (i.opcode() == Opcode::kBroadcast) return constantValue(*i.operand(0));
  if (i.opcode() != Opcode::kConstant || !i.hasLiteral() || !i.shape().isArray() || i.shape().rank() != 0 ||
      i.shape().type() != ElementType::kF32)
    return std::nullopt;
  return static_cast<float>(i.literal().toDouble(0));
}

// The planted pass: divide(x, c) as multiply(x, broadcast(1/c)), for f32.
bool runReciprocalMultiply(Module& module) {
  bool changed = false;
  SideEffects effects;
  for (const auto& comp : module.computations()) {
    std::vector<Instruction*> divides;
    for (const auto& i : comp->instructions())
      if (i->opcode() == Opcode::kDivide && i->shape().type() == ElementType::kF32 &&
          constantValue(*i->operand(1)) && !i->hasControlEdges())
        divides.push_back(i.get());
    if (divides.empty()) continue;
    NameUniquer names(*comp);
    for (Instruction* divide : divides) {
      Literal reciprocal(Shape::scalar(ElementType::kF32));
      reciprocal.data<float>()[0] = 1.0f / *constantValue(*divide->operand(1));
      Instruction* r = comp->add(Opcode::kConstant, names.make("reciprocal"), reciprocal.shape(), {});
      r->setLiteral(std::move(reciprocal));
      Instruction* rs = comp->add(Opcode::kBroadcast, names.make("reciprocals"), divide->shape(), {r});
      rs->attrs().setInts(AttrKey::kDimensions, {});
      Instruction* product =
          comp->add(Opcode::kMultiply, names.make("product"), divide->shape(), {divide->operand(0), rs});
      comp->replaceAllUses(divide, product);
    }
    removeDeadChains(*comp, divides, effects);
    if (!comp->sortTopologically().ok()) continue;
    changed = true;
  }
  return changed;
}

}  // namespace
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

  // The CPU pipeline with the planted pass after its first simplify.
  std::vector<PassInfo> passes;
  bool planted = false;
  const std::vector<std::string> cpu = *pipelineFor("cpu");
  for (const std::string& name : cpu) {
    passes.push_back(*findPass(name));
    if (name == "simplify" && !planted) {
      passes.push_back({"reciprocal-multiply", runReciprocalMultiply, "x / c as x * (1/c)"});
      planted = true;
    }
  }
  auto finding = bisectPasses(module, passes, /*seed=*/0);
  if (!finding.ok()) return std::fprintf(stderr, "%s\n", finding.status().message().c_str()), 1;
  std::fputs(finding->report.c_str(), stdout);
  return finding->badPass ? 1 : 0;
}
