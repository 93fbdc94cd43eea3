// One op of each kind the CUDA lowering handles, for the per-chip PTX tests.
func.func @w8a8(%x: tensor<?x256xi8>, %w: tensor<256x128xi8>, %sx: tensor<?xf32>,
                %sw: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<?x128xf16> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<?xf32>) lhs_scheme <i8, per_axis(0)>
         rhs_scale(%sw : tensor<128xf32>) rhs_scheme <i8, per_axis(1)>
         bias(%b : tensor<128xf32>) relu
         : tensor<?x256xi8>, tensor<256x128xi8> -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}

func.func @fp8(%x: tensor<?x256xf8E4M3FN>, %w: tensor<256x128xf8E4M3FN>,
               %sx: tensor<f32>, %sw: tensor<f32>, %so: tensor<f32>) -> tensor<?x128xf8E4M3FN> {
  %y = octet.matmul %x, %w lhs_scale(%sx : tensor<f32>) lhs_scheme <f8E4M3FN>
         rhs_scale(%sw : tensor<f32>) rhs_scheme <f8E4M3FN>
         out_scale(%so : tensor<f32>) out_scheme <f8E4M3FN>
         : tensor<?x256xf8E4M3FN>, tensor<256x128xf8E4M3FN> -> tensor<?x128xf8E4M3FN>
  return %y : tensor<?x128xf8E4M3FN>
}

func.func @w8a16(%x: tensor<?x256xbf16>, %w: tensor<256x128xi8>,
                 %sw: tensor<128xf32>) -> tensor<?x128xbf16> {
  %y = octet.matmul %x, %w rhs_scale(%sw : tensor<128xf32>) rhs_scheme <i8, per_axis(1)>
         : tensor<?x256xbf16>, tensor<256x128xi8> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

func.func @token_quantize(%x: tensor<?x256xf32>) -> (tensor<?x256xi8>, tensor<?xf32>) {
  %s = octet.compute_params %x as <i8, per_axis(0)> : tensor<?x256xf32> -> tensor<?xf32>
  %q = octet.quantize %x scale(%s : tensor<?xf32>) as <i8, per_axis(0)>
         : tensor<?x256xf32> -> tensor<?x256xi8>
  return %q, %s : tensor<?x256xi8>, tensor<?xf32>
}
