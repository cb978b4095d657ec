"""GPU evidence: parsers for compute-sanitizer / ncu output (see ``evidence``).

The confirmation runner itself lives in ``scripts/gpu/confirm_fixtures.py``
and runs on a machine with a GPU; this package needs only the standard
library.
"""

from .evidence import (  # noqa: F401
    BankConflictStats,
    LeakReport,
    MemAccessError,
    RaceHazard,
    SyncHazard,
    enclosing_function,
    function_spans,
    kernel_basename,
    parse_api_errors,
    parse_error_names,
    parse_leakcheck,
    parse_memcheck,
    parse_ncu_bank_conflicts,
    parse_racecheck,
    parse_synccheck,
    read_marker_details,
    read_markers,
)
