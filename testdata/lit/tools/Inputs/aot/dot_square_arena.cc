// The C++ class with an arena of the caller's: X all ones, W[k][j] = j, so
// (X.W)[i][j] = 32 j and the result is 1024 j^2 + 1 in every row.
#include <cstdio>
#include <cstdlib>

#include "dot_square.h"

int main() {
  static_assert(DotSquare::kArenaBytes > 0, "the dot's result lives in the arena");
  const size_t bytes = (DotSquare::kArenaBytes + HLO_RT_ARENA_ALIGNMENT - 1) / HLO_RT_ARENA_ALIGNMENT *
                       HLO_RT_ARENA_ALIGNMENT;
  void* arena = std::aligned_alloc(HLO_RT_ARENA_ALIGNMENT, bytes);
  {
    DotSquare model(1, arena);
    if (!model.ok()) {
      std::printf("load: %s\n", model.error().c_str());
      return 1;
    }
    float* x = model.x();
    float* w = model.w();
    for (int i = 0; i < 32 * 32; ++i) {
      x[i] = 1;
      w[i] = static_cast<float>(i % 32);
    }
    if (!model.run()) {
      std::printf("run: %s\n", model.error().c_str());
      return 1;
    }
    const float* z = model.result();
    std::printf("%g %g %g %g %g\n", z[0], z[1], z[2], z[3], z[32 * 32 - 1]);
  }
  std::free(arena);
  return 0;
}
