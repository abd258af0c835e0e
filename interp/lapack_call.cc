// Interpreter op: jax's LAPACK calls (hlo/lapack_call.h), each matrix of the
// batch run through the reference algorithm (interp/lapack_reference.h) in
// double or complex<double> and rounded once to the call's type.
#include <complex>
#include <vector>

#include "hlo/lapack_call.h"
#include "interp/dense.h"
#include "interp/element_io.h"
#include "interp/lapack_reference.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

using lapack::C;
using lapack::Matrix;

// Matrix b of a batch held by `lit` (dimensions [..., rows, cols]).
template <typename T>
Matrix<T> load(const Literal& lit, int64_t b) {
  const Shape& s = lit.shape();
  int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  Matrix<T> m(rows, cols);
  int64_t base = b * rows * cols;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m(i, j) = readAs<T>(lit, base + i * cols + j);
  return m;
}

template <typename T>
void store(const Matrix<T>& m, Literal& lit, int64_t b) {
  int64_t base = b * m.rows * m.cols;
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) writeAs(lit, base + i * m.cols + j, m(i, j));
}

// The `size` elements of vector b of a batch.
template <typename T, typename V>
void storeVector(const std::vector<V>& v, Literal& lit, int64_t b) {
  int64_t size = static_cast<int64_t>(v.size());
  for (int64_t i = 0; i < size; ++i) {
    if constexpr (std::is_same_v<V, int32_t>) writeInt(lit, b * size + i, v[static_cast<size_t>(i)]);
    else writeAs(lit, b * size + i, T(v[static_cast<size_t>(i)]));
  }
}

template <typename T>
std::vector<T> loadVector(const Literal& lit, int64_t b, int64_t size) {
  std::vector<T> v(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) v[static_cast<size_t>(i)] = readAs<T>(lit, b * size + i);
  return v;
}

// Eigenvalues from results[next] on: complex ones in one array for a
// complex T; for a real T their real and imaginary parts in two. Returns
// the index after them.
template <typename T>
int storeEigenvalues(const std::vector<C>& w, const std::vector<Literal*>& results, int next, int64_t b) {
  if constexpr (std::is_same_v<T, C>) {
    storeVector<C>(w, *results[next], b);
    return next + 1;
  } else {
    std::vector<double> re(w.size()), im(w.size());
    for (size_t i = 0; i < w.size(); ++i) re[i] = w[i].real(), im[i] = w[i].imag();
    storeVector<double>(re, *results[next], b);
    storeVector<double>(im, *results[next + 1], b);
    return next + 2;
  }
}

template <typename T>
StatusOr<Literal> run(const LapackCall& call, const Instruction& instr, Operands ops) {
  Literal result(instr.shape());
  std::vector<Literal*> out;
  if (result.shape().isTuple())
    for (Literal& e : result.tupleElements()) out.push_back(&e);
  else
    out.push_back(&result);
  for (int64_t b = 0; b < call.batch; ++b) {
    switch (call.routine) {
      case LapackRoutine::kPotrf: {
        Matrix<T> a = load<T>(*ops[0], b);
        writeInt(*out[1], b, lapack::potrf(a, call.uplo));
        store(a, *out[0], b);
        break;
      }
      case LapackRoutine::kGetrf: {
        Matrix<T> a = load<T>(*ops[0], b);
        std::vector<int32_t> ipiv;
        writeInt(*out[2], b, lapack::getrf(a, ipiv));
        store(a, *out[0], b);
        storeVector<T>(ipiv, *out[1], b);
        break;
      }
      case LapackRoutine::kTrsm: {
        Matrix<T> a = load<T>(*ops[0], b), x = load<T>(*ops[1], b);
        lapack::trsm(a, x, call.side, call.uplo, call.trans, call.diag);
        store(x, *out[0], b);
        break;
      }
      case LapackRoutine::kGeqrf: {
        Matrix<T> a = load<T>(*ops[0], b);
        std::vector<T> tau;
        lapack::geqrf(a, tau);
        store(a, *out[0], b);
        storeVector<T>(tau, *out[1], b);
        break;
      }
      case LapackRoutine::kOrgqr: {
        Matrix<T> a = load<T>(*ops[0], b);
        lapack::orgqr(a, loadVector<T>(*ops[1], b, call.k));
        store(a, *out[0], b);
        break;
      }
      case LapackRoutine::kSyevd: {
        Matrix<T> a = load<T>(*ops[0], b);
        std::vector<double> w;
        lapack::syevd(a, w, call.uplo, call.mode == 'V');
        store(a, *out[0], b);
        storeVector<double>(w, *out[1], b);
        writeInt(*out[2], b, 0);
        break;
      }
      case LapackRoutine::kGesdd:
      case LapackRoutine::kGesvd:
      case LapackRoutine::kGesvdj: {
        Matrix<T> a = load<T>(*ops[0], b), u, vt;
        std::vector<double> s;
        lapack::gesvd(a, s, u, vt, call.mode);
        store(a, *out[0], b);
        storeVector<double>(s, *out[1], b);
        if (call.mode != 'N') {
          if (!call.swappedVectors) store(u, *out[2], b);
          if (call.routine == LapackRoutine::kGesvdj) {
            Matrix<T> v(vt.cols, vt.rows);  // gesvdj gives V, not V^H
            for (int64_t j = 0; j < vt.cols; ++j)
              for (int64_t i = 0; i < vt.rows; ++i) v(j, i) = conjugate(vt(i, j));
            store(v, *out[3], b);
          } else if (call.swappedVectors) {  // cuSOLVER's transposed gesvd: V^H, then U
            store(vt, *out[2], b);
            store(u, *out[3], b);
          } else {
            store(vt, *out[3], b);
          }
        }
        writeInt(*out[4], b, 0);
        break;
      }
      case LapackRoutine::kSyrk: {
        // alpha a a^T + beta c (a^T a when transposed) on and below the
        // diagonal; c above it.
        int64_t n = call.n, k = call.k;
        T alpha = readAs<T>(*ops[2], 0), beta = readAs<T>(*ops[3], 0);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            T c = readAs<T>(*ops[1], (b * n + i) * n + j);
            if (i >= j) {
              T sum = 0;
              for (int64_t l = 0; l < k; ++l)
                sum += call.transpose ? readAs<T>(*ops[0], (b * k + l) * n + i) * readAs<T>(*ops[0], (b * k + l) * n + j)
                                      : readAs<T>(*ops[0], (b * n + i) * k + l) * readAs<T>(*ops[0], (b * n + j) * k + l);
              c = alpha * sum + beta * c;
            }
            writeAs(*out[0], (b * n + i) * n + j, c);
          }
        break;
      }
      case LapackRoutine::kCsrlsvqr: {
        int64_t n = call.n;
        StatusOr<std::vector<int64_t>> rows = compressedRowsOf(
            std::span<const int32_t>(ops[1]->data<int32_t>(), static_cast<size_t>(call.k)),
            std::span<const int32_t>(ops[2]->data<int32_t>(), static_cast<size_t>(n + 1)), n);
        if (!rows.ok()) return EvalContext::unsupported(instr, rows.status().message());
        Matrix<T> a(n, n);
        for (int64_t i = 0; i < call.k; ++i)
          a((*rows)[static_cast<size_t>(i)], readInt(*ops[1], i)) += readAs<T>(*ops[0], i);
        std::vector<T> x = loadVector<T>(*ops[3], 0, n);
        if (!lapack::qrSolve(a, x, call.tolerance)) x.assign(static_cast<size_t>(n), T(std::nan("")));
        storeVector<T>(x, *out[0], 0);
        break;
      }
      case LapackRoutine::kPivotsToPermutation: {
        // Row swaps i <-> pivots[i] applied in order to 0..m-1.
        std::vector<int32_t> perm(static_cast<size_t>(call.m));
        for (int64_t i = 0; i < call.m; ++i) perm[static_cast<size_t>(i)] = static_cast<int32_t>(i);
        for (int64_t i = 0; i < call.k; ++i) {
          int64_t p = readInt(*ops[0], b * call.k + i);
          if (p < 0 || p >= call.m) continue;  // as the GPU kernel does: no swap
          std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(p)]);
        }
        storeVector<T>(perm, *out[0], b);
        break;
      }
      case LapackRoutine::kOrmqr: {
        Matrix<T> a = load<T>(*ops[0], b), c = load<T>(*ops[2], b);
        lapack::ormqr(a, loadVector<T>(*ops[1], b, call.k), c, call.left, call.transpose);
        store(c, *out[0], b);
        break;
      }
      case LapackRoutine::kGeqp3: {
        Matrix<T> a = load<T>(*ops[0], b);
        std::vector<int32_t> jpvt(static_cast<size_t>(call.n));
        for (int64_t j = 0; j < call.n; ++j) jpvt[static_cast<size_t>(j)] = static_cast<int32_t>(readInt(*ops[1], b * call.n + j));
        std::vector<T> tau;
        lapack::geqp3(a, jpvt, tau);
        store(a, *out[0], b);
        storeVector<T>(jpvt, *out[1], b);
        storeVector<T>(tau, *out[2], b);
        break;
      }
      case LapackRoutine::kGehrd: {
        Matrix<T> a = load<T>(*ops[0], b);
        std::vector<T> tau;
        lapack::gehrd(a, call.low, call.high, tau);
        store(a, *out[0], b);
        storeVector<T>(tau, *out[1], b);
        writeInt(*out[2], b, 0);
        break;
      }
      case LapackRoutine::kSytrd: {
        Matrix<T> a = load<T>(*ops[0], b);
        std::vector<double> d, e;
        std::vector<T> tau;
        lapack::sytrd(a, call.uplo, d, e, tau);
        store(a, *out[0], b);
        storeVector<double>(d, *out[1], b);
        storeVector<double>(e, *out[2], b);
        storeVector<T>(tau, *out[3], b);
        writeInt(*out[4], b, 0);
        break;
      }
      case LapackRoutine::kGtsv: {
        std::vector<T> dl = loadVector<T>(*ops[0], b, call.m), d = loadVector<T>(*ops[1], b, call.m),
                       du = loadVector<T>(*ops[2], b, call.m);
        Matrix<T> x = load<T>(*ops[3], b);
        int info = lapack::gtsv(dl, d, du, x);
        if (call.gpu) {  // gtsv2 gives x alone
          store(x, *out[0], b);
          break;
        }
        writeInt(*out[4], b, info);
        storeVector<T>(dl, *out[0], b);
        storeVector<T>(d, *out[1], b);
        storeVector<T>(du, *out[2], b);
        store(x, *out[3], b);
        break;
      }
      case LapackRoutine::kGeev: {
        Matrix<T> a = load<T>(*ops[0], b);
        std::vector<C> w;
        Matrix<C> vl, vr;
        int info = lapack::geev(a, w, call.leftVectors ? &vl : nullptr, call.rightVectors ? &vr : nullptr);
        if (call.packedVectors) {  // cuSOLVER's form: (a, w, vl, vr, info), vectors in a's type
          store(a, *out[0], b);
          storeVector<C>(w, *out[1], b);
          auto packed = [&](const Matrix<C>& v) {
            Matrix<T> p(v.rows, v.cols);
            for (int64_t j = 0; j < v.cols; ++j)
              for (int64_t i = 0; i < v.rows; ++i) {
                if constexpr (std::is_same_v<T, C>) {
                  p(i, j) = v(i, j);
                } else if (w[j].imag() == 0) {
                  p(i, j) = v(i, j).real();
                } else if (w[j].imag() > 0) {  // the pair's first: real and imaginary parts
                  p(i, j) = v(i, j).real();
                  p(i, j + 1) = v(i, j).imag();
                }
              }
            return p;
          };
          if (call.leftVectors && info == 0) store(packed(vl), *out[2], b);
          if (call.rightVectors && info == 0) store(packed(vr), *out[3], b);
          writeInt(*out[4], b, info);
          break;
        }
        int next = storeEigenvalues<T>(w, out, 0, b);
        if (call.leftVectors && info == 0) store(vl, *out[next], b);
        if (call.rightVectors && info == 0) store(vr, *out[next + 1], b);
        writeInt(*out[next + 2], b, info);
        break;
      }
      case LapackRoutine::kGees: {
        Matrix<T> a = load<T>(*ops[0], b), z;
        std::vector<C> w;
        int info = lapack::gees(a, z, w);
        store(a, *out[0], b);
        if (call.mode == 'V') store(z, *out[1], b);
        int next = storeEigenvalues<T>(w, out, 2, b);
        writeInt(*out[next], b, 0);  // no eigenvalues are selected without sorting
        writeInt(*out[next + 1], b, info);
        break;
      }
    }
  }
  return result;
}

}  // namespace

StatusOr<Literal> evalLapackCall(EvalContext&, const Instruction& instr, Operands ops) {
  StatusOr<LapackCall> call = lapackCallOf(instr);
  if (!call.ok()) return EvalContext::unsupported(instr, call.status().message());
  if (isComplex(call->type)) return run<C>(*call, instr, ops);
  return run<double>(*call, instr, ops);
}

}  // namespace hlo::interp
