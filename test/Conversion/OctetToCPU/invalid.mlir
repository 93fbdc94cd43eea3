// RUN: not octet-opt %s --convert-octet-to-cpu=isa=sse2 2>&1 | FileCheck %s

// The option is an enum (cl::values): `--help` lists the values.
// CHECK: for the --isa option: Cannot find option named 'sse2'!
module {}
