// Calls, fusions, loops, conditionals, async wrappers, the bookkeeping ops
// and collectives over one participant in the generator. The computations
// they call apply an op that keeps exactness (negate, not, a doubling, a
// square), so an exact operand gives an exact result.
#include "conformance/fuzz_ops.h"

namespace hlo::conformance::fuzz {
namespace {

// `x OP x`-like ops of `t` that keep exactness; `variant` picks one.
std::string selfOp(ElementType t, const std::string& x, uint64_t variant) {
  if (isPred(t)) return variant % 2 ? "not(" + x + ")" : "copy(" + x + ")";
  if (isComplex(t)) return variant % 2 ? "negate(" + x + ")" : "add(" + x + ", " + x + ")";
  switch (variant % 3) {
    case 0: return "add(" + x + ", " + x + ")";
    case 1: return isUnsigned(t) || t == ElementType::kF8E8M0FNU ? "copy(" + x + ")" : "negate(" + x + ")";
    default: return "multiply(" + x + ", " + x + ")";
  }
}

// A computation of one parameter of `shape` whose root is selfOp's.
std::string unaryComputation(Builder& b, const std::string& prefix, ElementType t, const Dims& dims,
                             uint64_t variant) {
  const std::string shape = shapeText(t, dims);
  return b.computation(b.fresh(prefix),
                       "  x = " + shape + " parameter(0)\n  ROOT r = " + shape + " " + selfOp(t, "x", variant) + "\n");
}

Value anyValue(Builder& b) {
  return b.need(b.oneIn(2) ? b.mainType() : b.pickOf(b.types()), b.someDims());
}

}  // namespace

bool writeCall(Builder& b) {
  Value x = anyValue(b);
  b.define(x.type, x.dims, "call(" + x.name + "), to_apply=" + unaryComputation(b, "called_", x.type, x.dims, b.pick(3)),
           x.exact, {&x});
  return true;
}

bool writeFusion(Builder& b) {
  Value x = anyValue(b);
  if (isComplex(x.type)) return false;
  Value y = b.need(x.type, x.dims);
  const std::string shape = shapeText(x.type, x.dims);
  const std::string body = isPred(x.type) ? "  m = " + shape + " and(a, c)\n  ROOT r = " + shape + " xor(m, a)\n"
                                          : "  m = " + shape + " multiply(a, c)\n  ROOT r = " + shape +
                                                " maximum(m, a)\n";
  const std::string fused =
      b.computation(b.fresh("fused_"), "  a = " + shape + " parameter(0)\n  c = " + shape + " parameter(1)\n" + body);
  b.define(x.type, x.dims, "fusion(" + x.name + ", " + y.name + "), kind=kLoop, calls=" + fused, x.exact && y.exact,
           {&x, &y});
  return true;
}

// A loop of 0 to 4 iterations over (counter, value).
bool writeWhile(Builder& b) {
  Value x = anyValue(b);
  const std::string shape = shapeText(x.type, x.dims), state = "(s32[], " + shape + ")";
  const std::string trips = std::to_string(b.pick(5));
  const std::string condition = b.computation(
      b.fresh("condition_"), "  s = " + state + " parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
                             "  n = s32[] constant(" + trips + ")\n  ROOT c = pred[] compare(i, n), direction=LT\n");
  const std::string body = b.computation(
      b.fresh("body_"), "  s = " + state + " parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  x = " + shape +
                            " get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
                            "  y = " + shape + " " + selfOp(x.type, "x", b.pick(3)) + "\n  ROOT t = " + state +
                            " tuple(j, y)\n");
  Value zero = b.define(ElementType::kS32, {}, "constant(0)", true, {});
  std::string init = b.defineOther(state, "tuple(" + zero.name + ", " + x.name + ")", {&zero, &x});
  std::string loop = b.defineOther(state, "while(" + init + "), condition=" + condition + ", body=" + body, {});
  b.define(x.type, x.dims, "get-tuple-element(" + loop + "), index=1", x.exact, {});
  return true;
}

// By a predicate, or by a branch index that may be out of range (the last
// branch runs then).
bool writeConditional(Builder& b) {
  Value x = anyValue(b);
  if (b.oneIn(2)) {
    Value p = b.need(ElementType::kPred, {}, Need::kExact);
    b.define(x.type, x.dims,
             "conditional(" + p.name + ", " + x.name + ", " + x.name + "), true_computation=" +
                 unaryComputation(b, "on_true_", x.type, x.dims, 0) +
                 ", false_computation=" + unaryComputation(b, "on_false_", x.type, x.dims, 1),
             x.exact, {&p, &x});
    return true;
  }
  const int branches = 2 + static_cast<int>(b.pick(2));
  Value index = b.index(branches);
  std::string operands = index.name, computations;
  for (int i = 0; i < branches; ++i) {
    operands += ", " + x.name;
    computations += (i ? ", " : "") + unaryComputation(b, "branch_", x.type, x.dims, i);
  }
  b.define(x.type, x.dims, "conditional(" + operands + "), branch_computations={" + computations + "}", x.exact,
           {&index, &x});
  return true;
}

bool writeAsync(Builder& b) {
  Value x = anyValue(b);
  const std::string shape = shapeText(x.type, x.dims), state = "((" + shape + "), " + shape + ")";
  const std::string wrapped = unaryComputation(b, "wrapped_", x.type, x.dims, b.pick(3));
  std::string started = b.defineOther(state, "async-start(" + x.name + "), calls=" + wrapped, {&x});
  if (b.oneIn(2)) started = b.defineOther(state, "async-update(" + started + "), calls=" + wrapped, {});
  b.define(x.type, x.dims, "async-done(" + started + "), calls=" + wrapped, x.exact, {});
  return true;
}

bool writeCopyStartDone(Builder& b) {
  Value x = anyValue(b);
  const std::string shape = shapeText(x.type, x.dims);
  std::string started = b.defineOther("(" + shape + ", " + shape + ", u32[])", "copy-start(" + x.name + ")", {&x});
  b.define(x.type, x.dims, "copy-done(" + started + ")", x.exact, {});
  return true;
}

bool writeAddDependency(Builder& b) {
  Value x = anyValue(b);
  std::string token = b.defineOther("token[]", "after-all()", {});
  b.define(x.type, x.dims, "add-dependency(" + x.name + ", " + token + ")", x.exact, {&x});
  return true;
}

bool writeDomain(Builder& b) {
  Value x = anyValue(b);
  b.define(x.type, x.dims,
           "domain(" + x.name + "), domain={kind=\"sharding\", entry={maximal device=0}, exit={maximal device=0}}",
           x.exact, {&x});
  return true;
}

// The custom calls that only annotate a value.
bool writeAnnotation(Builder& b) {
  static const std::vector<std::string> kTargets = {"Sharding", "MoveToHost", "MoveToDevice", "LayoutConstraint"};
  Value x = anyValue(b);
  const std::string target = b.pickOf(kTargets);
  b.define(x.type, x.dims,
           "custom-call(" + x.name + "), custom_call_target=\"" + target + "\"" +
               (target == "Sharding" ? ", sharding={replicated}" : ""),
           x.exact, {&x});
  return true;
}

bool writeDeviceId(Builder& b, Opcode op) {
  b.define(ElementType::kU32, {}, std::string(opcodeName(op)) + "()", true, {});
  return true;
}

bool writeCollective(Builder& b, Opcode op) {
  Value x = anyValue(b);
  const std::string shape = shapeText(x.type, x.dims);
  const bool reducible = !isPred(x.type) && x.type != ElementType::kF8E8M0FNU;
  auto reduction = [&] { return ", to_apply=" + b.binaryComputation("add", x.type); };
  const std::string along = x.dims.empty() ? "" : ", dimensions={0}";
  if (op == Opcode::kAllReduce || op == Opcode::kAllReduceStart || op == Opcode::kAllReduceDone) {
    if (!reducible) return false;
    std::string rhs = "(" + x.name + "), replica_groups={}" + reduction();
    if (op == Opcode::kAllReduce) {
      b.define(x.type, x.dims, "all-reduce" + rhs, x.exact, {&x});
    } else {
      std::string started = b.defineOther(shape, "all-reduce-start" + rhs, {&x});
      b.define(x.type, x.dims, "all-reduce-done(" + started + ")", x.exact, {});
    }
    return true;
  }
  if (op == Opcode::kAllGather || op == Opcode::kAllGatherStart || op == Opcode::kAllGatherDone) {
    if (x.dims.empty()) return false;
    if (op == Opcode::kAllGather) {
      b.define(x.type, x.dims, "all-gather(" + x.name + "), replica_groups={}" + along, x.exact, {&x});
    } else {
      std::string started = b.defineOther("(" + shape + ", " + shape + ")",
                                          "all-gather-start(" + x.name + "), replica_groups={}" + along, {&x});
      b.define(x.type, x.dims, "all-gather-done(" + started + ")", x.exact, {});
    }
    return true;
  }
  if (op == Opcode::kReduceScatter) {
    if (!reducible || x.dims.empty()) return false;
    b.define(x.type, x.dims, "reduce-scatter(" + x.name + "), replica_groups={}" + along + reduction(), x.exact, {&x});
    return true;
  }
  if (op == Opcode::kAllToAll) {
    if (x.dims.empty()) return false;  // the scalar form is a tuple's
    b.define(x.type, x.dims, "all-to-all(" + x.name + "), replica_groups={{0}}" + along, x.exact, {&x});
    return true;
  }
  if (op == Opcode::kCollectiveBroadcast) {
    b.define(x.type, x.dims, "collective-broadcast(" + x.name + "), replica_groups={}", x.exact, {&x});
    return true;
  }
  if (op == Opcode::kCollectivePermute) {
    b.define(x.type, x.dims, "collective-permute(" + x.name + "), source_target_pairs={{0,0}}", x.exact, {&x});
    return true;
  }
  if (op == Opcode::kCollectivePermuteStart || op == Opcode::kCollectivePermuteDone) {
    std::string started = b.defineOther("(" + shape + ", " + shape + ", u32[], u32[])",
                                        "collective-permute-start(" + x.name + "), source_target_pairs={{0,0}}", {&x});
    b.define(x.type, x.dims, "collective-permute-done(" + started + ")", x.exact, {});
    return true;
  }
  return false;
}

}  // namespace hlo::conformance::fuzz
