//===- OctetToCPU.cpp - octet.matmul to generated x86 kernels -------------===//
//
// convert-octet-to-cpu replaces each octet.matmul that a fast kernel covers
// by a call of a generated task function through the runtime's thread pool:
// MatmulPlan.cpp decides whether a kernel covers the op and with which
// GemmConfig, CallSiteEmitter.cpp emits the call (weights packed at compile
// time, activations at run time, a context block of i64 slots, and
// octet_parallel_for over the output tiles), CpuKernels.cpp and the kernel
// files next to it generate the task functions.
//
// Float-lhs (weight-only: i8/u8, constant i4/u4 packed two per byte,
// per-group scales), FP8 (decoded to f32) and, with float-kernels, f32
// linalg.matmul / batch_matmul run the f32 loop nests of FloatKernels.cpp.
// Everything else (rhs zero points of integer GEMMs, integer 4-bit GEMMs,
// batched octet.matmul, f16/bf16 results, non-x86 hosts) is left for
// convert-octet-to-linalg, the portable lowering, which stays correct for
// every octet.matmul.
//
// This file holds the two passes (convert-octet-to-cpu and
// octet-emit-cpu-kernels, which emits the bodies of the declared task
// functions) and the names of the isa= option.
//
//===----------------------------------------------------------------------===//

#include "CallSiteEmitter.h"
#include "MatmulPlan.h"
#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Conversion/Passes.h"
#include "octet/Target/Capabilities.h"
#include "octet/Target/Strategy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

/// The x86 level `isa` selects strategies for; null for automatic/none.
static const target::TargetInfo *getForcedLevel(CpuKernelIsa isa) {
  switch (isa) {
  case CpuKernelIsa::avx2:
    return &target::getTargetInfo(target::TargetId::avx2);
  case CpuKernelIsa::avx512_vnni:
    return &target::getTargetInfo(target::TargetId::avx512_vnni);
  case CpuKernelIsa::avx512_bf16:
    return &target::getTargetInfo(target::TargetId::avx512_bf16);
  case CpuKernelIsa::amx_int8:
    return &target::getTargetInfo(target::TargetId::amx_int8);
  case CpuKernelIsa::automatic:
  case CpuKernelIsa::none:
    return nullptr;
  }
  return nullptr;
}

StringRef mlir::octet::stringifyCpuKernelIsa(CpuKernelIsa isa) {
  if (const target::TargetInfo *level = getForcedLevel(isa))
    return level->name; // The capability table's name of the level.
  return isa == CpuKernelIsa::none ? "none" : "auto";
}

std::optional<CpuKernelIsa> mlir::octet::symbolizeCpuKernelIsa(StringRef name) {
  for (CpuKernelIsa isa :
       {CpuKernelIsa::automatic, CpuKernelIsa::avx2, CpuKernelIsa::avx512_vnni,
        CpuKernelIsa::avx512_bf16, CpuKernelIsa::amx_int8, CpuKernelIsa::none})
    if (stringifyCpuKernelIsa(isa) == name)
      return isa;
  return std::nullopt;
}

namespace {

struct ConvertOctetToCPUPass
    : public mlir::octet::impl::ConvertOctetToCPUBase<ConvertOctetToCPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (kernelIsa == CpuKernelIsa::none)
      return;
    // The target whose strategies the ops follow: a forced x86 level (every
    // op selected again), else the module's (ops without a strategy are
    // selected on it). The CPU the kernels are tuned for: the option, else
    // (isa=auto) the module target's CPU name, else the running host's.
    const target::TargetInfo *target = getForcedLevel(kernelIsa);
    std::string cpu = tuneCpu, targetCpu;
    if (!target) {
      FailureOr<const target::TargetInfo *> moduleTarget =
          target::getModuleTargetOrHost(
              module, [&] { return module.emitError(); }, &targetCpu);
      if (failed(moduleTarget))
        return signalPassFailure();
      target = *moduleTarget;
      if (cpu.empty())
        cpu = targetCpu;
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
      FailureOr<Plan> plan = planMatmul(op, opIsa, cpu, why);
      if (failed(plan)) {
        if (remarks)
          op.emitRemark() << "convert-octet-to-cpu: portable lowering ("
                          << why << ")";
        continue;
      }
      rewriter.setInsertionPoint(op);
      CallSiteEmitter emitter(rewriter, op, *plan, module);
      Value result = emitter.emit(fuseDynamicQuantize);
      Operation *rhsDef = op.getRhs().getDefiningOp();
      Operation *lhsDef = op.getLhs().getDefiningOp();
      rewriter.replaceOp(op, result);
      // The transpose read through at compile time (and its operands, the
      // weights among them) are dead unless something else uses them.
      eraseDeadTranspose(rewriter, rhsDef);
      // So are a quantize fused into the packing and its compute_params.
      eraseDeadQuantize(rewriter, lhsDef);
    }
    // octet.attention: the runtime's kernel (its scalar form on CPUs
    // without AVX2 + FMA).
    lowerAttentionOps(module, rewriter);
    if (floatKernels && target->arch == target::Arch::x86) {
      // The family of the target's f32 x f32 row in the capability table
      // (vfmadd231ps zmm on the AVX-512 levels), as for octet.matmul.
      const target::KernelRow *row = target::findKernel(
          target->id, target::Elem::f32, target::Elem::f32);
      lowerFloatContractions(module, rewriter,
                             row && row->unit == KernelUnit::avx512_fma
                                 ? Isa::fma512
                                 : Isa::fma);
    }
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

  static void eraseDeadQuantize(RewriterBase &rewriter, Operation *def) {
    auto quantize = dyn_cast_or_null<QuantizeOp>(def);
    if (!quantize || !quantize->use_empty())
      return;
    auto params = quantize.getScale().getDefiningOp<ComputeParamsOp>();
    rewriter.eraseOp(quantize);
    if (params && params->use_empty())
      rewriter.eraseOp(params);
  }

  void lowerFloatContractions(ModuleOp module, IRRewriter &rewriter,
                              Isa family) {
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
      Plan plan = planFloatContraction(*fc, family);
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
