// The module header and the stack-frame sections: checked, kept verbatim.
#include "parser/module_header.h"

#include <string>

#include "parser/shape_parser.h"

namespace hlo {
namespace {

// A header or verbatim value: bracketed, quoted, or a bare word or number.
Status skipValue(Cursor& c) {
  char p = c.peek();
  if (p == '{' || p == '[' || p == '(') {
    std::string_view body;
    if (!c.balanced(body)) return c.error("unbalanced brackets in the module header");
    return okStatus();
  }
  if (p == '"') {
    std::string ignored;
    if (!c.quotedString(ignored)) return c.error("unterminated string");
    return okStatus();
  }
  int64_t v;
  if (c.name().empty() && !c.integer(v)) return c.error("expected a value in the module header");
  return okStatus();
}

Status boolValue(Cursor& c) {
  if (c.consumeWord("true") || c.consumeWord("false")) return okStatus();
  return c.error("expected true or false");
}

Status intValue(Cursor& c) {
  int64_t v;
  if (!c.integer(v)) return c.error("expects integer");
  return okStatus();
}

// `true`, or `{true,false,...}`.
Status boolOrBoolList(Cursor& c) {
  if (!c.consume('{')) return boolValue(c);
  if (c.consume('}')) return okStatus();
  do {
    HLO_RETURN_IF_ERROR(boolValue(c));
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("expected ',' or '}' in a list of booleans");
  return okStatus();
}

// `{}`, `{1}`, `{0,2}`.
Status shapeIndex(Cursor& c) {
  if (!c.consume('{')) return c.error("Expects '{' at the start of ShapeIndex");
  if (c.consume('}')) return okStatus();
  do {
    HLO_RETURN_IF_ERROR(intValue(c));
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("expected ',' or '}' in a shape index");
  return okStatus();
}

// `{ {0}: (0, {}, may-alias), {1}: (1, {}) }`.
Status inputOutputAlias(Cursor& c) {
  const char* format =
      "expected <output_shape_index>: (<input_param>, <input_param_shape_index>[, must-alias])";
  if (!c.consume('{')) return c.error("Expects '{' at the start of aliasing description");
  while (c.peek() != '}') {
    HLO_RETURN_IF_ERROR(shapeIndex(c));
    if (!c.consume(':') || !c.consume('(')) return c.error(format);
    HLO_RETURN_IF_ERROR(intValue(c));
    if (!c.consume(',')) return c.error(format);
    HLO_RETURN_IF_ERROR(shapeIndex(c));
    if (c.consume(',')) {
      size_t at = c.pos();
      std::string_view kind = c.name();
      if (kind != "must-alias" && kind != "may-alias")
        return c.errorAt(at, "unexpected aliasing kind; expected must-alias or may-alias");
    }
    if (!c.consume(')')) return c.error(format);
    if (!c.consume(',')) break;
  }
  if (!c.consume('}')) return c.error("Expects '}' at the end of aliasing description");
  return okStatus();
}

// `{ (0, {}), (1, {0}) }`.
Status bufferDonor(Cursor& c) {
  const char* format = "expected (<input_param>, <input_param_shape_index>)";
  if (!c.consume('{')) return c.error("Expects '{' at the start of buffer donor description");
  while (c.peek() != '}') {
    if (!c.consume('(')) return c.error(format);
    HLO_RETURN_IF_ERROR(intValue(c));
    if (!c.consume(',')) return c.error(format);
    HLO_RETURN_IF_ERROR(shapeIndex(c));
    if (!c.consume(')')) return c.error(format);
    if (!c.consume(',')) break;
  }
  if (!c.consume('}')) return c.error("Expects '}' at the end of buffer donor description");
  return okStatus();
}

// `{(f32[2]{0}, s32[])->f32[2]{0}}`.
Status computationLayout(Cursor& c) {
  if (!c.consume('{') || !c.consume('(')) return c.error("expected {(parameter shapes)->result shape}");
  if (!c.consume(')')) {
    do {
      HLO_ASSIGN_OR_RETURN(Shape ignored, parseShapeAt(c));
      (void)ignored;
    } while (c.consume(','));
    if (!c.consume(')')) return c.error("expected ',' or ')' in the parameter shapes");
  }
  if (!c.consumeText("->")) return c.error("expected '->' before the result shape");
  HLO_ASSIGN_OR_RETURN(Shape ignored, parseShapeAt(c));
  (void)ignored;
  if (!c.consume('}')) return c.error("expected '}' to end entry_computation_layout");
  return okStatus();
}

// `{log_mode=default, callback_id=1, partitioned=true, op_id=0}`.
Status debugAttributes(Cursor& c) {
  if (!c.consume('{')) return c.error("Expects '{' to start debug attributes");
  do {
    size_t at = c.pos();
    std::string_view name = c.name();
    if (name.empty() || !c.consume('=')) return c.error("Expects attribute name in debug attributes");
    if (name == "log_mode") {
      size_t modeAt = c.pos();
      std::string_view mode = c.name();
      if (mode != "default" && mode != "fusion_debugger")
        return c.errorAt(modeAt, "Invalid debug_log_mode value: " + std::string(mode));
    } else if (name == "callback_id" || name == "op_id") {
      HLO_RETURN_IF_ERROR(intValue(c));
    } else if (name == "partitioned") {
      HLO_RETURN_IF_ERROR(boolValue(c));
    } else {
      return c.errorAt(at, "Unknown debug attribute: " + std::string(name));
    }
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("Expects '}' to end debug attributes");
  return okStatus();
}

// `{ {"name"}: ({...}, {...}), {"other", {0}}: {...} }`.
Status debugAttributesTable(Cursor& c) {
  if (!c.consume('{')) return c.error("Expects '{' to start debug_attributes");
  if (c.consume('}')) return okStatus();
  do {
    std::string ignored;
    if (!c.consume('{')) return c.error("Expects '{' to start an original array");
    if (c.quotedString(ignored) && c.peek() == '{') HLO_RETURN_IF_ERROR(shapeIndex(c));
    if (!c.consume('}')) return c.error("Expects '}' at end of an original array");
    if (!c.consume(':')) return c.error("Expects ':' in debug_attributes entry");
    if (c.consume('(')) {
      if (c.peek() != ')') {
        do {
          HLO_RETURN_IF_ERROR(debugAttributes(c));
        } while (c.consume(','));
      }
      if (!c.consume(')')) return c.error("Expects ')' after list of debug_attributes");
    } else {
      HLO_RETURN_IF_ERROR(debugAttributes(c));
    }
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("Expects '}' to end debug_attributes");
  return okStatus();
}

using ValueReader = Status (*)(Cursor&);

// The header keys XLA knows and how each value is checked.
ValueReader readerFor(std::string_view key) {
  if (key == "is_scheduled" || key == "alias_passthrough_params") return boolValue;
  if (key == "replica_count" || key == "num_partitions") return intValue;
  if (key == "input_output_alias") return inputOutputAlias;
  if (key == "buffer_donor") return bufferDonor;
  if (key == "entry_computation_layout") return computationLayout;
  if (key == "allow_spmd_sharding_propagation_to_parameters" ||
      key == "allow_spmd_sharding_propagation_to_output")
    return boolOrBoolList;
  if (key == "debug_attributes") return debugAttributesTable;
  if (key == "frontend_attributes" || key == "origin_recovery_table") return skipValue;
  return nullptr;
}

bool isStackFrameKeyword(std::string_view w) {
  return w == "FileNames" || w == "FunctionNames" || w == "FileLocations" || w == "StackFrames";
}

}  // namespace

Status parseModuleHeader(Cursor& c, Module& module) {
  std::string_view name = c.name();
  if (name.empty()) return c.error("expected the module name after HloModule");
  module.setName(std::string(name));
  c.consume(':');  // some tests write `HloModule name:`
  while (c.consume(',')) {
    c.skipSpace();
    size_t keyPos = c.pos();
    std::string_view key = c.name();
    if (key.empty() || !c.consume('=')) return c.error("expected key=value in the module header");
    ValueReader reader = readerFor(key);
    if (!reader) return c.errorAt(keyPos, "unknown module attribute '" + std::string(key) + "'");
    c.skipSpace();
    size_t start = c.pos();
    HLO_RETURN_IF_ERROR(reader(c));
    module.headerAttributes().emplace_back(std::string(key),
                                           std::string(c.text().substr(start, c.pos() - start)));
  }
  return okStatus();
}

bool atStackFrameSection(Cursor& c) { return isStackFrameKeyword(c.peekName()); }

Status parseStackFrameSection(Cursor& c, Module& module) {
  c.skipSpace();
  size_t start = c.pos();
  c.name();
  size_t end = c.pos();
  for (;;) {
    int64_t id;
    if (!c.integer(id)) break;
    if (c.peek() == '"') {
      std::string ignored;
      if (!c.quotedString(ignored)) return c.error("unterminated string");
      end = c.pos();
      continue;
    }
    std::string_view body;
    if (c.peek() != '{' || !c.balanced(body))
      return c.error("expected a string or {...} entry in the stack-frame section");
    end = c.pos();
  }
  c.setPos(end);
  std::string& text = module.stackFrameText();
  text += c.text().substr(start, end - start);
  text += '\n';
  return okStatus();
}

}  // namespace hlo
