"""racecheck hazards that are no race a user would fix (cudalint.gpu.shared_hazards): stores that
agree, and positions that repeat only in the runner's own data. No GPU: real racecheck output
(tests/data/gpu/, captured on an H200) and plans built from the fixtures' models."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudalint.findings import Finding
from cudalint.gpu import evidence as ev
from cudalint.gpu import judges, launch_shape, plan, shared_hazards
from cudalint.gpu.arguments import Arg, ArgPlan
from cudalint.gpu.proc import Run
from cudalint.settings import Settings
from workflow_helpers import gpu_child

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests/data/gpu"
HAZARDS = (DATA / "racecheck_hazard_race_probe.txt").read_text()  # 40 of 1152 reports, limit 40
ANALYSIS = (DATA / "racecheck_race_probe.txt").read_text()  # shift_race: race_probe.cu lines 9 and 10


def _race(line, path="race_probe.cu"):
    return Finding("CUDA201", "shared-race", "data-race", "error", path, line, 1, line, 1, "shared race", kernel="k")


def _run(tool, output="", result=None, timed_out=False):
    return Run(tool, [], rc=0, timed_out=timed_out, output=output,
               result=result if result is not None else {"runs": 1, "digests": [["a"]]})


def _job(**runs):
    job = plan.KernelJob("race_probe.cu", "k", [0], plan={"args": []},
                         geometry=launch_shape.LaunchShape((1, 1, 1), (256, 1, 1), 0, "test"))
    job.runs = {"plain": _run("plain"), "racecheck": _run("racecheck", ANALYSIS), **runs}
    job.lines = {"data-race": {10}}
    return job


def _complete(text: str) -> str:
    """The capture as racecheck prints it when nothing is cut (all 40 reports shown)."""
    return re.sub(r"RACECHECK SUMMARY: .*", "RACECHECK SUMMARY: 40 hazards displayed (40 errors, 0 warnings)", text)


def test_hazard_mode_reports_carry_each_bytes_values():
    hz = ev.parse_racecheck(HAZARDS)
    assert len(hz) == 40 and (hz[0].hazard_type, hz[0].values) == ("WAR", ("0", "192"))
    assert hz[1].values == ("0", "0")  # the high bytes of a small int agree even where the race is real
    assert all(h.lines == (10, 9) for h in hz)


def test_a_real_race_stays_confirmed():
    """Some bytes change (0 -> 192): what the reader gets depends on the order."""
    c = judges.judge_race(_race(10), _job(**{shared_hazards.VALUES: _run("v", _complete(HAZARDS))}))
    assert (c.status, c.method) == ("confirmed", "compute-sanitizer racecheck"), c


def test_stores_that_agree_in_every_byte_are_not_a_reproduced_race():
    agree = re.sub(r"Incoming Value : \d+", "Incoming Value : 0", _complete(HAZARDS))
    c = judges.judge_race(_race(10), _job(**{shared_hazards.VALUES: _run("v", agree)}))
    assert c.status == "not-reproduced", c
    assert "every one of the 40 per-byte report(s) at line 10 shows a write storing the value the byte already held" \
        in c.detail and "[1024 hazards]" in c.detail, c


@pytest.mark.parametrize("why", ["cut", "killed", "no values"])
def test_stores_that_agree_only_as_far_as_shown_leave_the_hazard_confirmed(why):
    agree = re.sub(r"Incoming Value : \d+", "Incoming Value : 0", HAZARDS if why == "cut" else _complete(HAZARDS))
    if why == "no values":
        agree = re.sub(r".*Current Value.*\n", "", agree)
    run = _run("v", agree, timed_out=why == "killed")
    assert judges.judge_race(_race(10), _job(**{shared_hazards.VALUES: run})).status == "confirmed"


CLEAN = "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"


def test_hazards_that_need_repeated_positions_are_not_a_reproduced_race():
    job = _job(**{shared_hazards.DISTINCT: _run("d", CLEAN)})
    job.data_positions = {10: {"ranks"}}
    job.args = ArgPlan([Arg("ranks", "buffer", "u4", nbytes=4096)])
    c = judges.judge_race(_race(10), job)
    assert c.status == "not-reproduced", c
    assert "rerun with distinct values in `ranks` (0, 1, 2, ...;" in c.detail and "no hazard at line 10" in c.detail, c
    job.runs[shared_hazards.DISTINCT] = _run("d", ANALYSIS)  # the hazards stay: a race whatever the data
    assert judges.judge_race(_race(10), job).status == "confirmed"
    job.runs[shared_hazards.DISTINCT] = _run("d", CLEAN, result={"error": "cudaErrorIllegalAddress"})
    assert judges.judge_race(_race(10), job).status == "confirmed"  # a rerun that failed shows nothing


def test_reruns_are_planned_only_for_hazards_at_a_flagged_line():
    path = str(ROOT / "fixtures/races/benign_and_data.cu")
    f = Finding("CUDA201", "shared-race", "data-race", "error", path, 40, 1, 40, 1, "probe", kernel="place")
    (job,) = plan.plan_kernel_jobs(path, [f], [0], Settings())
    job.lines = {"data-race": {40}}
    assert job.data_positions == {40: {"ranks"}}
    at_40 = ANALYSIS.replace("race_probe.cu:9", "benign_and_data.cu:40").replace("race_probe.cu:10", "benign_and_data.cu:40")
    assert shared_hazards.follow_up_steps(job, [f], at_40) == [shared_hazards.VALUES, shared_hazards.DISTINCT]
    assert shared_hazards.follow_up_steps(job, [f], ANALYSIS) == []  # hazards elsewhere
    args = shared_hazards.with_distinct_fill(job.plan["args"], shared_hazards.distinct_buffers(job, {40}))
    assert [(a["name"], a["fill"]) for a in args if a["fill"] == "distinct"] == [("ranks", "distinct")]

    path = str(ROOT / "fixtures/races/reread_own_store.cu")
    f = Finding("CUDA201", "shared-race", "data-race", "error", path, 9, 1, 9, 1, "probe", kernel="pick_tile")
    (job,) = plan.plan_kernel_jobs(path, [f], [0], Settings())
    at_9 = ANALYSIS.replace("race_probe.cu:9", "reread_own_store.cu:9")
    assert job.data_positions == {} and shared_hazards.follow_up_steps(job, [f], at_9) == [shared_hazards.VALUES]


def test_child_fills_distinct_values_within_the_range():
    np = pytest.importorskip("numpy")
    vals = gpu_child()._fill(np, np.random.default_rng(1), "u4", 4096, "distinct", 512).view("<u4")
    assert list(vals[:3]) == [0, 1, 2] and vals.max() == 511 and len(set(vals[:512])) == 512
