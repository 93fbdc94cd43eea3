//===- OctetAttrs.cpp - Octet attributes ----------------------------------===//

#include "octet/Dialect/Octet/IR/Octet.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "octet/Dialect/Octet/IR/OctetNumerics.h"
#include "octet/Runtime/Numerics.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::octet;

#define GET_ATTRDEF_CLASSES
#include "octet/Dialect/Octet/IR/OctetAttrs.cpp.inc"

namespace num = ::octet::numerics;

void OctetDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "octet/Dialect/Octet/IR/OctetAttrs.cpp.inc"
      >();
}

std::pair<int32_t, int32_t> mlir::octet::getFullRange(StorageFormat format) {
  num::IntRange r =
      num::fullRange(toNumerics(format));
  return {r.qmin, r.qmax};
}

bool SchemeAttr::isFloat8() const {
  return num::isFloat8(toNumerics(getFormat()));
}
bool SchemeAttr::isFloat4() const {
  return num::isFloat4(toNumerics(getFormat()));
}
bool SchemeAttr::isNf4() const {
  return num::isNf4(toNumerics(getFormat()));
}
bool SchemeAttr::isFloat() const {
  return num::isFloatFormat(toNumerics(getFormat()));
}
float SchemeAttr::getGlobalScale() const {
  return num::floatOf(getGlobalScaleBits());
}
bool SchemeAttr::isUnsigned() const {
  return num::isUnsigned(toNumerics(getFormat()));
}
unsigned SchemeAttr::getStorageBits() const {
  return num::storageBits(toNumerics(getFormat()));
}
bool SchemeAttr::hasNarrowRange() const {
  auto full = getFullRange(getFormat());
  return !isFloat() && (getQmin() != full.first || getQmax() != full.second);
}
StringRef SchemeAttr::getFormatName() const {
  return stringifyStorageFormat(getFormat());
}

Type SchemeAttr::getStorageElementType() const {
  MLIRContext *ctx = getContext();
  switch (getFormat()) {
  case StorageFormat::i8:
  case StorageFormat::u8:
    return IntegerType::get(ctx, 8);
  case StorageFormat::i4:
  case StorageFormat::u4:
  case StorageFormat::nf4:
    return IntegerType::get(ctx, 4);
  case StorageFormat::f8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case StorageFormat::f8E5M2:
    return Float8E5M2Type::get(ctx);
  case StorageFormat::f4E2M1FN:
    return Float4E2M1FNType::get(ctx);
  }
  llvm_unreachable("unknown storage format");
}

std::string SchemeAttr::getGranularityString() const {
  switch (getGranularity()) {
  case Granularity::per_tensor:
    return "per_tensor";
  case Granularity::per_axis:
    return ("per_axis(" + Twine(getAxis()) + ")").str();
  case Granularity::per_group:
    return ("per_group(" + Twine(getAxis()) + ", " + Twine(getGroupSize()) +
            ")")
        .str();
  }
  llvm_unreachable("unknown granularity");
}

LogicalResult
SchemeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   StorageFormat format, Granularity granularity, int64_t axis,
                   int64_t groupSize, bool symmetric, bool saturate,
                   int32_t qmin, int32_t qmax, ScaleFormat scaleFormat,
                   uint32_t globalScaleBits) {
  bool fp8 = num::isFloat8(toNumerics(format));
  bool fp4 = num::isFloat4(toNumerics(format));
  if (scaleFormat == ScaleFormat::e8m0 && !fp8 && !fp4)
    return emitError() << "e8m0 scales need a float format (MXFP8: "
                          "f8E4M3FN / f8E5M2, MXFP4: f4E2M1FN), not '"
                       << stringifyStorageFormat(format) << "'";
  if (scaleFormat == ScaleFormat::e4m3) {
    if (!fp4 && format != StorageFormat::nf4)
      return emitError() << "e4m3 scales need f4E2M1FN (NVFP4) or nf4 "
                            "(double-quantized scales), not '"
                         << stringifyStorageFormat(format) << "'";
    float g = num::floatOf(globalScaleBits);
    if (!(g >= num::kFloatMinNormal && g <= num::kFloatMax))
      return emitError() << "the global scale of e4m3 scales must be a "
                            "positive normal f32, got "
                         << g;
  } else if (globalScaleBits != 0) {
    return emitError() << "a global scale is given without e4m3 scales";
  }
  if (fp8 || fp4) {
    if (!symmetric)
      return emitError() << (fp8 ? "FP8" : "FP4")
                         << " schemes are symmetric; '"
                         << stringifyStorageFormat(format)
                         << "' cannot be asymmetric";
    if (fp4 && !saturate)
      return emitError() << "f4E2M1FN has no infinity or NaN: its "
                            "conversion always saturates ('non_saturating' "
                            "does not apply)";
  } else {
    if (num::isNf4(toNumerics(format)) && !symmetric)
      return emitError() << "NF4 schemes are symmetric (scale = absmax); "
                            "'nf4' cannot be asymmetric";
    if (num::isNf4(toNumerics(format)) && (qmin != 0 || qmax != 15))
      return emitError() << "'nf4' codes index the 16 NF4 values; the code "
                            "range cannot be narrowed";
    if (!saturate)
      return emitError() << "'non_saturating' applies to FP8 formats only, "
                            "not '"
                         << stringifyStorageFormat(format) << "'";
    auto full = getFullRange(format);
    if (qmin < full.first || qmax > full.second || qmin >= qmax)
      return emitError() << "code range [" << qmin << ", " << qmax
                         << "] is not a non-empty sub-range of '"
                         << stringifyStorageFormat(format) << "' ["
                         << full.first << ", " << full.second << "]";
  }
  if (granularity != Granularity::per_tensor && axis < 0)
    return emitError() << "axis must be non-negative, got " << axis;
  if (granularity == Granularity::per_group && groupSize <= 0)
    return emitError() << "group size must be positive, got " << groupSize;
  return success();
}

Attribute SchemeAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  // `u8`/`u4` lex as bare identifiers; `i8`, `i4` and the FP8 names lex as
  // builtin types.
  std::string formatName;
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword))) {
    formatName = keyword.str();
  } else {
    Type type;
    if (parser.parseType(type))
      return {};
    llvm::raw_string_ostream os(formatName);
    os << type;
  }
  std::optional<StorageFormat> format = symbolizeStorageFormat(formatName);
  if (!format) {
    parser.emitError(loc) << "unknown storage format '" << formatName
                          << "'; expected one of i8, u8, i4, u4, f8E4M3FN, "
                             "f8E5M2, f4E2M1FN, nf4";
    return {};
  }
  auto [qmin, qmax] = getFullRange(*format);
  if (succeeded(parser.parseOptionalLess())) {
    // Re-parse the whole `<qmin:qmax>` group: parseRange expects the `<`.
    if (parser.parseInteger(qmin) || parser.parseColon() ||
        parser.parseInteger(qmax) || parser.parseGreater())
      return {};
  }
  Granularity granularity = Granularity::per_tensor;
  int64_t axis = 0, groupSize = 0;
  bool symmetric = true, saturate = true;
  ScaleFormat scaleFormat = ScaleFormat::f32;
  uint32_t globalScaleBits = 0;
  bool seenGranularity = false, seenSymmetry = false, seenOverflow = false,
       seenScale = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc kwLoc = parser.getCurrentLocation();
    StringRef kw;
    if (parser.parseKeyword(&kw))
      return {};
    auto duplicate = [&](bool &seen, StringRef what) {
      if (seen) {
        parser.emitError(kwLoc) << "the " << what << " is given twice";
        return true;
      }
      seen = true;
      return false;
    };
    if (kw == "per_tensor" || kw == "per_axis" || kw == "per_group") {
      if (duplicate(seenGranularity, "granularity"))
        return {};
      granularity = *symbolizeGranularity(kw);
      if (granularity == Granularity::per_tensor)
        continue;
      if (parser.parseLParen() || parser.parseInteger(axis))
        return {};
      if (granularity == Granularity::per_group &&
          (parser.parseComma() || parser.parseInteger(groupSize)))
        return {};
      if (parser.parseRParen())
        return {};
    } else if (kw == "symmetric" || kw == "asymmetric") {
      if (duplicate(seenSymmetry, "symmetry"))
        return {};
      symmetric = kw == "symmetric";
    } else if (kw == "saturate" || kw == "non_saturating") {
      if (duplicate(seenOverflow, "overflow mode"))
        return {};
      saturate = kw == "saturate";
    } else if (kw == "e8m0") {
      if (duplicate(seenScale, "scale format"))
        return {};
      scaleFormat = ScaleFormat::e8m0;
    } else if (kw == "e4m3") {
      if (duplicate(seenScale, "scale format"))
        return {};
      double g;
      if (parser.parseLParen() || parser.parseFloat(g) ||
          parser.parseRParen())
        return {};
      scaleFormat = ScaleFormat::e4m3;
      globalScaleBits = num::bitsOf(static_cast<float>(g));
    } else {
      parser.emitError(kwLoc)
          << "unknown scheme keyword '" << kw
          << "'; expected per_tensor, per_axis(axis), per_group(axis, size), "
             "symmetric, asymmetric, saturate, non_saturating, e8m0 or "
             "e4m3(global)";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return SchemeAttr::getChecked(
      [&]() { return parser.emitError(loc); }, ctx, *format, granularity, axis,
      groupSize, symmetric, saturate, qmin, qmax, scaleFormat,
      globalScaleBits);
}

void SchemeAttr::print(AsmPrinter &printer) const {
  printer << "<" << getFormatName();
  if (hasNarrowRange())
    printer << "<" << getQmin() << ":" << getQmax() << ">";
  if (getGranularity() != Granularity::per_tensor)
    printer << ", " << getGranularityString();
  if (!getSymmetric())
    printer << ", asymmetric";
  if (!getSaturate())
    printer << ", non_saturating";
  if (hasE8M0Scales())
    printer << ", e8m0";
  if (hasE4M3Scales())
    printer << ", e4m3(" << llvm::format("%.9g", getGlobalScale()) << ")";
  printer << ">";
}

SchemeAttr SchemeAttr::withAxis(int64_t axis) const {
  return SchemeAttr::get(getContext(), getFormat(), getGranularity(), axis,
                         getGroupSize(), getSymmetric(), getSaturate(),
                         getQmin(), getQmax(), getScaleFormat(),
                         getGlobalScaleBits());
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

/// The target names of the capability table (include/octet/Target).
static constexpr StringLiteral kTargetNames[] = {
#define OCTET_TARGET(ID, NAME, ARCH, SM, PTX, EMIT_PTX, FLOAT, HOST_FEATURES,  \
                     DESC)                                                     \
  NAME,
#include "octet/Target/CapabilityTable.def"
};

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, StringRef cpu) {
  if (llvm::is_contained(kTargetNames, name))
    return success();
  InFlightDiagnostic diag = emitError()
                            << "unknown target '" << name << "'; valid: ";
  llvm::interleaveComma(kTargetNames, diag);
  return diag;
}
