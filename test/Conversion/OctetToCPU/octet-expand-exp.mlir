// RUN: octet-opt %s --octet-expand-exp | FileCheck %s

// math.exp on f32 (scalar or vector) becomes the clamp, the reduction by
// ln2 with two FMAs, the degree-7 polynomial (6 Horner FMAs + 1), the
// scaling by two powers of two and the NaN select; f16 goes through f32;
// f64 and device code keep math.exp.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[LO:.*]] = arith.cmpf ogt, %arg0
// CHECK: arith.select %[[LO]], %arg0
// CHECK: arith.cmpf olt
// CHECK: math.roundeven
// CHECK-COUNT-8: math.fma
// CHECK: arith.fptosi {{.*}} : f32 to i32
// CHECK: arith.shrsi
// CHECK-COUNT-2: arith.bitcast {{.*}} : i32 to f32
// CHECK: arith.cmpf uno, %arg0, %arg0
// CHECK-NOT: math.exp
func.func @scalar(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @vector
// CHECK: math.roundeven {{.*}} : vector<16xf32>
// CHECK: arith.fptosi {{.*}} : vector<16xf32> to vector<16xi32>
// CHECK-NOT: math.exp
func.func @vector(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x : vector<16xf32>
  return %y : vector<16xf32>
}

// CHECK-LABEL: func.func @half
// CHECK: arith.extf %arg0 : f16 to f32
// CHECK: math.roundeven
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @half(%x: f16) -> f16 {
  %y = math.exp %x : f16
  return %y : f16
}

// CHECK-LABEL: func.func @double
// CHECK: math.exp %arg0 : f64
func.func @double(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}

// CHECK-LABEL: gpu.module @kernels
// CHECK: math.exp
gpu.module @kernels {
  gpu.func @k(%x: f32) kernel {
    %y = math.exp %x : f32
    gpu.return
  }
}
