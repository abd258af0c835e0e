// reduce-window over random windows (size, stride, padding, base and window
// dilation, up to rank 3) against a direct reading of the operation
// semantics written here: output element o sums the input elements at
// positions pos = o*stride + w*window_dilation - pad_low that fall on a
// (base-dilated) input element.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "interp/evaluator.h"
#include "parser/parser.h"

namespace hlo {
namespace {

struct Dim {
  int64_t in, size, stride, padLow, padHigh, base, dilation;
  int64_t out() const {
    int64_t padded = (in - 1) * base + 1 + padLow + padHigh;
    int64_t window = (size - 1) * dilation + 1;
    return padded < window ? 0 : (padded - window) / stride + 1;
  }
};

std::string join(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

TEST(ReduceWindowTest, RandomWindowsMatchTheSemantics) {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    int rank = pick(1, 3);
    std::vector<Dim> dims;
    for (int d = 0; d < rank; ++d)
      dims.push_back({pick(1, 6), pick(1, 4), pick(1, 3), pick(0, 3), pick(0, 3), pick(1, 3), pick(1, 3)});
    std::vector<int64_t> in, out;
    bool empty = false;
    for (const Dim& d : dims) {
      in.push_back(d.in);
      out.push_back(d.out());
      empty |= d.out() == 0;
    }
    if (empty) continue;
    std::vector<int64_t> sizes, strides, bases, dilations;
    std::vector<std::string> pads;
    for (const Dim& d : dims) {
      sizes.push_back(d.size);
      strides.push_back(d.stride);
      bases.push_back(d.base);
      dilations.push_back(d.dilation);
      pads.push_back(std::to_string(d.padLow) + "_" + std::to_string(d.padHigh));
    }
    std::string padText;
    for (size_t i = 0; i < pads.size(); ++i) padText += (i ? "x" : "") + pads[i];
    std::string text = "HloModule m\nadd {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
                       " ROOT s = s32[] add(a, b)\n}\nENTRY e {\n x = s32[" + join(in, ",") +
                       "] parameter(0)\n init = s32[] constant(1000)\n ROOT r = s32[" + join(out, ",") +
                       "] reduce-window(x, init), window={size=" + join(sizes, "x") +
                       " stride=" + join(strides, "x") + " pad=" + padText + " lhs_dilate=" +
                       join(bases, "x") + " rhs_dilate=" + join(dilations, "x") + "}, to_apply=add\n}\n";
    StatusOr<std::unique_ptr<Module>> m = parseModule(text);
    ASSERT_TRUE(m.ok()) << m.status().message() << "\n" << text;
    // Input element i (row-major) holds i*i % 17 - 8.
    int64_t inCount = 1, outCount = 1;
    for (int64_t n : in) inCount *= n;
    for (int64_t n : out) outCount *= n;
    std::vector<int64_t> values(inCount);
    for (int64_t i = 0; i < inCount; ++i) values[i] = i * i % 17 - 8;
    Literal x(Shape(ElementType::kS32, in));
    for (int64_t i = 0; i < inCount; ++i) x.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    StatusOr<Literal> got = interp::evaluate(**m, std::span<const Literal>(&x, 1));
    ASSERT_TRUE(got.ok()) << got.status().message() << "\n" << text;
    // The reference: every output index, every window position.
    for (int64_t o = 0; o < outCount; ++o) {
      std::vector<int64_t> oi(rank);
      for (int d = rank - 1, r = o; d >= 0; --d) {
        oi[d] = r % out[d];
        r /= out[d];
      }
      int64_t sum = 1000;
      std::vector<int64_t> w(rank, 0);
      while (true) {
        int64_t offset = 0;
        bool inside = true;
        for (int d = 0; d < rank; ++d) {
          int64_t pos = oi[d] * dims[d].stride + w[d] * dims[d].dilation - dims[d].padLow;
          if (pos < 0 || pos % dims[d].base != 0 || pos / dims[d].base >= in[d]) inside = false;
          offset = offset * in[d] + (inside ? pos / dims[d].base : 0);
        }
        if (inside) sum += values[offset];
        int d = rank - 1;
        while (d >= 0 && ++w[d] == dims[d].size) w[d--] = 0;
        if (d < 0) break;
      }
      ASSERT_EQ(got->data<int32_t>()[o], sum) << "output " << o << " of\n" << text;
    }
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace hlo
