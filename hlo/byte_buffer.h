// ByteBuffer: the element storage of a Literal.
//
// Up to 16 bytes live inside the object, so a scalar (what a reducer or a
// sort comparator computes once per element, millions of times) costs no
// heap allocation. Larger buffers come from calloc, which hands out fresh
// pages already zeroed instead of writing the zeros itself.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace hlo {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer& other) { copyFrom(other); }
  ByteBuffer(ByteBuffer&& other) noexcept { takeFrom(other); }
  ByteBuffer& operator=(const ByteBuffer& other) {
    if (this != &other) {
      release();
      copyFrom(other);
    }
    return *this;
  }
  ByteBuffer& operator=(ByteBuffer&& other) noexcept {
    if (this != &other) {
      release();
      takeFrom(other);
    }
    return *this;
  }
  ~ByteBuffer() { release(); }

  // `n` zero bytes, replacing what was there.
  void assignZeros(size_t n) {
    release();
    if (n > kInline) {
      heap_ = static_cast<uint8_t*>(std::calloc(n, 1));
      if (!heap_) throw std::bad_alloc();
    } else {
      std::memset(inline_, 0, sizeof inline_);
    }
    size_ = n;
  }

  // `n` bytes of unspecified value, for a buffer about to be overwritten whole.
  void assignUninitialized(size_t n) {
    release();
    if (n > kInline) {
      heap_ = static_cast<uint8_t*>(std::malloc(n));
      if (!heap_) throw std::bad_alloc();
    }
    size_ = n;
  }

  uint8_t* data() { return heap_ ? heap_ : inline_; }
  const uint8_t* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }

  bool operator==(const ByteBuffer& other) const {
    return size_ == other.size_ && std::memcmp(data(), other.data(), size_) == 0;
  }

 private:
  static constexpr size_t kInline = 16;

  void release() {
    std::free(heap_);
    heap_ = nullptr;
    size_ = 0;
  }
  void copyFrom(const ByteBuffer& other) {
    if (other.heap_) {
      heap_ = static_cast<uint8_t*>(std::malloc(other.size_));
      if (!heap_) throw std::bad_alloc();
      std::memcpy(heap_, other.heap_, other.size_);
    } else {
      std::memcpy(inline_, other.inline_, sizeof inline_);
    }
    size_ = other.size_;
  }
  void takeFrom(ByteBuffer& other) {
    heap_ = std::exchange(other.heap_, nullptr);
    if (!heap_) std::memcpy(inline_, other.inline_, sizeof inline_);
    size_ = std::exchange(other.size_, 0);
  }

  size_t size_ = 0;
  uint8_t* heap_ = nullptr;  // null: the bytes are in inline_
  alignas(16) uint8_t inline_[kInline] = {};
};

}  // namespace hlo
