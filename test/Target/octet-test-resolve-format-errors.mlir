// RUN: octet-opt %s -split-input-file -verify-diagnostics --octet-test-resolve-format

// Weight-only recipes quantize no activation.
module attributes {octet.target = #octet.target<"sm_90a">} {
// expected-error@+1 {{recipe 'w8a16' keeps activations in float; only the weight has a storage format}}
func.func private @w8a16_activation() attributes {octet.test.recipe = "w8a16", octet.test.role = "activation"}
}

// -----

// Block-scaled FP4 only where the chip has that MMA.
module attributes {octet.target = #octet.target<"sm_90a">} {
// expected-error@+1 {{recipe 'mxfp4' needs block-scaled FP4 MMA (e2m1 with ue8m0 / 32 scales), which sm_90a does not have (only sm_100a, sm_120a do); use w4a16 or format=mxfp4 (weight-only MXFP4) for 4-bit weights}}
func.func private @mxfp4() attributes {octet.test.recipe = "mxfp4", octet.test.role = "weight"}
}

// -----

// Where it has it, octet schemes cannot store the codes yet.
module attributes {octet.target = #octet.target<"sm_100a">} {
// expected-error@+1 {{nvfp4 weight on sm_100a: e2m1 (block-scaled MMA with ue4m3 / 16 scales); format=auto does not choose FP4 block formats yet: name them (octet-quantize recipe=w4a4-mxfp4, or format=mxfp4 for the weights and the activations)}}
func.func private @nvfp4() attributes {octet.test.recipe = "nvfp4", octet.test.role = "weight"}
}

// -----

// format=auto needs a target.
module {
// expected-error@+1 {{format=auto needs the module's #octet.target; run --octet-set-target first}}
func.func private @no_target() attributes {octet.test.recipe = "w8a8"}
}

// -----

module attributes {octet.target = #octet.target<"avx2">} {
// expected-error@+1 {{unknown recipe 'w2a2'; valid: w8a16, w8a8, w4a16, fp8 (w8a8-fp8), mxfp4, nvfp4}}
func.func private @bad_recipe() attributes {octet.test.recipe = "w2a2"}
}

// -----

module attributes {octet.target = #octet.target<"avx2">} {
// expected-error@+1 {{unknown role 'bias'; valid: weight, activation}}
func.func private @bad_role() attributes {octet.test.recipe = "w8a8", octet.test.role = "bias"}
}

// -----

// The options of the test pass itself.
// RUN: not octet-opt %s -split-input-file --octet-test-resolve-format=api=bogus 2>&1 | FileCheck %s --check-prefix=API
// API: error: api must be 'auto' or 'recipe', not 'bogus'
// RUN: not octet-opt %s -split-input-file --octet-test-resolve-format=api=recipe 2>&1 | FileCheck %s --check-prefix=NOTARGET
// NOTARGET: error: the module has no #octet.target
module {
// expected-error@+1 {{format=auto needs the module's #octet.target}}
func.func private @recipe_without_target() attributes {octet.test.recipe = "w8a8"}
}
