//===- KernelBuilder.h - Helpers for writing GPU kernels in IR --*- C++ -*-===//
//
// Internal to the OctetToGPU lowering. Kernels are gpu.func bodies written
// with arith (integer/float arithmetic, also what ScalarNumerics emits), scf
// (loops, branches), the LLVM dialect (pointers, loads and stores with
// explicit alignment and address spaces) and NVVM (special registers,
// barriers, cp.async, mma.sync, wgmma). KernelBuilder keeps that code short.
//
// Conventions: kernel pointer parameters are generic `!llvm.ptr`, converted
// to global (1) for loads and stores; shared memory is the module's dynamic
// shared memory (`octet_smem`, address space 3); sizes and indices are i64,
// thread coordinates i32.
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELBUILDER_H
#define OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace octet {
namespace cuda {

/// Address spaces of NVPTX.
enum AddressSpace : unsigned { kGeneric = 0, kGlobal = 1, kShared = 3 };

/// Name of the dynamic shared memory symbol of the kernel module.
constexpr StringLiteral kSharedMemorySymbol = "octet_smem";

class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc)
      : b(b), loc(loc), ctx(b.getContext()), i1(b.getI1Type()),
        i8(b.getI8Type()), i16(b.getI16Type()), i32(b.getI32Type()),
        i64(b.getI64Type()), f16(b.getF16Type()), bf16(b.getBF16Type()),
        f32(b.getF32Type()), ptr(LLVM::LLVMPointerType::get(ctx, kGeneric)),
        gptr(LLVM::LLVMPointerType::get(ctx, kGlobal)),
        sptr(LLVM::LLVMPointerType::get(ctx, kShared)) {}

  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  IntegerType i1, i8, i16, i32, i64;
  FloatType f16, bf16, f32;
  LLVM::LLVMPointerType ptr, gptr, sptr;

  //===--- constants ------------------------------------------------------===//
  Value cInt(Type t, int64_t v) {
    return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
  }
  Value c32(int64_t v) { return cInt(i32, v); }
  Value c64(int64_t v) { return cInt(i64, v); }
  Value cF32(float v) {
    return arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(v));
  }
  Value cBool(bool v) { return cInt(i1, v ? 1 : 0); }

  //===--- integer arithmetic ---------------------------------------------===//
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value divU(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value remU(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shrU(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minU(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value minS(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxS(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  /// PTX `prmt.b32`: the bytes of {y, x} chosen by the 4 nibbles of
  /// `selector` (result byte i from byte selector[i] of x:y, 0-3 of x).
  Value prmt(Value x, Value y, int32_t selector) {
    return LLVM::CallIntrinsicOp::create(b, loc, i32,
                                         b.getStringAttr("llvm.nvvm.prmt"),
                                         ValueRange{x, y, c32(selector)})
        .getResult(0);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  Value ule(Value x, Value y) { return cmp(arith::CmpIPredicate::ule, x, y); }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value ne(Value x, Value y) { return cmp(arith::CmpIPredicate::ne, x, y); }
  Value andB(Value x, Value y) { return andI(x, y); }
  Value select(Value c, Value t, Value f) {
    return arith::SelectOp::create(b, loc, c, t, f);
  }
  /// (x + y - 1) / y for unsigned i64 values.
  Value ceilDiv(Value x, Value y) {
    return divU(add(x, sub(y, c64(1))), y);
  }
  Value zext(Value v, Type t) { return arith::ExtUIOp::create(b, loc, t, v); }
  Value sext(Value v, Type t) { return arith::ExtSIOp::create(b, loc, t, v); }
  Value trunc(Value v, Type t) { return arith::TruncIOp::create(b, loc, t, v); }
  Value sitofp(Value v) { return arith::SIToFPOp::create(b, loc, f32, v); }
  Value bitcast(Value v, Type t) {
    return arith::BitcastOp::create(b, loc, t, v);
  }
  /// An i32 thread coordinate as i64.
  Value wide(Value v) { return zext(v, i64); }

  //===--- float arithmetic -----------------------------------------------===//
  Value addF(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mulF(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value subF(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value divF(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  /// Extends f16/bf16 to f32 (f32 unchanged).
  Value toF32(Value v) {
    if (v.getType() == f32)
      return v;
    return arith::ExtFOp::create(b, loc, f32, v);
  }

  //===--- memory ---------------------------------------------------------===//
  /// A generic kernel pointer parameter as a global pointer.
  Value global(Value genericPtr) {
    return LLVM::AddrSpaceCastOp::create(b, loc, gptr, genericPtr);
  }
  /// `p + offset` in bytes (offset i64 or i32).
  Value gepBytes(Value p, Value offset) {
    return LLVM::GEPOp::create(b, loc, p.getType(), i8, p,
                               ArrayRef<LLVM::GEPArg>{offset});
  }
  /// `&p[index]` for elements of type `elem`.
  Value gep(Value p, Type elem, Value index) {
    return LLVM::GEPOp::create(b, loc, p.getType(), elem, p,
                               ArrayRef<LLVM::GEPArg>{index});
  }
  Value load(Type t, Value p, unsigned align, bool invariant = false,
             bool isVolatile = false) {
    return LLVM::LoadOp::create(b, loc, t, p, align, isVolatile,
                                /*isNonTemporal=*/false, invariant);
  }
  void store(Value v, Value p, unsigned align) {
    LLVM::StoreOp::create(b, loc, v, p, align);
  }
  /// Loads element `index` of type `elem` from the global buffer `base`.
  Value loadElem(Value base, Type elem, Value index, bool invariant = true) {
    unsigned align = std::max<unsigned>(1, elem.getIntOrFloatBitWidth() / 8);
    return load(elem, gep(base, elem, index), align, invariant);
  }
  void storeElem(Value v, Value base, Value index) {
    unsigned align =
        std::max<unsigned>(1, v.getType().getIntOrFloatBitWidth() / 8);
    store(v, gep(base, v.getType(), index), align);
  }
  /// The kernel module's dynamic shared memory.
  Value sharedBase() {
    return LLVM::AddressOfOp::create(b, loc, sptr, kSharedMemorySymbol);
  }
  /// The 32-bit shared-window address of a shared pointer.
  Value sharedAddress(Value sp) {
    return LLVM::PtrToIntOp::create(b, loc, i32, sp);
  }

  //===--- threads --------------------------------------------------------===//
  Value tid() { return NVVM::ThreadIdXOp::create(b, loc, i32); }
  Value bidX() { return NVVM::BlockIdXOp::create(b, loc, i32); }
  Value bidY() { return NVVM::BlockIdYOp::create(b, loc, i32); }
  Value bidZ() { return NVVM::BlockIdZOp::create(b, loc, i32); }
  Value gridDimX() { return NVVM::GridDimXOp::create(b, loc, i32); }
  void barrier() { NVVM::Barrier0Op::create(b, loc); }

  //===--- control flow ---------------------------------------------------===//
  /// scf.for over [lb, ub) with `step`, carrying `inits`; `body` returns the
  /// next iteration values. Returns the final values.
  SmallVector<Value>
  forLoop(Value lb, Value ub, Value step, ValueRange inits,
          function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto loop = scf::ForOp::create(
        b, loc, lb, ub, step, inits,
        [&](OpBuilder &nb, Location nloc, Value iv, ValueRange iters) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          SmallVector<Value> next = body(iv, iters);
          scf::YieldOp::create(b, loc, next);
        });
    return SmallVector<Value>(loop.getResults());
  }
  /// scf.if without results.
  void ifThen(Value cond, function_ref<void()> then) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    then();
  }
  /// scf.if with results of `types`.
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            function_ref<SmallVector<Value>()> then,
                            function_ref<SmallVector<Value>()> otherwise) {
    auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    auto fill = [&](Region &region,
                    function_ref<SmallVector<Value>()> body) {
      Block &block = region.front();
      // Without results the builder already added the scf.yield.
      if (block.mightHaveTerminator()) {
        b.setInsertionPoint(block.getTerminator());
        (void)body();
        return;
      }
      b.setInsertionPointToEnd(&block);
      scf::YieldOp::create(b, loc, body());
    };
    fill(ifOp.getThenRegion(), then);
    fill(ifOp.getElseRegion(), otherwise);
    return SmallVector<Value>(ifOp.getResults());
  }
};

} // namespace cuda
} // namespace octet
} // namespace mlir

#endif // OCTET_LIB_CONVERSION_OCTETTOGPU_KERNELBUILDER_H
