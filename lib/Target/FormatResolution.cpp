//===- FormatResolution.cpp - format=auto per target and recipe -----------===//

#include "octet/Target/FormatResolution.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

StringRef target::stringifyRecipe(Recipe recipe) {
  switch (recipe) {
  case Recipe::w8a16:
    return "w8a16";
  case Recipe::w8a8:
    return "w8a8";
  case Recipe::w4a16:
    return "w4a16";
  case Recipe::fp8:
    return "fp8";
  case Recipe::mxfp4:
    return "mxfp4";
  case Recipe::nvfp4:
    return "nvfp4";
  }
  llvm_unreachable("unknown recipe");
}

std::optional<Recipe> target::symbolizeRecipe(StringRef name) {
  if (name == "w8a8-fp8")
    return Recipe::fp8;
  for (Recipe r : {Recipe::w8a16, Recipe::w8a8, Recipe::w4a16, Recipe::fp8,
                   Recipe::mxfp4, Recipe::nvfp4})
    if (stringifyRecipe(r) == name)
      return r;
  return std::nullopt;
}

std::string target::getValidRecipeNames() {
  return "w8a16, w8a8, w4a16, fp8 (w8a8-fp8), mxfp4, nvfp4";
}

StringRef target::stringifyOperandRole(OperandRole role) {
  return role == OperandRole::weight ? "weight" : "activation";
}

std::optional<OperandRole> target::symbolizeOperandRole(StringRef name) {
  if (name == "weight")
    return OperandRole::weight;
  if (name == "activation")
    return OperandRole::activation;
  return std::nullopt;
}

/// Whether `t` multiplies activation `a` x weight `w` on a matrix/dot unit.
static bool isAccelerated(const TargetInfo &t, Elem a, Elem w, BlockScale s) {
  const KernelRow *row = findKernel(t.id, a, w, s);
  return row && row->kind != RowKind::simd;
}

FailureOr<FormatChoice>
target::resolveRecipe(const TargetInfo &t, Recipe recipe, OperandRole role,
                      function_ref<InFlightDiagnostic()> emitError) {
  StringRef recipeName = stringifyRecipe(recipe);
  FormatChoice choice;
  auto describe = [&](const Twine &why) {
    choice.reason =
        (recipeName + " " + stringifyOperandRole(role) + " on " + t.name +
         ": " + stringifyElem(choice.elem) + " (" + why + ")")
            .str();
  };
  switch (recipe) {
  case Recipe::w8a16:
  case Recipe::w4a16: {
    if (role == OperandRole::activation) {
      emitError() << "recipe '" << recipeName
                  << "' keeps activations in float; only the weight has a "
                     "storage format";
      return failure();
    }
    choice.elem = recipe == Recipe::w8a16 ? Elem::s8 : Elem::s4;
    // Weight-only: the float unit runs, the quantized weight saves memory.
    choice.accelerated = true;
    describe("weight-only: converted to the activation type in the kernel");
    return choice;
  }
  case Recipe::w8a8: {
    if (isAccelerated(t, Elem::e4m3, Elem::e4m3, BlockScale::none)) {
      choice.elem = Elem::e4m3;
      choice.accelerated = true;
      describe("the target multiplies e4m3 x e4m3 natively");
      return choice;
    }
    choice.elem = Elem::s8;
    choice.accelerated = isAccelerated(t, Elem::s8, Elem::s8, BlockScale::none);
    describe("no native e4m3 x e4m3 on this target; INT8");
    return choice;
  }
  case Recipe::fp8: {
    choice.elem = Elem::e4m3;
    choice.accelerated =
        isAccelerated(t, Elem::e4m3, Elem::e4m3, BlockScale::none);
    describe(choice.accelerated
                 ? "the target multiplies e4m3 x e4m3 natively"
                 : "asked for; the target has no FP8 MMA, octet-select-"
                   "lowering will report the fallback");
    return choice;
  }
  case Recipe::mxfp4:
  case Recipe::nvfp4: {
    BlockScale scale =
        recipe == Recipe::mxfp4 ? BlockScale::mx : BlockScale::nv;
    if (!isAccelerated(t, Elem::e2m1, Elem::e2m1, scale)) {
      SmallVector<std::string> names;
      for (const TargetInfo *other :
           targetsWithKernel(Elem::e2m1, Elem::e2m1, scale))
        names.push_back(other->name.str());
      emitError() << "recipe '" << recipeName << "' needs block-scaled FP4 "
                  << "MMA (e2m1 with " << stringifyBlockScale(scale)
                  << " scales), which " << t.name << " does not have (only "
                  << llvm::join(names, ", ")
                  << " do); use w4a16 or format=mxfp4 (weight-only MXFP4) "
                     "for 4-bit weights";
      return failure();
    }
    choice.elem = Elem::e2m1;
    choice.scale = scale;
    choice.accelerated = true;
    describe(Twine("block-scaled MMA with ") + stringifyBlockScale(scale) +
             " scales");
    return choice;
  }
  }
  llvm_unreachable("unknown recipe");
}

FailureOr<StorageFormat>
target::resolveAutoFormat(TargetAttr targetAttr, Recipe recipe,
                          OperandRole role,
                          function_ref<InFlightDiagnostic()> emitError) {
  if (!targetAttr) {
    emitError() << "format=auto needs the module's #octet.target; run "
                   "--octet-set-target first";
    return failure();
  }
  FailureOr<const TargetInfo *> info = getTargetInfo(targetAttr, emitError);
  if (failed(info))
    return failure();
  FailureOr<FormatChoice> choice =
      resolveRecipe(**info, recipe, role, emitError);
  if (failed(choice))
    return failure();
  std::optional<StorageFormat> format = toStorageFormat(choice->elem);
  if (!format) {
    emitError() << choice->reason
                << "; format=auto does not choose FP4 block formats yet: "
                   "name them (octet-quantize recipe=w4a4-mxfp4, or "
                   "format=mxfp4 for the weights and the activations)";
    return failure();
  }
  return *format;
}
