"""Writes the .npy files of npy.test into argv[1]: one good array for
sig.mlir and one file per kind of mistake."""
import os
import struct
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
p = lambda name: os.path.join(d, name)


def raw(name, header, data=b"", major=1):
    h = header.encode()
    pad = (64 - (10 + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    with open(p(name), "wb") as f:
        f.write(b"\x93NUMPY" + bytes([major, 0]) + struct.pack("<H", len(h)) + h + data)


good = np.arange(6, dtype=np.float32).reshape(2, 3)
np.save(p("x.npy"), good)
image = open(p("x.npy"), "rb").read()
open(p("bad_magic.npy"), "wb").write(b"\x93NUMPX" + image[6:])
open(p("text.npy"), "wb").write(b"1.0 2.0 3.0\n")
open(p("empty.npy"), "wb").write(b"")
open(p("trunc_header.npy"), "wb").write(image[:40])
open(p("trunc_data.npy"), "wb").write(image[:-5])
open(p("long_data.npy"), "wb").write(image + b"\0\0\0\0")
np.save(p("f64.npy"), good.astype(np.float64))
np.save(p("i32.npy"), good.astype(np.int32))
np.save(p("rank1.npy"), good.reshape(6))
np.save(p("shape.npy"), good.reshape(3, 2))
np.save(p("fortran.npy"), np.asfortranarray(good))
np.save(p("big_endian.npy"), good.astype(">f4"))
np.save(p("complex.npy"), good.astype(np.complex64))
np.save(p("q.npy"), np.array([-1, 2, 3, 4], np.int8))
raw("version.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
    b"\0" * 24, major=9)
raw("bad_header.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3 }")
raw("no_descr.npy", "{'fortran_order': False, 'shape': (2, 3), }")
raw("negative.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 3), }")
raw("overflow.npy", "{'descr': '<f4', 'fortran_order': False, "
    "'shape': (4294967296, 4294967296, 4294967296), }")
