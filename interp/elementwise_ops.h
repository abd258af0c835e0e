// Which scalar operation (interp/scalar_ops.h) each elementwise unary and
// binary opcode computes: the one mapping both the array loops
// (interp/elementwise.cc) and compiled scalar programs
// (interp/scalar_program.cc) are instantiated from.
#pragma once

#include <type_traits>

#include "hlo/opcode.h"
#include "interp/scalar_ops.h"

namespace hlo::interp {

// Calls fn(std::type_identity<Op>{}) with the scalar op of a unary opcode
// and returns true; false for any other opcode.
template <typename Fn>
bool visitUnaryOp(Opcode opcode, Fn&& fn) {
  namespace s = scalar;
  using O = Opcode;
  switch (opcode) {
    case O::kAbs: fn(std::type_identity<s::Abs>{}); return true;
    case O::kAcos: fn(std::type_identity<s::Acos>{}); return true;
    case O::kAcosh: fn(std::type_identity<s::Acosh>{}); return true;
    case O::kAsin: fn(std::type_identity<s::Asin>{}); return true;
    case O::kAsinh: fn(std::type_identity<s::Asinh>{}); return true;
    case O::kAtan: fn(std::type_identity<s::Atan>{}); return true;
    case O::kAtanh: fn(std::type_identity<s::Atanh>{}); return true;
    case O::kCbrt: fn(std::type_identity<s::Cbrt>{}); return true;
    case O::kCeil: fn(std::type_identity<s::Ceil>{}); return true;
    case O::kClz: fn(std::type_identity<s::Clz>{}); return true;
    case O::kCos: fn(std::type_identity<s::Cos>{}); return true;
    case O::kCosh: fn(std::type_identity<s::Cosh>{}); return true;
    case O::kErf: fn(std::type_identity<s::Erf>{}); return true;
    case O::kExp: fn(std::type_identity<s::Exp>{}); return true;
    case O::kExpm1: fn(std::type_identity<s::Expm1>{}); return true;
    case O::kFloor: fn(std::type_identity<s::Floor>{}); return true;
    case O::kImag: fn(std::type_identity<s::Imag>{}); return true;
    case O::kIsFinite: fn(std::type_identity<s::IsFinite>{}); return true;
    case O::kLog: fn(std::type_identity<s::Log>{}); return true;
    case O::kLog1p: fn(std::type_identity<s::Log1p>{}); return true;
    case O::kLogistic: fn(std::type_identity<s::Logistic>{}); return true;
    case O::kNegate: fn(std::type_identity<s::Negate>{}); return true;
    case O::kNot: fn(std::type_identity<s::Not>{}); return true;
    case O::kPopulationCount: fn(std::type_identity<s::PopulationCount>{}); return true;
    case O::kReal: fn(std::type_identity<s::Real>{}); return true;
    case O::kRoundNearestAfz: fn(std::type_identity<s::RoundNearestAfz>{}); return true;
    case O::kRoundNearestEven: fn(std::type_identity<s::RoundNearestEven>{}); return true;
    case O::kRsqrt: fn(std::type_identity<s::Rsqrt>{}); return true;
    case O::kSign: fn(std::type_identity<s::Sign>{}); return true;
    case O::kSin: fn(std::type_identity<s::Sin>{}); return true;
    case O::kSinh: fn(std::type_identity<s::Sinh>{}); return true;
    case O::kSqrt: fn(std::type_identity<s::Sqrt>{}); return true;
    case O::kTan: fn(std::type_identity<s::Tan>{}); return true;
    case O::kTanh: fn(std::type_identity<s::Tanh>{}); return true;
    default: return false;
  }
}

// The same for binary opcodes whose operands and result have one type.
template <typename Fn>
bool visitBinaryOp(Opcode opcode, Fn&& fn) {
  namespace s = scalar;
  using O = Opcode;
  switch (opcode) {
    case O::kAdd: fn(std::type_identity<s::Add>{}); return true;
    case O::kAnd: fn(std::type_identity<s::And>{}); return true;
    case O::kAtan2: fn(std::type_identity<s::Atan2>{}); return true;
    case O::kDivide: fn(std::type_identity<s::Divide>{}); return true;
    case O::kMaximum: fn(std::type_identity<s::Maximum>{}); return true;
    case O::kMinimum: fn(std::type_identity<s::Minimum>{}); return true;
    case O::kMulhi: fn(std::type_identity<s::Mulhi>{}); return true;
    case O::kMultiply: fn(std::type_identity<s::Multiply>{}); return true;
    case O::kOr: fn(std::type_identity<s::Or>{}); return true;
    case O::kPower: fn(std::type_identity<s::Power>{}); return true;
    case O::kRemainder: fn(std::type_identity<s::Remainder>{}); return true;
    case O::kShiftLeft: fn(std::type_identity<s::ShiftLeft>{}); return true;
    case O::kShiftRightArithmetic: fn(std::type_identity<s::ShiftRightArithmetic>{}); return true;
    case O::kShiftRightLogical: fn(std::type_identity<s::ShiftRightLogical>{}); return true;
    case O::kSubtract: fn(std::type_identity<s::Subtract>{}); return true;
    case O::kXor: fn(std::type_identity<s::Xor>{}); return true;
    default: return false;
  }
}

}  // namespace hlo::interp
