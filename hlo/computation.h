// Computation: an ordered list of instructions with parameters and a root.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/instruction.h"

namespace hlo {

class Module;

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  // Instructions in def-before-use order (as written, or as re-sorted by
  // the parser when the text used an operand before defining it).
  const std::vector<std::unique_ptr<Instruction>>& instructions() const { return instructions_; }
  int instructionCount() const { return static_cast<int>(instructions_.size()); }

  Instruction* root() const { return root_; }
  void setRoot(Instruction* root) { root_ = root; }

  // Parameters ordered by parameter number (entries may be null while a
  // malformed computation is being built; the verifier reports holes).
  const std::vector<Instruction*>& parameters() const { return parameters_; }
  Instruction* parameter(int i) const { return parameters_[i]; }
  int parameterCount() const { return static_cast<int>(parameters_.size()); }

  // Appends an instruction; operands must already belong to this computation.
  Instruction* add(std::unique_ptr<Instruction> instruction);
  Instruction* add(Opcode opcode, std::string name, Shape shape,
                   std::vector<Instruction*> operands = {});
  void addOperand(Instruction* user, Instruction* operand);
  void setOperand(Instruction* user, int index, Instruction* operand);
  void addControlDependency(Instruction* predecessor, Instruction* successor);
  // Points every use of `from` (and the root, if it is `from`) at `to`.
  void replaceAllUses(Instruction* from, Instruction* to);
  // Removes an instruction that has no users; drops its operand and control edges.
  void remove(Instruction* instruction);
  // remove() in two halves, for passes that remove many instructions (one
  // pass over the list each is quadratic): detach() drops the edges of an
  // instruction that has no users, at once, but leaves it in the list with
  // its id; removeDetached() then removes every detached instruction in one
  // pass. Until then instructions() still lists them.
  void detach(Instruction* instruction);
  void removeDetached();
  // Reorders instructions so every operand and control predecessor comes
  // first; fails on a cycle, naming an instruction on it. Removes detached
  // instructions first.
  Status sortTopologically();

  Instruction* find(std::string_view name) const;

  Module* parent() const { return parent_; }
  void setParent(Module* m) { parent_ = m; }
  SourceLoc loc() const { return loc_; }
  void setLoc(SourceLoc loc) { loc_ = loc; }

  // `execution_thread="..."` after the closing brace; empty means main.
  const std::string& executionThread() const { return executionThread_; }
  void setExecutionThread(std::string t) { executionThread_ = std::move(t); }
  // True for computations written inline inside `calls={...}`.
  bool isInline() const { return inline_; }
  void setInline(bool v) { inline_ = v; }

  // The signature as printed: `(a: f32[], b: f32[]) -> f32[]`.
  std::string signature() const;

 private:
  void renumber();

  std::string name_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  std::vector<Instruction*> detached_;  // see detach()
  std::vector<Instruction*> parameters_;
  Instruction* root_ = nullptr;
  Module* parent_ = nullptr;
  SourceLoc loc_;
  std::string executionThread_;
  bool inline_ = false;
};

// The opcode of a computation whose root is one binary instruction of its
// two parameters, in either order (a reducer such as `add(p0, p1)`), or
// nullopt for any other computation.
std::optional<Opcode> binaryOfParameters(const Computation* computation);

}  // namespace hlo
