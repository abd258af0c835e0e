// What a sharding={...} annotation says about an array of an SPMD-
// partitioned module: which block of the whole (global) array each
// partition holds. With it a run takes global arrays in, gives each device
// its block, and puts the devices' result blocks back together, so a
// partitioned module can be compared with the unpartitioned one.
//
// Read here: {replicated}, {maximal device=N}, {devices=[t0,t1,...]ids} with
// the ids written out or as an iota (<=[n], <=[a,b]T(1,0)), optionally with
// last_tile_dim_replicate or last_tile_dims={replicated} (the last grid
// dimension holds copies), and tuples of these. A tile of a dimension the
// tiles do not divide evenly is padded at the end, as XLA pads it.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

struct Sharding {
  enum class Kind { kReplicated, kMaximal, kTiled, kTuple };
  Kind kind = Kind::kReplicated;
  std::vector<int64_t> tiles;      // kTiled: tiles along each array dimension
  int64_t copies = 1;              // kTiled: partitions holding each tile
  std::vector<int64_t> devices;    // kTiled: the partition of each (tile, copy), tiles row-major;
                                   // kMaximal: the one partition
  std::vector<Sharding> elements;  // kTuple
};

// The sharding of an annotation's text (`{devices=[2,1]0,1}`, braces
// included); an error for the forms not read (manual, unknown, named meshes).
StatusOr<Sharding> parseSharding(std::string_view text);

// The shape of the whole array of which `block` is one partition's block.
Shape globalShape(const Sharding& sharding, const Shape& block);

// Whether `global` holds a whole array whose blocks are `block`: each
// dimension divides into its tiles in blocks of that size, the last one
// perhaps short (XLA pads it).
bool isGlobalOf(const Sharding& sharding, const Shape& global, const Shape& block);

// Partition `partition`'s block (of shape `block`) of the whole array
// `global`; elements past the array's end (a padded last tile) are zeros.
StatusOr<Literal> blockOf(const Sharding& sharding, const Literal& global, const Shape& block, int64_t partition);

// The whole array from each partition's block, blocks[p] being partition p's.
StatusOr<Literal> assemble(const Sharding& sharding, std::span<const Literal* const> blocks);

}  // namespace hlo
