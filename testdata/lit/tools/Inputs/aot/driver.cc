// Runs any model hlo-aot compiled, through the runtime's C interface: reads
// IN/arg<i>.npy for each parameter, writes OUT/result.npy (or result.<k>.npy
// for each element of a tuple result), as testdata/jax's .npz members are
// named. Compile with -include MODEL.h -DIMAGE=hlo_aot_<name>.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Type {
  const char* prefix;  // in HLO's shape text
  const char* descr;   // numpy's
  size_t bytes;
};
constexpr Type kTypes[] = {{"f32[", "<f4", 4}, {"f64[", "<f8", 8}, {"s32[", "<i4", 4},
                           {"s64[", "<i8", 8}, {"u8[", "|u1", 1},  {"pred[", "|b1", 1}};

const Type* typeOf(const std::string& shape) {
  for (const Type& t : kTypes)
    if (shape.rfind(t.prefix, 0) == 0) return &t;
  return nullptr;
}

// The dimensions of "f32[2,3]".
std::vector<long> dimsOf(const std::string& shape) {
  std::vector<long> dims;
  std::string inner = shape.substr(shape.find('[') + 1);
  inner = inner.substr(0, inner.find(']'));
  std::stringstream ss(inner);
  for (std::string d; std::getline(ss, d, ',');) dims.push_back(std::stol(d));
  return dims;
}

// The data of a .npy file (its header skipped: the driver trusts the test).
bool readNpy(const std::string& path, std::vector<char>& data) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return false;
  size_t headerLength = bytes[6] == 1 ? static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8
                                      : 0;
  size_t start = bytes[6] == 1 ? 10 + headerLength : 0;
  if (start == 0 || start > bytes.size()) return false;
  data.assign(bytes.begin() + static_cast<long>(start), bytes.end());
  return true;
}

bool writeNpy(const std::string& path, const Type& type, const std::vector<long>& dims, const char* data,
              size_t size) {
  std::string shape = "(";
  for (long d : dims) shape += std::to_string(d) + ",";
  shape += ")";
  std::string header = "{'descr': '" + std::string(type.descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out << header;
  out.write(data, static_cast<long>(size));
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: driver IN_DIR OUT_DIR\n");
    return 2;
  }
  char* error = nullptr;
  HloRtModel* model = hlo_rt_load(&IMAGE, 1, &error);
  if (!model) {
    std::fprintf(stderr, "load: %s\n", error);
    return 1;
  }
  std::vector<std::vector<char>> inputs(hlo_rt_parameter_count(model));
  std::vector<const void*> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string path = std::string(argv[1]) + "/arg" + std::to_string(i) + ".npy";
    if (!readNpy(path, inputs[i])) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 1;
    }
    args.push_back(inputs[i].data());
  }
  const int results = hlo_rt_result_count(model);
  std::vector<std::vector<char>> outputs(results);
  std::vector<void*> resultPointers;
  for (int k = 0; k < results; ++k) {
    std::string shape = hlo_rt_result_shape(model, k);
    const Type* type = typeOf(shape);
    if (!type) {
      std::fprintf(stderr, "result %d: the driver writes no %s\n", k, shape.c_str());
      return 1;
    }
    size_t elements = 1;
    for (long d : dimsOf(shape)) elements *= static_cast<size_t>(d);
    outputs[k].resize(elements * type->bytes + 1);
    resultPointers.push_back(outputs[k].data());
  }
  if (hlo_rt_run(model, args.data(), resultPointers.data(), &error) != 0) {
    std::fprintf(stderr, "run: %s\n", error);
    hlo_rt_free_error(error);
    return 1;
  }
  for (int k = 0; k < results; ++k) {
    std::string shape = hlo_rt_result_shape(model, k);
    std::string name = results == 1 ? "result" : "result." + std::to_string(k);
    if (!writeNpy(std::string(argv[2]) + "/" + name + ".npy", *typeOf(shape), dimsOf(shape), outputs[k].data(),
                  outputs[k].size() - 1))
      return 1;
    std::printf("%s: %s\n", name.c_str(), shape.c_str());
  }
  hlo_rt_free(model);
  return 0;
}
