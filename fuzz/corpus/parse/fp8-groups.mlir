module attributes {octet.target = #octet.target<"sm_90a">} {
  func.func @g(%x: tensor<?x64xf16>) -> tensor<?x64xf8E4M3FN> {
    %s = octet.compute_params %x as <f8E4M3FN, per_group(1, 32)> : tensor<?x64xf16> -> tensor<?x2xf32>
    %q = octet.quantize %x scale(%s : tensor<?x2xf32>) as <f8E4M3FN, per_group(1, 32), non_saturating> : tensor<?x64xf16> -> tensor<?x64xf8E4M3FN>
    return %q : tensor<?x64xf8E4M3FN>
  }
  func.func @c() -> tensor<4xi4> {
    %x = arith.constant dense<[0.5, -1.5, 7.25, 100.0]> : tensor<4xf32>
    %s = arith.constant dense<0.5> : tensor<f32>
    %q = octet.quantize %x scale(%s : tensor<f32>) as <i4> : tensor<4xf32> -> tensor<4xi4>
    return %q : tensor<4xi4>
  }
}
