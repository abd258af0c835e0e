// The fusion pass's per-instruction rules; see fusion_rules.h.
#include "hlo/passes/fusion_rules.h"

#include <algorithm>
#include <iterator>

namespace hlo::fusion {

Role roleOf(const Instruction& i, std::string* why) {
  // kNone, saying why when asked.
  auto none = [why](const char* reason) {
    if (why) *why = reason;
    return Role::kNone;
  };
  if (i.hasControlEdges()) return none("it has control edges");
  Opcode op = i.opcode();
  bool array = i.shape().isArray();
  switch (opcodeCategory(op)) {
    case OpCategory::kElementwise:  // map calls a computation per element
      if (op == Opcode::kMap) return none("map calls a computation per element");
      return array ? Role::kMember : none("its result is not an array");
    case OpCategory::kDataMovement:
      // Plumbing (tuple, get-tuple-element), indexed or in-place access
      // (gather, scatter, dynamic-update-slice) and dynamic shapes stay out.
      if (op == Opcode::kTuple || op == Opcode::kGetTupleElement) return none("tuples are plumbing, not computed");
      if (op == Opcode::kGather || op == Opcode::kScatter) return none("it reads or writes memory by index");
      if (op == Opcode::kDynamicUpdateSlice) return none("it updates its operand in place");
      if (op == Opcode::kDynamicReshape || op == Opcode::kShuffle) return none("its shape is only known at run time");
      return array ? Role::kMember : none("its result is not an array");
    case OpCategory::kReduction:
      if (op == Opcode::kSelectAndScatter) return none("select-and-scatter scatters into its result");
      return Role::kRootOnly;
    case OpCategory::kLeaf:  // recomputed where used; parameters and big constants are read
      if (op == Opcode::kIota || (op == Opcode::kConstant && i.shape().isScalar())) return Role::kMember;
      return none("a parameter or an array constant is read, not recomputed");
    case OpCategory::kLinearAlgebra:
      return none("linear algebra is a kernel or a library op of its own");
    case OpCategory::kControlFlow:
      return none("control flow runs computations of its own");
    case OpCategory::kCollective:
    case OpCategory::kAsync:
    case OpCategory::kCommunication:
      return none("it exchanges values or waits: a step of the runtime");
    case OpCategory::kOther:
      return none("it is not elementwise, data movement or a reduction");
  }
  return Role::kNone;
}

bool isExpensive(const Instruction& i) {
  static constexpr Opcode kExpensive[] = {
      Opcode::kAcos,     Opcode::kAcosh, Opcode::kAsin,      Opcode::kAsinh,
      Opcode::kAtan,     Opcode::kAtan2, Opcode::kAtanh,     Opcode::kCbrt,
      Opcode::kCos,      Opcode::kCosh,  Opcode::kDivide,    Opcode::kErf,
      Opcode::kExp,      Opcode::kExpm1, Opcode::kLog,       Opcode::kLog1p,
      Opcode::kLogistic, Opcode::kPower, Opcode::kRemainder, Opcode::kRsqrt,
      Opcode::kSin,      Opcode::kSinh,  Opcode::kSqrt,      Opcode::kStochasticConvert,
      Opcode::kTan,      Opcode::kTanh};
  return std::find(std::begin(kExpensive), std::end(kExpensive), i.opcode()) !=
         std::end(kExpensive);
}

bool duplicable(const Instruction& p) {
  // A reduction's copy would read its whole operand again.
  if (isExpensive(p) || opcodeCategory(p.opcode()) == OpCategory::kReduction) return false;
  int full = 0;
  for (const Instruction* op : p.operands())
    full += !(op->opcode() == Opcode::kBroadcast || op->opcode() == Opcode::kIota ||
              op->shape().isScalar() || op->shape().rank() < p.shape().rank());
  return full <= 1;
}

bool rereads(const Instruction& user, const Instruction& operand) {
  const Shape& shape = user.shape().isTuple() ? user.shape().tupleElement(0) : user.shape();
  int64_t out = shape.isArray() ? shape.elementCount() : 1;
  if (operand.shape().isScalar()) return out > 1;
  return user.opcode() == Opcode::kReduceWindow ||
         (user.opcode() == Opcode::kBroadcast && out > operand.shape().elementCount());
}

bool isRowBroadcast(const Instruction& i) {
  if (i.opcode() != Opcode::kBroadcast || !i.shape().isArray() || i.shape().rank() < 2) return false;
  const std::vector<int64_t>& dims = i.attrs().getInts(AttrKey::kDimensions);
  if (static_cast<int>(dims.size()) != i.shape().rank() - 1) return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != static_cast<int64_t>(d)) return false;
  return true;
}

bool rowFusibleReduce(const Instruction& i) {
  if (i.opcode() != Opcode::kReduce || i.operandCount() != 2 || !i.shape().isArray()) return false;
  const Shape& in = i.operand(0)->shape();
  const std::vector<int64_t>& reduced = i.attrs().getInts(AttrKey::kDimensions);
  return in.isArray() && in.rank() >= 1 && reduced.size() == 1 && reduced[0] == in.rank() - 1 &&
         binaryOfParameters(i.attrs().getComputation(AttrKey::kToApply)).has_value();
}

RowReading rowReading(const Instruction& i, const std::vector<int64_t>& dims, bool output,
                      const std::vector<std::pair<const Instruction*, RowReading>>& users) {
  if (dims.size() < 2 || !i.shape().isArray()) return RowReading::kOther;
  auto elementwiseOf = [](const Instruction& u, const std::vector<int64_t>& d) {
    return opcodeCategory(u.opcode()) == OpCategory::kElementwise && u.opcode() != Opcode::kMap &&
           u.shape().isArray() && u.shape().dims() == d;
  };
  const std::vector<int64_t>& own = i.shape().dims();
  if (own == dims) {
    bool inRow = output || !users.empty();
    for (const auto& [u, reading] : users)
      inRow = inRow && ((elementwiseOf(*u, dims) && reading == RowReading::kInRow) ||
                        (rowFusibleReduce(*u) && reading == RowReading::kOncePerRow));
    return inRow ? RowReading::kInRow : RowReading::kOther;
  }
  std::vector<int64_t> row(dims.begin(), dims.end() - 1);
  if (own != row || output || users.empty()) return RowReading::kOther;
  for (const auto& [u, reading] : users) {
    bool broadcast = isRowBroadcast(*u) && u->shape().dims() == dims && reading == RowReading::kInRow;
    if (!broadcast && !(elementwiseOf(*u, row) && reading == RowReading::kOncePerRow)) return RowReading::kOther;
  }
  return RowReading::kOncePerRow;
}

std::unordered_map<const Instruction*, RowReading> rowReadings(const Computation& fused) {
  std::unordered_map<const Instruction*, RowReading> readings;
  const Instruction* root = fused.root();
  std::vector<const Instruction*> outputs{root};
  if (root->opcode() == Opcode::kTuple) outputs.assign(root->operands().begin(), root->operands().end());
  if (outputs.empty() || !outputs[0]->shape().isArray()) return readings;
  const std::vector<int64_t>& dims = outputs[0]->shape().dims();
  for (const Instruction* out : outputs)
    if (!out->shape().isArray() || out->shape().dims() != dims) return readings;  // no row loop
  // Users come after their operands: a reverse walk sees every user first.
  const auto& all = fused.instructions();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const Instruction* i = it->get();
    if (i == root && root->opcode() == Opcode::kTuple) continue;
    bool output = std::find(outputs.begin(), outputs.end(), i) != outputs.end();
    std::vector<std::pair<const Instruction*, RowReading>> users;
    for (const Instruction* u : i->users())
      if (u != root || root->opcode() != Opcode::kTuple) users.push_back({u, readings[u]});
    readings[i] = rowReading(*i, dims, output, users);
  }
  return readings;
}

}  // namespace hlo::fusion
