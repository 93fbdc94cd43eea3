"""Checks octet-run --calibrate's statistics against numpy on the same
batches: min/max/absmax/count exactly, and the histogram of |x| over
[0, absmax] in 2048 bins (bin = floor(|x| * 2048 / absmax), clamped)."""
import json
import sys

import numpy as np

stats_path, *batches = sys.argv[1:]
st = json.load(open(stats_path))
assert st["format"] == "octet-calibration" and st["batches"] == len(batches)
x = np.concatenate([np.load(b).ravel() for b in batches]).astype(np.float32)
finite = x[np.isfinite(x)]
t = st["tensors"]["fc1.input"]
assert t["count"] == finite.size, (t["count"], finite.size)
assert t["non_finite"] == x.size - finite.size
assert t["min"] == float(finite.min()) and t["max"] == float(finite.max())
absmax = float(np.abs(finite).max())
assert t["absmax"] == absmax
bins = np.minimum((np.abs(finite).astype(np.float64) * (2048 / absmax)).astype(np.int64), 2047)
want = np.bincount(bins, minlength=2048)
got = np.array(t["histogram"])
assert (got == want).all(), np.nonzero(got != want)
print("calibration statistics match numpy (%d values, %d batches)" % (finite.size, len(batches)))
