// GCC vector types of Lanes floats, for the kernels written once and
// compiled per instruction set (conv_tiles.cc, skinny_dot.cc): each entry
// point carries its target attribute, and the same source becomes AVX-512
// or AVX2 code.
#pragma once
#include <cstdint>

namespace hlo::cpu {

template <int Lanes>
struct VectorOf {
  // In registers.
  typedef float Value __attribute__((vector_size(Lanes * sizeof(float))));
  // In memory: unaligned, and allowed to alias the float arrays it is read
  // from and written to (floats are read and written through Memory*).
  typedef float Memory __attribute__((vector_size(Lanes * sizeof(float)), aligned(alignof(float)), may_alias));
  // Lanes 2-byte elements in memory (bf16, f16), likewise.
  typedef uint16_t HalfMemory __attribute__((vector_size(Lanes * sizeof(uint16_t)), aligned(2), may_alias));
  // Lanes 32-bit integers in registers (a float's bits).
  typedef uint32_t Bits __attribute__((vector_size(Lanes * sizeof(uint32_t))));
  // Lanes 32-bit integers in memory, unaligned (two 2-byte elements each).
  typedef uint32_t BitsMemory __attribute__((vector_size(Lanes * sizeof(uint32_t)), aligned(2), may_alias));
};

}  // namespace hlo::cpu
