// Flat records of bytes: little-endian integers and length-prefixed strings,
// written in order and read back in the same order. The reader checks every
// read against the bytes left and remembers the first failure, so a caller
// reads a whole record and then asks once whether it was whole.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace hlo {

class ByteWriter {
 public:
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(v >> (8 * i)));
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void boolean(bool v) { out_.push_back(v ? 1 : 0); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void ints(const std::vector<int64_t>& v) {
    u64(v.size());
    for (int64_t x : v) i64(x);
  }
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : in_(bytes) {}
  uint64_t u64() {
    if (!need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[at_ + i])) << (8 * i);
    at_ += 8;
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  double f64() {
    uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  bool boolean() {
    if (!need(1)) return false;
    return in_[at_++] != 0;
  }
  std::string str() {
    uint64_t n = u64();
    if (!need(n)) return {};
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  // A count of items that each take at least `minBytes` bytes: one larger
  // than the bytes left could hold is a failure (and reads as 0), so a
  // damaged count never makes the caller allocate or loop without end.
  uint64_t count(uint64_t minBytes = 1) {
    uint64_t n = u64();
    if (ok_ && minBytes > 0 && n > (in_.size() - at_) / minBytes) ok_ = false;
    return ok_ ? n : 0;
  }
  std::vector<int64_t> ints() {
    std::vector<int64_t> v(count(8));
    for (int64_t& x : v) x = i64();
    return v;
  }
  // Marks the record bad (a value the caller finds out of range).
  void fail() { ok_ = false; }
  bool ok() const { return ok_; }
  bool atEnd() const { return at_ == in_.size(); }
  size_t offset() const { return at_; }

 private:
  bool need(uint64_t n) {
    if (ok_ && n <= in_.size() - at_) return true;
    ok_ = false;
    return false;
  }
  std::string_view in_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace hlo
