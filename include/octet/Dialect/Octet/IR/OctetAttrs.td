//===- OctetAttrs.td - Octet attributes --------------------*- tablegen -*-===//

#ifndef OCTET_DIALECT_OCTET_IR_OCTETATTRS_TD
#define OCTET_DIALECT_OCTET_IR_OCTETATTRS_TD

include "octet/Dialect/Octet/IR/OctetBase.td"
include "octet/Dialect/Octet/IR/OctetEnums.td"
include "mlir/IR/AttrTypeBase.td"

class Octet_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Octet_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Octet_SchemeAttr : Octet_Attr<"Scheme", "scheme"> {
  let summary = "How float values map onto stored codes";
  let description = [{
    A scheme names the storage format, the granularity of the scale/zero-point
    parameters, whether the mapping is symmetric, and (for FP8) what happens
    on overflow.

    Syntax:

    ```
    #octet.scheme<format [<qmin:qmax>] (, granularity)? (, asymmetric)? (, non_saturating)? (, e8m0 | , e4m3(global))?>

    format      ::= i8 | u8 | i4 | u4 | f8E4M3FN | f8E5M2 | f4E2M1FN | nf4
    granularity ::= per_tensor | per_axis(axis) | per_group(axis, size)
    ```

    - Integer formats store signless `i8` (for `i8`, `u8`) or `i4` (for `i4`,
      `u4`) elements; the scheme says how the bits are read. The code range
      defaults to the full range of the format and can be narrowed, e.g.
      `i8<-127:127>`.
    - FP8 formats store `f8E4M3FN` / `f8E5M2` elements, are always symmetric
      and default to saturating conversion (finite overflow and +-inf clamp to
      the largest finite value, like `cvt.rn.satfinite`). `non_saturating`
      follows ml_dtypes: E4M3FN overflows to NaN, E5M2 to inf.
    - `nf4` (QLoRA's NormalFloat4) stores `i4` codes 0..15 that index the
      16 NF4 values (-1, -0.696, ..., 0, ..., 0.723, 1; bitsandbytes'
      table as f32). Always symmetric: scale = absmax, the code of x / scale
      the number of bitsandbytes' decision thresholds below it (a tie goes
      down, NaN gives the code of 0.0); dequantize is value[q] * scale.
      Weight-only (a matmul's rhs with a float lhs).
    - FP4 (`f4E2M1FN`, OCP Microscaling Formats v1.0: the values 0, 0.5, 1,
      1.5, 2, 3, 4, 6 and their negatives) stores `f4E2M1FN` elements, is
      symmetric and always saturates (the format has no infinity or NaN; a
      NaN input encodes as +0). Rounding is to nearest, ties to even.
    - `per_tensor`: one scale (`tensor<f32>`).
      `per_axis(a)`: one scale per index of dimension `a` (`tensor<Dxf32>`).
      `per_group(a, g)`: dimension `a` is split into groups of `g` consecutive
      elements; the scale tensor has the input's shape with dimension `a`
      divided by `g`.
    - `symmetric` (default): zero point 0, no zero-point operand.
      `asymmetric`: an `i32` zero-point operand with the scale's shape.
    - `e8m0`: the scales are E8M0 values, powers of two in 2^-127 .. 2^127
      (still `f32` tensors in IR; every lowering reads them unchanged). With
      an FP8 format and `per_group(axis, 32)` along the reduction axis this
      is OCP MXFP8 (Microscaling Formats v1.0): the shared scale of a block
      is 2^(floor(log2(absmax)) - emax), emax = 8 for E4M3, 15 for E5M2, and
      the elements convert with round-to-nearest-even and saturation. With
      `f4E2M1FN` and `per_group(axis, 32)` it is OCP MXFP4 (emax = 2). Only
      the float formats take it.
    - `e4m3(g)`: NVFP4's two-level scales. Every scale is an E4M3 value
      (positive, at most 448) times the per-tensor f32 global scale `g`,
      rounded to f32 (the scale tensors hold those products, so every
      lowering reads them unchanged; dequantize is decode(q) * scale). With
      `f4E2M1FN` and `per_group(axis, 16)` along the reduction axis this is
      NVFP4: g = absmax / (6 * 448), each block's E4M3 scale
      e4m3(absmax_b / 6 / g) rounded to nearest even. With `nf4` it is NF4
      with double-quantized scales (QLoRA's second level, one global
      scale per tensor): g = absmax / 448, each block's scale
      e4m3(absmax_b / g) * g. Only `f4E2M1FN` and `nf4` take it; `g` is a
      positive normal f32, printed with 9 significant digits (which read
      back to the same float).

    Examples:

    ```mlir
    #octet.scheme<i8>
    #octet.scheme<i8<-127:127>, per_axis(0)>
    #octet.scheme<u8, per_axis(1), asymmetric>
    #octet.scheme<i4, per_group(1, 32)>
    #octet.scheme<f8E4M3FN, non_saturating>
    #octet.scheme<f8E4M3FN, per_group(1, 32), e8m0>   // MXFP8 (E4M3)
    #octet.scheme<f4E2M1FN, per_group(1, 32), e8m0>   // MXFP4
    #octet.scheme<f4E2M1FN, per_group(1, 16), e4m3(2.5e-04)>   // NVFP4
    #octet.scheme<nf4, per_group(1, 64)>               // QLoRA NF4
    #octet.scheme<nf4, per_group(1, 64), e4m3(1.0e-03)>  // NF4, double-quantized scales
    ```
  }];
  let parameters = (ins
    "::mlir::octet::StorageFormat":$format,
    "::mlir::octet::Granularity":$granularity,
    "int64_t":$axis,
    "int64_t":$groupSize,
    "bool":$symmetric,
    "bool":$saturate,
    "int32_t":$qmin,
    "int32_t":$qmax,
    "::mlir::octet::ScaleFormat":$scaleFormat,
    "uint32_t":$globalScaleBits
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::mlir::octet::StorageFormat":$format,
                     CArg<"::mlir::octet::Granularity",
                          "::mlir::octet::Granularity::per_tensor">:$granularity,
                     CArg<"int64_t", "0">:$axis,
                     CArg<"int64_t", "0">:$groupSize,
                     CArg<"bool", "true">:$symmetric,
                     CArg<"bool", "true">:$saturate,
                     CArg<"::mlir::octet::ScaleFormat",
                          "::mlir::octet::ScaleFormat::f32">:$scaleFormat,
                     CArg<"uint32_t", "0">:$globalScaleBits), [{
      auto range = ::mlir::octet::getFullRange(format);
      return $_get($_ctxt, format, granularity, axis, groupSize, symmetric,
                   saturate, range.first, range.second, scaleFormat,
                   globalScaleBits);
    }]>,
    AttrBuilder<(ins "::mlir::octet::StorageFormat":$format,
                     "::mlir::octet::Granularity":$granularity,
                     "int64_t":$axis, "int64_t":$groupSize,
                     "bool":$symmetric, "bool":$saturate,
                     "int32_t":$qmin, "int32_t":$qmax), [{
      return $_get($_ctxt, format, granularity, axis, groupSize, symmetric,
                   saturate, qmin, qmax, ::mlir::octet::ScaleFormat::f32,
                   /*globalScaleBits=*/0u);
    }]>
  ];
  let extraClassDeclaration = [{
    /// True for the FP8 formats.
    bool isFloat8() const;
    /// True for FP4 (f4E2M1FN).
    bool isFloat4() const;
    /// True for NF4 (i4 indices into the NF4 value table).
    bool isNf4() const;
    /// True for the float formats (FP8 and FP4): symmetric, no zero point,
    /// codes decode to floats.
    bool isFloat() const;
    /// True for u8 and u4.
    bool isUnsigned() const;
    /// Bits per stored code (8, or 4 for i4, u4, f4E2M1FN and nf4).
    unsigned getStorageBits() const;
    /// The builtin element type of storage tensors (i8, i4, f8E4M3FN, f8E5M2,
    /// f4E2M1FN).
    ::mlir::Type getStorageElementType() const;
    /// True when [qmin, qmax] is narrower than the format's full range.
    bool hasNarrowRange() const;
    /// The format's name as written in the syntax ("i8", "f8E4M3FN", ...).
    ::llvm::StringRef getFormatName() const;
    /// "per_tensor", "per_axis(1)", "per_group(1, 32)".
    std::string getGranularityString() const;
    /// True when the scales are E8M0 (powers of two).
    bool hasE8M0Scales() const {
      return getScaleFormat() == ::mlir::octet::ScaleFormat::e8m0;
    }
    /// True for two-level scales (NVFP4, NF4 with double-quantized
    /// scales): E4M3 values times getGlobalScale().
    bool hasE4M3Scales() const {
      return getScaleFormat() == ::mlir::octet::ScaleFormat::e4m3;
    }
    /// The per-tensor global scale of `e4m3` scales (0 otherwise); stored
    /// as its bits (globalScaleBits), so that equal schemes are equal
    /// attributes.
    float getGlobalScale() const;
    /// The same scheme with another axis (layout folding moves it).
    SchemeAttr withAxis(int64_t axis) const;
  }];
}

// #octet.target and #octet.strategy (the capability table is in
// include/octet/Target).
include "octet/Dialect/Octet/IR/OctetTargetAttrs.td"

#endif // OCTET_DIALECT_OCTET_IR_OCTETATTRS_TD
