func.func @resource_scale(%x: tensor<4xf32>) -> tensor<4xi8> {
  %s = arith.constant dense_resource<scale> : tensor<f32>
  %q = octet.quantize %x scale(%s : tensor<f32>) as <i8> : tensor<4xf32> -> tensor<4xi8>
  return %q : tensor<4xi8>
}

{-#
  dialect_resources: {
    builtin: {
      scale: "0x040000000000003F"
    }
  }
#-}
