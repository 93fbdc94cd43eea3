//===- CpuEpilogue.cpp - The epilogue of the CPU GEMM kernels -------------===//
//
// The octet.matmul epilogue of every generated CPU kernel, applied to the
// accumulator registers before the only store of the result: the operands
// of the shared epilogue (OctetCommon/MatmulEpilogue.h: compensation, the
// VNNI +128 offset folded into the lhs zero point, float(acc) * (sa * sb),
// bias, ReLU and requantization) loaded as vectors, then a full or masked
// vector store.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "octet/Conversion/OctetCommon/MatmulEpilogue.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

void KernelEmitter::emitEpilogueVector(Value acc, Value m, Value n,
                                       Value mask) {
  int64_t w = cast<VectorType>(acc.getType()).getNumElements();
  auto colVec = [&](Value base, Type t, int64_t bytes) {
    return loadVec(t, w, at(base, mul(n, cst(bytes))), mask);
  };
  auto scalarAt = [&](Value base, Type t, Value idx, int64_t bytes) {
    return load(t, at(base, mul(idx, cst(bytes))), 4);
  };
  // The operands of the shared epilogue (MatmulEpilogue.h), as vectors of
  // the accumulator's width.
  MatmulEpilogueOperands o;
  o.acc = acc;
  if (!c.weightOnly && c.isa != Isa::avx2) {
    // acc - (shift + za) * colsum(B): the VNNI +128 offset and the lhs
    // zero point in one exact (wrapping) i32 term, the lhs zero-point term
    // of the epilogue.
    int32_t shift = c.isa == Isa::vnni512 && !c.lhsUnsigned ? 128 : 0;
    Value factor;
    if (c.za != Param::none)
      factor = scalarAt(za, i32, c.za == Param::vector ? m : cst(0), 4);
    if (shift)
      factor = factor ? arith::AddIOp::create(b, loc, factor, cst32(shift))
                            .getResult()
                      : cst32(shift);
    if (factor) {
      o.colSum = loadVec(i32, w, at(comp, mul(n, cst(4))), Value());
      o.lhsZeroPoint = splat(factor, w);
    }
  }
  if (c.sb != Param::none && !c.group) {
    o.rhsScale = c.sb == Param::vector
                     ? colVec(sb, f32, 4)
                     : splat(scalarAt(sb, f32, cst(0), 4), w);
    if (c.sa != Param::none)
      o.lhsScale = splat(
          scalarAt(sa, f32, c.sa == Param::vector ? m : cst(0), 4), w);
  }
  if (c.bias)
    o.bias = colVec(bias, f32, 4);
  MatmulEpilogueResult r;
  r.relu = c.relu;
  r.resultElem = f32;
  int64_t outBytes = 4;
  if (c.outScheme) {
    r.outScheme = c.outScheme;
    o.outScale = c.os == Param::vector
                     ? colVec(os, f32, 4)
                     : splat(scalarAt(os, f32, cst(0), 4), w);
    if (c.oz != Param::none)
      o.outZeroPoint = c.oz == Param::vector
                           ? colVec(oz, i32, 4)
                           : splat(scalarAt(oz, i32, cst(0), 4), w);
    outBytes = 1;
  }
  Value out = emitMatmulEpilogue(b, loc, o, r);
  Value dst = at(C, mul(add(mul(m, N), n), cst(outBytes)));
  storeVec(out, dst, mask);
}

void KernelEmitter::emitEpilogueRow(ArrayRef<Value> accs, Value m, Value n0) {
  for (auto [v, acc] : llvm::enumerate(accs)) {
    Value n = add(n0, cst(v * c.w));
    Value left = sub(N, n);
    // Full vector, a masked tail, or nothing.
    auto full = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::sge, left, cst(c.w)), true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(full.thenBlock());
      emitEpilogueVector(acc, m, n, Value());
      b.setInsertionPointToStart(full.elseBlock());
      auto tail =
          scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::sgt, left,
                                        cst(0)),
                            false);
      b.setInsertionPointToStart(tail.thenBlock());
      emitEpilogueVector(acc, m, n, laneMask(left, c.w));
    }
  }
}
