//===- FuseSiblingMatmuls.cpp - One matmul for Q/K/V, gate/up -------------===//
//
// octet-fuse-sibling-matmuls: octet.matmul ops of one block that share the
// lhs and have constant weights of the same K, type and scheme become one
// octet.matmul on the weights concatenated along N, each member's result a
// slice of it. Every column is computed as before: bit-identical.
//
//===----------------------------------------------------------------------===//

#include "octet/Transforms/Passes.h"

#include "octet/Conversion/OctetCommon/ConstantBytes.h"
#include "octet/Dialect/Octet/IR/Octet.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace octet {
#define GEN_PASS_DEF_OCTETFUSESIBLINGMATMULS
#include "octet/Transforms/Passes.h.inc"
} // namespace octet
} // namespace mlir

using namespace mlir;
using namespace mlir::octet;

namespace {

/// One octet.matmul that can be merged, with its constants.
struct Member {
  mutable MatmulOp op; // op handles are not const-correct
  ElementsAttr rhs;    ///< K x N, or N x K when `transposed`
  bool transposed = false;
  ElementsAttr scale, zeroPoint, bias; ///< zeroPoint, bias: may be null
  int64_t n = 0;
};

/// The constant elements of `v`, or null.
ElementsAttr constantOf(Value v) {
  ElementsAttr attr;
  return v && matchPattern(v, m_Constant(&attr)) ? attr : nullptr;
}

/// The bytes of `attr` (a splat expanded), or none.
std::optional<std::vector<char>> bytesOf(ElementsAttr attr) {
  std::optional<ArrayRef<char>> raw = rawBytes(attr);
  if (!raw)
    return std::nullopt;
  auto type = cast<ShapedType>(attr.getType());
  int64_t count = type.getNumElements();
  int64_t elt = std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
  if (static_cast<int64_t>(raw->size()) == count * elt)
    return std::vector<char>(raw->begin(), raw->end());
  // A dense splat holds one element.
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat() || static_cast<int64_t>(raw->size()) != elt)
    return std::nullopt;
  std::vector<char> out(count * elt);
  for (int64_t i = 0; i < count; ++i)
    std::copy(raw->begin(), raw->end(), out.begin() + i * elt);
  return out;
}

/// The members' constants `get(m)` (each rank 1 or 2) concatenated along
/// `dim` (0: whole arrays one after the other; the last: row by row), as
/// an attribute of `type`: a dense_resource when any member's is one.
ElementsAttr concat(ArrayRef<Member> members,
                    function_ref<ElementsAttr(const Member &)> get, int64_t dim,
                    RankedTensorType type, StringRef key) {
  std::vector<std::vector<char>> parts;
  bool resource = false;
  for (const Member &m : members) {
    std::optional<std::vector<char>> bytes = bytesOf(get(m));
    if (!bytes)
      return nullptr;
    parts.push_back(std::move(*bytes));
    resource |= isa<DenseResourceElementsAttr>(get(m));
  }
  std::vector<char> out;
  int64_t rank = type.getRank();
  if (dim == 0 || rank == 1) {
    for (auto &p : parts)
      out.insert(out.end(), p.begin(), p.end());
  } else {
    int64_t rows = type.getShape()[0];
    for (int64_t r = 0; r < rows; ++r)
      for (auto &p : parts) {
        int64_t rowBytes = static_cast<int64_t>(p.size()) / rows;
        out.insert(out.end(), p.begin() + r * rowBytes,
                   p.begin() + (r + 1) * rowBytes);
      }
  }
  ArrayRef<char> data(out.data(), out.size());
  if (resource)
    return DenseResourceElementsAttr::get(
        type, key, HeapAsmResourceBlob::allocateAndCopyWithAlign(data, 64));
  bool splat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, data, splat))
    return nullptr;
  return DenseElementsAttr::getFromRawBuffer(type, data);
}

/// The member of `op`, or none when it cannot be merged.
std::optional<Member> asMember(MatmulOp op) {
  if (op.getOutScale() || op.getOutZeroPoint() || op.getOutScheme())
    return std::nullopt;
  SchemeAttr scheme = op.getRhsScheme();
  bool perChannel =
      scheme.getGranularity() == Granularity::per_axis && scheme.getAxis() == 1;
  bool perGroup = scheme.getGranularity() == Granularity::per_group &&
                  scheme.getAxis() == 0;
  if (!perChannel && !perGroup)
    return std::nullopt;
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  if (rhsType.getRank() != 2 || !rhsType.hasStaticShape())
    return std::nullopt;
  Member m{
      op, nullptr, false, nullptr, nullptr, nullptr, rhsType.getShape()[1]};
  if (auto t = op.getRhs().getDefiningOp<linalg::TransposeOp>()) {
    if (t.getPermutation() != ArrayRef<int64_t>{1, 0})
      return std::nullopt;
    m.rhs = constantOf(t.getInput());
    m.transposed = true;
  } else {
    m.rhs = constantOf(op.getRhs());
  }
  m.scale = constantOf(op.getRhsScale());
  m.zeroPoint = constantOf(op.getRhsZeroPoint());
  m.bias = constantOf(op.getBias());
  if (!m.rhs || !m.scale || (op.getRhsZeroPoint() && !m.zeroPoint) ||
      (op.getBias() && !m.bias))
    return std::nullopt;
  return m;
}

/// Whether `m` can join a group whose first member is `g`.
bool compatible(const Member &g, const Member &m) {
  MatmulOp a = g.op, b = m.op;
  auto ra = cast<RankedTensorType>(a.getRhs().getType());
  auto rb = cast<RankedTensorType>(b.getRhs().getType());
  return a.getLhs() == b.getLhs() && a.getLhsScale() == b.getLhsScale() &&
         a.getLhsZeroPoint() == b.getLhsZeroPoint() &&
         a.getLhsSchemeAttr() == b.getLhsSchemeAttr() &&
         a.getRhsScheme() == b.getRhsScheme() &&
         ra.getShape()[0] == rb.getShape()[0] &&
         ra.getElementType() == rb.getElementType() &&
         a.getType().getElementType() == b.getType().getElementType() &&
         g.transposed == m.transposed && a.getRelu() == b.getRelu() &&
         !g.zeroPoint == !m.zeroPoint && !g.bias == !m.bias &&
         a->getDiscardableAttrDictionary() == b->getDiscardableAttrDictionary();
}

/// Replaces the members (in block order, at least two) by one matmul.
LogicalResult fuse(ArrayRef<Member> members, int64_t serial) {
  MatmulOp first = members.front().op;
  OpBuilder b(first);
  Location loc = b.getFusedLoc(llvm::map_to_vector(
      members, [](const Member &m) { return m.op.getLoc(); }));
  int64_t n = 0;
  for (const Member &m : members)
    n += m.n;
  auto rhsType = cast<RankedTensorType>(first.getRhs().getType());
  int64_t k = rhsType.getShape()[0];
  Type codeType = rhsType.getElementType();
  std::string key = "octet_fused_" + std::to_string(serial);

  // The weights: K x N, or N x K behind a transpose.
  bool transposed = members.front().transposed;
  auto storedType = RankedTensorType::get(
      transposed ? ArrayRef<int64_t>{n, k} : ArrayRef<int64_t>{k, n}, codeType);
  ElementsAttr rhs = concat(
      members, [](const Member &m) { return m.rhs; }, transposed ? 0 : 1,
      storedType, key + "_w");
  auto withN = [&](ElementsAttr like) {
    auto t = cast<RankedTensorType>(like.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape.back() = n;
    return RankedTensorType::get(shape, t.getElementType());
  };
  int64_t last =
      cast<ShapedType>(members.front().scale.getType()).getRank() - 1;
  ElementsAttr scale = concat(
      members, [](const Member &m) { return m.scale; }, last,
      withN(members.front().scale), key + "_s");
  ElementsAttr zeroPoint, bias;
  if (members.front().zeroPoint)
    zeroPoint = concat(
        members, [](const Member &m) { return m.zeroPoint; }, last,
        withN(members.front().zeroPoint), key + "_z");
  if (members.front().bias)
    bias = concat(
        members, [](const Member &m) { return m.bias; }, 0,
        withN(members.front().bias), key + "_b");
  if (!rhs || !scale || (members.front().zeroPoint && !zeroPoint) ||
      (members.front().bias && !bias))
    return failure();

  Value w = arith::ConstantOp::create(b, loc, cast<TypedAttr>(rhs));
  if (transposed) {
    Value init =
        tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{k, n}, codeType);
    w = linalg::TransposeOp::create(b, loc, w, init, ArrayRef<int64_t>{1, 0})
            .getResult()[0];
  }
  auto cst = [&](ElementsAttr a) -> Value {
    return a ? arith::ConstantOp::create(b, loc, cast<TypedAttr>(a)).getResult()
             : Value();
  };
  auto resultType = cast<RankedTensorType>(first.getType());
  SmallVector<int64_t> shape(resultType.getShape());
  shape.back() = n;
  auto fusedType = RankedTensorType::get(shape, resultType.getElementType());
  auto fused = MatmulOp::create(
      b, loc, fusedType, first.getLhs(), w, first.getLhsScale(),
      first.getLhsZeroPoint(), cst(scale), cst(zeroPoint), cst(bias),
      /*out_scale=*/Value(), /*out_zero_point=*/Value(),
      first.getLhsSchemeAttr(), first.getRhsScheme(),
      /*out_scheme=*/SchemeAttr(), first.getRelu());
  for (NamedAttribute a : first->getDiscardableAttrs())
    fused->setAttr(a.getName(), a.getValue());

  // Each member: its columns of the merged result.
  int64_t offset = 0;
  for (const Member &m : members) {
    int64_t rank = resultType.getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
        strides(rank, b.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(d + 1 < rank ? tensor::getMixedSize(b, loc, fused, d)
                                   : b.getIndexAttr(m.n));
    offsets.back() = b.getIndexAttr(offset);
    auto slice = tensor::ExtractSliceOp::create(
        b, loc, cast<RankedTensorType>(m.op.getType()), fused, offsets, sizes,
        strides);
    m.op.getResult().replaceAllUsesWith(slice.getResult());
    offset += m.n;
  }
  for (const Member &m : members) {
    Operation *transpose =
        m.transposed ? m.op.getRhs().getDefiningOp() : nullptr;
    m.op.erase();
    if (transpose && transpose->use_empty())
      transpose->erase();
  }
  return success();
}

struct OctetFuseSiblingMatmulsPass
    : public octet::impl::OctetFuseSiblingMatmulsBase<
          OctetFuseSiblingMatmulsPass> {
  void runOnOperation() override {
    // Groups per lhs value, in block order; the merged op goes where the
    // first member was (the lhs dominates it, the rest is constant).
    SmallVector<SmallVector<Member>> groups;
    getOperation()->walk([&](Block *block) {
      SmallVector<SmallVector<Member>> local;
      for (Operation &op : *block) {
        auto mm = dyn_cast<MatmulOp>(op);
        if (!mm)
          continue;
        std::optional<Member> m = asMember(mm);
        if (!m)
          continue;
        bool placed = false;
        for (auto &g : local)
          if (compatible(g.front(), *m)) {
            g.push_back(*m);
            placed = true;
            break;
          }
        if (!placed)
          local.push_back({*m});
      }
      for (auto &g : local)
        if (g.size() > 1)
          groups.push_back(std::move(g));
    });
    int64_t serial = 0;
    for (auto &g : groups)
      (void)fuse(g, serial++);
  }
};

} // namespace
