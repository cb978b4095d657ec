"""Everything a run is configured with, from the command line and config files."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Settings:
    cuda_mode: str = "auto"  # auto | shim | toolkit
    cuda_path: str | None = None
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    std: str = "c++17"
    extra_args: tuple[str, ...] = ()
    compile_commands_dir: str | None = None
    extensions: tuple[str, ...] = (".cu", ".cuh")
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    block_dims: dict = field(default_factory=dict)  # kernel name (or "*": every kernel) -> (x, y, z)
    grid_dims: dict = field(default_factory=dict)  # likewise for gridDim
    external_launches: tuple = ()  # LaunchFacts from other files of the run (cudalint.launch_index)
    launches_only: bool = False  # a file beside the run, parsed for its launches alone: no rule runs
    solver_timeout_ms: int = 2000
    file_budget_s: float = 20.0
    min_bank_conflict_degree: int = 2
    severities: dict = field(default_factory=dict)  # code -> severity
    verbose: bool = False
    pch: bool = True  # parse with a precompiled prelude of the CUDA and C++ headers
    host_leaks_at_exit: bool = True  # CUDA401 at main's returns (memory that lives until exit)
    # --confirm's host programs: (root, glob relative to root, command-line arguments); the last match wins
    confirm_args: tuple = ()

    def __hash__(self):
        return hash(repr(self))
