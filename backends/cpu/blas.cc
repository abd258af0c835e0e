#include "backends/cpu/blas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace hlo::cpu {
namespace {

struct Loaded {
  Blas blas;
  std::string error;
  bool ok = false;
};

// The OpenBLAS core type for what this CPU can run, or null to leave the
// choice to OpenBLAS.
const char* coreTypeFor() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

Loaded load() {
  Loaded out;
  if (!std::getenv("OPENBLAS_CORETYPE"))
    if (const char* core = coreTypeFor()) setenv("OPENBLAS_CORETYPE", core, 0);
  void* handle = nullptr;
  for (const char* name : {"libopenblas.so.0", "libopenblas.so"})
    if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!handle) {
    const char* why = dlerror();
    out.error = std::string("cannot load OpenBLAS (libopenblas.so.0, Debian's libopenblas0): ") + (why ? why : "");
    return out;
  }
  auto sym = [&](const char* name) { return dlsym(handle, name); };
  out.blas.sgemm = reinterpret_cast<decltype(out.blas.sgemm)>(sym("cblas_sgemm"));
  out.blas.dgemm = reinterpret_cast<decltype(out.blas.dgemm)>(sym("cblas_dgemm"));
  out.blas.zgemm = reinterpret_cast<decltype(out.blas.zgemm)>(sym("cblas_zgemm"));
  out.blas.dtrsm = reinterpret_cast<decltype(out.blas.dtrsm)>(sym("cblas_dtrsm"));
  out.blas.ztrsm = reinterpret_cast<decltype(out.blas.ztrsm)>(sym("cblas_ztrsm"));
  out.blas.dsyrk = reinterpret_cast<decltype(out.blas.dsyrk)>(sym("cblas_dsyrk"));
  out.blas.zherk = reinterpret_cast<decltype(out.blas.zherk)>(sym("cblas_zherk"));
  out.blas.setThreads = reinterpret_cast<decltype(out.blas.setThreads)>(sym("openblas_set_num_threads"));
  auto coreName = reinterpret_cast<char* (*)()>(sym("openblas_get_corename"));
  if (!out.blas.sgemm || !out.blas.dgemm || !out.blas.zgemm || !out.blas.setThreads) {
    out.error = "the loaded OpenBLAS lacks cblas_sgemm, cblas_dgemm, cblas_zgemm or openblas_set_num_threads";
    return out;
  }
  if (coreName) out.blas.coreName = coreName();
  out.blas.library = handle;
  out.ok = true;
  return out;
}

}  // namespace

const Blas* blas(std::string* error) {
  static const Loaded loaded = load();
  if (!loaded.ok) {
    if (error) *error = loaded.error;
    return nullptr;
  }
  return &loaded.blas;
}

}  // namespace hlo::cpu
