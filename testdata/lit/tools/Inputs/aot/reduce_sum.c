/* make demo's module (testdata/examples/reduce_sum.hlo) on make demo's inputs. */
#include <stdio.h>

#include "reduce_sum.h"

int main(void) {
  const float x[4] = {1, 2, 3, 4}, y[4] = {0.5f, 1.5f, -2, 3}, z[4] = {2, 2, 0.25f, -1};
  float sum = 0;
  char* error = NULL;
  if (ReduceSum_run(x, y, z, &sum, &error) != 0) {
    printf("error: %s\n", error);
    hlo_rt_free_error(error);
    return 1;
  }
  printf("%g\n", sum);
  return 0;
}
