"""Files analysed in worker processes, each under a hard wall-time limit.

Neither libclang nor z3 can be interrupted from Python, and a Python loop over a huge constant
checks no clock, so the only bound that holds whatever runs is a process that is killed: a worker
that runs past its file's limit is killed and replaced, and a worker that dies (a libclang
segfault) costs its file, not the run. Workers are forked (they inherit the imported modules, so
starting one is cheap), sit in their own process group (a terminal's Ctrl-C reaches only the main
process, which kills them) and die with the main process (PR_SET_PDEATHSIG on Linux).
"""

from __future__ import annotations

import ctypes
import faulthandler
import gc
import multiprocessing as mp
import os
import signal
import sys
import time
from collections import deque
from multiprocessing.connection import wait

from cudalint.frontend.depth import RECURSION_LIMIT

# Seconds a worker may take to get ready for a file (building the precompiled prelude the first
# time) before the file's own budget starts.
PREPARE_LIMIT_S = 300.0


def hard_limit(budget_s: float) -> float:
    """Wall time after which a file's worker is killed: the soft budget, which the analyses check
    themselves and then wind down, plus a grace period for that."""
    return budget_s + min(2.0, max(0.5, budget_s / 4))


class _Worker:
    def __init__(self, ctx, serve, settings):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_main, args=(child, serve, settings, os.getpid()), daemon=True)
        self.proc.start()
        child.close()
        self.task = None  # (index, job) being analysed
        self.started = self.deadline = None

    def assign(self, index: int, job) -> None:
        self.task = (index, job)
        self.started = time.monotonic()
        self.deadline = self.started + PREPARE_LIMIT_S
        self.conn.send((index, job))

    def kill(self) -> None:
        if self.proc.is_alive():
            try:
                os.kill(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.join()
        self.conn.close()


def _main(conn, serve, settings, parent_pid) -> None:
    """A worker: do the jobs it is sent until the pipe closes."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    faulthandler.disable()  # a crash is reported once, by the main process
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    _die_with_parent()
    _collect_less()
    if os.getppid() != parent_pid:
        return
    prepare, analyze = serve
    while True:
        try:
            index, job = conn.recv()
        except (EOFError, OSError):
            return
        prepare(job, settings)
        conn.send(("start", index, None))
        conn.send(("done", index, analyze(job, settings)))


# A file's analyses make millions of short-lived objects (model nodes, z3 wrappers, path states):
# at Python's default threshold (700) the collector ran every few hundred and took 3% of a run;
# what the worker inherited (imports, the parser) lives as long as it does and is never scanned.
YOUNG_THRESHOLD = 10_000


def _collect_less() -> None:
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: an orphan still exits when its next send fails


def run(items: list[tuple[int, object]], settings, jobs: int, serve, on_result, on_lost) -> None:
    """Do (index, job) items with `jobs` workers; a job is a file's path or what else `serve`
    takes. serve = (prepare(job, settings), analyze(job, settings) -> result); on_result(index,
    result) for each job done; on_lost(index, why, seconds) for a job whose worker was killed or
    died (why: 'budget' or 'crash: ...'). Workers are killed on any exit, Ctrl-C included."""
    ctx = mp.get_context("fork")
    queue = deque(items)
    workers: list[_Worker] = []
    limit = hard_limit(settings.file_budget_s)
    try:
        while queue or any(w.task for w in workers):
            while queue:
                idle = next((w for w in workers if w.task is None), None)
                if idle is None:
                    if len(workers) >= jobs:
                        break
                    idle = _Worker(ctx, serve, settings)
                    workers.append(idle)
                idle.assign(*queue.popleft())
            busy = [w for w in workers if w.task]
            timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout))
            for w in busy:
                replaced = _step(w, ready, limit, on_result, on_lost)
                if replaced:
                    workers[workers.index(w)] = _Worker(ctx, serve, settings)
    finally:
        for w in workers:
            w.kill()


def _step(w: _Worker, ready: set, limit: float, on_result, on_lost) -> bool:
    """Read what worker w sent; True when it was lost (killed or dead) and needs replacing."""
    index = w.task[0]
    if w.conn in ready or w.proc.sentinel in ready:
        while w.task and w.conn.poll():
            try:
                what, i, result = w.conn.recv()
            except (EOFError, OSError):
                break
            if what == "start":  # ready: the file's own budget starts now
                w.started = time.monotonic()
                w.deadline = w.started + limit
            else:
                w.task, w.deadline = None, None
                on_result(i, result)
        if w.task and not w.proc.is_alive():
            w.proc.join()
            on_lost(index, f"crash: the analysis process died ({_exit_reason(w.proc.exitcode)})",
                    time.monotonic() - w.started)
            w.kill()
            return True
    if w.task and time.monotonic() >= w.deadline:
        on_lost(index, "budget", time.monotonic() - w.started)
        w.kill()
        return True
    return False


def _exit_reason(code) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"
