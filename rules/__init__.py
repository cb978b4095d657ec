"""cudalint's rules: one module per rule, each defining `RULE` (a `cudalint.registry.Rule`)."""
