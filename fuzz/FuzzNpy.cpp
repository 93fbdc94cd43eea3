//===- FuzzNpy.cpp - Fuzz the runtime's .npy reader -----------------------===//
//
// octet-fuzz-npy: arbitrary bytes go through readNpyFromMemory and, through a
// memfd, through readNpy (the file reader has its own preamble and size
// logic). Oracles:
//   - no crash, hang, sanitizer report or allocation beyond the input size;
//   - the two readers agree: both accept with the same dtype, shape and data,
//     or both reject with the same message (the file reader prefixes the
//     path);
//   - a rejection has a message;
//   - an accepted array holds numElements(shape) * dtypeSize(dtype) bytes,
//     and writing it and reading it back gives the same array.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/Npy.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

using namespace octet::runtime;

[[noreturn]] static void fail(const std::string &why) {
  std::fprintf(stderr, "octet-fuzz-npy: ORACLE FAILURE: %s\n", why.c_str());
  std::abort();
}

static bool same(const NpyArray &a, const NpyArray &b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.data == b.data;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NpyArray mem;
  std::string memError;
  bool memOk = readNpyFromMemory(data, size, mem, memError);
  if (!memOk && memError.empty())
    fail("readNpyFromMemory rejected the input without a message");
  if (memOk) {
    if (mem.numElements() < 0 ||
        mem.data.size() != static_cast<uint64_t>(mem.numElements()) *
                               dtypeSize(mem.dtype))
      fail("the data size does not match the shape and dtype");
    std::vector<uint8_t> image;
    std::string writeError;
    if (!writeNpyToMemory(mem, image, writeError))
      fail("an array that was read cannot be written: " + writeError);
    NpyArray back;
    std::string backError;
    if (!readNpyFromMemory(image.data(), image.size(), back, backError) ||
        !same(mem, back))
      fail("write + read does not round-trip: " + backError);
  }

  // The same bytes as a file.
  static int fd = memfd_create("octet-fuzz-npy", 0);
  if (fd < 0)
    return 0;
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) !=
                                   static_cast<ssize_t>(size))
    return 0;
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  NpyArray file;
  std::string fileError;
  bool fileOk = readNpy(path, file, fileError);
  if (fileOk != memOk)
    fail("readNpy and readNpyFromMemory disagree: file " +
         (fileOk ? std::string("accepts") : "rejects (" + fileError + ")") +
         ", memory " +
         (memOk ? std::string("accepts") : "rejects (" + memError + ")"));
  if (memOk && !same(mem, file))
    fail("readNpy and readNpyFromMemory read different arrays");
  if (!memOk && fileError != path + ": " + memError)
    fail("the readers give different messages: '" + fileError + "' vs '" +
         memError + "'");
  return 0;
}
