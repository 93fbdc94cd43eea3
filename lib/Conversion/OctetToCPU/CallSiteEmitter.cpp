//===- CallSiteEmitter.cpp - The call of a generated CPU kernel -----------===//
//
// The rewrite of one planned octet.matmul or f32 contraction: constant
// weights packed at compile time into the kernel's layout
// (octet/Runtime/CpuPack.h), with their column sums when the kernel needs a
// compensation term; at run time the activations packed
// (octet_cpu_pack_lhs), the context slots filled, and octet_parallel_for
// running the task function over the output tiles; the result a fresh
// buffer returned to tensor land with bufferization.to_tensor.
//
//===----------------------------------------------------------------------===//

#include "CallSiteEmitter.h"
#include "octet/Runtime/CpuPack.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

//===----------------------------------------------------------------------===//
// Constant weights
//===----------------------------------------------------------------------===//

/// The rhs elements of `plan` (`elemBytes` each), K x N row-major
/// (transposed here, at compile time, when the constant is N x K).
static std::vector<char> readRhsBytes(const Plan &plan, int64_t elemBytes) {
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

namespace {

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

} // namespace

static RhsCodes readRhsCodes(const Plan &plan) {
  return {readRhsBytes(plan, 1)};
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

Value CallSiteEmitter::addressOfBuffer(Value memref) {
  return bufferAddress(b, loc, memref);
}

Value CallSiteEmitter::addressOf(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                                   /*read_only=*/true);
  return addressOfBuffer(buffer);
}

Value CallSiteEmitter::addressOfConstant(DenseElementsAttr attr) {
  Value t = arith::ConstantOp::create(b, loc, attr);
  return addressOf(t);
}

Value CallSiteEmitter::globalString(StringRef text) {
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

SmallVector<Value> CallSiteEmitter::initialSlots(Value m, int64_t n) {
  SmallVector<Value> slots(kNumSlots);
  for (Value &s : slots)
    s = cst(0);
  slots[kM] = m;
  slots[kN] = cst(n);
  return slots;
}

//===----------------------------------------------------------------------===//
// octet.matmul
//===----------------------------------------------------------------------===//

Value CallSiteEmitter::emit(bool fuseDynamicQuantize) {
  auto op = cast<MatmulOp>(this->op);
  int64_t n = plan.n;
  // (Matched before anything here uses the lhs.)
  if (fuseDynamicQuantize && !c.weightOnly)
    dynamicLhs = matchDynamicLhs(op);
  Value mIndex = tensor::DimOp::create(
      b, loc, dynamicLhs ? dynamicLhs->quantize.getInput() : op.getLhs(), 0);
  Value m = arith::IndexCastOp::create(b, loc, i64, mIndex);
  SmallVector<Value> slots = initialSlots(m, n);
  Value tasks = c.weightOnly ? weightOnlyOperands(op, m, slots)
                             : integerOperands(op, m, slots);
  epilogueSlots(op, slots);

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

Value CallSiteEmitter::weightOnlyOperands(MatmulOp op, Value m,
                                          SmallVectorImpl<Value> &slots) {
  int64_t k = plan.k, n = plan.n;
  slots[kA] = addressOf(op.getLhs());
  slots[kB] = weightOnlyRhs(op);
  slots[kK] = cst(k);
  slots[kLda] = cst(k);
  Value tasks = weightOnlyTasks(m, n, slots);
  // The bf16 kernel's instructions (a JIT run forced to isa=avx512-bf16 on
  // an AVX2 machine gets a message instead of SIGILL).
  if (c.isa == Isa::dpbf16)
    requireKernelFeatures();
  if (c.isa == Isa::amxBf16)
    lhsAsBf16Tiles(m, slots);
  if (Value zb = op.getRhsZeroPoint())
    slots[kZb] = addressOf(zb);
  return tasks;
}

void CallSiteEmitter::lhsAsBf16Tiles(Value m, SmallVectorImpl<Value> &slots) {
  // From MR rows on (the tiles; below, the decode kernel reads the codes in
  // place): the FP8 codes as bf16 (exact) in AMX tiles of 16 rows x 32 k
  // (M padded to 32 rows, K to 32, zeros), into this thread's scratch
  // slot 0.
  requireKernelFeatures();
  call("octet_cpu_require_amx", {},
       {LLVM::ZeroOp::create(b, loc, ptrTy).getResult()});
  using ::octet::cpu::LhsMode;
  int64_t kpad = ::octet::cpu::roundUp(plan.k, 32);
  Value tiles =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, m, cst(c.mr));
  Value rows = arith::SelectOp::create(b, loc, tiles, m, cst(0));
  Value mPad = roundUp(rows, 32);
  Value bytes = arith::MulIOp::create(b, loc, mPad, cst(kpad * 2));
  Value packed = call("octet_cpu_scratch", {ptrTy}, {cst32(0), bytes});
  LhsMode mode = *c.lhsFp8 == StorageFormat::f8E5M2 ? LhsMode::e5m2Bf16Tiles
                                                    : LhsMode::e4m3Bf16Tiles;
  call("octet_cpu_pack_lhs", {},
       {ptr(slots[kA]), rows, cst(plan.k), cst(plan.k),
        cst32(static_cast<int32_t>(mode)), ptr(cst(0)), cst32(0), cst(32),
        cst(kpad), packed});
  slots[kLhsBf16] = LLVM::PtrToIntOp::create(b, loc, i64, packed);
}

Value CallSiteEmitter::weightOnlyRhs(MatmulOp op) {
  int64_t k = plan.k, n = plan.n;
  if (plan.rhsConstant && c.rhsNibbles) {
    // Two codes per byte in GemmConfig::panelColumns's order: panels of
    // 8 w columns, each with its K rows contiguous, a row w words whose
    // nibble j holds vector j; N padded with zero codes, and one row of
    // zero codes after the last (the panel decode loads each row at byte
    // offsets 0..3: KernelEmitter::weightVectors).
    RhsCodes codes = readRhsCodes(plan);
    int64_t panel = c.panelColumns(), w = c.w;
    int64_t panels = (n + panel - 1) / panel;
    std::vector<uint8_t> packed(
        static_cast<size_t>((panels * k + 1) * panel / 2), 0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t p = j / panel, vector = j % panel / w, lane = j % w;
        size_t at = static_cast<size_t>((p * k + i) * (panel / 2) + lane * 4 +
                                        vector / 2);
        uint8_t code = static_cast<uint8_t>(codes[i * n + j] & 0xF);
        packed[at] |= static_cast<uint8_t>(code << (4 * (vector % 2)));
      }
    return addressOfConstant(DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(packed.size())},
                              b.getI8Type()),
        ArrayRef<int8_t>(reinterpret_cast<const int8_t *>(packed.data()),
                         packed.size())));
  }
  if (plan.rhsConstant) {
    // One code per byte in GemmConfig::panelColumns's order: panels of
    // 8 w columns, each with its K rows contiguous, a row the panel's
    // codes in column order; N padded with zero codes.
    RhsCodes codes = readRhsCodes(plan);
    int64_t panel = c.panelColumns();
    int64_t panels = (n + panel - 1) / panel;
    std::vector<int8_t> packed(static_cast<size_t>(panels * k * panel), 0);
    for (int64_t p = 0; p < panels; ++p) {
      int64_t cols = std::min(panel, n - p * panel);
      for (int64_t i = 0; i < k; ++i)
        std::memcpy(&packed[static_cast<size_t>((p * k + i) * panel)],
                    codes.data() + i * n + p * panel,
                    static_cast<size_t>(cols));
    }
    return addressOfConstant(DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(packed.size())},
                              b.getI8Type()),
        ArrayRef<int8_t>(packed)));
  }
  return addressOf(op.getRhs());
}

Value CallSiteEmitter::packedRhsScales() {
  // GemmConfig::scalePanels: [K / group][N] f32 (or its transpose) as
  // [panel][group][8 w], zeros past N.
  int64_t groups = plan.k / c.group, n = plan.n, panel = c.panelColumns();
  int64_t panels = (n + panel - 1) / panel;
  std::vector<float> packed(static_cast<size_t>(panels * groups * panel), 0.0f);
  ArrayRef<char> raw = *rawBytes(plan.rhsScaleConstant);
  auto dense = dyn_cast<DenseElementsAttr>(plan.rhsScaleConstant);
  bool splat = dense && dense.isSplat(); // else groups x n (planWeightOnly)
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t j = 0; j < n; ++j) {
      size_t src = splat ? 0
                   : plan.rhsScaleTransposed
                       ? static_cast<size_t>((j * groups + g) * 4)
                       : static_cast<size_t>((g * n + j) * 4);
      std::memcpy(&packed[static_cast<size_t>((j / panel * groups + g) * panel +
                                              j % panel)],
                  raw.data() + src, 4);
    }
  return addressOfConstant(DenseElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(packed.size())},
                            b.getF32Type()),
      ArrayRef<float>(packed)));
}

Value CallSiteEmitter::integerOperands(MatmulOp op, Value m,
                                       SmallVectorImpl<Value> &slots) {
  int64_t k = plan.k, n = plan.n;
  // Weights, packed at compile time.
  int64_t kpad = ::octet::cpu::roundUp(k, c.kAlign);
  int64_t npad = ::octet::cpu::roundUp(n, c.isa == Isa::amx ? 32 : c.nr());
  packWeights(kpad, npad, slots);
  slots[kK] = cst(kpad);

  // Activations, packed at run time into this thread's scratch slot 0.
  using ::octet::cpu::LhsMode;
  LhsMode mode = c.isa == Isa::avx2      ? LhsMode::s16MinusZp
                 : c.isa == Isa::vnni512 ? LhsMode::u8Shifted
                                         : LhsMode::s8Tiles;
  int64_t esA = c.isa == Isa::avx2 ? 2 : 1;
  int64_t mr = c.isa == Isa::amx ? 32 : c.mr;
  Value mPad = roundUp(m, mr);
  Value bytes = arith::MulIOp::create(b, loc, mPad, cst(kpad * esA));
  int32_t modeBits = static_cast<int32_t>(mode) |
                     (c.lhsUnsigned ? ::octet::cpu::kLhsUnsignedBit : 0);
  if (std::optional<DynamicLhs> dyn = dynamicLhs) {
    // Per-token quantization fused into the packing: the row scales (and
    // zero points) follow the packed codes in the same scratch (64-byte
    // aligned); the f32 activations are read once, their codes never
    // stored unpacked.
    SchemeAttr s = dyn->quantize.getScheme();
    Value rowBytes = roundUp(arith::MulIOp::create(b, loc, m, cst(4)), 64);
    Value scaleAt = roundUp(bytes, 64);
    Value zpAt = arith::AddIOp::create(b, loc, scaleAt, rowBytes);
    Value total = arith::AddIOp::create(b, loc, zpAt, rowBytes);
    Value packedA = call("octet_cpu_scratch", {ptrTy}, {cst32(0), total});
    Value base = LLVM::PtrToIntOp::create(b, loc, i64, packedA);
    fusedLhsScale = arith::AddIOp::create(b, loc, base, scaleAt);
    Value zpAddr = cst(0);
    if (!s.getSymmetric()) {
      zpAddr = arith::AddIOp::create(b, loc, base, zpAt);
      slots[kZa] = zpAddr;
    }
    call("octet_cpu_quantize_pack_lhs", {},
         {ptr(addressOf(dyn->quantize.getInput())), m, cst(k), cst(k),
          cst32(modeBits), cst32(static_cast<int32_t>(s.getFormat())),
          cst32(s.getQmin()), cst32(s.getQmax()),
          cst32(s.getSymmetric() ? 1 : 0), ptr(fusedLhsScale), ptr(zpAddr),
          cst(mr), cst(kpad), packedA});
    slots[kA] = base;
  } else {
    Value packedA = call("octet_cpu_scratch", {ptrTy}, {cst32(0), bytes});
    Value zaAddr = cst(0);
    if (Value za = op.getLhsZeroPoint()) {
      zaAddr = addressOf(za);
      slots[kZa] = zaAddr;
    }
    call("octet_cpu_pack_lhs", {},
         {ptr(addressOf(op.getLhs())), m, cst(k), cst(k), cst32(modeBits),
          ptr(mode == LhsMode::s16MinusZp ? zaAddr : cst(0)),
          cst32(c.za == Param::vector ? 1 : 0), cst(mr), cst(kpad), packedA});
    slots[kA] = LLVM::PtrToIntOp::create(b, loc, i64, packedA);
  }
  requireKernelFeatures();
  if (c.isa == Isa::amx)
    call("octet_cpu_require_amx", {},
         {LLVM::ZeroOp::create(b, loc, ptrTy).getResult()});
  int64_t tilesN = (npad + c.nc - 1) / c.nc;
  Value tilesM = arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, mPad, cst(c.mc - 1)),
      cst(c.mc));
  slots[kTilesN] = cst(tilesN);
  return arith::MulIOp::create(b, loc, tilesM, cst(tilesN));
}

std::optional<CallSiteEmitter::DynamicLhs>
CallSiteEmitter::matchDynamicLhs(MatmulOp op) {
  auto quantize = op.getLhs().getDefiningOp<QuantizeOp>();
  if (!quantize || !quantize->hasOneUse())
    return std::nullopt;
  auto params = quantize.getScale().getDefiningOp<ComputeParamsOp>();
  if (!params || params.getInput() != quantize.getInput())
    return std::nullopt;
  SchemeAttr s = quantize.getScheme();
  if (params.getScheme() != s || op.getLhsSchemeAttr() != s || s.isFloat() ||
      s.isNf4() || s.getStorageBits() != 8 ||
      s.getGranularity() != Granularity::per_axis || s.getAxis() != 0)
    return std::nullopt;
  if (op.getLhsScale() != params.getScale() ||
      quantize.getZeroPoint() != params.getZeroPoint() ||
      op.getLhsZeroPoint() != params.getZeroPoint())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(quantize.getInput().getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isF32())
    return std::nullopt;
  return DynamicLhs{quantize, params};
}

void CallSiteEmitter::packWeights(int64_t kpad, int64_t npad,
                                  SmallVectorImpl<Value> &slots) {
  int64_t k = plan.k, n = plan.n;
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
}

void CallSiteEmitter::epilogueSlots(MatmulOp op,
                                    SmallVectorImpl<Value> &slots) {
  if (fusedLhsScale)
    slots[kSa] = fusedLhsScale;
  else if (Value sa = op.getLhsScale();
           sa && (c.sa != Param::none || c.lhsGroupScale))
    slots[kSa] = addressOf(sa);
  slots[kSb] = c.scalePanels ? packedRhsScales() : addressOf(op.getRhsScale());
  if (Value bias = op.getBias())
    slots[kBias] = addressOf(bias);
  if (c.outScheme) {
    slots[kOs] = addressOf(op.getOutScale());
    if (Value oz = op.getOutZeroPoint())
      slots[kOz] = addressOf(oz);
  }
}

//===----------------------------------------------------------------------===//
// f32 contractions and the tasks
//===----------------------------------------------------------------------===//

Value CallSiteEmitter::weightOnlyTasks(Value m, int64_t n,
                                       SmallVectorImpl<Value> &slots,
                                       int64_t batch) {
  // Decode (M < MR): one column strip of N / threads columns per thread,
  // rounded up to the vector width only (4-bit panels: below), so the
  // threads get equal shares
  // (rounding to the kernel's 8-vector groups gave one of two threads twice
  // the other's columns at N = 192). Otherwise tiles of MC x NC.
  Value threads = arith::ExtSIOp::create(
      b, loc, i64, call("octet_get_num_threads", {i32}, {}));
  auto ceilDiv = [&](Value x, Value y) {
    return arith::DivSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, x,
                              arith::SubIOp::create(b, loc, y, cst(1))),
        y);
  };
  // 4-bit codes in panels: whole panels (128 columns, one 64-byte line
  // per row), since a strip that ends inside a panel makes both threads
  // read all of that panel's lines. SmolLM2 w4a16-g64+head on two
  // threads (N = 576, 960: 4.5 and 7.5 panels): 2.19-2.35 -> 1.97-2.17 ms
  // per token, although one thread now gets 3 panels of 576 columns and
  // the other 1.5. (Rounding 8-bit panels to 64-column lines measured
  // within the noise.)
  int64_t stripStep = c.rhsPanels && c.rhsNibbles ? c.panelColumns() : c.w;
  Value strip = arith::MulIOp::create(
      b, loc, ceilDiv(ceilDiv(cst(n), threads), cst(stripStep)),
      cst(stripStep));
  // Tiles: at most MC rows by NC columns, the rows split evenly (in
  // multiples of MR) into as many tiles as MC requires, the columns (in
  // multiples of the panel width) into as many as NC requires or more when
  // there are fewer rows of tiles (times the batch) than threads: every
  // thread gets a tile, and the tiles are of one size.
  // (M = 0, which runs no task, must not divide by zero here.)
  Value m1 = arith::MaxSIOp::create(b, loc, m, cst(1));
  // (The AMX-BF16 tiles take rows in multiples of 32.)
  int64_t rowStep = c.isa == Isa::amxBf16 ? 32 : c.mr;
  Value rows = arith::MulIOp::create(
      b, loc, ceilDiv(ceilDiv(m1, ceilDiv(m1, cst(c.mc))), cst(rowStep)),
      cst(rowStep));
  rows = arith::MinSIOp::create(b, loc, rows, cst(c.mc));
  slots[kMc] = rows;
  Value tilesM = ceilDiv(m1, rows);
  Value tilesN = arith::MaxSIOp::create(
      b, loc, cst((n + c.nc - 1) / c.nc),
      ceilDiv(threads, arith::MulIOp::create(b, loc, tilesM, cst(batch))));
  Value width = arith::MulIOp::create(
      b, loc, ceilDiv(ceilDiv(cst(n), tilesN), cst(c.nr())), cst(c.nr()));
  width = arith::MinSIOp::create(b, loc, width, cst(c.nc));
  tilesN = ceilDiv(cst(n), width);
  Value decode =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m, cst(c.mr));
  slots[kNc] = arith::SelectOp::create(b, loc, decode, strip, width);
  slots[kTilesN] = tilesN;
  Value tiled = arith::MulIOp::create(b, loc, ceilDiv(m, rows), tilesN);
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
  Value tasks = weightOnlyTasks(m, n, slots, fc.batch ? fc.batch : 1);
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
