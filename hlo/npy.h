// Reading and writing NumPy's .npy arrays (hlo/npy.cc) and .npz archives,
// zip files of .npy members (hlo/npz.cc).
//
// .npy: the magic "\x93NUMPY", a version (1.0, 2.0 or 3.0), the header length,
// then a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
// padded with spaces to a multiple of 64 bytes and ended by '\n', then the raw
// elements. Read: every descr NumPy writes for our types in either byte order
// ('<', '>', '|', '='), C and Fortran order. Written: exactly what numpy.save
// writes for the same array (version 1.0, or 2.0 past 64 KiB of header; C
// order; little-endian), byte for byte.
//
// Types NumPy lacks come from the ml_dtypes package, which numpy.save records
// without their name: bfloat16 as '<V2', every 1-byte type as '<V1' (and
// float8_e5m2 as '<f1', which numpy.load cannot read back). We read those as
// untyped raw bytes that the caller retypes with its expected type
// (retypeRaw). We write, and read, the ml_dtypes type name as the descr
// instead ('bfloat16', 'float8_e4m3fn', 'int4', ...): numpy.load reads such a
// file once ml_dtypes is imported, since ml_dtypes registers its names with
// numpy.dtype. Sub-byte types take one byte per element, as in ml_dtypes:
// int4 -1 is stored 0x0f (the low bits; the high bits are ignored on reading).
//
// .npz: a zip archive whose members NAME.npy are .npy files, stored
// (numpy.savez) or deflated (numpy.savez_compressed). Read: both methods,
// CRC-checked, sizes from the central directory (numpy writes a zip64 extra
// field into every local header; zip64 sizes in the central directory are
// read too), but not archives that need the zip64 end-of-directory record
// (more than 65535 members or past 4 GiB): those fail with a clear error.
// Written: zip 2.0, no zip64, a fixed 1980-01-01 timestamp so equal arrays
// give equal files.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

// The descr written for an array of `t`: NumPy's own ('|b1', '<i4', '<f2',
// '<c8') or the ml_dtypes name ('bfloat16', 'float8_e4m3fn', 'int4'); empty
// for types no array can hold (tuple, token).
std::string npyDescr(ElementType t);

struct NpyArray {
  Literal value;
  // The descr was a raw void type ('<V1', '<V2', '<V4', '<V8'): `value`
  // holds the bytes of each element as u8, u16, u32 or u64 until retypeRaw
  // says what they are.
  bool untyped = false;
};

// Parses a whole .npy file. Errors (no location) say what is wrong with it.
StatusOr<NpyArray> readNpy(std::string_view bytes);

// Gives an untyped array its element type `t`, which must take as many bytes
// per element (a '<V1' array can become any 1-byte or sub-byte type, '<V2'
// bf16 or f16...). Sub-byte integers keep their low bits, sign-extended for
// s2/s4; pred becomes 0/1. A typed array is left alone when it already has
// type `t`, and is an error otherwise.
Status retypeRaw(NpyArray& array, ElementType t);

// The .npy file numpy.save would write for `array` (an array, not a tuple).
StatusOr<std::string> writeNpy(const Literal& array);

struct NpzMember {
  std::string name;  // the member name without ".npy"
  NpyArray array;
};

// Parses a whole .npz file; members in archive order.
StatusOr<std::vector<NpzMember>> readNpz(std::string_view bytes);

// An .npz archive with one member NAME.npy per (name, array), in order,
// stored as numpy.savez does, or deflated when `compress` is set.
StatusOr<std::string> writeNpz(const std::vector<std::pair<std::string, const Literal*>>& arrays,
                               bool compress = false);

// True if `bytes` starts like an .npy file ("\x93NUMPY") or a zip ("PK\3\4").
bool looksLikeNpy(std::string_view bytes);
bool looksLikeZip(std::string_view bytes);

}  // namespace hlo
