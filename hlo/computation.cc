// Computation: instruction ownership, use lists and ordering.
#include "hlo/computation.h"

#include <algorithm>

namespace hlo {

void Computation::renumber() {
  for (size_t i = 0; i < instructions_.size(); ++i) instructions_[i]->id_ = static_cast<int64_t>(i);
}

Instruction* Computation::add(std::unique_ptr<Instruction> instruction) {
  Instruction* raw = instruction.get();
  raw->parent_ = this;
  raw->id_ = static_cast<int64_t>(instructions_.size());
  for (Instruction* op : raw->operands_) op->users_.push_back(raw);
  if (raw->opcode() == Opcode::kParameter && raw->parameterNumber() >= 0) {
    size_t n = static_cast<size_t>(raw->parameterNumber());
    if (n < (1u << 20)) {
      if (parameters_.size() <= n) parameters_.resize(n + 1, nullptr);
      if (!parameters_[n]) parameters_[n] = raw;
    }
  }
  instructions_.push_back(std::move(instruction));
  return raw;
}

Instruction* Computation::add(Opcode opcode, std::string name, Shape shape,
                              std::vector<Instruction*> operands) {
  auto instr = std::make_unique<Instruction>(opcode, std::move(name), std::move(shape));
  instr->operands_ = std::move(operands);
  return add(std::move(instr));
}

void Computation::addOperand(Instruction* user, Instruction* operand) {
  user->operands_.push_back(operand);
  operand->users_.push_back(user);
}

static void eraseOne(std::vector<Instruction*>& v, Instruction* x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}

void Computation::setOperand(Instruction* user, int index, Instruction* operand) {
  Instruction* old = user->operands_[index];
  if (old == operand) return;
  user->operands_[index] = operand;
  eraseOne(old->users_, user);
  operand->users_.push_back(user);
}

void Computation::addControlDependency(Instruction* predecessor, Instruction* successor) {
  predecessor->controlSuccessors_.push_back(successor);
  successor->controlPredecessors_.push_back(predecessor);
}

void Computation::replaceAllUses(Instruction* from, Instruction* to) {
  std::vector<Instruction*> users = from->users_;
  for (Instruction* user : users)
    for (int i = 0; i < user->operandCount(); ++i)
      if (user->operands_[i] == from) setOperand(user, i, to);
  if (root_ == from) root_ = to;
}

void Computation::remove(Instruction* instruction) {
  detach(instruction);
  removeDetached();
}

void Computation::detach(Instruction* instruction) {
  for (Instruction* op : instruction->operands_) eraseOne(op->users_, instruction);
  for (Instruction* p : instruction->controlPredecessors_)
    eraseOne(p->controlSuccessors_, instruction);
  for (Instruction* s : instruction->controlSuccessors_)
    eraseOne(s->controlPredecessors_, instruction);
  instruction->operands_.clear();
  instruction->controlPredecessors_.clear();
  instruction->controlSuccessors_.clear();
  if (instruction->opcode() == Opcode::kParameter) eraseOne(parameters_, instruction);
  if (root_ == instruction) root_ = nullptr;
  detached_.push_back(instruction);
}

void Computation::removeDetached() {
  if (detached_.empty()) return;
  // Ids are positions in the list (renumber keeps them so).
  std::vector<char> gone(instructions_.size());
  for (Instruction* i : detached_) gone[i->id_] = 1;
  detached_.clear();
  std::erase_if(instructions_, [&](const auto& p) { return gone[p->id_] != 0; });
  renumber();
}

Status Computation::sortTopologically() {
  removeDetached();
  // Iterative depth-first post-order over ids (positions in the list);
  // state 1 = on the stack, 2 = placed.
  size_t n = instructions_.size();
  std::vector<char> state(n);
  std::vector<Instruction*> order;  // the list is permuted only on success
  order.reserve(n);
  auto ours = [&](const Instruction* i) {
    return i->parent_ == this && i->id_ >= 0 && static_cast<size_t>(i->id_) < n &&
           instructions_[i->id_].get() == i;
  };
  std::vector<std::pair<Instruction*, size_t>> stack;
  auto deps = [](Instruction* i, size_t k) -> Instruction* {
    size_t count = i->operands_.size();
    if (k < count) return i->operands_[k];
    k -= count;
    return k < i->controlPredecessors_.size() ? i->controlPredecessors_[k] : nullptr;
  };
  std::vector<Instruction*> inOrder;
  for (auto& p : instructions_) inOrder.push_back(p.get());
  for (Instruction* start : inOrder) {
    if (state[start->id_] == 2) continue;
    stack.push_back({start, 0});
    state[start->id_] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      Instruction* dep = deps(node, next);
      if (dep) {
        ++next;
        if (!ours(dep)) continue;
        char& s = state[dep->id_];
        if (s == 1)
          return errorStatus("instruction '" + dep->name() + "' depends on itself (cycle)",
                             dep->loc());
        if (s == 0) {
          s = 1;
          stack.push_back({dep, 0});
        }
        continue;
      }
      state[node->id_] = 2;
      order.push_back(node);
      stack.pop_back();
    }
  }
  std::vector<std::unique_ptr<Instruction>> sorted;
  sorted.reserve(n);
  for (Instruction* i : order) sorted.push_back(std::move(instructions_[i->id_]));
  instructions_ = std::move(sorted);
  renumber();
  return okStatus();
}

Instruction* Computation::find(std::string_view name) const {
  for (const auto& p : instructions_)
    if (p->name() == name) return p.get();
  return nullptr;
}

std::string Computation::signature() const {
  std::string out = "(";
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (i) out += ", ";
    if (!parameters_[i]) continue;
    out += parameters_[i]->name() + ": ";
    parameters_[i]->shape().print(out);
  }
  out += ") -> ";
  if (root_) root_->shape().print(out);
  return out;
}

std::optional<Opcode> binaryOfParameters(const Computation* c) {
  if (!c || c->parameterCount() != 2) return std::nullopt;
  const Instruction* root = c->root();
  if (!root || root->operandCount() != 2) return std::nullopt;
  const Instruction* a = c->parameter(0);
  const Instruction* b = c->parameter(1);
  bool params = (root->operand(0) == a && root->operand(1) == b) || (root->operand(0) == b && root->operand(1) == a);
  if (!params) return std::nullopt;
  return root->opcode();
}

}  // namespace hlo
