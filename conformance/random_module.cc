// Random HLO modules (see random_module.h).
//
// Two engines may differ in the last bits of a transcendental function, and
// an ill-conditioned op downstream (a subtraction that cancels, a floor, a
// comparison, a remainder, a log near 1) turns that into any difference at
// all. So float values are tracked as exact (the same bits on any correct
// engine: parameters, constants, and what correctly rounded ops make of
// exact values) or inexact (within a few ulps), and inexact values only
// reach ops that keep a relative error relative: negate, abs, multiply,
// division (not as the divisor: an inexact zero may have either sign),
// maximum, minimum, clamp, square and cube roots, exp, tanh, erf, the
// logistic function, conversions through float types at least as precise,
// and data movement.
#include "conformance/random_module.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <set>
#include <vector>

namespace hlo::conformance {
namespace {

bool among(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops)
    if (op == o) return true;
  return false;
}

// Float unary ops whose result is correctly rounded (the same bits on any
// correct engine), and those that keep an operand's relative error relative.
bool exactUnary(const std::string& op) {
  return among(op, {"negate", "abs", "sign", "floor", "ceil", "round-nearest-even", "round-nearest-afz", "sqrt"});
}
bool unaryToleratesInexact(const std::string& op) {
  return among(op, {"negate", "abs", "sqrt", "rsqrt", "cbrt", "tanh", "logistic", "exponential", "erf",
                    "exponential-minus-one"});
}
bool exactBinary(const std::string& op) {
  return among(op, {"add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder"});
}
bool binaryToleratesInexact(const std::string& op) { return among(op, {"multiply", "divide", "maximum", "minimum"}); }

// Mantissa bits of a float type (0 for the others).
int mantissaBits(const std::string& type) {
  return type == "f64" ? 53 : type == "f32" ? 24 : type == "f16" ? 11 : type == "bf16" ? 8 : 0;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  std::string module(uint64_t seed) {
    static const char* const kFloats[] = {"f32", "f32", "f32", "bf16", "f16", "f64"};
    static const char* const kIntegers[] = {"s8", "s16", "s32", "s64", "u8", "u16", "u32"};
    floating_ = pick(3) != 0;
    type_ = floating_ ? kFloats[pick(6)] : kIntegers[pick(7)];
    static const int64_t kRows[] = {1, 3, 8, 17, 64}, kCols[] = {1, 5, 16, 33, 128, 1000};
    rows_ = kRows[pick(5)];
    cols_ = kCols[pick(6)];
    if (pick(8) == 0) (pick(2) ? rows_ : cols_) = 0;  // sometimes no elements at all
    batch_ = pick(4) == 0 ? 2 + pick(3) : 0;  // sometimes a leading dimension
    parameters_ = 1 + pick(3);
    for (int i = 0; i < parameters_; ++i)
      define("p" + std::to_string(i), shape() + " parameter(" + std::to_string(i) + ")", true);
    const int steps = 2 + pick(9);
    for (int i = 0; i < steps; ++i) step();
    std::string text = "HloModule fuzz_" + std::to_string(seed) + "\n\n";
    for (const std::string& reducer : reducers_)
      text += reducer + "_reducer {\n  a = " + type_ + "[] parameter(0)\n  b = " + type_ +
              "[] parameter(1)\n  ROOT r = " + type_ + "[] " + reducer + "(a, b)\n}\n\n";
    text += computations_;
    // The result: the last few values, so that little of the chain is dead.
    std::string types, names;
    std::vector<std::string> results = products_;
    for (size_t i = values_.size() - std::min<size_t>(values_.size(), 4); i < values_.size(); ++i)
      results.push_back(values_[i].name);
    for (const std::string& result : results) {
      types += (types.empty() ? "" : ", ") + shape();
      names += (names.empty() ? "" : ", ") + result;
    }
    return text + "ENTRY main {\n" + body_ + "  ROOT out = (" + types + ") tuple(" + names + ")\n}\n";
  }

 private:
  struct Value {
    std::string name;
    bool exact;
  };

  // One of n choices. Not std::uniform_int_distribution, whose algorithm
  // differs between standard libraries.
  int pick(size_t n) { return static_cast<int>(rng_() % n); }
  // A value for an operand; an exact one when `exact` (parameters always are).
  Value operand(bool exact) {
    std::vector<const Value*> fit;
    for (const Value& v : values_)
      if (v.exact || !exact) fit.push_back(&v);
    return *fit[pick(fit.size())];
  }
  bool isUnsigned() const { return type_[0] == 'u'; }

  // The sizes of a value whose last dimension is `last`: "B,R,last" or
  // "R,last"; its dimensions "[B,R,last]".
  std::string sizes(int64_t last) const {
    const std::string lead = batch_ ? std::to_string(batch_) + "," : "";
    return lead + std::to_string(rows_) + "," + std::to_string(last);
  }
  std::string dims(int64_t last) const { return "[" + sizes(last) + "]"; }
  // Slice ranges and paddings that keep every dimension but the last whole.
  std::string wholeLeadingSlices() const {
    return (batch_ ? "[0:" + std::to_string(batch_) + "], " : "") + "[0:" + std::to_string(rows_) + "], ";
  }
  std::string noLeadingPadding() const { return batch_ ? "0_0x0_0x" : "0_0x"; }
  std::string shape(const std::string& type) const { return type + dims(cols_); }
  std::string shape() const { return shape(type_); }
  int rank() const { return batch_ ? 3 : 2; }

  // Appends `name = instruction`; a value later steps may read when
  // `exact` is given (integers are always exact).
  std::string define(const std::string& name, const std::string& instruction, std::optional<bool> exact = {}) {
    body_ += "  " + name + " = " + instruction + "\n";
    if (exact) values_.push_back({name, *exact || !floating_});
    return name;
  }
  std::string fresh(const char* stem) { return stem + std::to_string(++counter_); }

  std::string unaryOp() {
    static const char* const kFloat[] = {"negate", "abs", "exponential", "log", "tanh", "sqrt", "rsqrt", "floor",
                                         "ceil", "sign", "cosine", "sine", "logistic", "exponential-minus-one",
                                         "log-plus-one", "round-nearest-even", "round-nearest-afz", "cbrt", "erf"};
    static const char* const kSigned[] = {"negate", "abs", "not", "popcnt", "count-leading-zeros", "sign"};
    static const char* const kUnsigned[] = {"negate", "not", "popcnt", "count-leading-zeros"};
    if (floating_) return kFloat[pick(std::size(kFloat))];
    return isUnsigned() ? kUnsigned[pick(std::size(kUnsigned))] : kSigned[pick(std::size(kSigned))];
  }
  std::string binaryOp() {
    static const char* const kFloat[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
                                         "atan2", "remainder"};
    static const char* const kInteger[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "remainder",
                                           "and", "or", "xor", "shift-left", "shift-right-logical",
                                           "shift-right-arithmetic", "power"};
    return floating_ ? kFloat[pick(std::size(kFloat))] : kInteger[pick(std::size(kInteger))];
  }
  std::string constant() {
    static const char* const kFloat[] = {"0.5", "-2", "3", "0.001", "0", "-0", "inf", "nan"};
    static const char* const kSigned[] = {"1", "-2", "3", "0", "31", "7", "-1"};
    static const char* const kUnsigned[] = {"1", "2", "3", "0", "31", "7"};
    if (floating_) return kFloat[pick(std::size(kFloat))];
    return isUnsigned() ? kUnsigned[pick(std::size(kUnsigned))] : kSigned[pick(std::size(kSigned))];
  }

  // `name = op(a, b)` where b may be given (a broadcast operand, exact or not).
  // A divisor must be exact: an inexact zero may have either sign.
  void binary(const std::string& name, std::optional<Value> b = {}) {
    std::string op = binaryOp();
    if (b && !b->exact && (!binaryToleratesInexact(op) || op == "divide")) op = "multiply";
    const bool tolerant = binaryToleratesInexact(op);
    const Value a = operand(!tolerant);
    const Value second = b ? *b : operand(!tolerant || op == "divide");
    define(name, shape() + " " + op + "(" + a.name + ", " + second.name + ")",
           a.exact && second.exact && exactBinary(op));
  }

  // x times a square parameter w along the last dimension: w is [cols,
  // cols] (with the batch dimension first, when there is one), contracted
  // along its first or its second dimension (b stored contracting- or
  // free-major). Float products go straight to the result, where they are
  // held to their sums' rounding bound (conformance/contraction_bound.h);
  // integer ones are exact and may be read on.
  void product(const std::string& name) {
    if (w_.empty()) {
      std::string square = batch_ ? "[" + std::to_string(batch_) + "," : "[";
      square += std::to_string(cols_) + "," + std::to_string(cols_) + "]";
      w_ = define("w", type_ + square + " parameter(" + std::to_string(parameters_++) + ")");
    }
    const std::string batch = batch_ ? "lhs_batch_dims={0}, rhs_batch_dims={0}, " : "";
    const int contracted = (batch_ ? 1 : 0) + pick(2);
    const std::string dot = shape() + " dot(" + operand(true).name + ", " + w_ + "), " + batch +
                            "lhs_contracting_dims={" + std::to_string(rank() - 1) + "}, rhs_contracting_dims={" +
                            std::to_string(contracted) + "}";
    if (floating_) products_.push_back(define(name, dot));
    else define(name, dot, true);
  }

  // With a leading dimension, a convolution of x as [batch, positions,
  // features] by a window of 3 positions (padded to keep them), features
  // to features: a kernel parameter k of [3, cols, cols]. Float ones go to
  // the result, as products do.
  void convolution(const std::string& name) {
    if (k_.empty())
      k_ = define("k", type_ + "[3," + std::to_string(cols_) + "," + std::to_string(cols_) + "] parameter(" +
                           std::to_string(parameters_++) + ")");
    const std::string conv = shape() + " convolution(" + operand(true).name + ", " + k_ +
                             "), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f";
    if (floating_) products_.push_back(define(name, conv));
    else define(name, conv, true);
  }

  // A start index along the last dimension: a scalar parameter (random
  // arguments run from -8 to 8, so the clamping into range is exercised).
  std::string startIndex() {
    if (index_.empty()) index_ = define("at", "s32[] parameter(" + std::to_string(parameters_++) + ")");
    return index_;
  }
  // An s32 0, defined where first needed.
  std::string zero() {
    if (zero_.empty()) zero_ = define("zero", "s32[] constant(0)");
    return zero_;
  }

  // dynamic-slice of two values put back together along the last
  // dimension, or a dynamic-update-slice of one by a slice of another.
  void dynamicSlices(const std::string& name) {
    const int64_t half = cols_ / 2;
    const std::string zeros = batch_ ? zero() + ", " + zero() + ", " : zero() + ", ";
    const Value x = operand(false), y = operand(false);
    const std::string at = startIndex();
    if (pick(2) == 0) {
      std::string a = define(fresh("ds"), type_ + dims(half) + " dynamic-slice(" + x.name + ", " + zeros + at +
                                              "), dynamic_slice_sizes={" + sizes(half) + "}");
      std::string b = define(fresh("ds"), type_ + dims(cols_ - half) + " dynamic-slice(" + y.name + ", " + zeros +
                                              zero() + "), dynamic_slice_sizes={" + sizes(cols_ - half) + "}");
      define(name, shape() + " concatenate(" + a + ", " + b + "), dimensions={" + std::to_string(rank() - 1) + "}",
             x.exact && y.exact);
    } else {
      std::string update = define(fresh("su"), type_ + dims(half) + " slice(" + y.name + "), slice={" +
                                                   wholeLeadingSlices() + "[0:" +
                                                   std::to_string(half) + "]}");
      define(name, shape() + " dynamic-update-slice(" + x.name + ", " + update + ", " + zeros + at + ")",
             x.exact && y.exact);
    }
  }

  // One s32 row index per row: a parameter (random arguments run from -8
  // to 8, so gathers clamp and scatters drop out-of-range rows).
  std::string rowIndices() {
    if (rowsAt_.empty())
      rowsAt_ = define("rows_at", "s32[" + std::to_string(rows_) + "] parameter(" + std::to_string(parameters_++) + ")");
    return rowsAt_;
  }

  // Row r of the result is row rows_at[r] of x (of every batch), clamped
  // into range: a gather.
  void gather(const std::string& name) {
    const Value x = operand(false);
    const std::string cols = std::to_string(cols_);
    const std::string attrs =
        batch_ ? "offset_dims={0,2}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=1, slice_sizes={" +
                     std::to_string(batch_) + ",1," + cols + "}"
               : "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1," +
                     cols + "}";
    define(name, shape() + " gather(" + x.name + ", " + rowIndices() + "), " + attrs, x.exact);
  }

  // x with row r of u added to its row rows_at[r] (an out-of-range one
  // dropped): a scatter. Rows hit twice are summed in the engine's order,
  // so a float result is inexact, and made of exact terms only, as a
  // reduction's sums are.
  void scatter(const std::string& name) {
    const Value x = operand(true), u = operand(true);
    reducers_.insert("add");
    const std::string attrs =
        batch_ ? "update_window_dims={0,2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=1"
               : "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
    define(name, shape() + " scatter(" + x.name + ", " + rowIndices() + ", " + u.name + "), " + attrs +
                     ", to_apply=add_reducer",
           !floating_);
  }

  // A while loop over (i, acc, x) that runs 0 to 4 times, acc = op(acc, x)
  // each time, op a binary op that keeps exact values exact.
  void whileLoop(const std::string& name) {
    const Value acc = operand(true), x = operand(true);
    std::string op = binaryOp();
    if (floating_ && !exactBinary(op)) op = "add";
    const std::string id = std::to_string(++computationCount_), state = "(s32[], " + shape() + ", " + shape() + ")";
    const std::string element = "  p = " + state + " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n";
    computations_ += "loop_condition_" + id + " {\n" + element + "  n = s32[] constant(" + std::to_string(pick(5)) +
                     ")\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n\n";
    computations_ += "loop_body_" + id + " {\n" + element + "  a = " + shape() + " get-tuple-element(p), index=1\n  x = " +
                     shape() + " get-tuple-element(p), index=2\n  one = s32[] constant(1)\n  next = s32[] add(i, one)\n  a2 = " +
                     shape() + " " + op + "(a, x)\n  ROOT t = " + state + " tuple(next, a2, x)\n}\n\n";
    std::string init = define(fresh("init"), state + " tuple(" + zero() + ", " + acc.name + ", " + x.name + ")");
    std::string loop = define(fresh("loop"), state + " while(" + init + "), condition=loop_condition_" + id +
                                                 ", body=loop_body_" + id);
    define(name, shape() + " get-tuple-element(" + loop + "), index=1", true);
  }

  // A conditional on the start index `at` (-8 to 8): three branches by
  // index (out of range takes the last), or two on whether it is positive;
  // each branch an op that keeps an exact value exact.
  void conditional(const std::string& name) {
    const Value x = operand(false);
    const std::string id = std::to_string(++computationCount_);
    const char* const kBranchOps[] = {"negate", isUnsigned() ? "not" : "abs", "multiply"};
    const int branches = 2 + pick(2);
    std::string list;
    for (int k = 0; k < branches; ++k) {
      const std::string branch = "branch_" + id + "_" + std::to_string(k);
      const std::string op = kBranchOps[k];
      computations_ += branch + " {\n  x = " + shape() + " parameter(0)\n  ROOT y = " + shape() + " " + op +
                       (op == "multiply" ? "(x, x)" : "(x)") + "\n}\n\n";
      list += (k ? ", " : "") + branch;
    }
    const std::string at = startIndex();
    if (branches == 3) {
      define(name, shape() + " conditional(" + at + ", " + x.name + ", " + x.name + ", " + x.name +
                       "), branch_computations={" + list + "}",
             x.exact);
      return;
    }
    std::string positive = define(fresh("pos"), "pred[] compare(" + at + ", " + zero() + "), direction=GT");
    define(name, shape() + " conditional(" + positive + ", " + x.name + ", " + x.name + "), true_computation=branch_" +
                     id + "_0, false_computation=branch_" + id + "_1",
           x.exact);
  }

  // x padded along the last dimension (2 before, 1 after, 1 between
  // elements), then every other element from the first of x's: x again, by
  // pad's interior padding and a strided slice.
  void padAndSlice(const std::string& name) {
    const Value x = operand(false);
    std::string c = define(fresh("c"), type_ + "[] constant(" + constant() + ")");
    std::string p = define(fresh("pad"), type_ + dims(2 + cols_ + (cols_ - 1) + 1) + " pad(" + x.name + ", " + c +
                                             "), padding=" + noLeadingPadding() + "2_1_1");
    define(name, shape() + " slice(" + p + "), slice={" + wholeLeadingSlices() + "[2:" +
                     std::to_string(2 + 2 * cols_ - 1) + ":2]}",
           x.exact);
  }

  // Each row sorted along the last dimension, stably, with the row's
  // positions (an iota) carried along and the keys compared in total order
  // (so NaNs and signed zeros have their places): the sorted keys, or the
  // positions they came from converted to the type.
  void sortRows(const std::string& name) {
    const Value x = operand(true);
    const std::string id = std::to_string(++computationCount_), comparator = "sort_comparator_" + id;
    computations_ += comparator + " {\n  a = " + type_ + "[] parameter(0)\n  b = " + type_ +
                     "[] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT lt = pred[] compare(a, b), direction=LT" +
                     (floating_ ? ", type=TOTALORDER" : "") + "\n}\n\n";
    std::string positions = define(fresh("iota"), shape("s32") + " iota(), iota_dimension=" + std::to_string(rank() - 1));
    std::string sorted = define(fresh("sort"), "(" + shape() + ", " + shape("s32") + ") sort(" + x.name + ", " +
                                                   positions + "), dimensions={" + std::to_string(rank() - 1) +
                                                   "}, is_stable=true, to_apply=" + comparator);
    if (pick(2) == 0) {
      define(name, shape() + " get-tuple-element(" + sorted + "), index=0", true);
      return;
    }
    std::string from = define(fresh("from"), shape("s32") + " get-tuple-element(" + sorted + "), index=1");
    define(name, shape() + " convert(" + from + ")", true);
  }

  // A sliding window of 3 along the last dimension (padded to keep the
  // size): a maximum (exact but for which zero of +0 and -0) or a sum
  // (inexact for floats, of exact terms only), as reductions are.
  void reduceWindow(const std::string& name) {
    const bool sum = pick(2) == 0;
    const std::string reducer = sum ? "add" : "maximum";
    reducers_.insert(reducer);
    const Value x = operand(true);
    std::string init = define(fresh("i"), type_ + "[] constant(" + (sum ? "0" : floating_ ? "-inf" : "0") + ")");
    const std::string ones = batch_ ? "1x1x" : "1x";
    define(name, shape() + " reduce-window(" + x.name + ", " + init + "), window={size=" + ones + "3 stride=" + ones +
                     "1 pad=" + noLeadingPadding() + "1_1}, to_apply=" + reducer + "_reducer",
           !floating_);
  }

  void step() {
    const std::string name = fresh("v");
    const int kind = pick(30);
    if (kind == 20) {
      // A product needs rows of at most 1,000 elements by at most 17 rows:
      // a million-element w, within what the interpreter runs at once.
      if (cols_ <= 128 || rows_ * (batch_ ? batch_ : 1) <= 17) return product(name);
      return binary(name);
    }
    if (kind == 21) {
      if (batch_ && cols_ <= 128) return convolution(name);
      return binary(name);
    }
    if (kind == 22) {
      if (cols_ >= 2) return dynamicSlices(name);
      return binary(name);
    }
    if (kind == 23) {
      if (rows_ > 0) return gather(name);  // (a row of size 1 cannot be sliced from none)
      return binary(name);
    }
    if (kind == 24) return scatter(name);
    if (kind == 25) return whileLoop(name);
    if (kind == 26) return conditional(name);
    if (kind == 27) return cols_ >= 1 ? padAndSlice(name) : binary(name);
    if (kind == 28) return sortRows(name);
    if (kind == 29) return reduceWindow(name);
    if (kind < 6) {
      const std::string op = unaryOp();
      const Value x = operand(!unaryToleratesInexact(op));
      define(name, shape() + " " + op + "(" + x.name + ")", x.exact && exactUnary(op));
    } else if (kind < 12) {
      binary(name);
    } else if (kind < 13) {
      std::string c = define(fresh("c"), type_ + "[] constant(" + constant() + ")");
      std::string b = define(fresh("b"), shape() + " broadcast(" + c + "), dimensions={}");
      binary(name, Value{b, true});
    } else if (kind < 14) {
      static const char* const kDirections[] = {"LT", "GT", "EQ", "NE", "GE", "LE"};
      std::string m = define(fresh("m"), shape("pred") + " compare(" + operand(true).name + ", " +
                                              operand(true).name + "), direction=" + kDirections[pick(6)]);
      const Value a = operand(false), b = operand(false);
      define(name, shape() + " select(" + m + ", " + a.name + ", " + b.name + ")", a.exact && b.exact);
    } else if (kind < 15) {
      static const char* const kTypes[] = {"s32", "f16", "bf16", "f32", "s8", "u8", "f64", "pred", "u32"};
      const std::string to = kTypes[pick(9)];
      // An inexact value may pass through a float type with as many
      // mantissa bits or more; a narrower one turns a last-bit difference
      // into one of its own last bit.
      const Value x = operand(mantissaBits(to) < mantissaBits(type_));
      std::string c = define(fresh("cv"), shape(to) + " convert(" + x.name + ")");
      define(name, shape() + " convert(" + c + ")", x.exact);
    } else if (kind < 16) {
      const Value a = operand(false), lo = operand(false), hi = operand(false);
      define(name, shape() + " clamp(" + lo.name + ", " + a.name + ", " + hi.name + ")",
             a.exact && lo.exact && hi.exact);
    } else if (kind < 17) {
      const Value x = operand(false);
      define(name, shape() + " reverse(" + x.name + "), dimensions={" + std::to_string(pick(rank())) + "}", x.exact);
    } else if (kind < 18 && cols_ > 2) {
      // The two halves of the last dimension, swapped.
      const int64_t half = cols_ / 2;
      const std::string lead = wholeLeadingSlices();
      const Value x = operand(false), y = operand(false);
      std::string a = define(fresh("sa"), type_ + dims(half) + " slice(" + x.name + "), slice={" + lead + "[0:" +
                                              std::to_string(half) + "]}");
      std::string b = define(fresh("sb"), type_ + dims(cols_ - half) + " slice(" + y.name + "), slice={" + lead + "[" +
                                              std::to_string(half) + ":" + std::to_string(cols_) + "]}");
      define(name, shape() + " concatenate(" + b + ", " + a + "), dimensions={" + std::to_string(rank() - 1) + "}",
             x.exact && y.exact);
    } else if (kind < 19 && rows_ == cols_) {
      const Value x = operand(false);
      define(name, shape() + " transpose(" + x.name + "), dimensions=" + (batch_ ? "{0,2,1}" : "{1,0}"), x.exact);
    } else {
      // A reduction along the last dimension, broadcast back and combined.
      // Its order is the engine's: a float sum's last bit depends on it
      // (inexact, and only of exact terms, which cannot cancel an error),
      // and so does which zero a maximum or minimum of +0 and -0 gives (and
      // the sign of a zero sum: simplify, as XLA's does, takes an init of +0
      // as a sum's identity).
      static const char* const kReducers[] = {"add", "maximum", "minimum", "multiply"};
      const std::string reducer = kReducers[pick(floating_ ? 3 : 4)];
      reducers_.insert(reducer);
      const std::string init = reducer == "add" ? "0" : reducer == "multiply" ? "1"
                               : floating_      ? (reducer == "maximum" ? "-inf" : "inf")
                                                : "0";
      const Value x = operand(reducer == "add");
      const bool exact = !floating_ || (reducer == "multiply" && x.exact);
      std::string i = define(fresh("i"), type_ + "[] constant(" + init + ")");
      const std::string reducedDims = batch_ ? "[" + std::to_string(batch_) + "," + std::to_string(rows_) + "]"
                                             : "[" + std::to_string(rows_) + "]";
      std::string r = define(fresh("r"), type_ + reducedDims + " reduce(" + x.name + ", " + i + "), dimensions={" +
                                             std::to_string(rank() - 1) + "}, to_apply=" + reducer + "_reducer");
      std::string b = define(fresh("rb"), shape() + " broadcast(" + r + "), dimensions=" + (batch_ ? "{0,1}" : "{0}"));
      binary(name, Value{b, exact || !floating_});
    }
  }

  std::mt19937_64 rng_;
  bool floating_ = true;
  std::string type_;
  int64_t rows_ = 1, cols_ = 1, batch_ = 0;
  std::string body_;
  std::vector<Value> values_;
  std::set<std::string> reducers_;
  std::vector<std::string> products_;  // float dots, results only
  std::string w_;                      // the dots' square parameter, once made
  std::string k_;                      // the convolutions' kernel, once made
  std::string index_, zero_;           // dynamic slices' start index and 0
  std::string rowsAt_;                 // gathers' and scatters' row indices
  std::string computations_;           // loop conditions and bodies, branches
  int computationCount_ = 0;
  int parameters_ = 0;
  int counter_ = 0;
};

}  // namespace

std::string randomModule(uint64_t seed) { return Generator(seed).module(seed); }

}  // namespace hlo::conformance
