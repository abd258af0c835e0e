// Literal comparison with per-type tolerances.
#include "conformance/compare.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hlo/indexing.h"

namespace hlo {
namespace {

std::string indexString(const std::vector<int64_t>& dims, int64_t linear) {
  return shapeIndexToString(unravelRowMajor(linear, dims));
}

// Distance in units in the last place between element i of two arrays of
// one float type, by their total-order keys (so it counts the representable
// values between them).
uint64_t ulpDistance(const Literal& a, const Literal& e, int64_t i) {
  int width = bitWidth(a.type());
  auto key = [&](uint64_t bits) {
    uint64_t sign = uint64_t{1} << (width - 1);
    auto magnitude = static_cast<int64_t>(bits & (sign - 1));
    return (bits & sign) ? -magnitude : magnitude;
  };
  int64_t d = key(a.bitsAt(i)) - key(e.bitsAt(i));
  return d < 0 ? static_cast<uint64_t>(-d) : static_cast<uint64_t>(d);
}

bool closeEnough(double a, double e, Tolerance tol, double extra, double& absErr, double& relErr) {
  absErr = relErr = 0;
  if (std::isnan(a) || std::isnan(e)) return std::isnan(a) && std::isnan(e);
  if (std::isinf(a) || std::isinf(e)) return a == e;
  if (tol.absolute == 0 && tol.relative == 0 && extra == 0)
    return a == e && std::signbit(a) == std::signbit(e);
  absErr = std::fabs(a - e);
  relErr = e != 0 ? absErr / std::fabs(e) : (absErr ? INFINITY : 0);
  return absErr <= tol.absolute + tol.relative * std::fabs(e) + extra;
}

// `perType`: each array with its element type's defaultTolerance, or `tol`
// where that is looser. `extra`: per element, more absolute error allowed
// (null: none).
void compareInto(const Literal& a, const Literal& e, Tolerance tol, bool perType, const std::vector<double>* extra,
                 const std::string& path, Comparison& out) {
  auto mismatch = [&](const std::string& what) {
    if (out.firstMismatch.empty()) out.firstMismatch = path + what;
    out.equal = false;
    ++out.mismatches;
  };
  if (a.shape().isTuple() || e.shape().isTuple()) {
    if (!a.shape().isTuple() || !e.shape().isTuple() ||
        a.tupleElements().size() != e.tupleElements().size()) {
      mismatch("shape " + a.shape().toString(false) + " vs " + e.shape().toString(false));
      return;
    }
    for (size_t i = 0; i < a.tupleElements().size(); ++i)
      compareInto(a.tupleElements()[i], e.tupleElements()[i], tol, perType, nullptr,
                  path + "element " + std::to_string(i) + " ", out);
    return;
  }
  if (a.type() != e.type() || a.shape().dims() != e.shape().dims()) {
    mismatch("shape " + a.shape().toString(false) + " vs " + e.shape().toString(false));
    return;
  }
  // Arrays with runtime sizes: the runtime shapes, then the values (padding
  // is not compared).
  if (a.hasPadding() || e.hasPadding()) {
    if (a.runtimeDims() != e.runtimeDims()) {
      auto text = [](const Literal& v) {
        std::string s;
        for (int64_t d : v.runtimeDims()) s += (s.empty() ? "" : ",") + std::to_string(d);
        return "runtime shape [" + s + "]";
      };
      mismatch(text(a) + " vs " + text(e));
      return;
    }
    return compareInto(a.compact(), e.compact(), tol, perType, nullptr, path, out);
  }
  if (!a.shape().isArray()) return;  // tokens
  ElementType t = a.type();
  if (perType) {
    Tolerance d = defaultTolerance(t);
    tol = {std::max(tol.absolute, d.absolute), std::max(tol.relative, d.relative)};
  }
  bool inexact = isFloat(t) || isComplex(t);
  if (extra && static_cast<int64_t>(extra->size()) != a.elementCount()) extra = nullptr;
  for (int64_t i = 0; i < a.elementCount(); ++i) {
    bool ok;
    double absErr = 0, relErr = 0;
    if (!inexact) {
      ok = a.bitsAt(i) == e.bitsAt(i);
    } else {
      std::complex<double> x = a.toComplex(i), y = e.toComplex(i);
      double ar, rr, ai, ri;
      double more = extra ? (*extra)[i] : 0;
      ok = closeEnough(x.real(), y.real(), tol, more, ar, rr) && closeEnough(x.imag(), y.imag(), tol, more, ai, ri);
      absErr = std::max(ar, ai);
      relErr = std::max(rr, ri);
      out.maxAbsError = std::max(out.maxAbsError, absErr);
      out.maxRelError = std::max(out.maxRelError, relErr);
      if (isFloat(t) && bitWidth(t) >= 16 && !std::isnan(x.real()) && !std::isnan(y.real()))
        out.maxUlpDistance = std::max(out.maxUlpDistance, ulpDistance(a, e, i));
    }
    if (!ok)
      mismatch("at " + indexString(a.shape().dims(), i) + ": " + a.elementToString(i) + " vs expected " +
               e.elementToString(i));
  }
}

// compareInto for a whole result, with `allowance` (may be null) for the
// top-level tuple's arrays, or for the one array.
void compareResult(const Literal& a, const Literal& e, Tolerance tol, bool perType, const ElementAllowance* allowance,
                   Comparison& out) {
  auto extra = [&](size_t i) { return allowance && i < allowance->size() ? &(*allowance)[i] : nullptr; };
  if (allowance && a.shape().isTuple() && e.shape().isTuple() &&
      a.tupleElements().size() == e.tupleElements().size()) {
    for (size_t i = 0; i < a.tupleElements().size(); ++i)
      compareInto(a.tupleElements()[i], e.tupleElements()[i], tol, perType, extra(i),
                  "element " + std::to_string(i) + " ", out);
    return;
  }
  compareInto(a, e, tol, perType, extra(0), "", out);
}

}  // namespace

Tolerance defaultTolerance(ElementType t) {
  switch (t) {
    case ElementType::kF64: case ElementType::kC128: return {1e-12, 1e-10};
    case ElementType::kF32: case ElementType::kC64: return {1e-5, 1e-4};
    case ElementType::kF16: return {1e-2, 1e-2};
    case ElementType::kBF16: return {2e-2, 2e-2};
    default: return isFloat(t) ? Tolerance{0.125, 0.125} : Tolerance{};
  }
}

Comparison compareLiterals(const Literal& actual, const Literal& expected, Tolerance tolerance) {
  Comparison out;
  compareResult(actual, expected, tolerance, false, nullptr, out);
  return out;
}

Comparison compareWithTypeTolerances(const Literal& actual, const Literal& expected, Tolerance atLeast,
                                     const ElementAllowance* allowance) {
  Comparison out;
  compareResult(actual, expected, atLeast, true, allowance, out);
  return out;
}

}  // namespace hlo
