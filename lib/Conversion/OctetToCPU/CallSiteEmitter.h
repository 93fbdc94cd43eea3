//===- CallSiteEmitter.h - The call of a generated CPU kernel ---*- C++ -*-===//
//
// Internal to the OctetToCPU lowering: CallSiteEmitter replaces one planned
// op (MatmulPlan.h) by the call of its task function: weights packed at
// compile time, activations packed at run time, the context slots
// (CtxSlot) filled and octet_parallel_for run over the tasks, the result a
// fresh buffer returned to tensor land.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOCPU_CALLSITEEMITTER_H
#define OCTET_LIB_CONVERSION_OCTETTOCPU_CALLSITEEMITTER_H

#include "MatmulPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace octet {
namespace cpu {

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

  /// The rewrite of an octet.matmul (a per-token quantization of the lhs
  /// fused into the packing, matchDynamicLhs, unless !fuseDynamicQuantize).
  Value emit(bool fuseDynamicQuantize = true);
  /// The rewrite of a float contraction.
  Value emitFloat(const FloatContraction &fc);

  /// The per-token dynamic quantization whose packing the integer kernels'
  /// call site fuses (octet_cpu_quantize_pack_lhs): `op`'s lhs is an
  /// octet.quantize with no other use, of a 2-D f32 tensor, with the
  /// parameters octet.compute_params computes from that same tensor under
  /// the same 8-bit integer scheme, per row (per_axis(0)), which `op` also
  /// takes as its lhs scale / zero point and scheme.
  struct DynamicLhs {
    QuantizeOp quantize;
    ComputeParamsOp params;
  };
  static std::optional<DynamicLhs> matchDynamicLhs(MatmulOp op);

private:
  Value cst(int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v); }
  Value cst32(int32_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  }
  /// The address of a memref's first element, as i64.
  Value addressOfBuffer(Value memref);
  /// The address of a tensor's data (an identity-layout buffer).
  Value addressOf(Value tensor);
  Value addressOfConstant(DenseElementsAttr attr);
  Value ptr(Value i) { return LLVM::IntToPtrOp::create(b, loc, ptrTy, i); }
  /// v (i64, >= 0) rounded up to a multiple of `multiple`.
  Value roundUp(Value v, int64_t multiple) {
    Value up = arith::AddIOp::create(b, loc, v, cst(multiple - 1));
    return arith::MulIOp::create(
        b, loc, arith::DivSIOp::create(b, loc, up, cst(multiple)),
        cst(multiple));
  }
  /// The address of a NUL-terminated constant string.
  Value globalString(StringRef text);
  Value call(StringRef name, TypeRange results, ValueRange args) {
    return callRuntime(b, loc, module, name, results, args);
  }
  /// The kernel's instructions exist on this CPU (checked once per process
  /// and feature list; a clear message instead of SIGILL).
  void requireKernelFeatures() {
    call("octet_cpu_require_features", {},
         {globalString(llvm::join(getRequiredFeatures(c.isa), ","))});
  }

  // --- the steps of emit ---------------------------------------------------
  /// Weight-only / FP8 kernels: the lhs, rhs and rhs zero point slots;
  /// returns the number of tasks.
  Value weightOnlyOperands(MatmulOp op, Value m,
                           SmallVectorImpl<Value> &slots);
  /// Isa::amxBf16: the FP8 lhs converted to bf16 tiles at run time when
  /// the tiles run (kLhsBf16), and the CPU checks.
  void lhsAsBf16Tiles(Value m, SmallVectorImpl<Value> &slots);
  /// The address of the weight-only rhs codes: 4-bit codes packed two per
  /// byte here, a constant (transposed here), or the rhs where it is.
  Value weightOnlyRhs(MatmulOp op);
  /// The constant per-group rhs scales in the codes' panels
  /// (GemmConfig::scalePanels).
  Value packedRhsScales();
  /// Integer kernels: the packed operands, the CPU checks and the tiles;
  /// returns the number of tasks.
  Value integerOperands(MatmulOp op, Value m, SmallVectorImpl<Value> &slots);
  /// The constant weights packed into the kernel's layout (K padded to
  /// `kpad`, N to `npad`), with their column sums when the kernel needs a
  /// compensation term.
  void packWeights(int64_t kpad, int64_t npad, SmallVectorImpl<Value> &slots);
  /// The scale, bias and output parameter slots.
  void epilogueSlots(MatmulOp op, SmallVectorImpl<Value> &slots);

  /// Slots of the weight-only / f32 kernels' decode and tiled loop nests
  /// (M rows of N columns, `batch` such products), among them the column
  /// width of a task (kNc); returns the number of tasks of one product.
  Value weightOnlyTasks(Value m, int64_t n, SmallVectorImpl<Value> &slots,
                        int64_t batch = 1);
  /// The context slots, zero but for M and N.
  SmallVector<Value> initialSlots(Value m, int64_t n);
  /// Stores `slots` into a context block and runs the task function of the
  /// config over `tasks` tasks on the thread pool.
  void runTasks(ArrayRef<Value> slots, Value tasks);

  /// With the per-token quantization fused into the packing
  /// (octet_cpu_quantize_pack_lhs): the address of the row scales it
  /// writes, which the epilogue reads instead of compute_params's.
  Value fusedLhsScale;
  std::optional<DynamicLhs> dynamicLhs;

  RewriterBase &b;
  Operation *op;
  const Plan &plan;
  const GemmConfig &c;
  ModuleOp module;
  Location loc;
  Type i32, i64, ptrTy;
};

} // namespace cpu
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOCPU_CALLSITEEMITTER_H
