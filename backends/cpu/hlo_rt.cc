// The C interface of the ahead-of-time runtime (hlo_rt.h) over loadAotImage
// and CpuExecutable::run: arguments are borrowed where they lie, results
// copied out of the run's values.
#include "backends/cpu/hlo_rt.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "backends/cpu/aot_image.h"
#include "hlo/computation.h"

using namespace hlo;

struct HloRtModel {
  std::unique_ptr<cpu::CpuExecutable> exe;
  std::vector<Shape> parameters;
  std::vector<Shape> results;
  std::vector<std::string> parameterText, resultText;  // hlo_rt_*_shape
};

namespace {

int fail(char** error, const std::string& message) {
  if (error) {
    *error = static_cast<char*>(std::malloc(message.size() + 1));
    if (*error) std::memcpy(*error, message.c_str(), message.size() + 1);
  }
  return 1;
}

// A run on the caller's arrays; with `arena`, in the caller's arena.
int runModel(HloRtModel* model, const void* const* args, void* const* results, void* arena, char** error) {
  if (!model) return fail(error, "hlo_rt_run: no model");
  std::vector<Literal> inputs;
  for (size_t i = 0; i < model->parameters.size(); ++i)
    inputs.push_back(Literal::borrow(model->parameters[i], static_cast<uint8_t*>(const_cast<void*>(args[i]))));
  cpu::CpuExecutable::CallerMemory memory;
  memory.arena = model->exe->arenaBytes() > 0 ? static_cast<uint8_t*>(arena) : nullptr;
  memory.results = std::span<void* const>(results, model->results.size());
  StatusOr<Literal> out = model->exe->runWith(inputs, memory);
  if (!out.ok()) return fail(error, out.status().message());
  std::vector<const Literal*> arrays;
  if (out->shape().isTuple())
    for (const Literal& e : out->tupleElements()) arrays.push_back(&e);
  else
    arrays.push_back(&*out);
  if (arrays.size() != model->results.size()) return fail(error, "hlo_rt_run: the run gave another number of results");
  // Arrays the kernels wrote in place need no copy.
  for (size_t k = 0; k < arrays.size(); ++k)
    if (arrays[k]->byteSize() > 0 && arrays[k]->untypedData() != results[k])
      std::memcpy(results[k], arrays[k]->untypedData(), arrays[k]->byteSize());
  return 0;
}

}  // namespace

extern "C" {

HloRtModel* hlo_rt_load(const HloAotImage* image, int threads, char** error) {
  if (!image) return fail(error, "hlo_rt_load: no image"), nullptr;
  StatusOr<std::unique_ptr<cpu::CpuExecutable>> exe = cpu::loadAotImage(*image, threads);
  if (!exe.ok()) return fail(error, exe.status().message()), nullptr;
  auto model = std::make_unique<HloRtModel>();
  const Computation& entry = *(*exe)->module().entry();
  for (const Instruction* p : entry.parameters()) model->parameters.push_back(p->shape());
  model->results = entry.root()->shape().elementsOrSelf();
  for (const Shape& p : model->parameters) model->parameterText.push_back(p.toString(false));
  for (const Shape& r : model->results) model->resultText.push_back(r.toString(false));
  model->exe = std::move(*exe);
  return model.release();
}


int hlo_rt_run(HloRtModel* model, const void* const* args, void* const* results, char** error) {
  return runModel(model, args, results, nullptr, error);
}

int hlo_rt_run_in_arena(HloRtModel* model, const void* const* args, void* const* results, void* arena,
                        char** error) {
  if (!arena) return fail(error, "hlo_rt_run_in_arena: no arena");
  return runModel(model, args, results, arena, error);
}

int hlo_rt_run_image(const HloAotImage* image, const void* const* args, void* const* results, char** error) {
  static std::mutex mutex;
  static std::map<const HloAotImage*, HloRtModel*> loaded;  // kept for the process's life
  HloRtModel* model = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    HloRtModel*& slot = loaded[image];
    if (!slot) slot = hlo_rt_load(image, 0, error);
    if (!slot) {
      loaded.erase(image);
      return 1;
    }
    model = slot;
  }
  return hlo_rt_run(model, args, results, error);
}

int hlo_rt_parameter_count(const HloRtModel* model) {
  return model ? static_cast<int>(model->parameters.size()) : 0;
}

int hlo_rt_result_count(const HloRtModel* model) { return model ? static_cast<int>(model->results.size()) : 0; }

const char* hlo_rt_parameter_shape(const HloRtModel* model, int i) {
  if (!model || i < 0 || i >= static_cast<int>(model->parameterText.size())) return nullptr;
  return model->parameterText[i].c_str();
}

const char* hlo_rt_result_shape(const HloRtModel* model, int k) {
  if (!model || k < 0 || k >= static_cast<int>(model->resultText.size())) return nullptr;
  return model->resultText[k].c_str();
}

uint64_t hlo_rt_arena_bytes(const HloRtModel* model) {
  return model ? static_cast<uint64_t>(model->exe->arenaBytes()) : 0;
}

void hlo_rt_free(HloRtModel* model) { delete model; }

void hlo_rt_free_error(char* error) { std::free(error); }

}  // extern "C"
