//===- NpyTest.cpp - Tests for the .npy reader and writer -----------------===//

#include "octet/Runtime/Npy.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace octet::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A fresh path in the test's temporary directory.
std::string tempPath(const std::string &name) {
  const ::testing::TestInfo *info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "octet_npy_" + std::to_string(getpid()) + "_" +
         info->name() + "_" + name + ".npy";
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(reinterpret_cast<const char *>(bytes.data()),
           static_cast<std::streamsize>(bytes.size()));
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(is), {});
}

std::vector<uint8_t> bytesOf(const char *lit, size_t sizeWithNul) {
  return std::vector<uint8_t>(lit, lit + sizeWithNul - 1);
}

/// A .npy image with the given version and header text (used verbatim, so
/// tests can write malformed headers), followed by `dataBytes` bytes.
std::vector<uint8_t> makeNpy(const std::string &header, size_t dataBytes,
                             int major = 1, int minor = 0) {
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  b.push_back(static_cast<uint8_t>(major));
  b.push_back(static_cast<uint8_t>(minor));
  size_t len = header.size();
  b.push_back(static_cast<uint8_t>(len & 0xff));
  b.push_back(static_cast<uint8_t>((len >> 8) & 0xff));
  if (major != 1) {
    b.push_back(static_cast<uint8_t>((len >> 16) & 0xff));
    b.push_back(static_cast<uint8_t>((len >> 24) & 0xff));
  }
  b.insert(b.end(), header.begin(), header.end());
  for (size_t i = 0; i < dataBytes; ++i)
    b.push_back(static_cast<uint8_t>(i * 37));
  return b;
}

std::string dict(const std::string &descr, const std::string &shape,
                 const std::string &order = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + order +
         ", 'shape': " + shape + ", }\n";
}

/// Expects both readers (memory and file) to reject `bytes` with an error
/// containing `message`; the file reader's error starts with the path.
void expectRejected(const std::vector<uint8_t> &bytes,
                    const std::string &message) {
  NpyArray arr;
  std::string error;
  EXPECT_FALSE(readNpyFromMemory(bytes.data(), bytes.size(), arr, error));
  EXPECT_NE(error.find(message), std::string::npos)
      << "memory error: " << error << "\nexpected: " << message;

  std::string path = tempPath("bad");
  writeBytes(path, bytes);
  std::string fileError;
  EXPECT_FALSE(readNpy(path, arr, fileError));
  EXPECT_EQ(fileError.rfind(path + ": ", 0), 0u) << fileError;
  EXPECT_NE(fileError.find(message), std::string::npos)
      << "file error: " << fileError << "\nexpected: " << message;
  std::remove(path.c_str());
}

void expectAccepted(const std::vector<uint8_t> &bytes, NpyArray &arr) {
  std::string error;
  EXPECT_TRUE(readNpyFromMemory(bytes.data(), bytes.size(), arr, error))
      << error;
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(Npy, DTypeHelpers) {
  EXPECT_STREQ(dtypeName(NpyDType::F16), "float16");
  EXPECT_STREQ(dtypeName(NpyDType::Bool), "bool");
  EXPECT_STREQ(dtypeDescr(NpyDType::I8), "|i1");
  EXPECT_STREQ(dtypeDescr(NpyDType::U64), "<u8");
  EXPECT_EQ(dtypeSize(NpyDType::F16), 2u);
  EXPECT_EQ(dtypeSize(NpyDType::F64), 8u);
  EXPECT_EQ(dtypeSize(NpyDType::Bool), 1u);
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({5, 0}), 0);
  EXPECT_EQ(numElements({-1}), -1);
  EXPECT_EQ(numElements({int64_t(1) << 40, int64_t(1) << 40}), -1);
}

TEST(Npy, RoundTripEveryDType) {
  const NpyDType all[] = {NpyDType::F16, NpyDType::F32, NpyDType::F64,
                          NpyDType::I8,  NpyDType::I16, NpyDType::I32,
                          NpyDType::I64, NpyDType::U8,  NpyDType::U16,
                          NpyDType::U32, NpyDType::U64, NpyDType::Bool};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {7}, {2, 3}, {2, 0, 3}, {1, 2, 3, 4}};
  for (NpyDType dt : all) {
    for (const auto &shape : shapes) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " rank " +
                   std::to_string(shape.size()));
      NpyArray in;
      in.dtype = dt;
      in.shape = shape;
      in.data.resize(static_cast<size_t>(numElements(shape)) * dtypeSize(dt));
      for (size_t i = 0; i < in.data.size(); ++i)
        in.data[i] = static_cast<uint8_t>(dt == NpyDType::Bool ? (i % 3 == 0)
                                                               : i * 7 + 1);
      // Through a file.
      std::string path = tempPath(dtypeName(dt));
      std::string error;
      ASSERT_TRUE(writeNpy(path, in, error)) << error;
      NpyArray out;
      ASSERT_TRUE(readNpy(path, out, error)) << error;
      EXPECT_EQ(out.dtype, in.dtype);
      EXPECT_EQ(out.shape, in.shape);
      EXPECT_EQ(out.data, in.data);
      // The data starts at a 64-byte boundary, like NumPy's files.
      std::vector<uint8_t> file = readBytes(path);
      EXPECT_EQ((file.size() - in.data.size()) % 64, 0u);
      std::remove(path.c_str());
      // Through memory; identical bytes.
      std::vector<uint8_t> image;
      ASSERT_TRUE(writeNpyToMemory(in, image, error)) << error;
      EXPECT_EQ(image, file);
      NpyArray out2;
      ASSERT_TRUE(readNpyFromMemory(image.data(), image.size(), out2, error))
          << error;
      EXPECT_EQ(out2.shape, in.shape);
      EXPECT_EQ(out2.data, in.data);
    }
  }
}

TEST(Npy, ScalarRoundTrip) {
  NpyArray in;
  in.dtype = NpyDType::F64;
  double v = -2.75;
  in.data.resize(8);
  std::memcpy(in.data.data(), &v, 8);
  std::string path = tempPath("scalar");
  std::string error;
  ASSERT_TRUE(writeNpy(path, in, error)) << error;
  std::vector<uint8_t> file = readBytes(path);
  std::string text(file.begin(), file.end());
  EXPECT_NE(text.find("'shape': ()"), std::string::npos);
  NpyArray out;
  ASSERT_TRUE(readNpy(path, out, error)) << error;
  EXPECT_TRUE(out.shape.empty());
  EXPECT_EQ(out.numElements(), 1);
  ASSERT_EQ(out.data.size(), 8u);
  EXPECT_EQ(out.as<double>()[0], -2.75);
  std::remove(path.c_str());
}

TEST(Npy, WriteFromRawPointer) {
  const float values[] = {1.0f, -2.0f, 3.5f, 0.25f, 8.0f, -0.0f};
  const int64_t shape[] = {3, 2};
  std::string path = tempPath("raw");
  std::string error;
  ASSERT_TRUE(writeNpy(path, NpyDType::F32, shape, 2, values, error)) << error;
  NpyArray out;
  ASSERT_TRUE(readNpy(path, out, error)) << error;
  EXPECT_EQ(out.dtype, NpyDType::F32);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{3, 2}));
  ASSERT_EQ(out.data.size(), sizeof(values));
  EXPECT_EQ(std::memcmp(out.data.data(), values, sizeof(values)), 0);
  std::remove(path.c_str());
}

TEST(Npy, ReadsFromAPipe) {
  // A non-regular file (size unknown up front) is read whole, then parsed.
  NpyArray in;
  in.dtype = NpyDType::I16;
  in.shape = {2, 2};
  in.data = {1, 0, 2, 0, 3, 0, 0xff, 0xff};
  std::vector<uint8_t> image;
  std::string error;
  ASSERT_TRUE(writeNpyToMemory(in, image, error)) << error;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], image.data(), image.size()),
            static_cast<ssize_t>(image.size()));
  close(fds[1]);
  NpyArray out;
  std::string path = "/dev/fd/" + std::to_string(fds[0]);
  EXPECT_TRUE(readNpy(path, out, error)) << error;
  EXPECT_EQ(out.shape, in.shape);
  EXPECT_EQ(out.data, in.data);
  close(fds[0]);
}

TEST(Npy, HeaderMatchesNumpyLayout) {
  NpyArray in;
  in.dtype = NpyDType::F32;
  in.shape = {2, 3};
  in.data.resize(24);
  std::vector<uint8_t> image;
  std::string error;
  ASSERT_TRUE(writeNpyToMemory(in, image, error)) << error;
  // Magic, version 1.0, little-endian header length, dict, space padding and
  // a final newline just before the 64-byte aligned data.
  ASSERT_GE(image.size(), 64u + 24u);
  EXPECT_EQ(std::memcmp(image.data(), "\x93NUMPY\x01\x00", 8), 0);
  size_t headerLen = image[8] | (image[9] << 8);
  EXPECT_EQ(10 + headerLen, image.size() - 24);
  std::string header(image.begin() + 10, image.begin() + 10 + headerLen);
  EXPECT_EQ(
      header.rfind(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0),
      0u);
  EXPECT_EQ(header.back(), '\n');
}

// Images written by NumPy itself (bytes copied from its output), one per
// format version.
// numpy 2.4.6: np.save(f, np.arange(6, dtype='<f4').reshape(2, 3))
const char kNumpyF32V1[] =
    "\223NUMPY\001\000v\000{'descr': '<f4', 'fortran_order': False, 'shape'"
    ": (2, 3), }                                                          "
    "\012\000\000\000\000\000\000\200\077\000\000\000@\000\000@@\000\000"
    "\200@\000\000\240@";
// numpy 2.4.6: np.lib.format.write_array(f, np.array([-1, 2, -3],
//                                        dtype='<i2'), version=(2, 0))
const char kNumpyI16V2[] =
    "\223NUMPY\002\000t\000\000\000{'descr': '<i2', 'fortran_order': False,"
    " 'shape': (3,), }                                                     "
    "     \012\377\377\002\000\375\377";
// numpy 2.4.6: np.lib.format.write_array(f, np.array(True), version=(3, 0))
const char kNumpyBoolV3[] =
    "\223NUMPY\003\000t\000\000\000{'descr': '|b1', 'fortran_order': False,"
    " 'shape': (), }                                                       "
    "     \012\001";

TEST(Npy, ReadsNumpyFiles) {
  NpyArray a;
  expectAccepted(bytesOf(kNumpyF32V1, sizeof(kNumpyF32V1)), a);
  EXPECT_EQ(a.dtype, NpyDType::F32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(a.data.size(), 24u);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(a.as<float>()[i], static_cast<float>(i));

  NpyArray b;
  expectAccepted(bytesOf(kNumpyI16V2, sizeof(kNumpyI16V2)), b);
  EXPECT_EQ(b.dtype, NpyDType::I16);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3}));
  ASSERT_EQ(b.data.size(), 6u);
  EXPECT_EQ(b.as<int16_t>()[0], -1);
  EXPECT_EQ(b.as<int16_t>()[1], 2);
  EXPECT_EQ(b.as<int16_t>()[2], -3);

  NpyArray c;
  expectAccepted(bytesOf(kNumpyBoolV3, sizeof(kNumpyBoolV3)), c);
  EXPECT_EQ(c.dtype, NpyDType::Bool);
  EXPECT_TRUE(c.shape.empty());
  ASSERT_EQ(c.data.size(), 1u);
  EXPECT_EQ(c.data[0], 1);
}

TEST(Npy, AcceptsAlternativeSpellings) {
  NpyArray a;
  // One-byte types in any byte order; double quotes; keys in any order; no
  // trailing comma; no padding or newline; Python 2 'L' suffixes; a
  // version 2.0 header.
  expectAccepted(makeNpy(dict("<i1", "(2,)"), 2), a);
  EXPECT_EQ(a.dtype, NpyDType::I8);
  expectAccepted(makeNpy(dict("<u1", "(2,)"), 2), a);
  EXPECT_EQ(a.dtype, NpyDType::U8);
  expectAccepted(makeNpy(dict(">b1", "(2,)"), 2), a);
  EXPECT_EQ(a.dtype, NpyDType::Bool);
  expectAccepted(makeNpy("{\"shape\": (1, 2), \"fortran_order\": False, "
                         "\"descr\": \"<u2\"}",
                         4),
                 a);
  EXPECT_EQ(a.dtype, NpyDType::U16);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1, 2}));
  expectAccepted(makeNpy("{'descr':'<i8','fortran_order':False,"
                         "'shape':(2L, 1L)}",
                         16),
                 a);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 1}));
  expectAccepted(makeNpy(dict("<u4", "(3,)"), 12, 2), a);
  EXPECT_EQ(a.dtype, NpyDType::U32);
  // Zero-size arrays have no data.
  expectAccepted(makeNpy(dict("<f8", "(0, 5)"), 0), a);
  EXPECT_EQ(a.numElements(), 0);
  // A huge dimension is fine when another one is 0.
  expectAccepted(makeNpy(dict("<f8", "(0, 9223372036854775807)"), 0), a);
}

TEST(Npy, RobustToTruncationAndCorruption) {
  NpyArray in;
  in.dtype = NpyDType::I32;
  in.shape = {3, 2};
  in.data.assign(24, 0x5a);
  std::vector<uint8_t> image;
  std::string error;
  ASSERT_TRUE(writeNpyToMemory(in, image, error)) << error;
  NpyArray out;
  // Every proper prefix is rejected.
  for (size_t n = 0; n < image.size(); ++n) {
    error.clear();
    EXPECT_FALSE(readNpyFromMemory(image.data(), n, out, error)) << n;
    EXPECT_FALSE(error.empty());
  }
  // Every single-byte change to the header either is rejected with a
  // message or yields a consistent array.
  size_t headerEnd = image.size() - in.data.size();
  for (size_t i = 0; i < headerEnd; ++i) {
    for (int v : {0x00, 0x20, 0x27, 0x28, 0x29, 0x2c, 0x2d, 0x31, 0x39, 0x3a,
                  0x5c, 0x7b, 0x7d, 0x80, 0xff}) {
      std::vector<uint8_t> bad = image;
      bad[i] = static_cast<uint8_t>(v);
      error.clear();
      if (readNpyFromMemory(bad.data(), bad.size(), out, error)) {
        EXPECT_EQ(static_cast<uint64_t>(out.data.size()),
                  static_cast<uint64_t>(out.numElements()) *
                      dtypeSize(out.dtype));
      } else {
        EXPECT_FALSE(error.empty());
      }
    }
  }
  EXPECT_FALSE(readNpyFromMemory(nullptr, 0, out, error));
}

//===----------------------------------------------------------------------===//
// One test per reader error
//===----------------------------------------------------------------------===//

TEST(NpyError, BadMagic) {
  std::vector<uint8_t> b = makeNpy(dict("<f4", "(1,)"), 4);
  b[1] = 'X';
  expectRejected(b, "bad magic: not a .npy file");
  expectRejected({'P', 'K', 3, 4}, "bad magic");
}

TEST(NpyError, TruncatedPreamble) {
  expectRejected({}, "truncated file: 0 bytes");
  expectRejected({0x93, 'N', 'U', 'M'}, "truncated file: 4 bytes");
  expectRejected({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x10},
                 "truncated header: 9 bytes is too short for the version 1.0 "
                 "header length field");
  expectRejected({0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0x10, 0, 0},
                 "too short for the version 2.0 header length field");
}

TEST(NpyError, UnsupportedVersion) {
  expectRejected(makeNpy(dict("<f4", "(1,)"), 4, 4, 0),
                 "unsupported .npy format version 4.0 (supported: 1.0, 2.0, "
                 "3.0)");
  expectRejected(makeNpy(dict("<f4", "(1,)"), 4, 1, 1),
                 "unsupported .npy format version 1.1");
}

TEST(NpyError, TruncatedHeader) {
  std::vector<uint8_t> b = makeNpy(dict("<f4", "(1,)"), 0);
  b.resize(b.size() - 5);
  expectRejected(b, "truncated header: the header length field says");
  // The length field of a version 2.0 file claims ~4 GiB.
  std::vector<uint8_t> c = makeNpy(dict("<f4", "(1,)"), 4, 2);
  c[11] = 0xff;
  expectRejected(c, "truncated header: the header length field says");
}

TEST(NpyError, HeaderTooLarge) {
  std::string pad(size_t(1) << 20, ' ');
  expectRejected(makeNpy(dict("<f4", "(1,)") + pad, 4, 2),
                 "exceeds the 1048576-byte limit");
}

TEST(NpyError, HeaderNotADict) {
  expectRejected(makeNpy("('<f4', False, (1,))\n", 4),
                 "malformed header: not a Python dict literal");
  expectRejected(makeNpy("", 0), "not a Python dict literal (starts with "
                                 "end of header)");
}

TEST(NpyError, MissingKey) {
  expectRejected(makeNpy("{'descr': '<f4', 'fortran_order': False}\n", 4),
                 "missing key 'shape'");
  expectRejected(makeNpy("{'descr': '<f4', 'shape': (1,)}\n", 4),
                 "missing key 'fortran_order'");
  expectRejected(makeNpy("{'fortran_order': False, 'shape': (1,)}\n", 4),
                 "missing key 'descr'");
}

TEST(NpyError, UnexpectedKey) {
  expectRejected(makeNpy("{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (1,), 'extra': 1}\n",
                         4),
                 "unexpected key 'extra'");
}

TEST(NpyError, DuplicateKey) {
  expectRejected(makeNpy("{'descr': '<f4', 'descr': '<f4', "
                         "'fortran_order': False, 'shape': (1,)}\n",
                         4),
                 "duplicate key 'descr'");
}

TEST(NpyError, UnterminatedDict) {
  expectRejected(makeNpy("{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (1,) \n",
                         4),
                 "expected ',' or '}' but found end of header");
  expectRejected(makeNpy("{'descr': '<f4\n", 4),
                 "unterminated string in 'descr'");
}

TEST(NpyError, TextAfterDict) {
  expectRejected(makeNpy(dict("<f4", "(1,)") + "x", 4),
                 "unexpected text after the dict");
}

TEST(NpyError, NonAsciiHeader) {
  std::string h = dict("<f4", "(1,)");
  h[3] = '\xc3';
  expectRejected(makeNpy(h, 4), "unexpected byte 0xc3 at offset 3 (headers "
                                "are plain ASCII)");
  std::string z = dict("<f4", "(1,)");
  z[z.size() - 2] = '\0';
  expectRejected(makeNpy(z, 4), "unexpected byte 0x00");
}

TEST(NpyError, EscapeInString) {
  expectRejected(makeNpy(dict("<f\\x34", "(1,)"), 4),
                 "escape sequences are not supported in 'descr'");
}

TEST(NpyError, UnsupportedDType) {
  expectRejected(makeNpy(dict("<c8", "(1,)"), 8),
                 "unsupported dtype '<c8' (supported: float16, float32, "
                 "float64, int8, int16, int32, int64, uint8, uint16, uint32, "
                 "uint64, bool)");
  expectRejected(makeNpy(dict("|O", "(1,)"), 8), "unsupported dtype '|O'");
  expectRejected(makeNpy(dict("<U5", "(1,)"), 20), "unsupported dtype '<U5'");
  expectRejected(makeNpy(dict("<f16", "(1,)"), 16), "unsupported dtype '<f16'");
  expectRejected(makeNpy(dict("|V2", "(1,)"), 2), "unsupported dtype '|V2'");
}

TEST(NpyError, BigEndianDType) {
  expectRejected(makeNpy(dict(">f4", "(1,)"), 4),
                 "unsupported dtype '>f4' (big-endian)");
  expectRejected(makeNpy(dict(">i8", "(1,)"), 8),
                 "unsupported dtype '>i8' (big-endian)");
}

TEST(NpyError, MissingByteOrder) {
  expectRejected(makeNpy(dict("|f4", "(1,)"), 4),
                 "unsupported dtype '|f4' (byte order must be '<', as in "
                 "'<f4')");
}

TEST(NpyError, StructuredDType) {
  expectRejected(makeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, "
                         "'shape': (1,)}\n",
                         4),
                 "unsupported dtype: structured arrays");
  expectRejected(makeNpy("{'descr': 4, 'fortran_order': False, "
                         "'shape': (1,)}\n",
                         4),
                 "'descr' must be a string");
}

TEST(NpyError, FortranOrder) {
  expectRejected(makeNpy(dict("<f4", "(2, 3)", "True"), 24),
                 "Fortran-order arrays are not supported; save with "
                 "np.ascontiguousarray");
}

TEST(NpyError, FortranOrderNotBool) {
  expectRejected(makeNpy(dict("<f4", "(1,)", "0"), 4),
                 "'fortran_order' must be True or False");
  expectRejected(makeNpy(dict("<f4", "(1,)", "Truex"), 4),
                 "'fortran_order' must be True or False");
}

TEST(NpyError, ShapeNotATuple) {
  expectRejected(makeNpy(dict("<f4", "[1]"), 4),
                 "'shape' must be a tuple of integers");
  expectRejected(makeNpy(dict("<f4", "(1.5,)"), 4),
                 "expected ',' or ')' in 'shape'");
  expectRejected(makeNpy(dict("<f4", "(a,)"), 4),
                 "'shape' must be a tuple of integers");
  expectRejected(makeNpy(dict("<f4", "(3)"), 12),
                 "'shape' (3) is not a tuple; a one-element tuple is written "
                 "(3,)");
}

TEST(NpyError, NegativeDimension) {
  expectRejected(makeNpy(dict("<f4", "(2, -3)"), 0),
                 "negative dimension -3 in 'shape'");
}

TEST(NpyError, DimensionTooLarge) {
  expectRejected(makeNpy(dict("<f4", "(99999999999999999999,)"), 0),
                 "dimension 99999999999999999999 in 'shape' does not fit in "
                 "64 bits");
  expectRejected(makeNpy(dict("<f4", "(9223372036854775808,)"), 0),
                 "does not fit in 64 bits");
}

TEST(NpyError, ShapeOverflows) {
  expectRejected(makeNpy(dict("<f4", "(4294967296, 4294967296)"), 0),
                 "shape (4294967296, 4294967296) of float32 overflows");
  // The element count fits, the byte count does not.
  expectRejected(makeNpy(dict("<f8", "(2305843009213693952,)"), 0),
                 "overflows");
}

TEST(NpyError, TooManyDimensions) {
  std::string shape = "(";
  for (int i = 0; i < 65; ++i)
    shape += "1, ";
  shape += ")";
  expectRejected(makeNpy(dict("<f4", shape), 4),
                 "'shape' has more than 64 dimensions");
}

TEST(NpyError, DataTooShort) {
  expectRejected(makeNpy(dict("<f4", "(2, 3)"), 20),
                 "data is truncated: shape (2, 3) of float32 needs 24 bytes "
                 "but 20 bytes follow the header");
  expectRejected(makeNpy(dict("<f8", "()"), 0),
                 "data is truncated: shape () of float64 needs 8 bytes but 0 "
                 "bytes follow the header");
}

TEST(NpyError, DataTooLong) {
  expectRejected(makeNpy(dict("<i2", "(3,)"), 7),
                 "data is too long: shape (3,) of int16 needs 6 bytes but 7 "
                 "bytes follow the header");
}

TEST(NpyError, HugeShapeSmallFile) {
  // A header that promises 2^40 floats must not allocate anything big.
  expectRejected(makeNpy(dict("<f4", "(1099511627776,)"), 16),
                 "needs 4398046511104 bytes but 16 bytes follow the header");
}

TEST(NpyError, FileErrors) {
  NpyArray arr;
  std::string error;
  std::string missing = ::testing::TempDir() + "octet_no_such_file.npy";
  EXPECT_FALSE(readNpy(missing, arr, error));
  EXPECT_NE(error.find(missing + ": cannot open: "), std::string::npos)
      << error;
  EXPECT_FALSE(readNpy(::testing::TempDir(), arr, error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// Writer errors
//===----------------------------------------------------------------------===//

TEST(NpyWriteError, DataSizeMismatch) {
  NpyArray in;
  in.dtype = NpyDType::F32;
  in.shape = {2, 2};
  in.data.resize(12);
  std::string error;
  std::string path = tempPath("mismatch");
  EXPECT_FALSE(writeNpy(path, in, error));
  EXPECT_NE(error.find("array holds 12 bytes but shape (2, 2) of float32 "
                       "needs 16"),
            std::string::npos)
      << error;
  std::vector<uint8_t> image;
  EXPECT_FALSE(writeNpyToMemory(in, image, error));
  EXPECT_NE(error.find("needs 16"), std::string::npos) << error;
}

TEST(NpyWriteError, BadShape) {
  const int64_t shape[] = {2, -1};
  float data[2] = {0, 0};
  std::string error;
  EXPECT_FALSE(writeNpy(tempPath("neg"), NpyDType::F32, shape, 2, data, error));
  EXPECT_NE(error.find("negative dimension -1 in shape (2, -1)"),
            std::string::npos)
      << error;
}

TEST(NpyWriteError, CannotOpen) {
  NpyArray in;
  in.dtype = NpyDType::U8;
  in.shape = {1};
  in.data = {7};
  std::string error;
  std::string path = ::testing::TempDir() + "no/such/dir/x.npy";
  EXPECT_FALSE(writeNpy(path, in, error));
  EXPECT_NE(error.find(path + ": cannot open for writing: "), std::string::npos)
      << error;
}

} // namespace
