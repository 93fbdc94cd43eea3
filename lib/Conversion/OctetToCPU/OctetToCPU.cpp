//===- OctetToCPU.cpp - octet.matmul to generated x86 kernels -------------===//
//
// convert-octet-to-cpu replaces each octet.matmul that a fast kernel covers
// by a call of a generated task function through the runtime's thread pool:
//
//   - constant integer weights are packed at compile time into the kernel's
//     layout (octet/Runtime/CpuPack.h), with their column sums when the
//     kernel needs a compensation term;
//   - at run time the activations are packed (octet_cpu_pack_lhs), a block
//     of i64 slots describes the operands, and octet_parallel_for runs the
//     task function over the output tiles;
//   - the result is a fresh buffer returned to tensor land with
//     bufferization.to_tensor.
//
// Float-lhs (weight-only: i8/u8, constant i4/u4 packed two per byte,
// per-group scales), FP8 (decoded to f32) and, with float-kernels, f32
// linalg.matmul / batch_matmul run the f32 loop nests of CpuKernels.cpp.
// Everything else (rhs zero points of integer GEMMs, integer 4-bit GEMMs,
// batched octet.matmul, f16/bf16 results, non-x86 hosts) is left for
// convert-octet-to-linalg, the portable lowering, which stays correct for
// every octet.matmul.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Conversion/Passes.h"
#include "octet/Runtime/CpuPack.h"
#include "octet/Target/Capabilities.h"
#include "octet/Target/Strategy.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_CONVERTOCTETTOCPU
#define GEN_PASS_DEF_OCTETEMITCPUKERNELS
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

StringRef mlir::octet::stringifyCpuKernelIsa(CpuKernelIsa isa) {
  switch (isa) {
  case CpuKernelIsa::automatic:
    return "auto";
  case CpuKernelIsa::avx2:
    return "avx2";
  case CpuKernelIsa::avx512_vnni:
    return "avx512-vnni";
  case CpuKernelIsa::amx_int8:
    return "amx-int8";
  case CpuKernelIsa::none:
    return "none";
  }
  return "";
}

std::optional<CpuKernelIsa> mlir::octet::symbolizeCpuKernelIsa(StringRef name) {
  for (CpuKernelIsa isa :
       {CpuKernelIsa::automatic, CpuKernelIsa::avx2, CpuKernelIsa::avx512_vnni,
        CpuKernelIsa::amx_int8, CpuKernelIsa::none})
    if (stringifyCpuKernelIsa(isa) == name)
      return isa;
  return std::nullopt;
}

namespace {

/// The kernel family that runs an octet.matmul under `strategy`; none when
/// the generated kernels do not (the portable lowering does).
std::optional<Isa> getKernelIsa(StrategyAttr strategy, MatmulOp op) {
  switch (strategy.getKind()) {
  case StrategyKind::fallback:
    // A dequantize fallback of FP8 is what the FP8 kernels do (decode to
    // f32 in registers); other fallbacks take the portable path.
    if (!op.getRhsScheme().isFloat8())
      return std::nullopt;
    [[fallthrough]];
  case StrategyKind::weight_only:
    // The f32 loop nests on an x86 float unit.
    if (strategy.getUnit() == KernelUnit::fma ||
        strategy.getUnit() == KernelUnit::avx512_fma)
      return Isa::fma;
    return std::nullopt;
  case StrategyKind::native:
  case StrategyKind::compensated:
    switch (strategy.getUnit()) {
    case KernelUnit::amx:
      return Isa::amx;
    case KernelUnit::avx512_vnni:
      return Isa::vnni512;
    // The 256-bit VNNI levels run the AVX2 kernels (exact s16 products).
    case KernelUnit::avx2:
    case KernelUnit::avx_vnni:
    case KernelUnit::avx_vnni_int8:
      return Isa::avx2;
    default:
      return std::nullopt;
    }
  case StrategyKind::fused:
  case StrategyKind::elementwise:
    return std::nullopt;
  }
  return std::nullopt;
}

/// The x86 level `isa` selects strategies for; null for automatic/none.
const target::TargetInfo *getForcedLevel(CpuKernelIsa isa) {
  switch (isa) {
  case CpuKernelIsa::avx2:
    return &target::getTargetInfo(target::TargetId::avx2);
  case CpuKernelIsa::avx512_vnni:
    return &target::getTargetInfo(target::TargetId::avx512_vnni);
  case CpuKernelIsa::amx_int8:
    return &target::getTargetInfo(target::TargetId::amx_int8);
  case CpuKernelIsa::automatic:
  case CpuKernelIsa::none:
    return nullptr;
  }
  return nullptr;
}

/// Per-row/per-column kind of an lhs (`rowAxis` 0) or rhs/output (1)
/// parameter under `scheme`; none when the kernels do not take it.
std::optional<Param> paramKind(SchemeAttr scheme, int64_t axis, int64_t k) {
  switch (scheme.getGranularity()) {
  case Granularity::per_tensor:
    return Param::scalar;
  case Granularity::per_axis:
    if (scheme.getAxis() == axis)
      return Param::vector;
    return std::nullopt;
  case Granularity::per_group:
    // Per-token lhs parameters are a group over the whole K.
    if (axis == 0 && scheme.getAxis() == 1 && scheme.getGroupSize() == k)
      return Param::vector;
    return std::nullopt;
  }
  return std::nullopt;
}

bool isByteInteger(SchemeAttr scheme) {
  return scheme.getFormat() == StorageFormat::i8 ||
         scheme.getFormat() == StorageFormat::u8;
}

/// What the rewrite needs besides the config.
struct Plan {
  GemmConfig config;
  /// The constant codes of the rhs and whether they are stored N x K (the
  /// rhs is `linalg.transpose` [1, 0] of the constant, which is how
  /// PyTorch-style [out, in] weights reach octet.matmul); null when the rhs
  /// is not a constant.
  ElementsAttr rhsConstant;
  bool rhsTransposed = false;
  int64_t k = 0, n = 0;
};

/// The raw bytes of a 1-byte-element constant, or none.
std::optional<ArrayRef<char>> rawBytes(ElementsAttr attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.getRawData();
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = res.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

/// Matches `rhs` = constant or `linalg.transpose` [1, 0] of a constant with
/// readable bytes (dense or a dense_resource blob).
bool matchRhsConstant(Value rhs, Plan &plan) {
  Value source = rhs;
  plan.rhsTransposed = false;
  if (auto t = rhs.getDefiningOp<linalg::TransposeOp>()) {
    if (t.getPermutation() != ArrayRef<int64_t>{1, 0})
      return false;
    source = t.getInput();
    plan.rhsTransposed = true;
  }
  ElementsAttr attr;
  if (!matchPattern(source, m_Constant(&attr)) || !rawBytes(attr))
    return false;
  // 8-bit codes, or 4-bit ones (a byte each in the attribute's storage).
  unsigned width = cast<ShapedType>(attr.getType()).getElementTypeBitWidth();
  if (width != 8 && width != 4)
    return false;
  plan.rhsConstant = attr;
  return true;
}

/// The rhs elements of `plan` (`elemBytes` each), K x N row-major
/// (transposed here, at compile time, when the constant is N x K).
std::vector<char> readRhsBytes(const Plan &plan, int64_t elemBytes) {
  int64_t k = plan.k, n = plan.n, e = elemBytes;
  std::vector<char> out(static_cast<size_t>(k * n * e), 0);
  ArrayRef<char> raw = *rawBytes(plan.rhsConstant);
  auto dense = dyn_cast<DenseElementsAttr>(plan.rhsConstant);
  if (dense && dense.isSplat()) {
    for (int64_t i = 0; i < k * n; ++i)
      std::memcpy(&out[i * e], raw.data(), e);
    return out;
  }
  if (raw.size() < out.size())
    return out; // unreachable for a verified constant; zeros, no overread
  if (!plan.rhsTransposed) {
    std::memcpy(out.data(), raw.data(), out.size());
    return out;
  }
  // Blocked transpose of the N x K source.
  constexpr int64_t kBlock = 64;
  for (int64_t j0 = 0; j0 < n; j0 += kBlock)
    for (int64_t i0 = 0; i0 < k; i0 += kBlock)
      for (int64_t j = j0; j < std::min(n, j0 + kBlock); ++j)
        for (int64_t i = i0; i < std::min(k, i0 + kBlock); ++i)
          std::memcpy(&out[(i * n + j) * e], &raw[(j * k + i) * e], e);
  return out;
}

/// The 1-byte rhs codes of `plan`, K x N row-major (the bytes of
/// readRhsBytes, seen as int8 without a second copy).
struct RhsCodes {
  std::vector<char> bytes;
  const int8_t *data() const {
    return reinterpret_cast<const int8_t *>(bytes.data());
  }
  size_t size() const { return bytes.size(); }
  int8_t operator[](size_t i) const { return data()[i]; }
};

RhsCodes readRhsCodes(const Plan &plan) { return {readRhsBytes(plan, 1)}; }

/// A float contraction the f32 kernels take: linalg.matmul or
/// linalg.batch_matmul on f32 tensors, lhs (b, m, k), rhs (b, k, n) or
/// (b, n, k), result (b, m, n), init filled with +0.0.
struct FloatContraction {
  Value lhs, rhs;
  int64_t batch = 0; ///< 0: not batched
  bool rhsTransposed = false;
  int64_t k = 0, n = 0;
};

FailureOr<FloatContraction> matchFloatContraction(linalg::LinalgOp op,
                                                  std::string &why) {
  auto fail = [&](const Twine &reason) -> FailureOr<FloatContraction> {
    why = reason.str();
    return failure();
  };
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  if (!batched && !isa<linalg::MatmulOp>(op.getOperation()))
    return fail("not a matmul");
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return fail("not on tensors");
  FloatContraction fc;
  fc.lhs = op.getDpsInputOperand(0)->get();
  fc.rhs = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto lt = dyn_cast<RankedTensorType>(fc.lhs.getType());
  auto rt = dyn_cast<RankedTensorType>(fc.rhs.getType());
  auto ct = dyn_cast<RankedTensorType>(init.getType());
  if (!lt || !rt || !ct || !lt.getElementType().isF32() ||
      !rt.getElementType().isF32() || !ct.getElementType().isF32())
    return fail("not f32");
  // The maps: standard or with the rhs transposed.
  MLIRContext *ctx = op->getContext();
  unsigned dims = batched ? 4 : 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> bp;
  if (batched)
    bp.push_back(d(0));
  unsigned o = batched ? 1 : 0; // m = o, n = o + 1, k = o + 2
  auto map = [&](ArrayRef<AffineExpr> r) {
    SmallVector<AffineExpr> e(bp);
    e.append(r.begin(), r.end());
    return AffineMap::get(dims, 0, e, ctx);
  };
  AffineMap aMap = map({d(o), d(o + 2)}), bMap = map({d(o + 2), d(o + 1)}),
            btMap = map({d(o + 1), d(o + 2)}), cMap = map({d(o), d(o + 1)});
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[0] != aMap || maps[2] != cMap ||
      (maps[1] != bMap && maps[1] != btMap))
    return fail("indexing maps other than (m, k) x (k, n) or (n, k)");
  fc.rhsTransposed = maps[1] == btMap;
  if (!rt.hasStaticShape() || ShapedType::isDynamic(lt.getDimSize(o + 1)))
    return fail("dynamic K, N or batch");
  if (batched) {
    fc.batch = rt.getDimSize(0);
    if (lt.getDimSize(0) != fc.batch || ct.getDimSize(0) != fc.batch)
      return fail("batch sizes differ");
  }
  fc.k = fc.rhsTransposed ? rt.getDimSize(o + 1) : rt.getDimSize(o);
  fc.n = fc.rhsTransposed ? rt.getDimSize(o) : rt.getDimSize(o + 1);
  if (fc.k == 0 || fc.n == 0 || (batched && fc.batch == 0))
    return fail("empty K, N or batch");
  // A +0.0 init: the kernels start their sums at +0.0.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr zero;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&zero)) ||
      !zero.getValue().isPosZero())
    return fail("init is not filled with +0.0");
  return fc;
}

/// Checks that `op` is covered and fills the kernel description; the
/// reason otherwise.
FailureOr<Plan> planMatmul(MatmulOp op, std::optional<Isa> isaChoice,
                           std::string &why) {
  Plan plan;
  GemmConfig &c = plan.config;
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resType = cast<RankedTensorType>(op.getResult().getType());
  auto fail = [&](const Twine &reason) -> FailureOr<Plan> {
    why = reason.str();
    return failure();
  };
  if (!isaChoice)
    return fail("no generated x86 kernel for the strategy's unit");
  if (lhsType.getRank() != 2 || rhsType.getRank() != 2)
    return fail("batched matmul");
  if (!rhsType.hasStaticShape() || ShapedType::isDynamic(lhsType.getDimSize(1)))
    return fail("dynamic K or N");
  plan.k = rhsType.getDimSize(0);
  plan.n = rhsType.getDimSize(1);
  if (plan.k == 0 || plan.n == 0)
    return fail("empty K or N");
  SchemeAttr rhsScheme = op.getRhsScheme();
  bool nibbles = rhsScheme.getFormat() == StorageFormat::i4 ||
                 rhsScheme.getFormat() == StorageFormat::u4;
  std::optional<SchemeAttr> lhsFp8;
  if (std::optional<SchemeAttr> ls = op.getLhsScheme(); ls && ls->isFloat8())
    lhsFp8 = *ls;
  // FP8 x FP8 (or f32 x FP8): decoded to f32 in the f32 loop nests (x86
  // has no FP8 arithmetic; this is the dequantize fallback, done in the
  // kernel's registers).
  bool fp8 = rhsScheme.isFloat8() && (lhsFp8 || op.hasFloatLhs());
  if (lhsFp8 && !rhsScheme.isFloat8())
    return fail("FP8 lhs with a non-FP8 rhs");
  if (!isByteInteger(rhsScheme) && !fp8 && !(nibbles && op.hasFloatLhs()))
    return fail(op.hasFloatLhs() ? "rhs format is not i8/u8/i4/u4/FP8"
                                 : "rhs format is not i8/u8");
  c.rhsUnsigned = rhsScheme.isUnsigned();
  std::optional<Param> sb = paramKind(rhsScheme, 1, plan.k);
  // Weight-only: per-group scales along K (groups of a multiple of 8 rows
  // that divides K), applied per group in the kernel.
  if (!sb && op.hasFloatLhs() &&
      rhsScheme.getGranularity() == Granularity::per_group &&
      rhsScheme.getAxis() == 0 && rhsScheme.getGroupSize() % 8 == 0 &&
      plan.k % rhsScheme.getGroupSize() == 0) {
    sb = Param::vector;
    c.group = rhsScheme.getGroupSize();
  }
  if (!sb)
    return fail(op.hasFloatLhs()
                    ? "rhs scale is not per-tensor, per-column or per-group "
                      "of a multiple of 8 rows dividing K"
                    : "rhs scale is not per-tensor or per-column");
  c.sb = *sb;

  // Epilogue.
  c.bias = static_cast<bool>(op.getBias());
  c.relu = op.getRelu();
  Type resElem = resType.getElementType();
  if (std::optional<SchemeAttr> out = op.getOutScheme()) {
    if (!isByteInteger(*out))
      return fail("requantized result is not i8/u8");
    std::optional<Param> os = paramKind(*out, 1, plan.k);
    if (!os)
      return fail("output scale is not per-tensor or per-column");
    c.outScheme = *out;
    c.os = *os;
    c.oz = op.getOutZeroPoint() ? *os : Param::none;
  } else if (!resElem.isF32()) {
    return fail("result is not f32");
  }

  if (op.hasFloatLhs() || lhsFp8) {
    if (!lhsFp8 && !lhsType.getElementType().isF32())
      return fail("float lhs is not f32");
    c.weightOnly = true;
    c.isa = Isa::fma;
    if (fp8) {
      c.rhsFp8 = 1 + static_cast<int64_t>(rhsScheme.getFormat());
      if (lhsFp8) {
        c.lhsFp8 = 1 + static_cast<int64_t>(lhsFp8->getFormat());
        std::optional<Param> sa = paramKind(*lhsFp8, 0, plan.k);
        if (!sa)
          return fail("lhs scale is not per-tensor or per-row");
        c.sa = *sa;
      }
      if (c.group)
        return fail("per-group FP8 rhs scales");
    }
    // A transposed constant is transposed once here instead of on every
    // call; any other rhs is read where it is. 4-bit codes are packed two
    // per byte here, so they must be constant.
    bool constant = matchRhsConstant(op.getRhs(), plan);
    if (nibbles && !constant)
      return fail("4-bit rhs is not a constant (packed at compile time)");
    c.rhsNibbles = nibbles;
    if (!constant || (!plan.rhsTransposed && !nibbles))
      plan.rhsConstant = nullptr;
    if (op.getRhsZeroPoint() && c.group)
      return fail("per-group rhs zero points");
    c.zb = op.getRhsZeroPoint() ? c.sb : Param::none;
    setTileSizes(c);
    return plan;
  }

  std::optional<SchemeAttr> lhsScheme = op.getLhsScheme();
  if (!lhsScheme || !isByteInteger(*lhsScheme))
    return fail("lhs format is not i8/u8");
  if (op.getRhsZeroPoint())
    return fail("integer GEMM with an rhs zero point");
  if (!matchRhsConstant(op.getRhs(), plan))
    return fail("rhs is not a constant or a transposed constant (weights "
                "are packed at compile time)");
  c.lhsUnsigned = lhsScheme->isUnsigned();
  std::optional<Param> sa = paramKind(*lhsScheme, 0, plan.k);
  if (!sa)
    return fail("lhs scale is not per-tensor or per-row");
  c.sa = *sa;
  c.za = op.getLhsZeroPoint() ? *sa : Param::none;
  c.isa = *isaChoice;
  // AMX here is tdpbssd (s8 x s8); VNNI takes an unsigned rhs only through
  // a second compensation, which the AVX2 kernel does not need.
  if (c.isa == Isa::amx && (c.lhsUnsigned || c.rhsUnsigned))
    c.isa = Isa::vnni512;
  if (c.isa == Isa::vnni512 && c.rhsUnsigned)
    c.isa = Isa::avx2;
  setTileSizes(c);
  return plan;
}

/// Emits the rewrite of one planned op.
class CallSiteEmitter {
public:
  CallSiteEmitter(RewriterBase &b, Operation *op, const Plan &plan,
                  ModuleOp module)
      : b(b), op(op), plan(plan), c(plan.config), module(module),
        loc(op->getLoc()) {
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  }

  /// The rewrite of an octet.matmul.
  Value emit();
  /// The rewrite of a float contraction.
  Value emitFloat(const FloatContraction &fc);

private:
  Value cst(int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v); }
  Value cst32(int32_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  }
  /// The address of a memref's first element, as i64.
  Value addressOfBuffer(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value offset = arith::MulIOp::create(
        b, loc, meta.getOffset(),
        arith::ConstantIndexOp::create(
            b, loc, type.getElementTypeBitWidth() / 8));
    Value addr = arith::AddIOp::create(b, loc, base, offset);
    return arith::IndexCastOp::create(b, loc, i64, addr);
  }
  /// The address of a tensor's data (an identity-layout buffer).
  Value addressOf(Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                                     /*read_only=*/true);
    return addressOfBuffer(buffer);
  }
  Value addressOfConstant(DenseElementsAttr attr) {
    Value t = arith::ConstantOp::create(b, loc, attr);
    return addressOf(t);
  }
  Value ptr(Value i) { return LLVM::IntToPtrOp::create(b, loc, ptrTy, i); }
  /// The address of a NUL-terminated constant string.
  Value globalString(StringRef text) {
    std::string name = ("__octet_str_" + text).str();
    for (char &ch : name)
      if (!llvm::isAlnum(ch))
        ch = '_';
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder mb(module.getBodyRegion());
      mb.setInsertionPointToStart(module.getBody());
      std::string value = text.str();
      value.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
      global = LLVM::GlobalOp::create(mb, loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal, name,
                                      mb.getStringAttr(value));
    }
    return LLVM::AddressOfOp::create(b, loc, global);
  }
  Value call(StringRef name, TypeRange results, ValueRange args) {
    return callRuntime(b, loc, module, name, results, args);
  }

  RewriterBase &b;
  /// Slots of the weight-only / f32 kernels' decode and tiled loop nests
  /// (M rows of N columns); returns the number of tasks.
  Value weightOnlyTasks(Value m, int64_t n, SmallVectorImpl<Value> &slots);
  /// The context slots, zero but for M and N.
  SmallVector<Value> initialSlots(Value m, int64_t n) {
    SmallVector<Value> slots(kNumSlots);
    for (Value &s : slots)
      s = cst(0);
    slots[kM] = m;
    slots[kN] = cst(n);
    return slots;
  }
  /// Stores `slots` into a context block and runs the task function of the
  /// config over `tasks` tasks on the thread pool.
  void runTasks(ArrayRef<Value> slots, Value tasks);

  Operation *op;
  const Plan &plan;
  const GemmConfig &c;
  ModuleOp module;
  Location loc;
  Type i32, i64, ptrTy;
};

Value CallSiteEmitter::weightOnlyTasks(Value m, int64_t n,
                                       SmallVectorImpl<Value> &slots) {
  // Decode (M < MR): one column strip of N / threads columns (a multiple
  // of 64) per thread. Otherwise tiles of MC x NC.
  Value threads = arith::ExtSIOp::create(
      b, loc, i64, call("octet_get_num_threads", {i32}, {}));
  auto ceilDiv = [&](Value x, Value y) {
    return arith::DivSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, x,
                              arith::SubIOp::create(b, loc, y, cst(1))),
        y);
  };
  Value strip = arith::MulIOp::create(
      b, loc, ceilDiv(ceilDiv(cst(n), threads), cst(64)), cst(64));
  slots[kNc] = strip;
  int64_t tilesN = (n + c.nc - 1) / c.nc;
  slots[kTilesN] = cst(tilesN);
  Value decode =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m, cst(c.mr));
  Value tiled =
      arith::MulIOp::create(b, loc, ceilDiv(m, cst(c.mc)), cst(tilesN));
  return arith::SelectOp::create(b, loc, decode, ceilDiv(cst(n), strip),
                                 tiled);
}

Value CallSiteEmitter::emitFloat(const FloatContraction &fc) {
  int64_t k = fc.k, n = fc.n;
  unsigned mDim = fc.batch ? 1 : 0;
  Value mIndex = tensor::DimOp::create(b, loc, fc.lhs, mDim);
  Value m = arith::IndexCastOp::create(b, loc, i64, mIndex);
  SmallVector<Value> slots = initialSlots(m, n);
  slots[kK] = cst(k);
  slots[kLda] = cst(k);
  slots[kA] = addressOf(fc.lhs);
  if (plan.rhsConstant) {
    // A constant N x K rhs, transposed once here.
    std::vector<char> bytes = readRhsBytes(plan, 4);
    slots[kB] = addressOfConstant(DenseElementsAttr::getFromRawBuffer(
        RankedTensorType::get({k, n}, b.getF32Type()), bytes));
  } else {
    slots[kB] = addressOf(fc.rhs);
  }
  Value tasks = weightOnlyTasks(m, n, slots);
  auto resType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> shape(resType.getShape());
  SmallVector<Value> dynSizes;
  shape[mDim] = ShapedType::kDynamic;
  for (auto [i, extent] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(extent))
      dynSizes.push_back(i == mDim ? mIndex
                                   : tensor::DimOp::create(b, loc, fc.lhs, i)
                                         .getResult());
  if (fc.batch) {
    slots[kBatchTasks] = tasks;
    slots[kStrideA] = arith::MulIOp::create(b, loc, m, cst(k * 4));
    slots[kStrideB] = cst(k * n * 4);
    slots[kStrideC] = arith::MulIOp::create(b, loc, m, cst(n * 4));
    tasks = arith::MulIOp::create(b, loc, tasks, cst(fc.batch));
  }
  auto outType = MemRefType::get(shape, b.getF32Type());
  Value out = memref::AllocOp::create(b, loc, outType, dynSizes,
                                      b.getI64IntegerAttr(64));
  slots[kC] = addressOfBuffer(out);
  runTasks(slots, tasks);
  Value result = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(shape, b.getF32Type()), out,
      /*restrict=*/true, /*writable=*/true);
  if (result.getType() != resType)
    result = tensor::CastOp::create(b, loc, resType, result);
  return result;
}

Value CallSiteEmitter::emit() {
  auto op = cast<MatmulOp>(this->op);
  int64_t k = plan.k, n = plan.n;
  Value mIndex = tensor::DimOp::create(b, loc, op.getLhs(), 0);
  Value m = arith::IndexCastOp::create(b, loc, i64, mIndex);
  SmallVector<Value> slots = initialSlots(m, n);
  Value tasks;

  if (c.weightOnly) {
    slots[kA] = addressOf(op.getLhs());
    if (plan.rhsConstant && c.rhsNibbles) {
      // Two codes per byte, low nibble first; rows padded to 8 codes.
      RhsCodes codes = readRhsCodes(plan);
      int64_t rowBytes = (n + 7) / 8 * 4;
      std::vector<uint8_t> packed(static_cast<size_t>(k * rowBytes), 0);
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j)
          packed[i * rowBytes + j / 2] |= static_cast<uint8_t>(
              (codes[i * n + j] & 0xF) << (4 * (j % 2)));
      slots[kB] = addressOfConstant(DenseElementsAttr::get(
          RankedTensorType::get({k * rowBytes}, b.getI8Type()),
          ArrayRef<int8_t>(reinterpret_cast<const int8_t *>(packed.data()),
                           packed.size())));
    } else if (plan.rhsConstant) {
      RhsCodes codes = readRhsCodes(plan);
      slots[kB] = addressOfConstant(DenseElementsAttr::get(
          RankedTensorType::get({k, n}, b.getI8Type()),
          ArrayRef<int8_t>(codes.data(), codes.size())));
    } else {
      slots[kB] = addressOf(op.getRhs());
    }
    slots[kK] = cst(k);
    slots[kLda] = cst(k);
    tasks = weightOnlyTasks(m, n, slots);
    if (Value zb = op.getRhsZeroPoint())
      slots[kZb] = addressOf(zb);
  } else {
    // Weights, packed at compile time.
    int64_t kpad = ::octet::cpu::roundUp(k, c.kAlign);
    int64_t npad = ::octet::cpu::roundUp(n, c.isa == Isa::amx ? 32 : c.nr());
    RhsCodes codes = readRhsCodes(plan);
    std::vector<int8_t> packed(static_cast<size_t>(npad * kpad));
    ::octet::cpu::packRhs(codes.data(), k, n, n, c.packNr, c.kp, kpad,
                          packed.data());
    auto packedType = RankedTensorType::get(
        {static_cast<int64_t>(packed.size())}, b.getI8Type());
    slots[kB] = addressOfConstant(DenseElementsAttr::get(
        packedType, ArrayRef<int8_t>(packed.data(), packed.size())));
    bool needComp = c.isa != Isa::avx2 &&
                    (c.za != Param::none ||
                     (c.isa == Isa::vnni512 && !c.lhsUnsigned));
    if (needComp) {
      std::vector<int32_t> sums(static_cast<size_t>(npad), 0);
      ::octet::cpu::rhsColumnSums(codes.data(), k, n, n, c.rhsUnsigned,
                                  sums.data());
      auto sumType = RankedTensorType::get({npad}, i32);
      slots[kComp] = addressOfConstant(
          DenseElementsAttr::get(sumType, ArrayRef<int32_t>(sums)));
    }
    slots[kK] = cst(kpad);

    // Activations, packed at run time into this thread's scratch slot 0.
    using ::octet::cpu::LhsMode;
    LhsMode mode = c.isa == Isa::avx2      ? LhsMode::s16MinusZp
                   : c.isa == Isa::vnni512 ? LhsMode::u8Shifted
                                           : LhsMode::s8Rows;
    int64_t esA = c.isa == Isa::avx2 ? 2 : 1;
    int64_t mr = c.isa == Isa::amx ? 32 : c.mr;
    Value mPad = arith::MulIOp::create(
        b, loc,
        arith::DivSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, m, cst(mr - 1)), cst(mr)),
        cst(mr));
    Value bytes = arith::MulIOp::create(b, loc, mPad, cst(kpad * esA));
    Value packedA = call("octet_cpu_scratch", {ptrTy}, {cst32(0), bytes});
    Value zaAddr = cst(0);
    if (Value za = op.getLhsZeroPoint()) {
      zaAddr = addressOf(za);
      slots[kZa] = zaAddr;
    }
    int32_t modeBits = static_cast<int32_t>(mode) |
                       (c.lhsUnsigned ? ::octet::cpu::kLhsUnsignedBit : 0);
    call("octet_cpu_pack_lhs", {},
         {ptr(addressOf(op.getLhs())), m, cst(k), cst(k), cst32(modeBits),
          ptr(mode == LhsMode::s16MinusZp ? zaAddr : cst(0)),
          cst32(c.za == Param::vector ? 1 : 0), cst(mr), cst(kpad), packedA});
    slots[kA] = LLVM::PtrToIntOp::create(b, loc, i64, packedA);
    // The kernel's instructions exist on this CPU (checked once per
    // process and feature list; a clear message instead of SIGILL).
    std::string features =
        llvm::join(getRequiredFeatures(c.isa), ",");
    call("octet_cpu_require_features", {}, {globalString(features)});
    if (c.isa == Isa::amx)
      call("octet_cpu_require_amx", {},
           {LLVM::ZeroOp::create(b, loc, ptrTy).getResult()});
    int64_t tilesN = (npad + c.nc - 1) / c.nc;
    Value tilesM = arith::DivSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, mPad, cst(c.mc - 1)),
        cst(c.mc));
    slots[kTilesN] = cst(tilesN);
    tasks = arith::MulIOp::create(b, loc, tilesM, cst(tilesN));
  }

  if (Value sa = op.getLhsScale(); sa && c.sa != Param::none)
    slots[kSa] = addressOf(sa);
  slots[kSb] = addressOf(op.getRhsScale());
  if (Value bias = op.getBias())
    slots[kBias] = addressOf(bias);
  if (c.outScheme) {
    slots[kOs] = addressOf(op.getOutScale());
    if (Value oz = op.getOutZeroPoint())
      slots[kOz] = addressOf(oz);
  }

  // The result buffer.
  auto resType = cast<RankedTensorType>(op.getResult().getType());
  auto outType =
      MemRefType::get({ShapedType::kDynamic, n}, resType.getElementType());
  Value out = memref::AllocOp::create(b, loc, outType, ValueRange{mIndex},
                                      b.getI64IntegerAttr(64));
  slots[kC] = addressOfBuffer(out);

  runTasks(slots, tasks);

  Value result = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(outType.getShape(), outType.getElementType()),
      out, /*restrict=*/true, /*writable=*/true);
  if (result.getType() != resType)
    result = tensor::CastOp::create(b, loc, resType, result);
  return result;
}

void CallSiteEmitter::runTasks(ArrayRef<Value> slots, Value tasks) {
  // The context block and the parallel loop over tiles.
  auto ctxType = MemRefType::get({kNumSlots}, i64);
  Value ctx = memref::AllocaOp::create(b, loc, ctxType, b.getI64IntegerAttr(8));
  for (auto [i, v] : llvm::enumerate(slots))
    memref::StoreOp::create(b, loc, v, ctx,
                            ValueRange{arith::ConstantIndexOp::create(
                                b, loc, static_cast<int64_t>(i))});
  func::FuncOp task = getOrDeclareTaskFunction(module, c);
  Value fn = func::ConstantOp::create(b, loc, task.getFunctionType(),
                                      SymbolRefAttr::get(task));
  call("octet_parallel_for", {}, {tasks, fn, ptr(addressOfBuffer(ctx))});
}

struct ConvertOctetToCPUPass
    : public mlir::octet::impl::ConvertOctetToCPUBase<ConvertOctetToCPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (kernelIsa == CpuKernelIsa::none)
      return;
    // The target whose strategies the ops follow: a forced x86 level (every
    // op selected again), else the module's (ops without a strategy are
    // selected on it).
    const target::TargetInfo *target = getForcedLevel(kernelIsa);
    if (!target) {
      FailureOr<const target::TargetInfo *> moduleTarget =
          target::getModuleTargetOrHost(module,
                                        [&] { return module.emitError(); });
      if (failed(moduleTarget))
        return signalPassFailure();
      target = *moduleTarget;
    }

    SmallVector<MatmulOp> ops;
    module.walk([&](MatmulOp op) { ops.push_back(op); });
    IRRewriter rewriter(module.getContext());
    for (MatmulOp op : ops) {
      StrategyAttr strategy;
      if (kernelIsa == CpuKernelIsa::automatic)
        strategy = target::getOrSelectStrategy(op, *target);
      else if (std::optional<target::StrategyChoice> choice =
                   target::selectStrategy(op, *target))
        strategy = choice->getAttr(&getContext(), *target);
      std::optional<Isa> opIsa =
          strategy ? getKernelIsa(strategy, op) : std::nullopt;
      std::string why;
      FailureOr<Plan> plan = planMatmul(op, opIsa, why);
      if (failed(plan)) {
        if (remarks)
          op.emitRemark() << "convert-octet-to-cpu: portable lowering ("
                          << why << ")";
        continue;
      }
      rewriter.setInsertionPoint(op);
      CallSiteEmitter emitter(rewriter, op, *plan, module);
      Value result = emitter.emit();
      Operation *rhsDef = op.getRhs().getDefiningOp();
      rewriter.replaceOp(op, result);
      // The transpose read through at compile time (and its operands, the
      // weights among them) are dead unless something else uses them.
      eraseDeadTranspose(rewriter, rhsDef);
    }
    if (floatKernels && target->arch == target::Arch::x86)
      lowerFloatContractions(module, rewriter);
  }

  /// The transpose read through at compile time (and its operands, the
  /// weights among them) are dead unless something else uses them.
  static void eraseDeadTranspose(RewriterBase &rewriter, Operation *def) {
    auto t = dyn_cast_or_null<linalg::TransposeOp>(def);
    if (!t || !t->use_empty())
      return;
    SmallVector<Operation *> defs;
    for (Value v : t->getOperands())
      if (Operation *d = v.getDefiningOp())
        defs.push_back(d);
    rewriter.eraseOp(t);
    for (Operation *d : defs)
      if (d->use_empty() && isMemoryEffectFree(d))
        rewriter.eraseOp(d);
  }

  void lowerFloatContractions(ModuleOp module, IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      std::string why;
      FailureOr<FloatContraction> fc = matchFloatContraction(op, why);
      if (failed(fc)) {
        if (remarks)
          op->emitRemark() << "convert-octet-to-cpu: f32 contraction left to "
                              "the portable lowering ("
                           << why << ")";
        continue;
      }
      Plan plan;
      GemmConfig &c = plan.config;
      c.isa = Isa::fma;
      c.weightOnly = true;
      c.floatRhs = true;
      c.sb = Param::none;
      c.batched = fc->batch != 0;
      plan.k = fc->k;
      plan.n = fc->n;
      // A constant rhs read through (K x N, or N x K transposed here).
      ElementsAttr attr;
      if (!c.batched && matchPattern(fc->rhs, m_Constant(&attr)) &&
          rawBytes(attr)) {
        plan.rhsConstant = attr;
        plan.rhsTransposed = fc->rhsTransposed;
      } else {
        c.rhsTransposed = fc->rhsTransposed;
      }
      setTileSizes(c);
      Operation *fill = op.getDpsInitOperand(0)->get().getDefiningOp();
      Operation *rhsDef = fc->rhs.getDefiningOp();
      rewriter.setInsertionPoint(op);
      CallSiteEmitter emitter(rewriter, op, plan, module);
      Value result = emitter.emitFloat(*fc);
      rewriter.replaceOp(op, result);
      for (Operation *d : {fill, rhsDef})
        if (d && d->use_empty() && isMemoryEffectFree(d))
          rewriter.eraseOp(d);
    }
  }
};

struct OctetEmitCpuKernelsPass
    : public mlir::octet::impl::OctetEmitCpuKernelsBase<
          OctetEmitCpuKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> tasks;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isExternal() && f->hasAttr(kKernelAttrName))
        tasks.push_back(f);
    for (func::FuncOp f : tasks) {
      auto attr = f->getAttrOfType<DictionaryAttr>(kKernelAttrName);
      FailureOr<GemmConfig> config =
          attr ? parseConfigAttr(attr) : FailureOr<GemmConfig>(failure());
      if (failed(config)) {
        f.emitOpError() << "has an invalid " << kKernelAttrName
                        << " description";
        return signalPassFailure();
      }
      emitTaskBody(f, *config);
    }
  }
};

} // namespace
