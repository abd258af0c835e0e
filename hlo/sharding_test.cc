// Shardings read from their text, and arrays split into partitions' blocks
// and put back together; expected blocks worked out by hand.
#include "hlo/sharding.h"

#include <gtest/gtest.h>

#include "parser/parser.h"

namespace hlo {
namespace {

Literal lit(const std::string& text) {
  auto value = parseLiteral(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status().message();
  return value.ok() ? std::move(value).value() : Literal();
}

Sharding parsed(const std::string& text) {
  auto s = parseSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? std::move(s).value() : Sharding{};
}

TEST(Sharding, ReadsEachForm) {
  Sharding listed = parsed("{devices=[2,1]1,0 metadata={op_name=\"x\"}}");
  EXPECT_EQ(listed.kind, Sharding::Kind::kTiled);
  EXPECT_EQ(listed.tiles, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(listed.devices, (std::vector<int64_t>{1, 0}));
  // iota [[0,1],[2,3]] transposed: 0, 2, 1, 3.
  EXPECT_EQ(parsed("{devices=[2,2]<=[2,2]T(1,0)}").devices, (std::vector<int64_t>{0, 2, 1, 3}));
  Sharding copies = parsed("{devices=[1,2,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(copies.tiles, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(copies.copies, 2);
  EXPECT_EQ(parsed("{maximal device=3}").devices, (std::vector<int64_t>{3}));
  Sharding tuple = parsed("{{replicated}, {devices=[2]0,1}}");
  ASSERT_EQ(tuple.elements.size(), 2u);
  EXPECT_EQ(tuple.elements[0].kind, Sharding::Kind::kReplicated);
  EXPECT_EQ(tuple.elements[1].kind, Sharding::Kind::kTiled);
  EXPECT_FALSE(parseSharding("{manual}").ok());
  EXPECT_FALSE(parseSharding("{devices=[2,2]0,1,2}").ok());
}

TEST(Sharding, SplitsAndAssemblesRows) {
  Sharding s = parsed("{devices=[2,1]1,0}");
  Literal global = lit("f32[4,2] {{0, 1}, {2, 3}, {4, 5}, {6, 7}}");
  Shape block(ElementType::kF32, {2, 2});
  EXPECT_TRUE(isGlobalOf(s, global.shape(), block));
  // Partition 1 holds tile 0 (the first two rows), partition 0 tile 1.
  auto p1 = blockOf(s, global, block, 1);
  auto p0 = blockOf(s, global, block, 0);
  ASSERT_TRUE(p0.ok() && p1.ok());
  EXPECT_EQ(p1->toString(), "f32[2,2] {{0, 1}, {2, 3}}");
  EXPECT_EQ(p0->toString(), "f32[2,2] {{4, 5}, {6, 7}}");
  const Literal* blocks[] = {&*p0, &*p1};
  auto whole = assemble(s, blocks);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->toString(), global.toString());
}

TEST(Sharding, SplitsColumnsWithCopies) {
  // Two column tiles, each held by two partitions: 0,1 the first, 2,3 the second.
  Sharding s = parsed("{devices=[1,2,2]<=[4] last_tile_dim_replicate}");
  Literal global = lit("s32[2,4] {{0, 1, 2, 3}, {4, 5, 6, 7}}");
  Shape block(ElementType::kS32, {2, 2});
  EXPECT_EQ(blockOf(s, global, block, 1)->toString(), "s32[2,2] {{0, 1}, {4, 5}}");
  EXPECT_EQ(blockOf(s, global, block, 2)->toString(), "s32[2,2] {{2, 3}, {6, 7}}");
}

TEST(Sharding, PadsAShortLastTile) {
  // 3 elements over 2 tiles: blocks of 2, the second holding 3 and a zero.
  Sharding s = parsed("{devices=[2]0,1}");
  Literal global = lit("f32[3] {1, 2, 3}");
  Shape block(ElementType::kF32, {2});
  EXPECT_TRUE(isGlobalOf(s, global.shape(), block));
  EXPECT_EQ(blockOf(s, global, block, 1)->toString(), "f32[2] {3, 0}");
  EXPECT_FALSE(isGlobalOf(s, Shape(ElementType::kF32, {5}), block));
}

}  // namespace
}  // namespace hlo
