// The CPU JIT's LAPACK calls (runtime_lapack.cc) against the interpreter's
// reference algorithms, on random batches of every type: outputs LAPACK
// defines uniquely (Cholesky and LU factors, pivots, solutions, Householder
// QR, eigenvalues, singular values) agree to the type's precision;
// eigenvectors and singular vectors, unique up to a sign or phase, agree
// in |<jit_j, reference_j>| = 1 for each column j.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "hlo/element_io.h"
#include "interp/evaluator.h"
#include "jit/executable.h"
#include "parser/parse_or_fail.h"

namespace hlo::cpu {
namespace {

using C = std::complex<double>;

struct Case {
  std::string routine;  // potrf, getrf, ...
  std::string results;  // the result shape, as text
  std::string operands;
  std::string config;
};

std::string typeName(ElementType t) { return std::string(elementTypeName(t)); }
char letterOf(ElementType t) {
  switch (t) {
    case ElementType::kF32: return 's';
    case ElementType::kF64: return 'd';
    case ElementType::kC64: return 'c';
    default: return 'z';
  }
}

// "f32[2,5,3]{1,2,0}": a batch of two matrices, column-major.
std::string matrix(ElementType t, int64_t rows, int64_t cols) {
  return typeName(t) + "[2," + std::to_string(rows) + "," + std::to_string(cols) + "]{1,2,0}";
}
std::string vector(ElementType t, int64_t size) { return typeName(t) + "[2," + std::to_string(size) + "]{1,0}"; }

// A module running the call on parameters of the shapes given.
std::string moduleText(const std::string& target, const std::vector<std::string>& params,
                       const std::string& result, const std::string& config) {
  std::string text = "HloModule m\nENTRY e {\n";
  std::string args, constraints;
  for (size_t i = 0; i < params.size(); ++i) {
    text += "  p" + std::to_string(i) + " = " + params[i] + " parameter(" + std::to_string(i) + ")\n";
    args += (i ? ", p" : "p") + std::to_string(i);
    constraints += (i ? ", " : "") + params[i];
  }
  return text + "  ROOT r = " + result + " custom-call(" + args + "), custom_call_target=\"" + target +
         "\", operand_layout_constraints={" + constraints + "}, api_version=API_VERSION_TYPED_FFI, backend_config={" +
         config + "}\n}\n";
}

Literal randomArray(const Shape& s, std::mt19937& rng, bool positiveDefinite) {
  std::normal_distribution<double> normal;
  Literal lit(s);
  int64_t n = s.dim(s.rank() - 1), rows = s.dim(s.rank() - 2), count = s.elementCount();
  for (int64_t i = 0; i < count; ++i) {
    C v(normal(rng), isComplex(s.type()) ? normal(rng) : 0.0);
    if (positiveDefinite) {
      // Diagonally dominant Hermitian: random off the diagonal (mirrored by
      // reading one triangle), 3n on it.
      int64_t r = (i / n) % rows, c = i % n;
      if (r == c) v = 3.0 * static_cast<double>(n);
    }
    if (isComplex(s.type())) writeComplex(lit, i, v);
    else writeFloat(lit, i, v.real());
  }
  return lit;
}

Shape parseShapeOrDie(const std::string& text) {
  StatusOr<Shape> s = parseShape(text);
  EXPECT_TRUE(s.ok()) << text;
  return s.ok() ? *s : Shape();
}

double tolerance(ElementType t) { return t == ElementType::kF32 || t == ElementType::kC64 ? 2e-4 : 1e-10; }

// The runs of one module on the JIT and the interpreter.
struct Runs {
  Literal jit, reference;
};

Runs run(const std::string& text, const std::vector<Literal>& args) {
  auto module = parseOrFail(text);
  EXPECT_TRUE(module) << text;
  if (!module) return {};
  auto exe = jit::compile(*module, "cpu", jit::CompileOptions{});
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  StatusOr<Literal> jit = (*exe)->run(args);
  StatusOr<Literal> reference = interp::evaluate(*module, args);
  EXPECT_TRUE(jit.ok()) << jit.status().message();
  EXPECT_TRUE(reference.ok()) << reference.status().message();
  if (!jit.ok() || !reference.ok()) return {};
  return {std::move(*jit), std::move(*reference)};
}

const Literal& part(const Literal& lit, int i) { return lit.shape().isTuple() ? lit.tupleElements()[i] : lit; }

void expectClose(const Literal& got, const Literal& want, double tol, const std::string& what) {
  ASSERT_EQ(got.elementCount(), want.elementCount()) << what;
  for (int64_t i = 0; i < got.elementCount(); ++i) {
    C g = got.toComplex(i), w = want.toComplex(i);
    ASSERT_LE(std::abs(g - w), tol * (1 + std::abs(w))) << what << " element " << i;
  }
}

// Columns j of two batches of [rows, cols] matrices (or rows, when
// `byRows`) are the same vector up to a phase: |<a_j, b_j>| = 1.
void expectSameUpToPhase(const Literal& a, const Literal& b, int64_t columns, double tol, bool byRows,
                         const std::string& what) {
  const Shape& s = a.shape();
  int64_t rows = s.dim(1), cols = s.dim(2);
  for (int64_t batch = 0; batch < 2; ++batch)
    for (int64_t j = 0; j < columns; ++j) {
      C dot = 0;
      int64_t length = byRows ? cols : rows;
      for (int64_t i = 0; i < length; ++i) {
        int64_t at = batch * rows * cols + (byRows ? j * cols + i : i * cols + j);
        dot += std::conj(a.toComplex(at)) * b.toComplex(at);
      }
      EXPECT_NEAR(std::abs(dot), 1.0, tol) << what << " batch " << batch << " vector " << j;
    }
}

class LapackCalls : public ::testing::TestWithParam<ElementType> {
 protected:
  ElementType t() const { return GetParam(); }
  ElementType real() const { return isComplex(t()) ? complexComponentType(t()) : t(); }
  std::string target(const std::string& routine) const {
    return std::string("lapack_") + letterOf(t()) + routine + "_ffi";
  }
  std::mt19937 rng{7};
};

TEST_P(LapackCalls, Potrf) {
  for (char uplo : {'L', 'U'}) {
    std::string a = matrix(t(), 6, 6);
    std::vector<Literal> args;
    args.push_back(randomArray(parseShapeOrDie(a), rng, true));
    Runs r = run(moduleText(target("potrf"), {a}, "(" + a + ", s32[2]{0})",
                            "uplo = " + std::to_string(static_cast<int>(uplo)) + " : ui8"),
                 args);
    expectClose(part(r.jit, 0), part(r.reference, 0), tolerance(t()), "factor");
    expectClose(part(r.jit, 1), part(r.reference, 1), 0, "info");
  }
}

TEST_P(LapackCalls, Getrf) {
  std::string a = matrix(t(), 5, 4);
  std::vector<Literal> args;
  args.push_back(randomArray(parseShapeOrDie(a), rng, false));
  Runs r = run(moduleText(target("getrf"), {a}, "(" + a + ", s32[2,4]{1,0}, s32[2]{0})", ""), args);
  expectClose(part(r.jit, 0), part(r.reference, 0), tolerance(t()), "L and U");
  expectClose(part(r.jit, 1), part(r.reference, 1), 0, "pivots");
  expectClose(part(r.jit, 2), part(r.reference, 2), 0, "info");
}

TEST_P(LapackCalls, Trsm) {
  struct Form {
    char side, uplo, trans, diag;
  };
  for (Form f : {Form{'L', 'L', 'N', 'N'}, Form{'R', 'U', 'C', 'U'}, Form{'L', 'U', 'T', 'N'}}) {
    std::string a = matrix(t(), f.side == 'L' ? 5 : 3, f.side == 'L' ? 5 : 3), b = matrix(t(), 5, 3);
    std::vector<Literal> args;
    args.push_back(randomArray(parseShapeOrDie(a), rng, true));
    args.push_back(randomArray(parseShapeOrDie(b), rng, false));
    auto c = [](char x) { return std::to_string(static_cast<int>(x)) + " : ui8"; };
    Runs r = run(moduleText(target("trsm"), {a, b}, b,
                            "diag = " + c(f.diag) + ", side = " + c(f.side) + ", trans_x = " + c(f.trans) +
                                ", uplo = " + c(f.uplo)),
                 args);
    expectClose(r.jit, r.reference, tolerance(t()), std::string("x, side ") + f.side);
  }
}

TEST_P(LapackCalls, GeqrfAndOrgqr) {
  std::string a = matrix(t(), 5, 3), tau = vector(t(), 3);
  std::vector<Literal> args;
  args.push_back(randomArray(parseShapeOrDie(a), rng, false));
  Runs qr = run(moduleText(target("geqrf"), {a}, "(" + a + ", " + tau + ")", ""), args);
  expectClose(part(qr.jit, 0), part(qr.reference, 0), tolerance(t()), "R and reflectors");
  expectClose(part(qr.jit, 1), part(qr.reference, 1), tolerance(t()), "tau");
  std::vector<Literal> reflectors;
  reflectors.push_back(part(qr.reference, 0));
  reflectors.push_back(part(qr.reference, 1));
  Runs q = run(moduleText(target(isComplex(t()) ? "ungqr" : "orgqr"), {a, tau}, a, ""), reflectors);
  expectClose(q.jit, q.reference, tolerance(t()), "Q");
}

TEST_P(LapackCalls, Syevd) {
  std::string a = matrix(t(), 5, 5);
  std::vector<Literal> args;
  args.push_back(randomArray(parseShapeOrDie(a), rng, false));
  Runs r = run(moduleText(target(isComplex(t()) ? "heevd" : "syevd"), {a},
                          "(" + a + ", " + vector(real(), 5) + ", s32[2]{0})", "mode = 86 : ui8, uplo = 76 : ui8"),
               args);
  expectClose(part(r.jit, 1), part(r.reference, 1), tolerance(t()), "eigenvalues");
  expectSameUpToPhase(part(r.jit, 0), part(r.reference, 0), 5, 100 * tolerance(t()), false, "eigenvector");
  expectClose(part(r.jit, 2), part(r.reference, 2), 0, "info");
}

TEST_P(LapackCalls, SvdBothRoutines) {
  for (std::string routine : {"gesdd", "gesvd"})
    for (char mode : {'A', 'S'}) {
      int64_t p = mode == 'A' ? 5 : 3;
      std::string a = matrix(t(), 5, 3);
      std::vector<Literal> args;
      args.push_back(randomArray(parseShapeOrDie(a), rng, false));
      std::string result = "(" + a + ", " + vector(real(), 3) + ", " + matrix(t(), 5, p) + ", " + matrix(t(), 3, 3) +
                           ", s32[2]{0})";
      Runs r = run(moduleText(target(routine), {a}, result,
                              "mode = " + std::to_string(static_cast<int>(mode)) + " : ui8"),
                   args);
      std::string what = routine + " mode " + mode;
      expectClose(part(r.jit, 1), part(r.reference, 1), tolerance(t()), what + " singular values");
      // The first three columns of U (the rest, in mode A, span the
      // orthogonal complement in a basis of no particular choice).
      expectSameUpToPhase(part(r.jit, 2), part(r.reference, 2), 3, 100 * tolerance(t()), false, what + " U");
      expectSameUpToPhase(part(r.jit, 3), part(r.reference, 3), 3, 100 * tolerance(t()), true, what + " V^H");
      expectClose(part(r.jit, 4), part(r.reference, 4), 0, what + " info");
    }
}

TEST_P(LapackCalls, Ormqr) {
  for (bool left : {true, false})
    for (bool transpose : {false, true}) {
      std::string a = matrix(t(), left ? 5 : 3, 2), tau = vector(t(), 2), c = matrix(t(), 5, 3);
      std::vector<Literal> args;
      args.push_back(randomArray(parseShapeOrDie(a), rng, false));
      // tau from a real QR, so that each H is a reflection.
      Runs qr = run(moduleText(target("geqrf"), {a}, "(" + a + ", " + tau + ")", ""), args);
      std::vector<Literal> in;
      in.push_back(part(qr.reference, 0));
      in.push_back(part(qr.reference, 1));
      in.push_back(randomArray(parseShapeOrDie(c), rng, false));
      Runs r = run(moduleText(target(isComplex(t()) ? "unmqr" : "ormqr"), {a, tau, c}, c,
                              std::string("left = ") + (left ? "true" : "false") +
                                  ", transpose = " + (transpose ? "true" : "false")),
                   in);
      expectClose(r.jit, r.reference, tolerance(t()), std::string("left ") + (left ? "1" : "0") + " transpose " +
                                                           (transpose ? "1" : "0"));
    }
}

TEST_P(LapackCalls, Geqp3) {
  std::string a = matrix(t(), 5, 4), p = "s32[2,4]{1,0}";
  std::vector<Literal> args;
  args.push_back(randomArray(parseShapeOrDie(a), rng, false));
  args.emplace_back(parseShapeOrDie(p));  // all free
  Runs r = run(moduleText(target("geqp3"), {a, p}, "(" + a + ", " + p + ", " + vector(t(), 4) + ")", ""), args);
  expectClose(part(r.jit, 0), part(r.reference, 0), tolerance(t()), "R and reflectors");
  expectClose(part(r.jit, 1), part(r.reference, 1), 0, "pivots");
  expectClose(part(r.jit, 2), part(r.reference, 2), tolerance(t()), "tau");
}

TEST_P(LapackCalls, Gehrd) {
  std::string a = matrix(t(), 5, 5);
  std::vector<Literal> args;
  args.push_back(randomArray(parseShapeOrDie(a), rng, false));
  Runs r = run(moduleText(target("gehrd"), {a}, "(" + a + ", " + vector(t(), 4) + ", s32[2]{0})",
                          "high = 5 : i32, low = 1 : i32"),
               args);
  expectClose(part(r.jit, 0), part(r.reference, 0), tolerance(t()), "H and reflectors");
  expectClose(part(r.jit, 1), part(r.reference, 1), tolerance(t()), "tau");
}

TEST_P(LapackCalls, Sytrd) {
  for (char uplo : {'L', 'U'}) {
    std::string a = matrix(t(), 5, 5);
    std::vector<Literal> args;
    args.push_back(randomArray(parseShapeOrDie(a), rng, false));
    Runs r = run(moduleText(target(isComplex(t()) ? "hetrd" : "sytrd"), {a},
                            "(" + a + ", " + vector(real(), 5) + ", " + vector(real(), 4) + ", " + vector(t(), 4) +
                                ", s32[2]{0})",
                            "uplo = " + std::to_string(static_cast<int>(uplo)) + " : ui8"),
                 args);
    std::string what = std::string("uplo ") + uplo;
    expectClose(part(r.jit, 0), part(r.reference, 0), tolerance(t()), what + " reflectors");
    expectClose(part(r.jit, 1), part(r.reference, 1), tolerance(t()), what + " d");
    expectClose(part(r.jit, 2), part(r.reference, 2), tolerance(t()), what + " e");
    expectClose(part(r.jit, 3), part(r.reference, 3), tolerance(t()), what + " tau");
  }
}

TEST_P(LapackCalls, Gtsv) {
  std::string v = vector(t(), 6), b = matrix(t(), 6, 2);
  std::vector<Literal> args;
  for (int i = 0; i < 3; ++i) args.push_back(randomArray(parseShapeOrDie(v), rng, false));
  args.push_back(randomArray(parseShapeOrDie(b), rng, false));
  Runs r = run(moduleText(target("gtsv"), {v, v, v, b}, "(" + v + ", " + v + ", " + v + ", " + b + ", s32[2]{0})", ""),
               args);
  expectClose(part(r.jit, 3), part(r.reference, 3), 10 * tolerance(t()), "x");
  expectClose(part(r.jit, 4), part(r.reference, 4), 0, "info");
}

// The eigenvalues of batch matrix `b` in `lit` (real and imaginary parts in
// two arrays for a real type), sorted.
std::vector<C> sortedEigenvalues(const Literal& result, bool complex, int64_t b, int64_t n) {
  std::vector<C> w;
  for (int64_t i = 0; i < n; ++i)
    w.push_back(complex ? part(result, 0).toComplex(b * n + i)
                        : C(part(result, 0).toDouble(b * n + i), part(result, 1).toDouble(b * n + i)));
  std::sort(w.begin(), w.end(), [](C x, C y) { return x.real() != y.real() ? x.real() < y.real() : x.imag() < y.imag(); });
  return w;
}

TEST_P(LapackCalls, GeevAndGees) {
  bool complex = isComplex(t());
  ElementType vectorsType = complex ? t() : (t() == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64);
  std::string a = matrix(t(), 5, 5), v = matrix(vectorsType, 5, 5);
  std::vector<Literal> args;
  args.push_back(randomArray(parseShapeOrDie(a), rng, false));
  std::string values = complex ? vector(t(), 5) : vector(t(), 5) + ", " + vector(t(), 5);
  Runs eig = run(moduleText(target("geev"), {a}, "(" + values + ", " + v + ", " + v + ", s32[2]{0})",
                            "compute_left = 86 : ui8, compute_right = 86 : ui8"),
                 args);
  Runs schur = run(moduleText(target("gees"), {a}, "(" + a + ", " + a + ", " + values + ", s32[2]{0}, s32[2]{0})",
                              "mode = 86 : ui8, sort = 78 : ui8"),
                   args);
  int vectorsAt = complex ? 1 : 2;
  for (int64_t b = 0; b < 2; ++b) {
    // The eigenvalues as sets (the order is the QR algorithm's).
    std::vector<C> jit = sortedEigenvalues(eig.jit, complex, b, 5), ref = sortedEigenvalues(eig.reference, complex, b, 5);
    Literal wSchur = part(schur.jit, 2);
    for (int64_t i = 0; i < 5; ++i) EXPECT_LT(std::abs(jit[i] - ref[i]), tolerance(t()) * 10 * (1 + std::abs(ref[i])));
    std::vector<C> fromSchur;
    for (int64_t i = 0; i < 5; ++i)
      fromSchur.push_back(complex ? wSchur.toComplex(b * 5 + i)
                                  : C(wSchur.toDouble(b * 5 + i), part(schur.jit, 3).toDouble(b * 5 + i)));
    std::sort(fromSchur.begin(), fromSchur.end(),
              [](C x, C y) { return x.real() != y.real() ? x.real() < y.real() : x.imag() < y.imag(); });
    for (int64_t i = 0; i < 5; ++i) EXPECT_LT(std::abs(fromSchur[i] - ref[i]), tolerance(t()) * 10 * (1 + std::abs(ref[i])));
  }
  // Each engine's vectors are eigenvectors of a, of unit norm.
  for (const Literal* result : {&eig.jit, &eig.reference}) {
    const Literal& w0 = part(*result, 0);
    const Literal& vr = part(*result, vectorsAt + 1);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t k = 0; k < 5; ++k) {
        C wk = complex ? w0.toComplex(b * 5 + k) : C(w0.toDouble(b * 5 + k), part(*result, 1).toDouble(b * 5 + k));
        double residual = 0, norm = 0;
        for (int64_t i = 0; i < 5; ++i) {
          C av = 0;
          for (int64_t l = 0; l < 5; ++l) av += args[0].toComplex(b * 25 + i * 5 + l) * vr.toComplex(b * 25 + l * 5 + k);
          residual = std::max(residual, std::abs(av - wk * vr.toComplex(b * 25 + i * 5 + k)));
          norm += std::norm(vr.toComplex(b * 25 + i * 5 + k));
        }
        EXPECT_LT(residual, 100 * tolerance(t()) * (1 + std::abs(wk))) << (result == &eig.jit ? "jit" : "reference");
        EXPECT_NEAR(norm, 1, 100 * tolerance(t()));
      }
  }
}

// The forms of jax's GPU dumps (cusolver_*, cusparse_gtsv2) run the same
// routines: the JIT against the reference on each.
TEST_P(LapackCalls, GpuForms) {
  std::string a = matrix(t(), 5, 5), tall = matrix(t(), 5, 3), tau = vector(t(), 3), info = "s32[2]{0}";
  auto random = [&](const std::string& shape, bool definite) {
    std::vector<Literal> args;
    args.push_back(randomArray(parseShapeOrDie(shape), rng, definite));
    return args;
  };
  struct Form {
    std::string target, operand, result, config;
    bool definite;
    std::vector<int> compared;  // results compared by value
  };
  std::vector<Form> forms = {
      {"cusolver_potrf_ffi", a, "(" + a + ", " + info + ")", "lower = true", true, {0, 1}},
      {"cusolver_potrf_ffi", a, "(" + a + ", " + info + ")", "lower = false", true, {0, 1}},
      {"cusolver_getrf_ffi", a, "(" + a + ", s32[2,5]{1,0}, " + info + ")", "", false, {0, 1, 2}},
      {"cusolver_geqrf_ffi", tall, "(" + tall + ", " + tau + ")", "", false, {0, 1}},
      {"cusolver_syevd_ffi", a, "(" + a + ", " + vector(real(), 5) + ", " + info + ")", "algorithm = 0 : ui8, lower = true",
       false, {1, 2}},
      {"cusolver_sytrd_ffi", a,
       "(" + a + ", " + vector(real(), 5) + ", " + vector(real(), 4) + ", " + vector(t(), 4) + ", " + info + ")",
       "lower = false", false, {0, 1, 2, 3}},
      {"cusolver_gesvdj_ffi", tall,
       "(" + tall + ", " + vector(real(), 3) + ", " + matrix(t(), 5, 5) + ", " + matrix(t(), 3, 3) + ", " + info + ")",
       "compute_uv = true, full_matrices = true", false, {1, 4}},
      {"cusolver_gesvdp_ffi", tall,
       "(" + tall + ", " + vector(real(), 3) + ", " + tall + ", " + matrix(t(), 3, 3) + ", " + info + ")",
       "compute_uv = true, full_matrices = false", false, {1, 4}},
      {"cusolver_gesdd_ffi", tall,
       "(" + tall + ", " + vector(real(), 3) + ", " + tall + ", " + matrix(t(), 3, 3) + ", " + info + ")",
       "compute_uv = true, full_matrices = false, transposed = false", false, {1, 4}},
      {"cusolver_gesvd_ffi", tall,
       "(" + tall + ", " + vector(real(), 3) + ", " + matrix(t(), 5, 5) + ", " + matrix(t(), 3, 3) + ", " + info + ")",
       "compute_uv = true, full_matrices = true, transposed = false", false, {1, 4}},
  };
  for (const Form& f : forms) {
    Runs r = run(moduleText(f.target, {f.operand}, f.result, f.config), random(f.operand, f.definite));
    for (int i : f.compared)
      expectClose(part(r.jit, i), part(r.reference, i), tolerance(t()), f.target + " result " + std::to_string(i));
    if (f.target == "cusolver_gesvdj_ffi" || f.target == "cusolver_gesvdp_ffi") {
      // V, not V^H: the same columns up to phase on both engines.
      expectSameUpToPhase(part(r.jit, 2), part(r.reference, 2), 3, 100 * tolerance(t()), false, f.target + " U");
      expectSameUpToPhase(part(r.jit, 3), part(r.reference, 3), 3, 100 * tolerance(t()), false, f.target + " V");
    } else if (f.target == "cusolver_gesdd_ffi" || f.target == "cusolver_gesvd_ffi") {
      expectSameUpToPhase(part(r.jit, 2), part(r.reference, 2), 3, 100 * tolerance(t()), false, f.target + " U");
      expectSameUpToPhase(part(r.jit, 3), part(r.reference, 3), 3, 100 * tolerance(t()), true, f.target + " V^H");
    }
  }
  // gtsv2: the solution alone.
  std::string v = vector(t(), 6), b = matrix(t(), 6, 2);
  std::vector<Literal> args;
  for (int i = 0; i < 3; ++i) args.push_back(randomArray(parseShapeOrDie(v), rng, false));
  args.push_back(randomArray(parseShapeOrDie(b), rng, false));
  Runs x = run(moduleText("cusparse_gtsv2_ffi", {v, v, v, b}, b, ""), args);
  expectClose(x.jit, x.reference, 10 * tolerance(t()), "gtsv2");
}

// cuSOLVER's geev: complex eigenvalues, vectors in a's type, a real pair's
// packed as its real and imaginary parts in two columns.
TEST_P(LapackCalls, GpuGeev) {
  bool complex = isComplex(t());
  ElementType wType = complex ? t() : (t() == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64);
  std::string a = matrix(t(), 5, 5);
  std::vector<Literal> args;
  args.push_back(randomArray(parseShapeOrDie(a), rng, false));
  Runs r = run(moduleText("cusolver_geev_ffi", {a}, "(" + a + ", " + vector(wType, 5) + ", " + a + ", " + a + ", s32[2]{0})",
                          "left = false, right = true"),
               args);
  for (const Literal* result : {&r.jit, &r.reference}) {
    const Literal& w = part(*result, 1);
    const Literal& vr = part(*result, 3);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t k = 0; k < 5; ++k) {
        C wk = w.toComplex(b * 5 + k);
        // Column k's vector, unpacked.
        auto element = [&](int64_t i) -> C {
          auto at = [&](int64_t col) { return vr.toComplex(b * 25 + i * 5 + col); };
          if (complex || wk.imag() == 0) return at(k);
          return wk.imag() > 0 ? C(at(k).real(), at(k + 1).real()) : C(at(k - 1).real(), -at(k).real());
        };
        double residual = 0;
        for (int64_t i = 0; i < 5; ++i) {
          C av = 0;
          for (int64_t l = 0; l < 5; ++l) av += args[0].toComplex(b * 25 + i * 5 + l) * element(l);
          residual = std::max(residual, std::abs(av - wk * element(i)));
        }
        EXPECT_LT(residual, 100 * tolerance(t()) * (1 + std::abs(wk))) << (result == &r.jit ? "jit" : "reference") << " " << k;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, LapackCalls,
                         ::testing::Values(ElementType::kF32, ElementType::kF64, ElementType::kC64,
                                           ElementType::kC128),
                         [](const ::testing::TestParamInfo<ElementType>& info) { return typeName(info.param); });

}  // namespace
}  // namespace hlo::cpu
