// The verifier: checks that a module is well formed (an entry, one root per
// computation, parameters numbered 0..n-1, operands and users that agree) and
// well typed (every declared shape is the one shape inference gives, called
// computations have the signatures their callers need).
#pragma once

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo {

// The first problem found, at the offending instruction's location, with a
// lower-case message naming it and saying what was expected; ok otherwise.
Status verify(const Module& module);

}  // namespace hlo
