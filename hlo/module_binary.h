// A module as bytes, read back without the parser: what an ahead-of-time
// library embeds (backends/cpu/aot_image.h), so that its runtime holds the
// module its steps run without parsing text.
//
// The bytes are a flat record of the module as it is in memory: its header,
// then each computation's instructions with their shapes, attributes,
// literals, locations, operands and control edges (operands and callees by
// position). Opcodes, element types and attribute keys are written by name,
// so a reader built from other tables refuses what it does not know instead
// of misreading it. Reading checks every length against the bytes left: a
// short or damaged image is an error, never a crash.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo {

// The module's bytes.
std::string writeModuleBinary(const Module& module);

// The module `bytes` hold; it prints as the written module printed.
StatusOr<std::unique_ptr<Module>> readModuleBinary(std::string_view bytes);

}  // namespace hlo
