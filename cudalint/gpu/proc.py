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


def run_cmd(tool: str, cmd: list, timeout: float, env: dict | None = None, cwd: str | None = None) -> Run:
    """Run in a new process group; on timeout kill the whole group."""
    r = Run(tool, [str(c) for c in cmd])
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(r.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", start_new_session=True, env=env, cwd=cwd)
    except OSError as exc:
        r.output = f"could not start: {exc}"
        return r
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        r.timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            out, _ = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            out = ""
    r.rc = p.returncode
    r.seconds = time.monotonic() - t0
    r.output = out or ""
    return r


