// The fusion pass's rules about single instructions, read from the opcode
// table: what part an instruction may play in a fusion, what is expensive to
// compute, what may be copied into a fusion, which consumers read an
// operand element more than once, and which values a row-looping kernel
// computes once per row (row fusion). The algorithm is in fusion.cc.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hlo/computation.h"

namespace hlo::fusion {

// What part an instruction may play in a fusion.
enum class Role {
  kNone,      // stays outside every fusion
  kMember,    // a producer inside one, or the root of one
  kRootOnly,  // a reduction: roots a fusion; feeds another op inside one only
              // by row fusion (below)
};
// With `why`, a kNone says there why the instruction stays outside
// (hlo-opt --explain=fusion).
Role roleOf(const Instruction& i, std::string* why = nullptr);

// Elementwise ops costing more than a few cycles an element (transcendentals,
// divide, power, ...): never copied, never recomputed per element read.
bool isExpensive(const Instruction& i);

// Whether a copy of `p` in a fusion costs little: `p` is cheap and reads at
// most one full-size operand (broadcasts, iotas, scalars and operands of
// lower rank do not count; XLA's "effectively unary"), so the copy reads no
// more than the original does.
bool duplicable(const Instruction& p);

// Whether `user`, run as a loop over its output, reads an element of
// `operand` more than once: a broadcast that grows it, a reduce-window, or a
// scalar operand of a non-scalar result.
bool rereads(const Instruction& user, const Instruction& operand);

// Row fusion. A kernel over an output of rank >= 2 loops over its rows (all
// dimensions but the last), then along the row. A value of the row's
// dimensions that the output reads through a row broadcast is computed once
// per row, before the row's elements (backends/cpu/kernel_emitter.cc), so it
// may be a reduction along the last dimension: softmax's row maximum and
// row sum, layer norm's mean and variance, fused with the elementwise ops
// that read them. One kernel then reads each row from memory once (the
// reductions re-read it from the L1/L2 cache) and writes the output once,
// where separate kernels would write and re-read full-size intermediates.
//
// How a fused computation whose outputs have dimensions `dims` reads an
// instruction:
enum class RowReading {
  kOther,       // some other way (or not at all)
  kInRow,       // of `dims`, only at positions in the output row being computed
  kOncePerRow,  // of the row's dimensions (`dims` less the last), once per row
};

// A broadcast that repeats its operand along the last dimension only
// (dimensions={0, ..., rank-2}): element [i..., j] reads operand element [i...].
bool isRowBroadcast(const Instruction& i);

// A reduce that row fusion may place inside a fusion: one array operand
// reduced along its last dimension only, by a reducer that is one binary op
// of its two parameters (what a kernel folds itself).
bool rowFusibleReduce(const Instruction& i);

// The reading of `i` in a fusion with outputs of dimensions `dims`, from the
// readings of its users inside the fusion (`output`: `i` is an output too):
//   kInRow       i has `dims`; every user is elementwise of `dims` and
//                kInRow, or a row-fusible reduce read once per row (which
//                reads its operand at [row, 0..n)); or i is an output;
//   kOncePerRow  i has the row's dimensions; every user is a row broadcast
//                to `dims` read kInRow, or elementwise of i's dimensions and
//                read once per row.
RowReading rowReading(const Instruction& i, const std::vector<int64_t>& dims, bool output,
                      const std::vector<std::pair<const Instruction*, RowReading>>& users);

// rowReading() of every instruction of a fused computation, from the root
// (or the elements of a root tuple, its outputs) back to the parameters.
std::unordered_map<const Instruction*, RowReading> rowReadings(const Computation& fused);

}  // namespace hlo::fusion
