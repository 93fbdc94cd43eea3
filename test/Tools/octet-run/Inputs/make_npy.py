"""Writes the .npy files the octet-run tests use into argv[1]."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
np.save(os.path.join(d, "x.npy"), np.arange(6, dtype=np.float32).reshape(2, 3))
np.save(os.path.join(d, "x_f64.npy"), np.zeros((2, 3), np.float64))
np.save(os.path.join(d, "x_rank1.npy"), np.zeros(6, np.float32))
np.save(os.path.join(d, "x_shape.npy"), np.zeros((3, 2), np.float32))
np.save(os.path.join(d, "q.npy"), np.array([-1, 2, 3, 4], np.int8))
np.save(os.path.join(d, "q_u8.npy"), np.array([255, 2, 3], np.uint8))
with open(os.path.join(d, "garbage.npy"), "wb") as f:
    f.write(b"not a numpy file")
