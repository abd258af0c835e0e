// Attribute values, one small parser per AttrKind.
#include "parser/attribute_parser.h"

#include <charconv>
#include <cstdlib>
#include <string>

#include "parser/shape_parser.h"

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
      if (q == digits) return c.error("expected a number");
      auto res = std::from_chars(t.data() + p + neg, t.data() + q, v);
      if (res.ec != std::errc()) return c.error("number out of range");
      parts.push_back(neg ? -v : v);
      c.setPos(q);
    } while (c.rawPeek() == '_' && (c.setPos(c.pos() + 1), true));
    if (parts.size() < minParts || parts.size() > maxParts)
      return c.error("expected " + std::to_string(minParts) +
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

// One side of dim_labels. `a`/`b` are the two lettered dimensions.
Status parseLabels(Cursor& c, std::string_view s, char a, char b, int64_t& posA, int64_t& posB,
                   std::vector<int64_t>& spatial, size_t at) {
  posA = posB = -1;
  spatial.assign(s.size() >= 2 ? s.size() - 2 : 0, -1);
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch == a) posA = static_cast<int64_t>(i);
    else if (ch == b) posB = static_cast<int64_t>(i);
    else if (ch >= '0' && ch <= '9' && static_cast<size_t>(ch - '0') < spatial.size())
      spatial[ch - '0'] = static_cast<int64_t>(i);
    else
      return c.errorAt(at, std::string("invalid dimension label '") + ch + "' in dim_labels");
  }
  if (posA < 0 || posB < 0) return c.errorAt(at, std::string("dim_labels side '") + std::string(s) +
                                                     "' needs both '" + a + "' and '" + b + "'");
  for (int64_t p : spatial)
    if (p < 0) return c.errorAt(at, "dim_labels is missing a spatial dimension");
  return okStatus();
}

Status parseDimLabels(Cursor& c, ConvDims& conv) {
  c.skipSpace();
  size_t at = c.pos();
  std::string_view t = c.text();
  size_t p = at;
  while (p < t.size() && (isNameChar(t[p]) || t[p] == '>')) ++p;
  std::string_view s = t.substr(at, p - at);
  c.setPos(p);
  size_t underscore = s.find('_');
  size_t arrow = s.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore)
    return c.errorAt(at, "dim_labels must look like b01f_01io->b01f");
  std::string_view in = s.substr(0, underscore);
  std::string_view kernel = s.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = s.substr(arrow + 2);
  if (in.size() != kernel.size() || in.size() != out.size())
    return c.errorAt(at, "dim_labels sides must have the same rank");
  HLO_RETURN_IF_ERROR(parseLabels(c, in, 'b', 'f', conv.inputBatch, conv.inputFeature,
                                  conv.inputSpatial, at));
  HLO_RETURN_IF_ERROR(parseLabels(c, kernel, 'i', 'o', conv.kernelInputFeature,
                                  conv.kernelOutputFeature, conv.kernelSpatial, at));
  HLO_RETURN_IF_ERROR(parseLabels(c, out, 'b', 'f', conv.outputBatch, conv.outputFeature,
                                  conv.outputSpatial, at));
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

// `{{0,1},{2,3}}`, `[2,2]<=[4]`, `[4]<=[2,2]T(1,0)`, or `mesh[...]...`.
Status parseReplicaGroups(Cursor& c, AttrValue& v) {
  if (c.peek() == '{') return parseIntListList(c, v.intLists);
  size_t start = c.pos();
  // Iota form: [dims]<=[reshape]T(perm); mesh forms: carried as written.
  std::string_view t = c.text();
  size_t p = start;
  int depth = 0;
  while (p < t.size()) {
    char ch = t[p];
    if (ch == '[' || ch == '(' || ch == '{') ++depth;
    else if (ch == ']' || ch == ')' || ch == '}') {
      if (depth == 0) break;
      --depth;
    } else if (depth == 0 && (ch == ',' || ch == ' ' || ch == '\n')) break;
    ++p;
  }
  if (p == start) return c.error("expected replica groups");
  v.s = std::string(t.substr(start, p - start));
  c.setPos(p);
  // Check an iota list's sizes: product of group dims == product of reshape dims.
  if (v.s[0] == '[') {
    auto product = [](std::string_view s) {
      int64_t n = 1;
      int64_t cur = 0;
      bool any = false;
      for (char ch : s) {
        if (ch >= '0' && ch <= '9') cur = cur * 10 + (ch - '0'), any = true;
        else if (any) n *= cur, cur = 0, any = false;
      }
      if (any) n *= cur;
      return n;
    };
    size_t arrow = v.s.find("<=");
    if (arrow == std::string::npos) return c.errorAt(start, "expected '<=' in iota replica groups");
    size_t close = v.s.find(']', arrow + 3);
    if (close == std::string::npos) return c.errorAt(start, "malformed iota replica groups");
    if (product(std::string_view(v.s).substr(0, arrow)) !=
        product(std::string_view(v.s).substr(arrow + 2, close - arrow - 1)))
      return c.errorAt(start, "iota replica groups: the group sizes and the device list differ in size");
  }
  return okStatus();
}

StatusOr<AttrValue> parseVerbatim(Cursor& c) {
  AttrValue v;
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
    return v;
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
  return v;
}

// At `{`: a list `{%a, %b}` (names followed by ',' or '}'), or else an
// inline computation body `{ x = ... }`.
bool isComputationList(Cursor& c) {
  size_t save = c.pos();
  c.consume('{');
  bool list = c.peek() == '}';
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

StatusOr<AttrValue> parseAttrValue(Cursor& c, AttrKey key, ComputationResolver& resolver) {
  AttrValue v;
  switch (attrKind(key)) {
    case AttrKind::kInt:
      if (!c.integer(v.i)) return c.error("expected an integer for " + std::string(attrKeyName(key)));
      return v;
    case AttrKind::kFloat: {
      std::string_view tok = c.numberToken();
      if (tok.empty()) return c.error("expected a number for " + std::string(attrKeyName(key)));
      v.f = std::strtod(std::string(tok).c_str(), nullptr);
      return v;
    }
    case AttrKind::kBool:
      if (c.consumeWord("true")) v.b = true;
      else if (c.consumeWord("false")) v.b = false;
      else return c.error("expected true or false for " + std::string(attrKeyName(key)));
      return v;
    case AttrKind::kString:
      if (!c.quotedString(v.s)) return c.error("expected a quoted string for " + std::string(attrKeyName(key)));
      return v;
    case AttrKind::kIdent: {
      std::string_view n = c.name();
      if (n.empty()) return c.error("expected a name for " + std::string(attrKeyName(key)));
      v.s = std::string(n);
      return v;
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
      return v;
    case AttrKind::kIntList: {
      size_t save = c.pos();
      bool nested = c.consume('{') && c.peek() == '{';
      c.setPos(save);
      HLO_RETURN_IF_ERROR(nested ? parseIntListList(c, v.intLists) : parseIntList(c, v.ints));
      return v;
    }
    case AttrKind::kLiteral: {
      HLO_ASSIGN_OR_RETURN(Literal lit, parseLiteralAt(c));
      v.s = lit.toString();
      return v;
    }
    case AttrKind::kIntListList:
      HLO_RETURN_IF_ERROR(parseIntListList(c, v.intLists));
      return v;
    case AttrKind::kSlice:
      HLO_RETURN_IF_ERROR(parseSlice(c, v.slices));
      return v;
    case AttrKind::kPadding: {
      std::vector<std::vector<int64_t>> parts;
      HLO_RETURN_IF_ERROR(parseXList(c, parts, 2, 3));
      for (auto& p : parts) v.padding.push_back({p[0], p[1], p.size() > 2 ? p[2] : 0});
      return v;
    }
    case AttrKind::kWindow:
      HLO_RETURN_IF_ERROR(parseWindow(c, v.window));
      return v;
    case AttrKind::kDimLabels:
      HLO_RETURN_IF_ERROR(parseDimLabels(c, v.conv));
      return v;
    case AttrKind::kComputation: {
      HLO_ASSIGN_OR_RETURN(Computation * comp, parseComputationRef(c, resolver));
      v.comps.push_back(comp);
      return v;
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
        return v;
      }
      {
        // A single name, or `calls={ ...instructions... }` written inline.
        HLO_ASSIGN_OR_RETURN(Computation * comp, parseComputationRef(c, resolver));
        v.comps.push_back(comp);
      }
      return v;
    case AttrKind::kReplicaGroups:
      HLO_RETURN_IF_ERROR(parseReplicaGroups(c, v));
      return v;
    case AttrKind::kShape: {
      HLO_ASSIGN_OR_RETURN(Shape s, parseShapeAt(c));
      v.shapes.push_back(std::move(s));
      return v;
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
      return v;
    case AttrKind::kVerbatim:
      return parseVerbatim(c);
  }
  return c.error("unhandled attribute kind");
}

}  // namespace hlo
