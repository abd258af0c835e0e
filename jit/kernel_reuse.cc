// Kernel deduplication (jit/kernel_reuse.h).
#include "jit/kernel_reuse.h"

namespace hlo::jit {

size_t KernelReuse::hash(const Instruction& instr) {
  size_t h = structuralHash(instr);
  for (const Instruction* op : instr.operands()) {
    hashCombine(h, static_cast<size_t>(op->shape().type()));
    for (int64_t d : op->shape().dims()) hashCombine(h, static_cast<size_t>(d));
  }
  return h;
}

const std::string* KernelReuse::find(const Instruction& instr) {
  auto bucket = byHash_.find(hash(instr));
  if (bucket == byHash_.end()) return nullptr;
  auto sameShape = [](const Instruction* p, const Instruction* q) { return p->shape() == q->shape(); };
  auto sameRepeats = [&](const Instruction& other) {
    for (int i = 0; i < instr.operandCount(); ++i)
      for (int j = i + 1; j < instr.operandCount(); ++j)
        if ((instr.operand(i) == instr.operand(j)) != (other.operand(i) == other.operand(j))) return false;
    return true;
  };
  for (size_t k : bucket->second)
    if (sameRepeats(*kernels_[k].instr) && matcher_.sameInstruction(*kernels_[k].instr, instr, sameShape))
      return &kernels_[k].name;
  return nullptr;
}

void KernelReuse::add(const Instruction& instr, std::string name) {
  byHash_[hash(instr)].push_back(kernels_.size());
  kernels_.push_back({&instr, std::move(name)});
}

}  // namespace hlo::jit
