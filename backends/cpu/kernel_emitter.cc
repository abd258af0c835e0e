// Kernel loops around the elemental emitter.
//
// Algorithm:
//   1. Bind the arrays the kernel reads (a fusion's parameters, or the
//      instruction's operands) to the input pointers.
//   2. Pick the loop: when everything inside is elementwise on arrays of the
//      output's dimensions (or scalars), one flat loop over the elements, which
//      LLVM vectorizes; otherwise an outer loop over rows (all dimensions but
//      the last) and an inner loop along the last dimension, so the index
//      arithmetic of transposes, slices and reductions is done once per row.
//   3. Compute every output element with the elemental emitter and store it.
//      A multi-output fusion whose outputs differ in dimensions gets one
//      loop per output instead, as one work unit.
//   4. In the loop over rows, before a row's elements, compute the values
//      the row reads through row broadcasts (row fusion,
//      hlo/passes/fusion_rules.h): the emitter's cache then hands the
//      elements the row's value, so a reduction fused there (softmax's row
//      sum) runs once per row, while its row is still in the L1/L2 cache.
#include "backends/cpu/kernel_emitter.h"

#include <algorithm>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "hlo/computation.h"
#include "hlo/passes/fusion_rules.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

// True when every element is computed from the same position of same-shaped
// arrays (or from scalars), so a flat loop needs no index arithmetic.
bool flatLoopFits(const Instruction& instr, const std::vector<int64_t>& dims) {
  auto fits = [&](const Instruction& i) {
    switch (i.opcode()) {
      case Opcode::kParameter: case Opcode::kTuple: return true;
      case Opcode::kConstant: return i.shape().isArray() && (i.shape().rank() == 0 || i.shape().dims() == dims);
      case Opcode::kBroadcast: return i.operand(0)->shape().rank() == 0;
      default: break;
    }
    if (opcodeCategory(i.opcode()) != OpCategory::kElementwise || i.opcode() == Opcode::kMap) return false;
    return i.shape().dims() == dims || i.shape().rank() == 0;
  };
  if (instr.opcode() != Opcode::kFusion) return fits(instr);
  for (const auto& i : instr.calledComputations()[0]->instructions())
    if (!fits(*i)) return false;
  return true;
}

}  // namespace

StatusOr<KernelInfo> emitKernel(llvm::Module& module, const Instruction& instr, const std::string& name) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64, i64}, false);
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  jit::ElementalEmitter emitter(b, module);

  auto fail = [&](Status s) -> StatusOr<KernelInfo> {
    fn->eraseFromParent();
    return s;
  };
  // 1. Inputs.
  const Instruction* root = &instr;
  auto loadPointer = [&](llvm::Value* array, int i) {
    llvm::Value* slot = b.CreateInBoundsGEP(ptr, array, b.getInt64(i));
    return b.CreateLoad(ptr, slot);
  };
  if (instr.opcode() == Opcode::kFusion) {
    const Computation* fused = instr.calledComputations().empty() ? nullptr : instr.calledComputations()[0];
    if (!fused || fused->parameterCount() != instr.operandCount())
      return fail(jit::cannotCompile(instr, "malformed fusion"));
    for (int i = 0; i < fused->parameterCount(); ++i) {
      if (!fused->parameter(i)->shape().isArray())
        return fail(jit::cannotCompile(instr, "a fusion parameter is not an array"));
      emitter.bindArray(fused->parameter(i), loadPointer(fn->getArg(0), i));
    }
    root = fused->root();
  } else {
    for (int i = 0; i < instr.operandCount(); ++i) emitter.bindArray(instr.operand(i), loadPointer(fn->getArg(0), i));
  }
  // Outputs: one array, or the elements of a tuple root of equal dimensions.
  std::vector<const Instruction*> outputs = {root};
  if (root->opcode() == Opcode::kTuple) outputs.assign(root->operands().begin(), root->operands().end());
  if (outputs.empty()) return fail(jit::cannotCompile(instr, "a kernel needs at least one output"));
  std::vector<int64_t> dims = outputs[0]->shape().dims();
  bool sameDims = true;
  for (const Instruction* out : outputs) {
    if (!out->shape().isArray()) return fail(jit::cannotCompile(instr, "an output is not an array"));
    sameDims = sameDims && out->shape().dims() == dims;
  }
  std::vector<llvm::Value*> outPtrs;
  for (size_t k = 0; k < outputs.size(); ++k) outPtrs.push_back(loadPointer(fn->getArg(1), static_cast<int>(k)));

  int64_t elements = 1;
  for (int64_t d : dims) elements *= d;
  int64_t reads = 0;
  for (const Instruction* op : instr.operands())
    if (op->shape().isArray()) reads += op->shape().elementCount();

  auto storeAll = [&](const jit::IrIndex& index, llvm::Value* linear) -> Status {
    for (size_t k = 0; k < outputs.size(); ++k) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter.emit(*outputs[k], index));
      emitter.store(v, outPtrs[k], linear, outputs[k]->shape().type());
    }
    return okStatus();
  };
  // 2-3. The loop nest.
  KernelInfo info;
  Status body;
  if (!sameDims) {
    // Outputs of different dimensions (a reduce beside its elementwise
    // sibling): one loop per output, run as a single work unit.
    info.units = 1;
    elements = 0;
    for (size_t k = 0; k < outputs.size() && body.ok(); ++k) {
      const Shape& shape = outputs[k]->shape();
      elements += shape.elementCount();
      body = emitter.emitLoop(emitter.i64(0), emitter.i64(shape.elementCount()), "out", [&](llvm::Value* i) -> Status {
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter.emit(*outputs[k], emitter.delinearize(i, shape.dims())));
        emitter.store(v, outPtrs[k], i, shape.type());
        return okStatus();
      });
    }
  } else if (flatLoopFits(instr, dims) || dims.size() <= 1) {
    info.units = elements;
    body = emitter.emitLoop(fn->getArg(2), fn->getArg(3), "i", [&](llvm::Value* i) {
      return storeAll(emitter.delinearize(i, dims), i);
    });
  } else {
    int64_t inner = dims.back();
    std::vector<int64_t> outerDims(dims.begin(), dims.end() - 1);
    info.units = inner == 0 ? 0 : elements / inner;
    // 4. The operands of the row broadcasts read in the row, operands before
    // their users.
    std::vector<const Instruction*> perRow;
    if (instr.opcode() == Opcode::kFusion) {
      const Computation& fused = *instr.calledComputations()[0];
      auto readings = fusion::rowReadings(fused);
      for (const auto& i : fused.instructions())
        if (fusion::isRowBroadcast(*i) && readings[i.get()] == fusion::RowReading::kInRow)
          perRow.push_back(i->operand(0));
    }
    body = emitter.emitLoop(fn->getArg(2), fn->getArg(3), "row", [&](llvm::Value* row) -> Status {
      jit::IrIndex outer = emitter.delinearize(row, outerDims);
      // Cached under the index the broadcasts read them at: the row's.
      for (const Instruction* value : perRow)
        HLO_RETURN_IF_ERROR(emitter.emit(*value, jit::IrIndex{outerDims, outer.multi, nullptr}).status());
      llvm::Value* rowStart = b.CreateMul(row, emitter.i64(inner), "", true, true);
      return emitter.emitLoop(emitter.i64(0), emitter.i64(inner), "col", [&](llvm::Value* col) {
        jit::IrIndex index{dims, outer.multi, b.CreateAdd(rowStart, col, "", true, true)};
        index.multi.push_back(col);
        return storeAll(index, index.linear);
      });
    });
  }
  if (!body.ok()) return fail(body);
  b.CreateRetVoid();
  info.workPerUnit = info.units > 0 ? std::max<int64_t>(1, std::max(elements, reads) / info.units) : 1;
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyFunction(*fn, &os)) return fail(errorStatus("internal error: bad IR for %" + instr.name() + ": " + problems));
  return info;
}

}  // namespace hlo::cpu
