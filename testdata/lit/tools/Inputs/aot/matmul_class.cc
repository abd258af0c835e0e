// The C++ class hlo-aot writes for testdata/examples/matmul.hlo: its own
// buffer for x, borrowed memory for w.
#include <cstdio>

#include "matmul.h"

int main() {
  demo::Matmul model(2);
  if (!model.ok()) {
    std::printf("load: %s\n", model.error().c_str());
    return 1;
  }
  static_assert(demo::Matmul::k_x_count == 8 && demo::Matmul::k_w_count == 12 && demo::Matmul::k_result_count == 6);
  float* x = model.x();
  for (int i = 0; i < 8; ++i) x[i] = static_cast<float>(i + 1);
  float w[12];
  for (int i = 0; i < 12; ++i) w[i] = static_cast<float>(i - 5);
  model.set_w(w);
  for (int run = 0; run < 2; ++run) {
    if (!model.run()) {
      std::printf("run: %s\n", model.error().c_str());
      return 1;
    }
    for (int i = 0; i < 6; ++i) std::printf("%g ", model.result()[i]);
    std::printf("\n");
    w[0] = 0;  // the second run reads the borrowed w again
  }
  return 0;
}
