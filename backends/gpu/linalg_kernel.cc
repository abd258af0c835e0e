// Substitution and Cholesky, a thread per problem (linalg_kernel.h).
#include "backends/gpu/linalg_kernel.h"

namespace hlo::gpu {
namespace {

// The longest right-hand side whose solved elements a thread keeps in
// double (2 KiB of its local memory for real types).
constexpr int64_t kSolvedInDouble = 256;

// The two minor dimensions are the matrix; the others count batches.
struct Matrices {
  std::vector<int64_t> batchDims;
  int64_t batches = 1, rows = 0, cols = 0;
  explicit Matrices(const Shape& s) {
    for (int i = 0; i + 2 < s.rank(); ++i) {
      batchDims.push_back(s.dim(i));
      batches *= s.dim(i);
    }
    rows = s.dim(s.rank() - 2);
    cols = s.dim(s.rank() - 1);
  }
};

// Arithmetic in double (complex double) on the emitter's scalar semantics.
class Scalars {
 public:
  Scalars(jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const Instruction& instr)
      : e_(e), b_(b), instr_(instr), type_(instr.shape().type()),
        acc_(isComplex(type_) ? ElementType::kC128 : ElementType::kF64) {}
  ElementType acc() const { return acc_; }
  StatusOr<llvm::Value*> widen(llvm::Value* v) { return e_.convert(instr_, type_, acc_, v); }
  StatusOr<llvm::Value*> narrow(llvm::Value* v) { return e_.convert(instr_, acc_, type_, v); }
  StatusOr<llvm::Value*> op(Opcode code, llvm::Value* x, llvm::Value* y) { return e_.binary(code, instr_, acc_, x, y); }
  llvm::Value* real(double v) {
    llvm::Value* r = llvm::ConstantFP::get(b_.getDoubleTy(), v);
    return isComplex(acc_) ? e_.makeComplex(acc_, r, llvm::ConstantFP::get(b_.getDoubleTy(), 0.0)) : r;
  }
  llvm::Value* conj(llvm::Value* v) {
    return isComplex(acc_) ? e_.makeComplex(acc_, e_.realPart(v), b_.CreateFNeg(e_.imagPart(v))) : v;
  }
  llvm::Value* realPart(llvm::Value* v) { return isComplex(acc_) ? e_.realPart(v) : v; }
  llvm::Value* norm(llvm::Value* v) {  // |v|^2, a double
    if (!isComplex(acc_)) return b_.CreateFMul(v, v);
    llvm::Value* re = e_.realPart(v);
    llvm::Value* im = e_.imagPart(v);
    return b_.CreateFAdd(b_.CreateFMul(re, re), b_.CreateFMul(im, im));
  }

 private:
  jit::ElementalEmitter& e_;
  llvm::IRBuilder<>& b_;
  const Instruction& instr_;
  ElementType type_, acc_;
};

// The index of element (i, j) of batch matrix `batch` (its multi-index).
jit::IrIndex at(const Shape& s, const std::vector<llvm::Value*>& batch, llvm::Value* i, llvm::Value* j) {
  jit::IrIndex index{s.dims(), batch, nullptr};
  index.multi.push_back(i);
  index.multi.push_back(j);
  return index;
}

Status emitTriangularSolve(jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const Instruction& instr, llvm::Value* out,
                           llvm::Value* problem) {
  const Instruction& a = *instr.operand(0);
  const Instruction& rhs = *instr.operand(1);
  const Shape& shape = instr.shape();
  const bool left = instr.attrs().getBool(AttrKey::kLeftSide, false);
  const bool lower = instr.attrs().getBool(AttrKey::kLower, false);
  const bool unit = instr.attrs().getBool(AttrKey::kUnitDiagonal, false);
  const std::string_view op = instr.attrs().getString(AttrKey::kTransposeA);
  const bool transposed = op == "TRANSPOSE" || op == "ADJOINT";
  const Matrices mb(shape);
  const int64_t m = a.shape().dim(a.shape().rank() - 1);
  const int64_t vectors = left ? mb.cols : mb.rows;
  // M = T (left side) or T^t (right side, x T = b solved as T^t x^t = b^t),
  // T = op(the triangle of a); M is lower triangular when `lowerM`.
  const bool tLower = lower != transposed;
  const bool lowerM = left ? tLower : !tLower;
  Scalars s(e, b, instr);
  llvm::Value* batch = b.CreateUDiv(problem, b.getInt64(vectors));
  llvm::Value* v = b.CreateURem(problem, b.getInt64(vectors));
  const std::vector<llvm::Value*> batchIndex = e.delinearize(batch, mb.batchDims).multi;
  // Element p (0 .. m-1) of this right-hand side, in b and in the result.
  auto place = [&](llvm::Value* p) { return left ? at(shape, batchIndex, p, v) : at(shape, batchIndex, v, p); };
  // a's triangle at (p, q): 1 on a unit diagonal, 0 outside the triangle.
  auto triangle = [&](llvm::Value* p, llvm::Value* q) -> StatusOr<llvm::Value*> {
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, e.emit(a, at(a.shape(), batchIndex, p, q)));
    HLO_ASSIGN_OR_RETURN(x, s.widen(x));
    llvm::Value* inside = lower ? b.CreateICmpULE(q, p) : b.CreateICmpUGE(q, p);
    x = b.CreateSelect(inside, x, s.real(0));
    if (unit) x = b.CreateSelect(b.CreateICmpEQ(p, q), s.real(1), x);
    return x;
  };
  auto t = [&](llvm::Value* i, llvm::Value* j) -> StatusOr<llvm::Value*> {
    if (!transposed) return triangle(i, j);
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, triangle(j, i));
    return op == "ADJOINT" ? s.conj(x) : x;
  };
  auto matrix = [&](llvm::Value* i, llvm::Value* j) { return left ? t(i, j) : t(j, i); };
  llvm::Value* last = b.getInt64(m - 1);
  // Up to kSolvedInDouble elements, the solved ones are also kept unrounded
  // in the thread's own array, which the later steps read.
  llvm::Type* accType = e.valueType(s.acc());
  llvm::AllocaInst* solved =
      m <= kSolvedInDouble ? e.entryAlloca(llvm::ArrayType::get(accType, static_cast<uint64_t>(m)), "solved") : nullptr;
  auto solvedAt = [&](llvm::Value* j) { return b.CreateInBoundsGEP(solved->getAllocatedType(), solved, {b.getInt64(0), j}); };
  return e.emitLoop(b.getInt64(0), b.getInt64(m), "substitute", [&](llvm::Value* step) -> Status {
    llvm::Value* i = lowerM ? step : b.CreateSub(last, step);
    HLO_ASSIGN_OR_RETURN(llvm::Value * bi, e.emit(rhs, place(i)));
    HLO_ASSIGN_OR_RETURN(bi, s.widen(bi));
    llvm::AllocaInst* sum = e.entryAlloca(bi->getType(), "solve_sum");
    b.CreateStore(bi, sum);
    llvm::Value* from = lowerM ? b.getInt64(0) : b.CreateAdd(i, b.getInt64(1));
    llvm::Value* to = lowerM ? i : b.getInt64(m);
    HLO_RETURN_IF_ERROR(e.emitLoop(from, to, "known", [&](llvm::Value* j) -> Status {
      HLO_ASSIGN_OR_RETURN(llvm::Value * mij, matrix(i, j));
      llvm::Value* x = nullptr;
      if (solved) {
        x = b.CreateLoad(accType, solvedAt(j));
      } else {
        HLO_ASSIGN_OR_RETURN(x, s.widen(e.load(out, e.linearize(place(j)), shape.type())));
      }
      HLO_ASSIGN_OR_RETURN(llvm::Value * product, s.op(Opcode::kMultiply, mij, x));
      HLO_ASSIGN_OR_RETURN(llvm::Value * rest, s.op(Opcode::kSubtract, b.CreateLoad(bi->getType(), sum), product));
      b.CreateStore(rest, sum);
      return okStatus();
    }, /*unroll=*/false));
    HLO_ASSIGN_OR_RETURN(llvm::Value * diagonal, matrix(i, i));
    HLO_ASSIGN_OR_RETURN(llvm::Value * xi, s.op(Opcode::kDivide, b.CreateLoad(bi->getType(), sum), diagonal));
    if (solved) b.CreateStore(xi, solvedAt(i));
    HLO_ASSIGN_OR_RETURN(xi, s.narrow(xi));
    e.store(xi, out, e.linearize(place(i)), shape.type());
    return okStatus();
  }, /*unroll=*/false);
}

Status emitCholesky(jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const Instruction& instr, llvm::Value* out,
                    llvm::Value* batch) {
  const Instruction& a = *instr.operand(0);
  const Shape& shape = instr.shape();
  const bool lower = instr.attrs().getBool(AttrKey::kLower, false);
  const Matrices mb(shape);
  const int64_t n = mb.rows;
  Scalars s(e, b, instr);
  const std::vector<llvm::Value*> batchIndex = e.delinearize(batch, mb.batchDims).multi;
  // The lower triangle read (lower) or the upper one conjugate-transposed.
  auto input = [&](llvm::Value* i, llvm::Value* j) -> StatusOr<llvm::Value*> {
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, e.emit(a, lower ? at(shape, batchIndex, i, j) : at(shape, batchIndex, j, i)));
    HLO_ASSIGN_OR_RETURN(x, s.widen(x));
    return lower ? x : s.conj(x);
  };
  // L[i][j] lies at (i, j) of the result, or conjugated at (j, i).
  auto placeOf = [&](llvm::Value* i, llvm::Value* j) {
    return e.linearize(lower ? at(shape, batchIndex, i, j) : at(shape, batchIndex, j, i));
  };
  auto l = [&](llvm::Value* i, llvm::Value* j) -> StatusOr<llvm::Value*> {
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, s.widen(e.load(out, placeOf(i, j), shape.type())));
    return lower ? x : s.conj(x);
  };
  auto setL = [&](llvm::Value* i, llvm::Value* j, llvm::Value* x) -> Status {
    HLO_ASSIGN_OR_RETURN(llvm::Value * stored, s.narrow(lower ? x : s.conj(x)));
    e.store(stored, out, placeOf(i, j), shape.type());
    return okStatus();
  };
  HLO_ASSIGN_OR_RETURN(llvm::Value * zero, s.narrow(s.real(0)));
  llvm::Value* first = b.CreateMul(batch, b.getInt64(n * n));
  HLO_RETURN_IF_ERROR(e.emitLoop(b.getInt64(0), b.getInt64(n * n), "zero", [&](llvm::Value* k) -> Status {
    e.store(zero, out, b.CreateAdd(first, k), shape.type());
    return okStatus();
  }, /*unroll=*/false));
  return e.emitLoop(b.getInt64(0), b.getInt64(n), "column", [&](llvm::Value* j) -> Status {
    HLO_ASSIGN_OR_RETURN(llvm::Value * ajj, input(j, j));
    llvm::AllocaInst* d = e.entryAlloca(b.getDoubleTy(), "cholesky_d");
    b.CreateStore(s.realPart(ajj), d);
    HLO_RETURN_IF_ERROR(e.emitLoop(b.getInt64(0), j, "k", [&](llvm::Value* k) -> Status {
      HLO_ASSIGN_OR_RETURN(llvm::Value * ljk, l(j, k));
      b.CreateStore(b.CreateFSub(b.CreateLoad(b.getDoubleTy(), d), s.norm(ljk)), d);
      return okStatus();
    }, /*unroll=*/false));
    llvm::Value* root = e.mathCall("sqrt", {b.CreateLoad(b.getDoubleTy(), d)});
    llvm::Value* ljj = isComplex(s.acc()) ? e.makeComplex(s.acc(), root, llvm::ConstantFP::get(b.getDoubleTy(), 0.0))
                                          : root;
    HLO_RETURN_IF_ERROR(setL(j, j, ljj));
    return e.emitLoop(b.CreateAdd(j, b.getInt64(1)), b.getInt64(n), "row", [&](llvm::Value* i) -> Status {
      HLO_ASSIGN_OR_RETURN(llvm::Value * aij, input(i, j));
      llvm::AllocaInst* sum = e.entryAlloca(aij->getType(), "cholesky_sum");
      b.CreateStore(aij, sum);
      HLO_RETURN_IF_ERROR(e.emitLoop(b.getInt64(0), j, "k", [&](llvm::Value* k) -> Status {
        HLO_ASSIGN_OR_RETURN(llvm::Value * lik, l(i, k));
        HLO_ASSIGN_OR_RETURN(llvm::Value * ljk, l(j, k));
        HLO_ASSIGN_OR_RETURN(llvm::Value * product, s.op(Opcode::kMultiply, lik, s.conj(ljk)));
        HLO_ASSIGN_OR_RETURN(llvm::Value * rest, s.op(Opcode::kSubtract, b.CreateLoad(aij->getType(), sum), product));
        b.CreateStore(rest, sum);
        return okStatus();
      }, /*unroll=*/false));
      HLO_ASSIGN_OR_RETURN(llvm::Value * lij, s.op(Opcode::kDivide, b.CreateLoad(aij->getType(), sum), ljj));
      return setL(i, j, lij);
    }, /*unroll=*/false);
  }, /*unroll=*/false);
}

}  // namespace

Status checkLinalgKernel(const Instruction& instr) {
  const Shape& shape = instr.shape();
  if (!shape.isArray() || shape.rank() < 2 || !(isFloat(shape.type()) || isComplex(shape.type())) ||
      bitWidth(shape.type()) < 32 || (isFloat(shape.type()) && bitWidth(shape.type()) > 64))
    return jit::cannotCompile(instr, "a batch of f32, f64, c64 or c128 matrices");
  const int r = shape.rank();
  if (instr.opcode() == Opcode::kCholesky) {
    if (instr.operandCount() != 1 || !instr.operand(0)->shape().sameTypeAndDims(shape) || shape.dim(r - 1) != shape.dim(r - 2))
      return jit::cannotCompile(instr, "its operand must be the result's batch of square matrices");
    return okStatus();
  }
  if (instr.operandCount() != 2) return jit::cannotCompile(instr, "a triangular-solve takes a and b");
  const Shape& a = instr.operand(0)->shape();
  const Shape& b = instr.operand(1)->shape();
  const bool left = instr.attrs().getBool(AttrKey::kLeftSide, false);
  std::string_view op = instr.attrs().getString(AttrKey::kTransposeA);
  if (!op.empty() && op != "NO_TRANSPOSE" && op != "TRANSPOSE" && op != "ADJOINT")
    return jit::cannotCompile(instr, "unknown transpose_a '" + std::string(op) + "'");
  if (!a.isArray() || !b.sameTypeAndDims(shape) || a.rank() != r || a.type() != shape.type() || a.dim(r - 1) != a.dim(r - 2) ||
      a.dim(r - 1) != b.dim(left ? r - 2 : r - 1))
    return jit::cannotCompile(instr, "a must be square matrices sharing their size and batch with b");
  for (int i = 0; i + 2 < r; ++i)
    if (a.dim(i) != b.dim(i)) return jit::cannotCompile(instr, "batch dimensions of a and b differ");
  return okStatus();
}

int64_t linalgThreads(const Instruction& instr) {
  const Matrices m(instr.shape());
  if (instr.opcode() == Opcode::kCholesky) return m.batches;
  return m.batches * (instr.attrs().getBool(AttrKey::kLeftSide, false) ? m.cols : m.rows);
}

Status emitLinalgKernel(ThreadBlock& tb, jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const Instruction& instr,
                        llvm::Value* output) {
  const int64_t threads = linalgThreads(instr);
  return tb.forEachThread([&](llvm::Value* thread) -> Status {
    llvm::Value* problem = b.CreateAdd(b.CreateMul(tb.block(), b.getInt64(kThreadsPerBlock)), thread, "problem");
    return e.emitWhen(b.CreateICmpULT(problem, b.getInt64(threads)), "problem", [&]() -> Status {
      if (instr.opcode() == Opcode::kCholesky) return emitCholesky(e, b, instr, output, problem);
      return emitTriangularSolve(e, b, instr, output, problem);
    });
  });
}

}  // namespace hlo::gpu
