"""cudalint's rules: one module per rule, each defining `RULE` (a `cudalint.registry.Rule`).

A rule module imports its analyses (and the model's classes) inside `check` and its helpers,
not at the top: `cudalint rules`, `--select` and the reporters read every rule's metadata, and a
run served from the result cache must not pay for z3 and the analyses (tests/test_rules_meta.py).
"""
