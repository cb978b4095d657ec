"""Unused suppression (CUDA901).

## What it does
Reports a suppression comment — `// cudalint: ignore[...]`, `disable[...]`/`enable[...]`,
`file-ignore[...]`, or a `NOLINT`/`NOLINTNEXTLINE`/`NOLINTBEGIN` naming a `cudalint-…` check —
that suppressed no finding in this run, and an `enable`/`NOLINTEND` that closes no open range.

This rule's `check` yields nothing: its findings are produced by the engine's suppression pass
(`cudalint.suppress`), which runs after every other rule, because only then is it known which
suppressions were used. It reports a suppression only when every rule the comment names ran
(so `--select CUDA1` does not make a `ignore[CUDA2]` look unused), and never reports a bare
`// NOLINT` or a NOLINT list without `cudalint-` names, which may be there for clang-tidy.
Turn it off with `--ignore CUDA901`; `--no-suppressions` ignores every suppression (for audits).

## Why is this bad?
A suppression outlives the bug it was written for: the code is fixed or moved, the comment stays,
and it silently hides the next real race or misaligned load on that line. Stale suppressions also
mislead reviewers into thinking a line is known to be dangerous.

## Example
```cuda
__global__ void scale(const float4* in, float4* out) {
  out[threadIdx.x] = in[threadIdx.x];  // cudalint: ignore[CUDA101] was misaligned once
}
```

## Use instead
Delete the comment, or narrow it to the rule that still fires:
```cuda
__global__ void scale(const float4* in, float4* out) {
  out[threadIdx.x] = in[threadIdx.x];
}
```

## GPU confirmation
Not applicable: this is a finding about comments, not about what the kernel does on a GPU.
"""

from __future__ import annotations

from cudalint.registry import make_rule


def check(ctx):
    """Yields nothing: the suppression pass after all rules produces CUDA901 findings."""
    return ()


RULE = make_rule(__doc__, code="CUDA901", name="unused-suppression", category="suppression",
                 severity="warning", summary="Suppression comment that suppresses nothing",
                 check=check, precision="very-high", tags=("maintainability", "suppression"))
