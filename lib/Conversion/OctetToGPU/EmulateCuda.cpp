//===- EmulateCuda.cpp - octet-emulate-cuda -------------------------------===//
//
// Turns the output of convert-octet-to-gpu into host code that runs the
// same kernels on the CPU (runtime/lib/CudaEmulator.cpp), so that the
// kernels' numerics can be tested on machines without a GPU:
//
//  - every gpu.func of @octet_kernels becomes a func.func; address spaces
//    are dropped; NVVM operations become calls of the emulator (special
//    registers, barriers, cp.async, mma.sync and its inline-PTX FP8 form,
//    wgmma, shfl, prmt); the cp.async/wgmma waits and the proxy fence are
//    no-ops because the emulated operations complete at once; f32
//    add/sub/mul/div results that are NaN become the canonical NaN
//    0x7FFFFFFF, as the GPU's do (x86 keeps the operand's sign);
//  - gpu.launch_func becomes octet_emu_launch of a trampoline that unpacks
//    the arguments; gpu.alloc/memcpy/memset/dealloc become memref ops on
//    host memory, each copy counted by octet_emu_count_copy (host to
//    device or back, for octet_emu_copy_stats); gpu.wait disappears.
//
// The integer codes passed to the emulator (operand types, special
// registers) are declared once, in octet/Runtime/CudaEmulatorAbi.h.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToGPU/OctetToGPU.h"
#include "octet/Conversion/Passes.h"
#include "octet/Runtime/CudaEmulatorAbi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETEMULATECUDA
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

namespace {

// The codes the emulator's entry points take (CudaEmulator.cpp).
using OperandType = ::octet::emu::OperandType;
using SpecialRegister = ::octet::emu::SpecialRegister;
using Fp4ScaleFormat = ::octet::emu::Fp4ScaleFormat;

class Emulator {
public:
  explicit Emulator(ModuleOp module)
      : module(module), ctx(module.getContext()), b(ctx),
        ptr(LLVM::LLVMPointerType::get(ctx)) {}

  LogicalResult run();

private:
  /// `func.func private @name` with `type`, declared once.
  func::FuncOp runtimeFunction(StringRef name, FunctionType type) {
    if (auto f = module.lookupSymbol<func::FuncOp>(name))
      return f;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto f = func::FuncOp::create(b, module.getLoc(), name, type);
    f.setPrivate();
    return f;
  }
  Value call(Location loc, StringRef name, TypeRange results,
             ValueRange args) {
    SmallVector<Type> argTypes(args.getTypes());
    func::FuncOp f = runtimeFunction(
        name, FunctionType::get(ctx, argTypes, results));
    auto op = func::CallOp::create(b, loc, f, args);
    return op.getNumResults() ? op.getResult(0) : Value();
  }
  /// The i32 tensor-memory address a kernel turned into a pointer
  /// (llvm.inttoptr), or null.
  static Value tmemAddress(Value pointer) {
    auto cast = pointer.getDefiningOp<LLVM::IntToPtrOp>();
    return cast && cast.getArg().getType().isInteger(32) ? cast.getArg()
                                                         : Value();
  }
  Value cst32(Location loc, int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value cst64(Location loc, int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  /// An array of `count` elements of `elem` on the stack of `func` (at its
  /// entry, so that loops do not grow the stack).
  Value stackArray(func::FuncOp func, Type elem, int64_t count) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&func.getBody().front());
    Location loc = func.getLoc();
    return LLVM::AllocaOp::create(b, loc, ptr,
                                  LLVM::LLVMArrayType::get(elem, count),
                                  cst64(loc, 1), 16);
  }
  Value element(Location loc, Value array, Type elem, int64_t count,
                int64_t i) {
    return LLVM::GEPOp::create(b, loc, ptr,
                               LLVM::LLVMArrayType::get(elem, count), array,
                               ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
  }

  LogicalResult convertKernel(gpu::GPUFuncOp kernel);
  LogicalResult rewriteKernelBody(func::FuncOp func);
  /// `scales`: the block-scaled form's scale registers and selectors
  /// (A's register, byte-id, thread-id, then B's), or empty.
  Value emulateMma(func::FuncOp func, Location loc, Type structType,
                   ValueRange a, ValueRange bRegs, ValueRange c,
                   OperandType typeA, OperandType typeB, ValueRange scales = {},
                   std::optional<Fp4ScaleFormat> fp4 = std::nullopt);
  LogicalResult rewriteHost(func::FuncOp func);

  ModuleOp module;
  MLIRContext *ctx;
  OpBuilder b;
  LLVM::LLVMPointerType ptr;
  /// Kernel name -> its trampoline.
  llvm::StringMap<func::FuncOp> trampolines;
};

OperandType mmaTypeCode(NVVM::MMATypes t) {
  switch (t) {
  case NVVM::MMATypes::u8:
    return OperandType::u8;
  case NVVM::MMATypes::e4m3:
    return OperandType::e4m3;
  case NVVM::MMATypes::e5m2:
    return OperandType::e5m2;
  default:
    return OperandType::s8;
  }
}

OperandType wgmmaTypeCode(NVVM::WGMMATypes t) {
  switch (t) {
  case NVVM::WGMMATypes::u8:
    return OperandType::u8;
  case NVVM::WGMMATypes::e4m3:
    return OperandType::e4m3;
  case NVVM::WGMMATypes::e5m2:
    return OperandType::e5m2;
  case NVVM::WGMMATypes::bf16:
    return OperandType::bf16;
  default:
    return OperandType::s8;
  }
}

OperandType ptxTypeCode(StringRef t) {
  return llvm::StringSwitch<OperandType>(t)
      .Case("u8", OperandType::u8)
      .Case("e4m3", OperandType::e4m3)
      .Case("e5m2", OperandType::e5m2)
      .Case("e2m1", OperandType::e2m1)
      .Default(OperandType::s8);
}

Value Emulator::emulateMma(func::FuncOp func, Location loc, Type structType,
                           ValueRange a, ValueRange bRegs, ValueRange c,
                           OperandType typeA, OperandType typeB,
                           ValueRange scales,
                           std::optional<Fp4ScaleFormat> fp4) {
  Type i32 = b.getI32Type();
  bool floatAcc = isa<FloatType>(c[0].getType());
  int64_t count = 10 + static_cast<int64_t>(scales.size());
  Value in = stackArray(func, i32, count);
  Value out = stackArray(func, i32, 4);
  SmallVector<Value> all(a.begin(), a.end());
  all.append(bRegs.begin(), bRegs.end());
  for (Value v : c)
    all.push_back(floatAcc ? Value(arith::BitcastOp::create(b, loc, i32, v))
                           : v);
  for (Value v : scales)
    all.push_back(
        v.getType() == i32 ? v : Value(arith::ExtUIOp::create(b, loc, i32, v)));
  for (auto [i, v] : llvm::enumerate(all))
    LLVM::StoreOp::create(b, loc, v, element(loc, in, i32, count, i));
  if (scales.empty())
    call(loc, "octet_emu_mma_sync", {},
         {in, out, cst32(loc, int32_t(typeA)), cst32(loc, int32_t(typeB)),
          cst32(loc, floatAcc)});
  else if (fp4)
    call(loc, "octet_emu_mma_sync_fp4", {},
         {in, out, cst32(loc, int32_t(*fp4))});
  else
    call(loc, "octet_emu_mma_sync_mx", {},
         {in, out, cst32(loc, int32_t(typeA)), cst32(loc, int32_t(typeB))});
  Value result = LLVM::UndefOp::create(b, loc, structType);
  for (int64_t i = 0; i < 4; ++i) {
    Value v = LLVM::LoadOp::create(b, loc, i32, element(loc, out, i32, 4, i));
    if (floatAcc)
      v = arith::BitcastOp::create(b, loc, b.getF32Type(), v);
    result = LLVM::InsertValueOp::create(b, loc, result, v, i);
  }
  return result;
}

LogicalResult Emulator::rewriteKernelBody(func::FuncOp func) {
  // Generic pointers everywhere: the emulated memory is the host's.
  func.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (auto p = dyn_cast<LLVM::LLVMPointerType>(v.getType());
          p && p.getAddressSpace() != 0)
        v.setType(ptr);
    for (Region &r : op->getRegions())
      for (Block &blk : r)
        for (BlockArgument arg : blk.getArguments())
          if (auto p = dyn_cast<LLVM::LLVMPointerType>(arg.getType());
              p && p.getAddressSpace() != 0)
            arg.setType(ptr);
  });
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) { ops.push_back(op); });
  Type i32 = b.getI32Type();
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    b.setInsertionPoint(op);
    auto replace = [&](Value v) {
      op->getResult(0).replaceAllUsesWith(v);
      op->erase();
    };
    auto sreg = [&](SpecialRegister r) {
      replace(call(loc, "octet_emu_sreg", {i32}, {cst32(loc, int32_t(r))}));
    };
    if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op) &&
        op->getResult(0).getType().isF32()) {
      // The GPU's f32 add/sub/mul/div return the canonical NaN 0x7FFFFFFF
      // whatever the NaN operand's sign and payload; x86 keeps the
      // operand's. Model the GPU: a NaN result becomes the canonical one.
      Value r = op->getResult(0);
      b.setInsertionPointAfter(op);
      Value isNan =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, r, r);
      Value canonical = arith::BitcastOp::create(b, loc, b.getF32Type(),
                                                 cst32(loc, 0x7FFFFFFF));
      Value v = arith::SelectOp::create(b, loc, isNan, canonical, r);
      SmallPtrSet<Operation *, 2> keep{isNan.getDefiningOp(),
                                       v.getDefiningOp()};
      r.replaceAllUsesExcept(v, keep);
    } else if (auto asCast = dyn_cast<LLVM::AddrSpaceCastOp>(op)) {
      replace(asCast.getArg());
    } else if (isa<LLVM::AddressOfOp>(op)) {
      replace(call(loc, "octet_emu_shared", {ptr}, {}));
    } else if (isa<NVVM::ThreadIdXOp>(op)) {
      sreg(SpecialRegister::tidX);
    } else if (isa<NVVM::ThreadIdYOp>(op)) {
      sreg(SpecialRegister::tidY);
    } else if (isa<NVVM::ThreadIdZOp>(op)) {
      sreg(SpecialRegister::tidZ);
    } else if (isa<NVVM::BlockIdXOp>(op)) {
      sreg(SpecialRegister::ctaidX);
    } else if (isa<NVVM::BlockIdYOp>(op)) {
      sreg(SpecialRegister::ctaidY);
    } else if (isa<NVVM::BlockIdZOp>(op)) {
      sreg(SpecialRegister::ctaidZ);
    } else if (isa<NVVM::GridDimXOp>(op)) {
      sreg(SpecialRegister::nctaidX);
    } else if (isa<NVVM::GridDimYOp>(op)) {
      sreg(SpecialRegister::nctaidY);
    } else if (isa<NVVM::GridDimZOp>(op)) {
      sreg(SpecialRegister::nctaidZ);
    } else if (isa<NVVM::BlockDimXOp>(op)) {
      sreg(SpecialRegister::ntidX);
    } else if (isa<NVVM::Barrier0Op>(op)) {
      call(loc, "octet_emu_barrier", {}, {});
      op->erase();
    } else if (auto cp = dyn_cast<NVVM::CpAsyncOp>(op)) {
      Value size = cst32(loc, cp.getSize());
      Value src = cp.getCpSize() ? cp.getCpSize() : size;
      call(loc, "octet_emu_cp_async", {}, {cp.getDst(), cp.getSrc(), size,
                                           src});
      op->erase();
    } else if (isa<NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
                   NVVM::FenceProxyOp, NVVM::WgmmaFenceAlignedOp,
                   NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp>(
                   op)) {
      op->erase();
    } else if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
      replace(emulateMma(func, loc, mma.getType(), mma.getOperandA(),
                         mma.getOperandB(), mma.getOperandC(),
                         mmaTypeCode(*mma.getMultiplicandAPtxType()),
                         mmaTypeCode(*mma.getMultiplicandBPtxType())));
    } else if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op)) {
      // mma.sync.aligned.m16n8k32.row.col.f32.<a>.<b>.f32 {...}, or one of
      // the block-scaled forms (sm_120a) with their scale operands: MXFP8
      // (m16n8k32 FP8 codes), MXFP4 and NVFP4 (m16n8k64 E2M1 codes).
      StringRef text = asmOp.getAsmString();
      StringRef mxPrefix = "mma.sync.aligned.kind::mxf8f6f4.block_scale."
                           "scale_vec::1X.m16n8k32.row.col.f32.";
      StringRef fp4Prefix[2] = {
          "mma.sync.aligned.kind::mxf4.block_scale.scale_vec::2X.m16n8k64."
          "row.col.f32.e2m1.e2m1.f32.ue8m0 ",
          "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X."
          "m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3 "};
      ValueRange operands = asmOp.getOperands();
      std::optional<Fp4ScaleFormat> fp4;
      for (int32_t f = 0; f < 2; ++f)
        if (text.starts_with(fp4Prefix[f]))
          fp4 = static_cast<Fp4ScaleFormat>(f);
      bool mx = text.starts_with(mxPrefix);
      if (!fp4 && !mx &&
          !text.starts_with("mma.sync.aligned.m16n8k32.row.col.f32."))
        return asmOp.emitError() << "octet-emulate-cuda: cannot emulate "
                                    "inline PTX '"
                                 << text << "'";
      OperandType typeA = OperandType::s8, typeB = OperandType::s8;
      if (!fp4) {
        SmallVector<StringRef> parts;
        text.split(' ').first.split(parts, '.');
        size_t typeAt = mx ? 10 : 7;
        typeA = ptxTypeCode(parts[typeAt]);
        typeB = ptxTypeCode(parts[typeAt + 1]);
      }
      replace(emulateMma(
          func, loc, asmOp.getResult(0).getType(), operands.take_front(4),
          operands.slice(4, 2), operands.slice(6, 4), typeA, typeB,
          mx || fp4 ? operands.slice(10, 6) : ValueRange(), fp4));
    } else if (auto wg = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
      bool bf16 = wg.getTypeA() == NVVM::WGMMATypes::bf16;
      if (bf16 != (wg.getTypeB() == NVVM::WGMMATypes::bf16) ||
          wg.getShape().getK() != (bf16 ? 16 : 32) ||
          wg.getShape().getM() != 64)
        return wg.emitError() << "octet-emulate-cuda: only wgmma m64nNk32 on "
                                 "8-bit operands and m64nNk16 on bf16 ones "
                                 "are emulated";
      auto structType = cast<LLVM::LLVMStructType>(wg.getType());
      int64_t n = structType.getBody().size();
      bool floatAcc = isa<FloatType>(structType.getBody()[0]);
      Value acc = stackArray(func, i32, n);
      for (int64_t i = 0; i < n; ++i) {
        Value v = LLVM::ExtractValueOp::create(b, loc, wg.getInouts(), i);
        if (floatAcc)
          v = arith::BitcastOp::create(b, loc, i32, v);
        LLVM::StoreOp::create(b, loc, v, element(loc, acc, i32, n, i));
      }
      call(loc, "octet_emu_wgmma", {},
           {acc, cst32(loc, wg.getShape().getN()), wg.getDescriptorA(),
            wg.getDescriptorB(),
            cst32(loc, int32_t(wgmmaTypeCode(wg.getTypeA()))),
            cst32(loc, int32_t(wgmmaTypeCode(wg.getTypeB()))),
            cst32(loc, floatAcc)});
      Value result = LLVM::UndefOp::create(b, loc, structType);
      for (int64_t i = 0; i < n; ++i) {
        Value v =
            LLVM::LoadOp::create(b, loc, i32, element(loc, acc, i32, n, i));
        if (floatAcc)
          v = arith::BitcastOp::create(b, loc, b.getF32Type(), v);
        result = LLVM::InsertValueOp::create(b, loc, result, v, i);
      }
      replace(result);
    } else if (auto alloc = dyn_cast<NVVM::Tcgen05AllocOp>(op)) {
      if (alloc.getGroup() != NVVM::CTAGroupKind::CTA_1)
        return alloc.emitError() << "octet-emulate-cuda: only cta_group::1 "
                                    "tensor memory is emulated";
      call(loc, "octet_emu_tcgen05_alloc", {},
           {alloc.getAddr(), alloc.getNCols()});
      op->erase();
    } else if (isa<NVVM::Tcgen05RelinquishAllocPermitOp, NVVM::Tcgen05FenceOp,
                   NVVM::Tcgen05WaitOp, NVVM::Tcgen05DeallocOp>(op)) {
      // Tensor memory is the block's; its MMAs and loads complete at once.
      op->erase();
    } else if (auto mma = dyn_cast<NVVM::Tcgen05MMAOp>(op)) {
      bool i8 = mma.getKind() == NVVM::Tcgen05MMAKind::I8;
      Value d = tmemAddress(mma.getMatrixD());
      if ((!i8 && mma.getKind() != NVVM::Tcgen05MMAKind::F8F6F4) ||
          mma.getCtaGroup() != NVVM::CTAGroupKind::CTA_1 || mma.getAShift() ||
          mma.getScaleInputD() || mma.getDisableOutputLane() || !d ||
          !mma.getMatrixA().getType().isInteger(64))
        return mma.emitError() << "octet-emulate-cuda: only "
                                  "tcgen05.mma.cta_group::1.kind::{i8, "
                                  "f8f6f4} with A in shared memory is "
                                  "emulated";
      Value enable = arith::ExtUIOp::create(b, loc, i32, mma.getEnableInputD());
      call(loc, "octet_emu_tcgen05_mma", {},
           {d, mma.getMatrixA(), mma.getMatrixB(), mma.getIdesc(), enable,
            cst32(loc, i8)});
      op->erase();
    } else if (auto mma = dyn_cast<NVVM::Tcgen05MMABlockScaleOp>(op)) {
      Value d = tmemAddress(mma.getMatrixD());
      Value sfa = tmemAddress(mma.getScaleA());
      Value sfb = tmemAddress(mma.getScaleB());
      NVVM::MMABlockScaleKind kind = mma.getKind();
      NVVM::Tcgen05MMABlockScale vec = mma.getBlockScale();
      // The scale vector the kind reads per row and MMA: 1X (mxf8f6f4, K
      // 32), 2X (mxf4, K 64, blocks of 32), 4X (mxf4nvf4 block16).
      int32_t scaleVec = kind == NVVM::MMABlockScaleKind::MXF8F6F4    ? 1
                         : vec == NVVM::Tcgen05MMABlockScale::BLOCK16 ? 4
                                                                      : 2;
      bool known = kind == NVVM::MMABlockScaleKind::MXF8F6F4
                       ? vec != NVVM::Tcgen05MMABlockScale::BLOCK16
                       : kind == NVVM::MMABlockScaleKind::MXF4NVF4 ||
                             vec != NVVM::Tcgen05MMABlockScale::BLOCK16;
      if (!known || mma.getCtaGroup() != NVVM::CTAGroupKind::CTA_1 || !d ||
          !sfa || !sfb || !mma.getMatrixA().getType().isInteger(64))
        return mma.emitError()
               << "octet-emulate-cuda: only "
                  "tcgen05.mma.cta_group::1.kind::{mxf8f6f4, mxf4, "
                  "mxf4nvf4}.block_scale with A in shared memory is "
                  "emulated";
      Value enable = arith::ExtUIOp::create(b, loc, i32, mma.getEnableInputD());
      if (kind == NVVM::MMABlockScaleKind::MXF8F6F4)
        call(loc, "octet_emu_tcgen05_mma_mx", {},
             {d, mma.getMatrixA(), mma.getMatrixB(), mma.getIdesc(), enable,
              sfa, sfb});
      else
        call(loc, "octet_emu_tcgen05_mma_fp4", {},
             {d, mma.getMatrixA(), mma.getMatrixB(), mma.getIdesc(), enable,
              sfa, sfb, cst32(loc, scaleVec)});
      op->erase();
    } else if (auto st = dyn_cast<NVVM::Tcgen05StOp>(op)) {
      Value taddr = tmemAddress(st.getTmemAddr());
      auto vecType = dyn_cast<VectorType>(st.getVal().getType());
      if (st.getShape() != NVVM::Tcgen05LdStShape::SHAPE_32X32B ||
          st.getUnpack() || st.getOffset() || !taddr || !vecType)
        return st.emitError() << "octet-emulate-cuda: only "
                                 "tcgen05.st.32x32b.xN (N >= 2) is emulated";
      int64_t n = vecType.getNumElements();
      Value in = stackArray(func, i32, n);
      for (int64_t i = 0; i < n; ++i) {
        Value e =
            LLVM::ExtractElementOp::create(b, loc, st.getVal(), cst32(loc, i));
        LLVM::StoreOp::create(b, loc, e, element(loc, in, i32, n, i));
      }
      call(loc, "octet_emu_tcgen05_st", {}, {taddr, cst32(loc, n), in});
      op->erase();
    } else if (auto commit = dyn_cast<NVVM::Tcgen05CommitOp>(op)) {
      if (commit.getMulticastMask())
        return commit.emitError() << "octet-emulate-cuda: multicast "
                                     "tcgen05.commit is not emulated";
      call(loc, "octet_emu_mbarrier_arrive", {}, {commit.getAddr()});
      op->erase();
    } else if (auto init = dyn_cast<NVVM::MBarrierInitOp>(op)) {
      if (init.getPredicate())
        return init.emitError() << "octet-emulate-cuda: predicated "
                                   "mbarrier.init is not emulated";
      call(loc, "octet_emu_mbarrier_init", {},
           {init.getAddr(), init.getCount()});
      op->erase();
    } else if (auto wait = dyn_cast<NVVM::MBarrierTryWaitParityOp>(op)) {
      call(loc, "octet_emu_mbarrier_wait_parity", {},
           {wait.getAddr(), wait.getPhase()});
      op->erase();
    } else if (auto ld = dyn_cast<NVVM::Tcgen05LdOp>(op)) {
      Value taddr = tmemAddress(ld.getTmemAddr());
      auto vecType = dyn_cast<VectorType>(ld.getRes().getType());
      if (ld.getShape() != NVVM::Tcgen05LdStShape::SHAPE_32X32B ||
          ld.getPack() || ld.getOffset() || !taddr || !vecType)
        return ld.emitError() << "octet-emulate-cuda: only "
                                 "tcgen05.ld.32x32b.xN (N >= 2) is emulated";
      int64_t n = vecType.getNumElements();
      Value out = stackArray(func, i32, n);
      call(loc, "octet_emu_tcgen05_ld", {}, {taddr, cst32(loc, n), out});
      Value v = LLVM::UndefOp::create(b, loc, vecType);
      for (int64_t i = 0; i < n; ++i) {
        Value e =
            LLVM::LoadOp::create(b, loc, i32, element(loc, out, i32, n, i));
        v = LLVM::InsertElementOp::create(b, loc, v, e, cst32(loc, i));
      }
      replace(v);
    } else if (auto shfl = dyn_cast<NVVM::ShflOp>(op)) {
      if (shfl.getKind() != NVVM::ShflKind::bfly ||
          !shfl.getType().isF32())
        return shfl.emitError() << "octet-emulate-cuda: only f32 butterfly "
                                   "shuffles are emulated";
      replace(call(loc, "octet_emu_shfl_bfly", {b.getF32Type()},
                   {shfl.getVal(), shfl.getOffset()}));
    } else if (auto intr = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      if (intr.getIntrin() != "llvm.nvvm.prmt")
        return intr.emitError() << "octet-emulate-cuda: cannot emulate "
                                << intr.getIntrin();
      replace(call(loc, "octet_emu_prmt", {i32}, intr.getArgs()));
    } else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op)) {
      rmw.setSyncscopeAttr(StringAttr()); // host atomics are system-wide
    } else if (auto fence = dyn_cast<LLVM::FenceOp>(op)) {
      fence.setSyncscopeAttr(StringAttr());
    } else if (op->getDialect() && op->getDialect()->getNamespace() == "nvvm") {
      return op->emitError() << "octet-emulate-cuda: cannot emulate "
                             << op->getName();
    }
  }
  return success();
}

LogicalResult Emulator::convertKernel(gpu::GPUFuncOp kernel) {
  Location loc = kernel.getLoc();
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc, kernel.getName(),
                                   kernel.getFunctionType());
  func.setPrivate();
  func.getBody().takeBody(kernel.getBody());
  func.walk([&](gpu::ReturnOp ret) {
    b.setInsertionPoint(ret);
    func::ReturnOp::create(b, ret.getLoc());
    ret.erase();
  });
  if (failed(rewriteKernelBody(func)))
    return failure();

  // The trampoline octet_emu_launch calls: unpacks void *args[].
  b.setInsertionPointToEnd(module.getBody());
  auto tramp = func::FuncOp::create(
      b, loc, (kernel.getName() + "__emu").str(),
      FunctionType::get(ctx, {ptr}, {}));
  tramp.setPrivate();
  Block *entry = tramp.addEntryBlock();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> args;
  int64_t n = func.getNumArguments();
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
    Value slot = LLVM::LoadOp::create(
        b, loc, ptr, element(loc, entry->getArgument(0), ptr, n, i));
    args.push_back(LLVM::LoadOp::create(b, loc, t, slot));
  }
  func::CallOp::create(b, loc, func, args);
  func::ReturnOp::create(b, loc);
  trampolines[kernel.getName()] = tramp;
  return success();
}

LogicalResult Emulator::rewriteHost(func::FuncOp func) {
  SmallVector<Operation *> gpuOps;
  func.walk([&](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect()))
      gpuOps.push_back(op);
  });
  Type i64t = b.getI64Type();
  // Uploads (into a gpu.alloc buffer) and downloads, told apart before
  // the buffers become host ones.
  llvm::DenseSet<Value> device;
  llvm::DenseSet<Operation *> uploads;
  for (Operation *op : gpuOps) {
    if (auto alloc = dyn_cast<gpu::AllocOp>(op))
      device.insert(alloc.getMemref());
    if (auto copy = dyn_cast<gpu::MemcpyOp>(op);
        copy && device.contains(copy.getDst()))
      uploads.insert(op);
  }
  for (Operation *op : gpuOps) {
    Location loc = op->getLoc();
    b.setInsertionPoint(op);
    if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      // Counted for octet_emu_copy_stats: the bytes the GPU would move.
      auto type = cast<MemRefType>(copy.getDst().getType());
      Value bytes = cst64(loc, (type.getElementTypeBitWidth() + 7) / 8);
      for (int64_t d = 0; d < type.getRank(); ++d)
        bytes = arith::MulIOp::create(
            b, loc, bytes,
            arith::IndexCastOp::create(
                b, loc, i64t, memref::DimOp::create(b, loc, copy.getDst(), d)));
      call(loc, "octet_emu_count_copy", {},
           {bytes, cst32(loc, uploads.contains(op) ? 1 : 0)});
    }
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      Value m = memref::AllocOp::create(b, loc, alloc.getType(),
                                        alloc.getDynamicSizes());
      alloc.getMemref().replaceAllUsesWith(m);
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      memref::CopyOp::create(b, loc, copy.getSrc(), copy.getDst());
    } else if (auto set = dyn_cast<gpu::MemsetOp>(op)) {
      linalg::FillOp::create(b, loc, set.getValue(), set.getDst());
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      memref::DeallocOp::create(b, loc, dealloc.getMemref());
    } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      func::FuncOp tramp = trampolines.lookup(launch.getKernelName());
      if (!tramp)
        return launch.emitError() << "octet-emulate-cuda: unknown kernel "
                                  << launch.getKernel();
      int64_t n = launch.getKernelOperands().size();
      Value array = stackArray(func, ptr, n);
      for (auto [i, v] : llvm::enumerate(launch.getKernelOperands())) {
        Value slot = stackArray(func, v.getType(), 1);
        LLVM::StoreOp::create(b, loc, v, slot);
        LLVM::StoreOp::create(b, loc, slot, element(loc, array, ptr, n, i));
      }
      auto wide = [&](Value idx) -> Value {
        return arith::IndexCastOp::create(b, loc, i64t, idx);
      };
      Value smem = launch.getDynamicSharedMemorySize()
                       ? Value(arith::ExtUIOp::create(
                             b, loc, i64t,
                             launch.getDynamicSharedMemorySize()))
                       : cst64(loc, 0);
      Value fn = func::ConstantOp::create(b, loc, tramp.getFunctionType(),
                                          tramp.getSymName());
      call(loc, "octet_emu_launch", {},
           {fn, wide(launch.getGridSizeX()), wide(launch.getGridSizeY()),
            wide(launch.getGridSizeZ()), wide(launch.getBlockSizeX()),
            wide(launch.getBlockSizeY()), wide(launch.getBlockSizeZ()), smem,
            array});
    } else if (!isa<gpu::WaitOp>(op)) {
      return op->emitError() << "octet-emulate-cuda: cannot emulate "
                             << op->getName();
    }
  }
  // Async tokens only flow between these ops: erase them users first.
  for (Operation *op : llvm::reverse(gpuOps)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

LogicalResult Emulator::run() {
  auto gpuModule =
      module.lookupSymbol<gpu::GPUModuleOp>(kCudaKernelModuleName);
  if (!gpuModule)
    return success();
  for (auto kernel :
       llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>()))
    if (failed(convertKernel(kernel)))
      return failure();
  for (auto f : llvm::to_vector(module.getOps<func::FuncOp>()))
    if (!f.isExternal() && failed(rewriteHost(f)))
      return failure();
  gpuModule.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  return success();
}

struct OctetEmulateCudaPass
    : mlir::octet::impl::OctetEmulateCudaBase<OctetEmulateCudaPass> {
  void runOnOperation() override {
    if (failed(Emulator(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace
