// target::resolveRecipe, the table-level answer behind format=auto: the
// element, the block scaling, whether the target multiplies it on a matrix
// or dot unit, and why.

// RUN: octet-opt %s --octet-set-target=target=sm_100a --octet-test-resolve-format=api=recipe | FileCheck %s --check-prefix=SM100A
// RUN: octet-opt %s --octet-set-target=target=sm_120a --octet-test-resolve-format=api=recipe | FileCheck %s --check-prefix=SM120A

func.func private @mxfp4() attributes {octet.test.recipe = "mxfp4", octet.test.role = "weight"}
func.func private @nvfp4() attributes {octet.test.recipe = "nvfp4", octet.test.role = "activation"}
func.func private @fp8() attributes {octet.test.recipe = "fp8", octet.test.role = "activation"}
func.func private @w8a8() attributes {octet.test.recipe = "w8a8", octet.test.role = "activation"}

// SM100A: @mxfp4() attributes {octet.test.accelerated = true, octet.test.elem = "e2m1", octet.test.reason = "mxfp4 weight on sm_100a: e2m1 (block-scaled MMA with ue8m0 / 32 scales)", octet.test.recipe = "mxfp4", octet.test.role = "weight", octet.test.scale = "ue8m0 / 32"}
// SM100A: @nvfp4() attributes {octet.test.accelerated = true, octet.test.elem = "e2m1", octet.test.reason = "nvfp4 activation on sm_100a: e2m1 (block-scaled MMA with ue4m3 / 16 scales)", octet.test.recipe = "nvfp4", octet.test.role = "activation", octet.test.scale = "ue4m3 / 16"}
// SM100A: @fp8() attributes {octet.test.accelerated = true, octet.test.elem = "e4m3", octet.test.reason = "fp8 activation on sm_100a: e4m3 (the target multiplies e4m3 x e4m3 natively)"
// SM100A: @w8a8() attributes {octet.test.accelerated = true, octet.test.elem = "e4m3", octet.test.reason = "w8a8 activation on sm_100a: e4m3 (the target multiplies e4m3 x e4m3 natively)"

// SM120A: @mxfp4() attributes {octet.test.accelerated = true, octet.test.elem = "e2m1", {{.*}}octet.test.scale = "ue8m0 / 32"}
// SM120A: @nvfp4() attributes {octet.test.accelerated = true, octet.test.elem = "e2m1", {{.*}}octet.test.scale = "ue4m3 / 16"}
