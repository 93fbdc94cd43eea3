//===- quantize_weights_bench.cpp - octet-quantize-weights at scale -------===//
//
// Builds a module whose matmul weights (f32, `dense_resource` blobs, 1 GiB
// by default) are split over several layers, runs octet-quantize-weights on
// it through a PassManager and prints:
//   - the pass's throughput in MB/s of weights read, against a plain memory
//     copy of the same bytes measured in the same run (layer by layer through
//     one layer-sized buffer, so the baseline adds little memory);
//   - the peak resident set size (getrusage) against the weight bytes.
//
// Usage: octet-quantize-weights-bench [--size-mb N] [--layers L]
//          [--options "format=i4 granularity=per-group ..."] [--num-threads T]
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <sys/resource.h>
#include <vector>

using namespace mlir;

/// The options --help lists (LLVM's and MLIR's own stay available;
/// --help-hidden lists them).
static llvm::cl::OptionCategory
    toolOptions("octet-quantize-weights-bench options");

static llvm::cl::opt<int64_t> sizeMb(llvm::cl::cat(toolOptions), "size-mb",
                                     llvm::cl::desc("Weight MiB in total"),
                                     llvm::cl::init(1024));
static llvm::cl::opt<int64_t>
    numLayers(llvm::cl::cat(toolOptions), "layers",
              llvm::cl::desc("Number of matmul layers"), llvm::cl::init(16));
static llvm::cl::opt<std::string>
    passOptions(llvm::cl::cat(toolOptions), "options",
                llvm::cl::desc("octet-quantize-weights options"),
                llvm::cl::init("format=i8 granularity=per-channel"));
static llvm::cl::opt<unsigned>
    threads(llvm::cl::cat(toolOptions), "num-threads",
            llvm::cl::desc("Threads (0: the context's default pool)"),
            llvm::cl::init(0));

static double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// User + system CPU seconds of the process (all threads).
static double cpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static double peakRssMiB() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0; // KiB on Linux
}

/// Fills `n` floats with a cheap pseudo-normal distribution (sum of four
/// uniforms) and a few large outliers.
static void fillWeights(float *w, int64_t n, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&]() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<float>(s >> 40) * 0x1p-24f;
  };
  for (int64_t i = 0; i < n; ++i) {
    float v = next() + next() + next() + next() - 2.0f;
    w[i] = (i % 4099 == 0) ? v * 20.0f : v * 0.05f;
  }
}

int main(int argc, char **argv) {
  llvm::cl::HideUnrelatedOptions(toolOptions);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "octet-quantize-weights benchmark\n");
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect,
                  linalg::LinalgDialect, tensor::TensorDialect,
                  octet::OctetDialect>();
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  std::unique_ptr<llvm::DefaultThreadPool> pool;
  if (threads != 1) {
    pool = std::make_unique<llvm::DefaultThreadPool>(
        threads ? llvm::hardware_concurrency(threads)
                : llvm::hardware_concurrency());
    ctx.setThreadPool(*pool);
  }
  ctx.loadAllAvailableDialects();
  octet::registerOctetQuantizeWeights();
  // Print every diagnostic of the pass (errors, warnings, remarks).
  ScopedDiagnosticHandler diagnostics(&ctx, [](Diagnostic &d) {
    llvm::errs() << d.getLocation() << ": " << d << "\n";
    return success();
  });

  // Layers of K x N f32 with N = 4096 (or smaller for small runs).
  const int64_t totalBytes = sizeMb << 20;
  const int64_t layers = std::max<int64_t>(1, numLayers);
  const int64_t n = std::min<int64_t>(4096, std::max<int64_t>(
                                                128, totalBytes / 4 / layers / 128));
  const int64_t k =
      std::max<int64_t>(128, (totalBytes / 4 / layers / n) / 128 * 128);
  const int64_t layerElems = k * n;
  const int64_t weightBytes = layerElems * 4 * layers;

  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  const int64_t m = 8;
  auto xType = RankedTensorType::get({m, k}, b.getF32Type());
  auto yType = RankedTensorType::get({m, n}, b.getF32Type());
  auto wType = RankedTensorType::get({k, n}, b.getF32Type());
  auto fn = func::FuncOp::create(
      b, loc, "model",
      b.getFunctionType({xType}, SmallVector<Type>(layers, yType)));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToEnd(body);
  double t0 = now();
  std::vector<const char *> blobs;
  SmallVector<Value> results;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  for (int64_t l = 0; l < layers; ++l) {
    AsmResourceBlob blob =
        HeapAsmResourceBlob::allocate(layerElems * 4, alignof(float));
    fillWeights(reinterpret_cast<float *>(blob.getMutableData().data()),
                layerElems, l + 1);
    blobs.push_back(blob.getData().data());
    auto attr = DenseResourceElementsAttr::get(
        wType, ("w" + std::to_string(l)).c_str(), std::move(blob));
    Value w = arith::ConstantOp::create(b, NameLoc::get(b.getStringAttr(
                                                 "layer" + std::to_string(l))),
                                        attr);
    Value init = tensor::EmptyOp::create(b, loc, yType.getShape(),
                                         b.getF32Type());
    Value filled = linalg::FillOp::create(b, loc, zero, init).getResult(0);
    Value y = linalg::MatmulOp::create(b, loc, TypeRange{yType},
                                       ValueRange{body->getArgument(0), w},
                                       ValueRange{filled})
                  .getResult(0);
    results.push_back(y);
  }
  func::ReturnOp::create(b, loc, results);
  double tBuild = now() - t0;

  // Baseline: copy every weight byte once, through one layer-sized buffer.
  std::vector<char> copyBuf(layerElems * 4);
  std::memset(copyBuf.data(), 1, copyBuf.size()); // fault the pages in
  t0 = now();
  for (const char *blob : blobs)
    std::memcpy(copyBuf.data(), blob, copyBuf.size());
  double tCopy = now() - t0;
  volatile char sink = copyBuf[copyBuf.size() / 2];
  (void)sink;
  double rssBefore = peakRssMiB();

  PassManager pm(&ctx);
  std::string pipeline = "octet-quantize-weights{" + passOptions + "}";
  if (failed(parsePassPipeline(pipeline, pm))) {
    llvm::errs() << "bad options: " << passOptions << "\n";
    return 2;
  }
  t0 = now();
  double c0 = cpuSeconds();
  if (failed(pm.run(module))) {
    llvm::errs() << "octet-quantize-weights failed\n";
    return 1;
  }
  double tPass = now() - t0;
  double cPass = cpuSeconds() - c0;
  double rssAfter = peakRssMiB();

  int64_t dequantizes = 0;
  module->walk([&](octet::DequantizeOp) { ++dequantizes; });
  double mb = weightBytes / 1e6;
  double weightMiB = weightBytes / double(1 << 20);
  llvm::outs() << llvm::format(
      "octet-quantize-weights benchmark: %lld layers of %lldx%lld f32 "
      "(dense_resource), %.1f MiB of weights, options \"%s\", %u threads\n",
      (long long)layers, (long long)k, (long long)n, weightMiB,
      passOptions.c_str(), ctx.getNumThreads());
  llvm::outs() << llvm::format("  build module     %8.3f s\n", tBuild);
  llvm::outs() << llvm::format(
      "  memcpy baseline  %8.3f s  %9.1f MB/s  (1.00x)\n", tCopy, mb / tCopy);
  llvm::outs() << llvm::format(
      "  quantize pass    %8.3f s  %9.1f MB/s  (%.2fx of memcpy)\n", tPass,
      mb / tPass, tCopy / tPass);
  llvm::outs() << llvm::format(
      "  pass CPU time    %8.3f s  %9.1f MB/s per CPU-second (all threads; "
      "wall time is inflated when the cores are shared)\n",
      cPass, mb / cPass);
  llvm::outs() << llvm::format(
      "  peak RSS         %8.1f MiB before the pass, %.1f MiB after = "
      "%.2fx the weight bytes\n",
      rssBefore, rssAfter, rssAfter / weightMiB);
  llvm::outs() << "  dequantize ops   " << dequantizes << "\n";
  module->erase();
  return dequantizes == layers ? 0 : 1;
}
