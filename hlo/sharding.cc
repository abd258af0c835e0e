#include "hlo/sharding.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>

#include "hlo/collectives.h"

namespace hlo {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The text with every `metadata={...}` left out.
std::string withoutMetadata(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find("metadata={", pos);
    if (at == std::string_view::npos) break;
    out.append(text.substr(pos, at - pos));
    size_t i = at + 9;
    int depth = 0;
    for (; i < text.size(); ++i) {
      if (text[i] == '{') ++depth;
      if (text[i] == '}' && --depth == 0) break;
    }
    pos = i + 1;
  }
  if (pos < text.size()) out.append(text.substr(pos));
  return out;
}

// The top-level comma-separated parts of `{a, b, ...}`'s inside.
std::vector<std::string_view> topLevelParts(std::string_view inside) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inside.size(); ++i) {
    char c = inside[i];
    if (c == '{' || c == '[' || c == '(') ++depth;
    if (c == '}' || c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(inside.substr(start, i - start)));
      start = i + 1;
    }
  }
  parts.push_back(trim(inside.substr(start)));
  return parts;
}

std::vector<int64_t> readInts(std::string_view text) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && (text[pos] == ',' || text[pos] == ' ')) ++pos;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), v);
    if (ec != std::errc()) break;
    out.push_back(v);
    pos = end - text.data();
  }
  return out;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

Status bad(std::string_view text, const std::string& why) {
  return errorStatus("sharding " + std::string(text) + ": " + why);
}

StatusOr<Sharding> parseTiled(std::string_view whole, std::string_view body) {
  Sharding s;
  s.kind = Sharding::Kind::kTiled;
  size_t open = body.find('['), close = body.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos) return bad(whole, "expected devices=[...]");
  std::vector<int64_t> grid = readInts(body.substr(open + 1, close - open - 1));
  std::string_view rest = trim(body.substr(close + 1));
  // The ids, up to the flags that follow them.
  size_t flags = rest.find(" last_tile_dim");
  std::string_view ids = trim(rest.substr(0, flags));
  std::string_view tail = flags == std::string_view::npos ? std::string_view() : trim(rest.substr(flags));
  if (ids.rfind("<=", 0) == 0) {
    StatusOr<std::vector<std::vector<int64_t>>> iota =
        collectives::expandIotaGroups("[1," + std::to_string(product(grid)) + "]" + std::string(ids));
    if (!iota.ok()) return bad(whole, iota.status().message());
    s.devices = (*iota)[0];
  } else {
    s.devices = readInts(ids);
  }
  if (grid.empty() || static_cast<int64_t>(s.devices.size()) != product(grid))
    return bad(whole, "the device list does not fill the tile grid");
  if (tail == "last_tile_dim_replicate" || tail == "last_tile_dims={replicated}") {
    s.copies = grid.back();
    grid.pop_back();
  } else if (!tail.empty()) {
    return bad(whole, "'" + std::string(tail) + "' is not read (only replicated last tile dimensions are)");
  }
  s.tiles = grid;
  return s;
}

// The index of partition `partition`'s tile, or -1.
int64_t tileOf(const Sharding& s, int64_t partition) {
  auto at = std::find(s.devices.begin(), s.devices.end(), partition);
  return at == s.devices.end() ? -1 : (at - s.devices.begin()) / s.copies;
}

// Calls copy(wholeOffset, blockOffset, count) for each run of elements that
// tile `tile`'s block (of shape `b`) shares with the whole array (of shape
// `w`), row by row along the last dimension; a padded last tile's elements
// past the whole's end are in no run.
template <typename Copy>
void forEachRun(const Sharding& s, int64_t tile, const Shape& w, const Shape& b, Copy copy) {
  int rank = b.rank();
  if (rank == 0) return copy(0, 0, 1);
  // The tile's first element in the whole array; tiles are numbered row-major.
  std::vector<int64_t> origin(static_cast<size_t>(rank));
  for (int d = rank - 1; d >= 0; --d) {
    origin[d] = (tile % s.tiles[d]) * b.dim(d);
    tile /= s.tiles[d];
  }
  int last = rank - 1;
  int64_t run = std::min(b.dim(last), std::max<int64_t>(0, w.dim(last) - origin[last]));
  if (run == 0) return;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t rows = b.elementCount() / std::max<int64_t>(1, b.dim(last));
  for (int64_t r = 0; r < rows; ++r) {
    bool inside = true;
    int64_t wOffset = 0, bOffset = 0;
    for (int d = 0; d < rank; ++d) {
      int64_t g = origin[d] + index[d];
      inside = inside && g < w.dim(d);
      wOffset = wOffset * w.dim(d) + g;
      bOffset = bOffset * b.dim(d) + index[d];
    }
    if (inside) copy(wOffset, bOffset, run);
    for (int d = rank - 2; d >= 0 && ++index[d] == b.dim(d); --d) index[d] = 0;
  }
}

}  // namespace

StatusOr<Sharding> parseSharding(std::string_view text) {
  std::string clean = withoutMetadata(text);
  std::string_view t = trim(clean);
  if (t.size() < 2 || t.front() != '{' || t.back() != '}') return bad(text, "expected {...}");
  std::string_view inside = trim(t.substr(1, t.size() - 2));
  if (!inside.empty() && inside.front() == '{') {
    Sharding s;
    s.kind = Sharding::Kind::kTuple;
    for (std::string_view part : topLevelParts(inside)) {
      HLO_ASSIGN_OR_RETURN(Sharding e, parseSharding(part));
      s.elements.push_back(std::move(e));
    }
    return s;
  }
  if (inside == "replicated") return Sharding{};
  if (inside.rfind("maximal device=", 0) == 0) {
    Sharding s;
    s.kind = Sharding::Kind::kMaximal;
    s.devices = readInts(inside.substr(15));
    if (s.devices.size() != 1) return bad(text, "expected maximal device=N");
    return s;
  }
  if (inside.rfind("devices=", 0) == 0) return parseTiled(text, inside.substr(8));
  return bad(text, "does not say how to split an array across partitions (only replicated, maximal and tiled "
                   "shardings do)");
}

Shape globalShape(const Sharding& s, const Shape& block) {
  if (s.kind == Sharding::Kind::kTuple && block.isTuple()) {
    std::vector<Shape> elements;
    for (int i = 0; i < block.tupleSize(); ++i)
      elements.push_back(i < static_cast<int>(s.elements.size()) ? globalShape(s.elements[i], block.tupleElement(i))
                                                                  : block.tupleElement(i));
    return Shape::tuple(std::move(elements));
  }
  if (s.kind != Sharding::Kind::kTiled || !block.isArray() || block.rank() != static_cast<int>(s.tiles.size()))
    return block;
  std::vector<int64_t> dims = block.dims();
  for (size_t d = 0; d < dims.size(); ++d) dims[d] *= s.tiles[d];
  return Shape(block.type(), dims);
}

bool isGlobalOf(const Sharding& s, const Shape& global, const Shape& block) {
  if (s.kind == Sharding::Kind::kTuple) {
    if (!global.isTuple() || !block.isTuple() || global.tupleSize() != block.tupleSize() ||
        block.tupleSize() != static_cast<int>(s.elements.size()))
      return false;
    for (int i = 0; i < block.tupleSize(); ++i)
      if (!isGlobalOf(s.elements[i], global.tupleElement(i), block.tupleElement(i))) return false;
    return true;
  }
  if (!global.isArray() || !block.isArray() || global.type() != block.type() || global.rank() != block.rank())
    return false;
  if (s.kind != Sharding::Kind::kTiled) return global.dims() == block.dims();
  if (block.rank() != static_cast<int>(s.tiles.size())) return false;
  for (int d = 0; d < block.rank(); ++d) {
    int64_t t = s.tiles[d];
    if ((global.dim(d) + t - 1) / t != block.dim(d)) return false;
  }
  return true;
}

StatusOr<Literal> blockOf(const Sharding& s, const Literal& global, const Shape& block, int64_t partition) {
  if (!isGlobalOf(s, global.shape(), block))
    return errorStatus("a whole array " + global.shape().toString(false) + " does not split into blocks " +
                       block.toString(false) + " by its sharding");
  if (s.kind == Sharding::Kind::kTuple) {
    Literal out(block);
    for (int i = 0; i < block.tupleSize(); ++i) {
      HLO_ASSIGN_OR_RETURN(out.tupleElements()[i],
                           blockOf(s.elements[i], global.tupleElements()[i], block.tupleElement(i), partition));
    }
    return out;
  }
  if (s.kind != Sharding::Kind::kTiled) return global;
  int64_t tile = tileOf(s, partition);
  if (tile < 0) return errorStatus("partition " + std::to_string(partition) + " holds no tile of the sharding");
  Literal out(block);
  size_t width = static_cast<size_t>(storageBytes(block.type()));
  forEachRun(s, tile, global.shape(), block, [&](int64_t w, int64_t b, int64_t n) {
    std::memcpy(out.untypedData() + b * width, global.untypedData() + w * width, n * width);
  });
  return out;
}

StatusOr<Literal> assemble(const Sharding& s, std::span<const Literal* const> blocks) {
  if (blocks.empty()) return errorStatus("no blocks to assemble");
  const Shape& block = blocks[0]->shape();
  if (s.kind == Sharding::Kind::kTuple) {
    if (!block.isTuple() || block.tupleSize() != static_cast<int>(s.elements.size()))
      return errorStatus("a tuple sharding of " + std::to_string(s.elements.size()) + " elements for " +
                         block.toString(false));
    Literal out(globalShape(s, block));
    for (int i = 0; i < block.tupleSize(); ++i) {
      std::vector<const Literal*> parts;
      for (const Literal* b : blocks) parts.push_back(&b->tupleElements()[i]);
      HLO_ASSIGN_OR_RETURN(out.tupleElements()[i], assemble(s.elements[i], parts));
    }
    return out;
  }
  if (s.kind == Sharding::Kind::kReplicated) return *blocks[0];
  int64_t holder = s.devices.empty() ? 0 : s.devices[0];
  if (s.kind == Sharding::Kind::kMaximal) {
    if (holder < 0 || holder >= static_cast<int64_t>(blocks.size()))
      return errorStatus("maximal device " + std::to_string(holder) + " is not a partition of the run");
    return *blocks[holder];
  }
  if (!block.isArray() || block.rank() != static_cast<int>(s.tiles.size()))
    return errorStatus("a sharding of " + std::to_string(s.tiles.size()) + " tiled dimensions for " +
                       block.toString(false));
  Literal whole(globalShape(s, block));
  int64_t tiles = product(s.tiles);
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t partition = s.devices[t * s.copies];
    if (partition < 0 || partition >= static_cast<int64_t>(blocks.size()))
      return errorStatus("partition " + std::to_string(partition) + " of the sharding is not in the run");
    if (!blocks[partition]->shape().compatible(block))
      return errorStatus("partition " + std::to_string(partition) + "'s block is " +
                         blocks[partition]->shape().toString(false) + ", not " + block.toString(false));
    size_t width = static_cast<size_t>(storageBytes(block.type()));
    const Literal& from = *blocks[partition];
    forEachRun(s, t, whole.shape(), block, [&](int64_t w, int64_t b, int64_t n) {
      std::memcpy(whole.untypedData() + w * width, from.untypedData() + b * width, n * width);
    });
  }
  return whole;
}

}  // namespace hlo
