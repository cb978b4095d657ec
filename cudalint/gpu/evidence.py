"""Parsers for the text that NVIDIA's GPU tools print, by one name (the modules below hold them).

Pure Python, standard library only, no GPU needed: these functions read the
output of ``compute-sanitizer`` (racecheck, synccheck, memcheck, leak-check)
and of Nsight Compute (``ncu``) and return frozen dataclasses.  The GPU
confirmation script (``scripts/gpu/confirm_fixtures.py``) runs the tools on
the device machine and uses these parsers to decide whether the evidence
touches a fixture's marked lines; the unit tests run the parsers on real
outputs captured on an H200 (``tests/data/gpu/``).

Every compute-sanitizer line starts with the prefix ``========= `` (the
parsers strip it, and also accept text without it).  Source locations are
only present when the program was built with ``-lineinfo`` (or ``-G``);
without it a location is just ``function+offset``.

Modules: cudalint.gpu.tool_output (lines, records, locations), .sanitizer_reports (racecheck,
synccheck, memcheck), .host_reports (backtraces, API errors, leaks, summaries), .ncu_metrics
(kernel-level bank-conflict counters) and .source (fixture markers, function spans).
"""

from __future__ import annotations

from .host_reports import (ApiError, HostFrame, Leak, LeakReport, ToolSummary, parse_api_errors, parse_error_names,
                           parse_leakcheck, parse_summaries)
from .ncu_metrics import NCU_BANK_METRICS, BankConflictStats, parse_ncu_bank_conflicts, parse_number
from .sanitizer_reports import MemAccessError, RaceHazard, SyncHazard, parse_memcheck, parse_racecheck, parse_synccheck
from .source import (FunctionSpan, Marker, blank_comments_strings, enclosing_function, function_spans,
                     read_marker_details, read_markers)
from .tool_output import SourceLocation, kernel_basename, parse_location, strip_prefix

__all__ = [
    "SourceLocation",
    "RaceHazard",
    "SyncHazard",
    "MemAccessError",
    "ApiError",
    "HostFrame",
    "Leak",
    "LeakReport",
    "ToolSummary",
    "BankConflictStats",
    "Marker",
    "FunctionSpan",
    "strip_prefix",
    "kernel_basename",
    "parse_location",
    "parse_racecheck",
    "parse_synccheck",
    "parse_memcheck",
    "parse_api_errors",
    "parse_leakcheck",
    "parse_error_names",
    "parse_summaries",
    "parse_ncu_bank_conflicts",
    "read_markers",
    "read_marker_details",
    "function_spans",
    "enclosing_function",
    "blank_comments_strings",
    "NCU_BANK_METRICS",
    "parse_number",
]

