// The elemental emitter's fft: one output element as a direct sum over the
// transformed axes, as the interpreter computes it (interp/fft.cc), in
// double:
//   FFT, IFFT, RFFT   X[k...] = s * sum over t... of x[t...] e^(-+2 pi i
//                     sum_a (t_a k_a mod n_a) / n_a), s = 1 / prod n_a for
//                     the inverse; an axis shorter than n_a reads as
//                     zero-padded, an output index past n_a is 0;
//   IRFFT             the outer axes inverted first, the last axis then
//                     extended to n entries by Hermitian symmetry (entry
//                     n - k is the conjugate of entry k) and inverted, the
//                     real part kept.
// The interpreter takes the axes one after another; one sum over all of
// them is the same value, rounded differently within a few units of double.
#include <algorithm>
#include <functional>
#include <numbers>

#include "jit/elemental_emitter.h"

namespace hlo::jit {

// The most terms one output element sums.
constexpr int64_t kMaxFftTerms = int64_t{1} << 16;

StatusOr<llvm::Value*> ElementalEmitter::emitFft(const Instruction& instr, const IrIndex& index) {
  if (instr.operandCount() != 1) return cannotCompile(instr, "an fft takes one operand");
  const Instruction& x = *instr.operand(0);
  const Shape& in = x.shape();
  const Shape& out = instr.shape();
  std::string_view type = instr.attrs().getString(AttrKey::kFftType);
  const std::vector<int64_t>& lengths = instr.attrs().getInts(AttrKey::kFftLength);
  const int rank = in.rank();
  const size_t axes = lengths.size();
  const bool real = type == "RFFT", inverseReal = type == "IRFFT";
  if (!in.isArray() || !out.isArray() || out.rank() != rank || axes < 1 || axes > 3 || static_cast<int>(axes) > rank ||
      (type != "FFT" && type != "IFFT" && !real && !inverseReal) || isComplex(out.type()) == inverseReal ||
      isComplex(in.type()) == real || (!isComplex(in.type()) && !isFloat(in.type())) ||
      (!isComplex(out.type()) && !isFloat(out.type())))
    return cannotCompile(instr, "its fft_type, fft_length and types do not fit");
  for (int64_t n : lengths)
    if (n < 0) return cannotCompile(instr, "fft_length must not be negative");
  const bool inverse = type == "IFFT" || inverseReal;
  // The terms one output element sums: a direct sum is for short
  // transforms; longer ones are refused rather than run for hours.
  int64_t terms = 1;
  for (size_t a = static_cast<size_t>(rank) - axes; a < static_cast<size_t>(rank); ++a) {
    const int64_t n = lengths[a - (static_cast<size_t>(rank) - axes)];
    terms *= inverseReal && a + 1 == static_cast<size_t>(rank) ? n : std::min(in.dim(static_cast<int>(a)), n);
  }
  if (terms > kMaxFftTerms)
    return cannotCompile(instr, "a direct sum of " + std::to_string(terms) + " terms an element (at most " +
                                    std::to_string(kMaxFftTerms) + "; long transforms want an FFT library)");
  const size_t first = static_cast<size_t>(rank) - axes, last = static_cast<size_t>(rank) - 1;
  auto lengthOf = [&](size_t axis) { return lengths[axis - first]; };
  llvm::Type* f64 = b_.getDoubleTy();
  auto k = [&](double v) { return llvm::ConstantFP::get(f64, v); };

  // An operand element as (re, im) in double.
  auto read = [&](const IrIndex& at) -> StatusOr<std::pair<llvm::Value*, llvm::Value*>> {
    HLO_ASSIGN_OR_RETURN(llvm::Value * v, emit(x, at));
    if (!isComplex(in.type())) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * re, convert(instr, in.type(), ElementType::kF64, v));
      return std::pair<llvm::Value*, llvm::Value*>(re, k(0));
    }
    return std::pair<llvm::Value*, llvm::Value*>(b_.CreateFPExt(realPart(v), f64), b_.CreateFPExt(imagPart(v), f64));
  };
  // (t * k mod n) / n, the turn of one axis's twiddle.
  auto turn = [&](llvm::Value* t, llvm::Value* kk, int64_t n) {
    return b_.CreateFDiv(b_.CreateUIToFP(b_.CreateURem(b_.CreateMul(t, kk), i64(n)), f64), k(static_cast<double>(n)));
  };
  // acc += (re, im) * e^(sign 2 pi i turns).
  auto addRotated = [&](llvm::AllocaInst* re, llvm::AllocaInst* im, llvm::Value* xr, llvm::Value* xi, llvm::Value* turns,
                        double sign) {
    llvm::Value* angle = b_.CreateFMul(turns, k(sign * 2 * std::numbers::pi));
    llvm::Value* c = mathCall("cos", {angle});
    llvm::Value* s = mathCall("sin", {angle});
    b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(f64, re), b_.CreateFSub(b_.CreateFMul(xr, c), b_.CreateFMul(xi, s))), re);
    b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(f64, im), b_.CreateFAdd(b_.CreateFMul(xr, s), b_.CreateFMul(xi, c))), im);
  };
  // body(at, turns) for every t... of axes [from, to) of the operand (t_a
  // below min(dim, n_a)), `at` holding `outer` elsewhere; turns sums each
  // axis's (t_a k_a mod n_a) / n_a with k_a the output's index.
  using Body = std::function<Status(const IrIndex&, llvm::Value*)>;
  std::function<Status(size_t, size_t, IrIndex&, llvm::Value*, const Body&)> sum =
      [&](size_t a, size_t to, IrIndex& at, llvm::Value* turns, const Body& body) -> Status {
    if (a == to) return body(at, turns);
    const int64_t n = lengthOf(a);
    const int64_t terms = std::min(in.dim(static_cast<int>(a)), n);
    return emitLoop(i64(0), i64(terms), "fft_term", [&](llvm::Value* t) -> Status {
      at.multi[a] = t;
      return sum(a + 1, to, at, b_.CreateFAdd(turns, turn(t, index.multi[a], n)), body);
    }, /*unroll=*/false);
  };
  double scale = 1;  // the inverse's
  for (int64_t n : lengths) {
    if (n == 0) {  // every element 0
      if (inverseReal) return roundedFromDouble(instr, k(0), out.type());
      HLO_ASSIGN_OR_RETURN(llvm::Value * zero, roundedFromDouble(instr, k(0), complexComponentType(out.type())));
      return makeComplex(out.type(), zero, zero);
    }
    scale /= static_cast<double>(n);
  }
  llvm::Value* inRange = b_.getTrue();  // every output index of a transformed axis below its n
  for (size_t a = first; a <= last; ++a)
    inRange = b_.CreateAnd(inRange, b_.CreateICmpULT(index.multi[a], i64(lengthOf(a))));
  llvm::AllocaInst* re = entryAlloca(f64, "fft_re");
  llvm::AllocaInst* im = entryAlloca(f64, "fft_im");
  b_.CreateStore(k(0), re);
  b_.CreateStore(k(0), im);
  IrIndex at{in.dims(), std::vector<llvm::Value*>(index.multi.begin(), index.multi.end()), nullptr};
  if (!inverseReal) {
    HLO_RETURN_IF_ERROR(emitWhen(inRange, "fft", [&]() -> Status {
      return sum(first, last + 1, at, k(0), [&](const IrIndex& where, llvm::Value* turns) -> Status {
        HLO_ASSIGN_OR_RETURN(auto v, read(where));
        addRotated(re, im, v.first, v.second, turns, inverse ? 1 : -1);
        return okStatus();
      });
    }));
  } else {
    // Spectrum entry j of the last axis after the outer axes' inverse (at
    // the output's outer indices), into (yr, yi).
    const int64_t n = lengthOf(last), inLen = in.dim(static_cast<int>(last));
    llvm::AllocaInst* yr = entryAlloca(f64, "fft_yr");
    llvm::AllocaInst* yi = entryAlloca(f64, "fft_yi");
    HLO_RETURN_IF_ERROR(emitWhen(inRange, "irfft", [&]() -> Status {
      return emitLoop(i64(0), i64(n), "irfft_k", [&](llvm::Value* kk) -> Status {
        llvm::Value* direct = b_.CreateICmpULT(kk, i64(inLen));
        llvm::Value* mirrored = b_.CreateSub(i64(n), kk);
        llvm::Value* present = b_.CreateOr(direct, b_.CreateICmpULT(mirrored, i64(inLen)));
        return emitWhen(present, "irfft_entry", [&]() -> Status {
          b_.CreateStore(k(0), yr);
          b_.CreateStore(k(0), yi);
          at.multi[last] = b_.CreateSelect(direct, kk, mirrored);
          HLO_RETURN_IF_ERROR(sum(first, last, at, k(0), [&](const IrIndex& where, llvm::Value* turns) -> Status {
            HLO_ASSIGN_OR_RETURN(auto v, read(where));
            addRotated(yr, yi, v.first, v.second, turns, 1);
            return okStatus();
          }));
          llvm::Value* y0 = b_.CreateLoad(f64, yr);
          llvm::Value* y1 = b_.CreateLoad(f64, yi);
          y1 = b_.CreateSelect(direct, y1, b_.CreateFNeg(y1));  // the conjugate of entry n - k
          addRotated(re, im, y0, y1, turn(index.multi[last], kk, n), 1);
          return okStatus();
        });
      }, /*unroll=*/false);
    }));
  }
  llvm::Value* r = b_.CreateFMul(b_.CreateLoad(f64, re), k(inverse ? scale : 1));
  llvm::Value* i = b_.CreateFMul(b_.CreateLoad(f64, im), k(inverse ? scale : 1));
  if (inverseReal) return roundedFromDouble(instr, r, out.type());
  ElementType part = complexComponentType(out.type());
  HLO_ASSIGN_OR_RETURN(llvm::Value * pr, roundedFromDouble(instr, r, part));
  HLO_ASSIGN_OR_RETURN(llvm::Value * pi, roundedFromDouble(instr, i, part));
  return makeComplex(out.type(), pr, pi);
}

}  // namespace hlo::jit
