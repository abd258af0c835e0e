// Tests for .npy/.npz reading and writing. Expected bytes are worked out by
// hand from NumPy's format description (numpy/lib/format.py's docstring) and
// the zip specification (APPNOTE.TXT).
#include "hlo/npy.h"

#include <gtest/gtest.h>

#include <zlib.h>

#include "parser/parser.h"

namespace hlo {
namespace {

using T = ElementType;

Literal lit(std::string_view text) {
  auto l = parseLiteral(text);
  EXPECT_TRUE(l.ok()) << text << ": " << l.status().message();
  return l.ok() ? std::move(l).value() : Literal();
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out += static_cast<char>(v);
  return out;
}

// A version 1.0 header around `dict`, padded as numpy pads: magic (6), version
// (2), length (2), dict, spaces, '\n', 64-byte aligned.
std::string header10(const std::string& dict) {
  size_t used = 10 + dict.size() + 1;
  size_t pad = 64 - used % 64;
  size_t len = dict.size() + pad + 1;
  return std::string("\x93NUMPY\x01\x00", 8) + bytes({static_cast<int>(len & 0xff), static_cast<int>(len >> 8)}) +
         dict + std::string(pad, ' ') + "\n";
}

TEST(Npy, WritesFloat32ExactlyAsNumpy) {
  // np.save(f, np.array([1, 2, 3], np.float32)): a 128-byte header. The dict
  // is 57 characters; numpy adds 21 - len("3") = 20 spaces so the first
  // dimension can grow in place, then 40 spaces of padding and '\n':
  // 10 + 57 + 20 + 40 + 1 = 128, so the length field is 118 = 0x76.
  std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" +
                     std::string(60, ' ') + "\n" +
                     bytes({0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40});
  auto got = writeNpy(lit("f32[3] {1, 2, 3}"));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, want);
  EXPECT_EQ(got->size(), 128u + 12);
}

TEST(Npy, WritesScalarAndMatrixHeaders) {
  // A scalar has shape () and no growth padding: 10 + 55 + 62 + 1 = 128.
  std::string want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                     "{'descr': '|b1', 'fortran_order': False, 'shape': (), }" +
                     std::string(62, ' ') + "\n" + bytes({1});
  auto got = writeNpy(lit("pred[] true"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, want);
  // s32[2,2]: 59 characters + 20 growth spaces + 38 padding + '\n' = 118.
  want = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
         "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }" + std::string(58, ' ') +
         "\n" + bytes({1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff});
  got = writeNpy(lit("s32[2,2] {{1, 2}, {3, -4}}"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, want);
}

TEST(Npy, DescrOfEveryType) {
  EXPECT_EQ(npyDescr(T::kPred), "|b1");
  EXPECT_EQ(npyDescr(T::kS8), "|i1");
  EXPECT_EQ(npyDescr(T::kS64), "<i8");
  EXPECT_EQ(npyDescr(T::kU8), "|u1");
  EXPECT_EQ(npyDescr(T::kU16), "<u2");
  EXPECT_EQ(npyDescr(T::kF16), "<f2");
  EXPECT_EQ(npyDescr(T::kF64), "<f8");
  EXPECT_EQ(npyDescr(T::kC64), "<c8");
  EXPECT_EQ(npyDescr(T::kC128), "<c16");
  EXPECT_EQ(npyDescr(T::kBF16), "bfloat16");
  EXPECT_EQ(npyDescr(T::kF8E5M2), "float8_e5m2");
  EXPECT_EQ(npyDescr(T::kF8E4M3B11FNUZ), "float8_e4m3b11fnuz");
  EXPECT_EQ(npyDescr(T::kF8E8M0FNU), "float8_e8m0fnu");
  EXPECT_EQ(npyDescr(T::kF4E2M1FN), "float4_e2m1fn");
  EXPECT_EQ(npyDescr(T::kS4), "int4");
  EXPECT_EQ(npyDescr(T::kU2), "uint2");
  EXPECT_EQ(npyDescr(T::kToken), "");
  // Every array type has one, and reading it back gives the type.
  for (int i = 0; i <= static_cast<int>(T::kBuffer); ++i) {
    T t = static_cast<T>(i);
    if (!isArrayType(t)) continue;
    Literal zero(Shape(t, {2}));
    auto npy = writeNpy(zero);
    ASSERT_TRUE(npy.ok()) << elementTypeName(t);
    auto back = readNpy(*npy);
    ASSERT_TRUE(back.ok()) << elementTypeName(t) << ": " << back.status().message();
    EXPECT_FALSE(back->untyped);
    EXPECT_EQ(back->value.type(), t) << npyDescr(t);
  }
}

TEST(Npy, RoundTripsValuesOfManyTypes) {
  const char* literals[] = {
      "pred[3] {true, false, true}",
      "s8[2] {-128, 127}",
      "s16[2,1] {{-3}, {300}}",
      "s64[] -9000000000",
      "u32[2] {4294967295, 0}",
      "u64[1] {18446744073709551615}",
      "f16[3] {1, -0.5, inf}",
      "bf16[2] {1.5, -nan}",
      "f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8.5}}}",
      "f64[2] {0.1, -1e300}",
      "c64[2] {(1, 2), (-3, 0.5)}",
      "c128[] (1e-300, -2)",
      "f8e4m3fn[2] {448, -0.5}",
      "f8e8m0fnu[2] {1, 0.25}",
      "f4e2m1fn[3] {-6, 0.5, 1}",
      "s4[4] {-8, -1, 0, 7}",
      "u4[2] {15, 1}",
      "s2[4] {-2, -1, 0, 1}",
      "u2[2] {3, 2}",
      "f32[0,3] {}",
  };
  for (const char* text : literals) {
    Literal value = lit(text);
    auto npy = writeNpy(value);
    ASSERT_TRUE(npy.ok()) << text;
    auto back = readNpy(*npy);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().message();
    EXPECT_EQ(back->value.toString(), value.toString());
    EXPECT_TRUE(back->value == value) << text;
  }
}

TEST(Npy, SubByteTypesUseTheLowBitsOfEachByte) {
  // ml_dtypes stores int4 -1 as 0x0f and reads only the low four bits.
  auto npy = writeNpy(lit("s4[3] {-1, -8, 7}"));
  ASSERT_TRUE(npy.ok());
  EXPECT_EQ(npy->substr(npy->size() - 3), bytes({0x0f, 0x08, 0x07}));
  std::string file = header10("{'descr': 'int4', 'fortran_order': False, 'shape': (3,), }") +
                     bytes({0x0f, 0xf7, 0x18});
  auto back = readNpy(file);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->value.toString(), "s4[3] {-1, 7, -8}");
  file = header10("{'descr': 'uint2', 'fortran_order': False, 'shape': (2,), }") + bytes({0xff, 0x06});
  back = readNpy(file);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->value.toString(), "u2[2] {3, 2}");
  // numpy's bool: any non-zero byte is true.
  file = header10("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }") + bytes({0, 7});
  back = readNpy(file);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->value.toString(), "pred[2] {false, true}");
}

TEST(Npy, ReadsFortranOrder) {
  // Column-major 2x3: the file holds column 0 (1, 4), column 1 (2, 5), column 2 (3, 6).
  std::string file = header10("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }") +
                     bytes({1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6, 0});
  auto got = readNpy(file);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->value.toString(), "s16[2,3] {{1, 2, 3}, {4, 5, 6}}");
  // Rank 3, shape (2, 2, 2): element (i, j, k) sits at i + 2j + 4k.
  std::string data;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 2; ++i) data += static_cast<char>(100 * i + 10 * j + k);
  file = header10("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2, 2), }") + data;
  got = readNpy(file);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value.toString(), "u8[2,2,2] {{{0, 1}, {10, 11}}, {{100, 101}, {110, 111}}}");
}

TEST(Npy, ReadsBigEndian) {
  std::string file = header10("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }") +
                     bytes({0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe});
  auto got = readNpy(file);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value.toString(), "s32[2] {258, -2}");
  // Complex numbers swap each component: 1.0f is 3f 80 00 00, -2.0f is c0 00 00 00.
  file = header10("{'descr': '>c8', 'fortran_order': False, 'shape': (), }") +
         bytes({0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0});
  got = readNpy(file);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value.toString(), "c64[] (1, -2)");
  file = header10("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }") + bytes({0x3c, 0});
  got = readNpy(file);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value.toString(), "f16[1] {1}");
}

TEST(Npy, ReadsVersions2And3AndLooseHeaders) {
  std::string dict = "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (1L,)}";
  for (int major : {2, 3}) {
    std::string file = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0' +
                       bytes({static_cast<int>(dict.size() + 1), 0, 0, 0}) + dict + "\n" +
                       bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f});
    auto got = readNpy(file);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(got->value.toString(), "f64[1] {1}");
  }
}

TEST(Npy, UntypedVoidArraysTakeTheCallersType) {
  // numpy.save writes an ml_dtypes bfloat16 array with descr '<V2'.
  std::string file = header10("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }") +
                     bytes({0x80, 0x3f, 0x00, 0xc0});
  auto got = readNpy(file);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->untyped);
  EXPECT_EQ(got->value.type(), T::kU16);
  Status s = retypeRaw(*got, T::kF32);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot hold f32"), std::string::npos) << s.message();
  ASSERT_TRUE(retypeRaw(*got, T::kBF16).ok());
  EXPECT_FALSE(got->untyped);
  EXPECT_EQ(got->value.toString(), "bf16[2] {1, -2}");
  // '<V1' as int4: the low bits, sign-extended.
  file = header10("{'descr': '|V1', 'fortran_order': False, 'shape': (2,), }") + bytes({0x0f, 0x07});
  got = readNpy(file);
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(retypeRaw(*got, T::kS4).ok());
  EXPECT_EQ(got->value.toString(), "s4[2] {-1, 7}");
  // '<f1' is ml_dtypes' float8_e5m2: 0x3c is 1.0.
  file = header10("{'descr': '<f1', 'fortran_order': False, 'shape': (1,), }") + bytes({0x3c});
  got = readNpy(file);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value.toString(), "f8e5m2[1] {1}");
}

TEST(Npy, RejectsBadFilesCleanly) {
  struct Bad {
    std::string file;
    std::string message;
  };
  const Bad cases[] = {
      {"hello", "not an .npy file"},
      {std::string("\x93NUMPY\x01\x00\x40", 9), "truncated"},
      {std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version 4.0"},
      {header10("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }") + bytes({0, 0, 0}),
       "needs 12 bytes, the file has 3"},
      {header10("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"), "object arrays"},
      {header10("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }"), "string arrays"},
      {header10("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }"), "unsupported dtype '<f16'"},
      {header10("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"), "structured"},
      {header10("{'descr': '<f4', 'shape': (1,), }"), "needs the keys"},
      {header10("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }"), "True or False"},
      {header10("{'descr': '<f4', 'fortran_order': False, 'shape': (1, x), }"), "tuple of sizes"},
      {header10("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"),
       "too large"},
      {header10("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}"), "unexpected key"},
  };
  for (const Bad& c : cases) {
    auto got = readNpy(c.file);
    ASSERT_FALSE(got.ok()) << c.message;
    EXPECT_NE(got.status().message().find(c.message), std::string::npos)
        << "got: " << got.status().message() << "\nwant: " << c.message;
  }
  EXPECT_FALSE(writeNpy(Literal()).ok());  // a tuple
}

TEST(Npy, WritesVersion2ForHugeHeaders) {
  // A rank-30000 shape of ones needs a header past 65535 bytes.
  Literal value(Shape(T::kU8, std::vector<int64_t>(30000, 1)));
  auto npy = writeNpy(value);
  ASSERT_TRUE(npy.ok());
  EXPECT_EQ(npy->substr(0, 8), std::string("\x93NUMPY\x02\x00", 8));
  size_t headerEnd = npy->find('\n');
  EXPECT_EQ((headerEnd + 1) % 64, 0u);
  auto back = readNpy(*npy);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->value.shape(), value.shape());
}

// --- .npz -------------------------------------------------------------------

uint32_t u32At(const std::string& s, size_t p) {
  return static_cast<uint8_t>(s[p]) | static_cast<uint8_t>(s[p + 1]) << 8 |
         static_cast<uint8_t>(s[p + 2]) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(s[p + 3])) << 24;
}
uint16_t u16At(const std::string& s, size_t p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[p]) | static_cast<uint8_t>(s[p + 1]) << 8);
}
std::string le16(uint32_t v) { return bytes({static_cast<int>(v & 0xff), static_cast<int>(v >> 8 & 0xff)}); }
std::string le32(uint32_t v) { return le16(v & 0xffff) + le16(v >> 16); }
std::string le64(uint64_t v) { return le32(static_cast<uint32_t>(v)) + le32(static_cast<uint32_t>(v >> 32)); }

TEST(Npz, WritesAStoredZip) {
  Literal x = lit("f32[] 1");
  auto zip = writeNpz({{"x", &x}});
  ASSERT_TRUE(zip.ok());
  auto npy = writeNpy(x);
  ASSERT_TRUE(npy.ok());
  // Local header (30 bytes), "x.npy", the .npy bytes; then the central entry (46 + 5) and the end record (22).
  ASSERT_EQ(zip->size(), 30 + 5 + npy->size() + 46 + 5 + 22);
  EXPECT_EQ(zip->substr(0, 4), "PK\x03\x04");
  EXPECT_EQ(u16At(*zip, 8), 0);                  // stored
  EXPECT_EQ(u16At(*zip, 12), 0x21);              // 1980-01-01
  EXPECT_EQ(u32At(*zip, 14), crc32(0, reinterpret_cast<const Bytef*>(npy->data()), npy->size()));
  EXPECT_EQ(u32At(*zip, 18), npy->size());       // compressed size
  EXPECT_EQ(u32At(*zip, 22), npy->size());       // uncompressed size
  EXPECT_EQ(zip->substr(30, 5), "x.npy");
  EXPECT_EQ(zip->substr(35, npy->size()), *npy);
  size_t central = 35 + npy->size();
  EXPECT_EQ(zip->substr(central, 4), "PK\x01\x02");
  EXPECT_EQ(u32At(*zip, central + 42), 0u);      // local header offset
  size_t end = central + 51;
  EXPECT_EQ(zip->substr(end, 4), "PK\x05\x06");
  EXPECT_EQ(u16At(*zip, end + 10), 1);           // entries
  EXPECT_EQ(u32At(*zip, end + 12), 51u);         // directory size
  EXPECT_EQ(u32At(*zip, end + 16), central);     // directory offset
}

TEST(Npz, RoundTripsStoredAndDeflated) {
  Literal a = lit("f32[2,2] {{1, 2}, {3, 4}}");
  Literal b = lit("s4[3] {-1, 0, 7}");
  Literal c = lit("bf16[] -2.5");
  Literal big(Shape(T::kF64, {1000}));  // zeros: deflates well
  for (bool compress : {false, true}) {
    auto zip = writeNpz({{"a", &a}, {"the.b", &b}, {"c", &c}, {"big", &big}}, compress);
    ASSERT_TRUE(zip.ok());
    if (compress) {
      EXPECT_LT(zip->size(), 1000u);
    }
    auto back = readNpz(*zip);
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->size(), 4u);
    EXPECT_EQ((*back)[0].name, "a");
    EXPECT_EQ((*back)[1].name, "the.b");
    EXPECT_TRUE((*back)[0].array.value == a);
    EXPECT_TRUE((*back)[1].array.value == b);
    EXPECT_TRUE((*back)[2].array.value == c);
    EXPECT_TRUE((*back)[3].array.value == big);
  }
  EXPECT_FALSE(writeNpz({{"a", &a}, {"a", &b}}).ok());
}

// What numpy.savez writes: Python's zipfile with force_zip64, so every local
// header has sizes 0xffffffff and a zip64 extra field (id 1, 16 bytes: the
// uncompressed and compressed sizes); the central directory has plain sizes.
std::string numpyStyleZip(const std::string& member, const std::string& data) {
  uint32_t c = crc32(0, reinterpret_cast<const Bytef*>(data.data()), data.size());
  std::string zip = "PK\x03\x04" + le16(45) + le16(0) + le16(0) + le16(0) + le16(0x21) + le32(c) +
                    le32(0xffffffff) + le32(0xffffffff) + le16(member.size()) + le16(20) + member +
                    le16(1) + le16(16) + le64(data.size()) + le64(data.size()) + data;
  std::string central = "PK\x01\x02" + le16(45) + le16(20) + le16(0) + le16(0) + le16(0) +
                        le16(0x21) + le32(c) + le32(data.size()) + le32(data.size()) +
                        le16(member.size()) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) +
                        le32(0) + member;
  return zip + central + "PK\x05\x06" + le16(0) + le16(0) + le16(1) + le16(1) +
         le32(central.size()) + le32(zip.size()) + le16(0);
}

TEST(Npz, ReadsNumpysZip64LocalHeaders) {
  auto npy = writeNpy(lit("s32[2] {5, 6}"));
  ASSERT_TRUE(npy.ok());
  auto got = readNpz(numpyStyleZip("arr_0.npy", *npy));
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].name, "arr_0");
  EXPECT_EQ((*got)[0].array.value.toString(), "s32[2] {5, 6}");
}

TEST(Npz, RejectsBadArchivesCleanly) {
  auto npy = writeNpy(lit("s32[2] {5, 6}"));
  ASSERT_TRUE(npy.ok());
  std::string good = numpyStyleZip("a.npy", *npy);
  struct Bad {
    std::string file;
    std::string message;
  };
  std::string badCrc = good;
  badCrc[good.find("\x93NUMPY") + 130] ^= 1;  // a data byte
  std::string zip64 = good;
  size_t end = zip64.rfind("PK\x05\x06");
  zip64.replace(end + 8, 4, le16(0xffff) + le16(0xffff));
  std::string deflate64 = good;
  deflate64.replace(deflate64.find("PK\x01\x02") + 10, 2, le16(9));
  const Bad cases[] = {
      {"PK\x03\x04 too short", "not an .npz file"},
      {"PK\x03\x04" + std::string(40, 'x'), "no zip end-of-directory"},
      {badCrc, "CRC mismatch"},
      {zip64, "zip64 archives"},
      {deflate64, "compression method 9"},
      {numpyStyleZip("a.txt", *npy), "not an .npy member"},
      {numpyStyleZip("a.npy", "junk"), "member 'a.npy': not an .npy file"},
  };
  for (const Bad& c : cases) {
    auto got = readNpz(c.file);
    ASSERT_FALSE(got.ok()) << c.message;
    EXPECT_NE(got.status().message().find(c.message), std::string::npos)
        << "got: " << got.status().message() << "\nwant: " << c.message;
  }
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) EXPECT_FALSE(readNpz(good.substr(0, n)).ok()) << n;
}

// Damaged files give errors or values, never crashes (run under the sanitizers).
TEST(Npz, SurvivesDamage) {
  Literal a = lit("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  Literal b = lit("s4[2] {-1, 7}");
  for (bool compress : {false, true}) {
    auto zip = writeNpz({{"a", &a}, {"b", &b}}, compress);
    ASSERT_TRUE(zip.ok());
    for (size_t i = 0; i < zip->size(); ++i) {
      for (int bit : {0, 3, 7}) {
        std::string damaged = *zip;
        damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
        (void)readNpz(damaged);
      }
    }
  }
  auto npy = writeNpy(a);
  ASSERT_TRUE(npy.ok());
  for (size_t i = 0; i < npy->size(); ++i) {
    for (int value : {0, 0x20, 0x39, 0x28, 0x2c, 0xff}) {  // NUL, ' ', '9', '(', ',', 0xff
      std::string damaged = *npy;
      damaged[i] = static_cast<char>(value);
      (void)readNpy(damaged);
    }
  }
}

}  // namespace
}  // namespace hlo
