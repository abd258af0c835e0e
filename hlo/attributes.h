// Instruction attributes (`dimensions={0}`, `window={size=3x3}`, ...), one
// typed value per key of hlo/attributes.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hlo/shape.h"
#include "hlo/status.h"

namespace hlo {

class Computation;

enum class AttrKey : uint8_t {
#define HLO_ATTR(Enum, key, kind) Enum,
#include "hlo/attributes.def"
#undef HLO_ATTR
};

// How a value is written in text and stored in AttrValue.
enum class AttrKind : uint8_t {
  kInt,              // 3                       -> i
  kFloat,            // 0.001                   -> f
  kBool,             // true                    -> b
  kString,           // "text" (unescaped)      -> s
  kIdent,            // EQ, kLoop               -> s
  kIdentList,        // {default, high}         -> idents
  kIntList,          // {1,0}                   -> ints (or intLists when nested)
  kIntListList,      // {{0,1},{1,0}}           -> intLists
  kSlice,            // {[0:2], [1:8:2]}        -> slices
  kPadding,          // 0_0x1_2_1               -> padding
  kWindow,           // {size=3x3 pad=1_1x1_1}  -> window
  kDimLabels,        // b01f_01io->b01f         -> conv
  kComputation,      // %add                    -> comps[0]
  kComputationList,  // {%a, %b}                -> comps
  kReplicaGroups,    // {{0,1},{2,3}} or [2,2]<=[4] or mesh-form -> intLists / s
  kShape,            // f32[2]{0}               -> shapes[0]
  kShapeList,        // {f32[2]{0}, s32[]}      -> shapes
  kLiteral,          // s32[] 1                 -> s (printed form)
  kVerbatim,         // anything balanced, kept as written -> s
};

std::string_view attrKeyName(AttrKey key);
AttrKind attrKind(AttrKey key);
std::optional<AttrKey> parseAttrKey(std::string_view text);

struct SliceDim {
  int64_t start = 0, limit = 0, stride = 1;
  bool operator==(const SliceDim&) const = default;
};

struct PadDim {
  int64_t low = 0, high = 0, interior = 0;
  bool operator==(const PadDim&) const = default;
};

struct WindowDim {
  int64_t size = 1, stride = 1, padLow = 0, padHigh = 0;
  int64_t baseDilation = 1;    // lhs_dilate
  int64_t windowDilation = 1;  // rhs_dilate
  bool reversal = false;       // rhs_reversal
  bool operator==(const WindowDim&) const = default;
};

// Convolution dimension numbers, written `dim_labels=b01f_01io->b01f`.
struct ConvDims {
  int64_t inputBatch = 0, inputFeature = 0;
  std::vector<int64_t> inputSpatial;
  int64_t kernelInputFeature = 0, kernelOutputFeature = 0;
  std::vector<int64_t> kernelSpatial;
  int64_t outputBatch = 0, outputFeature = 0;
  std::vector<int64_t> outputSpatial;
  // Rank of each side when its labels hold `?` (dimensions the convolution
  // does not use, e.g. cuDNN's `b01f?`); 0 means the usual 2 + spatial count.
  int64_t inputRank = 0, kernelRank = 0, outputRank = 0;
  bool operator==(const ConvDims&) const = default;
};

struct AttrValue {
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<std::vector<int64_t>> intLists;
  std::vector<std::string> idents;
  std::vector<SliceDim> slices;
  std::vector<PadDim> padding;
  std::vector<WindowDim> window;
  ConvDims conv;
  std::vector<Computation*> comps;
  std::vector<Shape> shapes;
  bool operator==(const AttrValue&) const = default;
};

// The attributes of one instruction, kept sorted by key.
class Attributes {
 public:
  bool has(AttrKey key) const { return find(key) != nullptr; }
  const AttrValue* find(AttrKey key) const;
  AttrValue* find(AttrKey key);
  // Inserts or replaces.
  AttrValue& set(AttrKey key, AttrValue value);
  void erase(AttrKey key);
  const std::vector<std::pair<AttrKey, AttrValue>>& all() const { return items_; }
  bool empty() const { return items_.empty(); }
  bool operator==(const Attributes&) const = default;

  // Typed shortcuts; the fallback is returned when the key is absent.
  int64_t getInt(AttrKey key, int64_t fallback = 0) const;
  bool getBool(AttrKey key, bool fallback = false) const;
  const std::vector<int64_t>& getInts(AttrKey key) const;  // empty when absent
  std::string_view getString(AttrKey key) const;          // kString/kIdent/kVerbatim
  Computation* getComputation(AttrKey key) const;         // nullptr when absent
  // A conditional's branches, branch i running on operand i + 1:
  // true_computation and false_computation when given (a pred selects
  // them, true first), else branch_computations; empty when neither.
  std::vector<Computation*> conditionalBranches() const;

  void setInt(AttrKey key, int64_t v);
  void setInts(AttrKey key, std::vector<int64_t> v);
  void setBool(AttrKey key, bool v);
  void setString(AttrKey key, std::string v);
  void setComputation(AttrKey key, Computation* c);

 private:
  std::vector<std::pair<AttrKey, AttrValue>> items_;
};

// Comparison direction and type of `compare`.
enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType : uint8_t { kFloat, kTotalOrder, kSigned, kUnsigned };
std::optional<ComparisonDirection> parseComparisonDirection(std::string_view s);

// The comparison type of operands of element type `t` when the compare
// says none: kFloat for floats and complex, kSigned for signed integers,
// kUnsigned for unsigned ones and pred.
ComparisonType defaultComparisonType(ElementType t);

// How a compare with attributes `attrs` orders operands of element type `t`.
// XLA writes the order as `order=TOTAL|PARTIAL|WEAK` today and as
// `type=FLOAT|TOTALORDER|SIGNED|UNSIGNED` before, where the type must fit
// the operands (FLOAT or TOTALORDER for floats and complex, SIGNED for
// signed integers, UNSIGNED for unsigned ones and pred), as XLA's verifier
// asks. Floats and complex compare as IEEE (kFloat) unless in total order;
// integers and pred as their type is signed or not; with neither attribute,
// that is the default. Fails, saying why, for an unknown spelling, a type
// that does not fit, a `type=` and an `order=` that disagree, or WEAK,
// whose NaN order no engine here implements.
StatusOr<ComparisonType> comparisonTypeOf(const Attributes& attrs, ElementType t);

}  // namespace hlo
