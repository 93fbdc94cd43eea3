//===- octet-capi-test.c - Test of octet's C API --------------------------===//
//
// A C program that uses only the C API (libOctet-C.so): registers the
// dialects, parses octet IR, builds and inspects #octet.scheme attributes,
// runs --octet-import-quant (and the host lowering) on a module, and shows
// that errors arrive as diagnostics.
//
//===----------------------------------------------------------------------===//

// RUN: octet-capi-test 2>&1 | FileCheck %s

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "octet-c/Dialect/Octet.h"
#include "octet-c/Passes.h"

#include <stdio.h>
#include <string.h>

static void printToStdout(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

/// Prints every diagnostic as "diagnostic: <message>" on stdout.
static MlirLogicalResult printDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diag, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirContext createContext(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__octet__(), registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  return ctx;
}

static MlirModule parse(MlirContext ctx, const char *text) {
  return mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
}

static void printModule(MlirModule module) {
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
}

static void printScheme(MlirAttribute scheme) {
  mlirAttributePrint(scheme, printToStdout, NULL);
  MlirStringRef name = octetSchemeAttrGetFormatName(scheme);
  printf("\n  format=%.*s (%d) granularity=%d axis=%lld group=%lld "
         "symmetric=%d saturating=%d range=[%d, %d] storage=",
         (int)name.length, name.data, (int)octetSchemeAttrGetFormat(scheme),
         (int)octetSchemeAttrGetGranularity(scheme),
         (long long)octetSchemeAttrGetAxis(scheme),
         (long long)octetSchemeAttrGetGroupSize(scheme),
         octetSchemeAttrIsSymmetric(scheme),
         octetSchemeAttrIsSaturating(scheme), octetSchemeAttrGetQmin(scheme),
         octetSchemeAttrGetQmax(scheme));
  mlirTypePrint(octetSchemeAttrGetStorageElementType(scheme), printToStdout,
                NULL);
  printf("\n");
}

/// Parses and prints octet IR.
static int testParse(MlirContext ctx) {
  // CHECK-LABEL: testParse
  printf("testParse\n");
  MlirModule module = parse(
      ctx, "func.func @q(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xi8> {\n"
           "  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8<-127:127>>"
           " : tensor<4xf32> -> tensor<4xi8>\n"
           "  return %q : tensor<4xi8>\n"
           "}\n");
  if (mlirModuleIsNull(module))
    return 1;
  // CHECK: func.func @q(%[[X:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>) -> tensor<4xi8>
  // CHECK: octet.quantize %[[X]] scale(%[[S]] : tensor<f32>) as <i8<-127:127>> : tensor<4xf32> -> tensor<4xi8>
  printModule(module);
  mlirModuleDestroy(module);
  return 0;
}

/// Builds scheme attributes and reads them back.
static int testScheme(MlirContext ctx) {
  // CHECK-LABEL: testScheme
  printf("testScheme\n");
  MlirAttribute s = octetSchemeAttrGet(ctx, OctetStorageFormatU4,
                                       OctetGranularityPerGroup, 1, 32,
                                       /*symmetric=*/false, /*saturate=*/true);
  if (mlirAttributeIsNull(s) || !octetAttributeIsAScheme(s))
    return 1;
  // CHECK: #octet.scheme<u4, per_group(1, 32), asymmetric>
  // CHECK-NEXT: format=u4 (3) granularity=2 axis=1 group=32 symmetric=0 saturating=1 range=[0, 15] storage=i4
  printScheme(s);
  if (!mlirTypeIDEqual(mlirAttributeGetTypeID(s), octetSchemeAttrGetTypeID()))
    return 1;

  MlirAttribute narrow = octetSchemeAttrGetWithRange(
      ctx, OctetStorageFormatI8, OctetGranularityPerAxis, 0, 0, true, true,
      -127, 127);
  // CHECK: #octet.scheme<i8<-127:127>, per_axis(0)>
  // CHECK-NEXT: format=i8 (0) granularity=1 axis=0 group=0 symmetric=1 saturating=1 range=[-127, 127] storage=i8
  printScheme(narrow);

  MlirAttribute fp8 = octetSchemeAttrGet(ctx, OctetStorageFormatF8E4M3FN,
                                         OctetGranularityPerTensor, 0, 0,
                                         true, /*saturate=*/false);
  // CHECK: #octet.scheme<f8E4M3FN, non_saturating>
  // CHECK-NEXT: format=f8E4M3FN (4) granularity=0 axis=0 group=0 symmetric=1 saturating=0 range=[0, 0] storage=f8E4M3FN
  printScheme(fp8);

  // The same attribute as parsed from text is the same (uniqued) object.
  MlirAttribute parsed = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#octet.scheme<u4, per_group(1, 32), asymmetric>"));
  // CHECK: parsed equal: 1
  printf("parsed equal: %d\n", mlirAttributeEqual(parsed, s));

  // Invalid: FP8 is symmetric only. A diagnostic and a null attribute.
  // CHECK: diagnostic: FP8 schemes are symmetric; 'f8E5M2' cannot be asymmetric
  // CHECK-NEXT: invalid scheme is null: 1
  MlirAttribute bad = octetSchemeAttrGet(ctx, OctetStorageFormatF8E5M2,
                                         OctetGranularityPerTensor, 0, 0,
                                         /*symmetric=*/false, true);
  printf("invalid scheme is null: %d\n", mlirAttributeIsNull(bad));
  // CHECK: diagnostic: code range [-200, 127] is not a non-empty sub-range of 'i8' [-128, 127]
  bad = octetSchemeAttrGetWithRange(ctx, OctetStorageFormatI8,
                                    OctetGranularityPerTensor, 0, 0, true,
                                    true, -200, 127);
  // CHECK: diagnostic: invalid octet storage format 17
  bad = octetSchemeAttrGet(ctx, (OctetStorageFormat)17,
                           OctetGranularityPerTensor, 0, 0, true, true);
  return mlirAttributeIsNull(bad) ? 0 : 1;
}

/// What the host lowering left in a module.
struct LoweredSummary {
  int hasFunc, hasRoundEven, nonLLVMOps;
};

static int startsWith(MlirStringRef s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.length >= n && strncmp(s.data, prefix, n) == 0;
}

static MlirWalkResult summarize(MlirOperation op, void *userData) {
  struct LoweredSummary *summary = (struct LoweredSummary *)userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (startsWith(name, "llvm.func")) {
    MlirAttribute sym = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef symName = mlirStringAttrGetValue(sym);
    if (symName.length == 1 && symName.data[0] == 'f')
      summary->hasFunc = 1;
  } else if (startsWith(name, "llvm.intr.roundeven")) {
    summary->hasRoundEven = 1;
  } else if (!startsWith(name, "llvm.") && !startsWith(name, "builtin.module")) {
    ++summary->nonLLVMOps;
  }
  return MlirWalkResultAdvance;
}

/// Imports an upstream quant module with --octet-import-quant.
static int testImportQuant(MlirContext ctx) {
  // CHECK-LABEL: testImportQuant
  printf("testImportQuant\n");
  MlirModule module = parse(
      ctx,
      "func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
      "  %q = quant.qcast %x : tensor<2x3xf32> to "
      "tensor<2x3x!quant.uniform<u8:f32:1, {0.5:3, 1.0:4, 2.0:5}>>\n"
      "  %d = quant.dcast %q : tensor<2x3x!quant.uniform<u8:f32:1, "
      "{0.5:3, 1.0:4, 2.0:5}>> to tensor<2x3xf32>\n"
      "  return %d : tensor<2x3xf32>\n"
      "}\n");
  if (mlirModuleIsNull(module))
    return 1;
  MlirLogicalResult result = octetRunPassPipeline(
      module, mlirStringRefCreateFromCString(
                  "builtin.module(octet-import-quant)"));
  // CHECK: import: success
  printf("import: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  // CHECK: func.func @f(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: %[[S:.*]] = arith.constant dense<[5.000000e-01, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
  // CHECK-DAG: %[[Z:.*]] = arith.constant dense<[3, 4, 5]> : tensor<3xi32>
  // CHECK: %[[Q:.*]] = octet.quantize %[[X]] scale(%[[S]] : tensor<3xf32>) zero_point(%[[Z]] : tensor<3xi32>) as <u8, per_axis(1), asymmetric> : tensor<2x3xf32> -> tensor<2x3xi8>
  // CHECK: octet.dequantize %[[Q]] scale(%{{.*}} : tensor<3xf32>) zero_point(%{{.*}} : tensor<3xi32>) as <u8, per_axis(1), asymmetric> : tensor<2x3xi8> -> tensor<2x3xf32>
  // CHECK-NOT: quant.
  printModule(module);

  // The same module lowered for the host with the named pipeline (a bare
  // pass list is accepted too).
  result = octetRunPassPipeline(
      module, mlirStringRefCreateFromCString("octet-lower-to-host"));
  // CHECK: lower: success
  printf("lower: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  // Only the LLVM dialect is left, rounding half to even included.
  // CHECK: lowered: llvm.func @f present, roundeven present, 0 non-LLVM ops
  struct LoweredSummary summary = {0, 0, 0};
  mlirOperationWalk(mlirModuleGetOperation(module), summarize, &summary,
                    MlirWalkPreOrder);
  printf("lowered: llvm.func @f %s, roundeven %s, %d non-LLVM ops\n",
         summary.hasFunc ? "present" : "missing",
         summary.hasRoundEven ? "present" : "missing", summary.nonLLVMOps);
  mlirModuleDestroy(module);
  return 0;
}

/// The generated per-pass functions with MLIR's own pass manager C API:
/// --octet-export-quant turns octet ops back into upstream quant casts.
static int testGeneratedPassApi(MlirContext ctx) {
  // CHECK-LABEL: testGeneratedPassApi
  printf("testGeneratedPassApi\n");
  MlirModule module = parse(
      ctx, "func.func @e(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %s = arith.constant dense<0.25> : tensor<f32>\n"
           "  %z = arith.constant dense<-3> : tensor<i32>\n"
           "  %q = octet.quantize %x scale(%s : tensor<f32>) zero_point(%z : "
           "tensor<i32>) as <i8, asymmetric> : tensor<4xf32> -> tensor<4xi8>\n"
           "  %d = octet.dequantize %q scale(%s : tensor<f32>) zero_point(%z : "
           "tensor<i32>) as <i8, asymmetric> : tensor<4xi8> -> tensor<4xf32>\n"
           "  return %d : tensor<4xf32>\n"
           "}\n");
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirCreateOctetConversionOctetExportQuant());
  MlirLogicalResult result =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  // CHECK: export: success
  printf("export: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  // CHECK: %[[Q:.*]] = quant.qcast %{{.*}} : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-3>>
  // CHECK: quant.dcast %[[Q]] : tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-3>> to tensor<4xf32>
  printModule(module);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return 0;
}

/// Errors: an unknown pass and a pass that fails both return failure after
/// a diagnostic.
static int testErrors(MlirContext ctx) {
  // CHECK-LABEL: testErrors
  printf("testErrors\n");
  MlirModule module = parse(
      ctx, "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %q = quant.qcast %x : tensor<4xf32> to "
           "tensor<4x!quant.uniform<i16:f32, 0.1>>\n"
           "  %d = quant.dcast %q : tensor<4x!quant.uniform<i16:f32, 0.1>> "
           "to tensor<4xf32>\n"
           "  return %d : tensor<4xf32>\n"
           "}\n");
  if (mlirModuleIsNull(module))
    return 1;
  // CHECK: diagnostic: invalid pass pipeline 'octet-no-such-pass': {{.*}}error: 'octet-no-such-pass' does not refer to a registered pass or pass pipeline
  // CHECK-NEXT: unknown pass: failure
  MlirLogicalResult result = octetRunPassPipeline(
      module, mlirStringRefCreateFromCString("octet-no-such-pass"));
  printf("unknown pass: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  // CHECK: diagnostic: storage type of '!quant.uniform<i16:f32, 1.000000e-01>' is not supported: octet stores i8, u8, i4 and u4 codes
  // CHECK: import i16: failure
  result = octetRunPassPipeline(
      module, mlirStringRefCreateFromCString("octet-import-quant"));
  printf("import i16: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  mlirModuleDestroy(module);
  return 0;
}

int main(void) {
  mlirRegisterAllPasses();
  octetRegisterAllPasses();
  octetRegisterAllPasses(); // Idempotent.
  MlirContext ctx = createContext();
  int failures = testParse(ctx) + testScheme(ctx) + testImportQuant(ctx) +
                 testGeneratedPassApi(ctx) + testErrors(ctx);
  mlirContextDestroy(ctx);
  // CHECK: octet C API test: 0 failures
  printf("octet C API test: %d failures\n", failures);
  return failures;
}
