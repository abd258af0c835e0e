// Instruction: one HLO operation — a plain struct, not a class hierarchy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hlo/attributes.h"
#include "hlo/literal.h"
#include "hlo/opcode.h"
#include "hlo/shape.h"
#include "hlo/status.h"

namespace hlo {

class Computation;

class Instruction {
 public:
  Instruction(Opcode opcode, std::string name, Shape shape)
      : opcode_(opcode), name_(std::move(name)), shape_(std::move(shape)) {}
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  Opcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  const Shape& shape() const { return shape_; }
  Shape& mutableShape() { return shape_; }
  void setShape(Shape s) { shape_ = std::move(s); }

  // Operands and users; change them only through Computation's methods so
  // both directions stay consistent (the verifier checks this).
  const std::vector<Instruction*>& operands() const { return operands_; }
  Instruction* operand(int i) const { return operands_[i]; }
  int operandCount() const { return static_cast<int>(operands_.size()); }
  const std::vector<Instruction*>& users() const { return users_; }
  const std::vector<Instruction*>& controlPredecessors() const { return controlPredecessors_; }
  const std::vector<Instruction*>& controlSuccessors() const { return controlSuccessors_; }
  bool hasControlEdges() const { return !controlPredecessors_.empty() || !controlSuccessors_.empty(); }

  Attributes& attrs() { return attrs_; }
  const Attributes& attrs() const { return attrs_; }

  // `parameter(N)`.
  int64_t parameterNumber() const { return parameterNumber_; }
  void setParameterNumber(int64_t n) { parameterNumber_ = n; }

  // `constant(...)`.
  bool hasLiteral() const { return literal_ != nullptr; }
  const Literal& literal() const { return *literal_; }
  void setLiteral(Literal l) { literal_ = std::make_unique<Literal>(std::move(l)); }

  // Every computation this instruction calls, in attribute order.
  std::vector<Computation*> calledComputations() const;

  Computation* parent() const { return parent_; }
  SourceLoc loc() const { return loc_; }
  void setLoc(SourceLoc loc) { loc_ = loc; }
  // Position in the parent's instruction list; kept by Computation.
  int64_t id() const { return id_; }

 private:
  friend class Computation;

  Opcode opcode_;
  std::string name_;
  Shape shape_;
  std::vector<Instruction*> operands_;
  std::vector<Instruction*> users_;
  std::vector<Instruction*> controlPredecessors_;
  std::vector<Instruction*> controlSuccessors_;
  Attributes attrs_;
  int64_t parameterNumber_ = -1;
  std::unique_ptr<Literal> literal_;
  Computation* parent_ = nullptr;
  SourceLoc loc_;
  int64_t id_ = -1;
};

}  // namespace hlo
