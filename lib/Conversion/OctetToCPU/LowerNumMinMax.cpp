//===- LowerNumMinMax.cpp - arith.maxnumf / minnumf to LLVM intrinsics ----===//
//
// octet-lower-num-min-max: arith.maxnumf / arith.minnumf on floats become
// llvm.intr.maxnum / llvm.intr.minnum before arith-expand would expand them
// into compare-and-select chains the loop vectorizer does not reduce (see
// the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETLOWERNUMMINMAX
#include "octet/Conversion/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;

namespace {

/// f16 / f32 / f64 scalars or vectors of them (bf16 arithmetic is already
/// emulated in f32 when octet-lower-to-host runs this pass).
bool isLlvmFloat(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    t = v.getElementType();
  return t.isF16() || t.isF32() || t.isF64();
}

struct OctetLowerNumMinMaxPass
    : public mlir::octet::impl::OctetLowerNumMinMaxBase<
          OctetLowerNumMinMaxPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::MaxNumFOp, arith::MinNumFOp>(op) &&
          isLlvmFloat(op->getResult(0).getType()))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Value lhs = op->getOperand(0), rhs = op->getOperand(1);
      Value r =
          isa<arith::MaxNumFOp>(op)
              ? LLVM::MaxNumOp::create(b, op->getLoc(), lhs, rhs).getResult()
              : LLVM::MinNumOp::create(b, op->getLoc(), lhs, rhs).getResult();
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    }
  }
};

} // namespace
