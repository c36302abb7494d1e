"""The regression gate: the baseline, the committed rules, and the verdict of a run
against them."""
