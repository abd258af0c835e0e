// Interpreter ops: triangular-solve, cholesky and the three batch-norm ops
// (fft lives in interp/fft.cc).
//
// All arithmetic is in double (complex<double> for complex types), rounded
// once to the result type. Matrices are the two minor dimensions; every
// leading dimension is a batch dimension.
#include <cmath>
#include <complex>

#include "hlo/batch_norm.h"
#include "interp/dense.h"
#include "interp/element_io.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

using C = std::complex<double>;

// A batch of square or rectangular matrices: the two minor dimensions.
struct Batches {
  int64_t count = 1, rows = 0, cols = 0;
};

Batches batchesOf(const Shape& s) {
  Batches b;
  for (int i = 0; i + 2 < s.rank(); ++i) b.count *= s.dim(i);
  b.rows = s.dim(s.rank() - 2);
  b.cols = s.dim(s.rank() - 1);
  return b;
}

// ---- triangular-solve ------------------------------------------------------
//
// Solves op(a) x = b (left_side) or x op(a) = b, op = identity, transpose or
// conjugate transpose (transpose_a), reading only the lower or upper
// triangle of a (lower), with 1s on the diagonal when unit_diagonal:
//   1. T = op(triangle of a); T is lower triangular iff lower != (op transposes).
//   2. Left side: forward substitution down the rows of T x = b if T is
//      lower, back substitution up them otherwise; each row subtracts the
//      known terms in increasing column order, then divides by the diagonal.
//   3. Right side: x T = b is T^t x^t = b^t (plain transpose), solved as in 2.

template <typename T>
void solveLower(const std::vector<T>& t, bool lower, std::vector<T>& x, int64_t m, int64_t k) {
  // x holds b on entry (m rows of k) and the solution on exit.
  for (int64_t step = 0; step < m; ++step) {
    int64_t i = lower ? step : m - 1 - step;
    for (int64_t c = 0; c < k; ++c) {
      T sum = x[i * k + c];
      int64_t from = lower ? 0 : i + 1, to = lower ? i : m;
      for (int64_t j = from; j < to; ++j) sum -= t[i * m + j] * x[j * k + c];
      x[i * k + c] = sum / t[i * m + i];
    }
  }
}

template <typename T>
StatusOr<Literal> triangularSolveAs(EvalContext& ctx, const Instruction& instr, const Literal& a, const Literal& b) {
  bool left = instr.attrs().getBool(AttrKey::kLeftSide, false);
  bool lower = instr.attrs().getBool(AttrKey::kLower, false);
  bool unit = instr.attrs().getBool(AttrKey::kUnitDiagonal, false);
  std::string_view op = instr.attrs().getString(AttrKey::kTransposeA);
  if (!op.empty() && op != "NO_TRANSPOSE" && op != "TRANSPOSE" && op != "ADJOINT")
    return EvalContext::unsupported(instr, "unknown transpose_a '" + std::string(op) + "'");
  bool transposed = op == "TRANSPOSE" || op == "ADJOINT";
  Batches ab = batchesOf(a.shape()), bb = batchesOf(b.shape());
  int64_t m = ab.rows;
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  std::vector<T> t(static_cast<size_t>(m * m)), x(static_cast<size_t>(bb.rows * bb.cols));
  for (int64_t batch = 0; batch < ab.count; ++batch) {
    int64_t aBase = batch * m * m, bBase = batch * bb.rows * bb.cols;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) {
        bool inTriangle = lower ? j <= i : j >= i;
        T v = i == j && unit ? T(1) : inTriangle ? readAs<T>(a, aBase + i * m + j) : T(0);
        if (!transposed) t[i * m + j] = v;
        else t[j * m + i] = op == "ADJOINT" ? conjugate(v) : v;
      }
    bool tLower = lower != transposed;
    if (left) {  // x is m x k
      for (int64_t i = 0; i < bb.rows * bb.cols; ++i) x[i] = readAs<T>(b, bBase + i);
      solveLower(t, tLower, x, m, bb.cols);
      for (int64_t i = 0; i < bb.rows * bb.cols; ++i) writeAs(out, bBase + i, x[i]);
      continue;
    }
    // b is k x m: solve T^t y = b^t with y = x^t (m x k).
    std::vector<T> tt(t.size());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) tt[i * m + j] = t[j * m + i];
    int64_t k = bb.rows;
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < m; ++c) x[c * k + r] = readAs<T>(b, bBase + r * m + c);
    solveLower(tt, !tLower, x, m, k);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < m; ++c) writeAs(out, bBase + r * m + c, x[c * k + r]);
  }
  return out;
}

}  // namespace

StatusOr<Literal> evalTriangularSolve(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops.size() != 2) return EvalContext::unsupported(instr, "expected a and b");
  const Shape& a = ops[0]->shape();
  const Shape& b = ops[1]->shape();
  bool left = instr.attrs().getBool(AttrKey::kLeftSide, false);
  if (!a.isArray() || !b.isArray() || a.rank() < 2 || b.rank() != a.rank() || a.type() != b.type() ||
      !instr.shape().isArray() || instr.shape().dims() != b.dims() || instr.shape().type() != b.type())
    return EvalContext::unsupported(instr, "a and b must be matrices of one type and rank");
  int r = a.rank();
  if (a.dim(r - 1) != a.dim(r - 2) || a.dim(r - 1) != b.dim(left ? r - 2 : r - 1))
    return EvalContext::unsupported(instr, "a must be square and share its size with b");
  for (int i = 0; i + 2 < r; ++i)
    if (a.dim(i) != b.dim(i)) return EvalContext::unsupported(instr, "batch dimensions of a and b differ");
  if (isComplex(a.type())) return triangularSolveAs<C>(ctx, instr, *ops[0], *ops[1]);
  if (isFloat(a.type())) return triangularSolveAs<double>(ctx, instr, *ops[0], *ops[1]);
  return EvalContext::unsupported(instr, "a must be floating-point or complex");
}

// ---- cholesky --------------------------------------------------------------
//
// lower=true: L with a = L L^H, reading the lower triangle of a;
// lower=false: U with a = U^H U, reading the upper triangle (U = L^H of the
// matrix whose lower triangle is that upper triangle conjugate-transposed).
// Column by column (Cholesky–Banachiewicz):
//   L[j][j] = sqrt(re(a[j][j]) - sum_k<j |L[j][k]|^2)
//   L[i][j] = (a[i][j] - sum_k<j L[i][k] conj(L[j][k])) / L[j][j]   (i > j)
// The other triangle of the result is zero (XLA leaves it unspecified). A
// matrix that is not positive definite gets NaNs from the sqrt of a negative.

namespace {

template <typename T>
StatusOr<Literal> choleskyAs(EvalContext& ctx, const Instruction& instr, const Literal& a) {
  bool lower = instr.attrs().getBool(AttrKey::kLower, false);
  Batches ab = batchesOf(a.shape());
  int64_t n = ab.rows;
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  std::vector<T> in(static_cast<size_t>(n * n)), l(static_cast<size_t>(n * n));
  for (int64_t batch = 0; batch < ab.count; ++batch) {
    int64_t base = batch * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j)
        in[i * n + j] = lower ? readAs<T>(a, base + i * n + j) : conjugate(readAs<T>(a, base + j * n + i));
    std::fill(l.begin(), l.end(), T(0));
    for (int64_t j = 0; j < n; ++j) {
      double d = std::real(in[j * n + j]);
      for (int64_t k = 0; k < j; ++k) d -= std::norm(l[j * n + k]);
      l[j * n + j] = T(std::sqrt(d));
      for (int64_t i = j + 1; i < n; ++i) {
        T sum = in[i * n + j];
        for (int64_t k = 0; k < j; ++k) sum -= l[i * n + k] * conjugate(l[j * n + k]);
        l[i * n + j] = sum / l[j * n + j];
      }
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        writeAs(out, base + i * n + j, lower ? l[i * n + j] : conjugate(l[j * n + i]));
  }
  return out;
}

}  // namespace

StatusOr<Literal> evalCholesky(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops.size() != 1) return EvalContext::unsupported(instr, "expected one operand");
  const Shape& a = ops[0]->shape();
  if (!a.isArray() || a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2) ||
      !instr.shape().isArray() || instr.shape().dims() != a.dims() || instr.shape().type() != a.type())
    return EvalContext::unsupported(instr, "operand must be a batch of square matrices");
  if (isComplex(a.type())) return choleskyAs<C>(ctx, instr, *ops[0]);
  if (isFloat(a.type())) return choleskyAs<double>(ctx, instr, *ops[0]);
  return EvalContext::unsupported(instr, "operand must be floating-point or complex");
}

// ---- batch-norm-training / -inference / -grad ------------------------------
//
// Per feature l (the feature_index dimension), over the m elements of all
// other dimensions, in double:
//   training:   mean = sum x / m, var = sum (x - mean)^2 / m (biased),
//               y = (x - mean) / sqrt(var + eps) * scale + offset;
//               result (y, mean, var)
//   inference:  y as above with the given mean and variance
//   grad:       with dy = grad_output, inv = 1 / sqrt(var + eps):
//               grad_offset = sum dy, grad_scale = sum dy (x - mean) * inv,
//               grad_x = scale * inv * (dy - sum dy / m
//                                       - (x - mean) * sum dy (x - mean) / (m (var + eps)))
//               result (grad_x, grad_scale, grad_offset)
// These are the operation-semantics formulas; XLA's expander computes them
// in the element type, so expect last-bit differences from it.

namespace {

struct Features {
  int64_t count = 0;  // features
  int64_t inner = 1;  // elements after the feature dimension
  int64_t perFeature = 0;
  int64_t of(int64_t linear) const { return linear / inner % count; }
};

StatusOr<Features> featuresOf(const Instruction& instr, Operands ops, size_t vectors, bool gradOutput) {
  const Shape& x = ops[0]->shape();
  int64_t f = instr.attrs().getInt(AttrKey::kFeatureIndex, -1);
  if (!x.isArray() || !isFloat(x.type()) || f < 0 || f >= x.rank())
    return EvalContext::unsupported(instr, "operand must be a floating-point array with a feature_index dimension");
  Features feat;
  feat.count = x.dim(static_cast<int>(f));
  for (int i = static_cast<int>(f) + 1; i < x.rank(); ++i) feat.inner *= x.dim(i);
  feat.perFeature = feat.count == 0 ? 0 : x.elementCount() / feat.count;
  if (ops.size() != vectors + 1 + (gradOutput ? 1 : 0)) return EvalContext::unsupported(instr, "wrong operand count");
  for (size_t i = 1; i <= vectors; ++i)
    if (!ops[i]->shape().isArray() || ops[i]->shape().rank() != 1 || ops[i]->shape().dim(0) != feat.count)
      return EvalContext::unsupported(instr, "scale, offset, mean and variance must be vectors of the feature count");
  if (gradOutput && ops.back()->shape().dims() != x.dims())
    return EvalContext::unsupported(instr, "grad_output must be shaped like the operand");
  return feat;
}

double epsilonOf(const Instruction& instr) { return batchNormEpsilon(instr); }

// y = (x - mean) / sqrt(var + eps) * scale + offset into `y`.
void normalize(const Literal& x, const Features& f, const std::vector<double>& mean, const std::vector<double>& var,
               const Literal& scale, const Literal& offset, double eps, Literal& y) {
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    int64_t l = f.of(i);
    writeFloat(y, i, (x.toDouble(i) - mean[l]) / std::sqrt(var[l] + eps) * scale.toDouble(l) + offset.toDouble(l));
  }
}

std::vector<double> vectorOf(const Literal& v) {
  std::vector<double> out(static_cast<size_t>(v.elementCount()));
  for (int64_t i = 0; i < v.elementCount(); ++i) out[i] = v.toDouble(i);
  return out;
}

Status checkResult(const Instruction& instr, const Shape& x, size_t parts, int64_t features) {
  const Shape& s = instr.shape();
  std::vector<Shape> want = {x};
  if (parts == 3) {
    Shape perFeature(x.type(), {features});
    want = {x, perFeature, perFeature};
  }
  std::vector<Shape> got = s.isTuple() ? s.tupleElements() : std::vector<Shape>{s};
  bool ok = got.size() == want.size() && s.isTuple() == (parts == 3);
  for (size_t i = 0; ok && i < got.size(); ++i)
    ok = got[i].isArray() && got[i].type() == want[i].type() && got[i].dims() == want[i].dims();
  if (!ok) return EvalContext::unsupported(instr, "result shape does not fit the operand");
  return okStatus();
}

}  // namespace

StatusOr<Literal> evalBatchNormInference(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(Features f, featuresOf(instr, ops, 4, false));
  HLO_RETURN_IF_ERROR(checkResult(instr, ops[0]->shape(), 1, f.count));
  HLO_ASSIGN_OR_RETURN(Literal y, ctx.allocate(instr.shape(), instr));
  normalize(*ops[0], f, vectorOf(*ops[3]), vectorOf(*ops[4]), *ops[1], *ops[2], epsilonOf(instr), y);
  return y;
}

StatusOr<Literal> evalBatchNormTraining(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(Features f, featuresOf(instr, ops, 2, false));
  HLO_RETURN_IF_ERROR(checkResult(instr, ops[0]->shape(), 3, f.count));
  const Literal& x = *ops[0];
  std::vector<double> mean(f.count, 0.0), var(f.count, 0.0);
  for (int64_t i = 0; i < x.elementCount(); ++i) mean[f.of(i)] += x.toDouble(i);
  for (double& m : mean) m /= static_cast<double>(f.perFeature);
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    double d = x.toDouble(i) - mean[f.of(i)];
    var[f.of(i)] += d * d;
  }
  for (double& v : var) v /= static_cast<double>(f.perFeature);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  std::vector<Literal>& parts = result.tupleElements();
  normalize(x, f, mean, var, *ops[1], *ops[2], epsilonOf(instr), parts[0]);
  for (int64_t l = 0; l < f.count; ++l) {
    writeFloat(parts[1], l, mean[l]);
    writeFloat(parts[2], l, var[l]);
  }
  return result;
}

StatusOr<Literal> evalBatchNormGrad(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(Features f, featuresOf(instr, ops, 3, true));
  HLO_RETURN_IF_ERROR(checkResult(instr, ops[0]->shape(), 3, f.count));
  const Literal& x = *ops[0];
  const Literal& dy = *ops[4];
  std::vector<double> scale = vectorOf(*ops[1]), mean = vectorOf(*ops[2]), var = vectorOf(*ops[3]);
  double eps = epsilonOf(instr);
  double m = static_cast<double>(f.perFeature);
  std::vector<double> sumDy(f.count, 0.0), sumDyXc(f.count, 0.0);
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    int64_t l = f.of(i);
    sumDy[l] += dy.toDouble(i);
    sumDyXc[l] += dy.toDouble(i) * (x.toDouble(i) - mean[l]);
  }
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  std::vector<Literal>& parts = result.tupleElements();
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    int64_t l = f.of(i);
    double inv = 1.0 / std::sqrt(var[l] + eps);
    double xc = x.toDouble(i) - mean[l];
    writeFloat(parts[0], i, scale[l] * inv * (dy.toDouble(i) - sumDy[l] / m - xc * sumDyXc[l] / (m * (var[l] + eps))));
  }
  for (int64_t l = 0; l < f.count; ++l) {
    writeFloat(parts[1], l, sumDyXc[l] / std::sqrt(var[l] + eps));
    writeFloat(parts[2], l, sumDy[l]);
  }
  return result;
}

}  // namespace hlo::interp
