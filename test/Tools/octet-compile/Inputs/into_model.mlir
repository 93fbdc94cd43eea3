// Entries that write into the caller's buffers (octet-compile
// --into-entries): two results sized from the input (a matmul and a row
// sum), a result whose size is read from an input's value (computed, then
// copied), and a scalar result (no entry).
func.func @layer(%x: tensor<?x16xf32>) -> (tensor<?x8xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x16xf32>
  %w = arith.constant dense<[[-2.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0],
                             [1.0, 2.0, -2.0, -1.0, 0.0, 1.0, 2.0, -2.0],
                             [-1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0],
                             [2.0, -2.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0],
                             [0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0, 2.0],
                             [-2.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0],
                             [1.0, 2.0, -2.0, -1.0, 0.0, 1.0, 2.0, -2.0],
                             [-1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0],
                             [2.0, -2.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0],
                             [0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0, 2.0],
                             [-2.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0],
                             [1.0, 2.0, -2.0, -1.0, 0.0, 1.0, 2.0, -2.0],
                             [-1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0],
                             [2.0, -2.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0],
                             [0.0, 1.0, 2.0, -2.0, -1.0, 0.0, 1.0, 2.0],
                             [-2.0, -1.0, 0.0, 1.0, 2.0, -2.0, -1.0, 0.0]]> : tensor<16x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x8xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x8xf32>) outs(%i : tensor<?x8xf32>) -> tensor<?x8xf32>
  %se = tensor.empty(%m) : tensor<?xf32>
  %si = linalg.fill ins(%z : f32) outs(%se : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.reduce ins(%x : tensor<?x16xf32>) outs(%si : tensor<?xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return %y, %s : tensor<?x8xf32>, tensor<?xf32>
}

func.func @fill(%n: tensor<1xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %n[%c0] : tensor<1xi64>
  %k = arith.index_cast %v : i64 to index
  %seven = arith.constant 7.0 : f32
  %e = tensor.empty(%k) : tensor<?xf32>
  %f = linalg.fill ins(%seven : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}

func.func @total(%x: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = tensor.extract %x[%c0] : tensor<4xf32>
  return %a : f32
}
