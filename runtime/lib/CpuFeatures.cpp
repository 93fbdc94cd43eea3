//===- CpuFeatures.cpp - Load-time CPU feature checks ---------------------===//
//
// Libraries built by octet-compile call octet_require_cpu_features from a
// global constructor, so an artifact built for AMX (or AVX-512 VNNI, ...)
// loaded on a CPU without it stops at load with a clear message instead of
// dying later on an illegal instruction.
//
//===----------------------------------------------------------------------===//

#include "octet/Runtime/OctetRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

/// The CPU's feature flags as /proc/cpuinfo lists them (" avx2 fma ... ").
std::string cpuFlags() {
  std::string flags;
  FILE *f = std::fopen("/proc/cpuinfo", "r");
  if (!f)
    return flags;
  char line[8192];
  while (std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, "flags", 5) == 0) {
      const char *colon = std::strchr(line, ':');
      if (colon) {
        flags = " ";
        flags += colon + 1;
        for (char &c : flags)
          if (c == '\n' || c == '\t')
            c = ' ';
        flags += " ";
      }
      break;
    }
  }
  std::fclose(f);
  return flags;
}

/// /proc/cpuinfo's name for an LLVM feature name.
std::string cpuinfoName(const std::string &llvmName) {
  static const char *const table[][2] = {
      {"avx512vnni", "avx512_vnni"}, {"avxvnni", "avx_vnni"},
      {"avxvnniint8", "avx_vnni_int8"}, {"amx-int8", "amx_int8"},
      {"amx-tile", "amx_tile"},      {"amx-bf16", "amx_bf16"},
      {"avx512bf16", "avx512_bf16"}, {"avx512fp16", "avx512_fp16"},
      {"sse4.1", "sse4_1"},          {"sse4.2", "sse4_2"}};
  for (const auto &entry : table)
    if (llvmName == entry[0])
      return entry[1];
  return llvmName;
}

} // namespace

extern "C" int32_t octet_missing_cpu_features(const char *features,
                                              char *missing, int64_t size) {
  std::string flags = cpuFlags();
  if (flags.empty() || !features)
    return 0; // Cannot tell: do not block.
  std::string out;
  int32_t count = 0;
  std::string list(features);
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos)
      comma = list.size();
    std::string f = list.substr(pos, comma - pos);
    pos = comma + 1;
    if (f.empty())
      continue;
    if (flags.find(" " + cpuinfoName(f) + " ") == std::string::npos) {
      out += (out.empty() ? "" : ",") + f;
      ++count;
    }
  }
  if (missing && size > 0) {
    std::strncpy(missing, out.c_str(), static_cast<size_t>(size) - 1);
    missing[size - 1] = '\0';
  }
  return count;
}

extern "C" void octet_require_cpu_features(const char *artifact,
                                           const char *features) {
  char missing[512];
  if (octet_missing_cpu_features(features, missing, sizeof(missing)) == 0)
    return;
  std::fprintf(stderr,
               "octet: %s was compiled for CPU features this machine lacks: "
               "%s (required: %s). Rebuild it with octet-compile "
               "--target=host on this machine, or for an older target.\n",
               artifact ? artifact : "this library", missing, features);
  std::exit(70);
}

extern "C" void octet_into_mismatch(const char *entry, int64_t result,
                                    int64_t what, int64_t dim, int64_t expected,
                                    int64_t got) {
  const char *name = entry ? entry : "octet _into entry";
  long long r = result, d = dim, e = expected, g = got;
  if (what == 0)
    std::fprintf(stderr,
                 "octet: %s: the buffer for result %lld has %lld elements "
                 "along dimension %lld, the result %lld; nothing is written "
                 "to it\n",
                 name, r, g, d, e);
  else if (what == 1)
    std::fprintf(stderr,
                 "octet: %s: the buffer for result %lld has stride %lld "
                 "along dimension %lld; a row-major buffer of the result's "
                 "shape has %lld; nothing is written to it\n",
                 name, r, g, d, e);
  else if (what == 2)
    std::fprintf(stderr,
                 "octet: %s: the buffer for result %lld has offset %lld; "
                 "pass 0 (point `aligned` at the first element); nothing is "
                 "written to it\n",
                 name, r, g);
  else
    std::fprintf(stderr,
                 "octet: %s: the buffer for result %lld overlaps %s %lld; "
                 "pass separate memory; nothing is written\n",
                 name, r, what == 3 ? "argument" : "the buffer for result", d);
}
