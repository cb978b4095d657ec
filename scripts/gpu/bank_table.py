"""Compare cudalint's bank-conflict degrees with ncu's counters for every kernel of fixtures/bank.

    python scripts/gpu/bank_table.py docs/gpu-results/fixtures-O2.json > docs/bank-conflicts.md

ncu's `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum` counts the wavefronts a
kernel's shared loads (stores) needed beyond the conflict-free minimum. A warp-wide access of W
bytes needs W/4 wavefronts without conflicts (one per phase: 32 lanes x 4 bytes, 16 x 8, 8 x 16),
and an n-way conflict in every phase makes that n x W/4. So, per instruction,
    degree = 1 + conflicts / instructions / (W / 4).
Where a kernel mixes conflicting and clean shared instructions the per-kernel average is lower
than the conflicting access's degree; the table shows both numbers it needs to check that.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from cudalint.engine import analyze_file  # noqa: E402
from cudalint.frontend.parse import parse  # noqa: E402
from cudalint.frontend.tu import build_model  # noqa: E402
from cudalint.model import Access  # noqa: E402
from cudalint.settings import Settings  # noqa: E402


def main(results_json: str) -> int:
    data = json.load(open(results_json))
    ncu = {}
    for f in data["files"]:
        ncu.update(f.get("evidence", {}).get("ncu", {}) or {})
    print("| kernel | access | W | cudalint | ncu conflicts / instructions | degree from ncu | agree |")
    print("|---|---|---|---|---|---|---|")
    agree = total = 0
    for path in sorted((REPO / "fixtures" / "bank").glob("*.cu")):
        settings = Settings(cuda_mode="shim")
        model = build_model(parse(str(path), settings))
        findings = analyze_file(str(path), settings).findings
        for k in model.kernels:
            st = ncu.get(k.name)
            if st is None:
                continue
            for direction, kind in (("ld", "read"), ("st", "write")):
                accs = [e for e in k.events if isinstance(e, Access) and e.array.space == "shared" and e.kind == kind]
                if not accs:
                    continue
                acc = max(accs, key=lambda a: _degree(findings, a))
                deg = _degree(findings, acc)
                n, c = st[f"{direction}_instructions"], st[f"{direction}_conflicts"]
                measured = 1 + c / n / (acc.width / 4) if n else 1.0
                mixed = len({a.loc.line for a in accs}) > 1 and deg > 1
                ok = abs(measured - deg) < 0.05 or (mixed and 1 < measured <= deg)
                agree += ok
                total += 1
                note = " (kernel average over mixed accesses)" if mixed else ""
                print(f"| `{k.name}` | `{acc.text}` ({direction}) | {acc.width} | {deg}-way | {c:.0f} / {n:.0f} | "
                      f"{measured:.1f}{note} | {'yes' if ok else '**no**'} |")
    print(f"\n{agree} of {total} kernel/direction rows agree.")
    return 0 if agree == total else 1


def _degree(findings, acc) -> int:
    """The degree the static pass gives the access (its finding's property); 1 where none."""
    for f in findings:
        props = dict(f.properties)
        if f.rule == "CUDA301" and f.line == acc.loc.line and (props.get("access") == "write") == (acc.kind == "write"):
            return int(props["degree"])
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else str(REPO / "docs/gpu-results/fixtures-O2.json")))
