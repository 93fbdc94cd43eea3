# -*- Python -*-
# lit configuration for octet's tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "OCTET"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.octet_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope"
config.environment["PYTHONPATH"] = os.path.join(config.octet_src_root, "test", "lib")
config.environment["OCTET_TOOLS_DIR"] = config.octet_tools_dir
config.environment["OCTET_RUNTIME_LIB"] = os.path.join(
    config.octet_lib_dir, "liboctet_runtime.so")

# An ASan + UBSan build (OCTET_ENABLE_SANITIZERS, scripts/test-sanitizers):
# preload the shared ASan runtime into every process so that uninstrumented
# hosts (python with ctypes, the stock mlir-opt with the plugin, C programs)
# can load octet's instrumented libraries; leaks of those hosts themselves
# are suppressed (fuzz/sanitizers/lsan.supp), octet's are not.
if getattr(config, "octet_asan_runtime", ""):
    config.available_features.add("sanitizers")
    _supp = os.path.join(config.octet_src_root, "fuzz", "sanitizers")
    config.environment["LD_PRELOAD"] = config.octet_asan_runtime
    # The CUDA emulator's GPU threads as host threads, not fibers: ASan
    # does not follow swapcontext's stack switches (false stack reports).
    config.environment["OCTET_EMU_OS_THREADS"] = "1"
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs in
    # ASan builds (octet's inline copies of it), but the uninstrumented
    # libMLIR.so allocates from the same slabs without unpoisoning: a false
    # use-after-poison (docs/robustness.md).
    config.environment["ASAN_OPTIONS"] = os.environ.get(
        "ASAN_OPTIONS",
        "detect_leaks=1:allocator_may_return_null=1:allow_user_poisoning=0")
    config.environment["LSAN_OPTIONS"] = os.environ.get(
        "LSAN_OPTIONS", "suppressions=" + os.path.join(_supp, "lsan.supp"))
    config.environment["UBSAN_OPTIONS"] = os.environ.get(
        "UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    config.substitutions.append(("%octet_sanitizers", "1"))
    # The C toolchain and the symbolizer run without the preload
    # (fuzz/sanitizers/bin/uninstrumented says why); PATH gets the wrappers
    # below, after the tool directories.
    _uninstrumented = os.path.join(_supp, "bin")
    config.environment["ASAN_SYMBOLIZER_PATH"] = os.path.join(
        _uninstrumented, "llvm-symbolizer")
else:
    config.available_features.add("no-sanitizers")
    config.substitutions.append(("%octet_sanitizers", "0"))

llvm_config.use_default_substitutions()
# The Python with the test oracles (numpy, ml_dtypes), not lit's own.
config.substitutions = [s for s in config.substitutions if s[0] != "%python"]
config.substitutions.insert(0, ("%python", config.python_executable))
config.substitutions.append(
    ("%octet_runtime_lib", os.path.join(config.octet_lib_dir, "liboctet_runtime.so")))
# The mlir-opt plugin (dialect + passes) for the stock mlir-opt.
config.substitutions.append(
    ("%octet_plugin", os.path.join(config.octet_lib_dir, "libOctetPlugin.so")))
config.substitutions.append(("%octet_src", config.octet_src_root))
config.substitutions.append(("%octet_obj", config.octet_obj_root))

# Prepend our tools and LLVM's (FileCheck, not) to the inherited PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.octet_tools_dir, append_path=True)

if getattr(config, "octet_asan_runtime", ""):
    llvm_config.with_environment("PATH", _uninstrumented, append_path=True)

tool_dirs = [config.octet_tools_dir, config.llvm_tools_dir]
tools = ["octet-opt", "octet-run", "octet-compile", "octet-export-safetensors", "mlir-opt", "octet-capi-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)


# A C compiler driver for tests that build programs against octet's output.
import shutil
_cc = shutil.which("clang", path=config.llvm_tools_dir + os.pathsep + os.environ.get("PATH", "")) or shutil.which("cc")
if _cc and getattr(config, "octet_asan_runtime", ""):
    _cc = os.path.join(_uninstrumented, "clang")
if _cc:
    config.substitutions.append(("%cc", _cc))
    config.available_features.add("cc")

# CPU features of the machine running the tests.
try:
    with open("/proc/cpuinfo") as _f:
        _flags = next((l.split(":", 1)[1].split() for l in _f if l.startswith("flags")), [])
except OSError:
    _flags = []
for _feat in ("avx2", "avx512_vnni", "avx512_bf16", "avx_vnni"):
    if _feat in _flags:
        config.available_features.add("cpu-" + _feat.replace("_", "-"))
# The amx-int8 level runs AMX-INT8 and AMX-BF16 kernels: both, or neither
# (a VM may expose one without the other).
_amx = "amx_int8" in _flags and "amx_bf16" in _flags
if _amx:
    config.available_features.add("cpu-amx-int8")
if _flags and not _amx:
    config.available_features.add("host-lacks-amx")

# IREE's compiler and runtime in the project venv (scripts/setup installs
# them): test/Integration/IREE.
_venv_bin = os.path.dirname(config.python_executable)
if all(os.access(os.path.join(_venv_bin, _t), os.X_OK)
       for _t in ("iree-compile", "iree-run-module")):
    config.available_features.add("iree")

# The onnx package (its backend node tests) in the project venv:
# test/Integration/ONNX.
import subprocess as _sp
if _sp.run([config.python_executable, "-c", "import onnx"],
           capture_output=True).returncode == 0:
    config.available_features.add("onnx")

# ONNX Runtime in the project venv (scripts/setup installs it): the ONNX
# importer against ONNX Runtime's quantizer and CPU provider.
if _sp.run([config.python_executable, "-c", "import onnxruntime"],
           capture_output=True).returncode == 0:
    config.available_features.add("onnxruntime")

# llama.cpp's Python binding (scripts/setup --llama-cpp): the GGUF exports
# run in llama.cpp (test/Integration/GGUF).
if _sp.run([config.python_executable, "-c", "import llama_cpp"],
           capture_output=True).returncode == 0:
    config.available_features.add("llama-cpp")

# torch, transformers and compressed-tensors (scripts/setup --transformers):
# the compressed-tensors exports loaded by transformers
# (test/Integration/CompressedTensors).
if _sp.run([config.python_executable, "-c",
            "import torch, transformers, compressed_tensors"],
           capture_output=True).returncode == 0:
    config.available_features.add("transformers")

# Headless Chromium renders the HTML report (scripts/setup installs it).
_chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if _chromium and getattr(config, "octet_asan_runtime", ""):
    _chromium = os.path.join(_uninstrumented, os.path.basename(_chromium))
if _chromium:
    config.substitutions.append(("%chromium", _chromium))
    config.available_features.add("chromium")
