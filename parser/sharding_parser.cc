// Shardings and meshes: a checking reader that accepts what XLA's parser
// accepts and reports the first part it would refuse.
//
// Grammar (from XLA's text format):
//   sharding   ::= '{' single '}' | '{' [ '{' single '}' (',' '{' single '}')* ] '}'
//   single     ::= classic | named
//   classic    ::= item*       replicated | manual | maximal | unknown | unreduced
//                              | device=N | devices=[dims]N,N,... | devices=[dims]<=[dims]T(perm)
//                              | last_tile_dim_replicate | last_tile_dims={types}
//                              | shard_as N | shard_like N | metadata={...}
//   named      ::= mesh [','] ( replicated | manual | unreduced[=op] [axes]
//                               | '[' dimaxes,* ']' (',' key=value)* ) [',' metadata=...]
//   mesh       ::= mesh['a'=2,...] [, device_ids=(...)] | maximal_mesh[device_id=N]
//   axes       ::= '{' axis,* '}'      axis ::= 'name' | 'index' [ ':(' pre ')' size ]
#include "parser/sharding_parser.h"

#include <string>
#include <vector>

namespace hlo {
namespace {

// Product of sizes, or -1 when it overflows int64 (no real mesh is that big).
int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  return n;
}

Status intList(Cursor& c, std::vector<int64_t>& out, const std::string& what) {
  do {
    int64_t v;
    if (!c.integer(v)) return c.error("expected an integer in " + what);
    out.push_back(v);
  } while (c.consume(','));
  return okStatus();
}

// `[d0,d1,...]`, at least one number.
Status bracketedDims(Cursor& c, std::vector<int64_t>& dims, const std::string& what) {
  if (!c.consume('[')) return c.error("expected '[' to start " + what);
  HLO_RETURN_IF_ERROR(intList(c, dims, what));
  if (!c.consume(']')) return c.error("expected ']' to end " + what);
  return okStatus();
}

// After `<=`: `[reshape]` and, for more than one dimension, `T(perm)` with a
// permutation index per reshape dimension.
Status iotaReshape(Cursor& c, std::vector<int64_t>& reshape) {
  HLO_RETURN_IF_ERROR(bracketedDims(c, reshape, "the iota reshape dimensions"));
  if (reshape.size() == 1) return okStatus();
  if (!c.consumeWord("T") || !c.consume('('))
    return c.error("expected 'T(' to start the iota transpose permutation");
  std::vector<int64_t> perm;
  size_t at = c.pos();
  HLO_RETURN_IF_ERROR(intList(c, perm, "the iota transpose permutation"));
  for (int64_t p : perm)
    if (p < 0 || p >= static_cast<int64_t>(reshape.size()))
      return c.errorAt(at, "iota transpose index " + std::to_string(p) + " is out of range [0, " +
                               std::to_string(reshape.size()) + ")");
  if (perm.size() != reshape.size())
    return c.errorAt(at, "the iota transpose permutation has " + std::to_string(perm.size()) +
                             " entries but the reshape has " + std::to_string(reshape.size()));
  if (!c.consume(')')) return c.error("expected ')' to end the iota transpose permutation");
  return okStatus();
}

Status skipBalanced(Cursor& c, const char* what) {
  std::string_view ignored;
  if (c.peek() != '{' || !c.balanced(ignored))
    return c.error(std::string("expected a balanced {...} for ") + what);
  return okStatus();
}

// ---- classic shardings -----------------------------------------------------

struct ClassicSharding {
  bool replicated = false, maximal = false, manual = false, unknown = false, unreduced = false;
  std::vector<int64_t> devices;     // device=N or an explicit list
  std::vector<int64_t> tileDims;    // devices=[...]
  std::vector<int64_t> iotaDims;    // <=[...]
  size_t devicesPos = 0;
};

bool isShardingType(std::string_view t) {
  return t == "replicated" || t == "manual" || t == "maximal" || t == "unknown" ||
         t == "unreduced" || t == "tuple" || t == "other";
}

// One `key=value` item of a classic sharding; `key` is read already.
Status classicKeyValue(Cursor& c, std::string_view key, size_t at, ClassicSharding& s) {
  if (key == "device") {
    int64_t d;
    if (!c.integer(d)) return c.error("device= must be an integer");
    s.devices = {d};
    return okStatus();
  }
  if (key == "devices") {
    s.devicesPos = at;
    HLO_RETURN_IF_ERROR(bracketedDims(c, s.tileDims, "the sharding tile dimensions"));
    if (c.consumeText("<=")) return iotaReshape(c, s.iotaDims);
    return intList(c, s.devices, "the sharding device list");
  }
  if (key == "metadata") return skipBalanced(c, "metadata");
  if (key == "last_tile_dims") {
    if (!c.consume('{')) return c.error("expected '{' after last_tile_dims=");
    do {
      size_t typeAt = c.pos();
      std::string_view type = c.name();
      if (!isShardingType(type)) return c.errorAt(typeAt, "expected a sharding type in last_tile_dims");
    } while (c.consume(','));
    if (!c.consume('}')) return c.error("expected '}' to end last_tile_dims");
    return okStatus();
  }
  return c.errorAt(at, "unknown attribute '" + std::string(key) +
                           "' in sharding: expected device=, devices=, metadata= or last_tile_dims=");
}

// XLA's consistency rules between the flags and the device list.
Status checkClassic(Cursor& c, size_t start, const ClassicSharding& s) {
  auto noDevices = [&](bool flag, const char* kind) -> Status {
    if (flag && !s.devices.empty())
      return c.errorAt(start, std::string(kind) + " shardings should not have any devices assigned");
    return okStatus();
  };
  HLO_RETURN_IF_ERROR(noDevices(s.replicated, "replicated"));
  if (s.replicated) return okStatus();
  if (s.maximal) {
    if (s.devices.size() != 1)
      return c.errorAt(start, "maximal shardings should have exactly one device assigned");
    return okStatus();
  }
  HLO_RETURN_IF_ERROR(noDevices(s.manual, "manual"));
  HLO_RETURN_IF_ERROR(noDevices(s.unknown, "unknown"));
  HLO_RETURN_IF_ERROR(noDevices(s.unreduced, "unreduced"));
  if (s.manual || s.unknown || s.unreduced) return okStatus();
  if (s.tileDims.empty())
    return c.errorAt(start, "non-maximal shardings must have a tile assignment list including dimensions");
  int64_t tiles = product(s.tileDims);
  if (!s.iotaDims.empty()) {
    if (tiles != product(s.iotaDims))
      return c.errorAt(s.devicesPos, "iota tile assignment size " + std::to_string(product(s.iotaDims)) +
                                         " does not match the tile assignment dimensions product " +
                                         std::to_string(tiles));
    return okStatus();
  }
  if (s.devices.size() <= 1)
    return c.errorAt(start, "non-maximal shardings must have more than one device assigned");
  if (static_cast<int64_t>(s.devices.size()) != tiles)
    return c.errorAt(s.devicesPos, "sharding device count " + std::to_string(s.devices.size()) +
                                       " does not match the tile assignment size " + std::to_string(tiles));
  return okStatus();
}

// The items of a classic sharding up to and including its closing '}'.
Status classicSharding(Cursor& c, size_t start) {
  ClassicSharding s;
  while (!c.consume('}')) {
    size_t at = c.pos();
    std::string_view w = c.name();
    if (w.empty()) return c.error("expected a sharding item or '}'");
    if (w == "replicated") s.replicated = true;
    else if (w == "maximal") s.maximal = true;
    else if (w == "manual") s.manual = true;
    else if (w == "unknown") s.unknown = true;
    else if (w == "unreduced") s.unreduced = true;
    else if (w == "last_tile_dim_replicate") continue;
    else if (w == "shard_as" || w == "shard_like") {
      int64_t group;
      if (!c.integer(group)) return c.error("expected a shard group number after " + std::string(w));
    } else if (c.consume('=')) {
      HLO_RETURN_IF_ERROR(classicKeyValue(c, w, at, s));
    } else {
      return c.errorAt(at, "unexpected '" + std::string(w) + "' in sharding");
    }
  }
  return checkClassic(c, start, s);
}

// ---- meshes and named shardings -------------------------------------------

struct Mesh {
  bool maximal = false;
  std::vector<std::string> axisNames;
  std::vector<int64_t> axisSizes;
  std::string text;  // as written, for messages
};

// `, device_ids=(0,2,1,3)` or `, device_ids=([4,16]T(1,0))` after a mesh's axes.
Status meshDeviceIds(Cursor& c, const Mesh& mesh) {
  if (!c.consume('(')) return c.error("expected '(' for device_ids");
  int64_t expected = product(mesh.axisSizes);
  if (c.peek() == '[') {
    std::vector<int64_t> reshape;
    HLO_RETURN_IF_ERROR(iotaReshape(c, reshape));
    if (product(reshape) != expected)
      return c.error("mesh device_ids iota size " + std::to_string(product(reshape)) +
                     " does not match the product of the mesh axis sizes " + std::to_string(expected));
  } else {
    size_t at = c.pos();
    std::vector<int64_t> ids;
    if (c.peek() != ')') HLO_RETURN_IF_ERROR(intList(c, ids, "device_ids"));
    if (static_cast<int64_t>(ids.size()) != expected)
      return c.errorAt(at, "expected " + std::to_string(expected) +
                               " device_ids based on mesh axes, but got " + std::to_string(ids.size()));
  }
  if (!c.consume(')')) return c.error("expected ')' to end device_ids");
  return okStatus();
}

// True when the cursor is at `, device_ids` (which belongs to the mesh).
bool atDeviceIds(Cursor& c) {
  size_t save = c.pos();
  bool yes = c.consume(',') && c.consumeWord("device_ids");
  c.setPos(save);
  return yes;
}

Status parseMesh(Cursor& c, Mesh& mesh) {
  c.skipSpace();
  size_t start = c.pos();
  std::string_view kind = c.name();
  if (kind == "maximal_mesh") {
    mesh.maximal = true;
    int64_t device;
    if (!c.consume('[') || !c.consumeWord("device_id") || !c.consume('=') || !c.integer(device))
      return c.error("expected maximal_mesh[device_id=N]");
    if (!c.consume(']')) return c.error("expected ']' to end maximal_mesh");
    return okStatus();
  }
  if (kind != "mesh") return c.errorAt(start, "expected 'mesh' or 'maximal_mesh'");
  if (!c.consume('[')) return c.error("expected '[' after mesh");
  if (!c.consume(']')) {
    do {
      std::string name;
      int64_t size;
      if (!c.quotedString(name)) return c.error("expected a quoted axis name in the mesh");
      if (!c.consume('=') || !c.integer(size)) return c.error("expected '=' and a size after the axis name");
      if (size < 0) return c.error("a mesh axis size must not be negative");
      mesh.axisNames.push_back(std::move(name));
      mesh.axisSizes.push_back(size);
    } while (c.consume(','));
    if (!c.consume(']')) return c.error("expected ']' to end the mesh axes");
  }
  mesh.text = std::string(c.text().substr(start, c.pos() - start));
  if (!mesh.axisSizes.empty() && atDeviceIds(c)) {
    c.consume(',');
    c.consumeWord("device_ids");
    if (!c.consume('=')) return c.error("expected '=' after device_ids");
    HLO_RETURN_IF_ERROR(meshDeviceIds(c, mesh));
  }
  return okStatus();
}

// `'x'`, `'1'`, or a sub-axis `'x':(2)4`.
Status axisRef(Cursor& c, const Mesh& mesh) {
  size_t at = c.pos();
  std::string ref;
  if (!c.quotedString(ref)) return c.error("expected a quoted axis name or index");
  int64_t index = -1;
  for (size_t i = 0; i < mesh.axisNames.size() && index < 0; ++i)
    if (mesh.axisNames[i] == ref) index = static_cast<int64_t>(i);
  if (index < 0) {
    Cursor number(ref);
    if (!number.integer(index) || !number.atEnd())
      return c.errorAt(at, "axis '" + ref + "' is not a valid axis name or index in mesh " + mesh.text);
    if (index < 0 || index >= static_cast<int64_t>(mesh.axisNames.size()))
      return c.errorAt(at, "axis index " + ref + " is out of bounds for mesh " + mesh.text +
                               " which has " + std::to_string(mesh.axisNames.size()) + " axes");
  }
  if (!c.consume(':')) return okStatus();
  int64_t pre, size;
  if (!c.consume('(') || !c.integer(pre) || !c.consume(')') || !c.integer(size))
    return c.error("expected a sub-axis of the form :(pre_size)size");
  return okStatus();
}

// `{'x', 'y':(1)2}`; `allowOpen` also takes a final `?` (dimension shardings).
Status axisList(Cursor& c, const Mesh& mesh, bool allowOpen = false) {
  if (!c.consume('{')) return c.error("expected '{' to start a list of mesh axes");
  if (c.consume('}')) return okStatus();
  do {
    if (allowOpen && c.consume('?')) {
      if (!c.consume('}')) return c.error("expected '}' after '?': no axis may follow it");
      return okStatus();
    }
    HLO_RETURN_IF_ERROR(axisRef(c, mesh));
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("expected ',' or '}' in the list of mesh axes");
  return okStatus();
}

// `sum`, `max` or `min` after `unreduced=`, when written.
Status reductionOp(Cursor& c) {
  size_t at = c.pos();
  std::string_view op = c.name();
  if (op != "sum" && op != "max" && op != "min")
    return c.errorAt(at, "expected sum, max, or min for unreduced op");
  return okStatus();
}

// After a named sharding's dimension list: `, replicated={...}`, ... to '}'.
Status namedAttributes(Cursor& c, const Mesh& mesh) {
  while (!c.consume('}')) {
    if (!c.consume(',')) return c.error("expected ',' or '}' in the named sharding");
    size_t at = c.pos();
    std::string_view key = c.name();
    if (key.empty() || !c.consume('='))
      return c.errorAt(at, "expected replicated=, unreduced=, manual= or metadata= in the named sharding");
    if (key == "replicated" || key == "manual") {
      HLO_RETURN_IF_ERROR(axisList(c, mesh));
    } else if (key == "unreduced") {
      if (c.peek() != '{') HLO_RETURN_IF_ERROR(reductionOp(c));
      HLO_RETURN_IF_ERROR(axisList(c, mesh));
    } else if (key == "metadata") {
      HLO_RETURN_IF_ERROR(skipBalanced(c, "metadata"));
    } else {
      return c.errorAt(at, "unknown attribute in named sharding: expected replicated, unreduced, "
                           "manual or metadata");
    }
  }
  return okStatus();
}

// `, metadata={...}` (optional) and the closing '}'.
Status metadataAndClose(Cursor& c) {
  if (c.consume(',')) {
    if (!c.consumeWord("metadata") || !c.consume('=')) return c.error("expected metadata= or '}'");
    HLO_RETURN_IF_ERROR(skipBalanced(c, "metadata"));
  }
  if (!c.consume('}')) return c.error("expected '}' to end the sharding");
  return okStatus();
}

Status namedSharding(Cursor& c) {
  Mesh mesh;
  HLO_RETURN_IF_ERROR(parseMesh(c, mesh));
  if (mesh.maximal) return metadataAndClose(c);
  c.consume(',');
  if (c.consumeWord("replicated") || c.consumeWord("manual")) return metadataAndClose(c);
  if (c.consumeWord("unreduced")) {
    if (c.consume('=')) HLO_RETURN_IF_ERROR(reductionOp(c));
    if (c.peek() == '{') HLO_RETURN_IF_ERROR(axisList(c, mesh));
    return metadataAndClose(c);
  }
  if (!c.consume('[')) return c.error("expected '[' to start the dimension shardings");
  if (!c.consume(']')) {
    do {
      HLO_RETURN_IF_ERROR(axisList(c, mesh, /*allowOpen=*/true));
    } while (c.consume(','));
    if (!c.consume(']')) return c.error("expected ']' to end the dimension shardings");
  }
  return namedAttributes(c, mesh);
}

// One sharding: the cursor is just past its '{'.
Status singleSharding(Cursor& c, size_t start) {
  std::string_view w = c.peekName();
  if (w == "mesh" || w == "maximal_mesh") return namedSharding(c);
  return classicSharding(c, start);
}

}  // namespace

Status checkSharding(Cursor& c) {
  c.skipSpace();
  size_t start = c.pos();
  if (!c.consume('{')) return c.error("expected '{' to start the sharding");
  if (c.peek() != '{' && c.peek() != '}') return singleSharding(c, start);
  // A tuple of shardings (possibly empty).
  if (c.consume('}')) return okStatus();
  do {
    c.skipSpace();
    size_t element = c.pos();
    if (!c.consume('{')) return c.error("expected '{' to start a tuple element's sharding");
    HLO_RETURN_IF_ERROR(singleSharding(c, element));
  } while (c.consume(','));
  if (!c.consume('}')) return c.error("expected '}' to end the tuple sharding");
  return okStatus();
}

Status checkMeshReplicaGroups(Cursor& c) {
  Mesh mesh;
  HLO_RETURN_IF_ERROR(parseMesh(c, mesh));
  return axisList(c, mesh);
}

Status checkIotaReplicaGroups(Cursor& c) {
  c.skipSpace();
  size_t start = c.pos();
  std::vector<int64_t> groups, reshape;
  HLO_RETURN_IF_ERROR(bracketedDims(c, groups, "the replica group dimensions"));
  if (groups.size() != 2)
    return c.errorAt(start, "iota replica groups need two dimensions (groups and group size), got " +
                                std::to_string(groups.size()));
  if (!c.consumeText("<=")) return c.error("expected '<=' in iota replica groups");
  HLO_RETURN_IF_ERROR(iotaReshape(c, reshape));
  if (product(groups) != product(reshape))
    return c.errorAt(start, "collective device list iota size " + std::to_string(product(reshape)) +
                                " does not match the tile assignment dimensions product " +
                                std::to_string(product(groups)));
  return okStatus();
}

}  // namespace hlo
