// Step 8 of the kernel emitter (kernel_emitter.cc): the rows of a
// streamed kernel in a pipeline, so that memory and the core work side by
// side. Used by kernel_emitter.cc alone.
#pragma once

#include <algorithm>
#include <functional>
#include <unordered_set>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/status.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {

// The work of a row before its elements: the operands of the row
// broadcasts read in the row (false), and the values kept in row buffers
// (true).
using RowWork = std::vector<std::pair<const Instruction*, bool>>;

// Step 8: a row loop in a pipeline. Row by row, a row's passes alternate
// between memory and computation: softmax's row maximum reads the row, its
// exponentials only compute, and its output pass writes with streaming
// stores that wait on memory. So each pass leaves idle what the others use.
// In the pipeline, one loop over the row's positions does the work of
// several rows at once:
//   - the reductions of row q + 1 that the row values read and that read
//     the inputs alone (softmax's maximum, layer norm's sum), folded a row
//     ahead exactly as row by row (maximum and minimum in any order; a sum
//     in one of emitReduce's blocks, so only rows no longer than a block);
//   - row q's first row buffer (softmax's exponentials), if there is one;
//   - the output of row q - 1 from its row values and buffers, or with no
//     buffer the output of row q, whose values are then all known.
// Memory reads, computation and memory writes then run side by side. The
// prefetches of step 6 stay: without them the folds' loads wait on memory.
// The other row values and buffers of row q have their own loops.
// Each row value (and each fold done ahead) is kept in one of two slots and
// each buffer in one of two buffers, by the row's parity, so row q's are
// written while row q - 1's are read. With a buffer, the first row of a
// thread's rows writes no output and the last row's output is a loop of its
// own. A row past the last is never read: the last row's folds ahead are
// its own again.
class PipelinedRows {
 public:
  using StoreAll = std::function<Status(const jit::IrIndex&, const std::vector<llvm::Value*>&, llvm::Value*)>;
  using LinesFrom = std::function<std::vector<llvm::Value*>(llvm::Value*)>;
  PipelinedRows(jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const RowWork& work,
                const std::vector<int64_t>& dims, StoreAll storeAll, LinesFrom linesFrom)
      : emitter_(emitter),
        b_(b),
        dims_(dims),
        outerDims_(dims.begin(), dims.end() - 1),
        inner_(dims.back()),
        storeAll_(std::move(storeAll)),
        linesFrom_(std::move(linesFrom)) {
    // The folds ahead: those the row values read (not through another).
    std::unordered_set<const Instruction*> rowValues;
    for (auto [value, buffered] : work) rowValues.insert(value);
    std::unordered_set<const Instruction*> seen;
    for (auto [value, buffered] : work)
      if (!buffered) collectFolds(*value, *value, rowValues, seen);
    lookahead_ = stored_.size();
    for (auto [value, buffered] : work) {
      if (std::any_of(stored_.begin(), stored_.end(), [&](const Stored& s) { return s.value == value; })) continue;
      if (!buffered) {
        stored_.push_back(slots(value));
        continue;
      }
      hasBuffer_ = true;
      Stored s{value, true, nullptr, nullptr};
      for (llvm::AllocaInst** half : {&s.even, &s.odd}) {
        *half = emitter.entryAlloca(llvm::ArrayType::get(b.getInt8Ty(), inner_ * storageBytes(value->shape().type())),
                                    "row." + value->name());
        (*half)->setAlignment(llvm::Align(64));
      }
      stored_.push_back(s);
    }
  }

  // Whether the pipeline has anything to overlap: a buffer or a fold ahead.
  bool worthIt() const { return hasBuffer_ || lookahead_ > 0; }

  // Rows [first, end) of the kernel, first < end.
  Status emit(llvm::Value* first, llvm::Value* end) {
    llvm::Value* last = b_.CreateSub(end, emitter_.i64(1));
    Row firstRow = rowAt(first);
    // The folds ahead of the first row, as row by row.
    unbindAll();
    for (size_t k = 0; k < lookahead_; ++k) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.emit(*stored_[k].value, firstRow.outer));
      keep(k, firstRow, v);
    }
    if (!hasBuffer_) {
      HLO_RETURN_IF_ERROR(
          emitter_.emitLoop(first, end, "rows", [&](llvm::Value* q) { return step(rowAt(q), nullptr, last); }));
      unbindAll();
      return okStatus();
    }
    HLO_RETURN_IF_ERROR(step(firstRow, nullptr, last));
    HLO_RETURN_IF_ERROR(emitter_.emitLoop(b_.CreateAdd(first, emitter_.i64(1)), end, "rows", [&](llvm::Value* q) {
      Row row = rowAt(q), before = rowAt(b_.CreateSub(q, emitter_.i64(1)));
      return step(row, &before, last);
    }));
    // The output of the last row.
    Row lastRow = rowAt(last);
    bindAll(lastRow, stored_.size());
    std::vector<llvm::Value*> lines = linesFrom_(lastRow.start);
    HLO_RETURN_IF_ERROR(emitter_.emitLoop(emitter_.i64(0), emitter_.i64(inner_), "last",
                                          [&](llvm::Value* j) { return storeAll_(at(lastRow, j), lines, j); }));
    unbindAll();
    return okStatus();
  }

 private:
  struct Stored {
    const Instruction* value;
    bool buffered;
    llvm::AllocaInst* even;  // a row value's two slots, or a buffer's row for even rows
    llvm::AllocaInst* odd;   // a buffer's row for odd rows
  };
  struct Row {
    llvm::Value* q;      // the row's number
    jit::IrIndex outer;  // its index in the outer dimensions
    llvm::Value* start;  // the linear position of its first element
    llvm::Value* odd;    // i1: q is odd
  };

  Stored slots(const Instruction* value) {
    ElementType t = value->shape().type();
    return {value, false,
            emitter_.entryAlloca(llvm::ArrayType::get(emitter_.storageType(t), 2), "slots." + value->name()), nullptr};
  }

  // Adds the folds ahead that row value `value` reads at `x`.
  void collectFolds(const Instruction& x, const Instruction& value,
                    const std::unordered_set<const Instruction*>& rowValues,
                    std::unordered_set<const Instruction*>& seen) {
    if ((&x != &value && rowValues.count(&x)) || !seen.insert(&x).second) return;
    if (x.opcode() == Opcode::kReduce) {
      if (foldsAhead(x, rowValues)) stored_.push_back(slots(&x));
      return;
    }
    for (const Instruction* operand : x.operands()) collectFolds(*operand, value, rowValues, seen);
  }
  // A reduction along the rows of an array of the output's dimensions,
  // computed from the inputs alone, that one loop over a row folds exactly
  // as row by row: a maximum or minimum (or an integer fold), in any order,
  // or a row no longer than one of its blocks.
  bool foldsAhead(const Instruction& fold, const std::unordered_set<const Instruction*>& rowValues) {
    if (!jit::emitsReduce(fold)) return false;
    const Shape& in = fold.operand(0)->shape();
    if (in.dims() != dims_ || fold.attrs().getInts(AttrKey::kDimensions) != std::vector<int64_t>{in.rank() - 1})
      return false;
    ElementType t = fold.shape().type();
    Opcode op = *binaryOfParameters(fold.attrs().getComputation(AttrKey::kToApply));
    bool anyOrder = isInteger(t) || ((op == Opcode::kMaximum || op == Opcode::kMinimum) &&
                                     (t == ElementType::kF32 || t == ElementType::kF64));
    if (!anyOrder && (jit::smallFloat(t) || !isFloat(t) || inner_ > emitter_.folding(fold).block)) return false;
    // Nothing of the row but the inputs.
    std::vector<const Instruction*> stack{fold.operand(0), fold.operand(1)};
    std::unordered_set<const Instruction*> seen;
    while (!stack.empty()) {
      const Instruction* x = stack.back();
      stack.pop_back();
      if (!seen.insert(x).second) continue;
      if (rowValues.count(x) || x->opcode() == Opcode::kReduce || !x->calledComputations().empty()) return false;
      stack.insert(stack.end(), x->operands().begin(), x->operands().end());
    }
    return true;
  }

  Row rowAt(llvm::Value* q) {
    jit::IrIndex outer = emitter_.delinearize(q, outerDims_);
    outer.linear = q;
    return {q, outer, b_.CreateMul(q, emitter_.i64(inner_), "", true, true),
            b_.CreateICmpNE(b_.CreateAnd(q, emitter_.i64(1)), emitter_.i64(0))};
  }
  jit::IrIndex at(const Row& row, llvm::Value* j) {
    jit::IrIndex index{dims_, row.outer.multi, b_.CreateAdd(row.start, j, "", true, true)};
    index.multi.push_back(j);
    return index;
  }
  // Where stored value k of `row` is: its slot, or its buffer.
  llvm::Value* place(size_t k, const Row& row) {
    const Stored& s = stored_[k];
    if (s.buffered) return b_.CreateSelect(row.odd, s.odd, s.even);
    return b_.CreateInBoundsGEP(emitter_.storageType(s.value->shape().type()), s.even,
                                b_.CreateZExt(row.odd, b_.getInt64Ty()));
  }
  // Reads of stored values [0, count) read `row`'s; the others are computed.
  void bindAll(const Row& row, size_t count) {
    for (size_t k = 0; k < stored_.size(); ++k) {
      if (k >= count) {
        emitter_.unbindArray(stored_[k].value);
        continue;
      }
      emitter_.bindArray(stored_[k].value, place(k, row), stored_[k].buffered ? row.start : row.q);
    }
  }
  void unbindAll() { bindAll(Row{}, 0); }
  void keep(size_t k, const Row& row, llvm::Value* v) {
    emitter_.store(v, place(k, row), emitter_.i64(0), stored_[k].value->shape().type());
  }

  // Row `row`'s work. Its first buffer's loop (or with no buffer, a loop
  // after the row's values) is merged with the folds ahead and an output:
  // that of `before` (when given) with a buffer, else of `row`.
  Status step(const Row& row, const Row* before, llvm::Value* last) {
    llvm::Value* nextQ = b_.CreateAdd(row.q, emitter_.i64(1));
    Row next = rowAt(b_.CreateSelect(b_.CreateICmpSLT(nextQ, last), nextQ, last));
    bool merged = false;
    for (size_t k = lookahead_; k < stored_.size(); ++k) {
      const Stored& s = stored_[k];
      bindAll(row, k);
      if (!s.buffered) {
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.emit(*s.value, row.outer));
        keep(k, row, v);
      } else if (!merged) {
        merged = true;
        HLO_RETURN_IF_ERROR(mergedLoop(next, &row, k, before));
      } else {
        ElementType t = s.value->shape().type();
        llvm::Value* buffer = place(k, row);
        HLO_RETURN_IF_ERROR(
            emitter_.emitLoop(emitter_.i64(0), emitter_.i64(inner_), "buffer", [&](llvm::Value* j) -> Status {
              HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.emit(*s.value, at(row, j)));
              emitter_.store(v, buffer, j, t);
              return okStatus();
            }));
      }
    }
    if (!hasBuffer_) return mergedLoop(next, nullptr, 0, &row);
    return okStatus();
  }

  // One loop over the row's positions: the folds ahead of `next`, buffer
  // `k` of `row` (when given), and the output of `output` (when given).
  Status mergedLoop(const Row& next, const Row* row, size_t k, const Row* output) {
    std::vector<llvm::Value*> lines;
    if (output) lines = linesFrom_(output->start);
    llvm::Value* buffer = row ? place(k, *row) : nullptr;
    // Partials start at the identity.
    std::vector<llvm::AllocaInst*> partials;
    for (size_t a = 0; a < lookahead_; ++a) {
      const Instruction& fold = *stored_[a].value;
      ElementType partialType = emitter_.folding(fold).partial;
      partials.push_back(emitter_.entryAlloca(emitter_.valueType(partialType), "ahead"));
      Opcode op = *binaryOfParameters(fold.attrs().getComputation(AttrKey::kToApply));
      b_.CreateStore(emitter_.identity(op, partialType), partials.back());
    }
    HLO_RETURN_IF_ERROR(
        emitter_.emitLoop(emitter_.i64(0), emitter_.i64(inner_), "pipeline", [&](llvm::Value* j) -> Status {
          bindAll(next, 0);
          for (size_t a = 0; a < lookahead_; ++a) {
            const Instruction& fold = *stored_[a].value;
            ElementType partialType = emitter_.folding(fold).partial;
            llvm::Value* partial = b_.CreateLoad(emitter_.valueType(partialType), partials[a]);
            HLO_ASSIGN_OR_RETURN(llvm::Value * x, emitter_.emitWidened(*fold.operand(0), at(next, j), partialType));
            HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.reduceStep(fold, partial, x, partialType, true));
            b_.CreateStore(v, partials[a]);
          }
          if (row) {
            bindAll(*row, k);
            const Instruction& value = *stored_[k].value;
            HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.emit(value, at(*row, j)));
            emitter_.store(v, buffer, j, value.shape().type());
          }
          if (!output) return okStatus();
          bindAll(*output, stored_.size());
          return storeAll_(at(*output, j), lines, j);
        }));
    // Each fold ahead: its init, then the partial, in the total's type.
    for (size_t a = 0; a < lookahead_; ++a) {
      const Instruction& fold = *stored_[a].value;
      jit::ElementalEmitter::Folding folding = emitter_.folding(fold);
      llvm::Value* partial = b_.CreateLoad(emitter_.valueType(folding.partial), partials[a]);
      if (folding.partial != folding.total) partial = b_.CreateFPExt(partial, emitter_.valueType(folding.total));
      HLO_ASSIGN_OR_RETURN(llvm::Value * init, emitter_.emitWidened(*fold.operand(1), emitter_.scalarIndex(), folding.total));
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.reduceStep(fold, init, partial, folding.total, false));
      if (folding.total != fold.shape().type()) v = b_.CreateFPTrunc(v, emitter_.valueType(fold.shape().type()));
      keep(a, next, v);
    }
    return okStatus();
  }

  jit::ElementalEmitter& emitter_;
  llvm::IRBuilder<>& b_;
  std::vector<int64_t> dims_, outerDims_;
  int64_t inner_;
  StoreAll storeAll_;
  LinesFrom linesFrom_;
  std::vector<Stored> stored_;  // the folds ahead, then the row's other values and buffers in order
  size_t lookahead_ = 0;        // stored_[0, lookahead_) are folded a row ahead
  bool hasBuffer_ = false;
};

}  // namespace hlo::cpu
