"""Placeholder module, filled in by its owner."""
