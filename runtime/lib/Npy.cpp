//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// The .npy layout (numpy.lib.format):
//   "\x93NUMPY" major minor  HEADER_LEN  HEADER  DATA
// HEADER_LEN is a little-endian uint16 in version 1.0 and a uint32 in 2.0 and
// 3.0 (3.0 only allows UTF-8 in the header, which matters solely for
// structured dtypes, unsupported here). HEADER is a Python dict literal such
// as {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces and a final newline.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include <sys/stat.h>

using namespace octet::runtime;

namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kMagicSize = sizeof(kMagic);
/// Headers are tiny (a few dozen bytes per dimension); anything larger is
/// corrupt or hostile, and refusing it bounds the allocation.
constexpr size_t kMaxHeaderLen = size_t(1) << 20;
/// NumPy's own limit (NPY_MAXDIMS in NumPy 2).
constexpr size_t kMaxRank = 64;
/// The writer aligns the start of the data to this many bytes, as NumPy does.
constexpr size_t kAlign = 64;

struct DTypeInfo {
  NpyDType dtype;
  char kind; // 'f', 'i', 'u', 'b'
  unsigned size;
  const char *name;
  const char *descr;
};

constexpr DTypeInfo kDTypes[] = {
    {NpyDType::F16, 'f', 2, "float16", "<f2"},
    {NpyDType::F32, 'f', 4, "float32", "<f4"},
    {NpyDType::F64, 'f', 8, "float64", "<f8"},
    {NpyDType::I8, 'i', 1, "int8", "|i1"},
    {NpyDType::I16, 'i', 2, "int16", "<i2"},
    {NpyDType::I32, 'i', 4, "int32", "<i4"},
    {NpyDType::I64, 'i', 8, "int64", "<i8"},
    {NpyDType::U8, 'u', 1, "uint8", "|u1"},
    {NpyDType::U16, 'u', 2, "uint16", "<u2"},
    {NpyDType::U32, 'u', 4, "uint32", "<u4"},
    {NpyDType::U64, 'u', 8, "uint64", "<u8"},
    {NpyDType::Bool, 'b', 1, "bool", "|b1"},
};

const DTypeInfo *lookup(NpyDType dtype) {
  for (const DTypeInfo &info : kDTypes)
    if (info.dtype == dtype)
      return &info;
  return nullptr;
}

/// Renders untrusted header text for an error message: at most `limit`
/// characters, non-printable bytes as \xNN.
std::string snippet(const char *p, size_t n, size_t limit = 40) {
  std::string s;
  size_t shown = n < limit ? n : limit;
  for (size_t i = 0; i < shown; ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      s += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      s += buf;
    }
  }
  if (shown < n)
    s += "...";
  return s;
}

std::string formatShape(const int64_t *shape, size_t rank) {
  std::string s = "(";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (rank == 1)
    s += ",";
  s += ")";
  return s;
}

/// Computes the byte size of an array, rejecting negative dimensions and
/// overflow (of int64 and of size_t).
bool checkedByteSize(NpyDType dtype, const int64_t *shape, size_t rank,
                     uint64_t &bytes, std::string &error) {
  const DTypeInfo *info = lookup(dtype);
  if (!info) {
    error = "invalid dtype enumerator " +
            std::to_string(static_cast<unsigned>(dtype));
    return false;
  }
  if (rank > kMaxRank) {
    error = "shape has " + std::to_string(rank) + " dimensions; at most " +
            std::to_string(kMaxRank) + " are supported";
    return false;
  }
  bool hasZero = false;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      error = "negative dimension " + std::to_string(shape[i]) + " in shape " +
              formatShape(shape, rank);
      return false;
    }
    hasZero |= shape[i] == 0;
  }
  if (hasZero) {
    bytes = 0;
    return true;
  }
  uint64_t n = info->size;
  // The size must fit both int64_t and size_t.
  uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (static_cast<uint64_t>(std::numeric_limits<size_t>::max()) < limit)
    limit = static_cast<uint64_t>(std::numeric_limits<size_t>::max());
  for (size_t i = 0; i < rank; ++i) {
    uint64_t d = static_cast<uint64_t>(shape[i]);
    if (n > limit / d) {
      error = "shape " + formatShape(shape, rank) + " of " + info->name +
              " overflows: its size in bytes does not fit in 63 bits";
      return false;
    }
    n *= d;
  }
  bytes = n;
  return true;
}

//===----------------------------------------------------------------------===//
// Header parsing
//===----------------------------------------------------------------------===//

/// A recursive-descent parser for the subset of Python literal syntax that
/// .npy headers use. Every access is checked against `end`.
class HeaderParser {
public:
  HeaderParser(const char *begin, size_t size, std::string &error)
      : begin(begin), cur(begin), end(begin + size), error(error) {}

  bool parse(NpyDType &dtype, std::vector<int64_t> &shape);

private:
  bool atEnd() const { return cur >= end; }
  char peek() const { return atEnd() ? '\0' : *cur; }
  void skipSpace() {
    while (!atEnd() && (*cur == ' ' || *cur == '\t' || *cur == '\n' ||
                        *cur == '\r' || *cur == '\f' || *cur == '\v'))
      ++cur;
  }
  bool fail(const std::string &msg) {
    error = "malformed header: " + msg;
    return false;
  }
  std::string here() const {
    if (atEnd())
      return "end of header";
    return "'" + snippet(cur, static_cast<size_t>(end - cur), 20) +
           "' at offset " + std::to_string(cur - begin);
  }
  bool expect(char c) {
    skipSpace();
    if (peek() != c)
      return fail(std::string("expected '") + c + "' but found " + here());
    ++cur;
    return true;
  }
  bool parseString(std::string &s, const char *what);
  bool parseBool(bool &b, const char *what);
  bool parseShape(std::vector<int64_t> &shape);
  bool parseDescr(NpyDType &dtype);

  const char *begin;
  const char *cur;
  const char *end;
  std::string &error;
};

bool HeaderParser::parseString(std::string &s, const char *what) {
  skipSpace();
  char q = peek();
  if (q != '\'' && q != '"') {
    if (q == '[' && std::strcmp(what, "'descr'") == 0) {
      error = "unsupported dtype: structured arrays (a list 'descr') are "
              "not supported";
      return false;
    }
    return fail(std::string(what) + " must be a string, found " + here());
  }
  const char *start = ++cur;
  while (!atEnd() && *cur != q) {
    if (*cur == '\\')
      return fail(std::string("escape sequences are not supported in ") + what);
    if (*cur == '\n')
      return fail(std::string("unterminated string in ") + what);
    ++cur;
  }
  if (atEnd())
    return fail(std::string("unterminated string in ") + what);
  s.assign(start, cur);
  ++cur;
  return true;
}

bool HeaderParser::parseBool(bool &b, const char *what) {
  skipSpace();
  size_t left = static_cast<size_t>(end - cur);
  auto isIdentChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
  };
  if (left >= 4 && std::memcmp(cur, "True", 4) == 0 &&
      (left == 4 || !isIdentChar(cur[4]))) {
    cur += 4;
    b = true;
    return true;
  }
  if (left >= 5 && std::memcmp(cur, "False", 5) == 0 &&
      (left == 5 || !isIdentChar(cur[5]))) {
    cur += 5;
    b = false;
    return true;
  }
  return fail(std::string(what) + " must be True or False, found " + here());
}

bool HeaderParser::parseShape(std::vector<int64_t> &shape) {
  shape.clear();
  skipSpace();
  if (peek() != '(')
    return fail("'shape' must be a tuple of integers, found " + here());
  ++cur;
  bool sawComma = false;
  for (;;) {
    skipSpace();
    if (peek() == ')') {
      ++cur;
      break;
    }
    if (!shape.empty() && !sawComma)
      return fail("expected ',' or ')' in 'shape' but found " + here());
    bool negative = false;
    if (peek() == '-' || peek() == '+') {
      negative = peek() == '-';
      ++cur;
      skipSpace();
    }
    if (peek() < '0' || peek() > '9')
      return fail("'shape' must be a tuple of integers, found " + here());
    const char *digits = cur;
    uint64_t v = 0;
    bool overflow = false;
    while (!atEnd() && *cur >= '0' && *cur <= '9') {
      unsigned d = static_cast<unsigned>(*cur - '0');
      if (v >
          (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - d) / 10)
        overflow = true;
      else
        v = v * 10 + d;
      ++cur;
    }
    // Python 2 long suffix, written by old NumPy versions.
    if (peek() == 'L' || peek() == 'l')
      ++cur;
    if (overflow) {
      error = "dimension " + std::string(negative ? "-" : "") +
              snippet(digits, static_cast<size_t>(cur - digits), 30) +
              " in 'shape' does not fit in 64 bits";
      return false;
    }
    if (negative && v != 0) {
      error = "negative dimension -" + std::to_string(v) + " in 'shape'";
      return false;
    }
    if (shape.size() == kMaxRank) {
      error =
          "'shape' has more than " + std::to_string(kMaxRank) + " dimensions";
      return false;
    }
    shape.push_back(static_cast<int64_t>(v));
    skipSpace();
    sawComma = peek() == ',';
    if (sawComma)
      ++cur;
  }
  // Python: (3) is the integer 3, a 1-tuple is written (3,).
  if (shape.size() == 1 && !sawComma)
    return fail("'shape' (" + std::to_string(shape[0]) +
                ") is not a tuple; a one-element tuple is written (" +
                std::to_string(shape[0]) + ",)");
  return true;
}

bool HeaderParser::parseDescr(NpyDType &dtype) {
  std::string d;
  if (!parseString(d, "'descr'"))
    return false;
  std::string shown = "'" + snippet(d.data(), d.size()) + "'";
  if (d.size() == 3) {
    char order = d[0], kind = d[1], size = d[2];
    for (const DTypeInfo &info : kDTypes) {
      if (info.kind != kind || static_cast<unsigned>(size - '0') != info.size)
        continue;
      // Byte order does not matter for one-byte types; NumPy writes '|' but
      // '<', '>' and '=' mean the same there.
      if (info.size == 1 &&
          (order == '|' || order == '<' || order == '>' || order == '=')) {
        dtype = info.dtype;
        return true;
      }
      if (order == '<') {
        dtype = info.dtype;
        return true;
      }
      if (order == '>') {
        error = "unsupported dtype " + shown + " (big-endian)";
        return false;
      }
      error = "unsupported dtype " + shown +
              " (byte order must be '<', as in '" + info.descr + "')";
      return false;
    }
  }
  error = "unsupported dtype " + shown +
          " (supported: float16, float32, float64, int8, int16, int32, "
          "int64, uint8, uint16, uint32, uint64, bool)";
  return false;
}

bool HeaderParser::parse(NpyDType &dtype, std::vector<int64_t> &shape) {
  for (const char *p = begin; p < end; ++p) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r' &&
                      c != '\f' && c != '\v')) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "0x%02x", c);
      return fail(std::string("unexpected byte ") + buf + " at offset " +
                  std::to_string(p - begin) + " (headers are plain ASCII)");
    }
  }
  skipSpace();
  if (peek() != '{')
    return fail("not a Python dict literal (starts with " + here() + ")");
  ++cur;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  bool fortranOrder = false;
  for (;;) {
    skipSpace();
    if (peek() == '}') {
      ++cur;
      break;
    }
    std::string key;
    if (!parseString(key, "a dict key"))
      return false;
    if (!expect(':'))
      return false;
    bool *seen = nullptr;
    if (key == "descr") {
      seen = &haveDescr;
    } else if (key == "fortran_order") {
      seen = &haveOrder;
    } else if (key == "shape") {
      seen = &haveShape;
    } else {
      return fail("unexpected key '" + snippet(key.data(), key.size()) +
                  "' (expected exactly 'descr', 'fortran_order' and "
                  "'shape')");
    }
    if (*seen)
      return fail("duplicate key '" + key + "'");
    *seen = true;
    if (key == "descr") {
      if (!parseDescr(dtype))
        return false;
    } else if (key == "fortran_order") {
      if (!parseBool(fortranOrder, "'fortran_order'"))
        return false;
    } else if (!parseShape(shape)) {
      return false;
    }
    skipSpace();
    if (peek() == ',') {
      ++cur;
      continue;
    }
    if (peek() != '}')
      return fail("expected ',' or '}' but found " + here());
  }
  skipSpace();
  if (!atEnd())
    return fail("unexpected text after the dict: " + here());
  const char *missing = !haveDescr   ? "descr"
                        : !haveOrder ? "fortran_order"
                        : !haveShape ? "shape"
                                     : nullptr;
  if (missing)
    return fail(std::string("missing key '") + missing + "'");
  if (fortranOrder) {
    error = "Fortran-order arrays are not supported; save with "
            "np.ascontiguousarray";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Where the header text is, once the fixed preamble has been validated.
struct Preamble {
  size_t headerOffset;
  size_t headerLen;
};

/// Validates the preamble. `p` holds the first `avail` bytes of a file of
/// `total` bytes; `avail` is min(total, 12).
bool parsePreamble(const uint8_t *p, size_t avail, uint64_t total,
                   Preamble &pre, std::string &error) {
  size_t m = avail < kMagicSize ? avail : kMagicSize;
  if (std::memcmp(p, kMagic, m) != 0) {
    error = "bad magic: not a .npy file (expected the bytes \\x93NUMPY, "
            "found '" +
            snippet(reinterpret_cast<const char *>(p), m) + "')";
    return false;
  }
  if (total < kMagicSize + 2) {
    error = "truncated file: " + std::to_string(total) +
            " bytes is too short for the magic string and version";
    return false;
  }
  unsigned major = p[6], minor = p[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0)) {
    error = "unsupported .npy format version " + std::to_string(major) + "." +
            std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)";
    return false;
  }
  size_t lenBytes = major == 1 ? 2 : 4;
  size_t offset = kMagicSize + 2 + lenBytes;
  if (total < offset) {
    error = "truncated header: " + std::to_string(total) +
            " bytes is too short for the version " + std::to_string(major) +
            ".0 header length field";
    return false;
  }
  uint64_t len =
      static_cast<uint64_t>(p[8]) | (static_cast<uint64_t>(p[9]) << 8);
  if (lenBytes == 4)
    len |= (static_cast<uint64_t>(p[10]) << 16) |
           (static_cast<uint64_t>(p[11]) << 24);
  if (len > total - offset) {
    error = "truncated header: the header length field says " +
            std::to_string(len) + " bytes but only " +
            std::to_string(total - offset) + " bytes follow";
    return false;
  }
  if (len > kMaxHeaderLen) {
    error = "header of " + std::to_string(len) + " bytes exceeds the " +
            std::to_string(kMaxHeaderLen) + "-byte limit";
    return false;
  }
  pre.headerOffset = offset;
  pre.headerLen = static_cast<size_t>(len);
  return true;
}

/// Parses the header and checks that exactly `dataBytes` bytes of data
/// follow it; sets `out.dtype`, `out.shape` and `expected`.
bool parseHeaderAndCheckSize(const char *header, size_t headerLen,
                             uint64_t dataBytes, NpyArray &out,
                             uint64_t &expected, std::string &error) {
  HeaderParser parser(header, headerLen, error);
  if (!parser.parse(out.dtype, out.shape))
    return false;
  if (!checkedByteSize(out.dtype, out.shape.data(), out.shape.size(), expected,
                       error))
    return false;
  if (dataBytes != expected) {
    const DTypeInfo *info = lookup(out.dtype);
    error = std::string(dataBytes < expected ? "data is truncated"
                                             : "data is too long") +
            ": shape " + formatShape(out.shape.data(), out.shape.size()) +
            " of " + info->name + " needs " + std::to_string(expected) +
            " bytes but " + std::to_string(dataBytes) +
            " bytes follow the header";
    return false;
  }
  return true;
}

struct FileCloser {
  std::FILE *f;
  ~FileCloser() {
    if (f)
      std::fclose(f);
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

const char *octet::runtime::dtypeName(NpyDType dtype) {
  const DTypeInfo *info = lookup(dtype);
  return info ? info->name : "<invalid>";
}

const char *octet::runtime::dtypeDescr(NpyDType dtype) {
  const DTypeInfo *info = lookup(dtype);
  return info ? info->descr : "<invalid>";
}

size_t octet::runtime::dtypeSize(NpyDType dtype) {
  const DTypeInfo *info = lookup(dtype);
  return info ? info->size : 0;
}

int64_t octet::runtime::numElements(const std::vector<int64_t> &shape) {
  uint64_t bytes;
  std::string error;
  // One-byte elements: the byte size is the element count.
  if (!checkedByteSize(NpyDType::U8, shape.data(), shape.size(), bytes, error))
    return -1;
  return static_cast<int64_t>(bytes);
}

bool octet::runtime::readNpyFromMemory(const uint8_t *bytes, size_t size,
                                       NpyArray &out, std::string &error) {
  if (!bytes && size != 0) {
    error = "null buffer";
    return false;
  }
  static const uint8_t empty[1] = {0};
  if (!bytes)
    bytes = empty;
  Preamble pre;
  size_t avail = size < 12 ? size : 12;
  if (!parsePreamble(bytes, avail, size, pre, error))
    return false;
  size_t dataOffset = pre.headerOffset + pre.headerLen;
  uint64_t expected;
  if (!parseHeaderAndCheckSize(
          reinterpret_cast<const char *>(bytes + pre.headerOffset),
          pre.headerLen, size - dataOffset, out, expected, error))
    return false;
  out.data.assign(bytes + dataOffset, bytes + size);
  return true;
}

bool octet::runtime::readNpy(const std::string &path, NpyArray &out,
                             std::string &error) {
  auto failWith = [&](const std::string &msg) {
    error = path + ": " + msg;
    return false;
  };
  FileCloser file{std::fopen(path.c_str(), "rb")};
  if (!file.f)
    return failWith(std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (fstat(fileno(file.f), &st) != 0)
    return failWith(std::string("cannot stat: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return failWith("is a directory");

  if (!S_ISREG(st.st_mode)) {
    // A pipe or device: size unknown up front, so read it whole (growing the
    // buffer only as bytes actually arrive) and parse from memory.
    std::vector<uint8_t> buf;
    uint8_t chunk[1 << 16];
    size_t got;
    while ((got = std::fread(chunk, 1, sizeof(chunk), file.f)) > 0)
      buf.insert(buf.end(), chunk, chunk + got);
    if (std::ferror(file.f))
      return failWith(std::string("read error: ") + std::strerror(errno));
    std::string inner;
    if (!readNpyFromMemory(buf.data(), buf.size(), out, inner))
      return failWith(inner);
    return true;
  }

  const uint64_t total = static_cast<uint64_t>(st.st_size);
  uint8_t prefix[12];
  size_t avail =
      total < sizeof(prefix) ? static_cast<size_t>(total) : sizeof(prefix);
  if (std::fread(prefix, 1, avail, file.f) != avail)
    return failWith("read error while reading the preamble");
  Preamble pre;
  std::string inner;
  if (!parsePreamble(prefix, avail, total, pre, inner))
    return failWith(inner);
  if (std::fseek(file.f, static_cast<long>(pre.headerOffset), SEEK_SET) != 0)
    return failWith(std::string("seek error: ") + std::strerror(errno));
  std::vector<char> header(pre.headerLen);
  if (pre.headerLen &&
      std::fread(header.data(), 1, pre.headerLen, file.f) != pre.headerLen)
    return failWith("read error while reading the header");
  uint64_t dataBytes = total - pre.headerOffset - pre.headerLen;
  uint64_t expected;
  if (!parseHeaderAndCheckSize(header.data(), header.size(), dataBytes, out,
                               expected, inner))
    return failWith(inner);
  // `expected` equals the number of bytes actually in the file, so this
  // allocation is bounded by the file size.
  out.data.resize(static_cast<size_t>(expected));
  if (expected && std::fread(out.data.data(), 1, out.data.size(), file.f) !=
                      out.data.size())
    return failWith("read error while reading " + std::to_string(expected) +
                    " bytes of data (was the file truncated?)");
  return true;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// Builds the preamble and padded header for an array.
bool buildHeader(NpyDType dtype, const int64_t *shape, size_t rank,
                 std::string &out, uint64_t &dataBytes, std::string &error) {
  if (!checkedByteSize(dtype, shape, rank, dataBytes, error))
    return false;
  std::string dict =
      std::string("{'descr': '") + dtypeDescr(dtype) +
      "', 'fortran_order': False, 'shape': " + formatShape(shape, rank) + ", }";
  // Total = magic + version + length field + dict + padding + '\n', a
  // multiple of kAlign.
  size_t lenBytes = 2;
  size_t unpadded = kMagicSize + 2 + lenBytes + dict.size() + 1;
  size_t total = (unpadded + kAlign - 1) / kAlign * kAlign;
  if (total - kMagicSize - 2 - lenBytes > 0xffff) {
    lenBytes = 4;
    unpadded = kMagicSize + 2 + lenBytes + dict.size() + 1;
    total = (unpadded + kAlign - 1) / kAlign * kAlign;
  }
  size_t headerLen = total - kMagicSize - 2 - lenBytes;
  out.assign(reinterpret_cast<const char *>(kMagic), kMagicSize);
  out += static_cast<char>(lenBytes == 2 ? 1 : 2);
  out += static_cast<char>(0);
  for (size_t i = 0; i < lenBytes; ++i)
    out += static_cast<char>((headerLen >> (8 * i)) & 0xff);
  out += dict;
  out.append(total - unpadded, ' ');
  out += '\n';
  return true;
}

} // namespace

bool octet::runtime::writeNpy(const std::string &path, NpyDType dtype,
                              const int64_t *shape, size_t rank,
                              const void *data, std::string &error) {
  auto failWith = [&](const std::string &msg) {
    error = path + ": " + msg;
    return false;
  };
  if (!shape && rank != 0)
    return failWith("null shape with rank " + std::to_string(rank));
  std::string header;
  uint64_t dataBytes;
  std::string inner;
  if (!buildHeader(dtype, shape, rank, header, dataBytes, inner))
    return failWith(inner);
  if (!data && dataBytes != 0)
    return failWith("null data pointer");
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return failWith(std::string("cannot open for writing: ") +
                    std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  if (ok && dataBytes)
    ok = std::fwrite(data, 1, static_cast<size_t>(dataBytes), f) ==
         static_cast<size_t>(dataBytes);
  int savedErrno = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    std::remove(path.c_str());
    return failWith(std::string("write error: ") + std::strerror(savedErrno));
  }
  return true;
}

bool octet::runtime::writeNpy(const std::string &path, const NpyArray &array,
                              std::string &error) {
  uint64_t expected;
  std::string inner;
  if (!checkedByteSize(array.dtype, array.shape.data(), array.shape.size(),
                       expected, inner)) {
    error = path + ": " + inner;
    return false;
  }
  if (array.data.size() != expected) {
    error = path + ": array holds " + std::to_string(array.data.size()) +
            " bytes but shape " +
            formatShape(array.shape.data(), array.shape.size()) + " of " +
            dtypeName(array.dtype) + " needs " + std::to_string(expected);
    return false;
  }
  return writeNpy(path, array.dtype, array.shape.data(), array.shape.size(),
                  array.data.data(), error);
}

bool octet::runtime::writeNpyToMemory(const NpyArray &array,
                                      std::vector<uint8_t> &out,
                                      std::string &error) {
  std::string header;
  uint64_t dataBytes;
  if (!buildHeader(array.dtype, array.shape.data(), array.shape.size(), header,
                   dataBytes, error))
    return false;
  if (array.data.size() != dataBytes) {
    error = "array holds " + std::to_string(array.data.size()) +
            " bytes but shape " +
            formatShape(array.shape.data(), array.shape.size()) + " of " +
            dtypeName(array.dtype) + " needs " + std::to_string(dataBytes);
    return false;
  }
  out.assign(header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return true;
}
