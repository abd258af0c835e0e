// Compiles computations over scalars into step lists (see scalar_program.h).
#include "interp/scalar_program.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "interp/elementwise_kernels.h"
#include "interp/elementwise_ops.h"

namespace hlo::interp {
namespace {

namespace s = scalar;
using Step = ScalarProgram::Step;
using Reg = ScalarRegister;

template <typename S>
S get(const Reg& r) {
  S v;
  std::memcpy(&v, r.bytes, sizeof v);
  return v;
}
template <typename S>
void put(Reg& r, S v) {
  std::memcpy(r.bytes, &v, sizeof v);
}

// The steps. E and Out are the Elems of elementwise_kernels.h: a small float
// loads into float exactly and stores rounded, as the array loops do.

template <class Op, class E, class Out>
void unaryStep(const Step& st, Reg* r) {
  using K = typename E::Kind;
  auto x = E::load(get<typename E::Storage>(r[st.in[0]]));
  put(r[st.out], Out::store(Op::template apply<K>(x)));
}

template <class Op, class E>
void binaryStep(const Step& st, Reg* r) {
  using K = typename E::Kind;
  using S = typename E::Storage;
  auto x = E::load(get<S>(r[st.in[0]]));
  auto y = E::load(get<S>(r[st.in[1]]));
  put(r[st.out], E::store(Op::template apply<K>(x, y)));
}

template <class E, class Cmp>
void compareStep(const Step& st, Reg* r) {
  using S = typename E::Storage;
  bool answer = Cmp()(E::load(get<S>(r[st.in[0]])), E::load(get<S>(r[st.in[1]])));
  put(r[st.out], PredElem::store(answer));
}

// TOTALORDER on float bit patterns; `imm` is the bit width, negative for a
// type without a sign bit.
template <class E, class Cmp>
void compareTotalOrderStep(const Step& st, Reg* r) {
  auto bits = [](const Reg& reg) {
    uint64_t b = 0;
    std::memcpy(&b, reg.bytes, sizeof(typename E::Storage));
    return b;
  };
  int width = st.imm < 0 ? -st.imm : st.imm;
  bool signBit = st.imm > 0;
  bool answer = Cmp()(s::totalOrderKey(bits(r[st.in[0]]), width, signBit),
                      s::totalOrderKey(bits(r[st.in[1]]), width, signBit));
  put(r[st.out], PredElem::store(answer));
}

void selectStep(const Step& st, Reg* r) {
  r[st.out] = get<uint8_t>(r[st.in[0]]) ? r[st.in[1]] : r[st.in[2]];
}

template <class E>
void clampStep(const Step& st, Reg* r) {
  using K = typename E::Kind;
  using S = typename E::Storage;
  auto lo = E::load(get<S>(r[st.in[0]]));
  auto x = E::load(get<S>(r[st.in[1]]));
  auto hi = E::load(get<S>(r[st.in[2]]));
  put(r[st.out], E::store(s::Clamp::apply<K>(lo, x, hi)));
}

void convertStep(const Step& st, Reg* r) { st.convert(r[st.in[0]].bytes, r[st.out].bytes); }

void copyStep(const Step& st, Reg* r) { r[st.out] = r[st.in[0]]; }

// Operands from the registers st.args lists; results (one, or one per tuple
// element) into st.out, st.out + 1, ...
void callStep(const Step& st, Reg* r) {
  for (int i = 0; i < st.callArgs; ++i) st.callee->parameterRegister(i) = r[st.args[i]];
  st.callee->runInPlace();
  for (int k = 0; k < st.callResults; ++k) r[st.out + k] = st.callee->resultRegister(k);
}

// The elementwise ops E computes in directly: every numeric type (small
// floats through their float Kind).
template <class E>
constexpr bool computes = familyOf<E> != s::Family::kNone;

}  // namespace

// Turns one computation into a program, or says it cannot.
class ScalarProgramBuilder {
 public:
  ScalarProgramBuilder(const Computation& computation, ScalarProgramCache& cache)
      : computation_(computation), cache_(cache), program_(std::make_unique<ScalarProgram>()) {}

  std::unique_ptr<ScalarProgram> build() {
    const auto& instrs = computation_.instructions();
    registerOf_.assign(instrs.size(), -1);
    program_->parameters_.assign(computation_.parameterCount(), -1);
    program_->parameterTypes_.assign(computation_.parameterCount(), ElementType::kPred);
    const Instruction* root = computation_.root();
    if (!root) return nullptr;
    for (const auto& instr : instrs) {
      if (instr.get() == root && root->opcode() == Opcode::kTuple) continue;
      if (!add(*instr)) return nullptr;
    }
    if (root->opcode() == Opcode::kTuple) {
      program_->tupleRoot_ = true;
      for (const Instruction* e : root->operands()) {
        if (!e->shape().isScalar() || registerOf_[e->id()] < 0) return nullptr;
        program_->roots_.push_back(registerOf_[e->id()]);
        program_->rootTypes_.push_back(e->shape().type());
      }
    } else if (root->shape().isTuple()) {  // a call returning a tuple
      program_->tupleRoot_ = true;
      for (size_t k = 0; k < root->shape().tupleElements().size(); ++k) {
        program_->roots_.push_back(registerOf_[root->id()] + static_cast<int>(k));
        program_->rootTypes_.push_back(root->shape().tupleElements()[k].type());
      }
    } else {
      program_->roots_ = {registerOf_[root->id()]};
      program_->rootTypes_ = {root->shape().type()};
    }
    for (int p : program_->parameters_)
      if (p < 0) return nullptr;
    program_->resultShape_ = root->shape();
    program_->registers_.resize(registerCount_);
    for (auto& [reg, bytes] : constants_) program_->registers_[reg] = bytes;
    for (Step& step : program_->steps_)  // the list has stopped growing
      if (step.fn == &callStep) step.args = program_->callOperands_.data() + step.argsBegin;
    return std::move(program_);
  }

 private:
  // Adds the step of `instr`; false when it has none. Values are scalars,
  // except the tuple of scalars a call may return, held in consecutive
  // registers and read through get-tuple-element.
  bool add(const Instruction& instr) {
    if (instr.opcode() == Opcode::kGetTupleElement) {
      const Instruction* tuple = instr.operand(0);
      int64_t index = instr.attrs().getInt(AttrKey::kIndex);
      if (!tuple->shape().isTuple() || registerOf_[tuple->id()] < 0 || !instr.shape().isScalar() ||
          index < 0 || index >= static_cast<int64_t>(tuple->shape().tupleElements().size()))
        return false;
      registerOf_[instr.id()] = registerOf_[tuple->id()] + static_cast<int>(index);
      return true;
    }
    bool tupleCall = instr.shape().isTuple() &&
                     (instr.opcode() == Opcode::kCall || instr.opcode() == Opcode::kFusion);
    if (!instr.shape().isScalar() && !tupleCall) return false;
    ElementType t = instr.shape().type();
    std::vector<int> in;
    std::vector<ElementType> inTypes;
    for (const Instruction* op : instr.operands()) {
      if (!op->shape().isScalar() || registerOf_[op->id()] < 0) return false;
      in.push_back(registerOf_[op->id()]);
      inTypes.push_back(op->shape().type());
    }
    auto allOf = [&](ElementType want) {
      return std::all_of(inTypes.begin(), inTypes.end(), [&](ElementType u) { return u == want; });
    };
    Step step{};
    Opcode opcode = instr.opcode();
    bool ok = false;
    if (opcode == Opcode::kParameter) {
      int64_t n = instr.parameterNumber();
      if (n < 0 || n >= computation_.parameterCount() || program_->parameters_[n] >= 0) return false;
      int reg = newRegister(instr);
      program_->parameters_[n] = reg;
      program_->parameterTypes_[n] = t;
      return true;
    }
    if (opcode == Opcode::kConstant) {
      if (!instr.hasLiteral() || instr.literal().elided() || !instr.literal().shape().isScalar() ||
          instr.literal().type() != t)
        return false;
      Reg bytes{};
      std::memcpy(bytes.bytes, instr.literal().untypedData(), storageBytes(t));
      constants_.emplace_back(newRegister(instr), bytes);
      return true;
    }
    if (in.size() == 1 && visitUnaryOp(opcode, [&](auto op) { ok = unary<typename decltype(op)::type>(step, inTypes[0], t); })) {
    } else if (in.size() == 2 && allOf(t) &&
               visitBinaryOp(opcode, [&](auto op) { ok = binary<typename decltype(op)::type>(step, t); })) {
    } else if (opcode == Opcode::kCompare && in.size() == 2 && inTypes[0] == inTypes[1]) {
      ok = compare(step, instr, inTypes[0]);
    } else if (opcode == Opcode::kSelect && in.size() == 3 && inTypes[0] == ElementType::kPred &&
               inTypes[1] == t && inTypes[2] == t) {
      step.fn = &selectStep;
      ok = true;
    } else if (opcode == Opcode::kClamp && in.size() == 3 && allOf(t)) {
      ok = clamp(step, t);
    } else if (opcode == Opcode::kConvert && in.size() == 1) {
      step.convert = elementConverter(inTypes[0], t);
      step.fn = &convertStep;
      ok = step.convert != nullptr;
    } else if ((opcode == Opcode::kCopy || opcode == Opcode::kReshape || opcode == Opcode::kBitcast) &&
               in.size() == 1 && inTypes[0] == t) {
      step.fn = &copyStep;
      ok = true;
    } else if (opcode == Opcode::kBitcastConvert && in.size() == 1 && sameStorage(inTypes[0], t)) {
      step.fn = &copyStep;
      ok = true;
    } else if (opcode == Opcode::kCall || opcode == Opcode::kFusion) {
      ok = call(step, instr, inTypes);
      step.argsBegin = static_cast<int>(program_->callOperands_.size());
      program_->callOperands_.insert(program_->callOperands_.end(), in.begin(), in.end());
      in.clear();
    }
    if (!ok || in.size() > 3) return false;
    for (size_t k = 0; k < in.size(); ++k) step.in[k] = in[k];
    step.out = newRegister(instr);
    if (opcode == Opcode::kCall || opcode == Opcode::kFusion) registerCount_ += step.callResults - 1;
    program_->steps_.push_back(step);
    return true;
  }

  // bitcast-convert between types whose storage is exactly their bits, of
  // one width (f32 and s32, bf16 and u16): the bytes are kept. Pred and the
  // sub-byte types, stored widened, are left to the array op.
  static bool sameStorage(ElementType from, ElementType to) {
    auto plain = [](ElementType u) { return !isPred(u) && bitWidth(u) >= 8 && !isComplex(u); };
    return plain(from) && plain(to) && bitWidth(from) == bitWidth(to);
  }

  template <class Op>
  bool unary(Step& step, ElementType from, ElementType to) {
    return visitType(from, [&](auto elem) {
      using E = decltype(elem);
      if constexpr (!computes<E>) {
        return false;
      } else if constexpr (!Op::template kAccepts<typename E::Kind>) {
        return false;
      } else {
        using Out = typename UnaryOut<E, Op::kResult>::type;
        step.fn = &unaryStep<Op, E, Out>;
        return to == Out::kType;
      }
    });
  }

  template <class Op>
  bool binary(Step& step, ElementType t) {
    return visitType(t, [&](auto elem) {
      using E = decltype(elem);
      if constexpr (!computes<E>) {
        return false;
      } else if constexpr (!Op::template kAccepts<typename E::Kind>) {
        return false;
      } else {
        step.fn = &binaryStep<Op, E>;
        return true;
      }
    });
  }

  bool compare(Step& step, const Instruction& instr, ElementType t) {
    if (instr.shape().type() != ElementType::kPred) return false;
    std::optional<ComparisonDirection> direction =
        parseComparisonDirection(instr.attrs().getString(AttrKey::kDirection));
    StatusOr<ComparisonType> type = comparisonTypeOf(instr.attrs(), t);
    if (!direction || !type.ok()) return false;
    bool totalOrder = *type == ComparisonType::kTotalOrder && isFloat(t);
    return visitType(t, [&](auto elem) {
      using E = decltype(elem);
      if constexpr (!computes<E>) {
        return false;
      } else {
        return s::withDirection(*direction, [&](auto cmp) {
          using Cmp = decltype(cmp);
          constexpr bool equality =
              std::is_same_v<Cmp, std::equal_to<>> || std::is_same_v<Cmp, std::not_equal_to<>>;
          if constexpr (familyOf<E> == s::Family::kComplex) {
            if constexpr (!equality) return false;  // complex has only EQ and NE
            else step.fn = &compareStep<E, Cmp>;
          } else if (totalOrder) {
            step.fn = &compareTotalOrderStep<E, Cmp>;
            step.imm = t == ElementType::kF8E8M0FNU ? -bitWidth(t) : bitWidth(t);
          } else {
            step.fn = &compareStep<E, Cmp>;
          }
          return true;
        });
      }
    });
  }

  bool clamp(Step& step, ElementType t) {
    return visitType(t, [&](auto elem) {
      using E = decltype(elem);
      if constexpr (!computes<E>) {
        return false;
      } else if constexpr (!s::Clamp::kAccepts<typename E::Kind>) {
        return false;
      } else {
        step.fn = &clampStep<E>;
        return true;
      }
    });
  }

  // A call or fusion whose computation is itself a program over exactly
  // these scalar types, returning what the instruction's shape says.
  bool call(Step& step, const Instruction& instr, const std::vector<ElementType>& inTypes) {
    const Computation* callee = instr.attrs().getComputation(AttrKey::kToApply);
    if (!callee) callee = instr.attrs().getComputation(AttrKey::kCalls);
    if (!callee || callee->parameterCount() != static_cast<int>(inTypes.size())) return false;
    const ScalarProgram* program = cache_.get(*callee);
    if (!program || program->parameterTypes_ != inTypes) return false;
    std::vector<ElementType> resultTypes;
    if (instr.shape().isTuple()) {
      for (const Shape& e : instr.shape().tupleElements()) {
        if (!e.isScalar()) return false;
        resultTypes.push_back(e.type());
      }
    } else {
      resultTypes.push_back(instr.shape().type());
    }
    if (program->tupleRoot_ != instr.shape().isTuple() || program->rootTypes_ != resultTypes) return false;
    step.fn = &callStep;
    step.callee = program;
    step.callArgs = static_cast<int>(inTypes.size());
    step.callResults = static_cast<int>(resultTypes.size());
    return true;
  }

  int newRegister(const Instruction& instr) {
    registerOf_[instr.id()] = registerCount_;
    return registerCount_++;
  }

  const Computation& computation_;
  ScalarProgramCache& cache_;
  std::unique_ptr<ScalarProgram> program_;
  std::vector<int> registerOf_;  // by instruction id
  int registerCount_ = 0;
  std::vector<std::pair<int, Reg>> constants_;
};

void ScalarProgram::runInPlace() const {
  Reg* r = registers_.data();
  for (const Step& step : steps_) step.fn(step, r);
}

std::optional<Literal> ScalarProgram::run(std::span<const Literal* const> args) const {
  if (args.size() != parameters_.size()) return std::nullopt;
  for (size_t i = 0; i < args.size(); ++i) {
    const Literal& a = *args[i];
    if (!a.shape().isScalar() || a.type() != parameterTypes_[i] || a.elided()) return std::nullopt;
    std::memcpy(registers_[parameters_[i]].bytes, a.untypedData(), storageBytes(a.type()));
  }
  runInPlace();
  Literal result(resultShape_);
  if (!tupleRoot_) {
    std::memcpy(result.untypedData(), registers_[roots_[0]].bytes, storageBytes(rootTypes_[0]));
    return result;
  }
  for (size_t k = 0; k < roots_.size(); ++k)
    std::memcpy(result.tupleElements()[k].untypedData(), registers_[roots_[k]].bytes,
                storageBytes(rootTypes_[k]));
  return result;
}

const ScalarProgram* ScalarProgramCache::get(const Computation& computation) {
  auto it = programs_.find(&computation);
  if (it != programs_.end()) return it->second.get();
  if (std::find(compiling_.begin(), compiling_.end(), &computation) != compiling_.end()) return nullptr;
  compiling_.push_back(&computation);
  std::unique_ptr<ScalarProgram> program = ScalarProgramBuilder(computation, *this).build();
  compiling_.pop_back();
  return (programs_[&computation] = std::move(program)).get();
}

}  // namespace hlo::interp
