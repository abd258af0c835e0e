// cuDNN's forward convolution as XLA's GPU compiler writes it in its dumps:
//
//   (T[...], u8[w]) custom-call(input, filter), window=..., dim_labels=...,
//       [feature_group_count=..., batch_group_count=...,]
//       custom_call_target="__cudnn$convForward",
//       backend_config={"cudnn_conv_backend_config": {"conv_result_scale": s, ...}}
//
// Element 0 is s * convolution(input, filter) with the call's window,
// dimension labels and group counts (s is 1 when not given); element 1 is
// cuDNN's workspace, scratch memory whose contents mean nothing (zeros
// here). Only the plain form is given a meaning: no activation (an
// activation_mode other than none is refused), two operands.
#pragma once
#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo {

struct CudnnConv {
  Shape convolution;  // the shape of element 0
  double scale = 1;   // conv_result_scale
};

// Whether `instr` is a custom call to "__cudnn$convForward".
bool isCudnnConvForward(const Instruction& instr);

// The call's convolution shape and scale, or why it is not of the form above.
StatusOr<CudnnConv> cudnnConvOf(const Instruction& instr);

// Copies the attributes a convolution reads (window, dim_labels, group
// counts) from the call to `conv`.
void copyConvolutionAttributes(const Instruction& call, Instruction& conv);

}  // namespace hlo
