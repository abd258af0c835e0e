// Attribute values, one small parser per AttrKind.
#include "parser/attribute_parser.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>

#include "parser/shape_parser.h"
#include "parser/sharding_parser.h"

namespace hlo {
namespace {

Status parseIntList(Cursor& c, std::vector<int64_t>& out) {
  if (!c.consume('{')) return c.error("expected '{' to start a list of integers");
  if (c.consume('}')) return okStatus();
  do {
    int64_t v;
    if (!c.integer(v)) return c.error("expected an integer");
    out.push_back(v);
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("expected ',' or '}' in a list of integers");
  return okStatus();
}

Status parseIntListList(Cursor& c, std::vector<std::vector<int64_t>>& out) {
  if (!c.consume('{')) return c.error("expected '{' to start a list of lists");
  if (c.consume('}')) return okStatus();
  do {
    std::vector<int64_t> inner;
    HLO_RETURN_IF_ERROR(parseIntList(c, inner));
    out.push_back(std::move(inner));
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("expected ',' or '}' in a list of lists");
  return okStatus();
}

// `1x2x3` (or `1_2x3_4` style via a separator) into numbers per dimension.
Status parseXList(Cursor& c, std::vector<std::vector<int64_t>>& out, size_t minParts,
                  size_t maxParts) {
  c.skipSpace();
  do {
    std::vector<int64_t> parts;
    do {
      int64_t v;
      // integer() refuses `1x2`, so read digits by hand.
      size_t p = c.pos();
      std::string_view t = c.text();
      bool neg = p < t.size() && t[p] == '-';
      size_t q = p + neg;
      size_t digits = q;
      while (q < t.size() && t[q] >= '0' && t[q] <= '9') ++q;
      if (q == digits) return c.errorAt(q, "expected a number");
      auto res = std::from_chars(t.data() + p + neg, t.data() + q, v);
      if (res.ec != std::errc()) return c.errorAt(p, "number out of range");
      parts.push_back(neg ? -v : v);
      c.setPos(q);
    } while (c.rawPeek() == '_' && (c.setPos(c.pos() + 1), true));
    if (parts.size() < minParts || parts.size() > maxParts)
      return c.errorAt(c.pos(), "expected " + std::to_string(minParts) +
                     (minParts == maxParts ? "" : " to " + std::to_string(maxParts)) +
                     " numbers joined by '_'");
    out.push_back(std::move(parts));
  } while (c.rawPeek() == 'x' && (c.setPos(c.pos() + 1), true));
  return okStatus();
}

Status parseWindow(Cursor& c, std::vector<WindowDim>& window) {
  if (!c.consume('{')) return c.error("expected '{' to start a window");
  std::vector<std::vector<int64_t>> size, stride, pad, lhs, rhs, rev;
  while (!c.consume('}')) {
    size_t at = c.pos();
    std::string_view field = c.name();
    if (field.empty() || !c.consume('=')) return c.error("expected a window field such as size=");
    std::vector<std::vector<int64_t>>* target = nullptr;
    size_t parts = 1;
    if (field == "size") target = &size;
    else if (field == "stride") target = &stride;
    else if (field == "pad") target = &pad, parts = 2;
    else if (field == "lhs_dilate") target = &lhs;
    else if (field == "rhs_dilate") target = &rhs;
    else if (field == "rhs_reversal") target = &rev;
    else return c.errorAt(at, "unknown window field '" + std::string(field) + "'");
    if (!target->empty()) return c.errorAt(at, "window field '" + std::string(field) + "' given twice");
    HLO_RETURN_IF_ERROR(parseXList(c, *target, parts, parts));
  }
  size_t rank = size.size();
  auto check = [&](const std::vector<std::vector<int64_t>>& f, const char* name) -> Status {
    if (!f.empty() && f.size() != rank)
      return c.error(std::string("window ") + name + " has " + std::to_string(f.size()) +
                     " dimensions but size has " + std::to_string(rank));
    return okStatus();
  };
  HLO_RETURN_IF_ERROR(check(stride, "stride"));
  HLO_RETURN_IF_ERROR(check(pad, "pad"));
  HLO_RETURN_IF_ERROR(check(lhs, "lhs_dilate"));
  HLO_RETURN_IF_ERROR(check(rhs, "rhs_dilate"));
  HLO_RETURN_IF_ERROR(check(rev, "rhs_reversal"));
  if (rank == 0 && !(stride.empty() && pad.empty() && lhs.empty() && rhs.empty() && rev.empty()))
    return c.error("window fields given without size");
  window.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    WindowDim& d = window[i];
    d.size = size[i][0];
    if (!stride.empty()) d.stride = stride[i][0];
    if (!pad.empty()) d.padLow = pad[i][0], d.padHigh = pad[i][1];
    if (!lhs.empty()) d.baseDilation = lhs[i][0];
    if (!rhs.empty()) d.windowDilation = rhs[i][0];
    if (!rev.empty()) {
      if (rev[i][0] != 0 && rev[i][0] != 1) return c.error("rhs_reversal values must be 0 or 1");
      d.reversal = rev[i][0] == 1;
    }
  }
  return okStatus();
}

// One side of dim_labels, which starts at offset `at` of the text. `a`/`b`
// are its two lettered dimensions; digits are spatial dimensions; `?` marks a
// dimension the convolution does not use (cuDNN's vectorized ones), which
// only counts towards the side's rank.
Status parseLabels(Cursor& c, std::string_view s, size_t at, char a, char b, int64_t& posA,
                   int64_t& posB, std::vector<int64_t>& spatial, int64_t& rank) {
  posA = posB = -1;
  rank = static_cast<int64_t>(s.size());
  size_t spatialCount = 0;
  for (char ch : s) spatialCount += ch != a && ch != b && ch != '?';
  spatial.assign(spatialCount, -1);
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    int64_t* slot = ch == a ? &posA
                    : ch == b ? &posB
                    : ch >= '0' && static_cast<size_t>(ch - '0') < spatialCount ? &spatial[ch - '0']
                                                                                 : nullptr;
    if (ch == '?') continue;
    if (!slot)
      return c.errorAt(at + i, std::string("invalid dimension label '") + ch + "' in dim_labels: expected [0-" +
                                   std::to_string(static_cast<int64_t>(spatialCount) - 1) + a + b + "?]");
    if (*slot >= 0)
      return c.errorAt(at + i, std::string("dimension label '") + ch + "' appears twice in dim_labels");
    *slot = static_cast<int64_t>(i);
  }
  if (posA < 0 || posB < 0)
    return c.errorAt(at, std::string("dim_labels side '") + std::string(s) + "' needs both '" + a +
                             "' and '" + b + "'");
  return okStatus();
}

Status parseDimLabels(Cursor& c, ConvDims& conv) {
  c.skipSpace();
  size_t at = c.pos();
  std::string_view t = c.text();
  size_t p = at;
  while (p < t.size() && (isNameChar(t[p]) || t[p] == '>' || t[p] == '?')) ++p;
  std::string_view s = t.substr(at, p - at);
  c.setPos(p);
  size_t underscore = s.find('_');
  size_t arrow = s.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore)
    return c.errorAt(at, "dim_labels must look like b01f_01io->b01f");
  std::string_view in = s.substr(0, underscore);
  std::string_view kernel = s.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = s.substr(arrow + 2);
  HLO_RETURN_IF_ERROR(parseLabels(c, in, at, 'b', 'f', conv.inputBatch, conv.inputFeature,
                                  conv.inputSpatial, conv.inputRank));
  HLO_RETURN_IF_ERROR(parseLabels(c, kernel, at + underscore + 1, 'i', 'o', conv.kernelInputFeature,
                                  conv.kernelOutputFeature, conv.kernelSpatial, conv.kernelRank));
  HLO_RETURN_IF_ERROR(parseLabels(c, out, at + arrow + 2, 'b', 'f', conv.outputBatch,
                                  conv.outputFeature, conv.outputSpatial, conv.outputRank));
  if (conv.inputSpatial.size() != conv.kernelSpatial.size() ||
      conv.inputSpatial.size() != conv.outputSpatial.size())
    return c.errorAt(at, "dim_labels sides must have the same number of spatial dimensions");
  // Only a side with `?` keeps its rank (see ConvDims).
  int64_t usual = 2 + static_cast<int64_t>(conv.inputSpatial.size());
  for (int64_t* rank : {&conv.inputRank, &conv.kernelRank, &conv.outputRank})
    if (*rank == usual) *rank = 0;
  return okStatus();
}

Status parseSlice(Cursor& c, std::vector<SliceDim>& slices) {
  if (!c.consume('{')) return c.error("expected '{' to start a slice");
  if (c.consume('}')) return okStatus();
  do {
    if (!c.consume('[')) return c.error("expected '[' in slice");
    SliceDim d;
    if (!c.integer(d.start) || !c.consume(':') || !c.integer(d.limit))
      return c.error("expected [start:limit] or [start:limit:stride] in slice");
    if (c.consume(':') && !c.integer(d.stride)) return c.error("expected a slice stride");
    if (!c.consume(']')) return c.error("expected ']' in slice");
    slices.push_back(d);
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("expected '}' to close the slice");
  return okStatus();
}

// Reads a value that is checked here but kept as written (in v.s).
Status checkedVerbatim(Cursor& c, AttrValue& v, Status (*check)(Cursor&)) {
  c.skipSpace();
  size_t start = c.pos();
  HLO_RETURN_IF_ERROR(check(c));
  v.s = std::string(c.text().substr(start, c.pos() - start));
  return okStatus();
}

// `{{0,1},{2,3}}` (kept as lists), or `[2,2]<=[4]` / `mesh[...] {...}`
// (checked, kept as written).
Status parseReplicaGroups(Cursor& c, AttrValue& v) {
  char p = c.peek();
  if (p == '{') return parseIntListList(c, v.intLists);
  if (p == '[') return checkedVerbatim(c, v, checkIotaReplicaGroups);
  std::string_view w = c.peekName();
  if (w == "mesh" || w == "maximal_mesh") return checkedVerbatim(c, v, checkMeshReplicaGroups);
  return c.error("expected replica groups: {{...}}, [n,m]<=[...] or mesh[...] {...}");
}

// `{mode=highest}` or `{tolerance={atol=0.1, rtol=0, ulps=2}}`.
Status checkResultAccuracy(Cursor& c) {
  if (!c.consume('{')) return c.error("expected '{' to start result_accuracy");
  size_t at = c.pos();
  std::string_view key = c.name();
  if (key.empty() || !c.consume('=')) return c.errorAt(at, "expects attribute name in result_accuracy");
  if (key == "mode") {
    size_t modeAt = c.pos();
    std::string mode(c.name());
    for (char& ch : mode) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (mode != "default" && mode != "highest")
      return c.errorAt(modeAt, "expects ResultAccuracy type (default or highest) but sees: " +
                                   std::string(c.text().substr(modeAt, c.pos() - modeAt)));
  } else if (key == "tolerance") {
    if (!c.consume('{')) return c.error("expected '{' to start the result_accuracy tolerance");
    if (!c.consume('}')) {
      do {
        size_t fieldAt = c.pos();
        std::string_view field = c.name();
        if (field != "atol" && field != "rtol" && field != "ulps")
          return c.errorAt(fieldAt, "invalid attribute name in result_accuracy tolerance: " + std::string(field));
        if (!c.consume('=') || c.numberToken().empty())
          return c.error("expected '=' and a number after " + std::string(field));
      } while (c.consume(','));
      if (!c.consume('}')) return c.error("expected '}' to end the result_accuracy tolerance");
    }
  } else {
    return c.errorAt(at, "invalid attribute name in result_accuracy: " + std::string(key));
  }
  if (!c.consume('}')) return c.error("expected '}' to end result_accuracy");
  return okStatus();
}

Status parseVerbatim(Cursor& c, AttrValue& v) {
  char p = c.peek();
  if (p == '{' || p == '[' || p == '(' || p == '"') {
    std::string_view body;
    if (p == '"') {
      size_t start = c.pos();
      std::string ignored;
      if (!c.quotedString(ignored)) return c.error("unterminated string");
      body = c.text().substr(start, c.pos() - start);
    } else if (!c.balanced(body)) {
      return c.error("unbalanced brackets in attribute value");
    }
    v.s = std::string(body);
    return okStatus();
  }
  // A bare word (possibly with dots, e.g. an enum name).
  size_t start = c.pos();
  std::string_view t = c.text();
  size_t q = start;
  while (q < t.size() && t[q] != ',' && t[q] != ' ' && t[q] != '\n' && t[q] != ')' && t[q] != '}')
    ++q;
  if (q == start) return c.error("expected an attribute value");
  v.s = std::string(t.substr(start, q - start));
  c.setPos(q);
  return okStatus();
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// Enum-valued names XLA checks while parsing (it compares ignoring case).
Status checkEnumName(Cursor& c, AttrKey key, std::string_view name, size_t at) {
  auto oneOf = [&](std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
      if (equalsIgnoringCase(n, name)) return true;
    return false;
  };
  if (key == AttrKey::kApiVersion) {
    if (equalsIgnoringCase(name, "API_VERSION_UNSPECIFIED"))
      return c.errorAt(at, "Invalid API version: API_VERSION_UNSPECIFIED");
    if (!oneOf({"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}))
      return c.errorAt(at, "Unknown API version '" + std::string(name) + "'");
  }
  if (key == AttrKey::kCustomCallSchedule &&
      !oneOf({"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"}))
    return c.errorAt(at, "unknown custom-call schedule '" + std::string(name) + "'");
  return okStatus();
}

// At `{`: a list `{%a, %b}` (names followed by ',' or '}'), or else an
// inline computation body `{ x = ... }`.
bool isComputationList(Cursor& c) {
  size_t save = c.pos();
  c.consume('{');
  // `{}`, `{a, b}`, or `{{...}, {...}}`: bodies written inline (a single
  // inline body starts with an instruction, never a brace).
  bool list = c.peek() == '}' || c.peek() == '{';
  if (!list && !c.name().empty()) list = c.peek() == ',' || c.peek() == '}';
  c.setPos(save);
  return list;
}

StatusOr<Computation*> parseComputationRef(Cursor& c, ComputationResolver& r) {
  if (c.peek() == '{' && r.inlineBody) return r.inlineBody();
  size_t at = c.pos();
  std::string_view n = c.name();
  if (n.empty()) return c.error("expected a computation name");
  return r.byName(n, at);
}

}  // namespace

Status parseAttrValue(Cursor& c, AttrKey key, ComputationResolver& resolver, AttrValue& v) {
  if (key == AttrKey::kSharding) {
    HLO_RETURN_IF_ERROR(checkedVerbatim(c, v, checkSharding));
    return okStatus();
  }
  if (key == AttrKey::kResultAccuracy) {
    HLO_RETURN_IF_ERROR(checkedVerbatim(c, v, checkResultAccuracy));
    return okStatus();
  }
  switch (attrKind(key)) {
    case AttrKind::kInt:
      if (!c.integer(v.i)) return c.error("expected an integer for " + std::string(attrKeyName(key)));
      return okStatus();
    case AttrKind::kFloat: {
      std::string_view tok = c.numberToken();
      if (tok.empty()) return c.error("expected a number for " + std::string(attrKeyName(key)));
      v.f = std::strtod(std::string(tok).c_str(), nullptr);
      return okStatus();
    }
    case AttrKind::kBool:
      if (c.consumeWord("true")) v.b = true;
      else if (c.consumeWord("false")) v.b = false;
      else return c.error("expected true or false for " + std::string(attrKeyName(key)));
      return okStatus();
    case AttrKind::kString:
      if (c.peek() != '"' && c.peek() != '\'') return c.error("expected a quoted string for " + std::string(attrKeyName(key)));
      if (!c.quotedString(v.s)) return c.error("unterminated string");
      return okStatus();
    case AttrKind::kIdent: {
      c.skipSpace();
      size_t at = c.pos();
      std::string_view n = c.name();
      if (n.empty()) return c.error("expected a name for " + std::string(attrKeyName(key)));
      HLO_RETURN_IF_ERROR(checkEnumName(c, key, n, at));
      v.s = std::string(n);
      return okStatus();
    }
    case AttrKind::kIdentList:
      if (!c.consume('{')) return c.error("expected '{'");
      if (!c.consume('}')) {
        do {
          std::string_view n = c.name();
          if (n.empty()) return c.error("expected a name in the list");
          v.idents.emplace_back(n);
        } while (c.consume(','));
        if (!c.consume('}')) return c.error("expected '}'");
      }
      return okStatus();
    case AttrKind::kIntList: {
      size_t save = c.pos();
      bool nested = c.consume('{') && c.peek() == '{';
      c.setPos(save);
      HLO_RETURN_IF_ERROR(nested ? parseIntListList(c, v.intLists) : parseIntList(c, v.ints));
      return okStatus();
    }
    case AttrKind::kLiteral: {
      HLO_ASSIGN_OR_RETURN(Literal lit, parseLiteralAt(c));
      v.s = lit.toString();
      return okStatus();
    }
    case AttrKind::kIntListList:
      HLO_RETURN_IF_ERROR(parseIntListList(c, v.intLists));
      return okStatus();
    case AttrKind::kSlice:
      HLO_RETURN_IF_ERROR(parseSlice(c, v.slices));
      return okStatus();
    case AttrKind::kPadding: {
      std::vector<std::vector<int64_t>> parts;
      HLO_RETURN_IF_ERROR(parseXList(c, parts, 2, 3));
      for (auto& p : parts) v.padding.push_back({p[0], p[1], p.size() > 2 ? p[2] : 0});
      return okStatus();
    }
    case AttrKind::kWindow:
      HLO_RETURN_IF_ERROR(parseWindow(c, v.window));
      return okStatus();
    case AttrKind::kDimLabels:
      HLO_RETURN_IF_ERROR(parseDimLabels(c, v.conv));
      return okStatus();
    case AttrKind::kComputation: {
      HLO_ASSIGN_OR_RETURN(Computation * comp, parseComputationRef(c, resolver));
      v.comps.push_back(comp);
      return okStatus();
    }
    case AttrKind::kComputationList:
      if (c.peek() == '{' && isComputationList(c)) {
        c.consume('{');
        if (!c.consume('}')) {
          do {
            HLO_ASSIGN_OR_RETURN(Computation * comp, parseComputationRef(c, resolver));
            v.comps.push_back(comp);
          } while (c.consume(','));
          if (!c.consume('}')) return c.error("expected '}' to close the computation list");
        }
        return okStatus();
      }
      {
        // A single name, or `calls={ ...instructions... }` written inline.
        HLO_ASSIGN_OR_RETURN(Computation * comp, parseComputationRef(c, resolver));
        v.comps.push_back(comp);
      }
      return okStatus();
    case AttrKind::kReplicaGroups:
      HLO_RETURN_IF_ERROR(parseReplicaGroups(c, v));
      return okStatus();
    case AttrKind::kShape: {
      HLO_ASSIGN_OR_RETURN(Shape s, parseShapeAt(c));
      v.shapes.push_back(std::move(s));
      return okStatus();
    }
    case AttrKind::kShapeList:
      if (!c.consume('{')) return c.error("expected '{' to start a list of shapes");
      if (!c.consume('}')) {
        do {
          HLO_ASSIGN_OR_RETURN(Shape s, parseShapeAt(c));
          v.shapes.push_back(std::move(s));
        } while (c.consume(','));
        if (!c.consume('}')) return c.error("expected '}' to close the list of shapes");
      }
      return okStatus();
    case AttrKind::kVerbatim:
      return parseVerbatim(c, v);
  }
  return c.error("unhandled attribute kind");
}

}  // namespace hlo
