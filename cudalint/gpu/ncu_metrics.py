"""Kernel-level shared-memory counters from Nsight Compute (``ncu --metrics``; line-level ones are
cudalint.gpu.ncu_source). Standard library only.

Bank-conflict degree (see :class:`BankConflictStats`)::

    degree = 1 + conflicts / instructions

``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`` counts the
*extra* shared-memory wavefronts caused by bank conflicts, and
``smsp__sass_inst_executed_op_shared_{ld,st}.sum`` counts warp-level shared
load/store instructions.  A conflict-free 4-byte access needs one wavefront
per instruction, an n-way conflict needs n, so the average degree over a
kernel's shared loads (or stores) is ``1 + conflicts / instructions``.  When
the wavefront metrics ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``
were collected too, ``wavefronts / instructions`` is the same number for
4-byte accesses (8- and 16-byte accesses need 2 and 4 wavefronts even
without a conflict, so for them prefer the conflict-based formula).  It is
an average over all shared loads (or stores) of the kernel: one 32-way
access among 31 clean ones shows as a degree near 2, so treat ``> 1`` as
"this kernel conflicts" and the value as a lower bound for the worst access.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from .tool_output import kernel_basename

#: The metrics the confirmation script asks ncu for (ld/st conflicts,
#: ld/st instructions, ld/st wavefronts).
NCU_BANK_METRICS = (
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
)


# --------------------------------------------------------------------------
# ncu bank conflicts


@dataclass(frozen=True)
class BankConflictStats:
    """Shared-memory bank-conflict counters of one kernel (summed over its launches).

    Degree (average over the kernel's shared loads or stores)::

        ld_degree = 1 + ld_conflicts / ld_instructions
        st_degree = 1 + st_conflicts / st_instructions

    (None when the kernel executed no such instruction.)
    """

    kernel: str
    function: str  # the name as ncu printed it
    launches: int
    ld_conflicts: float
    st_conflicts: float
    ld_instructions: float
    st_instructions: float
    ld_wavefronts: float | None = None
    st_wavefronts: float | None = None

    @property
    def conflicts(self) -> float:
        return self.ld_conflicts + self.st_conflicts

    @property
    def ld_degree(self) -> float | None:
        if not self.ld_instructions:
            return None
        return 1.0 + self.ld_conflicts / self.ld_instructions

    @property
    def st_degree(self) -> float | None:
        if not self.st_instructions:
            return None
        return 1.0 + self.st_conflicts / self.st_instructions

    @property
    def max_degree(self) -> float | None:
        ds = [d for d in (self.ld_degree, self.st_degree) if d is not None]
        return max(ds) if ds else None


def parse_number(s: str) -> float | None:
    """A number as ncu prints it (`1,024`), else None (`n/a`, `-`, empty)."""
    s = (s or "").strip().replace(",", "")
    if not s or s.lower() in ("n/a", "nan", "-"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


_METRIC_KEYS = {
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "ld_conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "st_conflicts",
    "smsp__sass_inst_executed_op_shared_ld.sum": "ld_instructions",
    "smsp__sass_inst_executed_op_shared_st.sum": "st_instructions",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "ld_wavefronts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "st_wavefronts",
}


def _ncu_rows_csv(text: str) -> list[tuple[str, str, str, str]]:
    """(launch id, kernel, metric, value) rows of ``ncu --csv`` output."""
    lines = text.splitlines()
    start = None
    for i, l in enumerate(lines):
        if l.startswith('"ID"') or l.startswith("ID,"):
            start = i
            break
    if start is None:
        return []
    body = "\n".join(l for l in lines[start:] if l.startswith('"') or l[:1].isdigit() or l.startswith("ID,"))
    rows = []
    reader = csv.DictReader(io.StringIO(body))
    for r in reader:
        kernel = r.get("Kernel Name") or r.get("Function Name") or r.get("Name") or ""
        metric = r.get("Metric Name") or ""
        value = r.get("Metric Value") or ""
        rows.append((r.get("ID", ""), kernel, metric, value))
    return rows


_NCU_KERNEL_HEAD_RE = re.compile(
    r"^\s{0,4}(?P<name>\S.*?)\s+\((?P<g>\d+,\s*\d+,\s*\d+)\)x\((?P<b>\d+,\s*\d+,\s*\d+)\),\s*Context\b"
)
_NCU_METRIC_LINE_RE = re.compile(r"^\s+(?P<metric>[a-z0-9_]+__[\w.]+)\s+(?:(?P<unit>\S+)\s+)?(?P<value>[\d,.]+|n/a)\s*$")


def _ncu_rows_text(text: str) -> list[tuple[str, str, str, str]]:
    rows = []
    launch = -1
    kernel = None
    for l in text.splitlines():
        if l.startswith("==PROF==") or l.startswith("==WARNING=="):
            continue
        m = _NCU_KERNEL_HEAD_RE.match(l)
        if m:
            launch += 1
            kernel = m.group("name")
            continue
        m = _NCU_METRIC_LINE_RE.match(l)
        if m and kernel is not None:
            rows.append((str(launch), kernel, m.group("metric"), m.group("value")))
    return rows


def parse_ncu_bank_conflicts(text: str) -> dict[str, BankConflictStats]:
    """Per kernel (bare name, see :func:`kernel_basename`) bank-conflict counters.

    Accepts ``ncu --csv --metrics ...`` output and ncu's default text table.
    Launches of the same kernel are summed; ``launches`` counts them.
    Kernels of the same bare name but different signatures (template
    instances, overloads) are summed too; ``function`` keeps the first
    printed name.
    """
    rows = _ncu_rows_csv(text) or _ncu_rows_text(text)
    per_launch: dict[tuple[str, str], dict[str, float]] = {}
    order: list[tuple[str, str]] = []
    for launch, kernel, metric, value in rows:
        key = _METRIC_KEYS.get(metric.strip())
        if key is None:
            continue
        k = (launch, kernel)
        if k not in per_launch:
            per_launch[k] = {}
            order.append(k)
        v = parse_number(value)
        if v is not None:
            per_launch[k][key] = v
    out: dict[str, dict] = {}
    for launch, kernel in order:
        vals = per_launch[(launch, kernel)]
        name = kernel_basename(kernel) or kernel
        agg = out.setdefault(
            name,
            {"function": kernel, "launches": 0, "ld_conflicts": 0.0, "st_conflicts": 0.0,
             "ld_instructions": 0.0, "st_instructions": 0.0, "ld_wavefronts": None, "st_wavefronts": None},
        )
        agg["launches"] += 1
        for key in ("ld_conflicts", "st_conflicts", "ld_instructions", "st_instructions"):
            agg[key] += vals.get(key, 0.0)
        for key in ("ld_wavefronts", "st_wavefronts"):
            if key in vals:
                agg[key] = (agg[key] or 0.0) + vals[key]
    return {name: BankConflictStats(kernel=name, **agg) for name, agg in out.items()}
