//===- OctetBase.td - Octet dialect definition -------------*- tablegen -*-===//
//
// The octet dialect: quantize/dequantize/requantize with exact, documented
// numerics (docs/numerics.md).
//
//===----------------------------------------------------------------------===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTETBASE_TD
#define OCTET_DIALECT_OCTET_IR_OCTETBASE_TD

include "mlir/IR/OpBase.td"

def Octet_Dialect : Dialect {
  let name = "octet";
  let cppNamespace = "::mlir::octet";
  let summary = "Quantization with exact, documented numerics";
  let description = [{
    The `octet` dialect expresses quantization explicitly. A float tensor is
    mapped to a *storage* tensor of a builtin element type (`i8`, `i4`,
    `f8E4M3FN`, `f8E5M2`) by `octet.quantize`, back by `octet.dequantize`, and
    from one scheme to another by `octet.requantize`. How floats map onto codes
    is described by a `#octet.scheme` attribute: the storage format (with its
    signedness), the granularity of the parameters (per tensor, per axis or
    per group), symmetric or asymmetric, and the FP8 overflow mode.

    Scales and zero points are SSA operands. Their shapes follow the
    granularity, so compile-time constant parameters and parameters computed
    at run time are the same op. Every op has one exact numeric definition
    (docs/numerics.md) shared by constant folding, the CPU lowering and the
    runtime.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    /// Registers the attributes (defined in OctetAttrs.cpp).
    void registerAttributes();
  }];
}

class Octet_Op<string mnemonic, list<Trait> traits = []>
    : Op<Octet_Dialect, mnemonic, traits>;

#endif // OCTET_DIALECT_OCTET_IR_OCTETBASE_TD
