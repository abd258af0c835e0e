// ByteBuffer: the element storage of a Literal.
//
// Up to 16 bytes live inside the object, so a scalar (what a reducer or a
// sort comparator computes once per element, millions of times) costs no
// heap allocation. Larger buffers come from calloc, which hands out fresh
// pages already zeroed instead of writing the zeros itself, and start on a
// 64-byte boundary (a cache line, and the width of an AVX-512 vector), so a
// compiled kernel's vector loads never straddle two lines. Blocks of 4 MiB
// or more are advised as transparent huge pages (where Linux has them): a
// 2 MiB page needs one TLB entry where 4 KiB pages need 512, and the
// memory-bound kernels of bench/jit_bench.cc run 5-20% faster on them.
//
// A buffer may also borrow memory it does not own (assignBorrowed): the CPU
// runtime's values in its per-execution arena. Copying a borrowing buffer
// copies the bytes into memory of its own; moving it moves the borrow.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace hlo {

// Advises the whole 2 MiB pages inside [block, block + bytes) as huge pages
// when the block has 4 MiB or more (smaller blocks would gain a page or
// none); a hint, nothing when the system has none (byte_buffer.cc).
void adviseHugePages(void* block, size_t bytes);

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
      allocate(n, true);
    } else {
      std::memset(inline_, 0, sizeof inline_);
    }
    size_ = n;
  }

  // `n` bytes of unspecified value, for a buffer about to be overwritten whole.
  void assignUninitialized(size_t n) {
    release();
    if (n > kInline) allocate(n, false);
    size_ = n;
  }

  // `n` bytes at `data`, owned by someone else, who keeps them valid for as
  // long as this buffer (or one it is moved into) is used.
  void assignBorrowed(uint8_t* data, size_t n) {
    release();
    heap_ = n > 0 ? data : nullptr;
    size_ = n;
  }
  // Whether the bytes are borrowed (see assignBorrowed).
  bool borrowed() const { return heap_ && !block_; }

  uint8_t* data() { return heap_ ? heap_ : inline_; }
  const uint8_t* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }

  bool operator==(const ByteBuffer& other) const {
    return size_ == other.size_ && std::memcmp(data(), other.data(), size_) == 0;
  }

 private:
  static constexpr size_t kInline = 16;

  static constexpr size_t kAlign = 64;

  // heap_ = n bytes at a 64-byte boundary inside a block from calloc or
  // malloc (block_, which free() takes).
  void allocate(size_t n, bool zeroed) {
    block_ = zeroed ? std::calloc(n + kAlign, 1) : std::malloc(n + kAlign);
    if (!block_) throw std::bad_alloc();
    // Before the pages are first touched (calloc's fresh pages are not).
    adviseHugePages(block_, n + kAlign);
    uintptr_t at = (reinterpret_cast<uintptr_t>(block_) + kAlign - 1) & ~uintptr_t{kAlign - 1};
    heap_ = reinterpret_cast<uint8_t*>(at);
  }
  void release() {
    std::free(block_);
    block_ = nullptr;
    heap_ = nullptr;
    size_ = 0;
  }
  void copyFrom(const ByteBuffer& other) {
    if (other.heap_) {
      allocate(other.size_, false);
      std::memcpy(heap_, other.heap_, other.size_);
    } else {
      std::memcpy(inline_, other.inline_, sizeof inline_);
    }
    size_ = other.size_;
  }
  void takeFrom(ByteBuffer& other) {
    block_ = std::exchange(other.block_, nullptr);
    heap_ = std::exchange(other.heap_, nullptr);
    if (!heap_) std::memcpy(inline_, other.inline_, sizeof inline_);
    size_ = std::exchange(other.size_, 0);
  }

  size_t size_ = 0;
  uint8_t* heap_ = nullptr;  // null: the bytes are in inline_
  void* block_ = nullptr;    // what heap_ was carved from; null when borrowed
  alignas(16) uint8_t inline_[kInline] = {};
};

}  // namespace hlo
