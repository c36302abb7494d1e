"""Figures over graded runs: rates with Wilson intervals, pass@k and pass^k."""
