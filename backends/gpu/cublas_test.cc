// Which dots one cuBLAS call computes, and how (gemmPlanOf). The call
// itself needs a GPU: the op cases run it there (scripts/gpu-check.sh).
#include "backends/gpu/cublas.h"

#include <string>

#include <gtest/gtest.h>

#include "hlo/computation.h"
#include "parser/parser.h"

namespace hlo::gpu {
namespace {

// The plan of the ENTRY root of a module with parameters `lhs`, `rhs` and
// the dot `dot` (its text after "ROOT d = ").
StatusOr<GemmPlan> planOf(const std::string& lhs, const std::string& rhs, const std::string& dot) {
  auto module = parseModule("HloModule m\nENTRY e {\n  a = " + lhs + " parameter(0)\n  b = " + rhs +
                            " parameter(1)\n  ROOT d = " + dot + "\n}\n");
  if (!module.ok()) return module.status();
  return gemmPlanOf(*(*module)->entry()->root());
}

TEST(GemmPlan, RowMajorOperandsNeedNoTranspose) {
  auto plan = planOf("f32[8,5]", "f32[5,3]", "f32[8,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->batch, 1);
  EXPECT_EQ(plan->m, 8);
  EXPECT_EQ(plan->k, 5);
  EXPECT_EQ(plan->n, 3);
  EXPECT_FALSE(plan->lhsTransposed);
  EXPECT_FALSE(plan->rhsTransposed);
}

TEST(GemmPlan, ContractingFirstOrLastIsATransposedOperand) {
  // lhs [k, m], rhs [n, k]: x^T y^T.
  auto plan = planOf("f32[5,8]", "f32[3,5]", "f32[8,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(plan->lhsTransposed);
  EXPECT_TRUE(plan->rhsTransposed);
  EXPECT_EQ(plan->m, 8);
  EXPECT_EQ(plan->n, 3);
  EXPECT_EQ(plan->k, 5);
}

TEST(GemmPlan, LeadingBatchDimensionsAndGroupsOfDimensions) {
  // [2, 3, 4, 6] x [2, 3, 6, 7]: batch 6, m 4, k 6, n 7.
  auto plan = planOf("bf16[2,3,4,6]", "bf16[2,3,6,7]",
                     "f32[2,3,4,7] dot(a, b), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                     "rhs_contracting_dims={2}");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->batch, 6);
  EXPECT_EQ(plan->m, 4);
  EXPECT_EQ(plan->k, 6);
  EXPECT_EQ(plan->n, 7);
  EXPECT_EQ(plan->resultType, ElementType::kF32);
  // Two contracting dimensions in the same order on both sides: k = 12.
  plan = planOf("f64[4,3,4]", "f64[3,4,5]", "f64[4,5] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->k, 12);
}

TEST(GemmPlan, LayoutsThatNeedACopyAreRefused) {
  // The batch dimension in the middle of the lhs.
  auto plan = planOf("f32[4,2,6]", "f32[2,6,7]",
                     "f32[2,4,7] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={1}");
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("batch dimensions do not lead"), std::string::npos);
  // Contracting dimensions listed in another order than they lie in the lhs.
  plan = planOf("f32[4,3,5]", "f32[5,3,2]", "f32[4,2] dot(a, b), lhs_contracting_dims={2,1}, rhs_contracting_dims={0,1}");
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("lhs is not"), std::string::npos);
}

TEST(GemmPlan, TypesCublasDoesNotMultiplyAreRefused) {
  auto plan = planOf("s32[8,5]", "s32[5,3]", "s32[8,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("cuBLAS multiplies"), std::string::npos);
  plan = planOf("f16[8,5]", "f16[5,3]", "f64[8,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_FALSE(plan.ok());
  plan = planOf("c64[8,5]", "c64[5,3]", "c64[8,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_TRUE(plan.ok());
}

}  // namespace
}  // namespace hlo::gpu
