"""The repository's own tooling, run by nox: the mutation check of the evaluation code
(:mod:`devtools.mutate`), the fuzzing of case files (:mod:`devtools.fuzz_cases`), the
reliability sessions (:mod:`devtools.reliability`) and the pictures of the HTML pages
(:mod:`devtools.screenshots`). Not shipped to users: each works on this repository's
checkout (:data:`REPO_ROOT`) and runs its tests in copies of it."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[4]
"""The repository's root (``packages/devtools/src/devtools/`` is four folders down)."""
