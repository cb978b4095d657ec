"""What to run on the GPU for a file's kernel findings: the static half of ``--confirm``.

Everything here is pure Python (plus the file's model and z3) and needs no GPU, so it is unit
tested on any machine. The findings of one kernel at one launch shape make one job: the device-only
view NVRTC compiles (cudalint.gpu.views), the NVRTC options (the file's directory, ``-I``/``-D``
from the settings, ``-lineinfo``, ``--std``), the name expression of the instantiation
(``block_sum<128>``), a launch shape that holds the findings' witnesses (cudalint.gpu.launch_shape)
and synthesised arguments (cudalint.gpu.arguments).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cudalint.engine import file_model
from cudalint.findings import Finding

from .access_log import epochs_count_every_barrier, log_sites, may_order_blocks
from .arguments import ArgPlan, plan_records, synthesize_args
from .launch_shape import EvalError, LaunchShape, c_eval, choose_shape, overrides
from .proc import Run
from .views import device_view


@dataclass
class KernelJob:
    path: str
    kernel: str
    findings: list  # indices into the findings list
    plan: dict | None = None
    geometry: LaunchShape | None = None
    args: ArgPlan | None = None
    problem: str | None = None  # -> unsupported
    runs: dict = field(default_factory=dict)  # tool -> Run
    lines_offset: int = 0
    lines: dict = field(default_factory=dict)  # category -> lines of this job's findings
    variant_line: int | None = None  # the line made atomic in the differential step's variant
    accesses: dict = field(default_factory=dict)  # line -> {(read|write|atomic, bytes)} of the static model
    log_sites: list = field(default_factory=list)  # access_log.Site per global access the access-log step logs
    log_note: str = ""  # why the accesses were not logged
    log_same_block: bool = False  # the log also judges two warps of one block (barrier epochs)
    data_positions: dict = field(default_factory=dict)  # line -> buffers whose values place its shared accesses
    reads_after_own_store: set = field(default_factory=set)  # lines of shared reads of a word the thread stored

    def peers(self, f: Finding) -> list[int]:
        """Other lines of the kernel that the static pass flags for the same category."""
        return sorted(self.lines.get(f.category, set()) - {f.line})

    def plain(self) -> Run | None:
        """The plain launch: a run of its own, or the first of the differential runs."""
        return self.runs.get("plain") or self.runs.get("plain-diff")


def is_global_race(f: Finding) -> bool:
    return f.rule == "CUDA203" or dict(f.properties).get("memory_space") == "global"


def _nvrtc_options(path: str, settings) -> list:
    opts = ["-lineinfo", f"--std={getattr(settings, 'std', 'c++17') or 'c++17'}",
            "-DCUDALINT_CONFIRM=1", f"-I{os.path.dirname(os.path.abspath(path)) or '.'}"]
    for d in getattr(settings, "include_dirs", ()) or ():
        opts.append(f"-I{d}")
    for d in getattr(settings, "defines", ()) or ():
        opts.append(f"-D{d}")
    return opts


def _accesses(kern) -> dict:
    out: dict = {}
    for e in getattr(kern, "events", ()):
        if hasattr(e, "width"):
            out.setdefault(e.loc.line, set()).add((e.kind, e.width))
    return out


def _data_positions(kern) -> dict:
    """line -> the arrays whose loaded values reach the offset of a shared access there (`s[ranks[t]]`)."""
    from cudalint.model import Access, syms
    out: dict = {}
    for e in getattr(kern, "events", ()):
        if isinstance(e, Access) and e.array.space == "shared":
            names = {s.name.split("@")[0] for s in syms(e.offset) if s.origin == "value" and "@" in s.name}
            if names:
                out.setdefault(e.loc.line, set()).update(names)
    return out


def _reads_after_own_store(kern) -> set[int]:
    """Lines whose every shared read is of a word the thread stored itself before, under the same
    conditions and loops (`row = tile; row[t] = v;`): no other thread's store of the same value
    can change what such a read sees."""
    from cudalint.model import Access
    stores, own, other = [], set(), set()
    for e in getattr(kern, "events", ()):
        if not isinstance(e, Access) or e.array.space != "shared":
            continue
        if e.kind == "write":
            stores.append(e)
        elif e.kind == "read":
            mine = any(w.array == e.array and w.offset == e.offset and w.loops == e.loops
                       and set(w.guard) <= set(e.guard) for w in stores)
            (own if mine else other).add(e.loc.line)
    return own - other


def _aliased_args(args: list, aliased: str | None) -> list:
    """With `aliased` ("in=out"), the second buffer is the first one (`same_as` its index), as at
    the launch that passes one pointer for both."""
    kept, _, merged = (aliased or "").partition("=")
    index = {a["name"]: i for i, a in enumerate(args)}
    if kept in index and merged in index:
        k, m = args[index[kept]], args[index[merged]]
        k["nbytes"] = m["nbytes"] = max(k["nbytes"], m["nbytes"])
        m["same_as"] = index[kept]
    return args


def _logged_sites(kernel, path: str, races: list, source_lines: list) -> list:
    """The accesses the access-log step logs: those of every global race, and of a shared-memory
    race between an atomic and a plain access (which racecheck does not see)."""
    def sites_of(fs):
        lines = {f.line for f in fs} | {r.line for f in fs for r in f.related if r.path == f.path}
        arrays = {("global" if is_global_race(f) else "shared", dict(f.properties).get("array")) for f in fs}
        return log_sites(kernel, path, lines, arrays, source_lines) if fs else []

    return sites_of([f for f in races if is_global_race(f) or any(s.kind == "atomic" for s in sites_of([f]))])


def plan_kernel_jobs(path: str, findings: list, idxs: list, settings) -> list[KernelJob]:
    """Group one file's kernel findings into jobs (kernel x geometry) with their run plans."""
    source = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        model = file_model(path, settings)
    except Exception as exc:  # the static pass parsed it; be safe anyway
        model = None
        err = f"cannot rebuild the file's model: {exc!r}"
    include_dirs = tuple(getattr(settings, "include_dirs", ()) or ())
    view, offset = device_view(source, path, include_dirs=include_dirs)
    # for nvcc, where NVRTC cannot compile the view (C++ library types, host tables): same lines
    host_view, _ = device_view(source, path, include_dirs=include_dirs, keep_host=True)
    jobs: dict = {}
    kernels: dict = {}  # job key -> the kernel's model
    for i in idxs:
        f = findings[i]
        kern = None
        if model is not None:
            cands = [k for k in model.kernels if k.name == f.kernel] or \
                    [k for k in model.kernels if k.qualname == f.kernel and not k.is_template_pattern]
            kern = cands[0] if cands else None
        key_problem = None
        if model is None:
            key_problem = err
        elif kern is None:
            key_problem = f"kernel `{f.kernel}` not found in {path}"
        elif kern is not None and kern.is_template_pattern:
            key_problem = f"`{f.kernel}` is a template with no instantiation in the file"
        if key_problem:
            jobs.setdefault((f.kernel, key_problem), KernelJob(path, f.kernel, [], problem=key_problem)).findings.append(i)
            continue
        ovr = overrides(source, kern.loc)
        try:
            geom = choose_shape(f, kern, model, settings, ovr)
        except EvalError as exc:
            jobs.setdefault((f.kernel, str(exc)), KernelJob(path, f.kernel, [], problem=f"override: {exc}")).findings.append(i)
            continue
        aliased = dict(f.properties).get("aliased")  # "in=out": the launch passes one buffer for both
        witness = dict(f.properties).get("witness_scalars", ())  # a divergence shows with these values
        key = (f.kernel, geom.grid, geom.block, geom.shared_bytes, aliased, witness)
        if key in jobs:
            jobs[key].findings.append(i)
            continue
        job = KernelJob(path, f.kernel, [i], geometry=geom, lines_offset=offset, accesses=_accesses(kern),
                        data_positions=_data_positions(kern), reads_after_own_store=_reads_after_own_store(kern))
        jobs[key] = job
        kernels[key] = kern
        if "skip" in ovr:
            job.problem = "skipped by a `cudalint-confirm: skip` comment"
            continue
        try:
            args = synthesize_args(kern.signature, geom, kern, ovr, settings, dict(witness))
        except EvalError as exc:
            job.problem = f"override: {exc}"
            continue
        job.args = args
        if args.problem:
            # a struct's reason says itself which comment pins what
            hint = "" if "cudalint-confirm" in args.problem else " (set it with a `// cudalint-confirm: NAME=VALUE` comment)"
            job.problem = args.problem + hint
            continue
        job.plan = {
            "source": view, "host_source": host_view, "options": _nvrtc_options(path, settings),
            "name_expressions": [f.kernel], "kernel": f.kernel,
            "grid": list(geom.grid), "block": list(geom.block), "shared_bytes": geom.shared_bytes,
            "args": _aliased_args(plan_records(args.args), aliased),
            "runs": 1, "seed": 12345,
            "mem_limit": int(os.environ.get("CUDALINT_CONFIRM_MEM", 4 << 30)),
        }
        if "runs" in ovr:
            job.plan["runs_override"] = int(c_eval(ovr["runs"]))
    source_lines = source.split("\n")
    for key, job in jobs.items():
        for i in job.findings:
            job.lines.setdefault(findings[i].category, set()).add(findings[i].line)
        races = [findings[i] for i in job.findings if findings[i].category == "data-race"]
        if job.plan and races:
            if may_order_blocks(view):
                job.log_note = "a fence or grid-wide sync may order the blocks, so the accesses were not logged"
            else:
                job.log_sites = _logged_sites(kernels[key], path, races, source_lines)
                job.log_same_block = epochs_count_every_barrier(view)
        # Device debug code keeps each access on its own source line (at -O3 a wide load is
        # scheduled into the next line's code and the tools name that line); bank-conflict
        # counts must come from the optimised code the user ships.
        if job.plan and "bank-conflict" not in {findings[i].category for i in job.findings}:
            job.plan["options"] = job.plan["options"] + ["-G"]
    return list(jobs.values())
