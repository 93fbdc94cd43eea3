//===- CpuKernels.cpp - Generate the CPU GEMM task functions --------------===//
//
// The shared part of the CPU kernels: a GemmConfig's name, tile sizes and
// required features, its description as an attribute (kKernelAttrName) and
// back, the declaration of its task function and the driver that emits the
// task body:
//
//   for t in [lo, hi):                         // tiles of MC x NC (integer)
//     <the kernel family's tile t>
//
// The families are in IntegerKernels.cpp (AVX2 / AVX-512 VNNI),
// AmxKernel.cpp and FloatKernels.cpp (weight-only, FP8, f32); all of them
// end in the octet.matmul epilogue of CpuEpilogue.cpp. KernelEmitter.h
// declares the emitter they share.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::cpu;

//===----------------------------------------------------------------------===//
// Kernel description
//===----------------------------------------------------------------------===//

/// "e4m3" / "e5m2" for an FP8 field of GemmConfig.
static std::string fp8Name(std::optional<StorageFormat> format) {
  return format == StorageFormat::f8E5M2     ? "e5m2"
         : format == StorageFormat::f4E2M1FN ? "e2m1"
                                             : "e4m3";
}

static const char *paramName(Param p) {
  return p == Param::none ? "n" : p == Param::scalar ? "s" : "v";
}

std::string GemmConfig::getName() const {
  std::string name = "__octet_cpu_";
  switch (isa) {
  case Isa::avx2:
    name += "avx2";
    break;
  case Isa::vnni512:
    name += "vnni512";
    break;
  case Isa::amx:
    name += "amx";
    break;
  case Isa::fma:
    name += "wo";
    break;
  case Isa::fma512:
    name += "wo512";
    break;
  case Isa::dpbf16:
    name += "bf16";
    break;
  case Isa::amxBf16:
    name += "amxbf16";
    break;
  }
  name += lhsFp8 ? "_" + fp8Name(lhsFp8)
                 : weightOnly ? "_f32" : (lhsUnsigned ? "_u8" : "_s8");
  if (floatRhs)
    name += rhsTransposed ? "f32t" : "f32";
  else if (rhsFp4)
    name += "e2m1";
  else if (rhsNf4)
    name += "nf4";
  else if (rhsNibbles)
    name += rhsUnsigned ? "u4" : "s4";
  else if (rhsFp8)
    name += fp8Name(rhsFp8) + (rhsNoNan ? "nn" : "");
  else
    name += rhsUnsigned ? "u8" : "s8";
  if (rhsPanels && !rhsNibbles)
    name += "p";
  if (panelPrefetchL1)
    name += "_l1pf";
  if (panelPrefetchBytes != kDefaultPanelPrefetchBytes)
    name += "_pf" + std::to_string(panelPrefetchBytes);
  if (group)
    name += "_g" + std::to_string(group) + (scalePanels ? "p" : "");
  if (lhsGroupScale)
    name += "_blocks";
  if (batched)
    name += "_batch";
  name += std::string("_sa") + paramName(sa) + "_sb" + paramName(sb) + "_za" +
          paramName(za) + "_zb" + paramName(zb);
  if (bias)
    name += "_bias";
  if (relu)
    name += "_relu";
  if (outScheme) {
    auto num = [](int64_t v) {
      return v < 0 ? "m" + std::to_string(-v) : std::to_string(v);
    };
    name += "_q" + num(outScheme.getQmin()) + "_" +
            num(outScheme.getQmax()) + "_os" + paramName(os) +
            "_oz" + paramName(oz);
  }
  return name;
}

void mlir::octet::cpu::setTileSizes(GemmConfig &c) {
  switch (c.isa) {
  case Isa::avx2:
    // 6 x 16 register tile: 12 ymm accumulators, 2 B vectors, 1 broadcast.
    // Tiles of 72 x 128 over the whole K in 2 MB groups as for VNNI below:
    // against oneDNN's AVX2 GEMM on Zen 5, one thread, 0.75 -> 0.86x at
    // 4096^3, 1.01-1.04 -> 1.17-1.19x at M = 512 (72 x 256 tiles, K blocks
    // of 512, row-major before; cpu-performance.md, "Tile groups").
    c.mr = 6, c.nv = 2, c.w = 8, c.kp = 2;
    c.mc = 72, c.nc = 128, c.kc = 0;
    c.packNr = 16, c.kAlign = 2;
    break;
  case Isa::vnni512:
    // 8 x 32 register tile: 16 zmm accumulators. Tiles of 128 x 128 over
    // the whole K (no scratch of partial sums), in groups of row tiles
    // whose activations fill 2 MB (cpu-performance.md, "Tile groups"): on
    // Zen 5, one thread, 0.82-0.90x oneDNN -> 0.94-1.00x at the shapes of
    // bench/cpu_kernels.py from 2048^3 up (96 x 256 tiles, K blocks of
    // 1024, row-major tile order before).
    c.mr = 8, c.nv = 2, c.w = 16, c.kp = 4;
    c.mc = 128, c.nc = 128, c.kc = 0;
    c.packNr = 32, c.kAlign = 4;
    break;
  case Isa::amx:
    // 2 x 2 tiles of 16 x 16 i32; k in steps of 64 bytes. Tasks of 256 x
    // 128: a column strip of B (32 x K) read from L3 once per 8 row tiles
    // (tasks of 64 x 128 read B 4 times as often: 1320 GOPS against 1420
    // at 2048^3, 1480 against 1950 at 512 x 4096 x 4096; best of 3
    // interleaved rounds, one thread, Emerald Rapids).
    c.mr = 32, c.nv = 2, c.w = 16, c.kp = 4;
    c.mc = 256, c.nc = 128, c.kc = 0;
    c.packNr = 16, c.kAlign = 64;
    break;
  case Isa::fma:
    // M >= MR: 6 x 16 register tile (12 ymm sums, 2 converted weight
    // vectors, 1 broadcast), tiles of at most 288 x 1024 (split evenly at
    // run time), K blocks of 256 rows (a panel's converted block, 256 x 64
    // bytes, stays in L1 for the tile's rows; the tile's, 1 MB at most, in
    // L2 / L3). M < MR: the decode kernel (emitWeightOnlyDecode, or
    // emitPanelDecode for constant codes in panels), column strips chosen at
    // run time.
    c.mr = 6, c.nv = 2, c.w = 8, c.kp = 1;
    c.mc = 288, c.nc = 1024, c.kc = 256;
    c.packNr = 16, c.kAlign = 1;
    break;
  case Isa::fma512:
    // 12 x 32 register tile: 24 zmm sums, 2 converted weight vectors, 1
    // broadcast (of 32 registers); K blocks as for ymm, tiles of at most
    // 516 x 1024 (A blocks of 516 KB for the 1 MB or larger L2 of the
    // AVX-512 cores): each tile converts its K x NC weights once, so 1024
    // rows in 2 tiles instead of 4 halve that work. Against 288 rows, on
    // Zen 5: f32 1024^3 0.87 -> 0.92x sgemm (two threads), 512 x 4096 x
    // 4096 0.93 -> 0.98x (one), W8A32 likewise (cpu-performance.md).
    c.mr = 12, c.nv = 2, c.w = 16, c.kp = 1;
    c.mc = 516, c.nc = 1024, c.kc = 256;
    c.packNr = 32, c.kAlign = 1;
    break;
  case Isa::dpbf16:
    // fma512's tiles; each vdpbf16ps takes two rows of K (a pair of bf16
    // per 32-bit lane), so K blocks are even.
    c.mr = 12, c.nv = 2, c.w = 16, c.kp = 2;
    c.mc = 288, c.nc = 1024, c.kc = 256;
    c.packNr = 32, c.kAlign = 2;
    break;
  case Isa::amxBf16:
    // M < MR: fma512's decode kernel. The tiles: 32 x 32 micro-tiles of
    // 2 x 2 tdpbf16ps tiles (k in steps of 32 bf16) as for AMX-INT8, tasks
    // of at most 512 x 128 (multiples of 32, chosen at run time): a column
    // strip of the weights is converted to bf16 once per task (K x 32 x 2
    // bytes, in L1 at MiniLM's K = 384) for up to 16 row micro-tiles.
    // Against 256 rows: 300-650 GFLOP/s against 300-430 on one core at
    // MiniLM's shapes (M = 1024; Emerald Rapids, `fgemm ... e4m3`, noisy).
    c.mr = 12, c.nv = 2, c.w = 16, c.kp = 1;
    c.mc = 512, c.nc = 128, c.kc = 256;
    c.packNr = 32, c.kAlign = 32;
    break;
  }
}

SmallVector<StringRef> mlir::octet::cpu::getRequiredFeatures(Isa isa) {
  switch (isa) {
  case Isa::avx2:
    return {"avx2"};
  case Isa::vnni512:
    return {"avx2", "avx512f", "avx512bw", "avx512vl", "avx512vnni"};
  case Isa::amx:
    return {"avx2",       "avx512f",  "avx512bw", "avx512vl",
            "avx512vnni", "amx-tile", "amx-int8"};
  case Isa::fma:
    return {"avx2", "fma", "f16c"};
  case Isa::fma512:
    return {"avx2", "fma", "f16c", "avx512f"};
  case Isa::dpbf16:
    return {"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512bf16"};
  case Isa::amxBf16:
    return {"avx2",     "fma",      "f16c",    "avx512f",
            "avx512bw", "amx-tile", "amx-bf16"};
  }
  return {};
}

DictionaryAttr mlir::octet::cpu::getConfigAttr(MLIRContext *ctx,
                                              const GemmConfig &c) {
  Builder b(ctx);
  SmallVector<NamedAttribute> fields;
  auto add = [&](StringRef name, int64_t v) {
    fields.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(v)));
  };
  add("isa", static_cast<int64_t>(c.isa));
  add("weight_only", c.weightOnly);
  add("lhs_unsigned", c.lhsUnsigned);
  add("rhs_unsigned", c.rhsUnsigned);
  add("sa", static_cast<int64_t>(c.sa));
  add("sb", static_cast<int64_t>(c.sb));
  add("za", static_cast<int64_t>(c.za));
  add("zb", static_cast<int64_t>(c.zb));
  add("os", static_cast<int64_t>(c.os));
  add("oz", static_cast<int64_t>(c.oz));
  add("bias", c.bias);
  add("relu", c.relu);
  add("float_rhs", c.floatRhs);
  add("rhs_transposed", c.rhsTransposed);
  add("batched", c.batched);
  add("group", c.group);
  add("rhs_nibbles", c.rhsNibbles);
  add("rhs_panels", c.rhsPanels);
  add("scale_panels", c.scalePanels);
  add("rhs_fp4", c.rhsFp4);
  add("rhs_nf4", c.rhsNf4);
  add("lhs_group_scale", c.lhsGroupScale);
  add("rhs_no_nan", c.rhsNoNan);
  add("panel_prefetch_l1", c.panelPrefetchL1);
  add("panel_prefetch_bytes", c.panelPrefetchBytes);
  if (c.lhsFp8)
    fields.push_back(b.getNamedAttr(
        "lhs_fp8", b.getStringAttr(stringifyStorageFormat(*c.lhsFp8))));
  if (c.rhsFp8)
    fields.push_back(b.getNamedAttr(
        "rhs_fp8", b.getStringAttr(stringifyStorageFormat(*c.rhsFp8))));
  if (c.outScheme)
    fields.push_back(b.getNamedAttr("out_scheme", c.outScheme));
  return b.getDictionaryAttr(fields);
}

FailureOr<GemmConfig> mlir::octet::cpu::parseConfigAttr(DictionaryAttr attr) {
  GemmConfig c;
  bool ok = true;
  auto get = [&](StringRef name) -> int64_t {
    auto v = attr.getAs<IntegerAttr>(name);
    if (!v) {
      ok = false;
      return 0;
    }
    return v.getInt();
  };
  int64_t isa = get("isa");
  if (isa < 0 || isa > static_cast<int64_t>(Isa::amxBf16))
    return failure();
  c.isa = static_cast<Isa>(isa);
  c.weightOnly = get("weight_only");
  c.lhsUnsigned = get("lhs_unsigned");
  c.rhsUnsigned = get("rhs_unsigned");
  auto param = [&](StringRef name) {
    int64_t v = get(name);
    if (v < 0 || v > 2)
      ok = false;
    return static_cast<Param>(v);
  };
  c.sa = param("sa"), c.sb = param("sb"), c.za = param("za"),
  c.zb = param("zb"), c.os = param("os"), c.oz = param("oz");
  c.bias = get("bias");
  c.relu = get("relu");
  c.floatRhs = get("float_rhs");
  c.rhsTransposed = get("rhs_transposed");
  c.batched = get("batched");
  c.group = get("group");
  c.rhsNibbles = get("rhs_nibbles");
  c.rhsPanels = get("rhs_panels");
  c.scalePanels = get("scale_panels");
  c.rhsFp4 = get("rhs_fp4");
  c.rhsNf4 = get("rhs_nf4");
  c.lhsGroupScale = get("lhs_group_scale");
  c.rhsNoNan = get("rhs_no_nan");
  c.panelPrefetchL1 = get("panel_prefetch_l1");
  c.panelPrefetchBytes = get("panel_prefetch_bytes");
  if (c.panelPrefetchBytes < 64 || c.panelPrefetchBytes > 65536 ||
      c.panelPrefetchBytes % 64 != 0)
    ok = false;
  if ((c.rhsFp4 || c.rhsNf4) && (!c.rhsNibbles || (c.rhsFp4 && c.rhsNf4)))
    ok = false;
  // 4-bit codes come in panels only; panels are weight-only codes.
  if ((c.rhsNibbles && !c.rhsPanels) ||
      (c.rhsPanels && (!c.weightOnly || c.floatRhs || c.batched)))
    ok = false;
  if (c.scalePanels && (!c.rhsPanels || !c.group))
    ok = false;
  if (c.panelPrefetchL1 && !c.rhsPanels)
    ok = false;
  auto fp8 = [&](StringRef name, bool fp4) -> std::optional<StorageFormat> {
    auto v = attr.getAs<StringAttr>(name);
    if (!v)
      return std::nullopt;
    std::optional<StorageFormat> format = symbolizeStorageFormat(v.getValue());
    if (!format || (*format != StorageFormat::f8E4M3FN &&
                    *format != StorageFormat::f8E5M2 &&
                    !(fp4 && *format == StorageFormat::f4E2M1FN)))
      ok = false;
    return format;
  };
  // The lhs codes (one per byte) may be FP4; FP4 rhs codes are nibbles.
  c.lhsFp8 = fp8("lhs_fp8", /*fp4=*/true);
  c.rhsFp8 = fp8("rhs_fp8", /*fp4=*/false);
  if (c.rhsNoNan && c.rhsFp8 != StorageFormat::f8E4M3FN)
    ok = false;
  if (c.lhsGroupScale && (!c.lhsFp8 || !c.group || c.sa != Param::none))
    ok = false;
  if (c.group < 0 || c.group % 8 != 0)
    ok = false;
  // The AMX-BF16 tiles take FP8 x FP8 with constant panels and no groups.
  if (c.isa == Isa::amxBf16 &&
      (!c.weightOnly || !c.rhsPanels || !c.rhsFp8 || !c.lhsFp8 ||
       *c.lhsFp8 == StorageFormat::f4E2M1FN || c.group || c.lhsGroupScale))
    ok = false;
  c.outScheme = attr.getAs<SchemeAttr>("out_scheme");
  if (!ok || (c.os != Param::none && !c.outScheme))
    return failure();
  setTileSizes(c);
  return c;
}

//===----------------------------------------------------------------------===//
// Task functions
//===----------------------------------------------------------------------===//

func::FuncOp mlir::octet::cpu::getOrDeclareFunction(ModuleOp module,
                                                    StringRef name,
                                                    FunctionType type) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  return f;
}

Value mlir::octet::cpu::bufferAddress(OpBuilder &b, Location loc, Value memref,
                                      memref::ExtractStridedMetadataOp *meta) {
  auto type = cast<MemRefType>(memref.getType());
  auto md = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  if (meta)
    *meta = md;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value offset =
      arith::MulIOp::create(b, loc, md.getOffset(),
                            arith::ConstantIndexOp::create(
                                b, loc, type.getElementTypeBitWidth() / 8));
  Value addr = arith::AddIOp::create(b, loc, base, offset);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), addr);
}

Value mlir::octet::cpu::callRuntime(OpBuilder &b, Location loc,
                                   ModuleOp module, StringRef name,
                                   TypeRange results, ValueRange args) {
  auto type = FunctionType::get(b.getContext(), args.getTypes(), results);
  func::FuncOp f = getOrDeclareFunction(module, name, type);
  auto call = func::CallOp::create(b, loc, f, args);
  return results.empty() ? Value() : call.getResult(0);
}

func::FuncOp mlir::octet::cpu::getOrDeclareTaskFunction(ModuleOp module,
                                                        const GemmConfig &c) {
  std::string name = c.getName();
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  auto type = FunctionType::get(ctx, {ptrTy, i64, i64}, {});
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  f->setAttr(kKernelAttrName, getConfigAttr(ctx, c));
  // The kernel's instructions, whatever CPU the module is compiled for (the
  // call site checks the running CPU first).
  SmallVector<StringRef> features = getRequiredFeatures(c.isa);
  if (!features.empty()) {
    SmallVector<std::string> plus;
    for (StringRef feature : features)
      plus.push_back(("+" + feature).str());
    f->setAttr("target_features",
               LLVM::TargetFeaturesAttr::get(
                   ctx, SmallVector<StringRef>(plus.begin(), plus.end())));
  }
  return f;
}

void KernelEmitter::emit(Value ctx, Value lo, Value hi) {
  auto field = [&](CtxSlot s) {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, i64, ctx,
                                  ArrayRef<LLVM::GEPArg>{int32_t(s)});
    return load(i64, p, 8);
  };
  A = field(kA), B = field(kB), C = field(kC), M = field(kM), N = field(kN),
  K = field(kK), lda = field(kLda), tilesN = field(kTilesN), sa = field(kSa),
  sb = field(kSb), bias = field(kBias), comp = field(kComp), za = field(kZa),
  zb = field(kZb), os = field(kOs), oz = field(kOz);
  batchTasks = field(kBatchTasks), strideA = field(kStrideA),
  strideB = field(kStrideB), strideC = field(kStrideC);
  taskCols = field(kNc), tileRows = field(kMc), lhsBf16 = field(kLhsBf16);
  // Panels: the bytes of a panel's row (GemmConfig::panelColumns).
  ldb = c.rhsPanels ? cst(c.panelRowBytes()) : N;
  auto loop = forLoop(lo, hi, 1);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  if (c.weightOnly)
    emitWeightOnlyTile(t);
  else if (c.isa == Isa::amx)
    emitAmxTile(t);
  else
    emitIntegerTile(t);
}

void mlir::octet::cpu::emitTaskBody(func::FuncOp f, const GemmConfig &c) {
  auto module = f->getParentOfType<ModuleOp>();
  OpBuilder b(f.getContext());
  Block *entry = f.addEntryBlock();
  b.setInsertionPointToStart(entry);
  KernelEmitter emitter(b, f.getLoc(), c, module);
  emitter.emit(entry->getArgument(0), entry->getArgument(1),
               entry->getArgument(2));
  func::ReturnOp::create(b, f.getLoc());
  f->removeAttr(kKernelAttrName);
}
