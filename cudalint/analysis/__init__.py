"""Analyses over the model: geometry, the z3 encoding, barrier intervals, thread pairs."""
