//===- TestResolveFormat.cpp - octet-test-resolve-format ------------------===//
//
// A test pass (registered in octet-opt only) that exposes format=auto
// resolution to lit: every op carrying `octet.test.recipe` (and
// `octet.test.role`, default "weight") gets the answer for the module's
// #octet.target as attributes, or the error at the op.
//
//===----------------------------------------------------------------------===//

#include "octet/Target/FormatResolution.h"
#include "octet/Target/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::octet;
using namespace mlir::octet::target;

namespace {

struct TestResolveFormatPass
    : public PassWrapper<TestResolveFormatPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestResolveFormatPass)

  TestResolveFormatPass() = default;
  TestResolveFormatPass(const TestResolveFormatPass &pass)
      : PassWrapper(pass) {}

  StringRef getArgument() const final { return "octet-test-resolve-format"; }
  StringRef getDescription() const final {
    return "Test format=auto resolution: ops with octet.test.recipe / "
           "octet.test.role get octet.test.format (api=auto) or "
           "octet.test.elem/scale/accelerated/reason (api=recipe)";
  }

  Option<std::string> api{
      *this, "api",
      llvm::cl::desc("auto: resolveAutoFormat (an octet storage format); "
                     "recipe: resolveRecipe (the table's element)"),
      llvm::cl::init("auto")};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (api != "auto" && api != "recipe") {
      module.emitError() << "api must be 'auto' or 'recipe', not '" << api
                         << "'";
      return signalPassFailure();
    }
    Builder b(&getContext());
    auto targetAttr = module->getAttrOfType<TargetAttr>(kTargetAttrName);
    bool anyFailed = false;
    module.walk([&](Operation *op) {
      auto recipeAttr = op->getAttrOfType<StringAttr>("octet.test.recipe");
      if (!recipeAttr)
        return;
      auto emitError = [op] { return op->emitError(); };
      auto fail = [&] { anyFailed = true; };
      std::optional<Recipe> recipe = symbolizeRecipe(recipeAttr.getValue());
      if (!recipe) {
        emitError() << "unknown recipe '" << recipeAttr.getValue()
                    << "'; valid: " << getValidRecipeNames();
        return fail();
      }
      OperandRole role = OperandRole::weight;
      if (auto roleAttr = op->getAttrOfType<StringAttr>("octet.test.role")) {
        std::optional<OperandRole> parsed =
            symbolizeOperandRole(roleAttr.getValue());
        if (!parsed) {
          emitError() << "unknown role '" << roleAttr.getValue()
                      << "'; valid: weight, activation";
          return fail();
        }
        role = *parsed;
      }
      if (api == "auto") {
        FailureOr<StorageFormat> format =
            resolveAutoFormat(targetAttr, *recipe, role, emitError);
        if (failed(format))
          return fail();
        op->setAttr("octet.test.format",
                    b.getStringAttr(stringifyStorageFormat(*format)));
        return;
      }
      if (!targetAttr) {
        emitError() << "the module has no #octet.target";
        return fail();
      }
      FailureOr<const TargetInfo *> info = getTargetInfo(targetAttr, emitError);
      if (failed(info))
        return fail();
      FailureOr<FormatChoice> choice =
          resolveRecipe(**info, *recipe, role, emitError);
      if (failed(choice))
        return fail();
      op->setAttr("octet.test.elem",
                  b.getStringAttr(stringifyElem(choice->elem)));
      if (choice->scale != BlockScale::none)
        op->setAttr("octet.test.scale",
                    b.getStringAttr(stringifyBlockScale(choice->scale)));
      op->setAttr("octet.test.accelerated", b.getBoolAttr(choice->accelerated));
      op->setAttr("octet.test.reason", b.getStringAttr(choice->reason));
    });
    if (anyFailed)
      signalPassFailure();
  }
};

} // namespace

void mlir::octet::registerOctetTargetTestPasses() {
  PassRegistration<TestResolveFormatPass>();
}
