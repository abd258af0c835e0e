// bitcast-convert's value (rules in hlo/bitcast_convert.cc), shared by the
// interpreter and the CPU runtime.
#pragma once
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

// Fills `out` (allocated with the result shape) from `in`; a plain error
// message when the element counts and widths do not match.
Status bitcastConvert(const Literal& in, Literal& out);

}  // namespace hlo
