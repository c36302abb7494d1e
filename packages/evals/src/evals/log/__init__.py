"""The run log: every finished run on disk as it finishes (traces)."""
