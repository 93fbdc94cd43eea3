//===- octet-export-safetensors.cpp - Quantized weights to a file ---------===//
//
// Writes the constants of a quantized module as a safetensors file: for every
// `octet.dequantize` of constant codes, and every `octet.matmul` whose rhs is
// constant codes (or their linalg.transpose: octet-quantize's fused
// weights), the codes (under the weight's name, in the constant's layout),
// the scales (NAME.scale) and zero points (NAME.zero_point), with the scheme
// in the file's metadata; for a matmul that quantizes its lhs too (W8A8),
// the activations' scheme in the metadata entry "activations" (a JSON map
// from weight name to {"scheme", "dynamic"}) and constant lhs parameters as
// NAME.input_scale / NAME.input_zero_point; and every named float constant
// (norm weights, embeddings; AWQ / SmoothQuant fold their scales into those).
// The names are
// the constants' NameLocs (an importer's tensor names), so other tools can
// lay the tensors out for their engine (tools/import-model/
// octet_export_gguf.py writes llama.cpp's GGUF from this file).
//
//===----------------------------------------------------------------------===//

#include "octet/Dialect/Octet/IR/Octet.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::octet;

/// The options --help lists (LLVM's and MLIR's own stay available;
/// --help-hidden lists them).
static llvm::cl::OptionCategory toolOptions("octet-export-safetensors options");

static llvm::cl::opt<std::string>
    inputFile(llvm::cl::cat(toolOptions), llvm::cl::Positional,
              llvm::cl::desc("<input .mlir / .mlirbc>"), llvm::cl::init("-"));
static llvm::cl::opt<std::string>
    outputFile(llvm::cl::cat(toolOptions), "o",
               llvm::cl::desc("Output safetensors file"),
               llvm::cl::value_desc("FILE"));
static llvm::cl::opt<bool>
    quantizedOnly(llvm::cl::cat(toolOptions), "quantized-only",
                  llvm::cl::desc("Write only the quantized weights (codes, "
                                 "scales, zero points), not the float "
                                 "constants"),
                  llvm::cl::init(false));

namespace {

[[noreturn]] void fail(const llvm::Twine &msg) {
  llvm::errs() << "octet-export-safetensors: error: " << msg << "\n";
  std::exit(1);
}

/// One tensor of the output: its dtype, shape and bytes (a view into the
/// module's attributes, or owned).
struct Entry {
  std::string dtype;
  std::vector<int64_t> shape;
  ArrayRef<char> bytes;
  std::vector<char> owned;
};

/// The first NameLoc inside `loc`, or none.
std::optional<std::string> nameOf(Location loc) {
  std::optional<std::string> found;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l)) {
      found = n.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

std::string locString(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// The safetensors dtype of a tensor element type (4-bit codes are written
/// a byte each, sign- or zero-extended as octet stores them; FP4 codes
/// zero-extended), or "".
std::string dtypeOf(Type t) {
  if (t.isF32())
    return "F32";
  if (t.isF16())
    return "F16";
  if (t.isBF16())
    return "BF16";
  if (isa<Float8E4M3FNType>(t))
    return "F8_E4M3";
  if (isa<Float8E5M2Type>(t))
    return "F8_E5M2";
  // FP4 (E2M1) codes a byte each, the code in the low nibble (ml_dtypes'
  // float4_e2m1fn layout); the scheme metadata names the format.
  if (isa<Float4E2M1FNType>(t))
    return "U8";
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool isUnsigned = i.isUnsigned();
    switch (i.getWidth()) {
    case 4:
    case 8:
      return isUnsigned ? "U8" : "I8";
    case 32:
      return isUnsigned ? "U32" : "I32";
    default:
      return "";
    }
  }
  return "";
}

unsigned storedBytes(Type t) {
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits <= 8 ? 1 : bits / 8;
}

/// The bytes of constant `v` as `dtype` (splats expanded), or an error
/// naming the value.
LogicalResult readConstant(Value v, Entry &e, std::string &why) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr))) {
    why = "is not a constant";
    return failure();
  }
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape()) {
    why = "is not a statically shaped tensor";
    return failure();
  }
  Type et = type.getElementType();
  e.dtype = dtypeOf(et);
  if (e.dtype.empty()) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << et;
    why = "has element type " + s + ", which safetensors cannot hold";
    return failure();
  }
  e.shape.assign(type.getShape().begin(), type.getShape().end());
  uint64_t elemBytes = storedBytes(et);
  uint64_t bytes = static_cast<uint64_t>(type.getNumElements()) * elemBytes;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      if (raw.size() < elemBytes) {
        why = "has an unreadable splat value";
        return failure();
      }
      e.owned.resize(bytes);
      for (uint64_t i = 0; i < bytes; i += elemBytes)
        std::memcpy(e.owned.data() + i, raw.data(), elemBytes);
      e.bytes = e.owned;
      return success();
    }
    if (raw.size() != bytes) {
      why = "holds " + std::to_string(raw.size()) + " bytes, expected " +
            std::to_string(bytes);
      return failure();
    }
    e.bytes = raw;
    return success();
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob) {
      why = "is the dense_resource '" + res.getRawHandle().getKey().str() +
            "', which has no data";
      return failure();
    }
    ArrayRef<char> raw = blob->getData();
    if (raw.size() != bytes) {
      why = "is the dense_resource '" + res.getRawHandle().getKey().str() +
            "' of " + std::to_string(raw.size()) + " bytes, expected " +
            std::to_string(bytes);
      return failure();
    }
    e.bytes = raw;
    return success();
  }
  why = "is neither a dense nor a dense_resource constant";
  return failure();
}

/// The module's tensors, by name, in first-seen order.
class Collector {
public:
  std::vector<std::pair<std::string, Entry>> entries;
  std::map<std::string, std::string> metadata;
  unsigned unnamedWeights = 0; ///< Quantized weights without a NameLoc.

  /// A unique name for the value at `loc`: its NameLoc, else
  /// `prefix_N`; repeated names get `#1`, `#2`, ... (as the monitor does).
  std::string uniqueName(Location loc, StringRef prefix) {
    std::string base;
    if (std::optional<std::string> n = nameOf(loc))
      base = *n;
    else
      base = (prefix + "_" + llvm::Twine(unnamed++)).str();
    std::string name = base;
    for (unsigned k = 1; used.count(name) || reserved(name); ++k)
      name = base + "#" + std::to_string(k);
    used.insert(name);
    return name;
  }

  void add(std::string name, Entry e) {
    entries.emplace_back(std::move(name), std::move(e));
  }

private:
  /// Names the suffixes of a quantized weight would clash with.
  bool reserved(const std::string &name) {
    StringRef n(name);
    return used.count((n.str() + ".scale")) ||
           used.count((n.str() + ".zero_point"));
  }
  llvm::StringSet<> used;
  unsigned unnamed = 0;
};

/// Codes as the scheme reads them: I8 for the signed integer formats, U8
/// for the unsigned ones, 4-bit codes one per byte, sign- or zero-extended
/// from their low four bits (whatever the attribute's storage held above
/// them).
void normalizeCodes(SchemeAttr scheme, Entry &e) {
  StorageFormat f = scheme.getFormat();
  if (f == StorageFormat::i8 || f == StorageFormat::i4)
    e.dtype = "I8";
  else if (f == StorageFormat::u8 || f == StorageFormat::u4)
    e.dtype = "U8";
  if (f != StorageFormat::i4 && f != StorageFormat::u4)
    return;
  std::vector<char> out(e.bytes.begin(), e.bytes.end());
  for (char &b : out) {
    uint8_t low = static_cast<uint8_t>(b) & 0xF;
    b = static_cast<char>(f == StorageFormat::i4 && (low & 0x8) ? low | 0xF0
                                                                : low);
  }
  e.owned = std::move(out);
  e.bytes = e.owned;
}

/// Transposes a 2-D entry in place (per-group parameters of a transposed
/// weight).
void transpose2d(Entry &e) {
  if (e.shape.size() != 2)
    return;
  size_t rows = e.shape[0], cols = e.shape[1];
  size_t elem = rows * cols ? e.bytes.size() / (rows * cols) : 0;
  std::vector<char> out(e.bytes.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      std::memcpy(out.data() + (c * rows + r) * elem,
                  e.bytes.data() + (r * cols + c) * elem, elem);
  e.owned = std::move(out);
  e.bytes = e.owned;
  std::swap(e.shape[0], e.shape[1]);
}

/// E8M0 scales (MXFP8) as one byte each, dtype F8_E8M0: the biased
/// exponent 127 + e of 2^e (the f32 exponent field; 2^-127, the one
/// subnormal f32 the verifier admits, is code 0). The dequantize verifier
/// guarantees powers of two in 2^-127 .. 2^127.
void toE8M0(Entry &scale) {
  size_t n = scale.bytes.size() / 4;
  std::vector<char> out(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, scale.bytes.data() + 4 * i, 4);
    out[i] = static_cast<char>((bits >> 23) & 0xffu);
  }
  scale.owned = std::move(out);
  scale.bytes = scale.owned;
  scale.dtype = "F8_E8M0";
}

LogicalResult collect(ModuleOp module, Collector &c) {
  // Constants consumed as the parameters or codes of an exported
  // dequantize are written with it, not again on their own.
  llvm::DenseSet<Operation *> taken;
  bool ok = true;
  module.walk([&](DequantizeOp op) {
    Entry codes, scale, zp;
    std::string why;
    if (failed(readConstant(op.getInput(), codes, why)))
      return; // computed codes (an activation): not a weight.
    if (!nameOf(op.getInput().getLoc()))
      ++c.unnamedWeights;
    std::string name = c.uniqueName(op.getInput().getLoc(), "dequantize");
    if (failed(readConstant(op.getScale(), scale, why))) {
      op.emitError() << "octet-export-safetensors: the scale of weight '"
                     << name << "' " << why;
      ok = false;
      return;
    }
    bool hasZp = static_cast<bool>(op.getZeroPoint());
    if (hasZp && failed(readConstant(op.getZeroPoint(), zp, why))) {
      op.emitError() << "octet-export-safetensors: the zero point of weight '"
                     << name << "' " << why;
      ok = false;
      return;
    }
    normalizeCodes(op.getScheme(), codes);
    if (op.getScheme().hasE8M0Scales())
      toE8M0(scale);
    std::string scheme;
    llvm::raw_string_ostream os(scheme);
    os << op.getScheme();
    c.metadata[name] = scheme;
    for (Value v : {op.getInput(), op.getScale(), op.getZeroPoint()})
      if (v)
        taken.insert(v.getDefiningOp());
    c.add(name, std::move(codes));
    c.add(name + ".scale", std::move(scale));
    if (hasZp)
      c.add(name + ".zero_point", std::move(zp));
  });
  if (!ok)
    return failure();
  // octet.matmul with constant weight codes: octet-quantize fuses the
  // weight's dequantize into the matmul, the codes as the rhs ([K, N]) or
  // as a linalg.transpose of the importer's [N, K] constant. Written in the
  // constant's layout with the scheme (and per-group parameters) mapped to
  // it, as a dequantize of that constant would have them.
  llvm::json::Object activations;
  module.walk([&](MatmulOp op) {
    if (op.getRhs().getType().getRank() != 2)
      return;
    // A value, or the input of the 2-D linalg.transpose that gives it
    // (swapped: the transpose exchanges the two dimensions).
    auto strip = [](Value v, bool &swapped) -> Value {
      swapped = false;
      if (auto t = v ? v.getDefiningOp<linalg::TransposeOp>() : nullptr) {
        ArrayRef<int64_t> p = t.getPermutation();
        if (p.size() == 2 && p[0] == 1 && p[1] == 0) {
          swapped = true;
          return t.getInput();
        }
      }
      return v;
    };
    bool swapped, scaleSwapped, zpSwapped;
    Value src = strip(op.getRhs(), swapped);
    SmallVector<int64_t> perm = {0, 1};
    if (swapped)
      perm = {1, 0};
    Value scaleV = strip(op.getRhsScale(), scaleSwapped);
    Value zpV = strip(op.getRhsZeroPoint(), zpSwapped);
    Entry codes, scale, zp;
    std::string why;
    if (!src.getDefiningOp() || taken.count(src.getDefiningOp()) ||
        failed(readConstant(src, codes, why)))
      return; // computed codes (attention on a quantized cache), or seen.
    if (!nameOf(src.getLoc()))
      ++c.unnamedWeights;
    std::string name = c.uniqueName(src.getLoc(), "matmul");
    SchemeAttr scheme = op.getRhsScheme();
    if (scheme.getGranularity() != Granularity::per_tensor)
      scheme = scheme.withAxis(perm[scheme.getAxis()]);
    if (failed(readConstant(scaleV, scale, why))) {
      op.emitError() << "octet-export-safetensors: the scale of weight '"
                     << name << "' " << why;
      ok = false;
      return;
    }
    bool hasZp = static_cast<bool>(zpV);
    if (hasZp && failed(readConstant(zpV, zp, why))) {
      op.emitError() << "octet-export-safetensors: the zero point of weight '"
                     << name << "' " << why;
      ok = false;
      return;
    }
    // Per-group parameters have the codes' rank: in the constant's layout
    // when they went through the same transpose as the codes.
    if (scheme.getGranularity() == Granularity::per_group) {
      if (swapped != scaleSwapped)
        transpose2d(scale);
      if (hasZp && swapped != zpSwapped)
        transpose2d(zp);
    }
    normalizeCodes(scheme, codes);
    if (scheme.hasE8M0Scales())
      toE8M0(scale);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << scheme;
    c.metadata[name] = text;
    for (Value v : {src, scaleV, zpV})
      if (v && v.getDefiningOp())
        taken.insert(v.getDefiningOp());
    c.add(name, std::move(codes));
    c.add(name + ".scale", std::move(scale));
    if (hasZp)
      c.add(name + ".zero_point", std::move(zp));
    if (SchemeAttr lhs = op.getLhsSchemeAttr()) {
      std::string ltext;
      llvm::raw_string_ostream los(ltext);
      los << lhs;
      // Constant lhs parameters: static activation quantization.
      bool dynamic = false;
      for (auto [v, suffix] : {std::pair<Value, const char *>(
                                   op.getLhsScale(), ".input_scale"),
                               {op.getLhsZeroPoint(), ".input_zero_point"}}) {
        if (!v)
          continue;
        Entry e;
        if (failed(readConstant(v, e, why))) {
          dynamic = true;
          continue;
        }
        taken.insert(v.getDefiningOp());
        c.add(name + suffix, std::move(e));
      }
      activations[name] =
          llvm::json::Object{{"scheme", ltext}, {"dynamic", dynamic}};
    }
  });
  if (!ok)
    return failure();
  if (!activations.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(std::move(activations));
    c.metadata["activations"] = text;
  }
  if (quantizedOnly)
    return success();
  module.walk([&](arith::ConstantOp cst) {
    auto type = dyn_cast<RankedTensorType>(cst.getType());
    if (taken.count(cst) || !type || type.getRank() == 0 ||
        !isa<FloatType>(type.getElementType()))
      return;
    Entry e;
    std::string why;
    if (failed(readConstant(cst, e, why))) {
      cst.emitWarning() << "octet-export-safetensors: constant at "
                        << locString(cst.getLoc()) << " " << why
                        << "; not written";
      return;
    }
    c.add(c.uniqueName(cst.getLoc(), "constant"), std::move(e));
  });
  return success();
}

/// safetensors: an 8-byte little-endian header length, the JSON header
/// (padded with spaces to 8 bytes), then the tensors' bytes.
void write(const Collector &c, llvm::raw_ostream &out) {
  llvm::json::Object header;
  uint64_t offset = 0;
  for (const auto &[name, e] : c.entries) {
    llvm::json::Array shape;
    for (int64_t d : e.shape)
      shape.push_back(d);
    header[name] = llvm::json::Object{
        {"dtype", e.dtype},
        {"shape", std::move(shape)},
        {"data_offsets", llvm::json::Array{offset, offset + e.bytes.size()}}};
    offset += e.bytes.size();
  }
  llvm::json::Object meta;
  meta["format"] = "octet";
  for (const auto &[name, scheme] : c.metadata)
    meta[name] = scheme;
  header["__metadata__"] = std::move(meta);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(header));
  os.flush();
  while (text.size() % 8)
    text.push_back(' ');
  uint64_t n = text.size();
  char len[8];
  for (int i = 0; i < 8; ++i)
    len[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  out.write(len, 8);
  out << text;
  for (const auto &entry : c.entries)
    out.write(entry.second.bytes.data(), entry.second.bytes.size());
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  llvm::cl::HideUnrelatedOptions(toolOptions);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "octet-export-safetensors: write a quantized module's weights (codes, "
      "scales, zero points, schemes) and named float constants as a "
      "safetensors file\n");
  if (outputFile.empty())
    fail("no output file: give -o FILE");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<OctetDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      openInputFile(inputFile, &err);
  if (!buffer)
    fail(err);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  Collector c;
  if (failed(collect(*module, c)))
    return 1;
  if (c.metadata.empty())
    llvm::errs() << "octet-export-safetensors: warning: " << inputFile
                 << " has no quantized weight (an octet.dequantize or "
                    "octet.matmul of constant codes); only float constants "
                    "are written\n";
  if (c.unnamedWeights)
    llvm::errs() << "octet-export-safetensors: warning: " << c.unnamedWeights
                 << " quantized weight(s) have no name and are written as "
                    "dequantize_N (the importer's names are locations: keep "
                    "them with --emit-bytecode or --mlir-print-debuginfo)\n";
  std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(outputFile, &err);
  if (!out)
    fail(err);
  write(c, out->os());
  out->os().flush();
  if (out->os().has_error())
    fail("cannot write " + outputFile + ": " +
         out->os().error().message());
  out->keep();
  return 0;
}
