// Library op: jax's LAPACK calls (hlo/lapack_call.h), run by the routine
// each names, in the call's own type (s, d, c or z), from the LAPACK that
// OpenBLAS carries: what jaxlib's kernels run on XLA:CPU, so results agree
// with XLA's to the rounding of two builds of one routine. Arrays here are
// row-major and LAPACK's matrices column-major: each matrix is transposed
// into a column-major buffer, run, and transposed back, except for potrf
// and trsm, which run in place on the transposed problem (see there).
//
// The routines are looked up by their Fortran names (dpotrf_, zheevd_, ...)
// and called with LAPACK's Fortran convention: every argument by pointer,
// 32-bit integers (OpenBLAS's default LP64 interface), and the lengths of
// the character arguments appended. Workspaces are sized by LAPACK's own
// query (lwork = -1). Matrices of a batch run one after another, each
// routine using OpenBLAS's threads; a batch of small matrices is split
// across the thread pool instead.
#include <dlfcn.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu/blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/lapack_call.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

using Len = size_t;  // a character argument's hidden length

template <typename S>
struct Real {
  using type = S;
};
template <typename F>
struct Real<std::complex<F>> {
  using type = F;
};

template <typename S>
constexpr bool kComplex = !std::is_same_v<S, typename Real<S>::type>;

template <typename S>
S conjugate(S x) {
  if constexpr (kComplex<S>) return std::conj(x);
  else return x;
}

// The LAPACK routines of scalar type S, in the Fortran convention.
template <typename S>
struct Routines {
  using R = typename Real<S>::type;
  void (*potrf)(const char*, const int*, S*, const int*, int*, Len) = nullptr;
  void (*getrf)(const int*, const int*, S*, const int*, int*, int*) = nullptr;
  void (*trsm)(const char*, const char*, const char*, const char*, const int*, const int*, const S*, const S*,
               const int*, S*, const int*, Len, Len, Len, Len) = nullptr;
  void (*geqrf)(const int*, const int*, S*, const int*, S*, S*, const int*, int*) = nullptr;
  void (*orgqr)(const int*, const int*, const int*, S*, const int*, const S*, S*, const int*, int*) = nullptr;
  // syevd (real): jobz uplo n a lda w work lwork iwork liwork info
  void (*syevd)(const char*, const char*, const int*, S*, const int*, R*, S*, const int*, int*, const int*, int*,
                Len, Len) = nullptr;
  // heevd (complex): ... work lwork rwork lrwork iwork liwork info
  void (*heevd)(const char*, const char*, const int*, S*, const int*, R*, S*, const int*, R*, const int*, int*,
                const int*, int*, Len, Len) = nullptr;
  // gesdd: jobz m n a lda s u ldu vt ldvt work lwork [rwork] iwork info
  void (*gesddReal)(const char*, const int*, const int*, S*, const int*, R*, S*, const int*, S*, const int*, S*,
                    const int*, int*, int*, Len) = nullptr;
  void (*gesddComplex)(const char*, const int*, const int*, S*, const int*, R*, S*, const int*, S*, const int*, S*,
                       const int*, R*, int*, int*, Len) = nullptr;
  // gesvd: jobu jobvt m n a lda s u ldu vt ldvt work lwork [rwork] info
  void (*gesvdReal)(const char*, const char*, const int*, const int*, S*, const int*, R*, S*, const int*, S*,
                    const int*, S*, const int*, int*, Len, Len) = nullptr;
  void (*gesvdComplex)(const char*, const char*, const int*, const int*, S*, const int*, R*, S*, const int*, S*,
                       const int*, S*, const int*, R*, int*, Len, Len) = nullptr;
  // ormqr: side trans m n k a lda tau c ldc work lwork info
  void (*ormqr)(const char*, const char*, const int*, const int*, const int*, const S*, const int*, const S*, S*,
                const int*, S*, const int*, int*, Len, Len) = nullptr;
  // geqp3: m n a lda jpvt tau work lwork [rwork] info
  void (*geqp3Real)(const int*, const int*, S*, const int*, int*, S*, S*, const int*, int*) = nullptr;
  void (*geqp3Complex)(const int*, const int*, S*, const int*, int*, S*, S*, const int*, R*, int*) = nullptr;
  void (*gehrd)(const int*, const int*, const int*, S*, const int*, S*, S*, const int*, int*) = nullptr;
  // sytrd (hetrd): uplo n a lda d e tau work lwork info
  void (*sytrd)(const char*, const int*, S*, const int*, R*, R*, S*, S*, const int*, int*, Len) = nullptr;
  void (*gtsv)(const int*, const int*, S*, S*, S*, S*, const int*, int*) = nullptr;
  // syrk (BLAS): uplo trans n k alpha a lda beta c ldc
  void (*syrk)(const char*, const char*, const int*, const int*, const S*, const S*, const int*, const S*, S*,
               const int*, Len, Len) = nullptr;
  // geev: jobvl jobvr n a lda (wr wi | w) vl ldvl vr ldvr work lwork [rwork] info
  void (*geevReal)(const char*, const char*, const int*, S*, const int*, S*, S*, S*, const int*, S*, const int*, S*,
                   const int*, int*, Len, Len) = nullptr;
  void (*geevComplex)(const char*, const char*, const int*, S*, const int*, S*, S*, const int*, S*, const int*, S*,
                      const int*, R*, int*, Len, Len) = nullptr;
  // gees: jobvs sort select n a lda sdim (wr wi | w) vs ldvs work lwork [rwork] bwork info
  void (*geesReal)(const char*, const char*, void*, const int*, S*, const int*, int*, S*, S*, S*, const int*, S*,
                   const int*, int*, int*, Len, Len) = nullptr;
  void (*geesComplex)(const char*, const char*, void*, const int*, S*, const int*, int*, S*, S*, const int*, S*,
                      const int*, R*, int*, int*, Len, Len) = nullptr;
};

template <typename S>
char letter() {
  if constexpr (std::is_same_v<S, float>) return 's';
  else if constexpr (std::is_same_v<S, double>) return 'd';
  else if constexpr (std::is_same_v<S, std::complex<float>>) return 'c';
  else return 'z';
}

// Looks up routine `name` ("potrf") of type S into `fn`, or says why not.
template <typename S, typename Fn>
Status lookUp(const Blas& lib, const std::string& name, Fn& fn) {
  std::string symbol = letter<S>() + name + "_";
  fn = reinterpret_cast<Fn>(dlsym(lib.library, symbol.c_str()));
  if (!fn) return errorStatus("the loaded OpenBLAS has no LAPACK routine " + symbol);
  return okStatus();
}

// The routine `call` needs, in `r`.
template <typename S>
Status routineFor(const LapackCall& call, Routines<S>& r) {
  std::string why;
  const Blas* lib = blas(&why);
  if (!lib) return errorStatus(why);
  switch (call.routine) {
    case LapackRoutine::kPotrf: return lookUp<S>(*lib, "potrf", r.potrf);
    case LapackRoutine::kGetrf: return lookUp<S>(*lib, "getrf", r.getrf);
    case LapackRoutine::kTrsm: return lookUp<S>(*lib, "trsm", r.trsm);
    case LapackRoutine::kGeqrf: return lookUp<S>(*lib, "geqrf", r.geqrf);
    case LapackRoutine::kOrgqr: return lookUp<S>(*lib, kComplex<S> ? "ungqr" : "orgqr", r.orgqr);
    case LapackRoutine::kSyevd:
      if constexpr (kComplex<S>) return lookUp<S>(*lib, "heevd", r.heevd);
      else return lookUp<S>(*lib, "syevd", r.syevd);
    case LapackRoutine::kGesdd:
    case LapackRoutine::kGesvdj:  // cuSOLVER's Jacobi and polar SVDs, here by divide and conquer
      if constexpr (kComplex<S>) return lookUp<S>(*lib, "gesdd", r.gesddComplex);
      else return lookUp<S>(*lib, "gesdd", r.gesddReal);
    case LapackRoutine::kPivotsToPermutation: return okStatus();  // no LAPACK
    case LapackRoutine::kSyrk: return lookUp<S>(*lib, "syrk", r.syrk);
    case LapackRoutine::kCsrlsvqr:  // densified, then QR: geqrf, Q^H b, R x = Q^H b
      HLO_RETURN_IF_ERROR(lookUp<S>(*lib, "geqrf", r.geqrf));
      HLO_RETURN_IF_ERROR(lookUp<S>(*lib, kComplex<S> ? "unmqr" : "ormqr", r.ormqr));
      return lookUp<S>(*lib, "trsm", r.trsm);
    case LapackRoutine::kGesvd:
      if constexpr (kComplex<S>) return lookUp<S>(*lib, "gesvd", r.gesvdComplex);
      else return lookUp<S>(*lib, "gesvd", r.gesvdReal);
    case LapackRoutine::kOrmqr: return lookUp<S>(*lib, kComplex<S> ? "unmqr" : "ormqr", r.ormqr);
    case LapackRoutine::kGeqp3:
      if constexpr (kComplex<S>) return lookUp<S>(*lib, "geqp3", r.geqp3Complex);
      else return lookUp<S>(*lib, "geqp3", r.geqp3Real);
    case LapackRoutine::kGehrd: return lookUp<S>(*lib, "gehrd", r.gehrd);
    case LapackRoutine::kSytrd: return lookUp<S>(*lib, kComplex<S> ? "hetrd" : "sytrd", r.sytrd);
    case LapackRoutine::kGtsv: return lookUp<S>(*lib, "gtsv", r.gtsv);
    case LapackRoutine::kGeev:
      if constexpr (kComplex<S>) return lookUp<S>(*lib, "geev", r.geevComplex);
      else return lookUp<S>(*lib, "geev", r.geevReal);
    case LapackRoutine::kGees:
      if constexpr (kComplex<S>) return lookUp<S>(*lib, "gees", r.geesComplex);
      else return lookUp<S>(*lib, "gees", r.geesReal);
  }
  return errorStatus("unknown LAPACK routine");
}

// Matrix `b` of a batch of row-major [rows, cols] matrices, column-major.
template <typename S>
void load(const Literal& lit, int64_t b, std::vector<S>& out) {
  const Shape& s = lit.shape();
  int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  out.resize(static_cast<size_t>(rows * cols));
  // Column-major [rows, cols] is row-major [cols, rows]: a transpose, in the
  // transpose op's vector blocks.
  transposeTile(lit.data<S>() + b * rows * cols, out.data(), cols, rows, cols, rows, sizeof(S));
}

template <typename S>
void store(const std::vector<S>& in, Literal& lit, int64_t b) {
  const Shape& s = lit.shape();
  int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  transposeTile(in.data(), lit.data<S>() + b * rows * cols, rows, cols, rows, cols, sizeof(S));
}

// LAPACK's workspace query answer (work[0] after lwork = -1), as a count.
template <typename S>
int workSize(const S& w) {
  double v = std::real(w);
  return std::max(1, static_cast<int>(v));
}

// Runs a routine that sizes its own workspace: `run` once with lwork = -1,
// the query (LAPACK writes the size it wants into work[0] and touches
// nothing else), then `sized` (for routines that ask for other workspaces
// in the same query), then `run` with a workspace of that size.
template <typename S, typename Run, typename Sized>
void withWorkspace(std::vector<S>& work, int& lwork, Run run, Sized sized) {
  work.assign(1, S(0));
  lwork = -1;
  run();
  work.resize(static_cast<size_t>(lwork = workSize(work[0])));
  sized();
  run();
}
template <typename S, typename Run>
void withWorkspace(std::vector<S>& work, int& lwork, Run run) {
  withWorkspace(work, lwork, run, [] {});
}

// One matrix of the batch: runs `call`'s routine on matrix `b`.
template <typename S>
void runOne(const LapackCall& call, const Routines<S>& fn, const RuntimeCall& rc, int64_t b) {
  using R = typename Real<S>::type;
  std::vector<Literal*> out = resultArrays(rc.result);
  int m = static_cast<int>(call.m), n = static_cast<int>(call.n), small = std::min(m, n);
  int lda = std::max(1, m), info = 0, lwork = -1;
  std::vector<S> a, x, u, vt, work;
  auto writeInfo = [&](Literal& lit) { lit.data<int32_t>()[b] = info; };
  switch (call.routine) {
    case LapackRoutine::kPotrf: {
      // In place, without transposing: the row-major array is, read
      // column-major, a^T, the same Hermitian matrix's other triangle, and
      // the factor of a^T's flipped triangle is there the factor asked for
      // (U with U^H U = a^T is L^T for L L^H = a).
      S* x = out[0]->data<S>() + b * n * n;
      std::copy_n(rc.operands[0]->data<S>() + b * n * n, n * n, x);
      char flipped = call.uplo == 'L' ? 'U' : 'L';
      fn.potrf(&flipped, &n, x, &lda, &info, 1);
      writeInfo(*out[1]);
      return;
    }
    case LapackRoutine::kGetrf: {
      load(*rc.operands[0], b, a);
      fn.getrf(&m, &n, a.data(), &lda, out[1]->data<int32_t>() + b * small, &info);
      store(a, *out[0], b);
      writeInfo(*out[2]);
      return;
    }
    case LapackRoutine::kTrsm: {
      // In place, without transposing: the row-major arrays are, read
      // column-major, a^T and b^T, and op(a) x = b is x^T op(a)^T = b^T
      // with op(a)^T = op'(a^T) for the same op: so the other side, the
      // other triangle, and n x m.
      int64_t k = call.k;
      S* xt = out[0]->data<S>() + b * m * n;
      std::copy_n(rc.operands[1]->data<S>() + b * m * n, m * n, xt);
      const S* at = rc.operands[0]->data<S>() + b * k * k;
      char side = call.side == 'L' ? 'R' : 'L', uplo = call.uplo == 'L' ? 'U' : 'L';
      int lda2 = std::max(1, static_cast<int>(k)), ldx = std::max(1, n);
      S one = 1;
      fn.trsm(&side, &uplo, &call.trans, &call.diag, &n, &m, &one, at, &lda2, xt, &ldx, 1, 1, 1, 1);
      return;
    }
    case LapackRoutine::kGeqrf: {
      load(*rc.operands[0], b, a);
      S* tau = out[1]->data<S>() + b * small;
      withWorkspace(work, lwork, [&] { fn.geqrf(&m, &n, a.data(), &lda, tau, work.data(), &lwork, &info); });
      store(a, *out[0], b);
      return;
    }
    case LapackRoutine::kOrgqr: {
      load(*rc.operands[0], b, a);
      int k = static_cast<int>(call.k);
      const S* tau = rc.operands[1]->data<S>() + b * k;
      withWorkspace(work, lwork, [&] { fn.orgqr(&m, &n, &k, a.data(), &lda, tau, work.data(), &lwork, &info); });
      store(a, *out[0], b);
      return;
    }
    case LapackRoutine::kSyevd: {
      load(*rc.operands[0], b, a);
      R* w = out[1]->data<R>() + b * n;
      std::vector<int> iwork(1);
      int liwork = -1;
      std::vector<R> rwork(1);
      int lrwork = -1;
      withWorkspace(
          work, lwork,
          [&] {
            if constexpr (kComplex<S>)
              fn.heevd(&call.mode, &call.uplo, &n, a.data(), &lda, w, work.data(), &lwork, rwork.data(), &lrwork,
                       iwork.data(), &liwork, &info, 1, 1);
            else
              fn.syevd(&call.mode, &call.uplo, &n, a.data(), &lda, w, work.data(), &lwork, iwork.data(), &liwork,
                       &info, 1, 1);
          },
          [&] {
            rwork.resize(static_cast<size_t>(lrwork = workSize(rwork[0])));
            iwork.resize(static_cast<size_t>(liwork = std::max(1, iwork[0])));
          });
      store(a, *out[0], b);
      writeInfo(*out[2]);
      return;
    }
    case LapackRoutine::kGesdd:
    case LapackRoutine::kGesvd:
    case LapackRoutine::kGesvdj: {
      load(*rc.operands[0], b, a);
      R* s = out[1]->data<R>() + b * small;
      bool vectors = call.mode != 'N';
      int ucols = call.mode == 'A' ? m : small, vtrows = call.mode == 'A' ? n : small;
      u.resize(vectors ? static_cast<size_t>(m) * ucols : 1);
      vt.resize(vectors ? static_cast<size_t>(vtrows) * n : 1);
      int ldu = vectors ? std::max(1, m) : 1, ldvt = vectors ? std::max(1, vtrows) : 1;
      std::vector<int> iwork(static_cast<size_t>(8 * std::max(1, small)));
      int64_t mx = std::max(m, n), mn = small;
      std::vector<R> rwork(kComplex<S> ? static_cast<size_t>(std::max<int64_t>(
                                             {7 * mn, 5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn, 1}))
                                       : 1);
      auto run = [&]() {
        if (call.routine != LapackRoutine::kGesvd) {
          if constexpr (kComplex<S>)
            fn.gesddComplex(&call.mode, &m, &n, a.data(), &lda, s, u.data(), &ldu, vt.data(), &ldvt, work.data(),
                            &lwork, rwork.data(), iwork.data(), &info, 1);
          else
            fn.gesddReal(&call.mode, &m, &n, a.data(), &lda, s, u.data(), &ldu, vt.data(), &ldvt, work.data(), &lwork,
                         iwork.data(), &info, 1);
        } else {
          if constexpr (kComplex<S>)
            fn.gesvdComplex(&call.mode, &call.mode, &m, &n, a.data(), &lda, s, u.data(), &ldu, vt.data(), &ldvt,
                            work.data(), &lwork, rwork.data(), &info, 1, 1);
          else
            fn.gesvdReal(&call.mode, &call.mode, &m, &n, a.data(), &lda, s, u.data(), &ldu, vt.data(), &ldvt,
                         work.data(), &lwork, &info, 1, 1);
        }
      };
      withWorkspace(work, lwork, run);
      store(a, *out[0], b);
      if (vectors && call.swappedVectors) {  // cuSOLVER's transposed gesvd: V^H, then U
        store(vt, *out[2], b);
        store(u, *out[3], b);
      } else if (vectors) {
        store(u, *out[2], b);
        if (call.routine == LapackRoutine::kGesvdj) {
          // gesvdj gives V: (V^H)^H, column-major n x vtrows.
          std::vector<S> v(static_cast<size_t>(n) * vtrows);
          for (int j = 0; j < vtrows; ++j)
            for (int i = 0; i < n; ++i) v[static_cast<size_t>(i + j * n)] = conjugate(vt[static_cast<size_t>(j + i * ldvt)]);
          store(v, *out[3], b);
        } else {
          store(vt, *out[3], b);
        }
      }
      writeInfo(*out[4]);
      return;
    }
    case LapackRoutine::kOrmqr: {
      load(*rc.operands[0], b, a);
      load(*rc.operands[2], b, x);
      int k = static_cast<int>(call.k), lda = std::max(1, static_cast<int>(call.left ? call.m : call.n));
      int ldc = std::max(1, m);
      const S* tau = rc.operands[1]->data<S>() + b * k;
      char side = call.left ? 'L' : 'R', trans = call.transpose ? (kComplex<S> ? 'C' : 'T') : 'N';
      withWorkspace(work, lwork, [&] {
        fn.ormqr(&side, &trans, &m, &n, &k, a.data(), &lda, tau, x.data(), &ldc, work.data(), &lwork, &info, 1, 1);
      });
      store(x, *out[0], b);
      return;
    }
    case LapackRoutine::kGeqp3: {
      load(*rc.operands[0], b, a);
      int* jpvt = out[1]->data<int32_t>() + b * n;
      std::copy_n(rc.operands[1]->data<int32_t>() + b * n, n, jpvt);
      S* tau = out[2]->data<S>() + b * small;
      std::vector<R> rwork(static_cast<size_t>(std::max(1, 2 * n)));
      auto run = [&]() {
        if constexpr (kComplex<S>)
          fn.geqp3Complex(&m, &n, a.data(), &lda, jpvt, tau, work.data(), &lwork, rwork.data(), &info);
        else
          fn.geqp3Real(&m, &n, a.data(), &lda, jpvt, tau, work.data(), &lwork, &info);
      };
      withWorkspace(work, lwork, run);
      store(a, *out[0], b);
      return;
    }
    case LapackRoutine::kGehrd: {
      load(*rc.operands[0], b, a);
      int low = static_cast<int>(call.low), high = static_cast<int>(call.high);
      S* tau = out[1]->data<S>() + b * std::max(n - 1, 0);
      std::vector<S> tauSpace;
      if (n <= 1) {  // LAPACK writes no tau then; give it somewhere to point
        tauSpace.resize(1);
        tau = tauSpace.data();
      }
      withWorkspace(work, lwork, [&] { fn.gehrd(&n, &low, &high, a.data(), &lda, tau, work.data(), &lwork, &info); });
      store(a, *out[0], b);
      writeInfo(*out[2]);
      return;
    }
    case LapackRoutine::kSytrd: {
      load(*rc.operands[0], b, a);
      int off = std::max(n - 1, 0);
      R* d = out[1]->data<R>() + b * n;
      std::vector<R> e(static_cast<size_t>(std::max(off, 1)));
      std::vector<S> tau(static_cast<size_t>(std::max(off, 1)));
      withWorkspace(work, lwork, [&] {
        fn.sytrd(&call.uplo, &n, a.data(), &lda, d, e.data(), tau.data(), work.data(), &lwork, &info, 1);
      });
      std::copy_n(e.data(), off, out[2]->data<R>() + b * off);
      std::copy_n(tau.data(), off, out[3]->data<S>() + b * off);
      store(a, *out[0], b);
      writeInfo(*out[4]);
      return;
    }
    case LapackRoutine::kGtsv: {
      // dl, d and du are overwritten: work on copies (the results' for
      // LAPACK's form, which returns them).
      std::vector<S> scratch;
      S* diagonals[3];
      if (call.gpu) scratch.resize(static_cast<size_t>(3 * m));
      for (int i = 0; i < 3; ++i) {
        diagonals[i] = call.gpu ? scratch.data() + i * m : out[i]->data<S>() + b * m;
        std::copy_n(rc.operands[i]->data<S>() + b * m, m, diagonals[i]);
      }
      load(*rc.operands[3], b, x);
      fn.gtsv(&m, &n, diagonals[0] + 1, diagonals[1], diagonals[2], x.data(), &lda, &info);
      if (call.gpu) {  // cuSPARSE's gtsv2 gives x alone
        store(x, *out[0], b);
        return;
      }
      store(x, *out[3], b);
      writeInfo(*out[4]);
      return;
    }
    case LapackRoutine::kSyrk: {
      // As cuBLAS runs it: the row-major arrays read column-major, the upper
      // triangle there (the lower one here) of c updated in place.
      int order = static_cast<int>(call.n), k = static_cast<int>(call.k);
      S* c = out[0]->data<S>() + b * order * order;
      std::copy_n(rc.operands[1]->data<S>() + b * order * order, order * order, c);
      const S* at = rc.operands[0]->data<S>() + b * order * k;
      char uplo = 'U', trans = call.transpose ? 'N' : 'T';
      int ldaT = std::max(1, call.transpose ? order : k), ldc = std::max(1, order);
      S alpha = rc.operands[2]->data<S>()[0], beta = rc.operands[3]->data<S>()[0];
      fn.syrk(&uplo, &trans, &order, &k, &alpha, at, &ldaT, &beta, c, &ldc, 1, 1);
      return;
    }
    case LapackRoutine::kCsrlsvqr: {
      // The structure was checked before the run (runLapackCall).
      int64_t nnz = call.k;
      const int32_t* indices = rc.operands[1]->data<int32_t>();
      std::vector<int64_t> rows = *compressedRowsOf(std::span<const int32_t>(indices, static_cast<size_t>(nnz)),
                                                    std::span<const int32_t>(rc.operands[2]->data<int32_t>(),
                                                                             static_cast<size_t>(n + 1)),
                                                    n);
      a.assign(static_cast<size_t>(n) * n, S(0));
      const S* data = rc.operands[0]->data<S>();
      for (int64_t i = 0; i < nnz; ++i) a[static_cast<size_t>(rows[i] + indices[i] * n)] += data[i];
      S* x = out[0]->data<S>();
      std::copy_n(rc.operands[3]->data<S>(), n, x);
      std::vector<S> tau(static_cast<size_t>(std::max(1, n)));
      withWorkspace(work, lwork, [&] { fn.geqrf(&n, &n, a.data(), &lda, tau.data(), work.data(), &lwork, &info); });
      for (int j = 0; j < n; ++j)
        if (!(std::abs(a[static_cast<size_t>(j + j * lda)]) > call.tolerance)) {
          std::fill_n(x, n, S(std::nan("")));  // singular to the tolerance
          return;
        }
      char side = 'L', trans = kComplex<S> ? 'C' : 'T', uplo = 'U', no = 'N';
      int one = 1;
      withWorkspace(work, lwork, [&] {
        fn.ormqr(&side, &trans, &n, &one, &n, a.data(), &lda, tau.data(), x, &lda, work.data(), &lwork, &info, 1, 1);
      });
      S unit = 1;
      fn.trsm(&side, &uplo, &no, &no, &n, &one, &unit, a.data(), &lda, x, &lda, 1, 1, 1, 1);
      return;
    }
    case LapackRoutine::kPivotsToPermutation: {
      const int32_t* pivots = rc.operands[0]->data<int32_t>() + b * call.k;
      int32_t* perm = out[0]->data<int32_t>() + b * call.m;
      for (int64_t i = 0; i < call.m; ++i) perm[i] = static_cast<int32_t>(i);
      for (int64_t i = 0; i < call.k; ++i)
        if (pivots[i] >= 0 && pivots[i] < call.m) std::swap(perm[i], perm[pivots[i]]);
      return;
    }
    case LapackRoutine::kGeev: {
      // The results: cuSOLVER's (a, w, vl, vr, info), vectors in a's type
      // packed as LAPACK packs them; LAPACK's (w, vl, vr, info) for complex
      // a, (wr, wi, vl, vr, info) with complex vectors for real a.
      using Complex = std::complex<R>;
      int vectorsAt = call.packedVectors || !kComplex<S> ? 2 : 1;
      int* infoOut = out[vectorsAt + 2]->data<int32_t>() + b;
      load(*rc.operands[0], b, a);
      auto finite = [](const S& v) { return std::isfinite(std::real(v)) && std::isfinite(std::imag(v)); };
      if (!std::all_of(a.begin(), a.end(), finite)) {
        *infoOut = -4;  // as jaxlib's kernel: LAPACK is not called
        return;
      }
      char jobvl = call.leftVectors ? 'V' : 'N', jobvr = call.rightVectors ? 'V' : 'N';
      int ld = std::max(1, n);
      u.resize(static_cast<size_t>(ld) * ld);
      vt.resize(static_cast<size_t>(ld) * ld);
      std::vector<S> wr(static_cast<size_t>(ld)), wi(wr.size());  // complex a: w in wr
      std::vector<R> rwork(static_cast<size_t>(std::max(1, 2 * n)));
      withWorkspace(work, lwork, [&] {
        if constexpr (kComplex<S>)
          fn.geevComplex(&jobvl, &jobvr, &n, a.data(), &lda, wr.data(), u.data(), &ld, vt.data(), &ld, work.data(),
                         &lwork, rwork.data(), infoOut, 1, 1);
        else
          fn.geevReal(&jobvl, &jobvr, &n, a.data(), &lda, wr.data(), wi.data(), u.data(), &ld, vt.data(), &ld,
                      work.data(), &lwork, infoOut, 1, 1);
      });
      if (call.packedVectors) {
        Complex* w = out[1]->data<Complex>() + b * n;
        for (int j = 0; j < n; ++j) w[j] = Complex(std::real(wr[j]), kComplex<S> ? std::imag(wr[j]) : std::real(wi[j]));
        store(a, *out[0], b);
      } else {
        std::copy_n(wr.data(), n, out[0]->data<S>() + b * n);
        if (!kComplex<S>) std::copy_n(wi.data(), n, out[1]->data<S>() + b * n);
      }
      if (*infoOut != 0) return;
      // A real a's conjugate pair's vectors are packed as the real and
      // imaginary parts in two columns: v_j = x_j + i x_{j+1}, v_{j+1} =
      // conj(v_j). LAPACK's form for real a unpacks them.
      auto give = [&](const std::vector<S>& packed, Literal& lit) {
        if (call.packedVectors || kComplex<S>) return store(packed, lit, b);
        Complex* to = lit.data<Complex>() + b * n * n;
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            R wij = std::real(wi[j]);
            auto at = [&](int row, int col) { return std::real(packed[static_cast<size_t>(row + col * ld)]); };
            to[i * n + j] = wij == 0  ? Complex(at(i, j), 0)
                            : wij > 0 ? Complex(at(i, j), at(i, j + 1))
                                      : Complex(at(i, j - 1), -at(i, j));
          }
      };
      if (call.leftVectors) give(u, *out[vectorsAt]);
      if (call.rightVectors) give(vt, *out[vectorsAt + 1]);
      return;
    }
    case LapackRoutine::kGees: {
      load(*rc.operands[0], b, a);
      char jobvs = call.mode, sort = 'N';
      int ld = std::max(1, n), sdim = 0;
      u.resize(static_cast<size_t>(ld) * ld);
      auto run = [&](int* infoOut) {
        if constexpr (kComplex<S>) {
          std::vector<R> rwork(static_cast<size_t>(std::max(1, n)));
          fn.geesComplex(&jobvs, &sort, nullptr, &n, a.data(), &lda, &sdim, out[2]->data<S>() + b * n, u.data(), &ld,
                         work.data(), &lwork, rwork.data(), nullptr, infoOut, 1, 1);
        } else {
          fn.geesReal(&jobvs, &sort, nullptr, &n, a.data(), &lda, &sdim, out[2]->data<S>() + b * n,
                      out[3]->data<S>() + b * n, u.data(), &ld, work.data(), &lwork, nullptr, infoOut, 1, 1);
        }
      };
      withWorkspace(work, lwork, [&] { run(&info); });
      int next = kComplex<S> ? 3 : 4;
      store(a, *out[0], b);
      if (call.mode == 'V') store(u, *out[1], b);
      out[next]->data<int32_t>()[b] = sdim;
      out[next + 1]->data<int32_t>()[b] = info;
      return;
    }
  }
  return;
}

template <typename S>
Status runAs(const LapackCall& call, const RuntimeCall& rc) {
  Routines<S> fn;
  HLO_RETURN_IF_ERROR(routineFor(call, fn));
  if (call.m == 0 || call.n == 0) return okStatus();  // nothing to factor; results stay zero
  // Split a batch across the thread pool when its matrices are small enough
  // that OpenBLAS's own threads would not help; else one at a time.
  bool small = std::max(call.m, call.n) <= 64;
  const Blas* lib = blas();
  if (!small || call.batch == 1) {
    lib->setThreads(rc.pool.workers() + 1);
    for (int64_t b = 0; b < call.batch; ++b) runOne(call, fn, rc, b);
    return okStatus();
  }
  lib->setThreads(1);
  int chunks = static_cast<int>(std::min<int64_t>(call.batch, 4 * (rc.pool.workers() + 1)));
  rc.pool.parallelFor(call.batch, chunks, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) runOne(call, fn, rc, b);
  });
  return okStatus();
}

Status runLapackCall(const RuntimeCall& rc) {
  HLO_ASSIGN_OR_RETURN(LapackCall call, lapackCallOf(rc.instr));
  if (call.routine == LapackRoutine::kCsrlsvqr) {
    StatusOr<std::vector<int64_t>> rows = compressedRowsOf(
        std::span<const int32_t>(rc.operands[1]->data<int32_t>(), static_cast<size_t>(call.k)),
        std::span<const int32_t>(rc.operands[2]->data<int32_t>(), static_cast<size_t>(call.n + 1)), call.n);
    if (!rows.ok()) return rows.status();
  }
  if (call.routine == LapackRoutine::kPivotsToPermutation) {
    Routines<float> none;
    for (int64_t b = 0; b < call.batch; ++b) runOne(call, none, rc, b);
    return okStatus();
  }
  switch (call.type) {
    case ElementType::kF32: return runAs<float>(call, rc);
    case ElementType::kF64: return runAs<double>(call, rc);
    case ElementType::kC64: return runAs<std::complex<float>>(call, rc);
    case ElementType::kC128: return runAs<std::complex<double>>(call, rc);
    default: return errorStatus("LAPACK call of element type " + std::string(elementTypeName(call.type)));
  }
}

}  // namespace

StatusOr<RuntimePlan> planLapackCall(HelperModule&, const Instruction& instr, const std::string&) {
  if (!isLapackCall(instr)) return RuntimePlan{};  // another custom call: not a library op
  StatusOr<LapackCall> call = lapackCallOf(instr);
  if (!call.ok()) return jit::cannotCompile(instr, call.status().message());
  return RuntimePlan{runLapackCall, {}};
}

}  // namespace hlo::cpu
