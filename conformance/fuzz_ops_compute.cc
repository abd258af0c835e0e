// Reductions, sorts, contractions, linear algebra and random numbers in the
// generator. A float sum whose order an engine may choose (a reduction, a
// dot, a convolution, an fft, a factorization) is not exact and only goes
// to the result, where the harness's comparison knows its error bound.
#include <algorithm>

#include "conformance/fuzz_ops.h"

namespace hlo::conformance::fuzz {
namespace {

std::optional<Value> valueOfRank(Builder& b, size_t minRank, bool (*accepts)(ElementType)) {
  const Dims dims = b.someDims();
  if (dims.size() < minRank) return std::nullopt;
  std::optional<ElementType> t = b.typeFor(accepts);
  if (!t) return std::nullopt;
  return b.need(*t, dims);
}

bool isReal(ElementType t) { return isInteger(t) || isFloat(t); }
bool isWideFloat(ElementType t) { return t == ElementType::kF32 || t == ElementType::kF64; }

// A combiner for reducing values of `t` and whether its result is exact
// (the same bits in any order of application).
struct Combiner {
  std::string op;
  bool exact;
};
std::optional<Combiner> combinerFor(Builder& b, ElementType t) {
  std::vector<Combiner> fit;
  if (isPred(t)) fit = {{"and", true}, {"or", true}};
  if (isInteger(t)) fit = {{"add", true}, {"multiply", true}, {"maximum", true}, {"minimum", true}};
  if (isFloat(t)) {
    if (hasInfinity(t)) fit.insert(fit.end(), {{"maximum", true}, {"minimum", true}});
    if (t != ElementType::kF8E8M0FNU && !b.forXla()) fit.push_back({"add", false});
    if (!b.forXla()) fit.push_back({"multiply", false});
  }
  if (isComplex(t) && !b.forXla()) fit = {{"add", false}};
  if (fit.empty()) return std::nullopt;
  return b.pickOf(fit);
}

Value identity(Builder& b, const std::string& op, ElementType t) {
  return b.define(t, {}, "constant(" + Builder::identityLiteral(op, t) + ")", true, {});
}

std::string dimsOf(const std::vector<int64_t>& sizes, const char* separator = "x") {
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? separator : "") + std::to_string(sizes[i]);
  return text;
}

// 0.5 (p + pᵀ) + 2n I for a parameter p of values in [-1, 1): symmetric,
// diagonally dominant and so positive definite and well conditioned; every
// step exact.
Value diagonallyDominant(Builder& b, ElementType t, int64_t n) {
  const Dims square = {n, n};
  Value p = b.need(t, square, Need::kOrdinary);
  Value pt = b.define(t, square, "transpose(" + p.name + "), dimensions={1,0}", true, {&p});
  Value sum = b.define(t, square, "add(" + p.name + ", " + pt.name + ")", true, {&p, &pt});
  Value halfScalar = b.define(t, {}, "constant(0.5)", true, {});
  Value half = b.define(t, square, "broadcast(" + halfScalar.name + "), dimensions={}", true, {&halfScalar});
  Value symmetric = b.define(t, square, "multiply(" + sum.name + ", " + half.name + ")", true, {&sum, &half});
  Value rows = b.define(ElementType::kS32, square, "iota(), iota_dimension=0", true, {});
  Value cols = b.define(ElementType::kS32, square, "iota(), iota_dimension=1", true, {});
  Value eye = b.define(ElementType::kPred, square, "compare(" + rows.name + ", " + cols.name + "), direction=EQ", true,
                       {&rows, &cols});
  Value weightScalar = b.define(t, {}, "constant(" + std::to_string(2 * n) + ")", true, {});
  Value zeroScalar = b.define(t, {}, "constant(0)", true, {});
  Value weight = b.define(t, square, "broadcast(" + weightScalar.name + "), dimensions={}", true, {&weightScalar});
  Value zero = b.define(t, square, "broadcast(" + zeroScalar.name + "), dimensions={}", true, {&zeroScalar});
  Value diagonal =
      b.define(t, square, "select(" + eye.name + ", " + weight.name + ", " + zero.name + ")", true, {&eye, &weight, &zero});
  return b.define(t, square, "add(" + symmetric.name + ", " + diagonal.name + ")", true, {&symmetric, &diagonal});
}

// Writes `tuple`'s elements out as values.
void unpack(Builder& b, const std::string& tuple, const std::vector<Value>& shapes) {
  for (size_t i = 0; i < shapes.size(); ++i)
    b.define(shapes[i].type, shapes[i].dims, "get-tuple-element(" + tuple + "), index=" + std::to_string(i),
             shapes[i].exact, {}, shapes[i].terminal);
}

std::string tupleShape(const std::vector<Value>& shapes) {
  std::string text = "(";
  for (size_t i = 0; i < shapes.size(); ++i) text += (i ? ", " : "") + shapeText(shapes[i].type, shapes[i].dims);
  return text + ")";
}

}  // namespace

bool writeReduce(Builder& b) {
  auto x = valueOfRank(b, 1, [](ElementType) { return true; });
  if (!x) return false;
  std::vector<int64_t> reduced;
  Dims dims;
  for (size_t d = 0; d < x->dims.size(); ++d) {
    if (b.oneIn(2) || (reduced.empty() && d + 1 == x->dims.size()))
      reduced.push_back(static_cast<int64_t>(d));
    else
      dims.push_back(x->dims[d]);
  }
  if (isInteger(x->type) && b.oneIn(3)) {
    // Variadic: the largest value and its first index along the dimensions.
    const ElementType t = x->type;
    const std::string s = shapeText(t, {}), name = "argmax_" + std::string(elementTypeName(t));
    b.computation(name, "  a = " + s + " parameter(0)\n  i = s32[] parameter(1)\n  c = " + s +
                            " parameter(2)\n  j = s32[] parameter(3)\n  gt = pred[] compare(a, c), direction=GT\n"
                            "  eq = pred[] compare(a, c), direction=EQ\n  lt = pred[] compare(i, j), direction=LT\n"
                            "  tie = pred[] and(eq, lt)\n  first = pred[] or(gt, tie)\n  v = " + s +
                            " select(first, a, c)\n  k = s32[] select(first, i, j)\n  ROOT r = (" + s +
                            ", s32[]) tuple(v, k)\n");
    Value positions = b.define(ElementType::kS32, x->dims, "iota(), iota_dimension=" + std::to_string(reduced[0]),
                               true, {});
    // The identity: the lowest value at an index no element has (ties go
    // to the lower index, so index 0 would beat the elements' own).
    Value lowest = identity(b, "maximum", t);
    Value zero = b.define(ElementType::kS32, {}, "constant(2147483647)", true, {});
    const std::vector<Value> shapes = {Value{"", t, dims}, Value{"", ElementType::kS32, dims}};
    std::string tuple = b.defineOther(tupleShape(shapes),
                                      "reduce(" + x->name + ", " + positions.name + ", " + lowest.name + ", " +
                                          zero.name + "), dimensions=" + listText(reduced) + ", to_apply=" + name,
                                      {&*x, &positions, &lowest, &zero});
    unpack(b, tuple, shapes);
    return true;
  }
  std::optional<Combiner> combiner = combinerFor(b, x->type);
  if (!combiner) return false;
  Value operand = combiner->exact ? *x : b.need(x->type, x->dims, Need::kOrdinary);
  Value init = identity(b, combiner->op, x->type);
  b.define(x->type, dims,
           "reduce(" + operand.name + ", " + init.name + "), dimensions=" + listText(reduced) + ", to_apply=" +
               b.binaryComputation(combiner->op, x->type),
           combiner->exact && operand.exact, {&operand, &init}, !combiner->exact);
  return true;
}

bool writeReduceWindow(Builder& b) {
  auto x = valueOfRank(b, 1, [](ElementType t) { return !isComplex(t); });
  if (!x) return false;
  std::optional<Combiner> combiner = combinerFor(b, x->type);
  if (!combiner) return false;
  Value operand = combiner->exact ? *x : b.need(x->type, x->dims, Need::kOrdinary);
  std::vector<int64_t> sizes, strides;
  std::string pads;
  Dims dims;
  for (int64_t d : x->dims) {
    const int64_t size = 1 + static_cast<int64_t>(b.pick(3)), stride = 1 + static_cast<int64_t>(b.pick(2));
    const int64_t low = static_cast<int64_t>(b.pick(2)), high = static_cast<int64_t>(b.pick(2));
    const int64_t padded = d + low + high;
    dims.push_back(padded >= size ? (padded - size) / stride + 1 : 0);
    sizes.push_back(size);
    strides.push_back(stride);
    pads += (pads.empty() ? "" : "x") + std::to_string(low) + "_" + std::to_string(high);
  }
  Value init = identity(b, combiner->op, x->type);
  b.define(x->type, dims,
           "reduce-window(" + operand.name + ", " + init.name + "), window={size=" + dimsOf(sizes) + " stride=" +
               dimsOf(strides) + " pad=" + pads + "}, to_apply=" + b.binaryComputation(combiner->op, x->type),
           combiner->exact && operand.exact, {&operand, &init}, !combiner->exact);
  return true;
}

// Each window's first greatest element receives the sum of its source
// values.
bool writeSelectAndScatter(Builder& b) {
  auto x = valueOfRank(b, 1, [](ElementType t) { return isReal(t) && t != ElementType::kF8E8M0FNU; });
  if (!x || (b.forXla() && isFloat(x->type))) return false;
  for (int64_t d : x->dims)
    if (d == 0) return false;
  const ElementType t = x->type;
  Value operand = isFloat(t) ? b.need(t, x->dims, Need::kExact) : *x;
  std::vector<int64_t> sizes, strides;
  Dims sourceDims;
  for (int64_t d : x->dims) {
    const int64_t size = 1 + static_cast<int64_t>(b.pick(std::min<int64_t>(d, 3)));
    const int64_t stride = 1 + static_cast<int64_t>(b.pick(2));
    sizes.push_back(size);
    strides.push_back(stride);
    sourceDims.push_back((d - size) / stride + 1);
  }
  Value source = b.need(t, sourceDims, isFloat(t) ? Need::kOrdinary : Need::kExact);
  Value init = b.define(t, {}, "constant(0)", true, {});
  const std::string s = shapeText(t, {});
  const std::string select = b.computation("select_ge_" + std::string(elementTypeName(t)),
                                           "  a = " + s + " parameter(0)\n  b = " + s +
                                               " parameter(1)\n  ROOT r = pred[] compare(a, b), direction=GE\n");
  b.define(t, x->dims,
           "select-and-scatter(" + operand.name + ", " + source.name + ", " + init.name + "), window={size=" +
               dimsOf(sizes) + " stride=" + dimsOf(strides) + "}, select=" + select +
               ", scatter=" + b.binaryComputation("add", t),
           !isFloat(t), {&operand, &source, &init}, isFloat(t));
  return true;
}

bool writeSort(Builder& b) {
  auto x = valueOfRank(b, 1, [](ElementType t) { return !isComplex(t); });
  if (!x) return false;
  // Float keys are compared in total order, which reads a NaN's sign: a NaN
  // an op computed may have either, so the keys are parameters.
  Value keys = b.need(x->type, x->dims, isFloat(x->type) ? Need::kOrdinary : Need::kExact);
  const size_t along = b.pick(keys.dims.size());
  const std::string direction = b.oneIn(2) ? "LT" : "GT";
  if (b.oneIn(2)) {
    b.define(keys.type, keys.dims,
             "sort(" + keys.name + "), dimensions={" + std::to_string(along) + "}" +
                 (b.oneIn(2) ? ", is_stable=true" : "") + ", to_apply=" + b.comparator({keys.type}, direction),
             true, {&keys});
    return true;
  }
  Value positions = b.define(ElementType::kS32, keys.dims, "iota(), iota_dimension=" + std::to_string(along), true, {});
  const std::vector<Value> shapes = {keys, positions};
  std::string tuple = b.defineOther(tupleShape(shapes),
                                    "sort(" + keys.name + ", " + positions.name + "), dimensions={" +
                                        std::to_string(along) + "}, is_stable=true, to_apply=" +
                                        b.comparator({keys.type, ElementType::kS32}, direction),
                                    {&keys, &positions});
  unpack(b, tuple, {Value{"", keys.type, keys.dims}, Value{"", ElementType::kS32, keys.dims}});
  return true;
}

bool writeTopK(Builder& b, bool asCustomCall) {
  auto x = valueOfRank(b, 1, [](ElementType t) { return isReal(t); });
  if (!x || x->dims.back() == 0) return false;
  Value values = b.need(x->type, x->dims, isFloat(x->type) ? Need::kOrdinary : Need::kExact);
  Dims dims = values.dims;
  dims.back() = 1 + static_cast<int64_t>(b.pick(dims.back()));
  const std::vector<Value> shapes = {Value{"", values.type, dims}, Value{"", ElementType::kS32, dims}};
  const std::string rhs = asCustomCall ? "custom-call(" + values.name + "), custom_call_target=\"TopK\""
                                       : "topk(" + values.name + "), k=" + std::to_string(dims.back()) +
                                             ", largest=" + (b.oneIn(2) ? "true" : "false");
  unpack(b, b.defineOther(tupleShape(shapes), rhs, {&values}), shapes);
  return true;
}

// Running sums along dimension 0, in order (is_associative=false), so
// exact for exact operands.
bool writeScan(Builder& b) {
  auto x = valueOfRank(b, 1, [](ElementType t) { return isReal(t) && t != ElementType::kF8E8M0FNU; });
  if (!x) return false;
  Value operand = b.need(x->type, x->dims, Need::kExact);
  Dims slice(operand.dims.begin() + 1, operand.dims.end());
  Value init = b.need(x->type, slice, Need::kExact);
  // (input slice, carry) -> (output slice, new carry): both the running sum.
  const std::string s = shapeText(x->type, slice);
  const std::string step = b.computation(
      b.fresh("scan_step_"), "  x = " + s + " parameter(0)\n  c = " + s + " parameter(1)\n  sum = " + s +
                                 " add(c, x)\n  ROOT r = (" + s + ", " + s + ") tuple(sum, sum)\n");
  const std::vector<Value> shapes = {Value{"", x->type, operand.dims}, Value{"", x->type, slice}};
  unpack(b,
         b.defineOther(tupleShape(shapes),
                       "scan(" + operand.name + ", " + init.name +
                           "), dimensions={0}, num_carries=1, is_associative=false, to_apply=" + step,
                       {&operand, &init}),
         shapes);
  return true;
}

// Matrix-matrix, vector-matrix or batched products; a narrow float or
// integer type is sometimes accumulated into a wider result.
bool writeDot(Builder& b) {
  std::optional<ElementType> type = b.typeFor([](ElementType t) { return !isPred(t); });
  const ElementType t = *type;
  static const std::vector<int64_t> kSizes = {0, 1, 2, 3, 5, 8, 16};
  const int64_t m = b.pickOf(kSizes), k = b.pickOf(kSizes), n = b.pickOf(kSizes), batch = 1 + b.pick(3);
  const int form = static_cast<int>(b.pick(3));
  Dims lhsDims = form == 0 ? Dims{m, k} : form == 1 ? Dims{k} : Dims{batch, m, k};
  Dims rhsDims = form == 2 ? Dims{batch, k, n} : Dims{k, n};
  Dims dims = form == 0 ? Dims{m, n} : form == 1 ? Dims{n} : Dims{batch, m, n};
  std::string attributes = form == 0   ? "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
                           : form == 1 ? "lhs_contracting_dims={0}, rhs_contracting_dims={0}"
                                       : "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                                         "rhs_contracting_dims={1}";
  ElementType result = t;
  if (b.oneIn(3)) {
    if (isFloat(t) && bitWidth(t) < 32) result = ElementType::kF32;
    if (isInteger(t) && bitWidth(t) < 32) result = isSigned(t) ? ElementType::kS32 : ElementType::kU32;
  }
  const bool floating = isFloat(t) || isComplex(t);
  const Need need = floating ? Need::kOrdinary : Need::kAny;
  Value lhs = b.need(t, lhsDims, need), rhs = b.need(t, rhsDims, need);
  b.define(result, dims, "dot(" + lhs.name + ", " + rhs.name + "), " + attributes, !floating && lhs.exact && rhs.exact,
           {&lhs, &rhs}, floating);
  return true;
}

// Rows of the left operand in groups, each group multiplied by its own
// right matrix; the group sizes are a constant that covers at most the rows
// (rows past the groups give zeros).
bool writeRaggedDot(Builder& b) {
  std::optional<ElementType> type = b.typeFor([](ElementType t) { return isFloat(t) || isInteger(t); });
  const ElementType t = *type;
  const int64_t m = b.pick(9), k = 1 + b.pick(4), n = 1 + b.pick(4), groups = 1 + b.pick(3);
  std::vector<int64_t> sizes;
  int64_t left = m;
  for (int64_t g = 0; g < groups; ++g) {
    sizes.push_back(static_cast<int64_t>(b.pick(left + 1)));
    left -= sizes.back();
  }
  const Need need = isFloat(t) ? Need::kOrdinary : Need::kAny;
  Value lhs = b.need(t, {m, k}, need), rhs = b.need(t, {groups, k, n}, need);
  Value groupSizes = b.define(ElementType::kS64, {groups}, "constant(" + listText(sizes) + ")", true, {});
  const bool floating = isFloat(t);
  b.define(t, {m, n},
           "ragged-dot(" + lhs.name + ", " + rhs.name + ", " + groupSizes.name +
               "), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}",
           !floating && lhs.exact && rhs.exact, {&lhs, &rhs, &groupSizes}, floating);
  return true;
}

// One spatial dimension (batch, feature, width) or two (NHWC), with
// strides and padding.
bool writeConvolution(Builder& b) {
  std::optional<ElementType> type = b.typeFor([](ElementType t) { return isReal(t); });
  const ElementType t = *type;
  const int spatial = 1 + static_cast<int>(b.pick(2));
  const int64_t batch = 1 + b.pick(2), in = 1 + b.pick(3), out = 1 + b.pick(3);
  std::vector<int64_t> inputSizes, windowSizes, strides, outSizes;
  std::string pads;
  for (int s = 0; s < spatial; ++s) {
    const int64_t size = 1 + b.pick(8), window = 1 + b.pick(3), stride = 1 + b.pick(2);
    const int64_t low = b.pick(2), high = b.pick(2);
    if (size + low + high < window) return false;
    inputSizes.push_back(size);
    windowSizes.push_back(window);
    strides.push_back(stride);
    outSizes.push_back((size + low + high - window) / stride + 1);
    pads += (pads.empty() ? "" : "x") + std::to_string(low) + "_" + std::to_string(high);
  }
  Dims inputDims, kernelDims, dims;
  std::string labels;
  if (spatial == 1) {
    inputDims = {batch, in, inputSizes[0]};
    kernelDims = {out, in, windowSizes[0]};
    dims = {batch, out, outSizes[0]};
    labels = "bf0_oi0->bf0";
  } else {
    inputDims = {batch, inputSizes[0], inputSizes[1], in};
    kernelDims = {windowSizes[0], windowSizes[1], in, out};
    dims = {batch, outSizes[0], outSizes[1], out};
    labels = "b01f_01io->b01f";
  }
  const bool floating = isFloat(t);
  const Need need = floating ? Need::kOrdinary : Need::kAny;
  Value input = b.need(t, inputDims, need), kernel = b.need(t, kernelDims, need);
  b.define(t, dims,
           "convolution(" + input.name + ", " + kernel.name + "), window={size=" + dimsOf(windowSizes) + " stride=" +
               dimsOf(strides) + " pad=" + pads + "}, dim_labels=" + labels,
           !floating && input.exact && kernel.exact, {&input, &kernel}, floating);
  return true;
}

bool writeFft(Builder& b) {
  static const std::vector<int64_t> kLengths = {1, 2, 3, 4, 5, 8, 16};
  const int64_t n = b.pickOf(kLengths), batch = 1 + b.pick(3);
  const bool wide = b.oneIn(3);
  const ElementType real = wide ? ElementType::kF64 : ElementType::kF32;
  const ElementType complex = wide ? ElementType::kC128 : ElementType::kC64;
  static const std::vector<std::string> kTypes = {"FFT", "IFFT", "RFFT", "IRFFT"};
  const std::string kind = b.pickOf(kTypes);
  const Dims full = {batch, n}, half = {batch, n / 2 + 1};
  const bool fromReal = kind == "RFFT", toReal = kind == "IRFFT";
  Value x = b.need(fromReal ? real : complex, toReal ? half : full, Need::kOrdinary);
  b.define(toReal ? real : complex, fromReal ? half : full,
           "fft(" + x.name + "), fft_type=" + kind + ", fft_length={" + std::to_string(n) + "}", false, {&x}, true);
  return true;
}

bool writeCholesky(Builder& b) {
  const ElementType t = b.oneIn(2) ? ElementType::kF32 : ElementType::kF64;
  const int64_t n = 1 + b.pick(4);
  Value a = diagonallyDominant(b, t, n);
  b.define(t, {n, n}, "cholesky(" + a.name + "), lower=" + (b.oneIn(2) ? "true" : "false"), false, {&a}, true);
  return true;
}

bool writeTriangularSolve(Builder& b) {
  const ElementType t = b.oneIn(2) ? ElementType::kF32 : ElementType::kF64;
  const int64_t n = 1 + b.pick(4), m = b.pick(4);
  Value a = diagonallyDominant(b, t, n);
  const bool left = b.oneIn(2);
  Value rhs = b.need(t, left ? Dims{n, m} : Dims{m, n}, Need::kOrdinary);
  b.define(t, rhs.dims,
           "triangular-solve(" + a.name + ", " + rhs.name + "), left_side=" + (left ? "true" : "false") +
               ", lower=" + (b.oneIn(2) ? "true" : "false") + ", unit_diagonal=" + (b.oneIn(4) ? "true" : "false") +
               ", transpose_a=" + (b.oneIn(2) ? "NO_TRANSPOSE" : "TRANSPOSE"),
           false, {&a, &rhs}, true);
  return true;
}

bool writeBatchNorm(Builder& b, Opcode op) {
  const ElementType t = b.oneIn(2) ? ElementType::kF32 : ElementType::kF64;
  const int64_t batch = 1 + b.pick(4), features = 1 + b.pick(3), width = 1 + b.pick(4);
  const Dims dims = {batch, features, width}, perFeature = {features};
  const std::string attributes = ", epsilon=0.001, feature_index=1";
  // Fresh parameters (values in [-1, 1)): with edge values the interpreter's
  // and an engine's orders of evaluation overflow differently.
  Value x = b.parameter(t, dims), scale = b.parameter(t, perFeature);
  const std::vector<Value> shapes = {Value{"", t, dims, false, true}, Value{"", t, perFeature, false, true},
                                     Value{"", t, perFeature, false, true}};
  if (op == Opcode::kBatchNormTraining) {
    Value offset = b.parameter(t, perFeature);
    unpack(b,
           b.defineOther(tupleShape(shapes),
                         "batch-norm-training(" + x.name + ", " + scale.name + ", " + offset.name + ")" + attributes,
                         {&x, &scale, &offset}),
           shapes);
    return true;
  }
  Value mean = b.parameter(t, perFeature), root = b.parameter(t, perFeature);
  Value variance = b.define(t, perFeature, "multiply(" + root.name + ", " + root.name + ")", true, {&root});
  if (op == Opcode::kBatchNormInference) {
    Value offset = b.parameter(t, perFeature);
    b.define(t, dims,
             "batch-norm-inference(" + x.name + ", " + scale.name + ", " + offset.name + ", " + mean.name + ", " +
                 variance.name + ")" + attributes,
             false, {&x, &scale, &offset, &mean, &variance}, true);
    return true;
  }
  Value gradient = b.parameter(t, dims);
  unpack(b,
         b.defineOther(tupleShape(shapes),
                       "batch-norm-grad(" + x.name + ", " + scale.name + ", " + mean.name + ", " + variance.name +
                           ", " + gradient.name + ")" + attributes,
                       {&x, &scale, &mean, &variance, &gradient}),
         shapes);
  return true;
}

bool writeRng(Builder& b) {
  std::optional<ElementType> type = b.typeFor([](ElementType t) { return isWideFloat(t) || t == ElementType::kS32; });
  const ElementType t = *type;
  const bool normal = isFloat(t) && b.oneIn(2);
  Value low = b.define(t, {}, normal ? "constant(0.5)" : "constant(-3)", true, {});
  Value high = b.define(t, {}, normal ? "constant(2)" : "constant(5)", true, {});
  b.define(t, b.someDims(),
           "rng(" + low.name + ", " + high.name + "), distribution=" + (normal ? "rng_normal" : "rng_uniform"), false,
           {&low, &high}, true);
  return true;
}

bool writeRngBitGenerator(Builder& b) {
  // rng_default is whatever the engine picks: not for XLA.
  const std::vector<std::string> kAlgorithms = b.forXla() ? std::vector<std::string>{"rng_philox", "rng_three_fry"}
                                                         : std::vector<std::string>{"rng_philox", "rng_three_fry", "rng_default"};
  const ElementType t = b.oneIn(2) ? ElementType::kU32 : ElementType::kU64;
  Value state = b.need(ElementType::kU64, {2}, Need::kExact);
  const std::vector<Value> shapes = {Value{"", ElementType::kU64, {2}}, Value{"", t, b.someDims()}};
  unpack(b,
         b.defineOther(tupleShape(shapes),
                       "rng-bit-generator(" + state.name + "), algorithm=" + b.pickOf(kAlgorithms), {&state}),
         shapes);
  return true;
}

bool writeRngState(Builder& b) {
  b.define(ElementType::kU64, {2}, "rng-get-and-update-state(), delta=" + std::to_string(1 + b.pick(64)), true, {});
  return true;
}

// Rounding toward zero or away by the random bits: exact for exact operands.
bool writeStochasticConvert(Builder& b) {
  static const std::vector<ElementType> kFrom = {ElementType::kF32, ElementType::kF16, ElementType::kBF16};
  const ElementType from = b.pickOf(kFrom);
  const ElementType bits = bitWidth(from) == 32 ? ElementType::kU32 : ElementType::kU16;
  const ElementType to = bitWidth(from) == 32 ? ElementType::kS32 : ElementType::kS8;
  const Dims dims = b.someDims();
  Value x = b.need(from, dims, Need::kExact), random = b.need(bits, dims, Need::kExact);
  b.define(to, dims, "stochastic-convert(" + x.name + ", " + random.name + ")", true, {&x, &random});
  return true;
}

}  // namespace hlo::conformance::fuzz
