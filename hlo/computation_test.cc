// Tests for Computation's list edits: removal in one pass (detach, then
// removeDetached) and topological sorting.
#include "hlo/computation.h"

#include <gtest/gtest.h>

namespace hlo {
namespace {

Shape f32() { return Shape(ElementType::kF32, {4}); }

std::vector<std::string> names(const Computation& c) {
  std::vector<std::string> out;
  for (const auto& i : c.instructions()) out.push_back(i->name());
  return out;
}

TEST(ComputationTest, DetachDropsEdgesAndRemoveDetachedCompactsOnce) {
  Computation c("c");
  auto param = std::make_unique<Instruction>(Opcode::kParameter, "x", f32());
  param->setParameterNumber(0);
  Instruction* x = c.add(std::move(param));
  Instruction* a = c.add(Opcode::kNegate, "a", f32(), {x});
  Instruction* b = c.add(Opcode::kNegate, "b", f32(), {a});
  Instruction* d = c.add(Opcode::kNegate, "d", f32(), {x});
  c.setRoot(d);

  c.detach(b);  // users first, as with remove()
  c.detach(a);
  EXPECT_TRUE(x->users().size() == 1 && x->users()[0] == d);
  EXPECT_TRUE(a->operands().empty());
  EXPECT_EQ(c.instructionCount(), 4);  // still listed, ids unchanged
  EXPECT_EQ(d->id(), 3);

  c.removeDetached();
  EXPECT_EQ(names(c), (std::vector<std::string>{"x", "d"}));
  EXPECT_EQ(d->id(), 1);
  EXPECT_EQ(c.root(), d);
}

TEST(ComputationTest, SortPlacesOperandsFirstAndDropsDetached) {
  Computation c("c");
  auto param = std::make_unique<Instruction>(Opcode::kParameter, "x", f32());
  param->setParameterNumber(0);
  Instruction* x = c.add(std::move(param));
  // `late` is used by `use` but added after it.
  auto late = std::make_unique<Instruction>(Opcode::kNegate, "late", f32());
  Instruction* use = c.add(Opcode::kNegate, "use", f32(), {late.get()});
  Instruction* dead = c.add(Opcode::kNegate, "dead", f32(), {x});
  Instruction* lateRaw = c.add(std::move(late));
  c.addOperand(lateRaw, x);
  c.setRoot(use);
  c.detach(dead);
  ASSERT_TRUE(c.sortTopologically().ok());
  EXPECT_EQ(names(c), (std::vector<std::string>{"x", "late", "use"}));
  for (int k = 0; k < c.instructionCount(); ++k) EXPECT_EQ(c.instructions()[k]->id(), k);
}

TEST(ComputationTest, SortReportsACycleAndKeepsTheList) {
  Computation c("c");
  auto first = std::make_unique<Instruction>(Opcode::kNegate, "p", f32());
  Instruction* q = c.add(Opcode::kNegate, "q", f32(), {first.get()});
  Instruction* p = c.add(std::move(first));
  c.addOperand(p, q);
  Status sorted = c.sortTopologically();
  ASSERT_FALSE(sorted.ok());
  EXPECT_NE(sorted.message().find("cycle"), std::string::npos) << sorted.message();
  EXPECT_EQ(names(c), (std::vector<std::string>{"q", "p"}));
}

}  // namespace
}  // namespace hlo
