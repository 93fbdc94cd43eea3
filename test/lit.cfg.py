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

llvm_config.use_default_substitutions()
# The Python with the test oracles (numpy, ml_dtypes), not lit's own.
config.substitutions = [s for s in config.substitutions if s[0] != "%python"]
config.substitutions.insert(0, ("%python", config.python_executable))
config.substitutions.append(
    ("%octet_runtime_lib", os.path.join(config.octet_lib_dir, "liboctet_runtime.so")))
config.substitutions.append(("%octet_src", config.octet_src_root))
config.substitutions.append(("%octet_obj", config.octet_obj_root))

# Prepend our tools and LLVM's (FileCheck, not) to the inherited PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.octet_tools_dir, append_path=True)

tool_dirs = [config.octet_tools_dir, config.llvm_tools_dir]
tools = ["octet-opt", "octet-run", "mlir-opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

