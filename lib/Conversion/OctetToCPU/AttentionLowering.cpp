//===- AttentionLowering.cpp - octet.attention as a runtime call ----------===//
//
// convert-octet-to-cpu: each octet.attention becomes one call of the
// runtime's octet_cpu_attention_f32 (runtime/lib/Attention.cpp) with its
// operands' buffers read in place through strided views (the KV cache's
// slices are not copied) and a fresh, contiguous result buffer.
//
//===----------------------------------------------------------------------===//

#include "octet/Conversion/OctetToCPU/CpuKernels.h"
#include "octet/Dialect/Octet/IR/Octet.h"
#include "octet/Runtime/OctetRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cstring>
#include <tuple>

using namespace mlir;
using namespace mlir::octet;

namespace {

/// A tensor operand's buffer as a memref of any strides and offset (read
/// in place: a slice of the KV cache stays a view), with its address (of
/// the first element, as i64) and strides (in elements, as i64).
struct View {
  Value address;
  SmallVector<Value> strides;
};

View viewOf(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> dyn(type.getRank(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dyn);
  auto memrefType =
      MemRefType::get(type.getShape(), type.getElementType(), layout);
  Value buffer = bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                                   /*read_only=*/true);
  memref::ExtractStridedMetadataOp meta;
  View v;
  v.address = cpu::bufferAddress(b, loc, buffer, &meta);
  Type i64 = b.getI64Type();
  for (Value s : meta.getStrides())
    v.strides.push_back(arith::IndexCastOp::create(b, loc, i64, s));
  return v;
}

/// A K or V operand as the kernel reads it: f32, or the int8 / FP8 E4M3
/// codes and f32 scales of the octet.dequantize that produced it (a
/// per-head or per-tensor symmetric INT8 or FP8 KV cache: fused, so that
/// the whole prefix is not dequantized into a copy every step).
struct KvOperand {
  Value tensor;
  int64_t kind = OCTET_ATTN_F32;
  DequantizeOp dequantize;
};

KvOperand kvOperand(Value v) {
  KvOperand o;
  o.tensor = v;
  auto dq = v.getDefiningOp<DequantizeOp>();
  if (!dq || dq.getZeroPoint())
    return o;
  SchemeAttr scheme = dq.getScheme();
  bool perHead =
      scheme.getGranularity() == Granularity::per_axis && scheme.getAxis() == 0;
  bool i8 = scheme.getFormat() == StorageFormat::i8;
  bool e4m3 = scheme.getFormat() == StorageFormat::f8E4M3FN;
  if (!(i8 || e4m3) || !scheme.getSymmetric() ||
      scheme.getScaleFormat() != ScaleFormat::f32 ||
      !(perHead || scheme.getGranularity() == Granularity::per_tensor))
    return o;
  o.tensor = dq.getInput();
  o.kind = i8 ? OCTET_ATTN_I8 : OCTET_ATTN_F8E4M3FN;
  o.dequantize = dq;
  return o;
}

void lowerOne(RewriterBase &b, ModuleOp module, AttentionOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Type i64 = b.getI64Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  auto dim = [&](Value t, int64_t i) {
    return tensor::DimOp::create(b, loc, t, i).getResult();
  };
  auto asI64 = [&](Value index) {
    return arith::IndexCastOp::create(b, loc, i64, index).getResult();
  };
  Value q = op.getQuery();
  KvOperand ko = kvOperand(op.getKeys()), vo = kvOperand(op.getValues());
  // One code format per call: an INT8 / FP8 mix keeps the values'
  // dequantize.
  if (ko.kind != OCTET_ATTN_F32 && vo.kind != OCTET_ATTN_F32 &&
      ko.kind != vo.kind)
    vo = KvOperand{op.getValues(), OCTET_ATTN_F32, DequantizeOp()};
  SmallVector<Value> slots(OCTET_ATTN_NUM_SLOTS, Value());
  View qv = viewOf(b, loc, q), kv = viewOf(b, loc, ko.tensor),
       vv = viewOf(b, loc, vo.tensor), pv = viewOf(b, loc, op.getPositions());
  for (auto [o, kindSlot, scaleSlot, strideSlot] :
       {std::make_tuple(&ko, OCTET_ATTN_K_KIND, OCTET_ATTN_K_SCALES,
                        OCTET_ATTN_K_SCALE_STRIDE),
        std::make_tuple(&vo, OCTET_ATTN_V_KIND, OCTET_ATTN_V_SCALES,
                        OCTET_ATTN_V_SCALE_STRIDE)}) {
    slots[kindSlot] = cst(o->kind);
    slots[scaleSlot] = cst(0);
    slots[strideSlot] = cst(0);
    if (!o->dequantize)
      continue;
    View sv = viewOf(b, loc, o->dequantize.getScale());
    slots[scaleSlot] = sv.address;
    // One scale per KV head (per_axis(0)), or one for all (stride 0).
    if (!sv.strides.empty())
      slots[strideSlot] = sv.strides[0];
  }
  slots[OCTET_ATTN_Q] = qv.address;
  slots[OCTET_ATTN_K] = kv.address;
  slots[OCTET_ATTN_V] = vv.address;
  slots[OCTET_ATTN_POSITIONS] = pv.address;
  for (int i = 0; i < 4; ++i)
    slots[OCTET_ATTN_Q_STRIDES + i] = qv.strides[i];
  for (int i = 0; i < 3; ++i) {
    slots[OCTET_ATTN_K_STRIDES + i] = kv.strides[i];
    slots[OCTET_ATTN_V_STRIDES + i] = vv.strides[i];
  }
  SmallVector<Value> qDims;
  for (int64_t i = 0; i < 4; ++i)
    qDims.push_back(dim(q, i));
  slots[OCTET_ATTN_S] = asI64(qDims[0]);
  slots[OCTET_ATTN_KV] = asI64(qDims[1]);
  slots[OCTET_ATTN_G] = asI64(qDims[2]);
  slots[OCTET_ATTN_DH] = asI64(qDims[3]);
  slots[OCTET_ATTN_N] = asI64(dim(ko.tensor, 2));
  float scale = op.getScale().convertToFloat();
  uint32_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  slots[OCTET_ATTN_SCALE] = cst(bits);
  slots[OCTET_ATTN_LAYOUT] = cst(OCTET_ATTN_LAYOUT_TAG);

  // The result: a fresh contiguous buffer of the query's shape.
  auto qType = cast<RankedTensorType>(q.getType());
  SmallVector<Value> dynSizes;
  for (int64_t i = 0; i < 4; ++i)
    if (qType.isDynamicDim(i))
      dynSizes.push_back(qDims[i]);
  auto outType = MemRefType::get(qType.getShape(), b.getF32Type());
  Value out = memref::AllocOp::create(b, loc, outType, dynSizes,
                                      b.getI64IntegerAttr(64));
  auto outMeta = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, out);
  slots[OCTET_ATTN_OUT] = asI64(outMeta);

  auto argsType = MemRefType::get({OCTET_ATTN_NUM_SLOTS}, i64);
  Value args =
      memref::AllocaOp::create(b, loc, argsType, b.getI64IntegerAttr(8));
  for (auto [i, s] : llvm::enumerate(slots))
    memref::StoreOp::create(b, loc, s, args,
                            ValueRange{arith::ConstantIndexOp::create(
                                b, loc, static_cast<int64_t>(i))});
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value argsAddr =
      asI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, args));
  cpu::callRuntime(b, loc, module, "octet_cpu_attention_f32", {},
                   {LLVM::IntToPtrOp::create(b, loc, ptrTy, argsAddr)});
  Value result = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(qType.getShape(), b.getF32Type()), out,
      /*restrict=*/true, /*writable=*/true);
  if (result.getType() != op.getType())
    result = tensor::CastOp::create(b, loc, op.getType(), result);
  b.replaceOp(op, result);
  // The fused dequantizes are dead unless something else reads them.
  if (ko.dequantize && ko.dequantize->use_empty())
    b.eraseOp(ko.dequantize);
  if (vo.dequantize && vo.dequantize != ko.dequantize &&
      vo.dequantize->use_empty())
    b.eraseOp(vo.dequantize);
}

} // namespace

void mlir::octet::cpu::lowerAttentionOps(ModuleOp module,
                                         RewriterBase &rewriter) {
  SmallVector<AttentionOp> ops;
  module.walk([&](AttentionOp op) { ops.push_back(op); });
  for (AttentionOp op : ops)
    lowerOne(rewriter, module, op);
}
