// Replaced by the first transform pass.
