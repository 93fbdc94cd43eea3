"""Checks that a PNG screenshot is a real rendering: the expected size and
enough distinct colors (a blank or error page has very few)."""
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width, height = 8, b"", 0, 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height = struct.unpack(">II", body[:8])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw = zlib.decompress(idat)
colors = len(set(raw[i:i + 3] for i in range(0, min(len(raw), 4_000_000), 3)))
print("png %dx%d, %d distinct byte triples" % (width, height, colors))
assert width >= 1000 and height >= 1000, (width, height)
assert colors > 200, colors
print("rendering looks real")
