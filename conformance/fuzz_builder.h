// The state of one random module while hlo-fuzz's generator writes it
// (conformance/fuzz_generator.h): a seeded choice of numbers, the values
// written so far with their element types, dimensions and exactness, the
// helper computations, and the text.
//
// Two correct engines may differ in the last bits of a transcendental
// function, of a sum taken in another order, of a dot; an ill-conditioned
// op downstream (a subtraction that cancels, a floor, a comparison) turns
// that into any difference at all. So every value is exact (the same bits
// on any correct engine: parameters, constants, and what correctly rounded
// ops make of exact values) or not, and an op that would amplify an error
// asks for exact operands. Contractions' and sums' values are also
// terminal: they only go to the result, where the harness's comparison
// knows their error bound, and nothing reads them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hlo/element_type.h"

namespace hlo::conformance::fuzz {

using Dims = std::vector<int64_t>;

struct Value {
  std::string name;
  ElementType type;
  Dims dims;
  bool exact = true;
  bool terminal = false;
  int dynamicDim = -1;  // a dimension of runtime size, at most dims[dynamicDim]
  int uses = 0;
};

// What a value may be: any, an exact one, or an ordinary one: a parameter,
// whose values hlo-run --random-seed draws in [-1, 1) (for ops such as a
// dot or an fft, where infinities and values near overflow give results
// that depend on the order of the sums, and two correct engines differ).
enum class Need { kAny, kExact, kOrdinary };

class Builder {
 public:
  // `types`: the element types values may have (arrays only). `forXla`:
  // the module is for XLA:CPU, which flushes denormals to zero and sums
  // low-precision floats in its own order and precision, so neither
  // denormal constants nor float sums whose order is free are written.
  Builder(uint64_t seed, std::vector<ElementType> types, bool forXla = false);
  bool forXla() const { return forXla_; }

  // One of n choices, and an event of odds 1 in n. Not <random>'s
  // distributions, whose algorithms differ between standard libraries.
  uint64_t pick(uint64_t n);
  bool oneIn(uint64_t n) { return pick(n) == 0; }
  template <typename T>
  const T& pickOf(const std::vector<T>& items) { return items[pick(items.size())]; }

  // The module's main element type and dimensions: most values have them.
  ElementType mainType() const { return mainType_; }
  const Dims& mainDims() const { return mainDims_; }

  // An element type that `accepts` takes: often the main one when it
  // qualifies, else any array type that does. nullopt when none does.
  template <typename Accepts>
  std::optional<ElementType> typeFor(Accepts accepts) {
    if (accepts(mainType_) && !oneIn(3)) return mainType_;
    std::vector<ElementType> fit;
    for (ElementType t : types_)
      if (accepts(t)) fit.push_back(t);
    if (fit.empty()) return std::nullopt;
    return pickOf(fit);
  }
  // The dimensions of a value to work on: those of a value written so far.
  Dims someDims();

  // A value of this type and dimensions: one written so far, a conversion
  // of one, a new parameter, a constant (edge values: NaN, infinities, -0,
  // denormals, integer extremes) or an iota.
  Value need(ElementType type, const Dims& dims, Need need = Need::kAny);
  // A scalar integer value in [0, bound] for indices and sizes: a
  // parameter when the seed says so (its values are then the random
  // inputs'), else a constant.
  Value index(int64_t bound);

  // Writes `name = TYPE[DIMS] rhs` into the ENTRY and returns the value.
  // Each operand given is counted as used.
  Value define(ElementType type, const Dims& dims, const std::string& rhs, bool exact,
               std::initializer_list<const Value*> operands, bool terminal = false, int dynamicDim = -1);
  // Counts `v` as used (an operand not given to define).
  void use(const Value& v);
  // Writes an instruction whose result is not an array value of the pool
  // (a tuple, a token): `name = SHAPE rhs`; returns the name.
  std::string defineOther(const std::string& shape, const std::string& rhs,
                          std::initializer_list<const Value*> operands);
  // A fresh instruction name.
  std::string fresh(const std::string& prefix);
  // Adds a helper computation (once per name) and returns its name.
  std::string computation(const std::string& name, const std::string& body);
  // `(a, b) -> a OP b` over scalars of `type`, e.g. add_f32.
  std::string binaryComputation(const std::string& op, ElementType type);
  // A comparator for sort: `types` are the sorted operands' element types;
  // the first is the key, compared with `direction` (LT or GT) in total
  // order for floats.
  std::string comparator(const std::vector<ElementType>& types, const std::string& direction);

  // The text of a scalar constant of `type` that is an edge value, or an
  // ordinary small one.
  std::string scalarLiteral(ElementType type, bool edge);
  // The identity of `op` (add, multiply, maximum, minimum, and, or) for `type`.
  static std::string identityLiteral(const std::string& op, ElementType type);

  // A new ENTRY parameter.
  Value parameter(ElementType type, const Dims& dims);

  // The finished module.
  std::string text(const std::string& moduleName);
  const std::vector<Value>& values() const { return values_; }

  // The element types values may have.
  const std::vector<ElementType>& types() const { return types_; }
  // Every element type an array can hold.
  static const std::vector<ElementType>& arrayTypes();

 private:
  std::optional<Value> existing(ElementType type, const Dims& dims, Need need);
  Value constant(ElementType type, const Dims& dims);

  uint64_t state_;
  std::vector<ElementType> types_;
  bool forXla_ = false;
  ElementType mainType_;
  Dims mainDims_;
  std::vector<Value> values_;
  std::string body_, computations_;
  std::set<std::string> computationNames_;
  int parameters_ = 0, counter_ = 0;
};

// Whether a float type has infinities (else maximum and minimum have no
// identity the generator can write).
bool hasInfinity(ElementType type);

// "f32[2,3]", "f32[<=2,3]" with dynamicDim 0.
std::string shapeText(ElementType type, const Dims& dims, int dynamicDim = -1);
int64_t elementCount(const Dims& dims);
// "{0,1,2}".
std::string listText(const std::vector<int64_t>& items);

}  // namespace hlo::conformance::fuzz
