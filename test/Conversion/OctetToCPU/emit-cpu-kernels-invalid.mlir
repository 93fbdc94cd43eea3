// octet-emit-cpu-kernels reads each declaration's octet.cpu_kernel
// description back; a description it cannot have written is an error at
// the declaration, not a kernel built from wrong fields.
// RUN: octet-opt %s --split-input-file --verify-diagnostics --octet-emit-cpu-kernels

// A prefetch distance that is not a whole number of 64-byte lines.
// expected-error @+1 {{has an invalid octet.cpu_kernel description}}
func.func private @__octet_cpu_wo512_f32s8p_l1pf_pf100_san_sbv_zan_zbn(!llvm.ptr, i64, i64) attributes {octet.cpu_kernel = {batched = 0 : i64, bias = 0 : i64, float_rhs = 0 : i64, group = 0 : i64, isa = 4 : i64, lhs_group_scale = 0 : i64, lhs_unsigned = 0 : i64, os = 0 : i64, oz = 0 : i64, panel_prefetch_bytes = 100 : i64, panel_prefetch_l1 = 1 : i64, relu = 0 : i64, rhs_fp4 = 0 : i64, rhs_nf4 = 0 : i64, rhs_nibbles = 0 : i64, rhs_no_nan = 0 : i64, rhs_panels = 1 : i64, rhs_transposed = 0 : i64, rhs_unsigned = 0 : i64, sa = 0 : i64, sb = 2 : i64, scale_panels = 0 : i64, weight_only = 1 : i64, za = 0 : i64, zb = 0 : i64}}

// -----

// Without the prefetch distance.
// expected-error @+1 {{has an invalid octet.cpu_kernel description}}
func.func private @__octet_cpu_wo512_f32s8p_l1pf_san_sbv_zan_zbn(!llvm.ptr, i64, i64) attributes {octet.cpu_kernel = {batched = 0 : i64, bias = 0 : i64, float_rhs = 0 : i64, group = 0 : i64, isa = 4 : i64, lhs_group_scale = 0 : i64, lhs_unsigned = 0 : i64, os = 0 : i64, oz = 0 : i64, panel_prefetch_l1 = 1 : i64, relu = 0 : i64, rhs_fp4 = 0 : i64, rhs_nf4 = 0 : i64, rhs_nibbles = 0 : i64, rhs_no_nan = 0 : i64, rhs_panels = 1 : i64, rhs_transposed = 0 : i64, rhs_unsigned = 0 : i64, sa = 0 : i64, sb = 2 : i64, scale_panels = 0 : i64, weight_only = 1 : i64, za = 0 : i64, zb = 0 : i64}}

// -----

// An instruction set past the last one.
// expected-error @+1 {{has an invalid octet.cpu_kernel description}}
func.func private @__octet_cpu_bad(!llvm.ptr, i64, i64) attributes {octet.cpu_kernel = {batched = 0 : i64, bias = 0 : i64, float_rhs = 0 : i64, group = 0 : i64, isa = 99 : i64, lhs_group_scale = 0 : i64, lhs_unsigned = 0 : i64, os = 0 : i64, oz = 0 : i64, panel_prefetch_bytes = 8192 : i64, panel_prefetch_l1 = 0 : i64, relu = 0 : i64, rhs_fp4 = 0 : i64, rhs_nf4 = 0 : i64, rhs_nibbles = 0 : i64, rhs_no_nan = 0 : i64, rhs_panels = 0 : i64, rhs_transposed = 0 : i64, rhs_unsigned = 0 : i64, sa = 0 : i64, sb = 2 : i64, scale_panels = 0 : i64, weight_only = 1 : i64, za = 0 : i64, zb = 0 : i64}}

// -----

// Panels of codes in an integer (not weight-only) kernel.
// expected-error @+1 {{has an invalid octet.cpu_kernel description}}
func.func private @__octet_cpu_vnni512_bad(!llvm.ptr, i64, i64) attributes {octet.cpu_kernel = {batched = 0 : i64, bias = 0 : i64, float_rhs = 0 : i64, group = 0 : i64, isa = 1 : i64, lhs_group_scale = 0 : i64, lhs_unsigned = 0 : i64, os = 0 : i64, oz = 0 : i64, panel_prefetch_bytes = 8192 : i64, panel_prefetch_l1 = 0 : i64, relu = 0 : i64, rhs_fp4 = 0 : i64, rhs_nf4 = 0 : i64, rhs_nibbles = 0 : i64, rhs_no_nan = 0 : i64, rhs_panels = 1 : i64, rhs_transposed = 0 : i64, rhs_unsigned = 0 : i64, sa = 0 : i64, sb = 2 : i64, scale_panels = 0 : i64, weight_only = 0 : i64, za = 0 : i64, zb = 0 : i64}}
