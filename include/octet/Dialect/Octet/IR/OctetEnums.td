//===- OctetEnums.td - Octet enums -------------------------*- tablegen -*-===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTETENUMS_TD
#define OCTET_DIALECT_OCTET_IR_OCTETENUMS_TD

include "mlir/IR/EnumAttr.td"

// The values match octet::numerics::StorageFormat (runtime/.../Numerics.h).
def Octet_StorageFormat : I32EnumAttr<"StorageFormat",
    "storage format of quantized codes", [
      I32EnumAttrCase<"i8", 0>,
      I32EnumAttrCase<"u8", 1>,
      I32EnumAttrCase<"i4", 2>,
      I32EnumAttrCase<"u4", 3>,
      I32EnumAttrCase<"f8E4M3FN", 4>,
      I32EnumAttrCase<"f8E5M2", 5>,
      I32EnumAttrCase<"f4E2M1FN", 6>,
      I32EnumAttrCase<"nf4", 7>
    ]> {
  let cppNamespace = "::mlir::octet";
  let genSpecializedAttr = 0;
}

def Octet_Granularity : I32EnumAttr<"Granularity",
    "granularity of the quantization parameters", [
      I32EnumAttrCase<"per_tensor", 0>,
      I32EnumAttrCase<"per_axis", 1>,
      I32EnumAttrCase<"per_group", 2>
    ]> {
  let cppNamespace = "::mlir::octet";
  let genSpecializedAttr = 0;
}

// How a scheme's scales are constrained (they are f32 tensors in IR either
// way): any positive f32, E8M0 values (powers of two, 2^-127 .. 2^127:
// the shared scales of the OCP Microscaling formats), or E4M3 values times
// one f32 global scale (NVFP4's two levels).
def Octet_ScaleFormat : I32EnumAttr<"ScaleFormat",
    "format of the quantization scales", [
      I32EnumAttrCase<"f32", 0>,
      I32EnumAttrCase<"e8m0", 1>,
      I32EnumAttrCase<"e4m3", 2>
    ]> {
  let cppNamespace = "::mlir::octet";
  let genSpecializedAttr = 0;
}

#endif // OCTET_DIALECT_OCTET_IR_OCTETENUMS_TD
