//===- FuzzQuantizeJit.cpp - Lowered code vs. the numerics core -----------===//
//
// octet-fuzz-quantize-jit: a differential fuzzer. The input chooses a scheme
// (format, granularity, group size, symmetry, narrowed range, overflow
// mode), an input float type (f32, f16, bf16), a shape, the data (raw bit
// patterns: NaN, +-inf, -0, subnormals, values on rounding ties), positive
// finite scales and in-range zero points. Three functions with dynamic
// shapes are lowered with octet-lower-to-host and JIT-compiled once per
// scheme (then cached):
//   q  = octet.quantize(x, s, zp)
//   d  = octet.dequantize(codes, s, zp)
//   cp = octet.compute_params(x)
// and every element must equal, bit for bit, what the numerics core
// (runtime/include/octet/Runtime/Numerics.h) computes: quantizeInt /
// quantizeFp8, dequantizeInt / dequantizeFp8, paramsFromStats.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "octet/Runtime/OctetRuntime.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "octet/Pipelines/Pipelines.h"
#include "octet/Runtime/Numerics.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/TargetSelect.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>

using namespace mlir;
namespace num = ::octet::numerics;

namespace {

struct Scheme {
  num::StorageFormat format;
  enum Gran { PerTensor, PerAxis0, PerAxis1, PerGroup1, PerGroup0 } gran;
  int64_t group = 1;
  bool symmetric = true;
  bool saturate = true;
  num::IntRange range;
  enum FloatTy { F32, F16, BF16 } floatTy = F32;

  /// FP8 or FP4: the float formats (symmetric, no zero point).
  bool fp8() const { return num::isFloatFormat(format); }
  bool nf4() const { return num::isNf4(format); }
  bool hasZp() const { return !fp8() && !nf4() && !symmetric; }

  std::string text() const {
    static const char *names[] = {"i8", "u8", "i4", "u4", "f8E4M3FN",
                                  "f8E5M2", "f4E2M1FN", "nf4"};
    std::string s = "<";
    s += names[static_cast<int>(format)];
    num::IntRange full = num::fullRange(format);
    if (!fp8() && (range.qmin != full.qmin || range.qmax != full.qmax))
      s += "<" + std::to_string(range.qmin) + ":" +
           std::to_string(range.qmax) + ">";
    switch (gran) {
    case PerTensor:
      break;
    case PerAxis0:
      s += ", per_axis(0)";
      break;
    case PerAxis1:
      s += ", per_axis(1)";
      break;
    case PerGroup1:
      s += ", per_group(1, " + std::to_string(group) + ")";
      break;
    case PerGroup0:
      s += ", per_group(0, " + std::to_string(group) + ")";
      break;
    }
    if (!symmetric)
      s += ", asymmetric";
    if (!saturate)
      s += ", non_saturating";
    return s + ">";
  }
  const char *floatType() const {
    return floatTy == F32 ? "f32" : floatTy == F16 ? "f16" : "bf16";
  }
  const char *storageType() const {
    switch (format) {
    case num::StorageFormat::I8:
    case num::StorageFormat::U8:
      return "i8";
    case num::StorageFormat::I4:
    case num::StorageFormat::U4:
    case num::StorageFormat::NF4:
      return "i4";
    case num::StorageFormat::F8E4M3FN:
      return "f8E4M3FN";
    case num::StorageFormat::F8E5M2:
      return "f8E5M2";
    case num::StorageFormat::F4E2M1FN:
      return "f4E2M1FN";
    }
    return "i8";
  }
  /// Rank of the parameter tensors.
  int paramRank() const {
    return gran == PerTensor ? 0 : (gran == PerAxis0 || gran == PerAxis1) ? 1
                                                                          : 2;
  }
  std::string paramType(const char *et) const {
    switch (paramRank()) {
    case 0:
      return std::string("tensor<") + et + ">";
    case 1:
      return std::string("tensor<?x") + et + ">";
    default:
      return std::string("tensor<?x?x") + et + ">";
    }
  }
  /// Parameter shape for an R x C input.
  std::vector<int64_t> paramShape(int64_t r, int64_t c) const {
    switch (gran) {
    case PerTensor:
      return {};
    case PerAxis0:
      return {r};
    case PerAxis1:
      return {c};
    case PerGroup1:
      return {r, c / group};
    case PerGroup0:
      return {r / group, c};
    }
    return {};
  }
  /// Linear parameter index of element (i, j).
  int64_t paramIndex(int64_t i, int64_t j, int64_t c) const {
    switch (gran) {
    case PerTensor:
      return 0;
    case PerAxis0:
      return i;
    case PerAxis1:
      return j;
    case PerGroup1:
      return i * (c / group) + j / group;
    case PerGroup0:
      return (i / group) * c + j;
    }
    return 0;
  }

  std::string module() const {
    std::string x = std::string("tensor<?x?x") + floatType() + ">";
    std::string q = std::string("tensor<?x?x") + storageType() + ">";
    std::string s = paramType("f32"), z = paramType("i32");
    std::string sc = text();
    std::string zpArg = hasZp() ? ", %z: " + z : "";
    std::string zpUse = hasZp() ? " zero_point(%z : " + z + ")" : "";
    std::string m;
    m += "func.func @q(%x: " + x + ", %s: " + s + zpArg + ") -> " + q +
         " {\n  %r = octet.quantize %x scale(%s : " + s + ")" + zpUse +
         " as " + sc + " : " + x + " -> " + q + "\n  return %r : " + q +
         "\n}\n";
    m += "func.func @d(%c: " + q + ", %s: " + s + zpArg +
         ") -> tensor<?x?xf32> {\n  %r = octet.dequantize %c scale(%s : " +
         s + ")" + zpUse + " as " + sc + " : " + q +
         " -> tensor<?x?xf32>\n  return %r : tensor<?x?xf32>\n}\n";
    if (hasZp())
      m += "func.func @p(%x: " + x + ") -> (" + s + ", " + z +
           ") {\n  %s, %z = octet.compute_params %x as " + sc + " : " + x +
           " -> " + s + ", " + z + "\n  return %s, %z : " + s + ", " + z +
           "\n}\n";
    else
      m += "func.func @p(%x: " + x + ") -> " + s +
           " {\n  %s = octet.compute_params %x as " + sc + " : " + x +
           " -> " + s + "\n  return %s : " + s + "\n}\n";
    return m;
  }
};

struct Compiled {
  std::unique_ptr<ExecutionEngine> engine;
  void (*q)(void **) = nullptr;
  void (*d)(void **) = nullptr;
  void (*p)(void **) = nullptr;
};

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registry.insert<mlir::octet::OctetDialect>();
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    auto *c = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

const Compiled &compile(const Scheme &sc) {
  // Leaked on purpose: destroying JIT engines from exit handlers runs their
  // deinitializers after LLVM's own statics are gone (a crash at exit).
  static auto &cache = *new std::map<std::string, Compiled>();
  std::string text = sc.module();
  auto it = cache.find(text);
  if (it != cache.end())
    return it->second;
  MLIRContext &ctx = context();
  octet_fuzz::DiagnosticCounter diags(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module)
    octet_fuzz::fail("the generated module does not parse", text);
  PassManager pm(&ctx);
  mlir::octet::buildLowerToHostPipeline(pm);
  if (failed(pm.run(*module)))
    octet_fuzz::fail("octet-lower-to-host failed on a valid module", text);
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    octet_fuzz::fail("cannot detect the host");
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    octet_fuzz::fail("cannot create a target machine");
  // ExecutionEngineOptions::transformer is a function_ref: the
  // std::function it refers to must outlive ExecutionEngine::create.
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(3, 0, tm->get());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(*module, options, std::move(*tm));
  if (!engine)
    octet_fuzz::fail("JIT compilation failed: " +
                         llvm::toString(engine.takeError()),
                     text);
  // The runtime entry points the lowered code calls (the thread pool of
  // octet-parallelize-loops).
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
#define OCTET_ADD_SYMBOL(name)                                                 \
  map[interner(#name)] = {llvm::orc::ExecutorAddr::fromPtr(&name),            \
                          llvm::JITSymbolFlags::Exported};
    OCTET_RUNTIME_CPU_CODEGEN_SYMBOLS(OCTET_ADD_SYMBOL)
#undef OCTET_ADD_SYMBOL
    return map;
  });
  Compiled c;
  c.engine = std::move(*engine);
  auto lookup = [&](const char *name) {
    auto fn = c.engine->lookupPacked(name);
    if (!fn)
      octet_fuzz::fail(std::string("no function ") + name + ": " +
                       llvm::toString(fn.takeError()));
    return *fn;
  };
  c.q = lookup("q");
  c.d = lookup("d");
  c.p = lookup("p");
  return cache.emplace(text, std::move(c)).first->second;
}

/// A strided memref descriptor (row-major, contiguous) as the words the
/// packed calling convention passes one pointer each.
struct Memref {
  std::vector<int64_t> words;
  explicit Memref(void *data, const std::vector<int64_t> &shape) {
    int64_t p = reinterpret_cast<int64_t>(data);
    words = {p, p, 0};
    words.insert(words.end(), shape.begin(), shape.end());
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * shape[d + 1];
    words.insert(words.end(), strides.begin(), strides.end());
  }
};

/// Calls a packed function: the arguments' words, then the result storage
/// (`resultWords` 8-byte words). Returns the result words.
std::vector<int64_t> call(void (*fn)(void **), std::vector<Memref> &args,
                          size_t resultWords) {
  std::vector<void *> packed;
  for (Memref &m : args)
    for (int64_t &w : m.words)
      packed.push_back(&w);
  std::vector<int64_t> result(resultWords, 0);
  packed.push_back(result.data());
  fn(packed.data());
  return result;
}

/// Reads element `i` of a result memref (rank `rank`, words at `w`) of
/// `bytes`-byte elements, honoring offset and strides.
template <typename T>
T element(const int64_t *w, int rank, int64_t i, int64_t j) {
  const T *aligned = reinterpret_cast<const T *>(w[1]);
  int64_t off = w[2];
  if (rank == 1)
    off += i * w[4];
  else if (rank == 2)
    off += i * w[2 + 2 + 1] + j * w[2 + 2 + 2];
  return aligned[off];
}

float drawFloat(FuzzedDataProvider &fdp, float scale) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
  case 0: // any bit pattern
    return num::floatOf(fdp.ConsumeIntegral<uint32_t>());
  case 1: // a rounding tie or near-tie in units of the scale
    return (static_cast<float>(fdp.ConsumeIntegralInRange<int>(-300, 300)) +
            0.5f) *
           scale;
  case 2: // a small integer multiple of the scale
    return static_cast<float>(fdp.ConsumeIntegralInRange<int>(-600, 600)) *
           scale;
  default: { // specials
    static const float specials[] = {0.0f,
                                     -0.0f,
                                     INFINITY,
                                     -INFINITY,
                                     NAN,
                                     -NAN,
                                     3.4028235e38f,
                                     -3.4028235e38f,
                                     1e-45f,
                                     1.17549435e-38f,
                                     448.0f,
                                     464.0f,
                                     57344.0f,
                                     61440.0f};
    return specials[fdp.ConsumeIntegralInRange<size_t>(
        0, sizeof(specials) / sizeof(specials[0]) - 1)];
  }
  }
}

float drawScale(FuzzedDataProvider &fdp) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 2)) {
  case 0: {
    // Any positive finite f32, subnormals included.
    uint32_t u = fdp.ConsumeIntegral<uint32_t>() & 0x7fffffffu;
    if ((u >> 23) == 0xff || u == 0)
      u = 0x3f800000u;
    return num::floatOf(u);
  }
  case 1:
    return std::ldexp(1.0f, fdp.ConsumeIntegralInRange<int>(-149, 127));
  default:
    return static_cast<float>(fdp.ConsumeIntegralInRange<int>(1, 1000)) /
           static_cast<float>(fdp.ConsumeIntegralInRange<int>(1, 1000));
  }
}

uint16_t toHalfBits(float x, Scheme::FloatTy t) {
  // Round to the 16-bit type with APFloat (nearest even).
  llvm::APFloat v(x);
  bool lost;
  v.convert(t == Scheme::F16 ? llvm::APFloat::IEEEhalf()
                             : llvm::APFloat::BFloat(),
            llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(v.bitcastToAPInt().getZExtValue());
}

bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || num::bitsOf(a) == num::bitsOf(b);
}

[[noreturn]] void mismatch(const Scheme &sc, const char *what, int64_t i,
                           int64_t j, const std::string &detail) {
  octet_fuzz::fail(std::string(what) + " differs from the numerics core at (" +
                       std::to_string(i) + ", " + std::to_string(j) +
                       ") for " + sc.text() + " on " + sc.floatType() + ": " +
                       detail,
                   sc.module());
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // The host pipeline is parsed from text: every pass it names must be
  // registered (octet-lower-to-host includes the CPU kernel passes).
  mlir::registerAllPasses();
  mlir::octet::registerAllOctetPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  Scheme sc;
  sc.format = static_cast<num::StorageFormat>(fdp.ConsumeIntegralInRange<int>(0, 7));
  sc.gran = static_cast<Scheme::Gran>(fdp.ConsumeIntegralInRange<int>(0, 4));
  static const int64_t groups[] = {1, 2, 3, 4, 8, 32};
  sc.group = groups[fdp.ConsumeIntegralInRange<int>(0, 5)];
  if (sc.gran != Scheme::PerGroup0 && sc.gran != Scheme::PerGroup1)
    sc.group = 1;
  sc.floatTy = static_cast<Scheme::FloatTy>(fdp.ConsumeIntegralInRange<int>(0, 2));
  bool flag = fdp.ConsumeBool();
  sc.range = num::fullRange(sc.format);
  if (sc.fp8()) {
    sc.saturate = !flag || num::isFloat4(sc.format); // FP4 always saturates
  } else if (sc.nf4()) {
    // NF4: symmetric, the full table.
  } else {
    sc.symmetric = !flag;
    // Narrowed ranges: a few fixed ones (each scheme is compiled once).
    switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 1:
      sc.range.qmin += 1; // e.g. i8<-127:127>
      break;
    case 2:
      sc.range.qmax -= 1;
      break;
    case 3:
      sc.range.qmin += 2;
      sc.range.qmax -= 3;
      break;
    default:
      break;
    }
  }
  // Shape: R x C with the grouped dimension a multiple of the group size.
  int64_t rows = fdp.ConsumeIntegralInRange<int64_t>(1, 4);
  int64_t cols = fdp.ConsumeIntegralInRange<int64_t>(1, 40);
  if (sc.gran == Scheme::PerGroup1)
    cols = ((cols + sc.group - 1) / sc.group) * sc.group;
  if (sc.gran == Scheme::PerGroup0)
    rows = ((rows + sc.group - 1) / sc.group) * sc.group;
  int64_t n = rows * cols;

  std::vector<int64_t> pshape = sc.paramShape(rows, cols);
  int64_t np = 1;
  for (int64_t d : pshape)
    np *= d;
  std::vector<float> scales(np);
  std::vector<int32_t> zps(np, 0);
  for (int64_t k = 0; k < np; ++k) {
    scales[k] = drawScale(fdp);
    if (sc.hasZp())
      zps[k] = fdp.ConsumeIntegralInRange<int32_t>(sc.range.qmin, sc.range.qmax);
  }
  // Values (as f32; 16-bit inputs are rounded to their type first, and the
  // oracle sees exactly those values).
  std::vector<float> x(n);
  std::vector<uint16_t> x16(n);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t k = i * cols + j;
      float v = drawFloat(fdp, scales[sc.paramIndex(i, j, cols)]);
      if (sc.floatTy != Scheme::F32) {
        x16[k] = toHalfBits(v, sc.floatTy);
        v = sc.floatTy == Scheme::F16 ? num::decodeF16(x16[k])
                                      : num::decodeBF16(x16[k]);
      }
      x[k] = v;
    }
  // Codes for dequantize.
  std::vector<uint8_t> codes(n);
  for (int64_t k = 0; k < n; ++k) {
    codes[k] = fdp.ConsumeIntegral<uint8_t>();
    if (num::storageBits(sc.format) == 4)
      codes[k] &= 0x0f;
  }

  const Compiled &c = compile(sc);
  void *xData = sc.floatTy == Scheme::F32 ? static_cast<void *>(x.data())
                                          : static_cast<void *>(x16.data());
  std::vector<int64_t> shape{rows, cols};
  size_t pw = 3 + 2 * pshape.size();

  // quantize
  {
    std::vector<Memref> args{Memref(xData, shape), Memref(scales.data(), pshape)};
    if (sc.hasZp())
      args.emplace_back(zps.data(), pshape);
    std::vector<int64_t> r = call(c.q, args, 3 + 2 * 2);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t p = sc.paramIndex(i, j, cols);
        float xv = x[i * cols + j];
        uint8_t got = element<uint8_t>(r.data(), 2, i, j);
        int32_t want =
            sc.fp8()   ? num::quantizeFp8(xv, scales[p], sc.format, sc.saturate)
            : sc.nf4() ? num::encodeNf4(xv / scales[p])
                       : num::quantizeInt(xv, scales[p], zps[p], sc.range.qmin,
                                          sc.range.qmax);
        uint8_t mask = num::storageBits(sc.format) == 4 ? 0x0f : 0xff;
        if ((got & mask) != (static_cast<uint32_t>(want) & mask))
          mismatch(sc, "quantize", i, j,
                   "x = " + hex(num::bitsOf(xv)) + ", scale = " +
                       hex(num::bitsOf(scales[p])) + ", zp = " +
                       std::to_string(zps[p]) + ": got code " +
                       std::to_string(got & mask) + ", expected " +
                       std::to_string(want & mask));
      }
    std::free(reinterpret_cast<void *>(r[0]));
  }
  // dequantize
  {
    std::vector<Memref> args{Memref(codes.data(), shape),
                             Memref(scales.data(), pshape)};
    if (sc.hasZp())
      args.emplace_back(zps.data(), pshape);
    std::vector<int64_t> r = call(c.d, args, 3 + 2 * 2);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t p = sc.paramIndex(i, j, cols);
        uint8_t code = codes[i * cols + j];
        float want;
        if (sc.fp8()) {
          want = num::dequantizeFp8(code, scales[p], sc.format);
        } else if (sc.nf4()) {
          want = num::decodeNf4(code) * scales[p];
        } else {
          int32_t q;
          switch (sc.format) {
          case num::StorageFormat::I8:
            q = static_cast<int8_t>(code);
            break;
          case num::StorageFormat::I4:
            q = (code & 0x8) ? static_cast<int32_t>(code) - 16 : code;
            break;
          default:
            q = code;
          }
          want = num::dequantizeInt(q, scales[p], zps[p]);
        }
        float got = element<float>(r.data(), 2, i, j);
        if (!sameFloat(got, want))
          mismatch(sc, "dequantize", i, j,
                   "code = " + std::to_string(code) + ", scale = " +
                       hex(num::bitsOf(scales[p])) + ", zp = " +
                       std::to_string(zps[p]) + ": got " +
                       hex(num::bitsOf(got)) + ", expected " +
                       hex(num::bitsOf(want)));
      }
    std::free(reinterpret_cast<void *>(r[0]));
  }
  // compute_params
  {
    std::vector<Memref> args{Memref(xData, shape)};
    std::vector<int64_t> r = call(c.p, args, pw * (sc.hasZp() ? 2 : 1));
    std::vector<num::RangeStats> stats(np);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        stats[sc.paramIndex(i, j, cols)].add(x[i * cols + j]);
    int rank = static_cast<int>(pshape.size());
    for (int64_t k = 0; k < np; ++k) {
      num::QuantParams want = num::paramsFromStats(
          stats[k], sc.format, sc.range,
          sc.fp8() || sc.nf4() || sc.symmetric);
      int64_t i = rank == 0 ? 0 : rank == 1 ? k : k / pshape[1];
      int64_t j = rank == 2 ? k % pshape[1] : 0;
      float gotScale = element<float>(r.data(), rank, i, j);
      if (!sameFloat(gotScale, want.scale))
        mismatch(sc, "compute_params scale", i, j,
                 "got " + hex(num::bitsOf(gotScale)) + ", expected " +
                     hex(num::bitsOf(want.scale)));
      if (sc.hasZp()) {
        int32_t gotZp = element<int32_t>(r.data() + pw, rank, i, j);
        if (gotZp != want.zeroPoint)
          mismatch(sc, "compute_params zero point", i, j,
                   "got " + std::to_string(gotZp) + ", expected " +
                       std::to_string(want.zeroPoint));
      }
    }
    std::free(reinterpret_cast<void *>(r[0]));
    if (sc.hasZp())
      std::free(reinterpret_cast<void *>(r[pw]));
  }
  return 0;
}
