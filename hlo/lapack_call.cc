// jax's LAPACK calls (lapack_call.h): recognising the target, checking the
// operands, results, layouts and backend config against the routine's form.
#include "hlo/lapack_call.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace hlo {
namespace {

// Each routine's facts: LAPACK's names for it (real, complex: "syevd" and
// "heevd"), its operand count, the operand its batch and (m, n) are read
// from and that operand's role, and whether jax calls it by a LAPACK name
// (false: only the GPU's calls have it; the name is for messages).
struct RoutineInfo {
  LapackRoutine routine;
  std::string_view real, complex;
  int operands = 1, main = 0;
  std::string_view mainRole = "a";
  bool lapack = true;
};
constexpr RoutineInfo kRoutines[] = {
    {LapackRoutine::kPotrf, "potrf", "potrf"},
    {LapackRoutine::kGetrf, "getrf", "getrf"},
    {LapackRoutine::kTrsm, "trsm", "trsm", 2, 1, "b"},
    {LapackRoutine::kGeqrf, "geqrf", "geqrf"},
    {LapackRoutine::kOrgqr, "orgqr", "ungqr", 2},
    {LapackRoutine::kSyevd, "syevd", "heevd"},
    {LapackRoutine::kGesdd, "gesdd", "gesdd"},
    {LapackRoutine::kGesvd, "gesvd", "gesvd"},
    {LapackRoutine::kOrmqr, "ormqr", "unmqr", 3, 2, "c"},
    {LapackRoutine::kGeqp3, "geqp3", "geqp3", 2},
    {LapackRoutine::kGehrd, "gehrd", "gehrd"},
    {LapackRoutine::kSytrd, "sytrd", "hetrd"},
    {LapackRoutine::kGtsv, "gtsv", "gtsv", 4, 3, "b"},
    {LapackRoutine::kGeev, "geev", "geev"},
    {LapackRoutine::kGees, "gees", "gees"},
    {LapackRoutine::kGesvdj, "gesvdj", "gesvdj", 1, 0, "a", false},
    {LapackRoutine::kPivotsToPermutation, "lu_pivots_to_permutation", "lu_pivots_to_permutation", 1, 0, "pivots",
     false},
    {LapackRoutine::kSyrk, "syrk", "syrk", 4, 0, "a", false},
    {LapackRoutine::kCsrlsvqr, "csrlsvqr", "csrlsvqr", 4, 3, "b", false},
};

const RoutineInfo& infoOf(LapackRoutine r) {
  for (const RoutineInfo& info : kRoutines)
    if (info.routine == r) return info;
  return kRoutines[0];  // every routine has a row
}

// The element types the solvers take.
bool solverType(ElementType t) {
  return t == ElementType::kF32 || t == ElementType::kF64 || t == ElementType::kC64 || t == ElementType::kC128;
}

// "1,0"
std::string listText(const std::vector<int64_t>& values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + std::to_string(values[i]);
  return s;
}
std::string layoutText(const std::vector<int64_t>& minorToMajor) { return "{" + listText(minorToMajor) + "}"; }
std::string dimsText(const std::vector<int64_t>& dims) { return "[" + listText(dims) + "]"; }

std::optional<ElementType> typeOfLetter(char c) {
  switch (c) {
    case 's': return ElementType::kF32;
    case 'd': return ElementType::kF64;
    case 'c': return ElementType::kC64;
    case 'z': return ElementType::kC128;
    default: return std::nullopt;
  }
}

struct Target {
  LapackRoutine routine;
  std::optional<ElementType> type;  // named by a LAPACK target; a GPU one's comes from its operand
  bool gpu = false;
  bool hybrid = false;  // jaxlib's hybrid eigensolver, with LAPACK's geev results
};

// The GPU targets: cuSOLVER's and cuSPARSE's (and ROCm's names for them).
std::optional<Target> parseGpuTarget(std::string_view target) {
  struct Name {
    std::string_view suffix;
    LapackRoutine routine;
  };
  constexpr Name kSolver[] = {
      {"potrf", LapackRoutine::kPotrf}, {"getrf", LapackRoutine::kGetrf},   {"geqrf", LapackRoutine::kGeqrf},
      {"orgqr", LapackRoutine::kOrgqr}, {"ormqr", LapackRoutine::kOrmqr},   {"syevd", LapackRoutine::kSyevd},
      {"sytrd", LapackRoutine::kSytrd}, {"gesvdj", LapackRoutine::kGesvdj}, {"gesvdp", LapackRoutine::kGesvdj},
      {"gesdd", LapackRoutine::kGesdd}, {"gesvd", LapackRoutine::kGesvd},   {"geev", LapackRoutine::kGeev},
      {"syrk", LapackRoutine::kSyrk},    {"csrlsvqr", LapackRoutine::kCsrlsvqr},
  };
  for (std::string_view vendor : {"cu", "hip"}) {
    std::string solver = std::string(vendor) + "solver_";
    for (const Name& n : kSolver)
      if (target == solver + std::string(n.suffix) + "_ffi") return Target{n.routine, std::nullopt, true};
    if (target == std::string(vendor) + "sparse_gtsv2_ffi") return Target{LapackRoutine::kGtsv, std::nullopt, true};
    if (target == std::string(vendor) + "_lu_pivots_to_permutation")
      return Target{LapackRoutine::kPivotsToPermutation, ElementType::kS32, true};
    // jaxlib's hybrid eigensolver (MAGMA or LAPACK on the host): LAPACK's
    // geev results.
    if (target == std::string(vendor) + "_hybrid_eig_real" || target == std::string(vendor) + "_hybrid_eig_comp")
      return Target{LapackRoutine::kGeev, std::nullopt, true, /*hybrid=*/true};
  }
  return std::nullopt;
}

// The routine and type a target names, when it is one of ours.
std::optional<Target> parseTarget(std::string_view target) {
  if (std::optional<Target> gpu = parseGpuTarget(target)) return gpu;
  constexpr std::string_view prefix = "lapack_", suffix = "_ffi";
  if (target.size() <= prefix.size() + suffix.size() + 1 || !target.starts_with(prefix) || !target.ends_with(suffix))
    return std::nullopt;
  std::string_view middle = target.substr(prefix.size(), target.size() - prefix.size() - suffix.size());
  std::optional<ElementType> type = typeOfLetter(middle[0]);
  if (!type) return std::nullopt;
  std::string_view name = middle.substr(1);
  bool complex = isComplex(*type);
  for (const RoutineInfo& r : kRoutines)
    if (r.lapack && name == (complex ? r.complex : r.real)) return Target{r.routine, *type, false};
  return std::nullopt;
}

// A backend config: option name -> value.
using Config = std::map<std::string, double, std::less<>>;

// The entries of an MLIR dictionary attribute, `{uplo = 76 : ui8, lower =
// true, tol = 1.0E-6 : f64}`, as name -> value (true and false as 1 and 0;
// a string, which no option here reads, as 0); nullopt when the text is not
// one.
std::optional<Config> parseConfig(std::string_view text) {
  Config out;
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.empty()) return out;
  if (text.front() != '{' || text.back() != '}') return std::nullopt;
  text = trim(text.substr(1, text.size() - 2));
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view entry = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : trim(text.substr(comma + 1));
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view name = trim(entry.substr(0, eq)), value = trim(entry.substr(eq + 1));
    if (size_t colon = value.find(':'); colon != std::string_view::npos) value = trim(value.substr(0, colon));
    double v = 0;
    if (value == "true") v = 1;
    else if (value == "false") v = 0;
    else if (value.size() >= 2 && value.front() == '"' && value.back() == '"') v = 0;  // a string: not read
    else if (auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
             ec != std::errc() || end != value.data() + value.size())
      return std::nullopt;
    if (name.empty()) return std::nullopt;
    out[std::string(name)] = v;
  }
  return out;
}

class Checker {
 public:
  explicit Checker(const Instruction& instr) : instr_(instr) {}

  Status bad(const std::string& why) const {
    return errorStatus("LAPACK call %" + instr_.name() + " (" +
                           std::string(instr_.attrs().getString(AttrKey::kCustomCallTarget)) + "): " + why,
                       instr_.loc());
  }

  // The results: the tuple's elements, or the one array.
  std::vector<Shape> results() const {
    if (instr_.shape().isTuple()) return instr_.shape().tupleElements();
    return {instr_.shape()};
  }

  // An array of element type `t` and dimensions `batch` + `item`.
  Status expect(const Shape& s, const std::string& what, ElementType t, const std::vector<int64_t>& batch,
                const std::vector<int64_t>& item) const {
    std::vector<int64_t> dims = batch;
    dims.insert(dims.end(), item.begin(), item.end());
    if (!s.isArray() || s.type() != t || s.dims() != dims)
      return bad(what + " must be " + std::string(elementTypeName(t)) + dimsText(dims) + ", not " + s.toString());
    return okStatus();
  }

  // A matrix (the two minor dimensions of `s`) laid out column-major, batch
  // dimensions major; `layout` is the one that decides (see lapack_call.h).
  Status columnMajor(const Shape& s, const std::optional<Layout>& layout, const std::string& what) const {
    int r = s.rank();
    std::vector<int64_t> want = {r - 2, r - 1};
    for (int d = r - 3; d >= 0; --d) want.push_back(d);
    if (layout && layout->minorToMajor == want) return okStatus();
    return bad(what + " must be a column-major matrix, layout " + layoutText(want) + " (" +
               (layout ? "it is " + layoutText(layout->minorToMajor) : "it has no layout") + ")");
  }
  // Vectors of a batch, info, and the row-major forms' matrices: the default
  // layout (or none). `layout` is the one that decides, the shape's unless
  // given.
  Status rowMajor(const Shape& s, const std::string& what) const { return rowMajor(s, s.layout(), what); }
  Status rowMajor(const Shape& s, const std::optional<Layout>& layout, const std::string& what) const {
    std::vector<int64_t> want;
    for (int d = s.rank() - 1; d >= 0; --d) want.push_back(d);
    if (!layout || layout->minorToMajor == want) return okStatus();
    return bad(what + " must have the default layout " + layoutText(want) + ", not " +
               layoutText(layout->minorToMajor));
  }

  std::optional<Layout> operandLayout(int i) const {
    if (const AttrValue* c = instr_.attrs().find(AttrKey::kOperandLayoutConstraints))
      if (i < static_cast<int>(c->shapes.size())) return c->shapes[i].layout();
    return instr_.operand(i)->shape().layout();
  }

  const Instruction& instr() const { return instr_; }

 private:
  const Instruction& instr_;
};

// A config option that must be one of `allowed` (LAPACK characters).
StatusOr<char> option(const Checker& c, const Config& config,
                      std::string_view name, std::string_view allowed) {
  auto it = config.find(name);
  if (it == config.end()) return c.bad("the backend config has no " + std::string(name));
  double v = it->second;
  if (v > 0 && v < 128 && v == std::floor(v) && allowed.find(static_cast<char>(v)) != std::string_view::npos)
    return static_cast<char>(v);
  std::string list;
  for (char a : allowed) list += std::string(list.empty() ? "" : ", ") + "'" + a + "' (" + std::to_string(a) + ")";
  std::ostringstream shown;
  shown << v;
  return c.bad(std::string(name) + " = " + shown.str() + " is not one of " + list);
}

// A boolean config option (`left = true`).
StatusOr<bool> flag(const Checker& c, const Config& config,
                    std::string_view name) {
  auto it = config.find(name);
  if (it == config.end()) return c.bad("the backend config has no " + std::string(name));
  if (it->second != 0 && it->second != 1) return c.bad(std::string(name) + " must be true or false");
  return it->second == 1;
}

// The triangle read: LAPACK's uplo, or cuSOLVER's {lower = true}.
StatusOr<char> uploOf(const Checker& c, const Config& config, bool gpu) {
  if (!gpu) return option(c, config, "uplo", "LU");
  HLO_ASSIGN_OR_RETURN(bool lower, flag(c, config, "lower"));
  return lower ? 'L' : 'U';
}

// cu_lu_pivots_to_permutation: s32[B,p] (s32[B,k] pivots), p >= k.
StatusOr<LapackCall> pivotsToPermutation(const Checker& c, LapackCall call) {
  const Instruction& instr = c.instr();
  const Shape& pivots = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!pivots.isArray() || pivots.type() != ElementType::kS32 || pivots.rank() < 1)
    return c.bad("the pivots must be s32 vectors, not " + pivots.toString());
  if (!out.isArray() || out.type() != ElementType::kS32 || out.rank() != pivots.rank() ||
      !std::equal(pivots.dims().begin(), pivots.dims().end() - 1, out.dims().begin()))
    return c.bad("the permutation must be s32 vectors of the pivots' batch, not " + out.toString());
  HLO_RETURN_IF_ERROR(c.rowMajor(pivots, "operand 0 (pivots)"));
  HLO_RETURN_IF_ERROR(c.rowMajor(out, "the result"));
  call.type = ElementType::kS32;
  for (int d = 0; d + 1 < pivots.rank(); ++d) call.batch *= pivots.dim(d);
  call.k = pivots.dim(pivots.rank() - 1);
  call.m = out.dim(out.rank() - 1);
  if (call.m < call.k)
    return c.bad("a permutation of " + std::to_string(call.m) + " cannot take " + std::to_string(call.k) + " pivots");
  return call;
}

// cusolver_syrk_ffi: T[B,n,n] (T[B,n,k] a, T[B,n,n] c, T[] alpha, T[] beta),
// row-major arrays (see lapack_call.h).
StatusOr<LapackCall> syrkCall(const Checker& c, LapackCall call) {
  const Instruction& instr = c.instr();
  auto config = parseConfig(instr.attrs().getString(AttrKey::kBackendConfig));
  if (!config) return c.bad("the backend config must be a dictionary such as {transpose = false}");
  HLO_ASSIGN_OR_RETURN(call.transpose, flag(c, *config, "transpose"));
  const Shape& a = instr.operand(0)->shape();
  ElementType t = a.isArray() ? a.type() : ElementType::kF32;
  if (!a.isArray() || a.rank() < 2 || !solverType(t))
    return c.bad("syrk takes f32, f64, c64 or c128 matrices, not " + a.toString());
  call.type = t;
  std::vector<int64_t> batch(a.dims().begin(), a.dims().end() - 2);
  for (int64_t d : batch) call.batch *= d;
  int64_t rows = a.dim(a.rank() - 2), cols = a.dim(a.rank() - 1);
  call.n = call.transpose ? cols : rows;  // the result's order
  call.k = call.transpose ? rows : cols;
  call.m = call.n;
  HLO_RETURN_IF_ERROR(c.rowMajor(a, "operand 0 (a)"));
  HLO_RETURN_IF_ERROR(c.expect(instr.operand(1)->shape(), "operand 1 (c)", t, batch, {call.n, call.n}));
  HLO_RETURN_IF_ERROR(c.rowMajor(instr.operand(1)->shape(), "operand 1 (c)"));
  HLO_RETURN_IF_ERROR(c.expect(instr.operand(2)->shape(), "operand 2 (alpha)", t, {}, {}));
  HLO_RETURN_IF_ERROR(c.expect(instr.operand(3)->shape(), "operand 3 (beta)", t, {}, {}));
  if (instr.shape().isTuple()) return c.bad("syrk returns one array, not " + instr.shape().toString());
  HLO_RETURN_IF_ERROR(c.expect(instr.shape(), "the result", t, batch, {call.n, call.n}));
  HLO_RETURN_IF_ERROR(c.rowMajor(instr.shape(), "the result"));
  return call;
}

// cusolver_csrlsvqr_ffi: T[n] (T[nnz] data, s32[nnz] indices, s32[n+1]
// indptr, T[n] b), {reorder, tol}.
StatusOr<LapackCall> sparseSolveCall(const Checker& c, LapackCall call) {
  const Instruction& instr = c.instr();
  auto config = parseConfig(instr.attrs().getString(AttrKey::kBackendConfig));
  if (!config) return c.bad("the backend config must be a dictionary such as {reorder = 1 : i32, tol = 1.0E-6 : f64}");
  auto tol = config->find("tol");
  if (tol == config->end() || !config->contains("reorder")) return c.bad("the backend config needs reorder and tol");
  call.tolerance = tol->second;
  const Shape& data = instr.operand(0)->shape();
  ElementType t = data.isArray() ? data.type() : ElementType::kF32;
  if (!data.isArray() || data.rank() != 1 || !solverType(t))
    return c.bad("csrlsvqr's data must be an f32, f64, c64 or c128 vector, not " + data.toString());
  call.type = t;
  call.k = data.dim(0);  // nonzeros
  const Shape& b = instr.operand(3)->shape();
  if (!b.isArray() || b.rank() != 1) return c.bad("operand 3 (b) must be a vector, not " + b.toString());
  call.n = call.m = b.dim(0);
  HLO_RETURN_IF_ERROR(c.expect(instr.operand(1)->shape(), "operand 1 (indices)", ElementType::kS32, {}, {call.k}));
  HLO_RETURN_IF_ERROR(c.expect(instr.operand(2)->shape(), "operand 2 (indptr)", ElementType::kS32, {}, {call.n + 1}));
  HLO_RETURN_IF_ERROR(c.expect(b, "operand 3 (b)", t, {}, {call.n}));
  if (instr.shape().isTuple()) return c.bad("csrlsvqr returns one array, not " + instr.shape().toString());
  HLO_RETURN_IF_ERROR(c.expect(instr.shape(), "the result", t, {}, {call.n}));
  return call;
}

// cuSOLVER's gesvd with transposed = true, which jax emits for a wide
// matrix: row-major arrays, which the kernel reads column-major as a^T, tall.
// The SVD of a^T = U' S V'^H written column-major into the U and V^H slots
// reads, row-major, as U'^T = V^H of a in the first and (V'^H)^T = U of a in
// the second: the results are (a, s, V^H, U, info) of the logical a.
StatusOr<LapackCall> transposedSvd(const Checker& c, LapackCall call,
                                   const Config& config,
                                   const std::vector<int64_t>& batch) {
  const Instruction& instr = c.instr();
  if (call.routine != LapackRoutine::kGesvd) return c.bad("transposed = true is gesvd's, not gesdd's");
  HLO_ASSIGN_OR_RETURN(bool full, flag(c, config, "full_matrices"));
  HLO_ASSIGN_OR_RETURN(bool vectors, flag(c, config, "compute_uv"));
  call.mode = !vectors ? 'N' : full ? 'A' : 'S';
  call.swappedVectors = true;
  int64_t rows = call.m, cols = call.n;
  if (rows > cols) return c.bad("transposed = true needs a wide matrix (rows <= columns), not " +
                                instr.operand(0)->shape().toString());
  HLO_RETURN_IF_ERROR(c.rowMajor(instr.operand(0)->shape(), c.operandLayout(0), "operand 0 (a)"));
  std::vector<Shape> results = c.results();
  if (!instr.shape().isTuple() || results.size() != 5)
    return c.bad("gesvd returns a tuple of 5 arrays, not " + instr.shape().toString());
  ElementType t = call.type, real = isComplex(t) ? complexComponentType(t) : t;
  auto matrix = [&](int i, const std::string& what, std::vector<int64_t> item) -> Status {
    std::string name = "result " + std::to_string(i) + " (" + what + ")";
    HLO_RETURN_IF_ERROR(c.expect(results[i], name, t, batch, item));
    return c.rowMajor(results[i], name);
  };
  HLO_RETURN_IF_ERROR(matrix(0, "a", {rows, cols}));
  HLO_RETURN_IF_ERROR(c.expect(results[1], "result 1 (singular values)", real, batch, {rows}));
  HLO_RETURN_IF_ERROR(matrix(2, "V^H", {full ? cols : rows, cols}));
  HLO_RETURN_IF_ERROR(matrix(3, "U", {rows, rows}));
  HLO_RETURN_IF_ERROR(c.expect(results[4], "result 4 (info)", ElementType::kS32, batch, {}));
  return call;
}

}  // namespace

std::string_view lapackRoutineName(LapackRoutine r) { return infoOf(r).real; }

bool isLapackCall(const Instruction& instr) {
  return instr.opcode() == Opcode::kCustomCall &&
         parseTarget(instr.attrs().getString(AttrKey::kCustomCallTarget)).has_value();
}

StatusOr<LapackCall> lapackCallOf(const Instruction& instr) {
  Checker c(instr);
  auto named = parseTarget(instr.attrs().getString(AttrKey::kCustomCallTarget));
  if (instr.opcode() != Opcode::kCustomCall || !named) return c.bad("not a LAPACK call");
  LapackCall call;
  call.routine = named->routine;
  call.gpu = named->gpu;
  call.packedVectors = named->gpu && !named->hybrid && call.routine == LapackRoutine::kGeev;
  std::string routine(lapackRoutineName(call.routine));

  const RoutineInfo& facts = infoOf(call.routine);
  int operands = facts.operands, mainIndex = facts.main;
  if (instr.operandCount() != operands)
    return c.bad(routine + " takes " + std::to_string(operands) + " operand" + (operands > 1 ? "s" : "") + ", not " +
                 std::to_string(instr.operandCount()));
  if (call.routine == LapackRoutine::kPivotsToPermutation) return pivotsToPermutation(c, call);
  if (call.routine == LapackRoutine::kSyrk) return syrkCall(c, call);
  if (call.routine == LapackRoutine::kCsrlsvqr) return sparseSolveCall(c, call);
  if (named->type) {
    call.type = *named->type;
  } else {
    // A GPU call's type is its operand's.
    const Shape& operand = instr.operand(mainIndex)->shape();
    ElementType ot = operand.isArray() ? operand.type() : ElementType::kF32;
    if (!operand.isArray() || !solverType(ot))
      return c.bad(routine + " takes f32, f64, c64 or c128 matrices, not " + operand.toString());
    call.type = ot;
  }
  ElementType t = call.type, real = isComplex(t) ? complexComponentType(t) : t;
  // The matrix the batch is read from.
  const Shape& main = instr.operand(mainIndex)->shape();
  std::string mainName = "operand " + std::to_string(mainIndex);
  if (!main.isArray() || main.rank() < 2 || main.type() != t)
    return c.bad(mainName + " must be a " + std::string(elementTypeName(t)) + " matrix or batch of matrices, not " +
                 main.toString());
  std::vector<int64_t> batch(main.dims().begin(), main.dims().end() - 2);
  for (int64_t d : batch) call.batch *= d;
  call.m = main.dim(main.rank() - 2);
  call.n = main.dim(main.rank() - 1);
  int64_t m = call.m, n = call.n, small = std::min(m, n);

  std::vector<Shape> results = c.results();
  auto resultCount = [&](size_t want) -> Status {
    if (instr.shape().isTuple() != (want > 1) || results.size() != want)
      return c.bad(routine + " returns " +
                   (want > 1 ? "a tuple of " + std::to_string(want) + " arrays" : std::string("one array")) +
                   ", not " + instr.shape().toString());
    return okStatus();
  };
  auto info = [&](int i) -> Status {
    HLO_RETURN_IF_ERROR(c.expect(results[i], "result " + std::to_string(i) + " (info)", ElementType::kS32, batch, {}));
    return c.rowMajor(results[i], "result " + std::to_string(i) + " (info)");
  };
  auto matrixResult = [&](int i, const std::string& what, std::vector<int64_t> item) -> Status {
    std::string name = "result " + std::to_string(i) + " (" + what + ")";
    HLO_RETURN_IF_ERROR(c.expect(results[i], name, t, batch, item));
    return c.columnMajor(results[i], results[i].layout(), name);
  };
  auto vectorResult = [&](int i, const std::string& what, ElementType type, int64_t size) -> Status {
    std::string name = "result " + std::to_string(i) + " (" + what + ")";
    HLO_RETURN_IF_ERROR(c.expect(results[i], name, type, batch, {size}));
    return c.rowMajor(results[i], name);
  };
  auto config = parseConfig(instr.attrs().getString(AttrKey::kBackendConfig));
  if (!config)
    return c.bad("the backend config must be a dictionary such as {uplo = 76 : ui8}, not " +
                 std::string(instr.attrs().getString(AttrKey::kBackendConfig)));
  auto square = [&]() -> Status {
    if (m != n) return c.bad(routine + " needs square matrices, not " + main.toString());
    return okStatus();
  };

  if (call.gpu && (call.routine == LapackRoutine::kGesvd || call.routine == LapackRoutine::kGesdd)) {
    auto transposed = config->find("transposed");
    if (transposed != config->end() && transposed->second == 1) return transposedSvd(c, call, *config, batch);
  }
  HLO_RETURN_IF_ERROR(
      c.columnMajor(main, c.operandLayout(mainIndex), mainName + " (" + std::string(facts.mainRole) + ")"));
  // A vector operand per matrix of the batch.
  auto vectorOperand = [&](int i, const std::string& what, ElementType type, int64_t size) -> Status {
    std::string name = "operand " + std::to_string(i) + " (" + what + ")";
    HLO_RETURN_IF_ERROR(c.expect(instr.operand(i)->shape(), name, type, batch, {size}));
    return c.rowMajor(instr.operand(i)->shape(), name);
  };
  switch (call.routine) {
    case LapackRoutine::kPotrf: {
      HLO_RETURN_IF_ERROR(square());
      HLO_ASSIGN_OR_RETURN(call.uplo, uploOf(c, *config, call.gpu));
      HLO_RETURN_IF_ERROR(resultCount(2));
      HLO_RETURN_IF_ERROR(matrixResult(0, "the factor", {n, n}));
      HLO_RETURN_IF_ERROR(info(1));
      break;
    }
    case LapackRoutine::kGetrf: {
      HLO_RETURN_IF_ERROR(resultCount(3));
      HLO_RETURN_IF_ERROR(matrixResult(0, "L and U", {m, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "pivots", ElementType::kS32, small));
      HLO_RETURN_IF_ERROR(info(2));
      break;
    }
    case LapackRoutine::kTrsm: {
      HLO_ASSIGN_OR_RETURN(call.side, option(c, *config, "side", "LR"));
      HLO_ASSIGN_OR_RETURN(call.uplo, option(c, *config, "uplo", "LU"));
      HLO_ASSIGN_OR_RETURN(call.trans, option(c, *config, "trans_x", "NTC"));
      HLO_ASSIGN_OR_RETURN(call.diag, option(c, *config, "diag", "NU"));
      call.k = call.side == 'L' ? m : n;
      const Shape& a = instr.operand(0)->shape();
      HLO_RETURN_IF_ERROR(c.expect(a, "operand 0 (a)", t, batch, {call.k, call.k}));
      HLO_RETURN_IF_ERROR(c.columnMajor(a, c.operandLayout(0), "operand 0 (a)"));
      HLO_RETURN_IF_ERROR(resultCount(1));
      HLO_RETURN_IF_ERROR(matrixResult(0, "x", {m, n}));
      break;
    }
    case LapackRoutine::kGeqrf: {
      HLO_RETURN_IF_ERROR(resultCount(2));
      HLO_RETURN_IF_ERROR(matrixResult(0, "R and the reflectors", {m, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "tau", t, small));
      break;
    }
    case LapackRoutine::kOrgqr: {
      const Shape& tau = instr.operand(1)->shape();
      if (!tau.isArray() || tau.rank() != main.rank() - 1)
        return c.bad("operand 1 (tau) must be a vector per matrix, not " + tau.toString());
      call.k = tau.dim(tau.rank() - 1);
      HLO_RETURN_IF_ERROR(c.expect(tau, "operand 1 (tau)", t, batch, {call.k}));
      HLO_RETURN_IF_ERROR(c.rowMajor(tau, "operand 1 (tau)"));
      if (!(m >= n && n >= call.k))
        return c.bad(routine + " needs rows >= columns >= reflectors, not " + std::to_string(m) + ", " +
                     std::to_string(n) + ", " + std::to_string(call.k));
      HLO_RETURN_IF_ERROR(resultCount(1));
      HLO_RETURN_IF_ERROR(matrixResult(0, "Q", {m, n}));
      break;
    }
    case LapackRoutine::kSyevd: {
      HLO_RETURN_IF_ERROR(square());
      HLO_ASSIGN_OR_RETURN(call.uplo, uploOf(c, *config, call.gpu));
      if (call.gpu) {
        if (!config->contains("algorithm")) return c.bad("the backend config has no algorithm");
        call.mode = 'V';
      } else {
        HLO_ASSIGN_OR_RETURN(call.mode, option(c, *config, "mode", "VN"));
      }
      HLO_RETURN_IF_ERROR(resultCount(3));
      HLO_RETURN_IF_ERROR(matrixResult(0, "eigenvectors", {n, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "eigenvalues", real, n));
      HLO_RETURN_IF_ERROR(info(2));
      break;
    }
    case LapackRoutine::kGesdd:
    case LapackRoutine::kGesvd: {
      if (call.gpu) {
        HLO_ASSIGN_OR_RETURN(bool full, flag(c, *config, "full_matrices"));
        HLO_ASSIGN_OR_RETURN(bool vectors, flag(c, *config, "compute_uv"));
        HLO_RETURN_IF_ERROR(flag(c, *config, "transposed").status());  // false: true is read above
        call.mode = !vectors ? 'N' : full ? 'A' : 'S';
      } else {
        HLO_ASSIGN_OR_RETURN(call.mode, option(c, *config, "mode", "ASN"));
      }
      HLO_RETURN_IF_ERROR(resultCount(5));
      HLO_RETURN_IF_ERROR(matrixResult(0, "a", {m, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "singular values", real, small));
      if (call.mode == 'N') {
        // U and V^H are not computed; jax still passes arrays for them.
        for (int i : {2, 3})
          if (!results[i].isArray() || results[i].type() != t || results[i].rank() != main.rank())
            return c.bad("result " + std::to_string(i) + " must be a " + std::string(elementTypeName(t)) +
                         " batch of matrices, not " + results[i].toString());
      } else {
        int64_t p = call.mode == 'A' ? m : small, q = call.mode == 'A' ? n : small;
        HLO_RETURN_IF_ERROR(matrixResult(2, "U", {m, p}));
        HLO_RETURN_IF_ERROR(matrixResult(3, "V^H", {q, n}));
      }
      HLO_RETURN_IF_ERROR(info(4));
      break;
    }
    case LapackRoutine::kOrmqr: {
      HLO_ASSIGN_OR_RETURN(call.left, flag(c, *config, "left"));
      HLO_ASSIGN_OR_RETURN(call.transpose, flag(c, *config, "transpose"));
      const Shape& a = instr.operand(0)->shape();
      const Shape& tau = instr.operand(1)->shape();
      if (!tau.isArray() || tau.rank() != main.rank() - 1)
        return c.bad("operand 1 (tau) must be a vector per matrix, not " + tau.toString());
      call.k = tau.dim(tau.rank() - 1);
      int64_t order = call.left ? m : n;
      if (!a.isArray() || a.rank() != main.rank())
        return c.bad("operand 0 (a) must be a batch of matrices like c's, not " + a.toString());
      HLO_RETURN_IF_ERROR(c.expect(a, "operand 0 (a)", t, batch, {order, a.dim(a.rank() - 1)}));
      HLO_RETURN_IF_ERROR(c.columnMajor(a, c.operandLayout(0), "operand 0 (a)"));
      HLO_RETURN_IF_ERROR(vectorOperand(1, "tau", t, call.k));
      if (call.k > order || call.k > a.dim(a.rank() - 1))
        return c.bad(routine + " has " + std::to_string(call.k) + " reflectors, more than a's " +
                     std::to_string(std::min(order, a.dim(a.rank() - 1))) + " columns of order " +
                     std::to_string(order));
      HLO_RETURN_IF_ERROR(resultCount(1));
      HLO_RETURN_IF_ERROR(matrixResult(0, "c", {m, n}));
      break;
    }
    case LapackRoutine::kGeqp3: {
      HLO_RETURN_IF_ERROR(vectorOperand(1, "jpvt", ElementType::kS32, n));
      HLO_RETURN_IF_ERROR(resultCount(3));
      HLO_RETURN_IF_ERROR(matrixResult(0, "R and the reflectors", {m, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "jpvt", ElementType::kS32, n));
      HLO_RETURN_IF_ERROR(vectorResult(2, "tau", t, small));
      break;
    }
    case LapackRoutine::kGehrd: {
      HLO_RETURN_IF_ERROR(square());
      auto low = config->find("low"), high = config->find("high");
      if (low == config->end() || high == config->end()) return c.bad("the backend config needs low and high");
      call.low = static_cast<int64_t>(low->second);
      call.high = static_cast<int64_t>(high->second);
      if (call.low != low->second || call.high != high->second) return c.bad("low and high must be integers");
      bool fits = n == 0 ? call.low == 1 && call.high == 0 : 1 <= call.low && call.low <= call.high && call.high <= n;
      if (!fits)
        return c.bad("low = " + std::to_string(call.low) + " and high = " + std::to_string(call.high) +
                     " must satisfy 1 <= low <= high <= " + std::to_string(n));
      HLO_RETURN_IF_ERROR(resultCount(3));
      HLO_RETURN_IF_ERROR(matrixResult(0, "H and the reflectors", {n, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "tau", t, std::max<int64_t>(n - 1, 0)));
      HLO_RETURN_IF_ERROR(info(2));
      break;
    }
    case LapackRoutine::kSytrd: {
      HLO_RETURN_IF_ERROR(square());
      HLO_ASSIGN_OR_RETURN(call.uplo, uploOf(c, *config, call.gpu));
      int64_t off = std::max<int64_t>(n - 1, 0);
      HLO_RETURN_IF_ERROR(resultCount(5));
      HLO_RETURN_IF_ERROR(matrixResult(0, "the reflectors", {n, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "diagonal", real, n));
      HLO_RETURN_IF_ERROR(vectorResult(2, "off-diagonal", real, off));
      HLO_RETURN_IF_ERROR(vectorResult(3, "tau", t, off));
      HLO_RETURN_IF_ERROR(info(4));
      break;
    }
    case LapackRoutine::kGtsv: {
      HLO_RETURN_IF_ERROR(vectorOperand(0, "dl", t, m));
      HLO_RETURN_IF_ERROR(vectorOperand(1, "d", t, m));
      HLO_RETURN_IF_ERROR(vectorOperand(2, "du", t, m));
      if (call.gpu) {  // cuSPARSE's gtsv2: the solution alone
        HLO_RETURN_IF_ERROR(resultCount(1));
        HLO_RETURN_IF_ERROR(matrixResult(0, "x", {m, n}));
        break;
      }
      HLO_RETURN_IF_ERROR(resultCount(5));
      HLO_RETURN_IF_ERROR(vectorResult(0, "dl", t, m));
      HLO_RETURN_IF_ERROR(vectorResult(1, "d", t, m));
      HLO_RETURN_IF_ERROR(vectorResult(2, "du", t, m));
      HLO_RETURN_IF_ERROR(matrixResult(3, "x", {m, n}));
      HLO_RETURN_IF_ERROR(info(4));
      break;
    }
    case LapackRoutine::kGeev: {
      HLO_RETURN_IF_ERROR(square());
      if (call.gpu) {
        HLO_ASSIGN_OR_RETURN(call.leftVectors, flag(c, *config, "left"));
        HLO_ASSIGN_OR_RETURN(call.rightVectors, flag(c, *config, "right"));
      } else {
        HLO_ASSIGN_OR_RETURN(char leftMode, option(c, *config, "compute_left", "NV"));
        HLO_ASSIGN_OR_RETURN(char rightMode, option(c, *config, "compute_right", "NV"));
        call.leftVectors = leftMode == 'V';
        call.rightVectors = rightMode == 'V';
      }
      ElementType complex = isComplex(t) ? t : (t == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64);
      if (call.packedVectors) {
        // cuSOLVER's geev: (a, w, vl, vr, info), vectors of a's type (a real
        // pair's as the real and imaginary parts in two columns).
        HLO_RETURN_IF_ERROR(resultCount(5));
        HLO_RETURN_IF_ERROR(matrixResult(0, "a", {n, n}));
        HLO_RETURN_IF_ERROR(vectorResult(1, "eigenvalues", complex, n));
        HLO_RETURN_IF_ERROR(matrixResult(2, "left eigenvectors", {n, n}));
        HLO_RETURN_IF_ERROR(matrixResult(3, "right eigenvectors", {n, n}));
        HLO_RETURN_IF_ERROR(info(4));
        break;
      }
      auto vectors = [&](int i, const std::string& what) -> Status {
        std::string name = "result " + std::to_string(i) + " (" + what + ")";
        HLO_RETURN_IF_ERROR(c.expect(results[i], name, complex, batch, {n, n}));
        return c.columnMajor(results[i], results[i].layout(), name);
      };
      if (isComplex(t)) {
        HLO_RETURN_IF_ERROR(resultCount(4));
        HLO_RETURN_IF_ERROR(vectorResult(0, "eigenvalues", t, n));
        HLO_RETURN_IF_ERROR(vectors(1, "left eigenvectors"));
        HLO_RETURN_IF_ERROR(vectors(2, "right eigenvectors"));
        HLO_RETURN_IF_ERROR(info(3));
      } else {
        HLO_RETURN_IF_ERROR(resultCount(5));
        HLO_RETURN_IF_ERROR(vectorResult(0, "eigenvalues' real parts", t, n));
        HLO_RETURN_IF_ERROR(vectorResult(1, "eigenvalues' imaginary parts", t, n));
        HLO_RETURN_IF_ERROR(vectors(2, "left eigenvectors"));
        HLO_RETURN_IF_ERROR(vectors(3, "right eigenvectors"));
        HLO_RETURN_IF_ERROR(info(4));
      }
      break;
    }
    case LapackRoutine::kGesvdj: {
      HLO_ASSIGN_OR_RETURN(bool full, flag(c, *config, "full_matrices"));
      HLO_ASSIGN_OR_RETURN(bool vectors, flag(c, *config, "compute_uv"));
      call.mode = !vectors ? 'N' : full ? 'A' : 'S';
      HLO_RETURN_IF_ERROR(resultCount(5));
      HLO_RETURN_IF_ERROR(matrixResult(0, "a", {m, n}));
      HLO_RETURN_IF_ERROR(vectorResult(1, "singular values", real, small));
      int64_t p = full ? m : small, q = full ? n : small;
      if (vectors) {
        HLO_RETURN_IF_ERROR(matrixResult(2, "U", {m, p}));
        HLO_RETURN_IF_ERROR(matrixResult(3, "V", {n, q}));
      } else {
        // Not computed; jax passes arrays for them all the same.
        HLO_RETURN_IF_ERROR(c.expect(results[2], "result 2 (U)", t, batch, {m, p}));
        HLO_RETURN_IF_ERROR(c.expect(results[3], "result 3 (V)", t, batch, {n, q}));
      }
      HLO_RETURN_IF_ERROR(info(4));
      break;
    }
    case LapackRoutine::kPivotsToPermutation:
    case LapackRoutine::kSyrk:
    case LapackRoutine::kCsrlsvqr: break;  // checked above
    case LapackRoutine::kGees: {
      HLO_RETURN_IF_ERROR(square());
      HLO_ASSIGN_OR_RETURN(call.mode, option(c, *config, "mode", "NV"));
      HLO_ASSIGN_OR_RETURN(char sort, option(c, *config, "sort", "NS"));
      if (sort != 'N')
        return c.bad("sort = 'S' needs a function selecting the eigenvalues, which the call cannot carry (jaxlib "
                     "refuses it too)");
      bool complex = isComplex(t);
      HLO_RETURN_IF_ERROR(resultCount(complex ? 5 : 6));
      HLO_RETURN_IF_ERROR(matrixResult(0, "the Schur form", {n, n}));
      HLO_RETURN_IF_ERROR(matrixResult(1, "the Schur vectors", {n, n}));
      int next = 2;
      if (complex) {
        HLO_RETURN_IF_ERROR(vectorResult(next++, "eigenvalues", t, n));
      } else {
        HLO_RETURN_IF_ERROR(vectorResult(next++, "eigenvalues' real parts", t, n));
        HLO_RETURN_IF_ERROR(vectorResult(next++, "eigenvalues' imaginary parts", t, n));
      }
      HLO_RETURN_IF_ERROR(c.expect(results[next], "result " + std::to_string(next) + " (selected)",
                                   ElementType::kS32, batch, {}));
      HLO_RETURN_IF_ERROR(info(next + 1));
      break;
    }
  }
  return call;
}

StatusOr<std::vector<int64_t>> compressedRowsOf(std::span<const int32_t> indices, std::span<const int32_t> indptr,
                                                int64_t n) {
  auto bad = [](const std::string& why) { return errorStatus("csrlsvqr: " + why); };
  int64_t nnz = static_cast<int64_t>(indices.size());
  if (indptr.empty() || indptr[0] != 0) return bad("indptr must start at 0");
  if (indptr.back() != nnz)
    return bad("indptr must end at the element count " + std::to_string(nnz) + ", not " + std::to_string(indptr.back()));
  std::vector<int64_t> rows(static_cast<size_t>(nnz));
  for (int64_t r = 0; r < n; ++r) {
    if (indptr[r + 1] < indptr[r]) return bad("indptr decreases at row " + std::to_string(r));
    for (int64_t i = indptr[r]; i < indptr[r + 1]; ++i) {
      if (indices[i] < 0 || indices[i] >= n)
        return bad("column " + std::to_string(indices[i]) + " of element " + std::to_string(i) + " is outside [0, " +
                   std::to_string(n) + ")");
      rows[static_cast<size_t>(i)] = r;
    }
  }
  return rows;
}

}  // namespace hlo
