// Small helpers shared by the command-line programs (tools/, conformance/,
// bench/): reading input files, writing output files, reading counts from flags.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

namespace hlo {

// Reads a whole file, or standard input for "-"; nullopt if unreadable.
inline std::optional<std::string> readInput(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes `bytes` to `path` (binary), replacing it; false if that fails.
inline bool writeOutput(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  return static_cast<bool>(out);
}

// A non-negative decimal integer of at most 18 digits ("0", "4096").
inline std::optional<int64_t> parseCount(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// A byte count: "4096", "64K", "512M", "8G" (powers of 1024, either case).
inline std::optional<int64_t> parseByteCount(std::string text) {
  int shift = 0;
  if (!text.empty()) {
    char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    if (last == 'K') shift = 10;
    if (last == 'M') shift = 20;
    if (last == 'G') shift = 30;
    if (shift) text.pop_back();
  }
  std::optional<int64_t> v = parseCount(text);
  if (!v || *v > (int64_t{1} << (62 - shift))) return std::nullopt;
  return *v << shift;
}

}  // namespace hlo
