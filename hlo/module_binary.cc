#include "hlo/module_binary.h"

#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "hlo/byte_record.h"

namespace hlo {
namespace {

constexpr std::string_view kMagic = "HLOMODULE\x01";

// ---- writing ----

void writeType(ByteWriter& w, ElementType t) { w.str(elementTypeName(t)); }

void writeShape(ByteWriter& w, const Shape& s) {
  writeType(w, s.type());
  w.ints(s.dims());
  for (int d = 0; d < s.rank(); ++d) w.boolean(s.isDynamicDim(d));
  w.boolean(s.layout().has_value());
  if (const std::optional<Layout>& l = s.layout()) {
    w.ints(l->minorToMajor);
    w.u64(l->tiles.size());
    for (const Tile& t : l->tiles) w.ints(t.dims);
    w.i64(l->tailPaddingAlignment);
    w.i64(l->elementSizeBits);
    w.i64(l->memorySpace);
    w.u64(l->extras.size());
    for (const LayoutExtra& e : l->extras) w.str(e.text);
  }
  w.u64(s.tupleElements().size());
  for (const Shape& e : s.tupleElements()) writeShape(w, e);
}

void writeLiteral(ByteWriter& w, const Literal& lit) {
  writeShape(w, lit.shape());
  w.boolean(lit.elided());
  if (lit.shape().isTuple()) {
    w.u64(lit.tupleElements().size());
    for (const Literal& e : lit.tupleElements()) writeLiteral(w, e);
    return;
  }
  for (int d = 0; d < lit.shape().rank() && lit.shape().isArray(); ++d)
    w.i64(lit.isDynamicDim(d) ? lit.dimSize(d) : -1);
  w.str(std::string_view(reinterpret_cast<const char*>(lit.untypedData()), lit.byteSize()));
}

void writeAttrValue(ByteWriter& w, const AttrValue& v, const std::unordered_map<const Computation*, uint64_t>& index) {
  w.i64(v.i);
  w.f64(v.f);
  w.boolean(v.b);
  w.str(v.s);
  w.ints(v.ints);
  w.u64(v.intLists.size());
  for (const auto& list : v.intLists) w.ints(list);
  w.u64(v.idents.size());
  for (const std::string& s : v.idents) w.str(s);
  w.u64(v.slices.size());
  for (const SliceDim& d : v.slices) w.ints({d.start, d.limit, d.stride});
  w.u64(v.padding.size());
  for (const PadDim& d : v.padding) w.ints({d.low, d.high, d.interior});
  w.u64(v.window.size());
  for (const WindowDim& d : v.window) {
    w.ints({d.size, d.stride, d.padLow, d.padHigh, d.baseDilation, d.windowDilation});
    w.boolean(d.reversal);
  }
  const ConvDims& c = v.conv;
  w.ints({c.inputBatch, c.inputFeature, c.kernelInputFeature, c.kernelOutputFeature, c.outputBatch, c.outputFeature,
          c.inputRank, c.kernelRank, c.outputRank});
  w.ints(c.inputSpatial);
  w.ints(c.kernelSpatial);
  w.ints(c.outputSpatial);
  w.u64(v.comps.size());
  for (const Computation* callee : v.comps) w.u64(callee ? index.at(callee) + 1 : 0);
  w.u64(v.shapes.size());
  for (const Shape& s : v.shapes) writeShape(w, s);
}

void writeComputation(ByteWriter& w, const Computation& c,
                      const std::unordered_map<const Computation*, uint64_t>& index) {
  w.str(c.name());
  w.i64(c.loc().line);
  w.i64(c.loc().column);
  w.str(c.executionThread());
  w.boolean(c.isInline());
  std::unordered_map<const Instruction*, uint64_t> position;
  for (const auto& i : c.instructions()) position[i.get()] = position.size();
  w.u64(c.instructions().size());
  for (const auto& i : c.instructions()) {
    w.str(opcodeName(i->opcode()));
    w.str(i->name());
    writeShape(w, i->shape());
    w.i64(i->parameterNumber());
    w.i64(i->loc().line);
    w.i64(i->loc().column);
    w.boolean(i->hasLiteral());
    if (i->hasLiteral()) writeLiteral(w, i->literal());
    w.u64(i->attrs().all().size());
    for (const auto& [key, value] : i->attrs().all()) {
      w.str(attrKeyName(key));
      writeAttrValue(w, value, index);
    }
  }
  // Edges after every instruction: an operand may come after its user in a
  // module that is not sorted yet.
  for (const auto& i : c.instructions()) {
    w.u64(i->operands().size());
    for (const Instruction* op : i->operands()) w.u64(position.at(op));
    w.u64(i->controlPredecessors().size());
    for (const Instruction* p : i->controlPredecessors()) w.u64(position.at(p));
  }
  w.u64(c.root() ? position.at(c.root()) + 1 : 0);
}

// ---- reading ----

// The bytes of an array of shape `s`, or SIZE_MAX when its dimensions are
// negative or their product overflows.
size_t arrayBytes(const Shape& s) {
  size_t bytes = storageBytes(s.type());
  for (int64_t d : s.dims()) {
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<size_t>(d), &bytes)) return SIZE_MAX;
  }
  return bytes;
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : r_(bytes) {}

  StatusOr<std::unique_ptr<Module>> module() {
    if (r_.str() != kMagic) return errorStatus("not a module image (its first bytes are not a module's)");
    auto m = std::make_unique<Module>(r_.str());
    for (uint64_t n = r_.count(16); n > 0 && r_.ok(); --n) {
      std::string key = r_.str();
      m->headerAttributes().emplace_back(std::move(key), r_.str());
    }
    m->stackFrameText() = r_.str();
    uint64_t computations = r_.count(8);
    for (uint64_t k = 0; k < computations; ++k) computations_.push_back(m->addComputation(""));
    for (Computation* c : computations_) HLO_RETURN_IF_ERROR(computation(*c));
    uint64_t entry = r_.u64();
    if (entry > computations_.size()) r_.fail();
    if (entry > 0 && r_.ok()) m->setEntry(computations_[entry - 1]);
    if (!r_.ok() || !r_.atEnd()) return damaged();
    return m;
  }

 private:
  Status damaged() const {
    return errorStatus("damaged module image: it ends early or holds a value out of range (at byte " +
                       std::to_string(r_.offset()) + ")");
  }

  StatusOr<ElementType> type() {
    std::string name = r_.str();
    if (name == "tuple") return ElementType::kTuple;
    if (name == "buffer") return ElementType::kBuffer;
    std::optional<ElementType> t = parseElementType(name);
    if (!t) return r_.ok() ? errorStatus("module image: unknown element type '" + name + "'") : damaged();
    return *t;
  }

  StatusOr<Shape> shape(int depth = 0) {
    if (depth > 64) return damaged();
    HLO_ASSIGN_OR_RETURN(ElementType t, type());
    std::vector<int64_t> dims = r_.ints();
    std::vector<bool> dynamic;
    for (size_t d = 0; d < dims.size(); ++d) dynamic.push_back(r_.boolean());
    std::optional<Layout> layout;
    if (r_.boolean()) {
      Layout l;
      l.minorToMajor = r_.ints();
      for (uint64_t n = r_.count(8); n > 0; --n) l.tiles.push_back(Tile{r_.ints()});
      l.tailPaddingAlignment = r_.i64();
      l.elementSizeBits = r_.i64();
      l.memorySpace = r_.i64();
      for (uint64_t n = r_.count(8); n > 0; --n) l.extras.push_back(LayoutExtra{r_.str()});
      layout = std::move(l);
    }
    std::vector<Shape> elements;
    for (uint64_t n = r_.count(8); n > 0 && r_.ok(); --n) {
      HLO_ASSIGN_OR_RETURN(Shape e, shape(depth + 1));
      elements.push_back(std::move(e));
    }
    if (!r_.ok()) return damaged();
    Shape s;
    if (t == ElementType::kTuple) s = Shape::tuple(std::move(elements));
    else if (t == ElementType::kToken) s = Shape::token();
    else if (t == ElementType::kBuffer) {
      if (elements.size() != 1) return damaged();
      s = Shape::buffer(std::move(elements[0]));
    } else {
      s = Shape(t, dims);
      for (size_t d = 0; d < dims.size(); ++d)
        if (dynamic[d]) s.setDim(static_cast<int>(d), dims[d], true);
    }
    if (layout) s.setLayout(std::move(*layout));
    return s;
  }

  StatusOr<Literal> literal(int depth = 0) {
    if (depth > 64) return damaged();
    HLO_ASSIGN_OR_RETURN(Shape s, shape());
    bool elided = r_.boolean();
    if (s.isTuple()) {
      // Element by element, so that no array is allocated before its bytes
      // are known to be there.
      Literal lit;
      uint64_t n = r_.count(8);
      if (n != static_cast<uint64_t>(s.tupleSize())) return damaged();
      for (uint64_t k = 0; k < n; ++k) {
        HLO_ASSIGN_OR_RETURN(Literal e, literal(depth + 1));
        lit.tupleElements().push_back(std::move(e));
      }
      lit.mutableShape() = std::move(s);
      return lit;
    }
    std::vector<int64_t> sizes;
    for (int d = 0; d < s.rank() && s.isArray(); ++d) sizes.push_back(r_.i64());
    std::string bytes = r_.str();
    if (!r_.ok()) return damaged();
    if (elided) return Literal::elidedArray(s);
    if (!s.isArray() ? !bytes.empty() : bytes.size() != arrayBytes(s)) return damaged();
    Literal lit = Literal::uninitialized(s);
    if (bytes.size() != lit.byteSize()) return damaged();
    if (!bytes.empty()) std::memcpy(lit.untypedData(), bytes.data(), bytes.size());
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] >= 0) lit.setDynamicSize(static_cast<int>(d), sizes[d]);
    return lit;
  }

  StatusOr<AttrValue> attrValue() {
    AttrValue v;
    v.i = r_.i64();
    v.f = r_.f64();
    v.b = r_.boolean();
    v.s = r_.str();
    v.ints = r_.ints();
    for (uint64_t n = r_.count(8); n > 0; --n) v.intLists.push_back(r_.ints());
    for (uint64_t n = r_.count(8); n > 0; --n) v.idents.push_back(r_.str());
    for (uint64_t n = r_.count(8); n > 0; --n) {
      std::vector<int64_t> d = r_.ints();
      if (d.size() != 3) return damaged();
      v.slices.push_back({d[0], d[1], d[2]});
    }
    for (uint64_t n = r_.count(8); n > 0; --n) {
      std::vector<int64_t> d = r_.ints();
      if (d.size() != 3) return damaged();
      v.padding.push_back({d[0], d[1], d[2]});
    }
    for (uint64_t n = r_.count(8); n > 0; --n) {
      std::vector<int64_t> d = r_.ints();
      if (d.size() != 6) return damaged();
      v.window.push_back({d[0], d[1], d[2], d[3], d[4], d[5], r_.boolean()});
    }
    std::vector<int64_t> c = r_.ints();
    if (c.size() != 9) return damaged();
    v.conv.inputBatch = c[0], v.conv.inputFeature = c[1], v.conv.kernelInputFeature = c[2];
    v.conv.kernelOutputFeature = c[3], v.conv.outputBatch = c[4], v.conv.outputFeature = c[5];
    v.conv.inputRank = c[6], v.conv.kernelRank = c[7], v.conv.outputRank = c[8];
    v.conv.inputSpatial = r_.ints();
    v.conv.kernelSpatial = r_.ints();
    v.conv.outputSpatial = r_.ints();
    for (uint64_t n = r_.count(8); n > 0; --n) {
      uint64_t callee = r_.u64();
      if (callee > computations_.size()) return damaged();
      v.comps.push_back(callee ? computations_[callee - 1] : nullptr);
    }
    for (uint64_t n = r_.count(8); n > 0 && r_.ok(); --n) {
      HLO_ASSIGN_OR_RETURN(Shape s, shape());
      v.shapes.push_back(std::move(s));
    }
    if (!r_.ok()) return damaged();
    return v;
  }

  Status computation(Computation& c) {
    c.setName(r_.str());
    int line = static_cast<int>(r_.i64());
    c.setLoc({line, static_cast<int>(r_.i64())});
    c.setExecutionThread(r_.str());
    c.setInline(r_.boolean());
    std::vector<Instruction*> instructions;
    for (uint64_t n = r_.count(32); n > 0 && r_.ok(); --n) {
      std::string opName = r_.str();
      std::optional<Opcode> op = parseOpcode(opName);
      if (!op) return r_.ok() ? errorStatus("module image: unknown opcode '" + opName + "'") : damaged();
      std::string name = r_.str();
      HLO_ASSIGN_OR_RETURN(Shape s, shape());
      auto instr = std::make_unique<Instruction>(*op, std::move(name), std::move(s));
      instr->setParameterNumber(r_.i64());
      int iline = static_cast<int>(r_.i64());
      instr->setLoc({iline, static_cast<int>(r_.i64())});
      if (r_.boolean()) {
        HLO_ASSIGN_OR_RETURN(Literal lit, literal());
        instr->setLiteral(std::move(lit));
      }
      for (uint64_t a = r_.count(8); a > 0 && r_.ok(); --a) {
        std::string keyName = r_.str();
        std::optional<AttrKey> key = parseAttrKey(keyName);
        if (!key) return r_.ok() ? errorStatus("module image: unknown attribute '" + keyName + "'") : damaged();
        HLO_ASSIGN_OR_RETURN(AttrValue value, attrValue());
        instr->attrs().set(*key, std::move(value));
      }
      instructions.push_back(c.add(std::move(instr)));
    }
    for (Instruction* i : instructions) {
      for (uint64_t n = r_.count(8); n > 0; --n) {
        uint64_t op = r_.u64();
        if (op >= instructions.size()) return damaged();
        c.addOperand(i, instructions[op]);
      }
      for (uint64_t n = r_.count(8); n > 0; --n) {
        uint64_t p = r_.u64();
        if (p >= instructions.size()) return damaged();
        c.addControlDependency(instructions[p], i);
      }
    }
    uint64_t root = r_.u64();
    if (root > instructions.size()) return damaged();
    if (root > 0) c.setRoot(instructions[root - 1]);
    return r_.ok() ? okStatus() : damaged();
  }

  ByteReader r_;
  std::vector<Computation*> computations_;
};

}  // namespace

std::string writeModuleBinary(const Module& module) {
  ByteWriter w;
  w.str(kMagic);
  w.str(module.name());
  w.u64(module.headerAttributes().size());
  for (const auto& [key, value] : module.headerAttributes()) {
    w.str(key);
    w.str(value);
  }
  w.str(module.stackFrameText());
  std::unordered_map<const Computation*, uint64_t> index;
  for (const auto& c : module.computations()) index[c.get()] = index.size();
  w.u64(module.computations().size());
  for (const auto& c : module.computations()) writeComputation(w, *c, index);
  w.u64(module.entry() ? index.at(module.entry()) + 1 : 0);
  return w.take();
}

StatusOr<std::unique_ptr<Module>> readModuleBinary(std::string_view bytes) {
  return Reader(bytes).module();
}

}  // namespace hlo
