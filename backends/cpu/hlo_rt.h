/* The C interface of the ahead-of-time runtime (build/lib/libhlo_rt.a),
   which runs the object files hlo-aot writes. Every header hlo-aot writes
   begins with this text, so a program needs only that header, the object
   and the library (hlo-aot --print-link-flags). */
#ifndef HLO_RT_H
#define HLO_RT_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an object file from hlo-aot defines, as hlo_aot_<name>. */
typedef struct HloAotImage {
  uint64_t version;
  const char* plan;
  uint64_t planBytes;
  void* const* functions;
  uint64_t functionCount;
} HloAotImage;

typedef struct HloRtModel HloRtModel;

/* Loads the model an image holds, its work split over `threads` threads
   (0: one per core). NULL on failure, with *error (when error is not NULL)
   set to a message to free with hlo_rt_free_error. */
HloRtModel* hlo_rt_load(const HloAotImage* image, int threads, char** error);

/* Runs a model: args[i] points at the elements of entry parameter i,
   results[k] at where result k is written (row-major, of the element types
   the model's header gives; overlapping no argument; where a result buffer is
   aligned to HLO_RT_ARENA_ALIGNMENT the run may write it directly, else the
   result is copied there). 0 on success; else nonzero, with *error set
   as hlo_rt_load sets it. Runs may overlap on several threads. */
int hlo_rt_run(HloRtModel* model, const void* const* args, void* const* results, char** error);

/* hlo_rt_run with the run's scratch values in `arena`: memory of the
   caller's, hlo_rt_arena_bytes(model) bytes aligned to HLO_RT_ARENA_ALIGNMENT,
   which no other run uses meanwhile. */
#define HLO_RT_ARENA_ALIGNMENT 64
int hlo_rt_run_in_arena(HloRtModel* model, const void* const* args, void* const* results, void* arena,
                        char** error);

/* hlo_rt_run on the image's model, loaded on the first call (one per core). */
int hlo_rt_run_image(const HloAotImage* image, const void* const* args, void* const* results, char** error);

/* The model's entry parameters and results, and the shape of each as HLO
   prints it ("f32[2,3]"); NULL out of range. The text lives as long as
   the model. */
int hlo_rt_parameter_count(const HloRtModel* model);
int hlo_rt_result_count(const HloRtModel* model);
const char* hlo_rt_parameter_shape(const HloRtModel* model, int i);
const char* hlo_rt_result_shape(const HloRtModel* model, int k);

/* The bytes of scratch memory (the arena) one run uses. */
uint64_t hlo_rt_arena_bytes(const HloRtModel* model);

void hlo_rt_free(HloRtModel* model);
void hlo_rt_free_error(char* error);

#ifdef __cplusplus
}

#include <cstdlib>
#include <cstring>

namespace hlo_rt {

/* n elements, zeroed, aligned to HLO_RT_ARENA_ALIGNMENT: where a run writes a
   result directly, without a copy, when its plan gives the result a buffer
   of its own (the generated classes' buffers). */
template <class T>
class AlignedArray {
 public:
  explicit AlignedArray(size_t n)
      : bytes_((n * sizeof(T) + HLO_RT_ARENA_ALIGNMENT - 1) / HLO_RT_ARENA_ALIGNMENT * HLO_RT_ARENA_ALIGNMENT +
               HLO_RT_ARENA_ALIGNMENT),
        data_(static_cast<T*>(std::aligned_alloc(HLO_RT_ARENA_ALIGNMENT, bytes_))) {
    if (data_) std::memset(static_cast<void*>(data_), 0, bytes_);
  }
  ~AlignedArray() { std::free(data_); }
  AlignedArray(const AlignedArray&) = delete;
  AlignedArray& operator=(const AlignedArray&) = delete;
  T* data() const { return data_; }

 private:
  size_t bytes_;
  T* data_;
};

}  // namespace hlo_rt
#endif
#endif /* HLO_RT_H */
