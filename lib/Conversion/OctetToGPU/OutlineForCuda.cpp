//===- OutlineForCuda.cpp - octet-outline-for-cuda ------------------------===//
//
// The tensor-level half of the CUDA lowering: each octet op becomes a call
// of a private launch stub that describes it (OctetToGPU.h). Bufferization
// then turns the stubs' signatures into memrefs, and convert-octet-to-gpu
// gives them bodies. The matmul kernel is the one the op's #octet.strategy
// names (octet-select-lowering; the same policy on the module's
// #octet.target when the op has none); where the kernel is not the
// strategy's unit (batches, per-group scales, 4-bit codes, tcgen05) a
// remark says so.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "octet/Conversion/OctetCommon/ConstantBytes.h"
#include "octet/Conversion/OctetToLinalg/AttentionLowering.h"
#include "octet/Conversion/OctetToGPU/OctetToGPU.h"
#include "octet/Conversion/Passes.h"
#include "octet/Runtime/Numerics.h"
#include "octet/Target/Capabilities.h"
#include "octet/Target/Strategy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETOUTLINEFORCUDA
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cuda;
namespace tgt = mlir::octet::target;

namespace {

/// Creates the launch stubs, numbered per module.
struct StubFactory {
  ModuleOp module;
  const tgt::TargetInfo *target;
  unsigned counter = 0;

  func::FuncOp create(OpBuilder &rewriter, Operation *op, StringRef kind,
                      ValueRange args, ArrayRef<std::string> roles,
                      TypeRange results, DictionaryAttr schemes,
                      ArrayRef<NamedAttribute> extra = {}) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    std::string name;
    do {
      name = ("octet_cuda_" + kind + "_" + Twine(counter++)).str();
    } while (module.lookupSymbol(name));
    auto stub = func::FuncOp::create(
        rewriter, op->getLoc(), name,
        rewriter.getFunctionType(args.getTypes(), results));
    stub.setPrivate();
    MLIRContext *ctx = rewriter.getContext();
    for (unsigned i = 0; i < args.size(); ++i)
      stub.setArgAttr(i, "bufferization.access",
                      StringAttr::get(ctx, "read"));
    stub->setAttr(kCudaOpAttr, StringAttr::get(ctx, kind));
    SmallVector<Attribute> roleAttrs;
    for (const std::string &r : roles)
      roleAttrs.push_back(StringAttr::get(ctx, r));
    stub->setAttr(kCudaRolesAttr, ArrayAttr::get(ctx, roleAttrs));
    // Constants (weights, their scales and sums, static activation
    // parameters) are uploaded once and stay on the device.
    SmallVector<Attribute> resident;
    for (auto [v, r] : llvm::zip(args, roles))
      if (matchPattern(v, m_Constant()))
        resident.push_back(StringAttr::get(ctx, r));
    if (!resident.empty())
      stub->setAttr(kCudaResidentAttr, ArrayAttr::get(ctx, resident));
    stub->setAttr(kCudaSchemesAttr, schemes);
    for (const NamedAttribute &a : extra)
      stub->setAttr(a.getName(), a.getValue());
    created.insert(stub);
    return stub;
  }

  /// The stubs made by create(), in this run.
  llvm::DenseSet<Operation *> created;
};

/// Collects (value, role) pairs, skipping absent optional operands.
struct Args {
  SmallVector<Value> values;
  SmallVector<std::string> roles;
  void add(Value v, StringRef role) {
    if (!v)
      return;
    values.push_back(v);
    roles.push_back(role.str());
  }
};

DictionaryAttr schemeDict(MLIRContext *ctx,
                          ArrayRef<std::pair<StringRef, SchemeAttr>> schemes) {
  SmallVector<NamedAttribute> attrs;
  for (auto [name, s] : schemes)
    if (s)
      attrs.push_back(NamedAttribute(StringAttr::get(ctx, name), s));
  return DictionaryAttr::get(ctx, attrs);
}

template <typename OpTy>
struct OutlinePattern : OpConversionPattern<OpTy> {
  OutlinePattern(MLIRContext *ctx, StubFactory &factory)
      : OpConversionPattern<OpTy>(ctx), factory(factory) {}
  StubFactory &factory;
};

struct OutlineQuantize : OutlinePattern<QuantizeOp> {
  using OutlinePattern::OutlinePattern;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Args args;
    args.add(adaptor.getInput(), "input");
    args.add(adaptor.getScale(), "out_scale");
    args.add(adaptor.getZeroPoint(), "out_zero_point");
    func::FuncOp stub = factory.create(
        rewriter, op, "quantize", args.values, args.roles, op->getResultTypes(),
        schemeDict(getContext(), {{"out_scheme", op.getScheme()}}));
    rewriter.replaceOpWithNewOp<func::CallOp>(op, stub, args.values);
    return success();
  }
};

struct OutlineDequantize : OutlinePattern<DequantizeOp> {
  using OutlinePattern::OutlinePattern;
  LogicalResult
  matchAndRewrite(DequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Args args;
    args.add(adaptor.getInput(), "input");
    args.add(adaptor.getScale(), "in_scale");
    args.add(adaptor.getZeroPoint(), "in_zero_point");
    func::FuncOp stub = factory.create(
        rewriter, op, "dequantize", args.values, args.roles,
        op->getResultTypes(),
        schemeDict(getContext(), {{"in_scheme", op.getScheme()}}));
    rewriter.replaceOpWithNewOp<func::CallOp>(op, stub, args.values);
    return success();
  }
};

struct OutlineRequantize : OutlinePattern<RequantizeOp> {
  using OutlinePattern::OutlinePattern;
  LogicalResult
  matchAndRewrite(RequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Args args;
    args.add(adaptor.getInput(), "input");
    args.add(adaptor.getInScale(), "in_scale");
    args.add(adaptor.getInZeroPoint(), "in_zero_point");
    args.add(adaptor.getOutScale(), "out_scale");
    args.add(adaptor.getOutZeroPoint(), "out_zero_point");
    func::FuncOp stub = factory.create(
        rewriter, op, "requantize", args.values, args.roles,
        op->getResultTypes(),
        schemeDict(getContext(), {{"in_scheme", op.getInScheme()},
                                  {"out_scheme", op.getOutScheme()}}));
    rewriter.replaceOpWithNewOp<func::CallOp>(op, stub, args.values);
    return success();
  }
};

struct OutlineComputeParams : OutlinePattern<ComputeParamsOp> {
  using OutlinePattern::OutlinePattern;
  LogicalResult
  matchAndRewrite(ComputeParamsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Args args;
    args.add(adaptor.getInput(), "input");
    func::FuncOp stub = factory.create(
        rewriter, op, "compute_params", args.values, args.roles,
        op->getResultTypes(),
        schemeDict(getContext(), {{"scheme", op.getScheme()}}));
    rewriter.replaceOpWithNewOp<func::CallOp>(op, stub, args.values);
    return success();
  }
};

/// Outside calibration an observer is the identity (as on the CPU).
struct OutlineObserve : OpConversionPattern<ObserveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ObserveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

bool isByteFormat(StorageFormat f) {
  return f == StorageFormat::i8 || f == StorageFormat::u8 ||
         f == StorageFormat::f8E4M3FN || f == StorageFormat::f8E5M2;
}

/// The kernel for a matmul: the one its #octet.strategy names (selected on
/// `target` when it has none); `why` says why it is not the strategy's
/// unit, when it is not.
MatmulKernelKind chooseKernel(MatmulOp op, const tgt::TargetInfo &target,
                              std::string &why) {
  SchemeAttr rhs = op.getRhsScheme();
  bool grouped = rhs.getGranularity() == Granularity::per_group;
  if (op.getBatchRank() != 0) {
    why = "batched octet.matmul runs on the SIMT kernel on CUDA";
    return MatmulKernelKind::simt;
  }
  if (!op.getLhsScheme()) {
    // 8- and 4-bit codes (stored one per byte), per-group scales too; the
    // gemv scales each weight by its group's scale, so per-group zero
    // points stay on the SIMT kernel.
    if (grouped && op.getRhsZeroPoint()) {
      why = "weight-only octet.matmul with per-group zero points runs on the "
            "SIMT kernel on CUDA";
      return MatmulKernelKind::simt;
    }
    return MatmulKernelKind::gemv;
  }
  SchemeAttr lhs = *op.getLhsScheme();
  StrategyAttr strategy = tgt::getOrSelectStrategy(op, target);
  if (!strategy || (strategy.getKind() != StrategyKind::native &&
                    strategy.getKind() != StrategyKind::compensated))
    return MatmulKernelKind::simt; // octet-select-lowering warned already.
  std::string unit = stringifyKernelUnit(strategy.getUnit()).str();
  if (grouped) {
    // Block scales on both operands that the strategy's block-scaled MMA
    // takes: sm_120a's mma.sync for MXFP8, MXFP8 x MXFP4, MXFP4 and NVFP4
    // (MmaSyncKernel.cpp), sm_100a's tcgen05.mma for the same four (the
    // scales in tensor memory, Tcgen05Kernel.cpp).
    BlockScaleKind scales = blockScaleKindOf(lhs, rhs);
    bool strategyTakesThem =
        scales != BlockScaleKind::none &&
        strategy.getInstruction().contains(
            (Twine("kind::") + stringifyBlockScaleKind(scales) + ".block_scale")
                .str());
    if (strategyTakesThem && strategy.getUnit() == KernelUnit::mma_sync)
      return MatmulKernelKind::mmaSync;
    if (strategyTakesThem && strategy.getUnit() == KernelUnit::tcgen05_mma)
      return MatmulKernelKind::tcgen05;
    why = "octet.matmul with per-group rhs scales runs on the SIMT kernel "
          "on CUDA instead of " +
          unit;
    return MatmulKernelKind::simt;
  }
  if (!isByteFormat(lhs.getFormat()) || !isByteFormat(rhs.getFormat())) {
    why = "4-bit octet.matmul runs on the SIMT kernel on CUDA instead of " +
          unit + " " + strategy.getShape().str();
    return MatmulKernelKind::simt;
  }
  switch (strategy.getUnit()) {
  case KernelUnit::wgmma:
    return MatmulKernelKind::wgmma;
  case KernelUnit::mma_sync:
    if (strategy.getShape() == "m16n8k32")
      return MatmulKernelKind::mmaSync;
    break;
  case KernelUnit::tcgen05_mma:
    if (strategy.getShape() == "m128nNk32")
      return MatmulKernelKind::tcgen05;
    break;
  default:
    break;
  }
  why = "octet.matmul runs on the SIMT kernel on " + target.name.str() +
        " instead of " + unit + " " + strategy.getShape().str();
  return MatmulKernelKind::simt;
}

/// The codes of a constant of `bits`-bit elements (8 or 4), one byte each
/// (dense, or a dense_resource blob, as octet-quantize-weights writes
/// large weights), or none.
std::optional<SmallVector<uint8_t>> constantBytes(Value v, unsigned bits = 8) {
  Attribute value;
  if (!matchPattern(v, m_Constant(&value)))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(cast<TypedAttr>(value).getType());
  if (!type || !type.hasStaticShape() ||
      type.getElementType().getIntOrFloatBitWidth() != bits)
    return std::nullopt;
  if (isa<DenseResourceElementsAttr>(value)) {
    std::optional<ArrayRef<char>> data = rawBytes(cast<ElementsAttr>(value));
    if (!data || data->size() != static_cast<size_t>(type.getNumElements()))
      return std::nullopt;
    return SmallVector<uint8_t>(data->begin(), data->end());
  }
  auto attr = dyn_cast<DenseElementsAttr>(value);
  if (!attr)
    return std::nullopt;
  SmallVector<uint8_t> bytes;
  bytes.reserve(type.getNumElements());
  if (isa<IntegerType>(type.getElementType())) {
    for (const APInt &x : attr.getValues<APInt>())
      bytes.push_back(static_cast<uint8_t>(x.getZExtValue()));
  } else {
    for (const APFloat &x : attr.getValues<APFloat>())
      bytes.push_back(
          static_cast<uint8_t>(x.bitcastToAPInt().getZExtValue()));
  }
  return bytes;
}

/// A constant of `type` derived at compile time from the constant `source`
/// (`fill` writes its `bytes`): a new dense_resource blob (named after the
/// source's, with `suffix`) when the source is one, so that large weights
/// stay out of the IR's text, else a dense attribute.
Value derivedConstant(OpBuilder &b, Location loc, Value source,
                      RankedTensorType type, size_t bytes, StringRef suffix,
                      function_ref<void(MutableArrayRef<char>)> fill) {
  Attribute sourceValue;
  matchPattern(source, m_Constant(&sourceValue));
  TypedAttr attr;
  if (auto res = dyn_cast<DenseResourceElementsAttr>(sourceValue)) {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocate(bytes, /*align=*/64);
    fill(blob.getMutableData());
    attr = DenseResourceElementsAttr::get(
        type, (res.getRawHandle().getKey() + suffix).str(), std::move(blob));
  } else {
    SmallVector<char> data(bytes);
    fill(data);
    attr = DenseElementsAttr::getFromRawBuffer(type, data);
  }
  return arith::ConstantOp::create(b, loc, type, attr);
}

struct OutlineMatmul : OutlinePattern<MatmulOp> {
  using OutlinePattern::OutlinePattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string why;
    MatmulKernelKind kind = chooseKernel(op, *factory.target, why);
    if (!why.empty())
      op.emitRemark() << why;
    MLIRContext *ctx = getContext();
    Location loc = op.getLoc();
    bool tensorCore = kind == MatmulKernelKind::mmaSync ||
                      kind == MatmulKernelKind::wgmma ||
                      kind == MatmulKernelKind::tcgen05;

    Args args;
    args.add(adaptor.getLhs(), "lhs");
    Value rhs = adaptor.getRhs();
    std::optional<SmallVector<uint8_t>> rhsBytes =
        tensorCore ? constantBytes(rhs) : std::nullopt;
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    if (rhsBytes) {
      // Constant weights are stored transposed (N x K, K contiguous), the
      // layout the tensor-core kernels read.
      int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
      auto nkType = RankedTensorType::get({n, k}, rhsType.getElementType());
      args.add(
          derivedConstant(rewriter, loc, rhs, nkType, rhsBytes->size(), "_nk",
                          [&](MutableArrayRef<char> t) {
                            for (int64_t i = 0; i < k; ++i)
                              for (int64_t j = 0; j < n; ++j)
                                t[j * k + i] =
                                    static_cast<char>((*rhsBytes)[i * n + j]);
                          }),
          "rhs_nk");
    } else if (std::optional<SmallVector<uint8_t>> codes =
                   kind == MatmulKernelKind::gemv && rhsType.getRank() == 2 &&
                           rhsType.getDimSize(1) % 2 == 0
                       ? constantBytes(rhs, /*bits=*/4)
                       : std::nullopt) {
      // Constant 4-bit weights for gemv: two codes per byte (K x N/2,
      // column 2j in the low nibble), half the bytes to stream.
      int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
      auto packedType = RankedTensorType::get({k, n / 2}, rewriter.getI8Type());
      args.add(derivedConstant(
                   rewriter, loc, rhs, packedType, codes->size() / 2, "_packed",
                   [&](MutableArrayRef<char> t) {
                     // Rows of even length: packing the whole row-major
                     // array packs each row.
                     ::octet::numerics::packNibbles(
                         reinterpret_cast<const int8_t *>(codes->data()),
                         codes->size(), reinterpret_cast<uint8_t *>(t.data()));
                   }),
               "rhs_packed");
    } else {
      args.add(rhs, "rhs");
    }
    args.add(adaptor.getLhsScale(), "lhs_scale");
    args.add(adaptor.getLhsZeroPoint(), "lhs_zero_point");
    args.add(adaptor.getRhsScale(), "rhs_scale");
    args.add(adaptor.getRhsZeroPoint(), "rhs_zero_point");
    args.add(adaptor.getBias(), "bias");
    args.add(adaptor.getOutScale(), "out_scale");
    args.add(adaptor.getOutZeroPoint(), "out_zero_point");
    // Column sums of constant weights for the lhs zero point, computed now
    // (as the CPU lowering does).
    if (tensorCore && adaptor.getLhsZeroPoint() && rhsBytes) {
      int64_t k = rhsType.getDimSize(0), n = rhsType.getDimSize(1);
      bool isUnsigned = op.getRhsScheme().isUnsigned();
      SmallVector<int32_t> sums(n, 0);
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j) {
          uint8_t byte = (*rhsBytes)[i * n + j];
          sums[j] += isUnsigned ? int32_t(byte)
                                : int32_t(static_cast<int8_t>(byte));
        }
      auto sumType = RankedTensorType::get({n}, rewriter.getI32Type());
      args.add(arith::ConstantOp::create(
                   rewriter, loc, sumType,
                   DenseElementsAttr::get(sumType, ArrayRef<int32_t>(sums))),
               "colsum");
    }

    SmallVector<NamedAttribute> extra{NamedAttribute(
        StringAttr::get(ctx, kCudaKernelAttr),
        StringAttr::get(ctx, stringifyMatmulKernelKind(kind)))};
    if (op.getRelu())
      extra.push_back(
          NamedAttribute(StringAttr::get(ctx, kCudaReluAttr), UnitAttr::get(ctx)));
    func::FuncOp stub = factory.create(
        rewriter, op, "matmul", args.values, args.roles, op->getResultTypes(),
        schemeDict(ctx, {{"lhs_scheme", op.getLhsSchemeAttr()},
                         {"rhs_scheme", op.getRhsScheme()},
                         {"out_scheme", op.getOutSchemeAttr()}}),
        extra);
    rewriter.replaceOpWithNewOp<func::CallOp>(op, stub, args.values);
    return success();
  }
};

/// `type` in the device memory space (kCudaDeviceMemorySpace).
RankedTensorType onDevice(RankedTensorType type) {
  return RankedTensorType::get(
      type.getShape(), type.getElementType(),
      IntegerAttr::get(IntegerType::get(type.getContext(), 64),
                       kCudaDeviceMemorySpace));
}

/// The upload and download stubs: one of each per host tensor type.
struct EdgeCopies {
  explicit EdgeCopies(StubFactory &factory) : factory(factory) {}

  StubFactory &factory;
  llvm::DenseMap<Type, func::FuncOp> uploads, downloads;

  /// A call of the stub that copies `host` (a host tensor) to the device.
  func::CallOp upload(OpBuilder &b, Location loc, Value host) {
    auto type = cast<RankedTensorType>(host.getType());
    return func::CallOp::create(
        b, loc, stub("upload", loc, type, onDevice(type), uploads[type]), host);
  }
  /// A call of the stub that copies `dev` (a device tensor) to the host.
  func::CallOp download(OpBuilder &b, Location loc, Value dev) {
    auto type = cast<RankedTensorType>(dev.getType());
    RankedTensorType host =
        RankedTensorType::get(type.getShape(), type.getElementType());
    return func::CallOp::create(
        b, loc, stub("download", loc, type, host, downloads[host]), dev);
  }
  /// Whether `op` calls the upload (or download) stub.
  bool calls(Operation *op, bool upload) {
    auto call = dyn_cast<func::CallOp>(op);
    return call && llvm::any_of(upload ? uploads : downloads, [&](auto &e) {
             func::FuncOp f = e.second;
             return f && f.getSymName() == call.getCallee();
           });
  }

private:
  func::FuncOp stub(StringRef kind, Location loc, Type from, Type to,
                    func::FuncOp &cached) {
    if (!cached) {
      MLIRContext *ctx = from.getContext();
      OpBuilder b(ctx);
      Operation *at = factory.module;
      cached = factory.create(b, at, kind, ValueRange{},
                              ArrayRef<std::string>{"input"}, TypeRange{to},
                              DictionaryAttr::get(ctx));
      cached->setLoc(loc);
      cached.setFunctionType(FunctionType::get(ctx, {from}, {to}));
      cached.setArgAttr(0, "bufferization.access",
                        StringAttr::get(ctx, "read"));
    }
    return cached;
  }
};

/// Keeps activations on the device between the stubs of this run: every
/// stub result becomes a device tensor; a stub argument that is not a
/// constant (constants are resident) and not a stub's result is uploaded
/// once, after its definition, by an `upload` stub; a stub result that a
/// host op uses (another op, scf.yield, the function's return) is
/// downloaded once, right after the stub, by a `download` stub. So the
/// host copies only what enters and leaves a chain of octet ops: for a
/// model made only of octet ops, its inputs and outputs.
void keepActivationsOnDevice(ModuleOp module, StubFactory &factory,
                             EdgeCopies &copies) {
  MLIRContext *ctx = module.getContext();
  SmallVector<func::CallOp> calls;
  SymbolTable symbols(module);
  auto stubOf = [&](Operation *op) -> func::FuncOp {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      return {};
    auto f = symbols.lookup<func::FuncOp>(call.getCallee());
    return f && factory.created.contains(f) ? f : func::FuncOp();
  };
  module.walk([&](func::CallOp call) {
    if (stubOf(call))
      calls.push_back(call);
  });
  llvm::DenseMap<Value, Value> uploaded;
  // The last upload of a block argument in each block: the next goes after
  // it, so that arguments are uploaded in their order.
  llvm::DenseMap<Block *, Operation *> lastArgUpload;
  auto upload = [&](Value host) -> Value {
    Value &dev = uploaded[host];
    if (dev)
      return dev;
    OpBuilder b(ctx);
    auto arg = dyn_cast<BlockArgument>(host);
    Operation *&last = lastArgUpload[arg ? arg.getOwner() : nullptr];
    if (arg && last)
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPointAfterValue(host);
    auto call = copies.upload(b, host.getLoc(), host);
    if (arg)
      last = call;
    dev = call.getResult(0);
    return dev;
  };
  for (func::CallOp call : calls) {
    func::FuncOp stub = stubOf(call);
    for (OpOperand &operand : call->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || type.getEncoding() || matchPattern(v, m_Constant()))
        continue;
      operand.set(upload(v));
    }
    OpBuilder b(call);
    b.setInsertionPointAfter(call);
    for (OpResult r : call->getResults()) {
      auto type = dyn_cast<RankedTensorType>(r.getType());
      if (!type)
        continue;
      SmallVector<OpOperand *> hostUses;
      for (OpOperand &use : r.getUses())
        if (!stubOf(use.getOwner()))
          hostUses.push_back(&use);
      r.setType(onDevice(type));
      if (hostUses.empty())
        continue;
      Value host = copies.download(b, call.getLoc(), r).getResult(0);
      for (OpOperand *use : hostUses)
        use->set(host);
    }
    stub.setFunctionType(
        FunctionType::get(ctx, call.getOperandTypes(), call.getResultTypes()));
  }
}

/// For each public function `f` (with a body), `f_device`: the same code
/// with its tensor arguments and results on the device, for callers that
/// own device memory (docs/cuda.md "Device entries"). Where `f` uploads
/// an argument, `f_device` uses it as it is (and downloads it for host
/// ops that read it); where `f` downloads a result for its return,
/// `f_device` returns the device tensor (a result a host op made is
/// uploaded). Both call the same stubs, so they share kernels and
/// resident weights.
void addDeviceEntries(ModuleOp module, EdgeCopies &copies) {
  SmallVector<func::FuncOp> publics;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal() &&
        !module.lookupSymbol((f.getSymName() + "_device").str()))
      publics.push_back(f);
  for (func::FuncOp f : publics) {
    func::FuncOp dev = f.clone();
    dev.setSymName((f.getSymName() + "_device").str());
    module.insert(std::next(Block::iterator(f)), dev);
    Block &entry = dev.front();
    OpBuilder b(dev.getContext());
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getEncoding())
        continue;
      arg.setType(onDevice(type));
      SmallVector<Operation *> uploads;
      SmallVector<OpOperand *> hostUses;
      for (OpOperand &use : arg.getUses()) {
        if (copies.calls(use.getOwner(), /*upload=*/true))
          uploads.push_back(use.getOwner());
        else
          hostUses.push_back(&use);
      }
      for (Operation *up : uploads) {
        up->getResult(0).replaceAllUsesWith(arg);
        up->erase();
      }
      if (hostUses.empty())
        continue;
      b.setInsertionPointToStart(&entry);
      Value host = copies.download(b, arg.getLoc(), arg).getResult(0);
      for (OpOperand *use : hostUses)
        use->set(host);
    }
    SmallVector<Type> results;
    dev.walk([&](func::ReturnOp ret) {
      OpBuilder rb(ret);
      results.clear();
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (type && !type.getEncoding()) {
          Operation *def = v.getDefiningOp();
          if (def && copies.calls(def, /*upload=*/false)) {
            operand.set(def->getOperand(0));
            if (def->use_empty())
              def->erase();
          } else {
            operand.set(copies.upload(rb, ret.getLoc(), v).getResult(0));
          }
        }
        results.push_back(operand.get().getType());
      }
    });
    dev.setFunctionType(
        FunctionType::get(dev.getContext(), entry.getArgumentTypes(), results));
  }
}

struct OctetOutlineForCudaPass
    : mlir::octet::impl::OctetOutlineForCudaBase<OctetOutlineForCudaPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    TargetAttr attr = target::getTargetAttr(module);
    if (!attr) {
      module.emitError() << "octet-outline-for-cuda needs the module's "
                            "#octet.target (a CUDA target); run "
                            "--octet-set-target first";
      return signalPassFailure();
    }
    FailureOr<const tgt::TargetInfo *> info =
        tgt::getTargetInfo(attr, [&] { return module.emitError(); });
    if (failed(info))
      return signalPassFailure();
    if ((*info)->arch != tgt::Arch::cuda) {
      module.emitError() << "octet-outline-for-cuda: #octet.target<\""
                         << (*info)->name << "\"> is not a CUDA target";
      return signalPassFailure();
    }

    StubFactory factory{module, *info, 0, {}};
    ConversionTarget target(*ctx);
    target.addIllegalOp<QuantizeOp, DequantizeOp, RequantizeOp,
                        ComputeParamsOp, MatmulOp, ObserveOp, AttentionOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    patterns.add<OutlineQuantize, OutlineDequantize, OutlineRequantize,
                 OutlineComputeParams, OutlineMatmul>(ctx, factory);
    patterns.add<OutlineObserve>(ctx);
    // No device kernel for octet.attention yet: its linalg form, which
    // runs on the host like the model's other float ops.
    populateAttentionLoweringPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    EdgeCopies copies{factory};
    if (!hostActivations)
      keepActivationsOnDevice(module, factory, copies);
    if (deviceEntries)
      addDeviceEntries(module, copies);
  }
};

} // namespace
