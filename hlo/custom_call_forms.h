// The custom calls this project gives a meaning on one device, beyond the
// annotations (hlo/single_device.h): each stands for ordinary HLO, and its
// form is described in its own header. One table says which targets these
// are and what each stands for; the interpreter evaluates them, the
// custom-call-decomposer pass rewrites them into that HLO for the JIT, and
// an engine that meets one unrewritten refuses it with the reason. The
// LAPACK calls stand for no HLO: each engine runs them itself
// (`runByEngines`), and nothing rewrites them.
#pragma once
#include <optional>
#include <string_view>

#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo {

enum class CustomCallForm {
  kTopK,              // hlo/topk_call.h
  kCudnnConvForward,  // hlo/cudnn_conv_call.h
  kBlockScaledDot,    // hlo/block_scaled_dot_call.h
  kBuilderMath,       // hlo/builder_math_call.h
  kLapack,            // hlo/lapack_call.h
};

struct KnownCustomCall {
  CustomCallForm form;
  std::string_view standsFor;  // "a sort", for messages
  Status valid;                // why the call does not fit its form, if it does not
  bool runByEngines = false;   // run as it is by each engine, not rewritten
};

// The form of `instr` when it is a custom call to one of these targets.
std::optional<KnownCustomCall> knownCustomCall(const Instruction& instr);

}  // namespace hlo
