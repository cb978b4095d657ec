"""cudalint: a static race, barrier, alignment, bank-conflict and leak linter for CUDA."""

__version__ = "0.1.0"
