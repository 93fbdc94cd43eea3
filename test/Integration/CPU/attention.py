"""octet.attention compiled both ways, against octet_oracle.attention (float64,
the op's Bounds tolerance): the CPU kernel (`octet-run`'s default pipeline:
convert-octet-to-cpu calls octet_cpu_attention_f32; each form this CPU has,
OCTET_ATTENTION_ISA) and the linalg decomposition (convert-octet-to-linalg
first: the portable and GPU path). The keys and values are slices of
caches longer than N, as an LLM's KV cache is read (the kernel reads them in
place through their strides); four cases hold INT8 or FP8 E4M3 caches with
per-head scales behind octet.dequantize (fused into the kernel's call). Prints one line per case and form; exits 1 on
any output outside the bound.
"""

import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

import octet_oracle as o

MODULE = """
func.func @main(%q: tensor<?x{KV}x{G}x{Dh}xf32>, %kc: tensor<{KV}x{Dh}x{C}xf32>,
                %vc: tensor<{KV}x{C}x{Dh}xf32>, %pos: tensor<?xi32>,
                %n: tensor<1xi32>) -> tensor<?x{KV}x{G}x{Dh}xf32> {{
  %c0 = arith.constant 0 : index
  %ni = tensor.extract %n[%c0] : tensor<1xi32>
  %nn = arith.index_cast %ni : i32 to index
  %k = tensor.extract_slice %kc[0, 0, 0] [{KV}, {Dh}, %nn] [1, 1, 1]
      : tensor<{KV}x{Dh}x{C}xf32> to tensor<{KV}x{Dh}x?xf32>
  %v = tensor.extract_slice %vc[0, 0, 0] [{KV}, %nn, {Dh}] [1, 1, 1]
      : tensor<{KV}x{C}x{Dh}xf32> to tensor<{KV}x?x{Dh}xf32>
  %o = octet.attention %q, %k, %v, %pos scale({scale:e})
      : tensor<?x{KV}x{G}x{Dh}xf32>, tensor<{KV}x{Dh}x?xf32>,
        tensor<{KV}x?x{Dh}xf32>, tensor<?xi32> -> tensor<?x{KV}x{G}x{Dh}xf32>
  return %o : tensor<?x{KV}x{G}x{Dh}xf32>
}}
"""

MODULE_CODES = """
func.func @main(%q: tensor<?x{KV}x{G}x{Dh}xf32>, %kc: tensor<{KV}x{Dh}x{C}x{T}>,
                %vc: tensor<{KV}x{C}x{Dh}x{T}>, %ks: tensor<{KV}xf32>,
                %vs: tensor<{KV}xf32>, %pos: tensor<?xi32>,
                %n: tensor<1xi32>) -> tensor<?x{KV}x{G}x{Dh}xf32> {{
  %c0 = arith.constant 0 : index
  %ni = tensor.extract %n[%c0] : tensor<1xi32>
  %nn = arith.index_cast %ni : i32 to index
  %k8 = tensor.extract_slice %kc[0, 0, 0] [{KV}, {Dh}, %nn] [1, 1, 1]
      : tensor<{KV}x{Dh}x{C}x{T}> to tensor<{KV}x{Dh}x?x{T}>
  %v8 = tensor.extract_slice %vc[0, 0, 0] [{KV}, %nn, {Dh}] [1, 1, 1]
      : tensor<{KV}x{C}x{Dh}x{T}> to tensor<{KV}x?x{Dh}x{T}>
  %k = octet.dequantize %k8 scale(%ks : tensor<{KV}xf32>) as <{T}, per_axis(0)>
      : tensor<{KV}x{Dh}x?x{T}> -> tensor<{KV}x{Dh}x?xf32>
  %v = octet.dequantize %v8 scale(%vs : tensor<{KV}xf32>) as <{T}, per_axis(0)>
      : tensor<{KV}x?x{Dh}x{T}> -> tensor<{KV}x?x{Dh}xf32>
  %o = octet.attention %q, %k, %v, %pos scale({scale:e})
      : tensor<?x{KV}x{G}x{Dh}xf32>, tensor<{KV}x{Dh}x?xf32>,
        tensor<{KV}x?x{Dh}xf32>, tensor<?xi32> -> tensor<?x{KV}x{G}x{Dh}xf32>
  return %o : tensor<?x{KV}x{G}x{Dh}xf32>
}}
"""

# name: (S, KV, G, Dh, cache length C, N, positions[, "i8" / "f8E4M3FN": an
# INT8 / FP8 KV cache with per-head scales, dequantized by
# octet.dequantize])
rng = np.random.default_rng(20261207)
CASES = {
    "prefill_s21_n61": (21, 3, 3, 64, 72, 61, np.arange(40, 61)),
    "decode_n1000": (1, 3, 3, 64, 1030, 1000, np.array([999])),
    "mha_dh32_random_limits": (11, 2, 1, 32, 50, 45,
                               rng.integers(-2, 50, 11)),
    "i8_cache_prefill_s21_n61": (21, 3, 3, 64, 72, 61, np.arange(40, 61),
                                 "i8"),
    "i8_cache_decode_n700": (1, 3, 3, 64, 720, 700, np.array([699]), "i8"),
    "fp8_cache_prefill_s21_n61": (21, 3, 3, 64, 72, 61, np.arange(40, 61),
                                  "f8E4M3FN"),
    "fp8_cache_decode_n700": (1, 3, 3, 64, 720, 700, np.array([699]),
                              "f8E4M3FN"),
}


def main():
    opt, run = o.find_tool("octet-opt"), o.find_tool("octet-run")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in CASES.items():
            S, KV, G, Dh, C, N, pos = spec[:7]
            codes = spec[7] if len(spec) > 7 else None
            scale = np.float32(1.0 / np.sqrt(Dh))
            q = rng.standard_normal((S, KV, G, Dh)).astype(np.float32)
            pos = np.asarray(pos, np.int32)
            if codes:
                if codes == "i8":
                    kc = rng.integers(-127, 128, (KV, Dh, C)).astype(np.int8)
                    vc = rng.integers(-127, 128, (KV, C, Dh)).astype(np.int8)
                else:
                    # FP8 E4M3 codes (every one but the NaNs), stored as
                    # the float8 type's bytes.
                    kc = rng.integers(0, 256, (KV, Dh, C)).astype(np.uint8)
                    vc = rng.integers(0, 256, (KV, C, Dh)).astype(np.uint8)
                    kc[(kc & 0x7F) == 0x7F] = 0
                    vc[(vc & 0x7F) == 0x7F] = 0
                    kc = kc.view(ml_dtypes.float8_e4m3fn)
                    vc = vc.view(ml_dtypes.float8_e4m3fn)
                ks = rng.uniform(0.005, 0.03, KV).astype(np.float32)
                vs = rng.uniform(0.005, 0.03, KV).astype(np.float32)
                # .npy files hold the FP8 codes as uint8 (octet-run reads
                # them into f8E4M3FN arguments).
                inputs = (q, kc.view(np.int8 if codes == "i8" else np.uint8),
                          vc.view(np.int8 if codes == "i8" else np.uint8), ks,
                          vs, pos, np.array([N], np.int32))
                # The reference sees what octet.dequantize gives:
                # decode(code) * scale in f32.
                kf = (kc.astype(np.float32) * ks[:, None, None]).astype(
                    np.float32)
                vf = (vc.astype(np.float32) * vs[:, None, None]).astype(
                    np.float32)
            else:
                kc = rng.standard_normal((KV, Dh, C)).astype(np.float32)
                vc = rng.standard_normal((KV, C, Dh)).astype(np.float32)
                inputs = (q, kc, vc, pos, np.array([N], np.int32))
                kf, vf = kc, vc
            files = []
            for i, a in enumerate(inputs):
                files.append(os.path.join(tmp, "%s.%d.npy" % (name, i)))
                np.save(files[-1], a)
            src = os.path.join(tmp, name + ".mlir")
            with open(src, "w") as f:
                f.write((MODULE_CODES if codes else MODULE).format(
                    KV=KV, G=G, Dh=Dh, C=C, T=codes, scale=float(scale)))
            linalg = os.path.join(tmp, name + ".linalg.mlir")
            subprocess.run([opt, src, "--convert-octet-to-linalg", "-o",
                            linalg], check=True)
            ref, tol = o.attention(q, kf[:, :, :N], vf[:, :N], pos, scale)
            for form, path, env in (
                    ("kernel", src, {}),
                    ("kernel-avx2", src, {"OCTET_ATTENTION_ISA": "avx2"}),
                    ("kernel-scalar", src,
                     {"OCTET_ATTENTION_ISA": "scalar"}),
                    ("linalg", linalg, {})):
                out = os.path.join(tmp, "%s.%s.out.npy" % (name, form))
                cmd = [run, path] + ["--input=" + f for f in files] + \
                    ["--output=" + out]
                res = subprocess.run(cmd, capture_output=True, text=True,
                                     env=dict(os.environ, **env))
                if res.returncode != 0:
                    print("MISMATCH %s %s: octet-run failed: %s"
                          % (name, form, res.stderr.strip()))
                    failed = True
                    continue
                got = np.load(out).astype(np.float64)
                nan = np.isnan(ref)
                bad = (np.isnan(got) != nan) | \
                    (~nan & ~(np.abs(got - ref) <= tol))
                err = np.where(nan, 0, np.abs(got - ref) / (tol + 1e-300))
                print("%s %s %s: max error / bound %.3f, %d NaN rows"
                      % ("MISMATCH" if bad.any() else "ok", name, form,
                         np.nanmax(err), nan.all(axis=3).sum()))
                failed |= bool(bad.any())
    if not failed:
        print("octet.attention: every case within the bound")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
