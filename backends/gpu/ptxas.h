// The CUDA toolkit's PTX assembler, run as a check that the PTX we emit is
// valid for a GPU, and its disassembler, for a look at the GPU's own
// instructions (--dump-to). Never needed to run a module: the driver loads
// PTX itself.
#pragma once

#include <string>

#include "hlo/status.h"

namespace hlo::gpu {

// A program of the CUDA toolkit (ptxas, cuobjdump) on PATH, else in
// $CUDA_HOME/bin, else in /usr/local/cuda/bin.
StatusOr<std::string> findCudaTool(const std::string& name);

// Assembles `ptx` for `arch` ("sm_90") into a temporary cubin that is then
// removed; on failure the error carries what ptxas printed.
Status assembleWithPtxas(const std::string& ptx, const std::string& arch);

// The SASS (the GPU's own instructions) that ptxas makes of `ptx` for
// `arch`, as `cuobjdump -sass` prints it. Fails when either tool is missing
// (not every toolkit install has cuobjdump) or fails.
StatusOr<std::string> sassOf(const std::string& ptx, const std::string& arch);

}  // namespace hlo::gpu
