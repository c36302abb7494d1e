"""All automation for the SupportPilot Evals monorepo.

Every session installs from ``uv.lock`` into its own virtualenv with
``uv sync --locked`` (``UV_PROJECT_ENVIRONMENT`` pointing at the session's venv), so
what runs here is exactly what the lock says and nothing leaks between sessions.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint", "typecheck"]

ROOT = Path(__file__).parent
PACKAGES = ["domain", "tools", "agent", "evals", "judge", "fake-openai"]


def sync(session: nox.Session, *packages: str, groups: tuple[str, ...] = ()) -> None:
    """Install the named workspace members (and the given groups) from the lock."""
    args = ["uv", "sync", "--locked", "--no-default-groups", "--inexact"]
    if packages:
        for package in packages:
            args += ["--package", f"supportpilot-{package}"]
    else:
        args.append("--all-packages")
    for group in groups:
        args += ["--group", group]
    session.run_install(*args, env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location})


@nox.session
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """Run one package's tests in a venv holding only that package and its dependencies."""
    sync(session, package, groups=("test",))
    session.run("pytest", f"packages/{package}/tests", "-q", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check formatting and lint rules with ruff."""
    sync(session, groups=("lint",))
    session.run("ruff", "format", "--check", ".")
    session.run("ruff", "check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Type-check every package's src/ strictly with mypy."""
    sync(session, groups=("typecheck",))
    session.run("mypy", *[f"packages/{p}/src" for p in PACKAGES])
