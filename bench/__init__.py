"""The SupportPilot Evals benchmark (``nox -s bench``); see ``bench/README.md``."""
