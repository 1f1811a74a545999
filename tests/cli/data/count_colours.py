#!/usr/bin/env python3
"""count_colours.py PNG R,G,B ...: for each colour (0-1 floats) prints how many pixels of the
8-bit RGB PNG are a shaded version of it (pixel = colour * s with s in [0.3, 1], the flat
shading of docs/viewer.md). Decodes the PNG with zlib only, so that the CLI tests that check
`concord render` pictures need nothing but python3."""
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype == 2, "expected 8-bit RGB"
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, rows, prev = zlib.decompress(idat), 3 * w, [], bytearray(3 * w)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 3] if i >= 3 else 0
        b, c = prev[i], (prev[i - 3] if i >= 3 else 0)
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
counts = []
for spec in sys.argv[2:]:
    col = [float(x) for x in spec.split(",")]
    n = 0
    for line in rows:
        for x in range(w):
            px = [line[3 * x + k] / 255 for k in range(3)]
            s = px[0] / col[0]
            n += 0.3 < s < 1.01 and all(abs(px[k] - s * col[k]) < 0.02 for k in range(3))
    counts.append(str(n))
print(" ".join(counts))
