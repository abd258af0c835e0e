// Tests for hlo/shape_inference.h. Instructions are built directly; every
// expected shape is worked out by hand from XLA's operation semantics.
#include "hlo/shape_inference.h"

#include <gtest/gtest.h>

#include <memory>
#include <ostream>

#include "hlo/module.h"

namespace hlo {

// gtest prints shapes as HLO text.
void PrintTo(const Shape& s, std::ostream* os) { *os << s.toString(); }

namespace {

Shape arr(ElementType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }
Shape f32(std::vector<int64_t> dims) { return arr(ElementType::kF32, std::move(dims)); }
Shape s32(std::vector<int64_t> dims) { return arr(ElementType::kS32, std::move(dims)); }
constexpr ElementType kF32 = ElementType::kF32;
constexpr ElementType kS32 = ElementType::kS32;
constexpr ElementType kPred = ElementType::kPred;

// Adds parameter `number` of shape `s` to `c`.
Instruction* addParam(Computation* c, const std::string& name, Shape s, int64_t number) {
  auto p = std::make_unique<Instruction>(Opcode::kParameter, name, std::move(s));
  p->setParameterNumber(number);
  return c->add(std::move(p));
}

AttrValue windowOf(std::vector<WindowDim> dims) {
  AttrValue v;
  v.window = std::move(dims);
  return v;
}

// Builds instructions in one computation of one module.
class ShapeInferenceTest : public ::testing::Test {
 protected:
  ShapeInferenceTest() { comp_ = module_.addComputation("entry"); }

  Instruction* param(Shape s) {
    int n = params_++;
    return addParam(comp_, "p" + std::to_string(n), std::move(s), n);
  }
  Instruction* op(Opcode opcode, std::vector<Instruction*> operands, Shape declared = Shape()) {
    return comp_->add(opcode, "x" + std::to_string(++count_), std::move(declared),
                      std::move(operands));
  }
  // A computation (a, b) -> a `binop` b over scalars of `t`.
  Computation* binaryComputation(const std::string& name, ElementType t,
                                 Opcode binop = Opcode::kAdd, int pairs = 1) {
    Computation* c = module_.addComputation(name);
    std::vector<Instruction*> ps;
    for (int i = 0; i < 2 * pairs; ++i) {
      ps.push_back(addParam(c, "a" + std::to_string(i), Shape::scalar(t), i));
    }
    Shape out = binop == Opcode::kCompare ? Shape::scalar(kPred) : Shape::scalar(t);
    c->setRoot(c->add(binop, "r", out, {ps[0], ps[1]}));
    return c;
  }
  // A computation of one parameter `in` returning `root(param)`.
  Computation* unaryComputation(const std::string& name, const Shape& in, Opcode root,
                                const Shape& out) {
    Computation* c = module_.addComputation(name);
    Instruction* p = addParam(c, "q", in, 0);
    c->setRoot(root == Opcode::kParameter ? p : c->add(root, "r", out, {p}));
    return c;
  }

  static Shape infer(const Instruction* i) {
    StatusOr<Shape> s = inferShape(*i);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? *s : Shape();
  }
  static Shape given(const Instruction* i, const Shape& declared) {
    StatusOr<Shape> s = inferShapeGiven(*i, declared);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? *s : Shape();
  }
  static std::string error(const Instruction* i) {
    StatusOr<Shape> s = inferShape(*i);
    return s.ok() ? "no error, got " + s->toString() : s.status().message();
  }

  Module module_;
  Computation* comp_;
  int params_ = 0;
  int count_ = 0;
};

// ---- elementwise -----------------------------------------------------------

TEST_F(ShapeInferenceTest, BinaryKeepsTheOperandShape) {
  Instruction* a = param(f32({2, 3}));
  EXPECT_EQ(infer(op(Opcode::kAdd, {a, a})), f32({2, 3}));
  EXPECT_EQ(infer(op(Opcode::kPower, {a, a})), f32({2, 3}));
}

TEST_F(ShapeInferenceTest, BinaryRejectsMixedTypesAndShapes) {
  Instruction* a = param(f32({2}));
  Instruction* b = param(s32({2}));
  Instruction* c = param(f32({3}));
  EXPECT_EQ(error(op(Opcode::kAdd, {a, b})),
            "add 'x1': operands have different element types f32 and s32");
  EXPECT_NE(error(op(Opcode::kMultiply, {a, c})).find("no implicit broadcast"), std::string::npos);
}

TEST_F(ShapeInferenceTest, BinaryTypeRules) {
  Instruction* f = param(f32({2}));
  Instruction* p = param(arr(kPred, {2}));
  Instruction* i = param(s32({2}));
  EXPECT_NE(error(op(Opcode::kAnd, {f, f})).find("pred or integer"), std::string::npos);
  EXPECT_EQ(infer(op(Opcode::kOr, {p, p})), arr(kPred, {2}));
  EXPECT_NE(error(op(Opcode::kShiftLeft, {f, f})).find("integer operands"), std::string::npos);
  EXPECT_EQ(infer(op(Opcode::kShiftRightLogical, {i, i})), s32({2}));
  EXPECT_NE(error(op(Opcode::kSubtract, {p, p})).find("pred"), std::string::npos);
  EXPECT_NE(error(op(Opcode::kAtan2, {i, i})).find("floating-point"), std::string::npos);
  EXPECT_EQ(infer(op(Opcode::kComplex, {f, f})), arr(ElementType::kC64, {2}));
}

TEST_F(ShapeInferenceTest, MixedFloatPrecisionTakesTheWiderType) {
  Instruction* a = param(f32({2}));
  Instruction* b = param(arr(ElementType::kBF16, {2}));
  EXPECT_EQ(infer(op(Opcode::kAdd, {b, a})), f32({2}));
}

TEST_F(ShapeInferenceTest, CompareGivesPredAndChecksItsType) {
  Instruction* a = param(s32({4}));
  Instruction* cmp = op(Opcode::kCompare, {a, a});
  cmp->attrs().setString(AttrKey::kDirection, "LT");
  EXPECT_EQ(infer(cmp), arr(kPred, {4}));
  cmp->attrs().setString(AttrKey::kType, "SIGNED");
  EXPECT_EQ(infer(cmp), arr(kPred, {4}));
  cmp->attrs().setString(AttrKey::kType, "FLOAT");
  EXPECT_NE(error(cmp).find("expected SIGNED"), std::string::npos);
  cmp->attrs().setString(AttrKey::kType, "SIGNED");
  cmp->attrs().setString(AttrKey::kOrder, "TOTAL");
  EXPECT_EQ(infer(cmp), arr(kPred, {4}));
  cmp->attrs().setString(AttrKey::kOrder, "PARTIAL");
  EXPECT_NE(error(cmp).find("type=SIGNED and order=PARTIAL disagree"), std::string::npos);
  cmp->attrs().setString(AttrKey::kType, "BOGUS");
  EXPECT_NE(error(cmp).find("unknown comparison type 'BOGUS'"), std::string::npos);
}

TEST(ComparisonType, OrderAndLegacyTypeGiveTheSameComparison) {
  Attributes none, total, legacy, partial, weak;
  total.setString(AttrKey::kOrder, "TOTAL");
  legacy.setString(AttrKey::kType, "TOTALORDER");
  partial.setString(AttrKey::kOrder, "PARTIAL");
  weak.setString(AttrKey::kOrder, "WEAK");
  EXPECT_EQ(*comparisonTypeOf(none, ElementType::kF32), ComparisonType::kFloat);
  EXPECT_EQ(*comparisonTypeOf(total, ElementType::kF32), ComparisonType::kTotalOrder);
  EXPECT_EQ(*comparisonTypeOf(legacy, ElementType::kBF16), ComparisonType::kTotalOrder);
  EXPECT_EQ(*comparisonTypeOf(partial, ElementType::kF64), ComparisonType::kFloat);
  EXPECT_EQ(*comparisonTypeOf(total, ElementType::kS8), ComparisonType::kSigned);
  EXPECT_EQ(*comparisonTypeOf(partial, ElementType::kU32), ComparisonType::kUnsigned);
  EXPECT_EQ(*comparisonTypeOf(none, ElementType::kPred), ComparisonType::kUnsigned);
  EXPECT_FALSE(comparisonTypeOf(weak, ElementType::kF32).ok());
}

TEST_F(ShapeInferenceTest, DynamicDimensionsPropagate) {
  Shape dyn = f32({4});
  dyn.setDim(0, 4, /*dynamic=*/true);
  Instruction* a = param(dyn);
  Instruction* b = param(f32({4}));
  Shape out = infer(op(Opcode::kAdd, {b, a}));
  EXPECT_TRUE(out.isDynamicDim(0));
  EXPECT_EQ(out.dim(0), 4);
}

TEST_F(ShapeInferenceTest, UnaryTypeRules) {
  Instruction* c = param(arr(ElementType::kC64, {3}));
  Instruction* f = param(f32({3}));
  Instruction* u = param(arr(ElementType::kU8, {3}));
  EXPECT_EQ(infer(op(Opcode::kAbs, {c})), f32({3}));
  EXPECT_EQ(infer(op(Opcode::kReal, {c})), f32({3}));
  EXPECT_EQ(infer(op(Opcode::kImag, {f})), f32({3}));
  EXPECT_EQ(infer(op(Opcode::kIsFinite, {f})), arr(kPred, {3}));
  EXPECT_EQ(infer(op(Opcode::kPopulationCount, {u})), arr(ElementType::kU8, {3}));
  EXPECT_NE(error(op(Opcode::kNot, {f})).find("pred or integer"), std::string::npos);
  EXPECT_NE(error(op(Opcode::kAbs, {u})).find("signed"), std::string::npos);
  EXPECT_NE(error(op(Opcode::kExp, {u})).find("floating-point or complex"), std::string::npos);
  EXPECT_NE(error(op(Opcode::kFloor, {c})).find("floating-point"), std::string::npos);
}

TEST_F(ShapeInferenceTest, SelectAndClampAcceptScalars) {
  Instruction* pred = param(Shape::scalar(kPred));
  Instruction* x = param(f32({2, 2}));
  Instruction* lo = param(Shape::scalar(kF32));
  EXPECT_EQ(infer(op(Opcode::kSelect, {pred, x, x})), f32({2, 2}));
  EXPECT_EQ(infer(op(Opcode::kClamp, {lo, x, lo})), f32({2, 2}));
  Instruction* badPred = param(arr(kPred, {3}));
  EXPECT_NE(error(op(Opcode::kSelect, {badPred, x, x})).find("predicate"), std::string::npos);
  EXPECT_NE(error(op(Opcode::kSelect, {x, x, x})).find("must be pred"), std::string::npos);
}

TEST_F(ShapeInferenceTest, WrongOperandCount) {
  Instruction* a = param(f32({}));
  EXPECT_EQ(error(op(Opcode::kAdd, {a})), "add 'x1': expected 2 operands, got 1");
}

// ---- ops whose result the text states --------------------------------------

TEST_F(ShapeInferenceTest, NotInferableOpsAskForTheShape) {
  Instruction* a = param(f32({2, 3}));
  EXPECT_EQ(error(op(Opcode::kConvert, {a})), "cannot infer the shape of convert 'x1': write it");
  EXPECT_EQ(error(op(Opcode::kReshape, {a})), "cannot infer the shape of reshape 'x2': write it");
  EXPECT_EQ(error(op(Opcode::kCustomCall, {a})),
            "cannot infer the shape of custom-call 'x3': write it");
  EXPECT_EQ(error(op(Opcode::kIota, {})), "cannot infer the shape of iota 'x4': write it");
}

TEST_F(ShapeInferenceTest, ConvertTakesTheDeclaredType) {
  Instruction* a = param(f32({2, 3}));
  EXPECT_EQ(given(op(Opcode::kConvert, {a}), s32({7})), s32({2, 3}));
}

TEST_F(ShapeInferenceTest, BitcastConvertAddsOrRemovesTheRatioDimension) {
  Instruction* f = param(f32({2}));
  EXPECT_EQ(given(op(Opcode::kBitcastConvert, {f}), arr(ElementType::kU8, {})),
            arr(ElementType::kU8, {2, 4}));
  Instruction* bytes = param(arr(ElementType::kU8, {2, 4}));
  EXPECT_EQ(given(op(Opcode::kBitcastConvert, {bytes}), f32({})), f32({2}));
  Instruction* bad = param(arr(ElementType::kU8, {2, 3}));
  EXPECT_FALSE(inferShapeGiven(*op(Opcode::kBitcastConvert, {bad}), f32({2})).ok());
}

TEST_F(ShapeInferenceTest, BroadcastChecksTheDeclaredShape) {
  Instruction* a = param(f32({3}));
  Instruction* b = op(Opcode::kBroadcast, {a});
  b->attrs().setInts(AttrKey::kDimensions, {1});
  EXPECT_EQ(given(b, f32({2, 3})), f32({2, 3}));
  EXPECT_FALSE(inferShapeGiven(*b, f32({3, 2})).ok());
  EXPECT_FALSE(inferShapeGiven(*b, s32({2, 3})).ok());
}

TEST_F(ShapeInferenceTest, ReshapeKeepsTheElementCount) {
  Instruction* a = param(f32({2, 6}));
  Instruction* r = op(Opcode::kReshape, {a});
  EXPECT_EQ(given(r, f32({3, 4})), f32({3, 4}));
  EXPECT_NE(inferShapeGiven(*r, f32({5})).status().message().find("12 elements"),
            std::string::npos);
}

TEST_F(ShapeInferenceTest, IotaNeedsADimensionInRange) {
  Instruction* i = op(Opcode::kIota, {});
  i->attrs().setInt(AttrKey::kIotaDimension, 1);
  EXPECT_EQ(given(i, s32({4, 5})), s32({4, 5}));
  EXPECT_FALSE(inferShapeGiven(*i, s32({4})).ok());
}

// ---- data movement ---------------------------------------------------------

TEST_F(ShapeInferenceTest, TupleAndGetTupleElement) {
  Instruction* a = param(f32({2}));
  Instruction* b = param(s32({}));
  Instruction* t = op(Opcode::kTuple, {a, b});
  EXPECT_EQ(infer(t), Shape::tuple({f32({2}), s32({})}));
  t->setShape(Shape::tuple({f32({2}), s32({})}));
  Instruction* g = op(Opcode::kGetTupleElement, {t});
  g->attrs().setInt(AttrKey::kIndex, 1);
  EXPECT_EQ(infer(g), s32({}));
  g->attrs().setInt(AttrKey::kIndex, 2);
  EXPECT_NE(error(g).find("out of range"), std::string::npos);
}

TEST_F(ShapeInferenceTest, SliceRoundsUpWithStrides) {
  Instruction* a = param(f32({5, 4}));
  Instruction* s = op(Opcode::kSlice, {a});
  AttrValue v;
  v.slices = {{0, 4, 2}, {1, 4, 1}};  // ceil(4/2)=2, 3
  s->attrs().set(AttrKey::kSlice, v);
  EXPECT_EQ(infer(s), f32({2, 3}));
  v.slices = {{0, 6, 1}, {0, 4, 1}};
  s->attrs().set(AttrKey::kSlice, v);
  EXPECT_NE(error(s).find("out of range"), std::string::npos);
}

TEST_F(ShapeInferenceTest, PadWithNegativeAndInteriorPadding) {
  Instruction* a = param(f32({3, 4}));
  Instruction* zero = param(Shape::scalar(kF32));
  Instruction* p = op(Opcode::kPad, {a, zero});
  AttrValue v;
  v.padding = {{1, 2, 1}, {-1, 0, 0}};  // 3+1+2+2*1=8, 4-1=3
  p->attrs().set(AttrKey::kPadding, v);
  EXPECT_EQ(infer(p), f32({8, 3}));
}

TEST_F(ShapeInferenceTest, ConcatenateAddsTheDimension) {
  Instruction* a = param(f32({2, 3}));
  Instruction* b = param(f32({4, 3}));
  Instruction* c = op(Opcode::kConcatenate, {a, b});
  c->attrs().setInts(AttrKey::kDimensions, {0});
  EXPECT_EQ(infer(c), f32({6, 3}));
  c->attrs().setInts(AttrKey::kDimensions, {1});
  EXPECT_NE(error(c).find("differ in dimension 0"), std::string::npos);
}

TEST_F(ShapeInferenceTest, TransposePermutes) {
  Instruction* a = param(f32({2, 3, 4}));
  Instruction* t = op(Opcode::kTranspose, {a});
  t->attrs().setInts(AttrKey::kDimensions, {2, 0, 1});
  EXPECT_EQ(infer(t), f32({4, 2, 3}));
  t->attrs().setInts(AttrKey::kDimensions, {0, 0, 1});
  EXPECT_NE(error(t).find("permutation"), std::string::npos);
}

TEST_F(ShapeInferenceTest, DynamicSliceAndUpdateSlice) {
  Instruction* a = param(f32({8, 6}));
  Instruction* i = param(s32({}));
  Instruction* ds = op(Opcode::kDynamicSlice, {a, i, i});
  ds->attrs().setInts(AttrKey::kDynamicSliceSizes, {2, 6});
  EXPECT_EQ(infer(ds), f32({2, 6}));
  Instruction* update = param(f32({2, 6}));
  EXPECT_EQ(infer(op(Opcode::kDynamicUpdateSlice, {a, update, i, i})), f32({8, 6}));
  EXPECT_NE(error(op(Opcode::kDynamicUpdateSlice, {a, update, i})).find("2 start indices"),
            std::string::npos);
}

TEST_F(ShapeInferenceTest, SortOfTwoOperandsIsATuple) {
  Instruction* keys = param(f32({5}));
  Instruction* values = param(s32({5}));
  Computation* less = module_.addComputation("less");
  std::vector<Instruction*> ps;
  for (int i = 0; i < 4; ++i) {
    ps.push_back(addParam(less, "c" + std::to_string(i), Shape::scalar(i < 2 ? kF32 : kS32), i));
  }
  less->setRoot(less->add(Opcode::kCompare, "lt", Shape::scalar(kPred), {ps[0], ps[1]}));
  Instruction* s = op(Opcode::kSort, {keys, values});
  s->attrs().setInts(AttrKey::kDimensions, {0});
  s->attrs().setComputation(AttrKey::kToApply, less);
  EXPECT_EQ(infer(s), Shape::tuple({f32({5}), s32({5})}));
}

TEST_F(ShapeInferenceTest, TopKGivesValuesAndIndices) {
  Instruction* a = param(f32({3, 10}));
  Instruction* t = op(Opcode::kTopK, {a});
  t->attrs().setInt(AttrKey::kK, 4);
  EXPECT_EQ(infer(t), Shape::tuple({f32({3, 4}), s32({3, 4})}));
}

TEST_F(ShapeInferenceTest, Gather) {
  // Rows of a [5,10] matrix picked by 3 indices: [3,10].
  Instruction* operand = param(f32({5, 10}));
  Instruction* indices = param(s32({3, 1}));
  Instruction* g = op(Opcode::kGather, {operand, indices});
  g->attrs().setInts(AttrKey::kOffsetDims, {1});
  g->attrs().setInts(AttrKey::kCollapsedSliceDims, {0});
  g->attrs().setInts(AttrKey::kStartIndexMap, {0});
  g->attrs().setInt(AttrKey::kIndexVectorDim, 1);
  g->attrs().setInts(AttrKey::kSliceSizes, {1, 10});
  EXPECT_EQ(infer(g), f32({3, 10}));
  // Without collapsing, each slice keeps its leading 1: [3,1,10].
  g->attrs().setInts(AttrKey::kOffsetDims, {1, 2});
  g->attrs().setInts(AttrKey::kCollapsedSliceDims, {});
  EXPECT_EQ(infer(g), f32({3, 1, 10}));
  g->attrs().setInts(AttrKey::kSliceSizes, {1, 11});
  EXPECT_NE(error(g).find("slice size 11"), std::string::npos);
}

TEST_F(ShapeInferenceTest, Scatter) {
  Instruction* operand = param(f32({5, 10}));
  Instruction* indices = param(s32({3, 1}));
  Instruction* updates = param(f32({3, 10}));
  Instruction* s = op(Opcode::kScatter, {operand, indices, updates});
  s->attrs().setInts(AttrKey::kUpdateWindowDims, {1});
  s->attrs().setInts(AttrKey::kInsertedWindowDims, {0});
  s->attrs().setInts(AttrKey::kScatterDimsToOperandDims, {0});
  s->attrs().setInt(AttrKey::kIndexVectorDim, 1);
  s->attrs().setComputation(AttrKey::kToApply, binaryComputation("add", kF32));
  EXPECT_EQ(infer(s), f32({5, 10}));
  Instruction* wrong = param(f32({4, 10}));
  Instruction* bad = op(Opcode::kScatter, {operand, indices, wrong});
  bad->attrs() = s->attrs();
  EXPECT_NE(error(bad).find("does not match the indices"), std::string::npos);
}

// ---- linear algebra --------------------------------------------------------

TEST_F(ShapeInferenceTest, DotOrdersBatchThenLhsThenRhs) {
  Instruction* lhs = param(f32({5, 2, 3}));
  Instruction* rhs = param(f32({5, 3, 4}));
  Instruction* d = op(Opcode::kDot, {lhs, rhs});
  d->attrs().setInts(AttrKey::kLhsBatchDims, {0});
  d->attrs().setInts(AttrKey::kRhsBatchDims, {0});
  d->attrs().setInts(AttrKey::kLhsContractingDims, {2});
  d->attrs().setInts(AttrKey::kRhsContractingDims, {1});
  EXPECT_EQ(infer(d), f32({5, 2, 4}));
  d->attrs().setInts(AttrKey::kRhsContractingDims, {2});
  EXPECT_NE(error(d).find("contracting dimensions"), std::string::npos);
}

TEST_F(ShapeInferenceTest, DotResultTypeIsTheDeclaredOne) {
  Instruction* a = param(arr(ElementType::kS8, {2, 3}));
  Instruction* b = param(arr(ElementType::kS8, {3}));
  Instruction* d = op(Opcode::kDot, {a, b});
  d->attrs().setInts(AttrKey::kLhsContractingDims, {1});
  d->attrs().setInts(AttrKey::kRhsContractingDims, {0});
  EXPECT_EQ(infer(d), arr(ElementType::kS8, {2}));
  EXPECT_EQ(given(d, s32({2})), s32({2}));
}

TEST_F(ShapeInferenceTest, RaggedDotWithRaggedRows) {
  // [m=6,k=4] x [g=3,k=4,n=5] with 3 groups of rows: [6,5].
  Instruction* lhs = param(f32({6, 4}));
  Instruction* rhs = param(f32({3, 4, 5}));
  Instruction* groups = param(s32({3}));
  Instruction* d = op(Opcode::kRaggedDot, {lhs, rhs, groups});
  d->attrs().setInts(AttrKey::kLhsContractingDims, {1});
  d->attrs().setInts(AttrKey::kRhsContractingDims, {1});
  d->attrs().setInts(AttrKey::kLhsRaggedDims, {0});
  d->attrs().setInts(AttrKey::kRhsGroupDims, {0});
  EXPECT_EQ(infer(d), f32({6, 5}));
  // Ragged contracting dimension: a leading group dimension, no rhs group.
  Instruction* rhs2 = param(f32({4, 5}));
  Instruction* d2 = op(Opcode::kRaggedDot, {lhs, rhs2, groups});
  d2->attrs() = d->attrs();
  d2->attrs().setInts(AttrKey::kRhsContractingDims, {0});
  d2->attrs().setInts(AttrKey::kLhsRaggedDims, {1});
  d2->attrs().setInts(AttrKey::kRhsGroupDims, {});
  EXPECT_EQ(infer(d2), f32({3, 6, 5}));
}

class ConvolutionTest : public ShapeInferenceTest {
 protected:
  // NHWC input, HWIO kernel, NHWC output: dim_labels=b01f_01io->b01f.
  Instruction* conv(Instruction* in, Instruction* kernel, std::vector<WindowDim> window) {
    Instruction* c = op(Opcode::kConvolution, {in, kernel});
    AttrValue labels;
    labels.conv = ConvDims{0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
    c->attrs().set(AttrKey::kDimLabels, labels);
    c->attrs().set(AttrKey::kWindow, windowOf(std::move(window)));
    return c;
  }
};

TEST_F(ConvolutionTest, SamePaddingKeepsTheSpatialSize) {
  Instruction* in = param(f32({1, 5, 5, 2}));
  Instruction* kernel = param(f32({3, 3, 2, 4}));
  WindowDim w{3, 1, 1, 1, 1, 1, false};
  EXPECT_EQ(infer(conv(in, kernel, {w, w})), f32({1, 5, 5, 4}));
}

TEST_F(ConvolutionTest, StrideAndDilation) {
  Instruction* in = param(f32({2, 7, 7, 2}));
  Instruction* kernel = param(f32({3, 3, 2, 8}));
  WindowDim strided{3, 2, 0, 0, 1, 1, false};  // (7-3)/2+1 = 3
  WindowDim dilated{3, 1, 0, 0, 1, 2, false};  // window spans 5: 7-5+1 = 3
  WindowDim lhsDilated{3, 1, 0, 0, 2, 1, false};  // base spans 13: 13-3+1 = 11
  EXPECT_EQ(infer(conv(in, kernel, {strided, dilated})), f32({2, 3, 3, 8}));
  EXPECT_EQ(infer(conv(in, kernel, {lhsDilated, strided})), f32({2, 11, 3, 8}));
}

TEST_F(ConvolutionTest, FeatureGroups) {
  // Depthwise: 4 input features in 4 groups, kernel input features 1.
  Instruction* in = param(f32({1, 5, 5, 4}));
  Instruction* kernel = param(f32({3, 3, 1, 4}));
  WindowDim w{3, 1, 0, 0, 1, 1, false};
  Instruction* c = conv(in, kernel, {w, w});
  EXPECT_NE(error(c).find("feature_group_count"), std::string::npos);
  c->attrs().setInt(AttrKey::kFeatureGroupCount, 4);
  EXPECT_EQ(infer(c), f32({1, 3, 3, 4}));
}

TEST_F(ShapeInferenceTest, FftLengths) {
  Instruction* real = param(f32({3, 8}));
  Instruction* f = op(Opcode::kFft, {real});
  f->attrs().setString(AttrKey::kFftType, "RFFT");
  f->attrs().setInts(AttrKey::kFftLength, {8});
  EXPECT_EQ(infer(f), arr(ElementType::kC64, {3, 5}));
  Instruction* spectrum = param(arr(ElementType::kC64, {3, 5}));
  Instruction* g = op(Opcode::kFft, {spectrum});
  g->attrs().setString(AttrKey::kFftType, "IRFFT");
  g->attrs().setInts(AttrKey::kFftLength, {8});
  EXPECT_EQ(infer(g), f32({3, 8}));
  g->attrs().setString(AttrKey::kFftType, "FFT");
  EXPECT_EQ(infer(g), arr(ElementType::kC64, {3, 5}));
}

TEST_F(ShapeInferenceTest, TriangularSolveAndCholesky) {
  Instruction* a = param(f32({2, 4, 4}));
  Instruction* b = param(f32({2, 4, 3}));
  Instruction* t = op(Opcode::kTriangularSolve, {a, b});
  t->attrs().setBool(AttrKey::kLeftSide, true);
  EXPECT_EQ(infer(t), f32({2, 4, 3}));
  t->attrs().setBool(AttrKey::kLeftSide, false);  // b's minor dimension 3 != 4
  EXPECT_NE(error(t).find("shared dimension"), std::string::npos);
  EXPECT_EQ(infer(op(Opcode::kCholesky, {a})), f32({2, 4, 4}));
  EXPECT_NE(error(op(Opcode::kCholesky, {b})).find("square"), std::string::npos);
}

TEST_F(ShapeInferenceTest, BatchNormTraining) {
  Instruction* x = param(f32({8, 4, 4, 3}));
  Instruction* scale = param(f32({3}));
  Instruction* bn = op(Opcode::kBatchNormTraining, {x, scale, scale});
  bn->attrs().setInt(AttrKey::kFeatureIndex, 3);
  EXPECT_EQ(infer(bn), Shape::tuple({f32({8, 4, 4, 3}), f32({3}), f32({3})}));
  bn->attrs().setInt(AttrKey::kFeatureIndex, 1);
  EXPECT_NE(error(bn).find("feature count"), std::string::npos);
}

// ---- reductions ------------------------------------------------------------

TEST_F(ShapeInferenceTest, ReduceRemovesDimensions) {
  Instruction* x = param(f32({2, 3, 4}));
  Instruction* zero = param(Shape::scalar(kF32));
  Instruction* r = op(Opcode::kReduce, {x, zero});
  r->attrs().setInts(AttrKey::kDimensions, {1});
  r->attrs().setComputation(AttrKey::kToApply, binaryComputation("add", kF32));
  EXPECT_EQ(infer(r), f32({2, 4}));
  r->attrs().setComputation(AttrKey::kToApply, binaryComputation("iadd", kS32));
  EXPECT_NE(error(r).find("reducer 'iadd'"), std::string::npos);
}

TEST_F(ShapeInferenceTest, VariadicReduceIsATuple) {
  Instruction* x = param(f32({2, 3}));
  Instruction* i = param(s32({2, 3}));
  Instruction* fz = param(Shape::scalar(kF32));
  Instruction* iz = param(Shape::scalar(kS32));
  Computation* argmax = module_.addComputation("argmax");
  std::vector<Instruction*> ps;
  for (int k = 0; k < 4; ++k) {
    Shape s = Shape::scalar(k % 2 == 0 ? kF32 : kS32);
    ps.push_back(addParam(argmax, "v" + std::to_string(k), s, k));
  }
  argmax->setRoot(argmax->add(Opcode::kTuple, "t",
                              Shape::tuple({Shape::scalar(kF32), Shape::scalar(kS32)}),
                              {ps[0], ps[1]}));
  Instruction* r = op(Opcode::kReduce, {x, i, fz, iz});
  r->attrs().setInts(AttrKey::kDimensions, {0, 1});
  r->attrs().setComputation(AttrKey::kToApply, argmax);
  // The reducer's parameters are (acc0, acc1, in0, in1): f32, s32, f32, s32.
  EXPECT_EQ(infer(r), Shape::tuple({f32({}), s32({})}));
}

TEST_F(ShapeInferenceTest, ReduceWindowAndSelectAndScatter) {
  Instruction* x = param(f32({4, 6}));
  Instruction* zero = param(Shape::scalar(kF32));
  Instruction* rw = op(Opcode::kReduceWindow, {x, zero});
  WindowDim w{2, 2, 0, 0, 1, 1, false};
  rw->attrs().set(AttrKey::kWindow, windowOf({w, w}));
  rw->attrs().setComputation(AttrKey::kToApply, binaryComputation("add", kF32));
  EXPECT_EQ(infer(rw), f32({2, 3}));

  Instruction* source = param(f32({2, 3}));
  Instruction* ss = op(Opcode::kSelectAndScatter, {x, source, zero});
  ss->attrs().set(AttrKey::kWindow, windowOf({w, w}));
  ss->attrs().setComputation(AttrKey::kSelect,
                             binaryComputation("ge", kF32, Opcode::kCompare));
  ss->attrs().setComputation(AttrKey::kScatter, binaryComputation("add2", kF32));
  EXPECT_EQ(infer(ss), f32({4, 6}));
}

TEST_F(ShapeInferenceTest, MapAppliesAScalarComputation) {
  Instruction* x = param(f32({3}));
  Instruction* m = op(Opcode::kMap, {x, x});
  m->attrs().setComputation(AttrKey::kToApply, binaryComputation("mul", kF32, Opcode::kMultiply));
  EXPECT_EQ(infer(m), f32({3}));
}

// ---- control flow ----------------------------------------------------------

TEST_F(ShapeInferenceTest, CallWhileConditional) {
  Shape state = Shape::tuple({s32({}), f32({2})});
  Instruction* init = param(state);
  Computation* body = unaryComputation("body", state, Opcode::kParameter, state);
  Computation* cond =
      unaryComputation("cond", state, Opcode::kGetTupleElement, Shape::scalar(kPred));
  Instruction* w = op(Opcode::kWhile, {init});
  w->attrs().setComputation(AttrKey::kCondition, cond);
  w->attrs().setComputation(AttrKey::kBody, body);
  EXPECT_EQ(infer(w), state);

  Instruction* c = op(Opcode::kCall, {init});
  c->attrs().setComputation(AttrKey::kToApply, body);
  EXPECT_EQ(infer(c), state);

  Instruction* p = param(Shape::scalar(kPred));
  Instruction* k = op(Opcode::kConditional, {p, init, init});
  k->attrs().setComputation(AttrKey::kTrueComputation, body);
  k->attrs().setComputation(AttrKey::kFalseComputation, body);
  EXPECT_EQ(infer(k), state);
  Instruction* bad = op(Opcode::kConditional, {p, init});
  bad->attrs() = k->attrs();
  EXPECT_NE(error(bad).find("one operand per branch"), std::string::npos);
}

TEST_F(ShapeInferenceTest, WhileConditionMustReturnPred) {
  Instruction* init = param(f32({}));
  Computation* body = unaryComputation("body", f32({}), Opcode::kNegate, f32({}));
  Instruction* w = op(Opcode::kWhile, {init});
  w->attrs().setComputation(AttrKey::kCondition, body);
  w->attrs().setComputation(AttrKey::kBody, body);
  EXPECT_NE(error(w).find("must return pred[]"), std::string::npos);
}

TEST_F(ShapeInferenceTest, AsyncStartWrapsOperandsAndResult) {
  Instruction* x = param(f32({4}));
  Computation* wrapped = unaryComputation("wrapped", f32({4}), Opcode::kNegate, f32({4}));
  Instruction* start = op(Opcode::kAsyncStart, {x});
  start->attrs().setComputation(AttrKey::kCalls, wrapped);
  EXPECT_EQ(infer(start), Shape::tuple({Shape::tuple({f32({4})}), f32({4})}));
  Shape withContext = Shape::tuple({Shape::tuple({f32({4})}), f32({4}), s32({})});
  EXPECT_EQ(given(start, withContext), withContext);
  start->setShape(withContext);
  Instruction* done = op(Opcode::kAsyncDone, {start});
  EXPECT_EQ(infer(done), f32({4}));
}

TEST_F(ShapeInferenceTest, TokensAndSideEffects) {
  Instruction* token = op(Opcode::kAfterAll, {});
  EXPECT_EQ(infer(token), Shape::token());
  token->setShape(Shape::token());
  Instruction* x = param(f32({2}));
  EXPECT_EQ(infer(op(Opcode::kSend, {x, token})),
            Shape::tuple({f32({2}), arr(ElementType::kU32, {}), Shape::token()}));
  EXPECT_EQ(infer(op(Opcode::kOutfeed, {x, token})), Shape::token());
  EXPECT_EQ(infer(op(Opcode::kPartitionId, {})), arr(ElementType::kU32, {}));
  EXPECT_EQ(infer(op(Opcode::kCopyStart, {x})),
            Shape::tuple({f32({2}), f32({2}), arr(ElementType::kU32, {})}));
  EXPECT_NE(error(op(Opcode::kInfeed, {x})).find("must be a token"), std::string::npos);
}

// ---- collectives -----------------------------------------------------------

TEST_F(ShapeInferenceTest, CollectivesWithReplicaGroups) {
  AttrValue groups;
  groups.intLists = {{0, 1}, {2, 3}};
  Instruction* x = param(f32({2, 3}));
  Instruction* ag = op(Opcode::kAllGather, {x});
  ag->attrs().setInts(AttrKey::kDimensions, {0});
  ag->attrs().set(AttrKey::kReplicaGroups, groups);
  EXPECT_EQ(infer(ag), f32({4, 3}));

  Instruction* rs = op(Opcode::kReduceScatter, {x});
  rs->attrs() = ag->attrs();
  rs->attrs().setComputation(AttrKey::kToApply, binaryComputation("add", kF32));
  EXPECT_EQ(infer(rs), f32({1, 3}));

  Instruction* ar = op(Opcode::kAllReduce, {x, x});
  ar->attrs().setComputation(AttrKey::kToApply, binaryComputation("add2", kF32));
  EXPECT_EQ(infer(ar), Shape::tuple({f32({2, 3}), f32({2, 3})}));

  // Without replica groups the participant count is unknown: only the
  // declared result says it.
  Instruction* ag2 = op(Opcode::kAllGather, {x});
  ag2->attrs().setInts(AttrKey::kDimensions, {1});
  EXPECT_EQ(error(ag2), "cannot infer the shape of all-gather 'x4': write it");
  EXPECT_EQ(given(ag2, f32({2, 24})), f32({2, 24}));

  groups.intLists = {{0, 1}, {1, 2}};
  ag->attrs().set(AttrKey::kReplicaGroups, groups);
  EXPECT_NE(error(ag).find("once"), std::string::npos);
}

TEST_F(ShapeInferenceTest, CollectivePermute) {
  Instruction* x = param(f32({8}));
  Instruction* cp = op(Opcode::kCollectivePermute, {x});
  AttrValue pairs;
  pairs.intLists = {{0, 1}, {1, 0}};
  cp->attrs().set(AttrKey::kSourceTargetPairs, pairs);
  EXPECT_EQ(infer(cp), f32({8}));
  Instruction* start = op(Opcode::kCollectivePermuteStart, {x});
  start->attrs() = cp->attrs();
  EXPECT_EQ(infer(start), Shape::tuple({f32({8}), f32({8})}));
  pairs.intLists = {{0, 1}, {2, 1}};
  cp->attrs().set(AttrKey::kSourceTargetPairs, pairs);
  EXPECT_NE(error(cp).find("target 1 appears twice"), std::string::npos);
}

}  // namespace
}  // namespace hlo
