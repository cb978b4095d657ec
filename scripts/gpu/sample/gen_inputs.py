#!/usr/bin/env python3
"""Write the input files that `hecbench.cudalint.toml`'s `confirm-args` name, under a HeCBench root.

    python3 scripts/gpu/sample/gen_inputs.py HECBENCH_ROOT

Writes, deterministically (standard library only):

  HECBENCH_ROOT/inputs/laplace100.mtx   bicgstab-cuda: the 5-point 2-D Laplacian of a 10 x 10 grid,
                                        a 100 x 100 symmetric positive-definite matrix (4 on the
                                        diagonal, -1 to each grid neighbour), Matrix Market
                                        `coordinate real symmetric`, lower triangle: 280 lines,
                                        460 non-zeros once mirrored
  HECBENCH_ROOT/inputs/gd_512x300.svm   gd-cuda: 512 observations of 300 features in LIBSVM form
                                        (`label index:value ...`, labels +-1, 8 features a row);
                                        300 % 256 = 44, so `update`'s last block has threads on
                                        both sides of `if (i < n)`, as the benchmark's own data
                                        (5000 features) has
  HECBENCH_ROOT/inputs/sad_main.bmp,    sad-cuda: 64 x 64 and 8 x 8 pixels, 24-bit uncompressed,
                   sad_template.bmp     random colours (read by include/bitmap_image.hpp)

and, in each of those programs' folders, a link `inputs -> ../../inputs`. cudalint runs a
program's leak check in its own working directory (the HeCBench root when confirm_sample.py
drives it) but the program's own run under synccheck/racecheck/ncu beside the source file
(src/NAME-cuda/); with the link, the relative path `inputs/...` in `confirm-args` opens the same
file from both.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

GRID = 10  # laplace100: a GRID x GRID grid, GRID**2 unknowns
GD_ROWS, GD_FEATURES, GD_PER_ROW = 512, 300, 8
LINKED = ("bicgstab-cuda", "gd-cuda", "sad-cuda")  # the programs that read a file from inputs/
SAD_MAIN, SAD_TEMPLATE = 64, 8  # sad-cuda: square images, pixels a side


def laplace_mtx(grid: int) -> str:
    n = grid * grid
    entries = []  # (row, col, value), 1-based, row >= col
    for i in range(grid):
        for j in range(grid):
            k = i * grid + j
            entries.append((k, k, 4.0))
            if j > 0:
                entries.append((k, k - 1, -1.0))
            if i > 0:
                entries.append((k, k - grid, -1.0))
    entries.sort(key=lambda e: (e[1], e[0]))  # column by column, as Matrix Market files usually are
    lines = ["%%MatrixMarket matrix coordinate real symmetric",
             f"% 5-point 2-D Laplacian of a {grid} x {grid} grid (cudalint scripts/gpu/sample/gen_inputs.py)",
             f"{n} {n} {len(entries)}"]
    lines += [f"{r + 1} {c + 1} {v:.1f}" for r, c, v in entries]
    return "\n".join(lines) + "\n"


def gd_svm(rows: int, features: int, per_row: int, seed: int = 17) -> str:
    rng = random.Random(seed)
    w = [rng.uniform(-1.0, 1.0) for _ in range(features)]  # a hidden linear rule gives the labels
    lines = []
    for r in range(rows):
        cols = set(rng.sample(range(1, features + 1), per_row))
        if r == rows - 1:
            cols.add(features)  # the feature count is the largest index read: make it `features`
        feats = [(c, round(rng.uniform(0.05, 1.0), 4)) for c in sorted(cols)]
        score = sum(w[c - 1] * v for c, v in feats)
        label = 1 if score >= 0 else -1
        lines.append(" ".join([str(label)] + [f"{c}:{v}" for c, v in feats]))
    return "\n".join(lines) + "\n"


def bmp24(side: int, seed: int) -> bytes:
    """An uncompressed 24-bit BMP of side x side pixels (rows bottom-up, padded to 4 bytes)."""
    import struct
    rng = random.Random(seed)
    row = (3 * side + 3) // 4 * 4
    pixels = b"".join(bytes(rng.randrange(256) for _ in range(3 * side)) + bytes(row - 3 * side)
                      for _ in range(side))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(pixels), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, side, side, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    return header + info + pixels


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: " + __doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root = Path(argv[0])
    if not (root / "src").is_dir():
        print(f"{root}: not a HeCBench root (no src/ folder)", file=sys.stderr)
        return 2
    inputs = root / "inputs"
    inputs.mkdir(exist_ok=True)
    files = {"laplace100.mtx": laplace_mtx(GRID),
             "gd_512x300.svm": gd_svm(GD_ROWS, GD_FEATURES, GD_PER_ROW)}
    for name, text in files.items():
        (inputs / name).write_text(text)
        print(f"wrote {inputs / name} ({len(text)} bytes)")
    for name, side, seed in (("sad_main.bmp", SAD_MAIN, 1), ("sad_template.bmp", SAD_TEMPLATE, 2)):
        (inputs / name).write_bytes(bmp24(side, seed))
        print(f"wrote {inputs / name} ({side} x {side} pixels)")
    for prog in LINKED:
        folder = root / "src" / prog
        link = folder / "inputs"
        if not folder.is_dir():
            print(f"{folder}: missing, no link made", file=sys.stderr)
            continue
        if link.is_symlink() or link.exists():
            if link.resolve() == inputs.resolve():
                continue
            print(f"{link}: already there and not a link to {inputs}; left as it is", file=sys.stderr)
            continue
        os.symlink(os.path.join("..", "..", "inputs"), link)
        print(f"linked {link} -> ../../inputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
