"""Reporters: one module per output format, each `render(results, ctx) -> str`."""

from __future__ import annotations

import importlib

FORMATS = ("text", "json", "sarif", "github", "junit")


def reporter(name: str):
    """The `render` function of an output format."""
    if name not in FORMATS:
        raise ValueError(f"unknown output format {name!r} (choose from {', '.join(FORMATS)})")
    return importlib.import_module(f"cudalint.reporters.{name}").render
