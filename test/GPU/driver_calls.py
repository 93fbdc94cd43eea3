#!/usr/bin/env python3
"""Calls `forward` of a compiled CUDA library (not emulated) three times
against a recording fake driver (Inputs/recording_cuda_driver.c, which
runs no kernel: only the host side of the library and the runtime run) and
prints what each call asked of the driver, then checks the residency and
allocation rules of docs/cuda.md:

  - the first call uploads exactly --resident-bytes more than the second
    (the constant weights and parameters, uploaded once); the second and
    third calls make the same requests;
  - one stream per thread: created by the first call, never destroyed;
  - with the stream-ordered allocator (default), no cuMemAlloc / cuMemFree:
    every buffer comes from cuMemAllocAsync and all but the resident ones
    (--resident-buffers) go back with cuMemFreeAsync in the same call;
    with --sync (the fake device reports no memory pools) the same with
    cuMemAlloc / cuMemFree;
  - activations stay on the device: a later call uploads the model's input
    and downloads its output (one copy each, --io-bytes IN,OUT) and, with
    the stream-ordered allocator, waits for its stream once (for the
    download: the ops in between are stream-ordered and do not wait).

  driver_calls.py --driver FAKE.so --lib LIB.so --shape 32,256
      --resident-bytes B --resident-buffers N --io-bytes IN,OUT [--sync]
      [--device-entry]

With --device-entry, forward_device (arguments and results in device
memory) is then called twice on a stream the caller made and set with
octet_cuda_set_stream, its result freed with octet_cuda_free_async: it
must copy nothing, wait for nothing, create no stream, and return every
buffer to the pool.
"""

import argparse
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_numerics  # noqa: E402

NAMES = ["stream_create", "stream_destroy", "mem_alloc", "mem_free",
         "mem_alloc_async", "mem_free_async", "uploads", "upload_bytes",
         "downloads", "download_bytes", "launches", "live_blocks",
         "stream_syncs"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--driver", required=True)
    p.add_argument("--lib", required=True)
    p.add_argument("--shape", required=True)
    p.add_argument("--resident-bytes", type=int, required=True)
    p.add_argument("--resident-buffers", type=int, required=True)
    p.add_argument("--io-bytes", required=True)
    p.add_argument("--sync", action="store_true")
    p.add_argument("--device-entry", action="store_true")
    opts = p.parse_args()
    os.environ["OCTET_CUDA_DRIVER"] = os.path.abspath(opts.driver)
    if opts.sync:
        os.environ["FAKE_CUDA_NO_POOLS"] = "1"
    fake = ctypes.CDLL(os.path.abspath(opts.driver))
    lib = ctypes.CDLL(os.path.abspath(opts.lib))
    shape = tuple(int(d) for d in opts.shape.split(","))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    stats = (ctypes.c_longlong * len(NAMES))()
    calls = []
    for i in range(3):
        fake.fake_cuda_stats(stats)
        before = list(stats)
        run_numerics.call(lib, "forward", [x])
        fake.fake_cuda_stats(stats)
        calls.append(dict(zip(NAMES, [a - b for a, b in zip(stats, before)])))
        print("call %d: %s" % (i + 1, " ".join(
            "%s=%d" % (k, v) for k, v in calls[-1].items())))
    first, second, third = calls
    io_in, io_out = (int(b) for b in opts.io_bytes.split(","))
    alloc, free = (("mem_alloc", "mem_free") if opts.sync
                   else ("mem_alloc_async", "mem_free_async"))
    other_alloc, other_free = (("mem_alloc_async", "mem_free_async")
                               if opts.sync else ("mem_alloc", "mem_free"))
    checks = [
        ("weights uploaded once",
         first["upload_bytes"] - second["upload_bytes"] == opts.resident_bytes),
        ("later calls alike", second == third),
        ("one stream, kept",
         first["stream_create"] == 1 and second["stream_create"] == 0
         and all(c["stream_destroy"] == 0 for c in calls)),
        ("buffers from %s, freed by %s" % (alloc, free),
         all(c[other_alloc] == 0 and c[other_free] == 0 for c in calls)
         and first[alloc] - first[free] == opts.resident_buffers
         and second[alloc] == second[free] and second[alloc] > 0),
        ("kernels launched", all(c["launches"] > 0 for c in calls)),
        ("later calls copy the input and the output only",
         [second[k] for k in ("uploads", "upload_bytes", "downloads",
                              "download_bytes")] == [1, io_in, 1, io_out]),
    ]
    if not opts.sync:
        # (cuMemFree waits for the device: with --sync every free does.)
        checks.append(("later calls wait for the stream once",
                       second["stream_syncs"] == 1))
    if opts.device_entry:
        checks += device_entry_checks(fake, lib, x, stats)
    ok = True
    for name, good in checks:
        print("%s: %s" % (name, "ok" if good else "FAIL"))
        ok = ok and good
    return 0 if ok else 1


def device_entry_checks(fake, lib, x, stats):
    """forward_device on a stream of the caller's (octet_cuda_set_stream),
    twice, its result freed with octet_cuda_free_async: no copy, no wait,
    no stream of the library's, every buffer back to the pool."""
    stream = ctypes.c_void_p()
    lib.octet_cuda_stream_create(ctypes.byref(stream))
    lib.octet_cuda_set_stream(stream)
    free = lib.octet_cuda_free_async
    free.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    calls = []
    for i in range(2):
        fake.fake_cuda_stats(stats)
        before = list(stats)
        run_numerics.call(lib, "forward", [x], entry="forward_device",
                          free=lambda p: free(p, stream))
        fake.fake_cuda_stats(stats)
        calls.append(dict(zip(NAMES, [a - b for a, b in zip(stats, before)])))
        print("forward_device call %d: %s" % (i + 1, " ".join(
            "%s=%d" % (k, v) for k, v in calls[-1].items())))
    lib.octet_cuda_set_stream(None)
    fake.fake_cuda_last_launch_stream.restype = ctypes.c_void_p
    on_stream = fake.fake_cuda_last_launch_stream() == stream.value
    last = calls[-1]
    return [
        ("device entry: no copies, no wait, the caller's stream",
         on_stream and all(c["uploads"] == 0 and c["downloads"] == 0
                           and c["stream_syncs"] == 0
                           and c["stream_create"] == 0
                           and c["launches"] > 0 for c in calls)),
        ("device entry: buffers back to the pool",
         last["mem_alloc_async"] == last["mem_free_async"] > 0
         and last["live_blocks"] == 0),
    ]


if __name__ == "__main__":
    sys.exit(main())
