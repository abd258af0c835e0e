// HLO text printer: one canonical form for every module.
#include "hlo/printer.h"

#include <charconv>

namespace hlo {
namespace {

void appendInts(std::string& out, const std::vector<int64_t>& v, const char* sep = ",") {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += std::to_string(v[i]);
  }
}

void appendBraced(std::string& out, const std::vector<int64_t>& v) {
  out += '{';
  appendInts(out, v);
  out += '}';
}

// `3x3` from one field of each window dimension.
template <typename F>
void appendWindowField(std::string& out, const std::vector<WindowDim>& w, F field) {
  for (size_t i = 0; i < w.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(field(w[i]));
  }
}

void appendWindow(std::string& out, const std::vector<WindowDim>& w) {
  out += '{';
  bool first = true;
  auto section = [&](const char* name) {
    if (!first) out += ' ';
    first = false;
    out += name;
    out += '=';
  };
  auto any = [&](auto pred) {
    for (const WindowDim& d : w)
      if (pred(d)) return true;
    return false;
  };
  if (!w.empty()) {
    section("size");
    appendWindowField(out, w, [](const WindowDim& d) { return d.size; });
  }
  if (any([](const WindowDim& d) { return d.stride != 1; })) {
    section("stride");
    appendWindowField(out, w, [](const WindowDim& d) { return d.stride; });
  }
  if (any([](const WindowDim& d) { return d.padLow != 0 || d.padHigh != 0; })) {
    section("pad");
    for (size_t i = 0; i < w.size(); ++i) {
      if (i) out += 'x';
      out += std::to_string(w[i].padLow) + "_" + std::to_string(w[i].padHigh);
    }
  }
  if (any([](const WindowDim& d) { return d.baseDilation != 1; })) {
    section("lhs_dilate");
    appendWindowField(out, w, [](const WindowDim& d) { return d.baseDilation; });
  }
  if (any([](const WindowDim& d) { return d.windowDilation != 1; })) {
    section("rhs_dilate");
    appendWindowField(out, w, [](const WindowDim& d) { return d.windowDilation; });
  }
  if (any([](const WindowDim& d) { return d.reversal; })) {
    section("rhs_reversal");
    appendWindowField(out, w, [](const WindowDim& d) { return d.reversal ? 1 : 0; });
  }
  out += '}';
}

// One side of dim_labels: `b01f` from batch/feature positions and spatial dims.
std::string labelString(int64_t rank, int64_t first, char firstChar, int64_t second,
                        char secondChar, const std::vector<int64_t>& spatial) {
  std::string s(static_cast<size_t>(std::max<int64_t>(rank, 0)), '?');
  auto put = [&](int64_t pos, char c) {
    if (pos >= 0 && pos < rank) s[pos] = c;
  };
  put(first, firstChar);
  put(second, secondChar);
  for (size_t i = 0; i < spatial.size(); ++i) put(spatial[i], static_cast<char>('0' + i));
  return s;
}

void appendDimLabels(std::string& out, const ConvDims& c) {
  int64_t usual = 2 + static_cast<int64_t>(c.inputSpatial.size());
  auto rank = [&](int64_t r) { return r ? r : usual; };  // see ConvDims: 0 is the usual rank
  out += labelString(rank(c.inputRank), c.inputBatch, 'b', c.inputFeature, 'f', c.inputSpatial);
  out += '_';
  out += labelString(rank(c.kernelRank), c.kernelInputFeature, 'i', c.kernelOutputFeature, 'o',
                     c.kernelSpatial);
  out += "->";
  out += labelString(rank(c.outputRank), c.outputBatch, 'b', c.outputFeature, 'f', c.outputSpatial);
}

void appendDouble(std::string& out, double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, res.ptr);
}

}  // namespace

std::string quoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        // Other control bytes in octal, as XLA's printer writes them.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char octal[5];
          std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned char>(c));
          out += octal;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void printAttrValue(AttrKey key, const AttrValue& v, std::string& out) {
  switch (attrKind(key)) {
    case AttrKind::kInt:
      out += std::to_string(v.i);
      return;
    case AttrKind::kFloat:
      appendDouble(out, v.f);
      return;
    case AttrKind::kBool:
      out += v.b ? "true" : "false";
      return;
    case AttrKind::kString:
      out += quoteString(v.s);
      return;
    case AttrKind::kIdent:
    case AttrKind::kVerbatim:
    case AttrKind::kLiteral:
      out += v.s;
      return;
    case AttrKind::kIdentList:
      out += '{';
      for (size_t i = 0; i < v.idents.size(); ++i) {
        if (i) out += ',';
        out += v.idents[i];
      }
      out += '}';
      return;
    case AttrKind::kIntList:
      if (v.intLists.empty()) {
        appendBraced(out, v.ints);
        return;
      }
      [[fallthrough]];
    case AttrKind::kReplicaGroups:
      if (!v.s.empty()) {  // iota or mesh form, kept as written
        out += v.s;
        return;
      }
      [[fallthrough]];
    case AttrKind::kIntListList:
      out += '{';
      for (size_t i = 0; i < v.intLists.size(); ++i) {
        if (i) out += ',';
        appendBraced(out, v.intLists[i]);
      }
      out += '}';
      return;
    case AttrKind::kSlice:
      out += '{';
      for (size_t i = 0; i < v.slices.size(); ++i) {
        if (i) out += ", ";
        const SliceDim& s = v.slices[i];
        out += '[' + std::to_string(s.start) + ':' + std::to_string(s.limit);
        if (s.stride != 1) out += ':' + std::to_string(s.stride);
        out += ']';
      }
      out += '}';
      return;
    case AttrKind::kPadding: {
      bool interior = false;
      for (const PadDim& p : v.padding) interior |= p.interior != 0;
      for (size_t i = 0; i < v.padding.size(); ++i) {
        if (i) out += 'x';
        const PadDim& p = v.padding[i];
        out += std::to_string(p.low) + '_' + std::to_string(p.high);
        if (interior) out += '_' + std::to_string(p.interior);
      }
      return;
    }
    case AttrKind::kWindow:
      appendWindow(out, v.window);
      return;
    case AttrKind::kDimLabels:
      appendDimLabels(out, v.conv);
      return;
    case AttrKind::kComputation:
      out += '%';
      out += v.comps.empty() || !v.comps[0] ? "" : v.comps[0]->name();
      return;
    case AttrKind::kComputationList:
      // XLA writes one called computation as `calls=%f`, several in braces.
      if (key == AttrKey::kCalls && v.comps.size() == 1 && v.comps[0]) {
        out += '%' + v.comps[0]->name();
        return;
      }
      out += '{';
      for (size_t i = 0; i < v.comps.size(); ++i) {
        if (i) out += ", ";
        out += '%' + v.comps[i]->name();
      }
      out += '}';
      return;
    case AttrKind::kShape:
      if (!v.shapes.empty()) v.shapes[0].print(out);
      return;
    case AttrKind::kShapeList:
      out += '{';
      for (size_t i = 0; i < v.shapes.size(); ++i) {
        if (i) out += ", ";
        v.shapes[i].print(out);
      }
      out += '}';
      return;
  }
}

static void printInstructionTo(const Instruction& instr, std::string& out) {
  out += '%';
  out += instr.name();
  out += " = ";
  instr.shape().print(out);
  out += ' ';
  out += opcodeName(instr.opcode());
  out += '(';
  if (instr.opcode() == Opcode::kParameter) {
    out += std::to_string(instr.parameterNumber());
  } else if (instr.opcode() == Opcode::kConstant && instr.hasLiteral()) {
    instr.literal().printValues(out);
  } else {
    for (int i = 0; i < instr.operandCount(); ++i) {
      if (i) out += ", ";
      out += '%';
      out += instr.operand(i)->name();
    }
  }
  out += ')';
  for (const auto& [key, value] : instr.attrs().all()) {
    out += ", ";
    out += attrKeyName(key);
    out += '=';
    printAttrValue(key, value, out);
  }
  if (!instr.controlPredecessors().empty()) {
    out += ", control-predecessors={";
    for (size_t i = 0; i < instr.controlPredecessors().size(); ++i) {
      if (i) out += ", ";
      out += '%' + instr.controlPredecessors()[i]->name();
    }
    out += '}';
  }
}

std::string printInstruction(const Instruction& instr) {
  std::string out;
  printInstructionTo(instr, out);
  return out;
}

void printComputation(const Computation& c, bool isEntry, std::string& out) {
  if (isEntry) out += "ENTRY ";
  out += '%';
  out += c.name();
  out += ' ';
  out += c.signature();
  out += " {\n";
  for (const auto& instr : c.instructions()) {
    out += "  ";
    if (instr.get() == c.root()) out += "ROOT ";
    printInstructionTo(*instr, out);
    out += '\n';
  }
  out += '}';
  if (!c.executionThread().empty())
    out += ", execution_thread=" + quoteString(c.executionThread());
  out += '\n';
}

std::string printModule(const Module& module) {
  std::string out = "HloModule " + module.name();
  for (const auto& [key, value] : module.headerAttributes()) out += ", " + key + "=" + value;
  out += "\n\n";
  if (!module.stackFrameText().empty()) out += module.stackFrameText() + "\n";
  for (const auto& c : module.computations()) {
    printComputation(*c, c.get() == module.entry(), out);
    out += '\n';
  }
  return out;
}

}  // namespace hlo
