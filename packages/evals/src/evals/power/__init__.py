"""``evals power``: how many bugs of a project's own code its own gate would block.

cosmic-ray (the optional extra ``supportpilot-evals[power]``) mutates the source that
``[tool.evals.power]`` names, one small change at a time, and each mutant is judged by the
project's own gate command in a copy of the project. The figures are honest about what
they count: annotation-only and invalid-Python mutants are dropped before sampling,
crashes and timeouts are never counted as killed, the raw rate (every survivor counted)
stands beside the rate adjusted for the mutants judged equivalent, and a figure meant for
reporting comes from a **held-out** sample: a fresh seed, drawn only from mutants no
earlier sample of the ledger (``power/samples.json``) has seen.

Only :mod:`evals.power.session` and :mod:`evals.power.run` import cosmic-ray; everything
else here (the mutants' identity, the sample and its ledger, the equivalents and their
premises, the report) is plain Python the tests drive with plain values.
"""
