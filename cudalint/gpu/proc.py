"""Processes for ``--confirm``: finding the NVIDIA tools, and running a command in its own
process group under a time limit (a hung kernel or program is killed with its whole group)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path


def find_tool(name: str) -> str | None:
    p = shutil.which(name)
    if p:
        return p
    roots = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    for r in roots:
        if r and (Path(r) / "bin" / name).is_file():
            return str(Path(r) / "bin" / name)
    for c in sorted(Path("/opt/nvidia").glob(f"nsight-compute/*/{name}")) if Path("/opt/nvidia").is_dir() else []:
        return str(c)
    return None


def tools() -> dict:
    return {n: find_tool(n) for n in ("compute-sanitizer", "ncu", "nvcc")}


@dataclass
class Run:
    tool: str
    cmd: list
    rc: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    output: str = ""
    result: dict = field(default_factory=dict)  # the child's JSON (kernel runs)


@dataclass(frozen=True)
class Finished:
    rc: int | None  # None: did not start, or killed before it exited
    out: str
    err: str  # "" when stderr went into out
    timed_out: bool
    seconds: float
    start_error: str | None = None  # "could not start: …"


def communicate(cmd: list, timeout: float, env: dict | None = None, cwd=None, merge: bool = True,
                grace: float = 20) -> Finished:
    """Run cmd in a new process group; on timeout kill the whole group (and wait `grace` seconds
    for its output). `merge`: stderr into stdout."""
    t0 = time.monotonic()
    try:
        p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT if merge else subprocess.PIPE, text=True,
                             errors="replace", start_new_session=True, env=env, cwd=cwd)
    except OSError as exc:
        return Finished(None, "", "", False, time.monotonic() - t0, f"could not start: {exc}")
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            out, err = p.communicate(timeout=grace)
        except subprocess.TimeoutExpired:
            out, err = "", ""
    return Finished(p.returncode, out or "", err or "", timed_out, time.monotonic() - t0)


def run_cmd(tool: str, cmd: list, timeout: float, env: dict | None = None, cwd: str | None = None) -> Run:
    """communicate(), stderr merged into the Run's output."""
    r = Run(tool, [str(c) for c in cmd])
    done = communicate(r.cmd, timeout, env=env, cwd=cwd)
    if done.start_error:
        r.output = done.start_error
        return r
    r.rc, r.timed_out, r.seconds, r.output = done.rc, done.timed_out, done.seconds, done.out
    return r
