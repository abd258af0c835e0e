// The CUDA toolkit's PTX assembler, run as a check that the PTX we emit is
// valid for a GPU. Never needed to run a module: the driver loads PTX itself.
#pragma once

#include <string>

#include "hlo/status.h"

namespace hlo::gpu {

// ptxas on PATH, else in $CUDA_HOME/bin, else in /usr/local/cuda/bin.
StatusOr<std::string> findPtxas();

// Assembles `ptx` for `arch` ("sm_90") into a temporary cubin that is then
// removed; on failure the error carries what ptxas printed.
Status assembleWithPtxas(const std::string& ptx, const std::string& arch);

}  // namespace hlo::gpu
