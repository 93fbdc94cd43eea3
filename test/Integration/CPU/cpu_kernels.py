"""The generated CPU kernels (convert-octet-to-cpu) against the numpy oracle
of octet.matmul (test/Integration/Matmul/matmul_oracle.py).

usage: cpu_kernels.py --isa avx2|avx512-vnni|avx512-bf16|amx-int8
                      [--show-kernels] [CASE...]

Every case is first lowered with `octet-opt --convert-octet-to-cpu{isa=...}`
to check that the generated kernel (not the portable lowering) takes it,
then JIT-run by octet-run with the same kernel family forced, and compared
with the oracle: integer GEMMs bit for bit (DESIGN.md's "Bits"), the
weight-only and FP8 kernels (f32 FMA sums in their own order) within the
Bounds promise against f64 sums (matmul_oracle.check_bounds).
Shapes cover M = 1, K not a multiple of 64 (and larger than a K cache
block), N prime, tails of every tile and cache block, and codes at the
extremes of their range (where vpmaddubsw would saturate).
"""

import argparse
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Matmul"))
import matmul_oracle as mo  # noqa: E402
import octet_oracle as o  # noqa: E402

S = mo.S

CASES = {
    # Integer GEMMs (constant weights).
    "m1_k67_n7_prime_bias_relu": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(1, 67), rshape=(67, 7), bias=True, relu=True),
    "tails_k1100_n300_m77": dict(
        lhs=S("i8"), rhs=S("i8", "per_axis", 1),
        lshape=(77, 1100), rshape=(1100, 300)),
    "u8_asym_tensor": dict(
        lhs=S("u8", symmetric=False), rhs=S("i8", "per_axis", 1),
        lshape=(13, 130), rshape=(130, 37)),
    "u8_asym_per_token": dict(
        lhs=S("u8", "per_axis", 0, symmetric=False), rhs=S("i8"),
        lshape=(9, 64), rshape=(64, 33), bias=True),
    "i8_asym_per_token_group_form": dict(
        lhs=S("i8", "per_group", 1, 48, symmetric=False),
        rhs=S("i8", "per_axis", 1), lshape=(5, 48), rshape=(48, 17)),
    "requantize_u8_asym_relu": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(10, 96), rshape=(96, 31), bias=True, relu=True,
        out=S("u8", symmetric=False)),
    "requantize_i8_per_channel": dict(
        lhs=S("i8"), rhs=S("i8", "per_axis", 1), lshape=(7, 200),
        rshape=(200, 19), out=S("i8", "per_axis", 1)),
    "narrow_i8": dict(
        lhs=S("i8", qmin=-127, qmax=127), rhs=S("i8", qmin=-127, qmax=127),
        lshape=(3, 40), rshape=(40, 6)),
    "u8_weights": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("u8", "per_axis", 1),
        lshape=(6, 72), rshape=(72, 23)),
    "blocks_m130_k520_n260": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(130, 520), rshape=(520, 260), bias=True, relu=True),
    # Tile groups (GemmConfig::tileGroupBytes = 2 MB) with K padded to
    # 5000: AVX-512 VNNI groups of 3 row tiles of 128 (770 rows: 3, 3, 1),
    # AVX2 of 2 row tiles of 72 (s16 activations: 2, 2, 2, 2, 2, 1); N =
    # 300 is three column tiles of 128 (the last 44 wide).
    "tile_groups_m770_k4999_n300": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(770, 4999), rshape=(4999, 300), bias=True),
    "extremes_min_x_min": dict(
        lhs=S("i8"), rhs=S("i8"), lshape=(7, 256), rshape=(256, 16),
        fill="min"),
    "extremes_u8_max_x_min": dict(
        lhs=S("u8"), rhs=S("i8"), lshape=(6, 256), rshape=(256, 16),
        fill="u8max_i8min"),
    # Per-token dynamic quantization (octet.compute_params + octet.quantize
    # of f32 activations, the W8A8 dynamic recipes) fused into the packing
    # (octet_cpu_quantize_pack_lhs): symmetric i8, asymmetric u8 and i8, a
    # narrow range; rows of ties, zeros, NaN, +-inf, subnormals; M and K
    # tails, one and several row panels and threads.
    "dynamic_i8_m77_k300_n131_bias_relu": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(77, 300), rshape=(300, 131), bias=True, relu=True,
        dynamic=True),
    "dynamic_u8_asym_m9_k70_n33": dict(
        lhs=S("u8", "per_axis", 0, symmetric=False),
        rhs=S("i8", "per_axis", 1), lshape=(9, 70), rshape=(70, 33),
        dynamic=True),
    "dynamic_i8_asym_m200_k520_n64_transposed": dict(
        lhs=S("i8", "per_axis", 0, symmetric=False),
        rhs=S("i8", "per_axis", 1), lshape=(200, 520), rshape=(520, 64),
        transposed_rhs=True, dynamic=True),
    "dynamic_narrow_i8_m1_k17": dict(
        lhs=S("i8", "per_axis", 0, qmin=-127, qmax=127),
        rhs=S("i8", "per_axis", 1), lshape=(1, 17), rshape=(17, 20),
        dynamic=True),
    # Weights stored [N, K] behind linalg.transpose (imported models).
    "transposed_const_k200_n37": dict(
        lhs=S("i8", "per_axis", 0), rhs=S("i8", "per_axis", 1),
        lshape=(11, 200), rshape=(200, 37), bias=True, transposed_rhs=True),
    # Weight-only (f32 activations).
    "wo_m1_k300_n131_bias": dict(
        lhs=None, rhs=S("i8", "per_axis", 1), lshape=(1, 300),
        rshape=(300, 131), bias=True, arg_rhs=True),
    # Weights as an argument, 16 rows per block (integer codes; groups that
    # are multiples of 16) or 8 (other groups): K tails of 6 rows, column
    # groups of 8 vectors, single vectors and a masked tail.
    "wo_i8_arg_m2_k1030_n260_relu": dict(
        lhs=None, rhs=S("i8", "per_axis", 1), lshape=(2, 1030),
        rshape=(1030, 260), relu=True, arg_rhs=True),
    "wo_i8_group16_arg_m3_k208_n300_bias": dict(
        lhs=None, rhs=S("i8", "per_group", 0, 16), lshape=(3, 208),
        rshape=(208, 300), bias=True, arg_rhs=True),
    "wo_i8_group24_arg_m1_k120_n140": dict(
        lhs=None, rhs=S("i8", "per_group", 0, 24), lshape=(1, 120),
        rshape=(120, 140), arg_rhs=True),
    "wo_asym_u8_const": dict(
        lhs=None, rhs=S("u8", "per_axis", 1, symmetric=False),
        lshape=(5, 64), rshape=(64, 70)),
    "wo_transposed_const": dict(
        lhs=None, rhs=S("i8", "per_axis", 1), lshape=(2, 96),
        rshape=(96, 45), transposed_rhs=True),
    # Weight-only from MR = 6 rows on: the register-tiled kernel (row,
    # column and K-block tails; two tiles of MC x NC each way).
    "wo_tiled_m77_k300_n131_bias_relu": dict(
        lhs=None, rhs=S("i8", "per_axis", 1), lshape=(77, 300),
        rshape=(300, 131), bias=True, relu=True, arg_rhs=True),
    "wo_tiled_m6_asym_u8": dict(
        lhs=None, rhs=S("u8", "per_axis", 1, symmetric=False),
        lshape=(6, 520), rshape=(520, 45)),
    # 1100 rows: three tiles of 372 rows on zmm (MC = 516), four on ymm.
    "wo_tiled_m1100_k300_n70": dict(
        lhs=None, rhs=S("i8", "per_axis", 1), lshape=(1100, 300),
        rshape=(300, 70), arg_rhs=True),
    "wo_tiled_m150_n300_requantize": dict(
        lhs=None, rhs=S("i8", "per_axis", 1), lshape=(150, 70),
        rshape=(70, 300), out=S("i8", "per_axis", 1), transposed_rhs=True),
    # 4-bit weights (packed two per byte at compile time) and per-group
    # scales along K: decode and tiled loop nests, groups of 32 to 128.
    "wo_i4_per_channel_m1": dict(
        lhs=None, rhs=S("i4", "per_axis", 1), lshape=(1, 300),
        rshape=(300, 131), bias=True),
    "wo_i4_group32_m77_bias_relu": dict(
        lhs=None, rhs=S("i4", "per_group", 0, 32), lshape=(77, 256),
        rshape=(256, 131), bias=True, relu=True),
    "wo_i4_group64_m1_transposed": dict(
        lhs=None, rhs=S("i4", "per_group", 0, 64), lshape=(1, 128),
        rshape=(128, 45), transposed_rhs=True),
    "wo_i4_group128_m13_n300": dict(
        lhs=None, rhs=S("i4", "per_group", 0, 128), lshape=(13, 384),
        rshape=(384, 300), const_scale=True),
    "wo_u4_asym_per_channel_m9": dict(
        lhs=None, rhs=S("u4", "per_axis", 1, symmetric=False),
        lshape=(9, 40), rshape=(40, 70)),
    # The 4-bit decode kernel (M < MR) streams whole panels of 8 vectors
    # and takes the vectors around them (where N / threads splits a panel)
    # one at a time: M > 1, K not a multiple of 8, zero points, N past a
    # panel and not a multiple of 8; constant per-group scales (const_scale)
    # are repacked in the codes' panels, argument ones are read in place.
    "wo_i4_group32_m3_n200": dict(
        lhs=None, rhs=S("i4", "per_group", 0, 32), lshape=(3, 256),
        rshape=(256, 200), bias=True, const_scale=True),
    "wo_u4_asym_per_channel_m1_n150": dict(
        lhs=None, rhs=S("u4", "per_axis", 1, symmetric=False),
        lshape=(1, 100), rshape=(100, 150)),
    "wo_fp4_per_channel_m5_k100": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_axis", 1), lshape=(5, 100),
        rshape=(100, 77), relu=True),
    "wo_nf4_group64_m2_n520": dict(
        lhs=None, rhs=S("nf4", "per_group", 0, 64), lshape=(2, 128),
        rshape=(128, 520), const_scale=True),
    # Constant 8-bit codes are packed in the same panels (a row of a panel:
    # its 8 w codes): M > 1, K not a multiple of 8, zero points, N past two
    # panels and not a multiple of 8, constant per-group scales.
    "wo_i8_panels_m3_k100_n300": dict(
        lhs=None, rhs=S("i8", "per_axis", 1), lshape=(3, 100),
        rshape=(100, 300), bias=True),
    "wo_u8_asym_panels_m1_n150": dict(
        lhs=None, rhs=S("u8", "per_axis", 1, symmetric=False),
        lshape=(1, 72), rshape=(72, 150)),
    "wo_i8_group64_panels_m4_n200": dict(
        lhs=None, rhs=S("i8", "per_group", 0, 64), lshape=(4, 192),
        rshape=(192, 200), const_scale=True),
    "wo_fp8_e4m3_group32_panels_m2_n520": dict(
        lhs=None, rhs=S("f8E4M3FN", "per_group", 0, 32), lshape=(2, 128),
        rshape=(128, 520), const_scale=True, relu=True),
    "wo_i8_group32_m5": dict(
        lhs=None, rhs=S("i8", "per_group", 0, 32), lshape=(5, 96),
        rshape=(96, 50)),
    # FP8 (x86 has no FP8 arithmetic): decoded to f32 in the kernels, the
    # same k-ordered f32 sums as the reference.
    "fp8_e4m3_per_token_m1": dict(
        lhs=S("f8E4M3FN", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(1, 200), rshape=(200, 37), bias=True),
    "fp8_e4m3_per_token_m40_relu": dict(
        lhs=S("f8E4M3FN", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(40, 300), rshape=(300, 70), bias=True, relu=True,
        transposed_rhs=True),
    "fp8_e5m2_x_e4m3_tensor_m9": dict(
        lhs=S("f8E5M2"), rhs=S("f8E4M3FN"), lshape=(9, 64),
        rshape=(64, 20)),
    # FP8 x FP8 as bf16 (avx512-bf16: vdpbf16ps pairs; amx-int8: AMX-BF16
    # tiles with constant weights) from 12 rows on: K over several K blocks
    # and not a multiple of 8 (the activations' pair tail), N tails,
    # weights as an argument (rows read in place), odd K (avx512-bf16: the
    # f32 tiles instead), every code of either side.
    "fp8_e4m3_pairs_m77_k602_n131_bias": dict(
        lhs=S("f8E4M3FN", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(77, 602), rshape=(602, 131), bias=True),
    "fp8_e5m2_pairs_m30_k98_n45_arg_relu": dict(
        lhs=S("f8E5M2"), rhs=S("f8E5M2", "per_axis", 1), lshape=(30, 98),
        rshape=(98, 45), relu=True, arg_rhs=True),
    "fp8_e4m3_odd_k99_m20": dict(
        lhs=S("f8E4M3FN", "per_axis", 0), rhs=S("f8E4M3FN"),
        lshape=(20, 99), rshape=(99, 40)),
    "fp8_e4m3_every_rhs_code_m13": dict(
        lhs=S("f8E4M3FN", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(13, 8), rshape=(8, 256), fill="every_rhs_code"),
    "fp8_e5m2_every_rhs_code_m13_arg": dict(
        lhs=S("f8E4M3FN"), rhs=S("f8E5M2", "per_axis", 1), lshape=(13, 8),
        rshape=(8, 256), fill="every_rhs_code", arg_rhs=True),
    "fp8_e5m2_every_rhs_code_m13": dict(
        lhs=S("f8E5M2", "per_axis", 0), rhs=S("f8E5M2", "per_axis", 1),
        lshape=(13, 8), rshape=(8, 256), fill="every_rhs_code"),
    "fp8_e4m3_every_lhs_code_m13": dict(
        lhs=S("f8E4M3FN", "per_axis", 0), rhs=S("f8E4M3FN"),
        lshape=(13, 256), rshape=(256, 256), fill="every_lhs_code"),
    "fp8_e5m2_every_lhs_code_m13": dict(
        lhs=S("f8E5M2", "per_axis", 0), rhs=S("f8E5M2", "per_axis", 1),
        lshape=(13, 256), rshape=(256, 256), fill="every_lhs_code"),
    "wo_fp8_e4m3_weights_m7": dict(
        lhs=None, rhs=S("f8E4M3FN", "per_axis", 1), lshape=(7, 96),
        rshape=(96, 33), arg_rhs=True),
    # Block-wise FP8 (DeepSeek-V3; the w8a8-fp8-block recipe): the lhs
    # scale of each row and group multiplies the decoded lhs, the rhs's per
    # group the decoded weights; decode and tiled loop nests, e5m2 x e4m3.
    "fp8_block_g128_m1_bias": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 128),
        rhs=S("f8E4M3FN", "per_group", 0, 128), lshape=(1, 384),
        rshape=(384, 131), bias=True),
    "fp8_block_g64_m40_relu_transposed": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 64),
        rhs=S("f8E4M3FN", "per_group", 0, 64), lshape=(40, 320),
        rshape=(320, 70), relu=True, transposed_rhs=True),
    # K over several K cache blocks (SmolLM2's down projection: K 1536).
    "fp8_block_g64_k1536_m5": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 64),
        rhs=S("f8E4M3FN", "per_group", 0, 64), lshape=(5, 1536),
        rshape=(1536, 96), transposed_rhs=True),
    "fp8_block_g64_k1536_m77": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 64),
        rhs=S("f8E4M3FN", "per_group", 0, 64), lshape=(77, 1536),
        rshape=(1536, 100), transposed_rhs=True),
    "fp8_block_g64_k576_n600_m130": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 64),
        rhs=S("f8E4M3FN", "per_group", 0, 64), lshape=(130, 576),
        rshape=(576, 600), transposed_rhs=True),
    "fp8_block_e5m2_g32_m9_arg": dict(
        lhs=S("f8E5M2", "per_group", 1, 32),
        rhs=S("f8E4M3FN", "per_group", 0, 32), lshape=(9, 96),
        rshape=(96, 37), arg_rhs=True),
    # FP8 weights per group of K rows (MXFP8 and fp8-g32 recipes): decode
    # and tiled loop nests, e4m3 and e5m2.
    "wo_fp8_e4m3_group32_m1": dict(
        lhs=None, rhs=S("f8E4M3FN", "per_group", 0, 32), lshape=(1, 256),
        rshape=(256, 131), bias=True),
    "wo_fp8_e5m2_group64_m40_relu": dict(
        lhs=None, rhs=S("f8E5M2", "per_group", 0, 64), lshape=(40, 320),
        rshape=(320, 70), relu=True, transposed_rhs=True),
    # FP8 weights as an argument, two vectors decoded at once (the decode
    # GEMV's column groups of 8 vectors), E4M3 summed times 2^-8 over many
    # 8-row blocks (the running sums in the scratch) and scaled back before
    # the group scale or the epilogue; vector and masked column tails.
    "wo_fp8_e4m3_arg_m3_k520_n300_bias": dict(
        lhs=None, rhs=S("f8E4M3FN", "per_axis", 1), lshape=(3, 520),
        rshape=(520, 300), bias=True, arg_rhs=True),
    "wo_fp8_e4m3_group32_arg_m2_k160_n260": dict(
        lhs=None, rhs=S("f8E4M3FN", "per_group", 0, 32), lshape=(2, 160),
        rshape=(160, 260), arg_rhs=True),
    "wo_fp8_e5m2_arg_m1_k72_n140_relu": dict(
        lhs=None, rhs=S("f8E5M2", "per_axis", 1), lshape=(1, 72),
        rshape=(72, 140), relu=True, arg_rhs=True),
    # Every FP8 code (row 0 of the weights holds codes 0..255, the other
    # rows zeros): each result is one decoded code times a scale, so a
    # wrong decode of any code (subnormals, -0, the largest values, NaN,
    # inf) is far outside the bound; NaN and inf results must match.
    "wo_fp8_e4m3_every_code_m1": dict(
        lhs=None, rhs=S("f8E4M3FN", "per_axis", 1), lshape=(1, 8),
        rshape=(8, 256), fill="every_code"),
    "wo_fp8_e4m3_every_code_m7": dict(
        lhs=None, rhs=S("f8E4M3FN", "per_axis", 1), lshape=(7, 8),
        rshape=(8, 256), fill="every_code", arg_rhs=True),
    "wo_fp8_e5m2_every_code_m1": dict(
        lhs=None, rhs=S("f8E5M2", "per_axis", 1), lshape=(1, 8),
        rshape=(8, 256), fill="every_code", arg_rhs=True),
    "wo_fp8_e5m2_every_code_m9": dict(
        lhs=None, rhs=S("f8E5M2", "per_axis", 1), lshape=(9, 8),
        rshape=(8, 256), fill="every_code"),
    # FP4 (E2M1) weights, packed two per byte like i4 and decoded by a table
    # permute: decode and tiled loop nests, per channel and per group (the
    # MXFP4 and NVFP4 layouts), and every code (row 0 holds codes 0..15).
    "wo_fp4_per_channel_m1_bias": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_axis", 1), lshape=(1, 300),
        rshape=(300, 131), bias=True),
    "wo_fp4_group32_m77_relu": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_group", 0, 32), lshape=(77, 256),
        rshape=(256, 131), relu=True),
    "wo_fp4_group16_m1_transposed": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_group", 0, 16), lshape=(1, 128),
        rshape=(128, 45), transposed_rhs=True, const_scale=True),
    "wo_fp4_every_code_m1": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_axis", 1), lshape=(1, 8),
        rshape=(8, 48), fill="every_code"),
    "wo_fp4_every_code_m9": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_axis", 1), lshape=(9, 8),
        rshape=(8, 48), fill="every_code"),
    # Per-group scales stored [N, K / group] behind linalg.transpose too (the
    # LLM importer's form): repacked into the codes' panels at compile time.
    # N past the last whole panel, 9 groups (the scale prefetch runs past a
    # panel's groups into the next panel's), decode and tiled loop nests.
    "wo_i4_group64_m1_transposed_scales": dict(
        lhs=None, rhs=S("i4", "per_group", 0, 64), lshape=(1, 576),
        rshape=(576, 300), transposed_rhs=True, const_scale=True,
        transposed_scale=True),
    "wo_i4_group64_m77_transposed_scales": dict(
        lhs=None, rhs=S("i4", "per_group", 0, 64), lshape=(77, 576),
        rshape=(576, 300), transposed_rhs=True, const_scale=True,
        transposed_scale=True, relu=True),
    "wo_nf4_group32_m3_transposed_scales": dict(
        lhs=None, rhs=S("nf4", "per_group", 0, 32), lshape=(3, 256),
        rshape=(256, 200), transposed_rhs=True, const_scale=True,
        transposed_scale=True),
    "wo_fp4_group16_m1_transposed_scales": dict(
        lhs=None, rhs=S("f4E2M1FN", "per_group", 0, 16), lshape=(1, 160),
        rshape=(160, 260), transposed_rhs=True, const_scale=True,
        transposed_scale=True),
    "wo_i8_group32_m1_transposed_scales": dict(
        lhs=None, rhs=S("i8", "per_group", 0, 32), lshape=(1, 320),
        rshape=(320, 140), transposed_rhs=True, const_scale=True,
        transposed_scale=True),
    # OCP MX on both operands (E8M0 scales per block of 32; the w8a8-mxfp8,
    # w4a8-mxfp4 and w4a4-mxfp4 recipes): FP8 or FP4 lhs codes (one per
    # byte) decoded times their block's scale, FP8 or packed FP4 weights.
    "mx_fp8_x_fp4_m1_bias": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 32, e8m0=True),
        rhs=S("f4E2M1FN", "per_group", 0, 32, e8m0=True), lshape=(1, 256),
        rshape=(256, 131), bias=True),
    "mx_fp4_x_fp4_m40_relu_transposed": dict(
        lhs=S("f4E2M1FN", "per_group", 1, 32, e8m0=True),
        rhs=S("f4E2M1FN", "per_group", 0, 32, e8m0=True), lshape=(40, 320),
        rshape=(320, 70), relu=True, transposed_rhs=True),
    "mx_fp8_x_fp8_k576_m77": dict(
        lhs=S("f8E4M3FN", "per_group", 1, 32, e8m0=True),
        rhs=S("f8E4M3FN", "per_group", 0, 32, e8m0=True), lshape=(77, 576),
        rshape=(576, 100), transposed_rhs=True),
    "fp4_per_token_x_fp8_channel_m9": dict(
        lhs=S("f4E2M1FN", "per_axis", 0), rhs=S("f8E4M3FN", "per_axis", 1),
        lshape=(9, 64), rshape=(64, 20)),
    # NF4 indices (the 16-value table permuted: two ymm halves on AVX2).
    "wo_nf4_per_channel_m1": dict(
        lhs=None, rhs=S("nf4", "per_axis", 1), lshape=(1, 300),
        rshape=(300, 131), bias=True),
    "wo_nf4_group64_m77_relu": dict(
        lhs=None, rhs=S("nf4", "per_group", 0, 64), lshape=(77, 256),
        rshape=(256, 131), relu=True, transposed_rhs=True),
    "wo_nf4_every_code_m1": dict(
        lhs=None, rhs=S("nf4", "per_axis", 1), lshape=(1, 8),
        rshape=(8, 48), fill="every_code"),
    "wo_nf4_every_code_m9": dict(
        lhs=None, rhs=S("nf4", "per_axis", 1), lshape=(9, 8),
        rshape=(8, 48), fill="every_code"),
    "wo_tensor_relu_requantize": dict(
        lhs=None, rhs=S("i8"), lshape=(3, 20), rshape=(20, 8), relu=True,
        out=S("i8")),
}


def filled_codes(kind, real_codes):
    calls = []

    def codes(scheme, shape):
        calls.append(shape)
        if kind in ("every_rhs_code", "every_lhs_code"):
            # FP8 x FP8: the lhs codes come first, then the rhs's.
            lhs = len(calls) == 1
            if kind == "every_rhs_code":
                # Random lhs codes; rhs row 0 every code, the rest zeros.
                if lhs:
                    return real_codes(scheme, shape)
                c = np.zeros(shape, np.uint8)
                c[0] = np.arange(shape[1]) % 256
                return c
            # lhs row 0: every finite code (NaN / inf codes as zero: times
            # the zeros of the rhs they would make the whole row NaN); row
            # 1: every code; the rhs the identity (code of 1.0), so that
            # result (m, n) is lhs (m, n) alone.
            fp8 = scheme.format.fp8
            if lhs:
                c = np.array(real_codes(scheme, shape)).astype(np.uint8)
                every = np.arange(shape[1]) % 256
                finite = np.isfinite(every.astype(np.uint8).view(fp8)
                                     .astype(np.float32))
                c[0] = np.where(finite, every, 0)
                c[1] = every
                return c
            one = np.array(1.0, dtype=fp8).view(np.uint8)
            return np.eye(shape[0], shape[1], dtype=np.uint8) * one
        if kind == "every_code":  # row 0: every code (uint8 bits)
            c = np.zeros(shape, np.uint8)
            c[0] = np.arange(shape[1]) % (1 << scheme.format.bits)
            return c
        if kind == "min":
            v = scheme.qmin
        else:  # u8 codes at 255, i8 codes at -128
            v = scheme.qmax if scheme.qmax == 255 else scheme.qmin
        return np.full(shape, v, np.int32)
    return codes


def lowered_by_kernel(module_text, isa, tag):
    path = os.path.join(WORKDIR, tag + ".check.mlir")
    with open(path, "w") as f:
        f.write(module_text)
    out = subprocess.run(
        [o.find_tool("octet-opt"), path,
         "--convert-octet-to-cpu=isa=%s remarks=true" % isa],
        capture_output=True, text=True)
    kernels = sorted(set(re.findall(r"func\.func private (@__octet_cpu_\w+)",
                                    out.stdout)))
    if "call @octet_cpu_quantize_pack_lhs" in out.stdout:
        kernels.append("+quantize_pack")
    return out.returncode == 0 and "octet.matmul" not in out.stdout \
        and "__octet_cpu_" in out.stdout, out.stderr.strip(), kernels


def main():
    global WORKDIR
    parser = argparse.ArgumentParser()
    parser.add_argument("--isa", required=True)
    parser.add_argument("--show-kernels", action="store_true",
                        help="print the generated kernels of each case")
    parser.add_argument("cases", nargs="*")
    args = parser.parse_args()
    WORKDIR = os.environ.get("OCTET_CPU_TEST_DIR") or \
        __import__("tempfile").mkdtemp(prefix="octet-cpu-")
    pipeline = "convert-octet-to-cpu{isa=%s},octet-lower-to-host" % args.isa
    real_run = o.run_octet
    texts = {}

    def run(module_text, entry, inputs, n, workdir=None, tag=None,
            extra_args=()):
        texts[tag] = module_text
        return real_run(module_text, entry, inputs, n, workdir=WORKDIR,
                        tag=tag,
                        extra_args=list(extra_args) + ["--pipeline=" + pipeline])

    def unfused(module_text, entry, inputs, n, workdir=None, tag=None,
                extra_args=()):
        return real_run(module_text, entry, inputs, n, workdir=WORKDIR,
                        tag=tag, extra_args=list(extra_args) + [
                            "--pipeline=convert-octet-to-cpu{isa=%s "
                            "fuse-dynamic-quantize=false},octet-lower-to-host"
                            % args.isa])

    o.run_octet = run
    mo.o.run_octet = run
    real_codes = mo.codes_for
    ok = True
    for name, case in CASES.items():
        if args.cases and name not in args.cases:
            continue
        case = dict(case)
        case["const_rhs"] = not case.pop("arg_rhs", False)
        fill = case.pop("fill", None)
        mo.codes_for = filled_codes(fill, real_codes) if fill else real_codes
        good = mo.run_case(name, case)
        if case.get("dynamic"):
            # The same case with the three steps kept (the option that
            # turns the fusion off): the oracle's bits too.
            o.run_octet = mo.o.run_octet = unfused
            good &= mo.run_case(name + "_unfused", case)
            o.run_octet = mo.o.run_octet = run
        covered, why, kernels = lowered_by_kernel(texts[name], args.isa, name)
        if case.get("dynamic") and "+quantize_pack" not in kernels:
            covered, why = False, "the quantization is not fused into the " \
                "packing (no octet_cpu_quantize_pack_lhs call)"
        if args.show_kernels:
            print("%-28s kernels: %s" % (name, " ".join(kernels)))
        if not covered:
            print("%-28s NOT-COVERED by the generated kernel: %s" % (name, why))
        ok &= good and covered
    mo.codes_for = real_codes
    print("cpu kernels (%s): %s" % (args.isa, "all cases match" if ok
                                    else "MISMATCHES"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
