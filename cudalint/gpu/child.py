"""One kernel on the GPU: the child process of ``--confirm`` (``python child.py PLAN.json OUT.json``).

Run by :mod:`cudalint.gpu.runner` in its own process (and process group), under a time limit, and
possibly under ``compute-sanitizer`` or ``ncu``: a faulting kernel breaks its CUDA context for good,
and a deadlocked barrier never returns, so neither may happen in the linter's own process.

It compiles the device-only view with CuPy (``RawModule``, NVRTC, ``-lineinfo``), allocates the
planned buffers from a memory pool capped at ``mem_limit`` bytes, fills them with non-zero random
data made on the host (no CuPy kernels run, so the tools see the user's kernel alone; index
buffers of vector accesses get multiples of 16), launches the kernel ``runs`` times from the same
initial data (a struct passed by value goes as one argument: a NumPy array of one element with
the C layout, its pointer fields holding the addresses of buffers of their own), and writes a
JSON result: compile log, the CUDA error of the launch if any, a digest of every buffer after the
first run, and with ``diff`` in the plan (differential evidence) how far each
later run's buffers are from the first run's: integers exactly, floats by relative difference
against ``diff.rtol`` (atomics add floats in a different order each run). With
``variant_source``, the kernel with its racy read-modify-write made atomic runs once from the
same inputs, and its buffers are compared with the first run's the same way. With ``arrivals``,
the source counts per thread how often it reaches each flagged ``__syncthreads()``; with
``access_log``, it logs its flagged global accesses, and the child reports the addresses two blocks
(or two warps of one block between the same two barriers) touched through a racing pair of them.

Standard library, NumPy and CuPy only: it is loaded by path and imports nothing from cudalint.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time


def _fill(np, rng, dtype: str, nbytes: int, fill: str = "random", fill_range: int = 8):
    if fill == "index" and dtype[:1] in "iu":
        size = int(dtype[1:])
        a = (16 * rng.integers(1, 8, size=nbytes // size)).astype("<" + dtype)
    elif fill == "offsets" and dtype[:1] in "iu":  # half below 4 (values meet), half anywhere
        n, top = nbytes // int(dtype[1:]), max(1, fill_range)
        a = np.where(rng.random(n) < 0.5, rng.integers(0, min(4, top), size=n), rng.integers(0, top, size=n))
        a = a.astype("<" + dtype)
    elif fill == "distinct" and dtype[:1] in "iu":  # each value once (within the range): 0, 1, 2, ...
        n, top = nbytes // int(dtype[1:]), max(1, fill_range)
        a = (np.arange(n) % top).astype("<" + dtype)
    elif fill == "bounds" and dtype[:1] in "iu":  # CSR offsets: 8 to 39 more each, wrapping at the range
        n, top = nbytes // int(dtype[1:]), max(1, fill_range)
        a = (np.cumsum(rng.integers(8, 40, size=n)) % top).astype("<" + dtype)
    elif dtype in ("f4", "f8", "f2"):
        n = nbytes // int(dtype[1:])
        a = rng.uniform(0.5, 2.0, size=n).astype("<" + dtype)
    elif dtype == "bf16":
        f = rng.uniform(0.5, 2.0, size=nbytes // 2).astype("<f4")
        a = (f.view("<u4") >> 16).astype("<u2")
    elif dtype == "?":
        a = np.ones(nbytes, dtype="u1")
    else:
        size = int(dtype[1:])
        a = rng.integers(1, 100, size=nbytes // size).astype("<" + dtype)
    raw = a.view("u1")
    if raw.size < nbytes:
        raw = np.concatenate([raw, np.ones(nbytes - raw.size, dtype="u1")])
    return raw


def _floats(np, raw, dtype: str):
    if dtype == "bf16":
        return (raw.view("<u2").astype("<u4") << 16).view("<f4")
    return raw.view("<" + dtype).astype("<f8")


def _permuted(np, a, b) -> bool:
    return bool(np.array_equal(np.sort(a), np.sort(b), equal_nan=a.dtype.kind == "f"))


def _compare(np, first, now, dtype: str, rtol: dict) -> dict | None:
    """None when identical; else how many elements differ, the largest relative difference (None:
    integers, compared exactly) and whether it is beyond the dtype's tolerance."""
    if np.array_equal(first, now):
        return None
    if dtype not in rtol:
        dt = "<" + dtype if dtype[:1] in "iu" else "u1"
        x, y = first.view(dt), now.view(dt)
        permuted = dtype[:1] in "iu" and _permuted(np, x, y)  # not for raw bytes of unknown elements
        return {"max_rel": None, "elements": int(np.count_nonzero(x != y)), "beyond": not permuted,
                "permuted": permuted}
    a, b = _floats(np, first, dtype), _floats(np, now, dtype)
    if _permuted(np, a, b):  # the same values in another order: slots handed out by atomics
        return {"max_rel": None, "elements": int(np.count_nonzero(a != b)), "beyond": False, "permuted": True}
    with np.errstate(invalid="ignore", over="ignore"):
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        rel = np.abs(a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), np.finfo("f8").tiny)
    rel = np.where(same, 0.0, np.nan_to_num(rel, nan=np.inf))
    worst = float(rel.max())
    return {"max_rel": worst, "elements": int(np.count_nonzero(~same)), "beyond": worst > rtol[dtype]}


def _scalar(np, dtype: str, value):
    if dtype == "bf16":
        f = np.array([value], dtype="<f4").view("<u4")[0] >> 16
        return np.uint16(f)
    if dtype == "?":
        return np.bool_(bool(value))
    return np.dtype("<" + dtype).type(value)


def _record(np, compare, args, first, now, rtol) -> None:
    for c, a, h0, h1 in zip(compare, args, first, now):
        if c is None:
            continue
        d = _compare(np, h0, h1, a["dtype"], rtol)
        if d is None:
            continue
        c["runs_differ"] += 1
        c["runs_beyond"] += int(d["beyond"])
        c["runs_permuted"] = c.get("runs_permuted", 0) + int(d.get("permuted", False))
        c["elements"] = max(c["elements"], d["elements"])
        if d["max_rel"] is not None:
            c["max_rel"] = max(c["max_rel"] or 0.0, d["max_rel"])


def _struct(np, a, bufs):
    """A struct passed by value: a NumPy array of one element whose dtype has the C layout (CuPy
    passes such an array's bytes as the argument); pointer fields hold their buffer's address."""
    names, formats, offsets, values = [], [], [], []
    for f in a["fields"]:
        names.append(f["name"])
        offsets.append(int(f["offset"]))
        if "buffer" in f:
            formats.append("<u8")
            values.append(int(bufs[f["buffer"]].data.ptr))
            continue
        one = "<u2" if f["dtype"] == "bf16" else "?" if f["dtype"] == "?" else "<" + f["dtype"]
        count = int(f.get("count") or 1)
        formats.append(one if count == 1 else (one, (count,)))
        values.append(_scalar(np, f["dtype"], f["value"]))
    dtype = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": int(a["nbytes"])})
    value = np.zeros(1, dtype=dtype)
    for name, v in zip(names, values):
        value[name] = v
    return value


def _arguments(np, plan, bufs, init) -> list:
    """The launch's arguments, every buffer reset to the initial data (a struct's buffers too,
    which are no arguments of their own)."""
    args = []
    for a, b, h in zip(plan["args"], bufs, init):
        if a.get("same_as") is not None:  # the launch passes one buffer for two parameters
            args.append(bufs[a["same_as"]])
        elif a["kind"] == "buffer":
            b.set(h)
            if a.get("field_of") is None:
                args.append(b)
        elif a["kind"] == "struct":
            args.append(_struct(np, a, bufs))
        else:
            args.append(_scalar(np, a["dtype"], a["value"]))
    return args


def _build(cupy, plan, code: str, host_code: str | None = None):
    """The module NVRTC makes of `code` with the plan's options, and the plan's kernel in it. Where
    NVRTC cannot compile it and the plan names nvcc, nvcc builds `host_code` (the same lines with
    host code kept) as the user's build would (cudalint.gpu.nvcc_build)."""
    try:
        mod = cupy.RawModule(code=code, options=tuple(plan["options"]), name_expressions=plan["name_expressions"])
        return mod, mod.get_function(plan["kernel"])
    except (cupy.cuda.compiler.CompileException, cupy.cuda.driver.CUDADriverError) as nvrtc_error:
        # NVRTC rejects the code, or the driver the PTX NVRTC made of it (CUDA_ERROR_INVALID_PTX)
        if not (plan.get("nvcc") and host_code):
            raise
        return _build_with_nvcc(cupy, plan, host_code, nvrtc_error)


def _build_with_nvcc(cupy, plan, code: str, nvrtc_error):
    import tempfile

    import nvcc_build as nb  # a sibling module: this file runs by path
    arch = "".join(str(x) for x in cupy.cuda.Device().compute_capability)
    with tempfile.TemporaryDirectory(prefix="cudalint-nvcc-") as wd:
        ptx, log = nb.build_ptx(plan["nvcc"], code, plan["options"], arch, wd)
        if ptx is None:
            raise RuntimeError(f"NVRTC: {nvrtc_error}\nnvcc: {log}")
        with open(ptx, encoding="utf-8", errors="replace") as fh:
            names = nb.entries(fh.read())
        entry = nb.entry_for(plan["kernel"], names, nb.demangle(names, plan["nvcc"]), len(plan["args"]))
        if entry is None:
            raise RuntimeError(f"nvcc built the file, but no kernel entry of it is `{plan['kernel']}` ({', '.join(names[:8])})")
        mod = cupy.RawModule(path=ptx)
        fn = mod.get_function(entry)  # loads the module while the file exists
    return mod, fn


def _variant(cupy, np, plan, bufs, init, first, shared: int, rtol: dict) -> dict:
    """The kernel with its racy read-modify-write made atomic, run once from the same inputs:
    per buffer, how far its result is from the first run's (None: identical)."""
    try:
        _mod, fn = _build(cupy, plan, plan["variant_source"], plan.get("host_variant_source"))
    except Exception as exc:
        return {"compiled": False, "log": str(exc)[-1000:]}
    try:  # the variant's failure must not spoil the differential runs' results
        if shared > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = shared
        fn(tuple(plan["grid"]), tuple(plan["block"]), tuple(_arguments(np, plan, bufs, init)), shared_mem=shared)
        cupy.cuda.runtime.deviceSynchronize()
        now = [b.get() if b is not None else None for b in bufs]
    except Exception as exc:
        return {"compiled": True, "error": str(exc)[-1000:]}
    return {"compiled": True, "buffers": [None if h0 is None else _compare(np, h0, h1, a["dtype"], rtol)
                                          for a, h0, h1 in zip(plan["args"], first, now)]}


def _arrivals(cupy, np, mod, plan) -> list:
    """Per counted barrier line (``arrivals`` in the plan, see plan.arrival_variant): how many
    blocks have threads that got there different numbers of times, and the first such block."""
    grid, block = plan["grid"], plan["block"]
    blocks, threads = grid[0] * grid[1] * grid[2], block[0] * block[1] * block[2]
    slots = int(plan["arrivals"]["slots"])
    counts = cupy.ndarray((slots,), dtype=cupy.uint32, memptr=mod.get_global("cudalint_arrivals")).get()
    out = []
    for k, line in enumerate(plan["arrivals"]["lines"]):
        if (k + 1) * blocks * threads > slots:
            break
        per = counts[k * blocks * threads:(k + 1) * blocks * threads].reshape(blocks, threads)
        uneven = np.nonzero(per.min(axis=1) != per.max(axis=1))[0]
        row = {"line": line, "blocks": blocks, "uneven_blocks": int(uneven.size), "arrivals": int(per.sum())}
        if uneven.size:
            b = int(uneven[0])
            values, n = np.unique(per[b], return_counts=True)
            row["example"] = {"block": [b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1])],
                              "threads_by_count": {str(int(v)): int(c) for v, c in zip(values, n)}}
        out.append(row)
    return out


def _extent(np, addr, block):
    """Per distinct address: (address, lowest block, highest block) that touched it."""
    if not addr.size:
        return addr, block, block
    order = np.lexsort((block, addr))
    addr, block = addr[order], block[order]
    first = np.r_[True, addr[1:] != addr[:-1]]
    last = np.r_[addr[1:] != addr[:-1], True]
    return addr[first], block[first], block[last]


def _collision(np, addr, site, block, p: int, q: int):
    """(addresses two different blocks touched through sites p and q, one of them, its blocks).
    `addr` may be any per-record key and `block` any per-record group: same-block races ask for
    two warps at one (address, block, barrier epoch)."""
    ua, lo_a, hi_a = _extent(np, addr[site == p], block[site == p])
    if p == q:
        both = np.nonzero(lo_a != hi_a)[0]
        return (int(both.size), int(ua[both[0]]), int(lo_a[both[0]]), int(hi_a[both[0]])) if both.size else None
    ub, lo_b, hi_b = _extent(np, addr[site == q], block[site == q])
    _, ia, ib = np.intersect1d(ua, ub, assume_unique=True, return_indices=True)
    one = (lo_a[ia] == hi_a[ia]) & (hi_a[ia] == lo_b[ib]) & (lo_b[ib] == hi_b[ib])
    cross = np.nonzero(~one)[0]
    if not cross.size:
        return None
    i, j = ia[cross[0]], ib[cross[0]]
    # not one block: either a's lowest differs from b's highest, or a's highest from b's lowest
    a_blk, b_blk = (lo_a[i], hi_b[j]) if lo_a[i] != hi_b[j] else (hi_a[i], lo_b[j])
    return int(cross.size), int(ua[i]), int(a_blk), int(b_blk)


UNKNOWN_EPOCH = 0xFFF  # the thread's barrier count was not kept (cudalint.gpu.access_log)


def _unpack(np, raw):
    """Per record: address, site, barrier epoch, shared memory or not, thread, block (the layout
    of access_log._LOG)."""
    addr, meta = raw[:, 0], raw[:, 1]
    field = lambda shift, bits: ((meta >> np.uint64(shift)) & np.uint64((1 << bits) - 1)).astype(np.int64)
    return addr, field(56, 8), field(44, 12), field(43, 1) == 1, field(32, 11), field(0, 32)


def _by_unit(np, widths, shifts, addr, site, *rest):
    """The records with addresses in units of the narrowest logged access (and field), one record
    per unit a wider access covers, each moved to the field it touches: a 4-byte read and a 1-byte
    write of its third byte then meet."""
    if not widths or not addr.size or (len(set(widths)) == 1 and not any(shifts or ())):
        return (addr, site, *rest)
    unit = math.gcd(*widths, *(shifts or ()))
    addr = addr + np.asarray(shifts or [0] * len(widths), dtype=np.uint64)[site]
    per = np.maximum(np.asarray(widths, dtype=np.int64)[site] // unit, 1)
    rows = np.repeat(np.arange(addr.size), per)
    step = np.arange(rows.size) - np.repeat(np.cumsum(per) - per, per)
    units = (addr[rows] // np.uint64(unit)) + step.astype(np.uint64)
    return (units * np.uint64(unit), site[rows], *(f[rows] for f in rest))


def _same_block(np, addr, site, epoch, thread, block, p: int, q: int):
    """Like _collision for two warps of one block between the same two barriers: (pairs found,
    address, (block, thread), (block, thread))."""
    keep = (epoch != UNKNOWN_EPOCH) & ((site == p) | (site == q))
    if not keep.any():
        return None
    rows = np.stack([addr[keep].astype(np.int64), block[keep], epoch[keep]], axis=1)
    _, key = np.unique(rows, axis=0, return_inverse=True)
    key, s, warp, th = key.reshape(-1), site[keep], thread[keep] // 32, thread[keep]
    hit = _collision(np, key, s, warp, p, q)
    if hit is None:
        return None
    found, k, w_a, w_b = hit
    pick = lambda sv, w: int(np.nonzero((key == k) & (s == sv) & (warp == w))[0][0])
    a, b = pick(p, w_a), pick(q, w_b)
    blk = int(block[keep][a])
    return found, int(addr[keep][a]), [blk, int(th[a])], [blk, int(th[b])]


def _access_log(cupy, np, mod, plan, bufs) -> dict:
    """Per racing pair of logged sites (``access_log`` in the plan; cudalint.gpu.access_log): how
    many addresses threads of two different blocks touched through it (or, with ``same_block``,
    two warps of one block with no barrier between), with one example."""
    spec = plan["access_log"]
    slots = int(spec["slots"])
    count = int(cupy.ndarray((1,), dtype=cupy.uint64, memptr=mod.get_global("cudalint_log_count")).get()[0])
    n = min(count, slots)
    log = cupy.ndarray((2 * slots,), dtype=cupy.uint64, memptr=mod.get_global("cudalint_log"))
    addr, site, epoch, shared, thread, block = _by_unit(np, spec.get("widths"), spec.get("shifts"),
                                                        *_unpack(np, log[:2 * n].get().reshape(n, 2)))
    spans = [(a["name"], int(b.data.ptr), int(a["nbytes"])) for a, b in zip(plan["args"], bufs) if b is not None]
    out = {"records": n, "dropped": count - n, "pairs": []}
    g = ~shared  # one shared address in two blocks is two places
    for p, q in spec["pairs"]:
        hit = _collision(np, addr[g], site[g], block[g], p, q)
        if hit is not None:
            found, address, a_blk, b_blk = hit

            def who(s, blk):
                k = np.nonzero(g & (addr == address) & (site == s) & (block == blk))[0][0]
                return [int(block[k]), int(thread[k])]
            example = {"first": who(p, a_blk), "second": who(q, b_blk)}
        elif spec.get("same_block") and (hit := _same_block(np, addr, site, epoch, thread, block, p, q)):
            found, address, first, second = hit
            example = {"first": first, "second": second, "same_block": True}
        else:
            continue
        for name, base, size in spans:
            if base <= address < base + size:
                example.update(buffer=name, offset=address - base)
        out["pairs"].append({"sites": [p, q], "addresses": found, "example": example})
    return out


def main(argv) -> int:
    plan_path, out_path = argv[1], argv[2]
    with open(plan_path) as fh:
        plan = json.load(fh)
    res = {"compiled": False, "error": None, "error_text": None, "digests": [], "runs": 0,
           "compile_log": "", "seconds": {}}

    def write():
        with open(out_path, "w") as fh:
            json.dump(res, fh)

    t0 = time.monotonic()
    try:
        import cupy
        import numpy as np
    except Exception as exc:  # pragma: no cover - checked by the runner first
        res["error"], res["error_text"] = "import", repr(exc)
        write()
        return 3
    try:
        pool = cupy.get_default_memory_pool()
        pool.set_limit(size=int(plan.get("mem_limit") or 0))
        mod, fn = _build(cupy, plan, plan["source"], plan.get("host_source"))
        res["compiled"] = True
    except Exception as exc:
        res["error"] = "compile"
        res["compile_log"] = str(exc)[-4000:]
        write()
        return 4
    res["seconds"]["compile"] = round(time.monotonic() - t0, 3)
    try:
        shared = int(plan.get("shared_bytes") or 0)
        if shared > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = shared
        rng = np.random.default_rng(int(plan.get("seed", 12345)))
        init = []
        for a in plan["args"]:
            if a["kind"] == "buffer":
                init.append(_fill(np, rng, a["dtype"], int(a["nbytes"]), a.get("fill", "random"),
                                  int(a.get("fill_range") or 8)))
            else:
                init.append(None)
        bufs = [cupy.empty(int(a["nbytes"]), dtype=cupy.uint8) if a["kind"] == "buffer" else None
                for a in plan["args"]]
        diff = plan.get("diff") or {}
        first, t_start = None, time.monotonic()
        res["compare"] = [None if b is None else {"runs_differ": 0, "runs_beyond": 0, "max_rel": None, "elements": 0}
                          for b in bufs] if diff else None
        for r in range(int(diff.get("max_runs") or plan.get("runs", 1))):
            args = _arguments(np, plan, bufs, init)
            cupy.cuda.runtime.deviceSynchronize()
            t1 = time.monotonic()
            fn(tuple(plan["grid"]), tuple(plan["block"]), tuple(args), shared_mem=shared)
            cupy.cuda.runtime.deviceSynchronize()
            res["seconds"].setdefault("kernel", []).append(round(time.monotonic() - t1, 6))
            now = [b.get() if b is not None else None for b in bufs]
            res["runs"] = r + 1
            if first is None:
                first = now
                res["digests"].append([hashlib.sha1(h.tobytes()).hexdigest()[:16] if h is not None else None
                                       for h in now])
            elif diff:
                _record(np, res["compare"], plan["args"], first, now, diff["rtol"])
            write()
            if diff and r + 1 >= 2 and any(c and c["runs_beyond"] for c in res["compare"]):
                break  # a difference beyond rounding: the race is shown
            if diff and r + 1 >= int(diff.get("min_runs", 2)) and time.monotonic() - t_start > float(diff.get("seconds", 10)):
                break
        if plan.get("arrivals") and first is not None:
            res["arrivals"] = _arrivals(cupy, np, mod, plan)
        if plan.get("access_log") and first is not None:
            res["access_log"] = _access_log(cupy, np, mod, plan, bufs)
        if plan.get("variant_source") and first is not None:
            res["variant"] = _variant(cupy, np, plan, bufs, init, first, shared, diff.get("rtol") or {})
    except Exception as exc:
        text = str(exc)
        name = None
        for word in text.replace(":", " ").split():
            if word.startswith(("cudaError", "CUDA_ERROR")):
                name = word
                break
        res["error"] = name or type(exc).__name__
        res["error_text"] = text[-2000:]
        write()
        return 5
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
