// NameTable: a string_view -> pointer map for the parser's name lookups.
//
// Every operand of every instruction is looked up by name, so this is the
// parser's hottest map. std::unordered_map chases a node per lookup (and
// then the key's characters), three cache misses for each; this table keeps
// the hash next to the key in one flat array (open addressing, linear
// probing, at most half full), so a lookup usually touches one slot. Keys
// are views: the caller keeps the characters alive (they live in the input
// text or in the instructions' names).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace hlo {

template <typename T>
class NameTable {
 public:
  // The value stored for `name`, or nullptr.
  T* find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    uint64_t h = hash(name);
    for (size_t i = h & mask(); slots_[i].value; i = (i + 1) & mask())
      if (slots_[i].hash == h && slots_[i].name == name) return slots_[i].value;
    return nullptr;
  }

  // Adds name -> value (value not null); false, changing nothing, if the
  // name is already there.
  bool insert(std::string_view name, T* value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    uint64_t h = hash(name);
    size_t i = h & mask();
    for (; slots_[i].value; i = (i + 1) & mask())
      if (slots_[i].hash == h && slots_[i].name == name) return false;
    slots_[i] = {h, name, value};
    ++size_;
    return true;
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    std::string_view name;
    T* value = nullptr;  // null marks an empty slot
  };

  size_t mask() const { return slots_.size() - 1; }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    for (const Slot& s : old) {
      if (!s.value) continue;
      size_t i = s.hash & mask();
      while (slots_[i].value) i = (i + 1) & mask();
      slots_[i] = s;
    }
  }

  // 8 bytes at a time, mixed by multiplication (names are short; this is
  // not meant to resist adversarial input, only to spread real names).
  static uint64_t hash(std::string_view s) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdull;
      h ^= h >> 32;
    }
    uint64_t tail = 0;
    if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);  // an empty view may have no data
    h = (h ^ tail) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace hlo
