// Instruction queries that look at several fields.
#include "hlo/instruction.h"

namespace hlo {

std::vector<Computation*> Instruction::calledComputations() const {
  std::vector<Computation*> out;
  for (const auto& [key, value] : attrs_.all()) {
    AttrKind kind = attrKind(key);
    if (kind == AttrKind::kComputation || kind == AttrKind::kComputationList)
      out.insert(out.end(), value.comps.begin(), value.comps.end());
  }
  return out;
}

}  // namespace hlo
