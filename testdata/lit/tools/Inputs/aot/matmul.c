/* The C entry point hlo-aot writes for testdata/examples/matmul.hlo. */
#include <stdio.h>

#include "matmul.h"

int main(void) {
  float x[8], w[12], y[6];
  char* error = NULL;
  int i;
  for (i = 0; i < 8; ++i) x[i] = (float)(i + 1);
  for (i = 0; i < 12; ++i) w[i] = (float)(i - 5);
  if (Matmul_run(x, w, y, &error) != 0) {
    printf("error: %s\n", error);
    hlo_rt_free_error(error);
    return 1;
  }
  for (i = 0; i < 6; ++i) printf("%g ", y[i]);
  printf("\n");
  return 0;
}
