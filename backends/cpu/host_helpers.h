// The host runtime's helpers that emitted kernels call by name
// (jit/host_helper_names.h), defined once: the JIT hands ORC their
// addresses, and an ahead-of-time object links against them by name, so
// each is also an extern "C" symbol of that name.
#pragma once
#include <span>

namespace hlo::cpu {

struct HostHelper {
  const char* name;  // jit/host_helper_names.h
  void* address;
};
std::span<const HostHelper> hostHelpers();

}  // namespace hlo::cpu
