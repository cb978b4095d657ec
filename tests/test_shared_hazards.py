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


def _values_job(kernel_lines, reads_after_own_store, values_output, analysis):
    job = _job(**{shared_hazards.VALUES: _run("v", values_output)})
    job.path = "same_value.cu"
    job.runs["racecheck"] = _run("racecheck", analysis)
    job.reads_after_own_store = reads_after_own_store
    job.lines = {"data-race": set(kernel_lines)}
    return job


AGREE = (DATA / "racecheck_hazard_same_value_agree.txt").read_text()
AGREE_ANALYSIS = (DATA / "racecheck_analysis_same_value_agree.txt").read_text()


def test_hazard_mode_reports_carry_each_bytes_values():
    hz = ev.parse_racecheck(HAZARDS)
    assert len(hz) == 40 and (hz[0].hazard_type, hz[0].values) == ("WAR", ("0", "192"))
    assert hz[1].values == ("0", "0")  # the high bytes of a small int agree even where the race is real
    agree = ev.parse_racecheck(AGREE)
    assert {h.hazard_type for h in agree} == {"RAW"} and agree[0].values == ("8", None)
    differ = ev.parse_racecheck((DATA / "racecheck_hazard_same_value_differ.txt").read_text())
    waw = [h for h in differ if h.hazard_type == "WAW"]
    assert len(waw) == 126 and waw[0].values == ("32", "33")
    # analysis mode: one store racing with two accesses, an "and ..." line each
    both = ev.parse_racecheck((DATA / "racecheck_analysis_same_value_differ.txt").read_text())
    assert [(h.lines, h.count) for h in both] == [((18, 18), 126), ((18, 19), 8)]


def test_reads_of_a_pointer_every_thread_stores_are_not_a_reproduced_race():
    """same_value.cu's `agree` (H200): every thread stores `tile` to `row` (line 10) and reads it
    back (line 11); hazard mode shows reads after stores only, no store disagreeing with another."""
    job = _values_job({10, 11}, {11}, AGREE, AGREE_ANALYSIS)
    for line in (10, 11):
        c = judges.judge_race(_race(line, "same_value.cu"), job)
        assert c.status == "not-reproduced", c
        assert c.detail.startswith("racecheck reports hazards at line %d (error: race between Write at line 10 / "
                                   "Read at line 11 [16 hazards]" % line), c
        assert "all 16 report(s) at lines 10, 11 are reads of a value every thread stores" in c.detail, c


def test_stores_that_differ_stay_a_race():
    """`differ`: each thread stores its own index: 126 WAW reports (32 -> 33, ...)."""
    job = _values_job({18, 19}, {19}, (DATA / "racecheck_hazard_same_value_differ.txt").read_text(),
                      (DATA / "racecheck_analysis_same_value_differ.txt").read_text())
    for line in (18, 19):
        c = judges.judge_race(_race(line, "same_value.cu"), job)
        assert (c.status, c.method) == ("confirmed", "compute-sanitizer racecheck"), c


@pytest.mark.parametrize("why", ["reader did not store first", "cut", "killed"])
def test_reads_of_one_value_count_only_when_the_whole_story_is_shown(why):
    job = _values_job({10, 11}, set() if why.startswith("reader") else {11},
                      (DATA / "racecheck_hazard_same_value_limit5.txt").read_text() if why == "cut" else AGREE,
                      AGREE_ANALYSIS)
    job.runs[shared_hazards.VALUES].timed_out = why == "killed"
    assert judges.judge_race(_race(11, "same_value.cu"), job).status == "confirmed"


def test_a_real_race_stays_confirmed():
    """race_probe.cu (H200, 40 reports shown as if nothing were cut): a store after a read that
    changes the byte (0 -> 192)."""
    complete = re.sub(r"RACECHECK SUMMARY: .*", "RACECHECK SUMMARY: 40 hazards displayed (40 errors, 0 warnings)",
                      HAZARDS)
    c = judges.judge_race(_race(10), _job(**{shared_hazards.VALUES: _run("v", complete)}))
    assert (c.status, c.method) == ("confirmed", "compute-sanitizer racecheck"), c


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
    assert job.reads_after_own_store == {10}  # `row[threadIdx.x]` reads `row`, which the thread stored at line 9


def test_a_line_that_also_reads_a_neighbours_word_is_not_a_read_of_ones_own_store():
    """`s[tid] += s[tid + 16]` reads the word the thread stored a line before and its neighbour's."""
    path = str(ROOT / "fixtures/races/warp_sync_reduce.cu")
    f = Finding("CUDA202", "warp-race", "data-race", "error", path, 14, 1, 14, 1, "m", kernel="reduce_last_warp_unsynced")
    (job,) = plan.plan_kernel_jobs(path, [f], [0], Settings())
    assert job.reads_after_own_store == set()


def test_child_fills_distinct_values_within_the_range():
    np = pytest.importorskip("numpy")
    vals = gpu_child()._fill(np, np.random.default_rng(1), "u4", 4096, "distinct", 512).view("<u4")
    assert list(vals[:3]) == [0, 1, 2] and vals.max() == 511 and len(set(vals[:512])) == 512
