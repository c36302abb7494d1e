"""All automation for the SupportPilot Evals monorepo.

Every session installs from ``uv.lock`` into its own virtualenv with
``uv sync --locked`` (``UV_PROJECT_ENVIRONMENT`` pointing at the session's venv), so
what runs here is exactly what the lock says and nothing leaks between sessions.
"""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint", "typecheck"]

ROOT = Path(__file__).parent
PACKAGES = ["domain", "tools", "agent", "evals", "agent-evals", "judge", "fake-openai", "devtools"]
FRAMEWORK_TESTS = "test_otel_frameworks.py"
"""The evals' tests that need the agent frameworks (and with them openai)."""


def sync(
    session: nox.Session,
    *packages: str,
    groups: tuple[str, ...] = (),
    extras: tuple[str, ...] = (),
    exact: bool = False,
) -> None:
    """Install the named workspace members (and the given groups and extras) from the lock;
    with ``exact``, remove whatever else a reused venv still holds."""
    args = ["uv", "sync", "--locked", "--no-default-groups"]
    if not exact:
        args.append("--inexact")
    if packages:
        for package in packages:
            args += ["--package", f"supportpilot-{package}"]
    else:
        args.append("--all-packages")
    for group in groups:
        args += ["--group", group]
    for extra in extras:
        args += ["--extra", extra]
    session.run_install(*args, env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location})


@nox.session
@nox.parametrize("package", [*PACKAGES, "otel-frameworks", "repo"])
def tests(session: nox.Session, package: str) -> None:
    """Run one package's tests in a venv holding only that package and its dependencies."""
    if package == "otel-frameworks":
        # OpenTelemetry in, proven with real agent frameworks (pydantic-ai, the OpenAI
        # Agents SDK): evals with its otel extra and the frameworks, which bring openai; so
        # apart from the evals' own venv, which must hold no openai.
        sync(session, "evals", "fake-openai", groups=("test", "otel-frameworks"), extras=("otel",))
        session.run("pytest", f"packages/evals/tests/{FRAMEWORK_TESTS}", "-q", *session.posargs)
        return
    if package == "repo":
        # The repository's own automation (workflow, sessions, Makefile) and its use of
        # `evals power` (tests/test_power.py: the configuration, the ledger, the equivalents
        # and their premises): evals alone with the extra that brings cosmic-ray.
        sync(session, "evals", groups=("test", "automation"), extras=("power",))
        session.run("pytest", "tests", "-q", *session.posargs)
        return
    if package == "devtools":
        # The repository's tooling: its tests fuzz case files through the repository's
        # SUT and check the mutants' targets and the reliability session's judgements.
        sync(session, "devtools", "agent-evals", "judge", groups=("test",))
        session.run("pytest", "packages/devtools/tests", "-q", *session.posargs)
        return
    groups = {
        "fake-openai": ("test", "openai-client"),
        # The HTML report's browser test: Playwright drives the system's Chromium.
        "evals": ("test", "browser"),
    }.get(package, ("test",))
    # The evals alone, and the agent alone: each proves it needs nothing of the other
    # (an exact sync, so a reused venv keeps nothing an earlier lock put there).
    isolated = {"evals": "EVALS_ISOLATED", "agent": "AGENT_ISOLATED"}
    # The Ray executor's tests run on a real local Ray, those of `evals power` on a real
    # cosmic-ray: the evals extras that bring them.
    # The OpenTelemetry SDK for evals.otel's collector.
    extras = ("ray", "power", "otel") if package == "evals" else ()
    sync(session, package, groups=groups, extras=extras, exact=package in isolated)
    env = {isolated[package]: "1"} if package in isolated else {}
    # The framework agents' tests run in a session of their own (above).
    skip = ["--ignore", f"packages/evals/tests/{FRAMEWORK_TESTS}"] if package == "evals" else []
    session.run("pytest", f"packages/{package}/tests", "-q", *skip, *session.posargs, env=env)


@nox.session
def lint(session: nox.Session) -> None:
    """Check formatting and lint rules with ruff."""
    sync(session, groups=("lint",))
    session.run("ruff", "format", "--check", ".")
    session.run("ruff", "check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Type-check every package's src/ strictly with mypy."""
    sync(session, groups=("typecheck",), extras=("power",))
    session.run("mypy", *[f"packages/{p}/src" for p in PACKAGES])


SUITES: dict[str, str] = {
    "read": "evidence, decisions that must not write a ticket.",
    "write": "reissue tickets (72 h boundary, old-policy trap), the flaky case.",
    "approval": "the approver says no, nothing may be written.",
    "injection": "prompt injection, fabricated evidence, write attempts.",
    "decisions": "unknown parcel state, out of stock, boundaries, crashes.",
    "permissions": "every role x write tool it may not call, cross-customer reads.",
    "approval_rules": "auto-approval limit, missing/silent approver, amounts.",
    "replay": "lost outbox acknowledgements, every effect exactly once.",
    "injection_matrix": "generated: attacks x carriers, each with a benign twin.",
    "generated": "generated worlds: the decision table's dimensions, expect from the oracle.",
    "settings": "configuration cases, each SUT built and never run.",
    "refusals": "invalid cases the SUT must refuse, line by line (never run).",
    "limits": "each size limit (bus payload, claims) at and one past it.",
    "model_path": "the model brains on the scripted model (faults, outages).",
}
"""Every suite (``cases/<suite>.jsonl``) and what it holds: one ``nox -s evals_<suite>``
session each, registered from this table below."""


def suites_apart() -> list[str]:
    """The suites that run apart, with SUT options of their own (``[tool.evals.suite_options]``
    of the root pyproject): each is an evaluation of its own, with its own baseline, which
    ``evals``/``gate``/``baseline`` run after every other suite."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return sorted(table["tool"]["evals"].get("suite_options", {}))


def evals_cli(session: nox.Session, *args: str, extras: tuple[str, ...] = ()) -> None:
    """Run the evals CLI in a venv holding the SupportPilot SUT, with its own database dir."""
    sync(session, "agent-evals", *(["evals"] if extras else []), extras=extras)
    db_dir = Path(session.create_tmp()) / "db"
    db_dir.mkdir(parents=True, exist_ok=True)
    env = {"SUPPORTPILOT_DB_DIR": str(db_dir)}
    if "ray" in extras:
        # Ray refuses a temp dir inside the virtualenv (create_tmp's TMPDIR): the system's.
        env["TMPDIR"] = tempfile.gettempdir()
    session.run("evals", *args, *session.posargs, env=env)


def _suite_session(suite: str, holds: str) -> None:
    """Register ``nox -s evals_<suite>``: that suite alone, reports under its own label."""

    def run_suite(session: nox.Session) -> None:
        evals_cli(session, "run", "--suite", suite, "--label", suite)

    run_suite.__doc__ = f"Run the {suite} suite: {holds}"
    nox.session(name=f"evals_{suite}", default=False, tags=["suites"])(run_suite)


for _suite, _holds in SUITES.items():
    _suite_session(_suite, _holds)


@nox.session(name="evals", default=False)
def evals(session: nox.Session) -> None:
    """Run every suite once, those apart after the rest (reports/all.*, reports/<suite>.*)."""
    evals_cli(session, "run", "--label", "all")
    for suite in suites_apart():
        evals_cli(session, "run", "--suite", suite, "--label", suite)


@nox.session(name="evals_ray", default=False)
def evals_ray(session: nox.Session) -> None:
    """Like `make evals` on a Ray cluster (RAY_ADDRESS, else a local Ray): reports/all-ray.*."""
    evals_cli(session, "run", "--label", "all-ray", "--executor", "ray", extras=("ray",))
    evals_cli(session, "gate", "--label", "gate-ray", "--executor", "ray", extras=("ray",))


@nox.session(default=False)
def gate(session: nox.Session) -> None:
    """Gate all suites but flaky cases against reports/baseline*.json (exit 1 blocks)."""
    evals_cli(session, "gate", "--label", "gate")
    # A suite apart is gated against its own baseline (reports/baseline-<suite>.json).
    for suite in suites_apart():
        evals_cli(session, "gate", "--suite", suite, "--label", f"gate-{suite}")


@nox.session(default=False)
def baseline(session: nox.Session) -> None:
    """Regenerate reports/baseline*.json on purpose (the only way they change)."""
    evals_cli(session, "baseline")
    for suite in suites_apart():
        evals_cli(session, "baseline", "--suite", suite)


@nox.session(default=False)
def stability(session: nox.Session) -> None:
    """Run the flaky cases x 5 trials and report pass@k and pass^k."""
    evals_cli(session, "stability", "--trials", "5", "--label", "stability")


@nox.session(default=False)
def judge(session: nox.Session) -> None:
    """Print the calibration report of every offline judge: on the labels, then on the
    blind attack set (docs/judge.md)."""
    sync(session, "judge", groups=())
    session.run("judge", "--judge", "all-offline", *session.posargs)
    blind = ["--labels", "cases/judge/attacks-blind.jsonl"]
    session.run("judge", "--judge", "all-offline", *blind, *session.posargs)


@nox.session(default=False)
def bad_pr(session: nox.Session) -> None:
    """Gate three deliberately bad changes in throwaway copies (2 blocked, 1 soft warning)."""
    sync(session, "agent-evals")
    session.run("python", "examples/bad_pr.py", *session.posargs)


@nox.session(default=False)
def screenshots(session: nox.Session) -> None:
    """Regenerate docs/img/*.png: the report and compare pages in the system's Chromium."""
    sync(session, "agent-evals", "devtools", groups=("browser",))
    session.run("python", "-m", "devtools.screenshots", *session.posargs)


@nox.session(default=False)
def mutate(session: nox.Session) -> None:
    """Break the evaluation code in 568 ways, one copy each: the tests must fail every time."""
    # The Ray executor's, evals power's and OpenTelemetry's mutants are killed by their
    # tests, which need the extras; the page's by the browser test (Playwright driving the
    # system's Chromium) and the span reader's by the two real agent frameworks.
    sync(
        session,
        "agent-evals",
        "judge",
        "fake-openai",
        "evals",
        "devtools",
        groups=("test", "browser", "otel-frameworks"),
        extras=("ray", "power", "otel"),
    )
    session.run("python", "-m", "devtools.mutate", *session.posargs)


@nox.session(default=False)
def power(session: nox.Session) -> None:
    """`evals power` on SupportPilot ([tool.evals.power]): the gate judges every mutant.

    Give the sample: `-- --sample 20` (a tuning look), `-- --sample 300 --purpose holdout`
    (the figure to report), `-- --all` (every mutant); reports/power.*, power/samples.json.
    """
    sync(session, "agent-evals", "evals", extras=("power",))
    session.run("evals", "power", *session.posargs)


@nox.session(default=False)
def reliability(session: nox.Session) -> None:
    """Concurrent run+gate pairs, stop-and-resume, damaged baselines, attacks (`-- hostile`…)."""
    # SupportPilot's SUT for the first three; the judge and Ray for the attacks on
    # `evals judge` and `--executor ray`.
    sync(session, "agent-evals", "evals", "judge", "devtools", extras=("ray",))
    commands = (
        [session.posargs]
        if session.posargs
        else [["corrupt"], ["hostile"], ["interrupt"], ["concurrent"]]
    )
    for command in commands:
        session.run("python", "-m", "devtools.reliability", *command)


@nox.session(default=False)
def fuzz(session: nox.Session) -> None:
    """Mutated case files through evals lint and run: 0 tracebacks, 0 hangs (500 files)."""
    sync(session, "agent-evals", "devtools")
    session.run("python", "-m", "devtools.fuzz_cases", *session.posargs)


@nox.session(default=False)
def explore(session: nox.Session) -> None:
    """Search the generated worlds for disagreements with the oracle and the invariants
    (Hypothesis, seeded; `-- --minutes 10 --seed 1`)."""
    sync(session, "agent-evals", "evals", extras=("explore",))
    args = session.posargs or ["--minutes", "2", "--seed", "1"]
    session.run(
        "python",
        "-m",
        "evals.cases.explore",
        "agent_evals.generated_worlds:GENERATOR",
        "--sut",
        "agent_evals.sut:SupportPilotSUT",
        "--strategies",
        "agent_evals.explore_worlds:strategies",
        *args,
    )


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmark evals run against a plain openai client on a fake model (reports/bench.*)."""
    # Compiled at install, as a user's environment would be: the benchmark times start-up,
    # not compiling openai from source on every start.
    session.env["UV_COMPILE_BYTECODE"] = "1"
    # The evals extra too: the ray scenario (--only ray) runs evals on a local Ray; the
    # bench group brings pydantic_evals, measured beside the client and ours; the browser
    # group Playwright, which drives the system's Chromium for the html scenario.
    groups = ("bench", "browser")
    sync(session, "agent-evals", "fake-openai", "evals", extras=("ray",), groups=groups)
    session.run("python", "-m", "bench.run", *session.posargs)
