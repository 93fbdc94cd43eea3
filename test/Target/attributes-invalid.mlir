// RUN: octet-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{unknown target 'sm_91'; valid: sm_75, sm_80, sm_86, sm_89, sm_90a, sm_100a, sm_120a, avx2, avx-vnni, avx512-vnni, avx512-bf16, avx-vnni-int8, amx-int8, dotprod, i8mm}}
module attributes {octet.target = #octet.target<"sm_91">} {}

// -----

// `host` is resolved by octet-set-target; it is not a target of its own.
// expected-error@+1 {{unknown target 'host'}}
module attributes {octet.target = #octet.target<"host">} {}

// -----

// expected-error@+2 {{expected ::mlir::octet::StrategyKind to be one of: native, compensated, weight_only, fallback, fused, elementwise}}
// expected-error@+1 {{failed to parse Octet_StrategyAttr parameter 'kind'}}
func.func private @bad_kind() attributes {s = #octet.strategy<kind = fast>}

// -----

// expected-error@+1 {{struct is missing required parameter: kind}}
func.func private @missing_kind() attributes {s = #octet.strategy<unit = "AMX">}

// -----

// The unit is the typed KernelUnit: a spelling the capability table does not
// have is a parse error that lists the valid ones.
// expected-error@+2 {{expected ::mlir::octet::KernelUnit to be one of: , mma.sync, wgmma, tcgen05.mma, SIMT, CUDA elementwise, AMX, AVX512-VNNI, AVX-VNNI, AVX-VNNI-INT8, AVX2, FMA, AVX-512 FMA, NEON dotprod, NEON i8mm, NEON FMA, vector}}
// expected-error@+1 {{failed to parse Octet_StrategyAttr parameter 'unit'}}
func.func private @bad_unit() attributes {s = #octet.strategy<kind = native, unit = "AVX-1024">}
