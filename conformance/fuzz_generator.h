// hlo-fuzz's module generator: a seed gives one well-typed module that
// exercises the opcode table and the element types.
//
// A module starts from a parameter of a main element type and shape (rank
// 0 to 3, sizes where vector loops, remainders, single elements and no
// elements all occur), then writes 3 to 16 instructions, each of an opcode
// drawn evenly from every opcode the generator writes (notGenerated says
// which it does not, and why). Each op finds operands of fitting types and
// shapes among the values written so far, or makes them: a conversion, a
// new parameter, an iota, or a constant that holds edge values (NaN, ±inf,
// -0, denormals, integer extremes). Helper computations (reducers,
// comparators, loop bodies, branches, fused and called computations) are
// written as needed. The result is a tuple of the values nothing reads.
//
// Every float value is tracked as exact or not (conformance/fuzz_builder.h),
// so that two correct engines agree on every module within the conformance
// harness's tolerances: a mismatch is a bug somewhere. The same seed gives
// the same text on every machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hlo/opcode.h"

namespace hlo::conformance::fuzz {

// Why the generator writes no instance of `op`, or nullopt when it writes
// some.
std::optional<std::string_view> notGenerated(Opcode op);

// What the modules may hold.
enum class Profile {
  kAll,  // every opcode written and every array element type
  // What XLA:CPU (through jax's StableHLO path) takes and defines as this
  // project does: no s1, u1, s2, u2, f6, f4 or f8e8m0fnu values, not the
  // opcodes XLA:CPU does not run (atan, mulhi, acos and the other inverse
  // and hyperbolic functions but tanh, copy-start, collective-broadcast,
  // async wrappers of a computation) nor rng (whose values are each
  // engine's own), no denormal constants (XLA:CPU flushes them to zero)
  // and no float sums whose order XLA chooses (it sums low-precision
  // floats in their own type, step by step).
  kXla,
};

// The module of `seed`, named fuzz_<seed>.
std::string generateModule(uint64_t seed, Profile profile = Profile::kAll);

}  // namespace hlo::conformance::fuzz
