// .npz reading and writing: zip archives of .npy members (see npy.h).
#include <zlib.h>

#include <algorithm>
#include <set>

#include "hlo/npy.h"

namespace hlo {
namespace {

uint16_t le16(const char* p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | static_cast<uint8_t>(p[1]) << 8);
}
uint32_t le32(const char* p) { return le16(p) | static_cast<uint32_t>(le16(p + 2)) << 16; }
uint64_t le64(const char* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }
void put16(std::string& out, uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8 & 0xff);
}
void put32(std::string& out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

StatusOr<std::string> inflateRaw(std::string_view in, uint64_t outSize) {
  std::string out(outSize, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return errorStatus("zlib: cannot start inflating");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&zs, Z_FINISH);
  uint64_t produced = zs.total_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || produced != outSize)
    return errorStatus("corrupt deflated data");
  return out;
}

StatusOr<std::string> deflateRaw(const std::string& in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return errorStatus("zlib: cannot start deflating");
  std::string out(deflateBound(&zs, static_cast<uLong>(in.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return errorStatus("zlib: deflating failed");
  return out;
}

uint32_t crc(std::string_view data) {
  return static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

}  // namespace

bool looksLikeZip(std::string_view bytes) { return bytes.substr(0, 4) == "PK\x03\x04"; }

StatusOr<std::vector<NpzMember>> readNpz(std::string_view bytes) {
  const size_t kEndSize = 22, kCentralSize = 46, kLocalSize = 30;
  if (!looksLikeZip(bytes) || bytes.size() < kEndSize)
    return errorStatus("not an .npz file (not a zip archive)");
  // The end-of-central-directory record: the last "PK\5\6" (a comment may follow it).
  size_t end = std::string_view::npos;
  size_t lowest = bytes.size() > kEndSize + 0xffff ? bytes.size() - kEndSize - 0xffff : 0;
  for (size_t p = bytes.size() - kEndSize + 1; p-- > lowest;) {
    if (le32(bytes.data() + p) == 0x06054b50) {
      end = p;
      break;
    }
  }
  if (end == std::string_view::npos) return errorStatus("corrupt .npz: no zip end-of-directory record");
  const char* e = bytes.data() + end;
  uint32_t entries = le16(e + 10), dirSize = le32(e + 12), dirOffset = le32(e + 16);
  bool zip64Locator = end >= 20 && le32(bytes.data() + end - 20) == 0x07064b50;
  if (entries == 0xffff || dirSize == 0xffffffff || dirOffset == 0xffffffff || zip64Locator)
    return errorStatus("zip64 archives (over 65535 members or 4 GiB) are not supported");
  if (static_cast<uint64_t>(dirOffset) + dirSize > end)
    return errorStatus("corrupt .npz: central directory out of range");
  std::vector<NpzMember> members;
  std::set<std::string> names;
  size_t q = dirOffset;
  for (uint32_t k = 0; k < entries; ++k) {
    if (q + kCentralSize > end || le32(bytes.data() + q) != 0x02014b50)
      return errorStatus("corrupt .npz: bad central directory entry " + std::to_string(k));
    const char* c = bytes.data() + q;
    uint16_t flags = le16(c + 8), method = le16(c + 10);
    uint32_t wantCrc = le32(c + 16);
    uint64_t packed = le32(c + 20), size = le32(c + 24), offset = le32(c + 42);
    size_t nameLen = le16(c + 28), extraLen = le16(c + 30), commentLen = le16(c + 32);
    if (q + kCentralSize + nameLen + extraLen + commentLen > end)
      return errorStatus("corrupt .npz: bad central directory entry " + std::to_string(k));
    std::string name(c + kCentralSize, nameLen);
    // Sizes that do not fit 32 bits are in the zip64 extra field (id 1), in this order.
    std::string_view extra(c + kCentralSize + nameLen, extraLen);
    while (extra.size() >= 4) {
      uint16_t id = le16(extra.data()), len = le16(extra.data() + 2);
      std::string_view body = extra.substr(4, len);
      if (id == 1) {
        for (uint64_t* field : {&size, &packed, &offset}) {
          if (*field != 0xffffffff) continue;
          if (body.size() < 8) return errorStatus("corrupt .npz: short zip64 field for '" + name + "'");
          *field = le64(body.data());
          body.remove_prefix(8);
        }
      }
      extra.remove_prefix(std::min(extra.size(), size_t{4} + len));
    }
    q += kCentralSize + nameLen + extraLen + commentLen;
    std::string where = "member '" + name + "': ";
    if (flags & 1) return errorStatus(where + "encrypted members are not supported");
    if (offset + kLocalSize > bytes.size() || le32(bytes.data() + offset) != 0x04034b50)
      return errorStatus(where + "corrupt local header");
    uint64_t dataStart = offset + kLocalSize + le16(bytes.data() + offset + 26) +
                         le16(bytes.data() + offset + 28);
    if (dataStart > bytes.size() || packed > bytes.size() - dataStart)
      return errorStatus(where + "data out of range");
    std::string_view raw = bytes.substr(dataStart, packed);
    std::string inflated;
    if (method == 0) {
      if (packed != size) return errorStatus(where + "stored sizes disagree");
    } else if (method == 8) {
      // Deflate never expands more than 1032 times; a larger size is corrupt.
      if (size > packed * 1032 + 1024) return errorStatus(where + "implausible uncompressed size");
      auto out = inflateRaw(raw, size);
      if (!out.ok()) return errorStatus(where + out.status().message());
      inflated = std::move(out).value();
      raw = inflated;
    } else {
      return errorStatus(where + "compression method " + std::to_string(method) +
                         " is not supported (only stored and deflated)");
    }
    if (crc(raw) != wantCrc) return errorStatus(where + "CRC mismatch");
    if (name.size() < 5 || name.substr(name.size() - 4) != ".npy")
      return errorStatus(where + "not an .npy member");
    name.resize(name.size() - 4);
    if (!names.insert(name).second) return errorStatus(where + "appears twice");
    auto array = readNpy(raw);
    if (!array.ok()) return errorStatus(where + array.status().message());
    members.push_back({name, std::move(array).value()});
  }
  return members;
}

StatusOr<std::string> writeNpz(const std::vector<std::pair<std::string, const Literal*>>& arrays,
                               bool compress) {
  if (arrays.size() >= 0xffff) return errorStatus("too many arrays for a zip without zip64");
  const uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, 00:00:00
  std::string out, directory;
  std::set<std::string> names;
  for (const auto& [name, literal] : arrays) {
    if (name.empty() || !names.insert(name).second)
      return errorStatus("array name '" + name + "' is empty or used twice");
    std::string member = name + ".npy";
    HLO_ASSIGN_OR_RETURN(std::string npy, writeNpy(*literal));
    std::string packed;
    if (compress) {
      if (npy.size() >= 0xffffffff) return errorStatus("array '" + name + "' is over 4 GiB");
      HLO_ASSIGN_OR_RETURN(packed, deflateRaw(npy));
    }
    const std::string& data = compress ? packed : npy;
    if (npy.size() >= 0xffffffff || out.size() + data.size() >= 0xffffffff)
      return errorStatus("the archive would pass 4 GiB, which needs zip64 (not supported)");
    uint32_t offset = static_cast<uint32_t>(out.size());
    uint32_t checksum = crc(npy);
    // Fields shared by the local header and the central directory entry.
    std::string common;
    put16(common, 20);  // version needed: 2.0
    put16(common, 0);   // flags
    put16(common, compress ? 8 : 0);
    put16(common, 0);   // time
    put16(common, kDosDate);
    put32(common, checksum);
    put32(common, static_cast<uint32_t>(data.size()));
    put32(common, static_cast<uint32_t>(npy.size()));
    put16(common, static_cast<uint32_t>(member.size()));
    put16(common, 0);  // extra length
    put32(out, 0x04034b50);
    out += common + member + data;
    put32(directory, 0x02014b50);
    put16(directory, 20);  // version made by
    directory += common;
    put16(directory, 0);  // comment length
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, 0);  // external attributes
    put32(directory, offset);
    directory += member;
  }
  if (out.size() + directory.size() >= 0xffffffff)
    return errorStatus("the archive would pass 4 GiB, which needs zip64 (not supported)");
  uint32_t dirOffset = static_cast<uint32_t>(out.size());
  out += directory;
  put32(out, 0x06054b50);
  put16(out, 0);  // this disk
  put16(out, 0);  // directory disk
  put16(out, static_cast<uint32_t>(arrays.size()));
  put16(out, static_cast<uint32_t>(arrays.size()));
  put32(out, static_cast<uint32_t>(directory.size()));
  put32(out, dirOffset);
  put16(out, 0);  // comment length
  return out;
}

}  // namespace hlo
