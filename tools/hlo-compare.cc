// hlo-compare: compares two result files (.npz or .npy) array by array, with
// the conformance harness's tolerance per element type (conformance/compare.h).
//
//   hlo-compare ACTUAL.npz EXPECTED.npz
//
// The .npz members are matched by name ('result', 'result.0', ... as
// `hlo-run --output` writes them); both files must hold the same names. For
// each array it prints its max absolute and relative error, and for one that
// differs the number of mismatches and the first mismatching index. Arrays
// numpy.save stored as raw bytes (bfloat16, the float8 types) take the other
// file's type for that array. Exit status: 0 all equal within tolerance, 1 a
// mismatch or an unreadable file, 2 bad usage.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conformance/compare.h"
#include "hlo/npy.h"
#include "hlo/file_io.h"

namespace {

constexpr const char* kUsage =
    "usage: hlo-compare [options] ACTUAL.npz|.npy EXPECTED.npz|.npy\n"
    "  compares the arrays of two result files by member name, with the tolerance of\n"
    "  each element type that the conformance harness uses\n"
    "  --atol=X, --rtol=X   use |actual - expected| <= atol + rtol * |expected| for\n"
    "                       every float array instead\n"
    "  --help               show this help\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "hlo-compare: %s\n%s", message.c_str(), kUsage);
  return 2;
}

// The arrays of a file by name; a .npy file holds one array named 'result'.
std::optional<std::vector<hlo::NpzMember>> readArrays(const std::string& path) {
  std::optional<std::string> bytes = hlo::readInput(path);
  if (!bytes) {
    std::fprintf(stderr, "%s: error: cannot read file\n", path.c_str());
    return std::nullopt;
  }
  if (hlo::looksLikeZip(*bytes)) {
    auto members = hlo::readNpz(*bytes);
    if (!members.ok()) {
      std::fprintf(stderr, "%s: error: %s\n", path.c_str(), members.status().message().c_str());
      return std::nullopt;
    }
    return std::move(members).value();
  }
  auto array = hlo::readNpy(*bytes);
  if (!array.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", path.c_str(), array.status().message().c_str());
    return std::nullopt;
  }
  std::vector<hlo::NpzMember> one;
  one.push_back({"result", std::move(array).value()});
  return one;
}

std::optional<double> parseDouble(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !(v >= 0)) return std::nullopt;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  std::optional<double> atol, rtol;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg.rfind("--atol=", 0) == 0 || arg.rfind("--rtol=", 0) == 0) {
      std::optional<double> v = parseDouble(arg.substr(7));
      if (!v) return usageError(arg + ": expected a non-negative number");
      (arg[2] == 'a' ? atol : rtol) = v;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') return usageError("unknown option '" + arg + "'");
    files.push_back(arg);
  }
  if (files.size() != 2) return usageError("expected two files, ACTUAL and EXPECTED");
  auto actual = readArrays(files[0]);
  auto expected = readArrays(files[1]);
  if (!actual || !expected) return 1;

  std::map<std::string, hlo::NpyArray*> actualByName;
  for (hlo::NpzMember& m : *actual) actualByName[m.name] = &m.array;
  bool allEqual = true;
  std::map<std::string, bool> seen;
  for (hlo::NpzMember& e : *expected) {
    seen[e.name] = true;
    auto it = actualByName.find(e.name);
    if (it == actualByName.end()) {
      std::printf("%s: missing from %s\n", e.name.c_str(), files[0].c_str());
      allEqual = false;
      continue;
    }
    hlo::NpyArray& a = *it->second;
    // Raw bytes take the type of the other side (when that one knows it).
    if (a.untyped && !e.array.untyped) {
      hlo::Status s = hlo::retypeRaw(a, e.array.value.type());
      if (!s.ok()) std::printf("%s: %s\n", e.name.c_str(), s.message().c_str());
    } else if (e.array.untyped && !a.untyped) {
      hlo::Status s = hlo::retypeRaw(e.array, a.value.type());
      if (!s.ok()) std::printf("%s: %s\n", e.name.c_str(), s.message().c_str());
    }
    hlo::ElementType type = e.array.value.type();
    hlo::Tolerance tolerance = hlo::defaultTolerance(type);
    if (hlo::isFloat(type) || hlo::isComplex(type)) {
      if (atol) tolerance.absolute = *atol;
      if (rtol) tolerance.relative = *rtol;
    }
    hlo::Comparison c = hlo::compareLiterals(a.value, e.array.value, tolerance);
    std::string shape = e.array.value.shape().toString(false);
    if (c.equal) {
      std::printf("%s: ok, %s, max abs error %.3g, max rel error %.3g\n", e.name.c_str(), shape.c_str(),
                  c.maxAbsError, c.maxRelError);
      continue;
    }
    allEqual = false;
    std::printf("%s: MISMATCH, %s, %lld elements differ, first %s; max abs error %.3g, max rel error %.3g "
                "(of the elements within tolerance; atol %g, rtol %g)\n",
                e.name.c_str(), shape.c_str(), static_cast<long long>(c.mismatches), c.firstMismatch.c_str(),
                c.maxAbsError, c.maxRelError, tolerance.absolute, tolerance.relative);
  }
  for (const hlo::NpzMember& m : *actual) {
    if (seen.count(m.name)) continue;
    std::printf("%s: not in %s\n", m.name.c_str(), files[1].c_str());
    allEqual = false;
  }
  std::printf("%s\n", allEqual ? "equal" : "NOT EQUAL");
  return allEqual ? 0 : 1;
}
