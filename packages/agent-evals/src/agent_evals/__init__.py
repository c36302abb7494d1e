"""SupportPilot as a plug-in of ``evals``: the arrows point one way, ``agent`` <- here ->
``evals``, so the agent installs and runs without the evaluation system.

- :mod:`agent_evals.sut`: ``SupportPilotSUT``, the evals adapter (``[tool.evals] sut``);
- :mod:`agent_evals.record`: the run recorder (a ``Run`` from the bus log, the audit log
  and the database);
- :mod:`agent_evals.case_rules`: SupportPilot's case vocabulary (``CASE_RULES``);
- :mod:`agent_evals.checks`: SupportPilot's own checks (``no_evidence_ids``).
"""
