//===- ReplayMain.cpp - Run a fuzz harness over files ---------------------===//
//
// Without libFuzzer (OCTET_BUILD_FUZZERS=OFF) every harness in fuzz/ links
// this main: it calls LLVMFuzzerTestOneInput once per file named on the
// command line (directories are walked, sorted). test/Robustness replays the
// committed corpora and the regression inputs through it on every test run;
// a crash, assertion or sanitizer report fails the run.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-')
      continue; // libFuzzer flags are accepted and ignored.
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<std::string> inDir;
      for (const auto &e : fs::recursive_directory_iterator(arg, ec))
        if (e.is_regular_file())
          inDir.push_back(e.path().string());
      std::sort(inDir.begin(), inDir.end());
      files.insert(files.end(), inDir.begin(), inDir.end());
    } else {
      files.push_back(arg);
    }
  }
  for (const std::string &f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read '%s'\n", f.c_str());
      return 2;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("replay: %zu input(s) ran without a crash\n", files.size());
  return 0;
}
