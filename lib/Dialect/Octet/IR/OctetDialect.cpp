//===- OctetDialect.cpp - Octet dialect -----------------------------------===//

#include "octet/Dialect/Octet/IR/Octet.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::octet;

#include "octet/Dialect/Octet/IR/OctetDialect.cpp.inc"
#include "octet/Dialect/Octet/IR/OctetEnums.cpp.inc"

void OctetDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "octet/Dialect/Octet/IR/OctetOps.cpp.inc"
      >();
}

Operation *OctetDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (arith::ConstantOp::isBuildableWith(typed, type))
      return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}
