#include "backends/cpu/aot_header.h"

#include <cctype>
#include <set>

#include "hlo/collectives.h"
#include "hlo/computation.h"

namespace hlo::cpu {

const char kRuntimeHeader[] = R"HLORT(/* The C interface of the ahead-of-time runtime (build/lib/libhlo_rt.a),
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
)HLORT";

namespace {

// The C type of one stored element, and how many of them an element takes
// (complex numbers: two). Types narrower than a byte are stored a byte each;
// 16-bit and 8-bit floats as their bits.
struct CType {
  std::string name;
  int perElement = 1;
};

CType cTypeOf(ElementType t) {
  switch (t) {
    case ElementType::kF32: return {"float"};
    case ElementType::kF64: return {"double"};
    case ElementType::kC64: return {"float", 2};
    case ElementType::kC128: return {"double", 2};
    case ElementType::kS8: return {"int8_t"};
    case ElementType::kS16: return {"int16_t"};
    case ElementType::kS32: return {"int32_t"};
    case ElementType::kS64: return {"int64_t"};
    default: break;
  }
  switch (storageBytes(t)) {
    case 2: return {"uint16_t"};
    case 4: return {"uint32_t"};
    case 8: return {"uint64_t"};
    default: return {"uint8_t"};
  }
}

struct Array {
  std::string name;  // a C identifier
  Shape shape;
  CType type;
  int64_t count() const { return shape.elementCount() * type.perElement; }
};

// `text` as a C identifier: other characters become '_', a leading digit
// gets a '_' before it, and a name taken already gets a number after it.
std::string identifier(const std::string& text, std::set<std::string>& taken) {
  std::string id;
  for (char c : text) id += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "_" + id;
  std::string unique = id;
  for (int k = 2; taken.count(unique); ++k) unique = id + "_" + std::to_string(k);
  taken.insert(unique);
  return unique;
}

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

}  // namespace

bool isCIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

Status checkAotSignature(const Module& module) {
  const Computation* entry = module.entry();
  if (!entry) return errorStatus("hlo-aot: the module has no ENTRY computation");
  HLO_ASSIGN_OR_RETURN(collectives::StatedTopology stated, collectives::statedTopology(module));
  collectives::Topology needed = collectives::inferTopology(module);
  collectives::Topology topology{stated.replicas.value_or(needed.replicas), stated.partitions.value_or(needed.partitions)};
  if (topology.devices() > 1)
    return errorStatus("hlo-aot: the module runs on " + std::to_string(topology.devices()) + " devices (" +
                       topology.toString() + "); an ahead-of-time library runs one");
  for (const Instruction* p : entry->parameters()) {
    if (!p || !p->shape().isArray())
      return errorStatus("hlo-aot: parameter %" + (p ? p->name() : std::string("?")) + " is " +
                             (p ? p->shape().toString() : std::string("missing")) +
                             ": an ahead-of-time entry takes arrays only",
                         p ? p->loc() : SourceLoc{});
    if (p->shape().isDynamic())
      return errorStatus("hlo-aot: parameter %" + p->name() + " has runtime sizes (" + p->shape().toString() +
                             "), which ahead-of-time code does not take",
                         p->loc());
  }
  for (const Shape& r : entry->root()->shape().elementsOrSelf())
    if (!r.isArray() || r.isDynamic())
      return errorStatus("hlo-aot: the entry's result " + entry->root()->shape().toString() +
                             " is not an array or a tuple of arrays of static sizes",
                         entry->root()->loc());
  return okStatus();
}

StatusOr<std::string> aotHeader(const Module& module, const AotHeaderInput& input) {
  HLO_RETURN_IF_ERROR(checkAotSignature(module));
  const Computation& entry = *module.entry();
  std::set<std::string> taken = {"run", "ok", "error", "result", "args", "results", "model"};
  std::vector<Array> args, results;
  for (const Instruction* p : entry.parameters())
    args.push_back({identifier(p->name(), taken), p->shape(), cTypeOf(p->shape().type())});
  std::vector<Shape> outs = entry.root()->shape().elementsOrSelf();
  for (size_t k = 0; k < outs.size(); ++k)
    results.push_back({entry.root()->shape().isTuple() ? "result" + std::to_string(k) : "result", outs[k],
                       cTypeOf(outs[k].type())});
  const std::string& n = input.name;
  std::string guard = "HLO_AOT_" + n + "_H";
  for (char& c : guard) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));

  std::string h = "/* Generated by hlo-aot from " + input.sourceName + "; do not edit.\n";
  h += "   ENTRY " + entry.signature() + "\n";
  h += "   Arrays are row-major; 16-bit and 8-bit floats are passed as their bits,\n"
       "   complex numbers as (real, imaginary) pairs. */\n";
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n" + kRuntimeHeader + "\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h += "extern const HloAotImage hlo_aot_" + n + ";\n\n";
  std::vector<std::string> params, argPtrs, resultPtrs;
  for (const Array& a : args) {
    params.push_back("const " + a.type.name + "* " + a.name);
    argPtrs.push_back(a.name);
  }
  for (const Array& r : results) {
    params.push_back(r.type.name + "* " + r.name);
    resultPtrs.push_back(r.name);
  }
  params.push_back("char** error");
  h += "/* The C entry point: runs the model (loaded on the first call) on the arrays\n"
       "   given. 0 on success; else nonzero, with *error (when error is not NULL) set\n"
       "   to a message to free with hlo_rt_free_error. */\n";
  h += "static inline int " + n + "_run(" + joined(params, ", ") + ") {\n";
  h += "  const void* args[] = {" + (argPtrs.empty() ? std::string("0") : joined(argPtrs, ", ")) + "};\n";
  h += "  void* results[] = {" + joined(resultPtrs, ", ") + "};\n";
  h += "  return hlo_rt_run_image(&hlo_aot_" + n + ", args, results, error);\n}\n\n";
  h += "#ifdef __cplusplus\n}  /* extern \"C\" */\n\n#include <string>\n\n";
  if (!input.cppNamespace.empty()) h += "namespace " + input.cppNamespace + " {\n\n";
  h += "// The model; each instance holds its own argument and result buffers.\n";
  h += "class " + n + " {\n public:\n";
  h += "  static constexpr int kParameters = " + std::to_string(args.size()) + ";\n";
  h += "  static constexpr int kResults = " + std::to_string(results.size()) + ";\n";
  h += "  // Scratch memory one run uses: the caller's (see the constructor), or\n"
       "  // allocated by the runtime per concurrent run.\n";
  h += "  static constexpr uint64_t kArenaBytes = " + std::to_string(input.arenaBytes) + ";\n";
  for (const Array& a : args)
    h += "  static constexpr int64_t k_" + a.name + "_count = " + std::to_string(a.count()) + ";  // " +
         a.shape.toString(false) + "\n";
  for (const Array& r : results)
    h += "  static constexpr int64_t k_" + r.name + "_count = " + std::to_string(r.count()) + ";  // " +
         r.shape.toString(false) + "\n";
  h += "\n  // Loads the model; its work is split over `threads` threads (0: one per core).\n"
       "  // With `arena` (kArenaBytes bytes aligned to HLO_RT_ARENA_ALIGNMENT, kept\n"
       "  // while the instance lives), every run of this instance uses it: runs of one\n"
       "  // instance must then not overlap.\n";
  h += "  explicit " + n + "(int threads = 0, void* arena = nullptr) : arena_(arena) {\n";
  h += "    char* e = nullptr;\n    model_ = hlo_rt_load(&hlo_aot_" + n + ", threads, &e);\n";
  h += "    if (!model_) {\n      error_ = e ? e : \"cannot load the model\";\n      hlo_rt_free_error(e);\n    }\n";
  for (size_t i = 0; i < args.size(); ++i) h += "    args_[" + std::to_string(i) + "] = " + args[i].name + "_.data();\n";
  for (size_t k = 0; k < results.size(); ++k)
    h += "    results_[" + std::to_string(k) + "] = " + results[k].name + "_.data();\n";
  h += "  }\n  ~" + n + "() { hlo_rt_free(model_); }\n";
  h += "  " + n + "(const " + n + "&) = delete;\n  " + n + "& operator=(const " + n + "&) = delete;\n\n";
  h += "  bool ok() const { return model_ != nullptr; }\n";
  h += "  // Why loading or the last run failed.\n  const std::string& error() const { return error_; }\n\n";
  for (size_t i = 0; i < args.size(); ++i) {
    const Array& a = args[i];
    std::string idx = std::to_string(i);
    h += "  // Parameter " + idx + ", " + a.shape.toString(false) + ": fill the model's own buffer...\n";
    h += "  " + a.type.name + "* " + a.name + "() {\n    args_[" + idx + "] = " + a.name + "_.data();\n    return " +
         a.name + "_.data();\n  }\n";
    h += "  // ...or read it from memory of yours (k_" + a.name + "_count elements, not copied).\n";
    h += "  void set_" + a.name + "(const " + a.type.name + "* data) { args_[" + idx + "] = data; }\n";
  }
  for (const Array& r : results) {
    h += "  // " + r.shape.toString(false) + ", written by run().\n";
    h += "  const " + r.type.name + "* " + r.name + "() const { return " + r.name + "_.data(); }\n";
  }
  h += "\n  // Runs the model; false on failure (see error()).\n";
  h += "  bool run() {\n    if (!model_) return false;\n    char* e = nullptr;\n";
  h += "    if ((arena_ ? hlo_rt_run_in_arena(model_, args_, results_, arena_, &e)\n"
       "               : hlo_rt_run(model_, args_, results_, &e)) == 0)\n      return true;\n";
  h += "    error_ = e ? e : \"the run failed\";\n    hlo_rt_free_error(e);\n    return false;\n  }\n\n";
  h += " private:\n  HloRtModel* model_ = nullptr;\n  void* arena_ = nullptr;\n  std::string error_;\n";
  h += "  const void* args_[" + std::to_string(std::max<size_t>(args.size(), 1)) + "] = {};\n";
  h += "  void* results_[" + std::to_string(results.size()) + "] = {};\n";
  for (const Array& a : args)
    h += "  hlo_rt::AlignedArray<" + a.type.name + "> " + a.name + "_{static_cast<size_t>(k_" + a.name + "_count)};\n";
  for (const Array& r : results)
    h += "  hlo_rt::AlignedArray<" + r.type.name + "> " + r.name + "_{static_cast<size_t>(k_" + r.name + "_count)};\n";
  h += "};\n";
  if (!input.cppNamespace.empty()) h += "\n}  // namespace " + input.cppNamespace + "\n";
  h += "#endif  /* __cplusplus */\n#endif  /* " + guard + " */\n";
  return h;
}

}  // namespace hlo::cpu
