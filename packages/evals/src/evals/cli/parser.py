"""The ``evals`` argument parser: every sub-command's options and their validation.

Values that cannot work are refused here (exit 2, one line) before anything runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from evals.cases.vocabulary import DEFAULT_MIN_SPLIT_SIZE
from evals.execution.runner import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW,
    DEFAULT_TIMEOUT_S,
)
from evals.log.traces import SAFE_NAME
from evals.model.options import EXECUTORS, ISOLATIONS
from evals.model.sut import parse_option

STABILITY_TRIALS = 5


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    parser = argparse.ArgumentParser(
        prog="evals",
        description="Evaluate an agent: init, lint, run, baseline, gate, stability, report,"
        " compare, generate, judge, power.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def selection(p: argparse.ArgumentParser, *, filters: bool = True) -> None:
        group = p.add_argument_group("selection")
        group.add_argument(
            "--suite",
            action="append",
            default=[],
            help="suite name (repeatable; default: every suite)",
        )
        group.add_argument(
            "--cases",
            action="append",
            default=[],
            type=Path,
            metavar="PATH",
            help="any case file (repeatable)",
        )
        if not filters:  # lint judges whole files: a filter it ignored would mislead
            return
        group.add_argument("--split", help="only this split")
        group.add_argument(
            "--tag",
            action="append",
            default=[],
            help="only cases with this tag (repeatable: any of them)",
        )
        group.add_argument(
            "--exclude-tag",
            action="append",
            default=[],
            help="leave out cases with this tag (repeatable)",
        )

    def running(p: argparse.ArgumentParser, trials: int) -> None:
        group = p.add_argument_group("running")
        # None when not given: --resume tells a flag given from a default.
        p.set_defaults(default_trials=trials)
        group.add_argument(
            "--trials",
            type=_positive_int,
            default=None,
            help=f"trials per case (default {trials})",
        )
        group.add_argument(
            "--concurrency",
            type=_positive_int,
            default=None,
            help=f"runs in flight (default {DEFAULT_CONCURRENCY})",
        )
        sut_options(group)
        group.add_argument(
            "--timeout",
            type=_positive_float,
            default=None,
            help=f"per-run limit in seconds (default {DEFAULT_TIMEOUT_S:g})",
        )
        group.add_argument(
            "--isolation",
            choices=ISOLATIONS,
            default=None,
            help="where the SUT runs: none (this process; default) or process (worker"
            " processes, one per --concurrency: a run that exits, hangs or blows the memory"
            " limit is a sut_error, its worker replaced)",
        )
        group.add_argument(
            "--memory-limit",
            type=_positive_int,
            default=None,
            metavar="MB",
            help="address-space limit of each worker process in MiB (--isolation process;"
            " default: none)",
        )
        group.add_argument(
            "--executor",
            choices=EXECUTORS,
            default=None,
            help="where runs are scheduled: local (this process; the default unless [tool.evals]"
            " executor says otherwise) or ray (the SUT in"
            " a pool of Ray actors, one per --concurrency; needs supportpilot-evals[ray])",
        )
        group.add_argument(
            "--ray-address",
            default=None,
            metavar="ADDRESS",
            help="the Ray cluster for --executor ray (default: RAY_ADDRESS, else a local Ray"
            " started for the evaluation)",
        )
        group.add_argument(
            "--max-provider-errors",
            type=_non_negative_int,
            default=DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW,
            metavar="N",
            help="stop scheduling after N provider errors in a row (a dead endpoint);"
            f" 0: never (default {DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW})",
        )
        group.add_argument(
            "--out", type=Path, help="reports folder (default: [tool.evals] reports_dir)"
        )
        group.add_argument(
            "--traces", type=Path, help="traces folder (default: [tool.evals] traces_dir)"
        )
        group.add_argument(
            "--label",
            type=_label_name,
            help="report file name (reports/<label>.json, .md, .junit.xml):"
            " letters, digits, '.', '_', '-', not starting with '.'",
        )

    def sut_options(group: argparse._ArgumentGroup) -> None:
        group.add_argument(
            "--sut",
            help="SUT import path module:attr; modules of the current folder import too"
            " (default: [tool.evals] sut)",
        )
        group.add_argument(
            "--sut-option",
            action="append",
            default=[],
            type=_sut_option,
            metavar="KEY=VALUE",
            help="keyword argument for the SUT's constructor or factory, passed as a string"
            " (repeatable; e.g. --sut-option brain=openai --sut-option model=NAME)",
        )

    def gating(p: argparse.ArgumentParser) -> None:
        group = p.add_argument_group("gate")
        group.add_argument(
            "--in-process",
            action="store_true",
            help="evaluate in this process, not a child (for a debugger, or tests that break"
            " the SUT in memory): the SUT can then reach the verdict's code; never in CI",
        )
        group.add_argument(
            "--baseline", type=Path, help="baseline file (default: reports/baseline.json)"
        )
        group.add_argument(
            "--gate-config", type=Path, help="gate config (default: cases/gate.json)"
        )
        group.add_argument(
            "--max-errors",
            type=_non_negative_int,
            default=None,
            help="errored runs tolerated (default: hard.errored_runs_max of the gate config)",
        )

    p = commands.add_parser("lint", help="check the case set's health (exit 1 on findings)")
    selection(p, filters=False)
    p.add_argument("--min-split-size", type=_non_negative_int, default=DEFAULT_MIN_SPLIT_SIZE)
    p.add_argument(
        "--jobs",
        type=_positive_int,
        default=None,
        help="processes that lint big files in parts at once (default: the CPUs this"
        " process may use; 1: one process)",
    )
    sut_options(p.add_argument_group("system under test (its check_case hook)"))
    p = commands.add_parser("run", help="run the selected cases and write reports")
    selection(p)
    running(p, 1)
    p.add_argument(
        "--resume",
        metavar="RUN_ID",
        type=_run_id,
        help="finish the interrupted evaluation traced in <traces>/RUN_ID: run only the"
        " (case, trial) pairs missing from its runs.jsonl, append them, write the full report"
        " (cases, SUT and trials as its meta.json records them)",
    )
    p = commands.add_parser("baseline", help="run the gated cases and write the baseline")
    selection(p)
    running(p, 1)
    gating(p)
    p.add_argument("--harness-result", type=Path, default=None, help=argparse.SUPPRESS)
    p = commands.add_parser("gate", help="run the gated cases and compare with the baseline")
    selection(p)
    running(p, 1)
    gating(p)
    p.add_argument("--strict", action="store_true", help="soft findings fail the gate too")
    p.add_argument(
        "--fail-fast",
        action="store_true",
        help="stop scheduling runs once more cases the baseline saw pass have failed than"
        " the gate allows (the verdict can then only be FAIL; a change the other rules"
        " catch still runs to the end)",
    )
    # The child of `evals gate` (evals.cli.harness): evaluate and trace, never judge.
    p.add_argument("--harness-result", type=Path, default=None, help=argparse.SUPPRESS)
    p = commands.add_parser("stability", help="run the flaky cases k times: pass@k, pass^k")
    selection(p)
    running(p, STABILITY_TRIALS)
    p = commands.add_parser(
        "report", help="print a metrics JSON report again, or rebuild one from a trace folder"
    )
    p.add_argument(
        "path",
        type=Path,
        help="reports/<label>.json (printed), or traces/<run-id> (its report rebuilt,"
        " written and printed)",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="where a report rebuilt from traces goes (default: [tool.evals] reports_dir)",
    )
    p = commands.add_parser(
        "review",
        help="list the cases that passed every run of the given baselines (for review)",
    )
    p.add_argument(
        "baselines",
        type=Path,
        nargs="*",
        metavar="BASELINE",
        help="baseline files, e.g. the last few commits' (default: reports/baseline.json)",
    )
    p = commands.add_parser(
        "compare",
        help="compare two evaluations of the same cases: flips both ways and a paired test",
    )
    p.add_argument("a", type=Path, help="A: reports/<label>.json or traces/<run-id> (before)")
    p.add_argument("b", type=Path, help="B: the same for the other evaluation (after)")
    p.add_argument(
        "--alpha",
        type=_level,
        default=0.05,
        help="significance level of the paired test (default 0.05)",
    )
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when B breaches a hard rule of the gate that A did not, or is worse"
        " and the paired test says so at --alpha",
    )
    p.add_argument("--markdown", type=Path, help="also write the comparison to this file")
    p.add_argument(
        "--html",
        type=Path,
        help="also write a side-by-side page to this file: flipped cases first, each with its"
        " check flips, its steps aligned and both runs' records",
    )
    p.add_argument(
        "--gate-config",
        type=Path,
        help="the gate config whose hard rules B is held to (default: cases/gate.json, else"
        " the defaults)",
    )
    p = commands.add_parser(
        "generate",
        help="write a generated suite from its CaseGenerator, or check the committed one",
        description="Write the suite of each CaseGenerator named (evals.cases.generate), or with"
        " --check write nothing and print how the committed file differs (exit 1 when it"
        " does).",
    )
    p.add_argument(
        "generators",
        nargs="+",
        metavar="MODULE:ATTR",
        help="a CaseGenerator by import path (modules of the current folder import too)",
    )
    p.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="the suite file (default: <cases_dir>/<suite>.jsonl, the generator's suite;"
        " with one generator only)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print each stale line and exit 1 when the file is not in sync",
    )
    commands.add_parser(
        "judge", help="judge calibration (needs supportpilot-judge)", add_help=False
    )
    p = commands.add_parser(
        "init",
        help="write a starter cases/gate.json: the gate's built-in rules, to change",
        description="Write the gate's built-in rules (what `evals gate` applies without a"
        " gate.json) to <cases_dir>/gate.json, to change by review; an existing file is"
        " never overwritten (exit 2). Without a [tool.evals] table, print one to add.",
    )
    p.add_argument(
        "--gate-config",
        type=Path,
        metavar="PATH",
        help="where to write it (default: [tool.evals] cases_dir/gate.json)",
    )
    power(commands)
    return parser


POWER_EPILOG = """\
purposes: tune (the default: a sample whose survivors you read to write cases; its figure
overstates the power once you have), holdout (the figure to report: a fresh seed, drawn
only from mutants no earlier sample of the ledger holds; a reused seed or sample is
refused), --all (every mutant: a long benchmark, not CI). Every run is recorded in the
ledger (power/samples.json) once its sanity check passed.

statuses: killed (exit 1 with `Gate: FAIL`), survived (exit 0 with `Gate: PASS`), crash
(anything else: a traceback, exit 2, exit 1 without a verdict), timeout, error (cosmic-ray
could not apply it). Annotation-only and invalid-Python mutants are dropped before
sampling; excluded modules are counted out of scope. Raw rate = killed / tried; adjusted
= killed / (tried - equivalent); crashes and timeouts are never killed.

examples:
  evals power --sample 20                       # a quick tuning look (seed 0)
  evals power --sample 60 --fresh --seed 7      # tune on what no sample has seen yet
  evals power --sample 300 --purpose holdout    # the figure to report (fresh seed)
  evals power --all                             # every mutant
  evals power --replay 760703633                # an earlier sample again, as tuning data
  evals power --config examples/own_agent/power.toml --all

exit status: 0 report written, 2 bad input, a reused sample called held out, the extra
missing or the unmutated copy failing its test command, 130 interrupted (partial report).
"""


def power(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``evals power``: the mutation score of the project's own suites."""
    p = commands.add_parser(
        "power",
        help="mutate the project's code ([tool.evals.power]); its own gate judges each mutant"
        " (needs supportpilot-evals[power])",
        description="Mutate the code [tool.evals.power] names with cosmic-ray; the project's"
        " own test command (its gate) judges every mutant. Writes reports/<label>.md, .json"
        " and .sqlite and records the sample in the ledger.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=POWER_EPILOG,
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--sample", type=_positive_int, metavar="N", help="a seeded sample of N")
    size.add_argument(
        "--all", action="store_true", help="every mutant (a long benchmark; recorded as 'all')"
    )
    size.add_argument(
        "--replay",
        type=_non_negative_int,
        metavar="SEED",
        help="the mutants of the ledger's sample(s) drawn with SEED, run again as tuning"
        " data (a reported held-out sample's survivors, read without using up fresh mutants)",
    )
    p.add_argument(
        "--purpose",
        choices=("tune", "holdout"),
        default=None,
        help="tune (default) or holdout: see below (--all is a purpose of its own)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="a tuning sample drawn only from the mutants no earlier sample holds (what new"
        " code or new operators bring), read before a held-out sample takes the rest",
    )
    p.add_argument(
        "--seed",
        type=_non_negative_int,
        default=None,
        help="the sample's seed (tune: default 0; holdout: default a fresh random one)",
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="a TOML file with [tool.evals.power] (default: the nearest pyproject.toml"
        " with [tool.evals]); its folder is the root",
    )
    p.add_argument(
        "--jobs", type=_positive_int, default=2, help="mutants in parallel, one copy each (2)"
    )
    p.add_argument(
        "--timeout",
        type=_positive_float,
        default=None,
        help="seconds per test-command run (default: timeout_s of the config, 60)",
    )
    p.add_argument("--equivalents", type=Path, metavar="FILE", help="equivalents file")
    p.add_argument("--ledger", type=Path, metavar="FILE", help="ledger of samples drawn")
    p.add_argument("--out", type=Path, help="report folder (default: [tool.evals] reports_dir)")
    p.add_argument("--label", type=_label_name, help="report file name (default: power)")
    p.add_argument("--note", help="a note recorded with the sample in the ledger")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="draw the sample and print it and how it relates to the ledger; run and"
        " record nothing",
    )


def _level(text: str) -> float:
    value = _positive_float(text)
    if not value < 1:
        raise argparse.ArgumentTypeError(f"must be below 1, got {text!r}")
    return value


def _plain_name(what: str) -> Callable[[str], str]:
    """An argument type taking a plain file name (:data:`SAFE_NAME`), ``what`` it names."""

    def check(text: str) -> str:
        if not SAFE_NAME.fullmatch(text):
            raise argparse.ArgumentTypeError(
                f"must be {what} of letters, digits, '.', '_' or '-', not starting with '.',"
                f" got {text!r}"
            )
        return text

    return check


_label_name = _plain_name("a file name")
_run_id = _plain_name("the name of a folder under the traces folder")


def _sut_option(text: str) -> tuple[str, str]:
    try:
        return parse_option(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from e
    if value < 1:  # one wording for 0 and -1 alike
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from e
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from e
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return value
