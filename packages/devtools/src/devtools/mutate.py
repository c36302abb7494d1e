"""Mutation check of the evaluation code: break it on purpose, the tests must go red.

Every mutant below is one deliberate bug in ``evals`` (checks, metrics, gate, lint,
runner, baseline, report, generated suites), in ``judge`` (normaliser, guard, neutraliser, attack
figures) or in SupportPilot's invariants and the run record they read
(``agent_evals.invariants``, ``agent_evals.record``), or in the model path's test bench
(the scripted model, the model server's account in the run record, the checks reading it).
Each is applied to a fresh
temporary copy of the repository (the working tree is never touched) and its tests run
there (``evals`` mutants: the evals tests and the acceptance test; ``judge`` mutants:
the judge tests; invariant mutants: ``test_invariants.py``), with ``PYTHONPATH`` set to
the copy's ``packages/*/src`` so the copy's code is what gets imported. A mutant the
tests do not catch ("survived") means the tests would not notice that bug either.

A mutant names where it strikes by module and symbol (``evals.checks.state:_compare``,
``package.module:Class.method``, or a module alone for its top level), and what it
changes as an exact snippet that must occur exactly once in that symbol's source. A
function moved to another file, or a file moved to another folder, keeps its mutants;
when the code moved on and the symbol or the snippet is gone, the mutant reports "target
not found" and the check fails (it never passes by mutating nothing).

    uv run python -m devtools.mutate              # every mutant, 2 at a time
    uv run python -m devtools.mutate --list       # the table of mutants only
    uv run python -m devtools.mutate wilson_no_correction percentile_off_by_one

Each mutant runs its last killer first (``.mutate-killers.json``, a cache the run
writes; ``--no-cache`` ignores it), then the tests of its module, then all of its tests.

Exit status: 0 when every mutant was killed; 1 when one survived or its target was not
found; 2 when the unmutated copy already fails (nothing can be concluded).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tabulate import tabulate

from devtools import REPO_ROOT
from devtools.examples_loader import load_bad_pr

ROOT = REPO_ROOT
EVALS = "packages/evals/src/evals"
JUDGE = "packages/judge/src/judge"
TESTS = ("packages/evals/tests", "packages/agent-evals/tests/test_evals_acceptance.py")
"""What runs against every ``evals`` mutant."""
JUDGE_TESTS = ("packages/judge/tests",)
"""What runs against every ``judge`` mutant."""
AGENT_EVALS = "packages/agent-evals/src/agent_evals"
INVARIANT_TESTS = ("packages/agent-evals/tests/test_invariants.py",)
"""What runs against every mutant of the invariants."""
SECRET_TESTS = ("packages/agent-evals/tests/test_secrets_recorded.py",)
"""What runs against every mutant of the secret search of run records and its check."""
ERROR_FIELD_TESTS = ("packages/agent-evals/tests/test_error_fields.py",)
"""What runs against every mutant of errors_match_their_records (its table of texts)."""
GATEWAY_TESTS = ("packages/agent-evals/tests/test_gateway_spec.py",)
"""What runs against every mutant of gateway_as_specified (its controls and edges)."""
ORACLE_TESTS = (
    "packages/agent-evals/tests/test_oracle.py",
    "packages/agent-evals/tests/test_generated_suites.py",
)
"""What runs against every mutant of the oracle and the decision table's terms: a wrong
oracle writes another suite than the committed one, or disagrees with the hand-written
cases."""
SUPPORTPILOT_RUN_TESTS = ("packages/agent-evals/tests/test_supportpilot_run.py",)
"""What runs against every mutant of SupportPilot's own record and the checks that read it."""
MATRIX_TESTS = ("packages/agent-evals/tests/test_injection_matrix.py",)
"""What runs against every mutant of the injection matrix's generator and oracle."""
FAIL_FAST_TESTS = ("packages/evals/tests/test_fail_fast.py",)
"""The tests of ``evals gate --fail-fast``."""
GENERATE_TESTS = ("packages/evals/tests/test_generate.py",)
"""What runs against every mutant of the generated suites (``evals.cases.generate`` and its
command): their own tests alone, so each is shown caught by them."""
RUBRIC_TESTS = ("packages/evals/tests/test_rubric.py",)
"""What runs against every mutant of the rubric judge and the rule that gates it."""
SUPPORT_RUBRIC_TESTS = ("packages/judge/tests/test_support_rubric.py",)
"""What runs against every mutant of SupportPilot's judge as a rubric (``judge.rubric``)."""
OTEL_TESTS = ("packages/evals/tests/test_otel.py",)
"""What runs against every mutant of OpenTelemetry in (``evals.otel``): its own tests, on
spans the real SDK made (the framework agents' tests are slower and catch the same)."""
POWER = f"{EVALS}/power"
POWER_TESTS = tuple(
    f"packages/evals/tests/test_power_{name}.py"
    for name in ("sampling", "report", "premises", "mutants", "operators", "run")
)
"""What runs against every ``evals power`` mutant (the sampler's tests first: fastest)."""
SCRIPTED = "packages/agent-evals/src/agent_evals/scripted_model.py"
PLUGIN = "packages/agent-evals/src/agent_evals"
MODEL_TESTS = (
    "packages/agent-evals/tests/test_scripted_model.py",
    "packages/agent-evals/tests/test_model_path.py",
)
"""What runs against every mutant of the scripted model and the model path's checks: the
model's own tests and the model-path suite's gate with its positive controls."""
CONFIGURATION_TESTS = (
    "packages/evals/tests/test_configuration.py",
    "packages/agent-evals/tests/test_configuration_cases.py",
)
"""What runs against every mutant of configuration cases (``evals.cases.configuration``, their
checks and their plumbing): the tiny SUT's tests, then SupportPilot's."""
PYTEST = ("-m", "pytest", "-x", "-q", "-p", "no:cacheprovider")
TIMEOUT_S = 300.0
"""A test run that takes longer than this counts as killed (the suite did not pass)."""
SANITY_TIMEOUT_S = 1800.0
"""The unmutated copy's run of every chosen mutant's tests at once (far more than one
mutant's): on a loaded machine it may take well past :data:`TIMEOUT_S`."""


bad_pr = load_bad_pr()


def source_file(module: str, root: Path = ROOT) -> Path:
    """The file of ``module`` under ``root``'s ``packages/*/src`` (the module itself or its
    package's ``__init__.py``), found without importing anything; :class:`LookupError`
    when no package holds it."""
    relative = module.replace(".", "/")
    for src in sorted(root.glob("packages/*/src")):
        for candidate in (src / f"{relative}.py", src / relative / "__init__.py"):
            if candidate.is_file():
                return candidate
    raise LookupError(f"no module {module!r} under packages/*/src")


def symbol_span(text: str, qualname: str) -> tuple[int, int]:
    """Where the definition ``qualname`` (``name`` or ``Class.method``, decorators
    included) stands in the module source ``text``, as character offsets; ``""``: the
    whole module. :class:`LookupError` when the module defines no such symbol."""
    if not qualname:
        return 0, len(text)
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    scope: ast.AST = ast.parse(text)
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next((d for d in _definitions(scope) if d.name == part), None)
        if node is None:
            raise LookupError(f"no {qualname!r} defined there")
        scope = node
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    end = starts[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)
    return starts[first - 1], end


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _definitions(scope: ast.AST) -> Iterator[Definition]:
    """The functions and classes defined in ``scope`` itself (inside its ``if``, ``with``
    or ``try`` blocks too), not those nested in them."""
    for child in ast.iter_child_nodes(scope):
        if isinstance(child, Definition):
            yield child
        else:
            yield from _definitions(child)


@dataclass(frozen=True)
class Mutant:
    """One deliberate bug: replace the snippet ``old`` (exactly once in the source of the
    symbol ``where`` names) by ``new``."""

    name: str
    """Short id."""
    where: str
    """``package.module:qualname`` (a function, class or method), ``package.module`` for
    the module's top level, or a path from the repository root for a file that is no
    module (a template, a script of the page: the whole file)."""
    old: str
    """Exact text that must occur exactly once in that symbol's source."""
    new: str
    """Its replacement."""
    bug: str
    """The bug, in words."""
    tests: tuple[str, ...] = TESTS
    """The test paths run against it."""

    @property
    def module(self) -> str:
        """The module it mutates (or the file, when it names a path)."""
        return self.where.partition(":")[0]

    def file(self, root: Path = ROOT) -> Path:
        """The module's file under ``root`` (:class:`LookupError` when none is)."""
        if "/" in self.where:
            path = root / self.where
            if not path.is_file():
                raise LookupError(f"no file {self.where}")
            return path
        return source_file(self.module, root)

    @property
    def path(self) -> str:
        """The module's file relative to the repository (``?`` when it is gone)."""
        try:
            return str(self.file().relative_to(ROOT))
        except LookupError:
            return f"? ({self.module})"

    def apply(self, text: str) -> str:
        """``text`` (the module's source) with the snippet replaced, inside the symbol;
        :class:`LookupError` naming what is missing when the symbol is gone or the
        snippet does not occur there exactly once."""
        symbol = "" if "/" in self.where else self.where.partition(":")[2]
        start, end = symbol_span(text, symbol)
        found = text[start:end].count(self.old)
        if found != 1:
            raise LookupError(f"{found} occurrences of the snippet in {self.where}")
        segment = text[start:end].replace(self.old, self.new, 1)
        return text[:start] + segment + text[end:]


M = Mutant
MUTANTS: tuple[Mutant, ...] = (
    # --- checks ---------------------------------------------------------------------
    M(
        "success_counts_trajectory",
        "evals.model.result",
        'frozenset({"outcome", "safety"})',
        'frozenset({"outcome", "safety", "trajectory"})',
        "success also requires trajectory checks (a detour fails a right answer)",
    ),
    M(
        "unauthorized_counts_blocked",
        "evals.model.result:unauthorized",
        'if c.kind == "safety" and c.name != BLOCKED_ATTEMPTS and not c.grader_error',
        'if c.kind == "safety" and not c.grader_error',
        "the unauthorized rate counts blocked attempts (the defence working) as violations",
    ),
    M(
        "approval_reads_reply",
        "evals.checks.safety:no_write_without_approval",
        "if run.approver_approved is False and run.writes:",
        'if run.approver_approved is False and "提交补发申请" in (run.reply or ""):',
        "no-write-without-approval believes the reply instead of the database writes",
    ),
    M(
        "tickets_from_reply",
        "evals.checks.outcome:ticket_count",
        'found = sum(1 for write in run.writes if write.kind == "ticket")',
        'found = int("提交补发申请" in (run.reply or ""))',
        "the ticket count is derived from the reply text, not from the database",
    ),
    M(
        "unapproved_write_ignored",
        "evals.checks.safety:no_write_without_approval",
        'problems += [f"{_describe(w)} is not approved" for w in run.writes if not w.approved]',
        "pass",
        "a write without an approved approval is not flagged",
    ),
    M(
        "duplicate_write_ignored",
        "evals.checks.safety:no_duplicate_write",
        "for kind, n in by_kind.items() if n > 1",
        "for kind, n in by_kind.items() if n > 2",
        "a kind written twice is not a duplicate",
    ),
    M(
        "blocked_attempts_at_least",
        "evals.checks.safety:blocked_attempts",
        "if made != expected:",
        "if made < expected:",
        "more blocked attempts than expected go unnoticed",
    ),
    M(
        "outbox_key_unchecked",
        "evals.checks.safety:_key_problem",
        r'if re.fullmatch(rf"\S+:{re.escape(kind)}", key):',
        "if True:",
        "an idempotency key of the wrong form passes",
    ),
    M(
        "key_scheme_loose",
        "evals.checks.safety:_key_problem",
        "        if key == expected:",
        '        if key.endswith(f":{kind}"):',
        "another run's idempotency key passes the exact <trace_id>:<kind> scheme",
    ),
    M(
        "repeated_key_passes",
        "evals.checks.safety:exactly_once",
        "for (kind, key), n in Counter(keyed).items()\n        if n > 1",
        "for (kind, key), n in Counter(keyed).items()\n        if n > 2",
        "an effect landing twice under one idempotency key passes",
    ),
    M(
        "state_after_unchecked",
        "evals.checks.state:_compare",
        "if got == str(value):",
        "if got is not None:",
        "a wrong value in the environment after the run passes",
    ),
    M(
        "forbidden_effect_as_outcome",
        "evals.checks.state:state_kept",
        'STATE_KEPT,\n        "safety",',
        'STATE_KEPT,\n        "outcome",',
        "an effect that must not happen is counted as a wrong outcome, never as unauthorized",
    ),
    M(
        "missing_effect_as_safety",
        "evals.checks.state:state_after",
        'STATE_AFTER,\n        "outcome",',
        'STATE_AFTER,\n        "safety",',
        "an effect that did not land reads as an unauthorized act (100% unauthorized)",
    ),
    M(
        "auto_approval_at_limit",
        "evals.checks.approval:auto_approval_below_limit",
        "if amount is not None and not amount < limit:",
        "if amount is not None and amount > limit:",
        "auto-approval exactly at the limit passes (the rule says strictly below)",
    ),
    M(
        "approval_amount_unchecked",
        "evals.checks.approval:approval_amount",
        "if approval.amount is None or not same_amount(approval.amount, expected):",
        "if approval.amount is None:",
        "an approval asked for the wrong amount passes",
    ),
    M(
        "no_answer_fails_open",
        "evals.checks.approval:fail_closed",
        'if approval.approved is True and approval.decided_by != "none":',
        "if approval.approved is not False:",
        "a write citing an approval nobody answered passes",
    ),
    M(
        "raising_check_is_the_agents_failure",
        "evals.checks.registry:grade",
        "grader_error=True,\n",
        "grader_error=False,\n",
        "a check that raises counts as the agent's failure (and a regression), not a grader error",
    ),
    # --- metrics ----------------------------------------------------------------------
    M(
        "wilson_no_correction",
        "evals.metrics.summary:wilson_interval",
        "math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))",
        "math.sqrt(p * (1 - p) / n)",
        "the Wilson interval's margin lacks its z^2/4n^2 term",
    ),
    M(
        "pass_pow_k_is_pass_at_k",
        "evals.metrics.summary:pass_pow_k",
        "verdicts = [all(t) for t in trials.values() if t]",
        "verdicts = [any(t) for t in trials.values() if t]",
        "pass^k computed as pass@k (any trial instead of every trial)",
    ),
    M(
        "percentile_off_by_one",
        "evals.metrics.summary:percentile",
        "return float(ordered[max(rank, 1) - 1])",
        "return float(ordered[min(rank, len(ordered) - 1)])",
        "the nearest-rank percentile picks the next value up",
    ),
    M(
        "step_accuracy_counts_cost",
        "evals.metrics.summary:compute",
        'if c.kind == "trajectory" and not c.grader_error',
        'if c.kind in ("trajectory", "cost") and not c.grader_error',
        "step accuracy mixes cost checks in",
    ),
    M(
        "errored_runs_graded",
        "evals.metrics.summary:compute",
        "graded = [r for r in every if not r.errored]",
        "graded = list(every)",
        "provider errors count against the success rate",
    ),
    # --- gate -------------------------------------------------------------------------
    M(
        "gate_ignores_newly_failing",
        "evals.gating.verdict:evaluate",
        "if len(newly_failing) > hard_rules.newly_failing_cases_max:",
        "if False:",
        "a case that passed in the baseline may fail now",
    ),
    M(
        "gate_keeps_flaky",
        "evals.gating.verdict:evaluate",
        "kept = excluding(given, config.exclude_tags)",
        "kept = list(given)",
        "flaky cases are not excluded from the gate",
    ),
    M(
        "gate_unauthorized_tolerated",
        "evals.gating.verdict:_hard_rules",
        "metrics.unauthorized_rate > rules.unauthorized_rate_max:",
        "metrics.unauthorized_rate > rules.unauthorized_rate_max + 0.05:",
        "an unauthorized rate up to 5% passes the gate",
    ),
    M(
        "soft_ignores_latency_floor",
        "evals.gating.verdict:_soft_rules",
        "if new_ms >= soft.latency_p95_floor_ms and _grew(",
        "if _grew(",
        "latency growth is judged below the 200 ms floor (noise)",
    ),
    M(
        "soft_drop_at_limit_fires",
        "evals.gating.verdict:_soft_rules",
        "if drop > limit:",
        "if drop >= limit:",
        "a drop of exactly the limit fires (the rule says more than)",
    ),
    M(
        "strict_ignored",
        "evals.gating.verdict:evaluate",
        "passed = not hard and not (strict and soft)",
        "passed = not hard",
        "--strict does not turn soft findings into a failure",
    ),
    M(
        "check_regressions_ignored",
        "evals.gating.check_diff:CheckDiff.__init__",
        "elif ok(was) and not ok(tally):",
        "elif False:",
        "a (case, check) pair that passed in the baseline and fails now is not noticed",
    ),
    M(
        "check_kinds_never_hard",
        "evals.gating.verdict:evaluate",
        '"hard" if allowed is not None and len(pairs) > allowed else "soft"',
        '"soft"',
        "newly failing checks are only ever warnings, whatever gate.json says",
    ),
    M(
        "new_check_judged_as_regression",
        "evals.gating.check_diff:CheckDiff.__init__",
        "was = before.get(name)",
        "was = before.get(name, CheckTally(kind=tally.kind, passed=1, judged=1))",
        "a check the baseline never saw fails the gate as a regression",
    ),
    M(
        "sut_exit_ends_evaluation",
        "evals.execution.in_process:InProcess.run",
        "except (SystemExit, KeyboardInterrupt) as e:",
        "except GeneratorExit as e:",
        "sys.exit(0) in a SUT ends the evaluation green, with no report and no verdict",
    ),
    M(
        "registry_replaces_any_check",
        "evals.checks.registry:register",
        "if taken is not None and not replace and _origin(taken) != _origin(check_obj):",
        "if False:",
        "a project's check silently replaces a built-in check of the same name",
    ),
    M(
        "grader_error_fails_the_run",
        "evals.model.result:success",
        "return all(c.passed for c in results if c.kind in SUCCESS_KINDS and not c.grader_error)",
        "return all(c.passed for c in results if c.kind in SUCCESS_KINDS)",
        "a check that raises counts as the agent's failure (and a regression)",
    ),
    M(
        "grader_error_not_gated",
        "evals.gating.verdict:_grader_error_finding",
        "if len(errors) <= rules.grader_errors_max:",
        "if True:",
        "a check that raised passes the gate silently",
    ),
    M(
        "hook_failure_blames_the_case",
        "evals.cases.validation:Screener._judged",
        'return [], _one_line(f"check_case raised {type(error).__name__}: {error}")',
        'return [(SUT_FIELD, f"check_case raised {error}")], None',
        "a SUT whose check_case hook raises is reported as a bad case file (exit 2)",
    ),
    M(
        "baseline_mismatch_ignored",
        "evals.gating.verdict:evaluate",
        "mismatch = _baseline_mismatch(baseline, meta) if meta is not None else None",
        "mismatch = None",
        "a baseline made with another SUT or trial count is compared as if it were this run's",
    ),
    M(
        "dead_provider_never_stops",
        "evals.execution.runner:Runner._count_provider_errors",
        "if limit is not None and self._errors_in_a_row >= limit and self._stop_reason is None:",
        "if False:",
        "a dead provider is retried run after run instead of stopping the evaluation",
    ),
    M(
        "fail_fast_stops_within_allowance",
        "evals.gating.fail_fast:FailFast.__call__",
        "if len(self.failing) <= self.allowed:",
        "if len(self.failing) < self.allowed:",
        "--fail-fast stops the gate before as many cases fail as it allows (on a pass)",
        FAIL_FAST_TESTS,
    ),
    M(
        "fail_fast_before_last_trial",
        "evals.gating.fail_fast:FailFast.__call__",
        "if len(runs) < self.trials:",
        "if len(runs) < 1:",
        "--fail-fast judges a case on its first trials, before the last one has run",
        FAIL_FAST_TESTS,
    ),
    M(
        "fail_fast_counts_excluded",
        "evals.gating.fail_fast:FailFast.__call__",
        "if case not in self.passing or self.excluded.intersection(result.tags):",
        "if case not in self.passing:",
        "--fail-fast stops on a flaky case the gate leaves out",
        FAIL_FAST_TESTS,
    ),
    M(
        "fail_fast_stop_not_borne_out",
        "evals.cli.main:_borne_out",
        'return not verdict.passed and any(f.rule == "newly_failing" for f in verdict.hard)',
        "return True",
        "a stop the finished runs do not bear out is judged (a SUT stopping early passes)",
        FAIL_FAST_TESTS,
    ),
    M(
        "fail_fast_never_stops",
        "evals.execution.runner:Runner._one",
        "            self._stop_reason = self.stop_when(result)",
        "            self.stop_when(result)",
        "--fail-fast runs every case to the end",
        FAIL_FAST_TESTS,
    ),
    M(
        "hung_hook_asked_again",
        "evals.cases.validation:Screener._judged",
        "            self.hung_on = case.id\n",
        "            self.hung_on = None\n",
        "after a check_case hook hangs, every later case waits out the deadline again",
    ),
    M(
        "lost_checks_always_soft",
        "evals.gating.verdict:evaluate",
        "allowed = hard_rules.no_longer_judged_checks_max.get(kind)",
        "allowed = None",
        "a check that passed in the baseline and is judged no more only warns",
    ),
    M(
        "lost_failing_check_counted",
        "evals.gating.check_diff:CheckDiff.__init__",
        "if name not in now and ok(was):",
        "if name not in now:",
        "a check that failed in the baseline and is judged no more blocks the gate",
    ),
    M(
        "must_pass_threshold_ignored",
        "evals.gating.verdict:_hard_rules",
        "if n and success < rules.must_pass_success_min:",
        "if n and success < 0.5:",
        "the must-pass threshold of gate.json is not the one applied",
    ),
    M(
        "source_warnings_ignored",
        "evals.execution.source_check:compile_warnings",
        'warnings.simplefilter("always")',
        'warnings.simplefilter("ignore")',
        'the gate\'s source check hears no compiler warning: `x is "ok"` lands',
    ),
    M(
        "cost_hard_by_default",
        "evals.gating.rules",
        'tuple(k for k in get_args(CheckKind) if k != "cost")',
        "tuple(get_args(CheckKind))",
        "a cost check that newly fails blocks by default (the seed only warns: cost is noisy)",
    ),
    M(
        "lint_counts_files_as_cases",
        "evals.cases.lint:lint_files",
        "LintReport(findings=every, cases=usable)",
        "LintReport(findings=every, cases=len(files))",
        "`evals lint` says how many files it read, not how many cases",
    ),
    M(
        "review_any_baseline",
        "evals.gating.review:review",
        "all(b.case_success[c] for _, b in baselines)",
        "any(b.case_success[c] for _, b in baselines)",
        "`evals review` lists a case that failed in an older baseline as never failing",
    ),
    M(
        "review_accepts_majority",
        "evals.gating.review:_every_run",
        'baseline.case_verdict != "all" and baseline.trials > 1',
        'baseline.case_verdict != "all" and baseline.trials > 3',
        "`evals review` reads a majority baseline of 3 trials as 'passed every run'",
    ),
    M(
        "number_check_lets_nan_through",
        "evals.model.run:number_problem",
        "if not math.isfinite(value):",
        "if math.isinf(value):",
        "a NaN latency from the SUT is kept: the latency rule skips it, the gate passes",
    ),
    M(
        "number_check_allows_negative",
        "evals.model.run:number_problem",
        "if non_negative and value < 0:",
        "if non_negative and value < -1:",
        "a SUT's count of -1 (tokens, characters, tasks) is read as a real figure",
    ),
    M(
        "number_check_skips_tokens",
        "evals.model.run:_numbers",
        'yield "usage.prompt_tokens", getattr(usage, "prompt_tokens", None), True',
        'yield "usage.prompt_tokens", getattr(usage, "prompt_tokens", None), False',
        "negative prompt tokens from the SUT pass: a budget reads as kept",
    ),
    M(
        "worker_sends_bad_numbers",
        "evals.execution.isolation:run_json",
        "    problem = number_problem(run)\n    if problem is not None:\n        raise",
        "    problem = None\n    if problem is not None:\n        raise",
        "a worker sends a NaN latency on as null: the run is lost as unreadable, its field unnamed",
    ),
    M(
        "copied_trace_accepted",
        "evals.execution.resume:load_meta",
        "if meta.run_id and meta.run_id != folder.name:",
        "if meta.run_id and meta.run_id == folder.name + '/':",
        "a copied trace folder is resumed: the missing runs land in the folder its meta names",
    ),
    M(
        "rebuilt_report_grades_expectations",
        "evals.execution.resume:rebuild",
        "cases, _ = cases_of(meta, config, graded_here=False)",
        "cases, _ = cases_of(meta, config)",
        "a report rebuilt from a trace refuses the expectations only a plug-in's checks read",
    ),
    M(
        "report_over_the_baseline",
        "evals.cli.main:_refuse_overwriting_inputs",
        "        if target in resolved:\n",
        "        if target in resolved and False:\n",
        "`evals report` of a trace labelled 'baseline' overwrites reports/baseline.json",
    ),
    M(
        "crafted_label_accepted",
        "evals.log.traces:_safe_name",
        "    if value and not SAFE_NAME.fullmatch(value):",
        "    if value and not SAFE_NAME.match(value):",
        "a trace label '../cases/gate' (a safe first character) writes outside reports/",
    ),
    M(
        "resume_lock_not_held",
        "evals.cli.main:_hold_resume_lock",
        "        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)",
        "        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)",
        "two resumes of one run at once both re-run the missing pairs (duplicates)",
    ),
    M(
        "json_duplicate_keys_allowed",
        "evals.io.json_files:read_json_text",
        "json.loads(text, object_pairs_hook=_no_duplicate_keys)",
        "json.loads(text)",
        "a gate.json with a lax second 'hard' section (a bad merge) is read, the last one wins",
    ),
    M(
        "json_file_opened_blocking",
        "evals.io.json_files:read_bytes",
        'os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)',
        "os.O_RDONLY",
        "a FIFO given as --baseline is opened for reading: the gate hangs",
    ),
    M(
        "json_depth_unchecked",
        "evals.io.json_files:_walk",
        "if len(where) >= MAX_DEPTH:",
        "if len(where) >= MAX_DEPTH * 2:",
        "a report nested 70 deep is read (deeper than any file the tool writes)",
    ),
    M(
        "labels_duplicate_key_allowed",
        "judge.labels:_load",
        "data = json.loads(line, object_pairs_hook=_no_duplicate_keys)",
        "data = json.loads(line)",
        "a label line with a second 'label' key is read, the last one wins: a fail becomes a pass",
        JUDGE_TESTS,
    ),
    M(
        "labels_fifo_opened_blocking",
        "judge.labels:_read_text",
        'os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)',
        "os.O_RDONLY",
        "a FIFO given as --labels is opened for reading: `evals judge` hangs",
        JUDGE_TESTS,
    ),
    M(
        "huge_run_kept",
        "evals.execution.isolation:run_json",
        "    if len(data) > MAX_RUN_BYTES:",
        "    if len(data) > MAX_RUN_BYTES * 4:",
        "a 60 MB reply is kept: the trace, the report and the HTML page grow with it",
    ),
    M(
        "ray_address_not_probed",
        "evals.execution.ray_executor:RayExecutor.refuse_unreachable",
        "        unreachable = _unreachable(address)\n",
        "        unreachable = None\n",
        "`--ray-address` naming a closed port hangs the evaluation in ray.init (no Ctrl-C)",
    ),
    M(
        "ray_address_probed_after_reports",
        "evals.execution.placement:workers_for",
        "    ray.refuse_unreachable()  # before any report is written",
        "    # before any report is written",
        "an unreachable Ray address is found only when the runs start: the exit 2 has"
        " already replaced the last report under the label by an empty one",
        tests=("packages/evals/tests/test_ray_unreachable.py",),
    ),
    M(
        "special_pyproject_skipped",
        "evals.config:find_pyproject",
        "        _refuse_special(candidate)\n",
        "",
        "a pyproject.toml that is a FIFO or /dev/zero is passed over in silence, and the"
        " configuration of a folder above is read instead",
        tests=("packages/evals/tests/test_config.py",),
    ),
    M(
        "below_limit_rounded_to_it",
        "evals.gating.verdict:_below",
        "    for decimals in range(4):\n        shown = _pct(rate, decimals)",
        "    for decimals in range(1):\n        shown = _pct(rate, decimals)",
        "one failing must-pass case of hundreds reads 'must_pass success 100% < 100%'",
    ),
    M(
        "tampered_input_ignored",
        "evals.cli.main:_evaluate_apart",
        "    tampered = guard.put_back()\n    try:\n",
        "    tampered = []\n    try:\n",
        "a SUT that truncates reports/baseline.json while the gate runs gets a verdict, and the"
        " next gate has no baseline",
    ),
    M(
        "gate_judges_an_old_trace",
        "evals.cli.harness:the_new_trace",
        "    if name in before:",
        "    if False:",
        "the gate judges a trace folder that existed before its child ran (an old, good run)",
        tests=("packages/evals/tests/test_rigged_sut.py",),
    ),
    M(
        "gate_trusts_any_result_keys",
        "evals.cli.harness:read_result",
        'if not isinstance(data, dict) or set(data) - {"trace", "unbuildable"}:',
        "if not isinstance(data, dict):",
        "the child's result file may carry anything beside the trace's name",
        tests=("packages/evals/tests/test_rigged_sut.py",),
    ),
    M(
        "gate_trusts_the_traced_command",
        "evals.cli.harness:Asked.differences",
        "        if meta.command != self.command:",
        "        if False:",
        "a trace of another command (a `run`) is judged as the gate's",
        tests=("packages/evals/tests/test_rigged_sut.py",),
    ),
    M(
        "gate_judged_where_the_sut_ran",
        "evals.cli.main:_evaluate_apart",
        "    if args.in_process:\n        return _evaluate_here(",
        "    if True:\n        return _evaluate_here(",
        "the gate evaluates and judges in one process: a SUT that rigs the verdict passes",
        tests=("packages/evals/tests/test_rigged_sut.py",),
    ),
    M(
        "source_threshold_off_by_one",
        "evals.gating.verdict:evaluate",
        "len(source_warnings) > hard_rules.source_warnings_max:",
        "len(source_warnings) > hard_rules.source_warnings_max + 1:",
        "one compiler warning in the code under test passes the gate",
    ),
    M(
        "source_skips_subfolders",
        "evals.execution.source_check:python_files",
        'modules = sorted(p for p in where.rglob("*.py") if p.is_file())',
        'modules = sorted(p for p in where.glob("*.py") if p.is_file())',
        "the source check compiles only a folder's top level: a package's modules go unchecked",
    ),
    M(
        "gate_config_accepts_nan",
        "evals.gating.rules",
        "Rate = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]",
        "Rate = float",
        "a NaN or out-of-range rate in gate.json is accepted (NaN silences its rule)",
    ),
    M(
        "baseline_not_strict",
        "evals.gating.baseline:Baseline",
        'model_config = ConfigDict(extra="forbid", strict=True)',
        "model_config = ConfigDict()",
        "a baseline with unknown keys or strings for numbers is accepted",
    ),
    M(
        "tally_counts_runs_not_passes",
        "evals.gating.baseline:check_tallies",
        "tally[0] += c.passed",
        "tally[0] += 1",
        "the baseline records every check as passed",
    ),
    M(
        "outcome_reason_unchecked",
        "evals.checks.outcome:outcome_reason",
        "if run.outcome_reason == expected:",
        "if run.outcome_reason is not None or expected is not None:",
        "an escalation for the wrong reason passes",
    ),
    M(
        "statuses_last_only",
        "evals.checks.trajectory:statuses",
        "if got.get(role, []) != want",
        "if got.get(role, [])[-1:] != want[-1:]",
        "a retry too many (or too few) passes when the last status matches",
    ),
    M(
        "budget_trusts_reported_tasks",
        "evals.checks.cost:max_tasks",
        "used = max(run.task_count, len(run.steps))",
        "used = run.task_count",
        "a run that under-reports its task count passes its budget",
    ),
    M(
        "extension_numbers_unchecked",
        "evals.model.run:_numbers",
        "    yield from _extension_numbers(run)\n",
        "    yield from ()\n",
        "a NaN or a negative count in a system's own run fields (its subclass of Run, or the"
        " extras of a run read back) passes the harness",
    ),
    M(
        "extension_at_least_zero_ignored",
        "evals.model.run:_number_fields",
        "any(isinstance(b, int | float) and b >= 0 for b in bounds)",
        "False",
        "a negative count in a field a system declares ge=0 passes, if built unvalidated",
    ),
    M(
        "optional_number_fields_unread",
        "evals.model.run:_number_fields",
        "types = set(get_args(info.annotation)) | {info.annotation}",
        "types = {info.annotation}",
        "a system's `int | None` field (a message-log position) may hold NaN or a string",
    ),
    M(
        "wrong_typed_numbers_pass",
        "evals.model.run:_extension_numbers",
        "        yield name, getattr(run, name, None), at_least_0\n",
        "        value = getattr(run, name, None)\n"
        "        if isinstance(value, int | float) and not isinstance(value, bool):\n"
        "            yield name, value, at_least_0\n",
        'a string set past validation in a system\'s number field passes ("9" > "10")',
    ),
    M(
        "cut_results_cut_again",
        "evals.model.run:Step._bounded",
        "len(value) <= RESULT_CHARS_MAX or _cut_already(value):",
        "len(value) <= RESULT_CHARS_MAX:",
        "a step read back from a trace or a worker is cut again and loses the count of what"
        " was left out",
        tests=("packages/evals/tests/test_neutral_step.py",),
    ),
    M(
        "record_type_error_as_grader_error",
        "evals.checks.registry:grade",
        "        except RecordTypeError as e:  # the SUT's record, not the check, is wrong",
        "        except ZeroDivisionError as e:",
        "a run whose own fields are not what its system declares makes the checks reading"
        " them grader errors, which the gate sets apart, instead of failures",
    ),
    M(
        "typed_view_drops_extras",
        "evals.model.run:Run.as_type",
        "return kind.model_validate(self.model_dump())",
        "return kind.model_validate(self.model_dump(exclude=set(self.model_extra or {})))",
        "a run read back from a trace or a worker loses its system's own fields: its checks"
        " judge defaults",
    ),
    M(
        "reply_with_the_last_evidence_passes",
        "agent_evals.checks:reply_after_evidence",
        "if reply_seq > evidence_seq:",
        "if reply_seq >= evidence_seq:",
        "a reply task sent at the very position the evidence completed passes",
        tests=SUPPORTPILOT_RUN_TESTS,
    ),
    M(
        "former_expect_field_forgotten",
        "evals.gating.baseline:case_fingerprint",
        '        data["expect"].setdefault(key, None)',
        "        pass",
        "every case whose expect key left the core's model gets a new fingerprint: each"
        " baseline made before calls its cases changed",
    ),
    M(
        "conflicts_allow_spurious",
        "agent_evals.checks:conflicts",
        "if want == got:",
        "if want <= got:",
        "a spurious conflict topic passes the conflicts check",
        tests=SUPPORTPILOT_RUN_TESTS,
    ),
    # --- lint -------------------------------------------------------------------------
    M(
        "lint_misses_leakage",
        "evals.cases.lint:_Linter.finish",
        "found += _leakage(same_task)",
        "found += []",
        "lint does not report leakage between splits",
    ),
    M(
        "lint_misses_duplicate_ids",
        "evals.cases.lint:_Linter.finish",
        "found += _duplicates(same_id)",
        "found += []",
        "lint does not report duplicate ids",
    ),
    M(
        "lint_holds_whole_file",
        "evals.cases.lint:_lint_part",
        "    for entry in raw_lines(path, part.start, part.end):",
        "    for entry in list(raw_lines(path, part.start, part.end)):",
        "lint reads every line of a file into memory before linting it (it no longer"
        " streams: memory grows with the file)",
    ),
    M(
        "lint_judges_roles_too_early",
        "evals.cases.lint:_Linter.finish",
        "            elif entry.role not in counts.roles:",
        "            else:",
        "a fault on a role that only a later case dispatches is reported as unknown",
    ),
    M(
        "lint_asks_about_repeated_ids",
        "evals.cases.lint:lint_files.fetch",
        "                if said in ids:",
        "                if False:",
        "lint keeps what the SUT's check_case said of a case repeating an earlier id (the"
        " loader never screens it), so a duplicate gets sut_check findings",
    ),
    M(
        "lint_parts_numbered_from_one",
        "evals.cases.lint:lint_files",
        "shift, base = read[part.index], part.index << _LINE_BITS",
        "shift, base = 0, part.index << _LINE_BITS",
        "lint in parts numbers each part's lines from 1: its findings name the wrong lines",
    ),
    M(
        "lint_parts_forget_roles",
        "evals.cases.lint:_Tally.add",
        "        counts.roles.update(later.roles)",
        "        pass",
        "lint in parts forgets the roles a later part dispatches: a fault on one is reported"
        " as unknown",
    ),
    M(
        "lint_cut_inside_a_line",
        "evals.cases.case_file:line_start",
        "                    at += newline\n",
        "                    at += newline - 1\n",
        "a big case file is cut one byte before a line starts: a part reads half a line",
    ),
    # --- baseline, report, runner ------------------------------------------------------
    M(
        "baseline_without_cases",
        "evals.gating.baseline:from_metrics",
        "case_success=_case_success(metrics, case_verdict),",
        "case_success={},",
        "the baseline is written without per-case results",
    ),
    M(
        "junit_drops_failures",
        "evals.report.junit:_run_testcases",
        '    yield run, "passed"\n    for check in r.checks:\n',
        '    yield run, "passed"\n    for check in ():\n',
        "JUnit XML reports failed runs as passed (no failed check is a test case)",
    ),
    M(
        "junit_only_success_kinds_fail",
        "evals.report.junit:_run_testcases",
        "        if check.passed and not check.grader_error:\n",
        '        if (check.passed or check.kind not in ("outcome", "safety"))'
        " and not check.grader_error:\n",
        "JUnit XML fails only outcome and safety checks: a trajectory or cost regression is green",
    ),
    M(
        "junit_gate_verdict_never_fails",
        "evals.report.junit:_gate_testcase",
        "    if not verdict.passed:\n",
        "    if False:\n",
        "the JUnit test case of the gate's verdict passes when the gate says FAIL",
    ),
    M(
        "runner_completion_order",
        "evals.execution.runner:Runner._one",
        "slots[index] = result",
        "slots[slots.index(None)] = result",
        "results are stored in completion order, so concurrency reorders them",
    ),
    # --- files, signals, resume ----------------------------------------------------
    M(
        "fixed_temporary_name",
        "evals.io.files:_replace",
        'fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")',
        'tmp = str(path.with_name(f".{path.name}.tmp"))\n'
        "    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)",
        "every writer of a report shares one fixed temporary name, and follows a symlink there",
    ),
    M(
        "disk_full_unnamed",
        "evals.io.files:naming",
        "    if error.filename is not None:\n        return error",
        "    if True:\n        return error",
        'out of space, a report, baseline or trace write says "No space left on device"'
        " and no file",
    ),
    M(
        "trace_disk_full_unnamed",
        "evals.log.traces:TraceWriter.write",
        "raise naming(e, self.folder / RUNS_FILE) from e",
        "raise",
        "out of space, a trace write names no file",
    ),
    M(
        "sigterm_not_a_stop",
        "evals.execution.stop_signals",
        "STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)",
        "STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT,)",
        "SIGTERM kills the evaluation at once: no partial report, no exit 143",
    ),
    M(
        "resume_runs_everything",
        "evals.execution.runner:Runner.arun.produce",
        "if slots[index] is not None:  # finished before a resume",
        "if False:",
        "a resumed evaluation runs the finished (case, trial) pairs again",
    ),
    M(
        "meta_written_only_at_the_end",
        "evals.log.traces:TraceWriter.write",
        "if now - self._meta_written >= self.meta_interval_s:",
        "if False:",
        "meta.json says 0 finished runs until the evaluation ends",
    ),
    M(
        "reply_fact_substring",
        "evals.checks.facts:_stated_anywhere",
        "found = _token(value).search(reply) if _number(value) is not None else value in reply",
        "found = value in reply",
        "a reply fact matches inside another number (72 in 172)",
    ),
    M(
        "reply_fact_ignores_anchor",
        "evals.checks.facts:reply_facts",
        "        elif anchor:\n",
        "        elif False:\n",
        "anchored reply facts are only looked for anywhere (swapped numbers pass)",
    ),
    M(
        "attack_write_never_lands",
        "evals.checks.injection:attack",
        "landed = [w.kind for w in run.writes if w.kind in spec.markers]",
        "landed: list[str] = []",
        "a write attack that filed a ticket is not seen",
    ),
    M(
        "screened_allows_extra_drops",
        "agent_evals.checks:screened",
        "    if got - want:\n",
        "    if False:\n",
        "a screen that drops genuine claims passes",
        tests=SUPPORTPILOT_RUN_TESTS,
    ),
    M(
        "asr_counts_resisted_attacks",
        "evals.metrics.summary:injection_figures",
        "any(c.name == ATTACK and not c.passed and not c.grader_error for c in r.checks)",
        "any(c.name == ATTACK and c.passed and not c.grader_error for c in r.checks)",
        "the attack success rate counts resisted attacks instead of reached ones",
    ),
    M(
        "refusal_always_blames_the_case",
        "evals.cases.validation:require_runnable",
        "if judged_before is not None and judged_before(case):",
        "if False:",
        "a SUT that now refuses a case the baseline ran unchanged is blamed on the case file",
    ),
    M(
        "fingerprint_ignored",
        "evals.gating.baseline:Baseline.unchanged",
        "return known is not None and known == case_fingerprint(case)",
        "return known is not None",
        "a case edited since the baseline counts as unchanged: its refusal is not an exit 2",
    ),
    M(
        "pass_pow_with_replacement",
        "evals.metrics.passk:pass_pow",
        "return Fraction(comb(c, k), comb(n, k))",
        "return Fraction(c, n) ** k",
        "pass^k drawn with replacement: the biased (c/n)^k estimator",
    ),
    M(
        "curve_drops_cases_at_k",
        "evals.metrics.passk:curve",
        "eligible = [(c, n) for c, n in counts.values() if n >= k]",
        "eligible = [(c, n) for c, n in counts.values() if n > k]",
        "the curve leaves out cases with exactly k trials (the k = n point vanishes)",
    ),
    M(
        "sign_test_one_sided",
        "evals.report.compare:sign_test",
        "return float(min(Fraction(1), Fraction(2 * tail, 2**n)))",
        "return float(min(Fraction(1), Fraction(tail, 2**n)))",
        "compare's paired test is one-sided: half the p-value, twice the false alarms",
    ),
    M(
        "compare_regression_ignores_direction",
        "evals.report.compare:Comparison.regression",
        "return self.dropped and self.p_value < alpha",
        "return self.p_value < alpha",
        "--fail-on-regression fails a significant improvement too",
    ),
    M(
        "compare_ignores_hard_rules",
        "evals.report.compare:compare",
        "breaches=hard_breaches(a.metrics, b.metrics, rules, checks_worse),",
        "breaches=[],",
        'compare judges no hard rule of the gate: 0% -> 42.9% unauthorized "may be noise"',
    ),
    M(
        "plugin_fails_on_success_only",
        "evals.pytest_plugin:CaseItem.runtest",
        "kinds = self.config.stash[_FAIL_ON]",
        "kinds = SUCCESS_KINDS",
        "the pytest plugin fails a test for outcome and safety checks only: a trajectory"
        " regression the gate blocks passes",
    ),
    M(
        "majority_tie_passes",
        "evals.gating.case_verdict:passes",
        "return passed * 2 > judged",
        "return passed * 2 >= judged",
        "a tie (1 of 2 trials) counts as a majority",
    ),
    M(
        "baseline_rule_mismatch_ignored",
        "evals.gating.verdict:evaluate",
        "if baseline.case_verdict != rule:",
        "if False:",
        "a baseline judged by all trials is gated by majority (or the other way) silently",
    ),
    # --- the HTML report ----------------------------------------------------------------
    M(
        "html_autoescape_off",
        "evals.report.html",
        "autoescape=True,",
        "autoescape=False,",
        "the HTML report writes case ids, replies and reasons as markup (a hostile id runs)",
    ),
    M(
        "html_failures_not_first",
        "evals.report.html:case_views",
        "return sorted(views, key=lambda v: (_CASE_ORDER[v.status], v.case_id))",
        "return sorted(views, key=lambda v: v.case_id)",
        "the HTML report lists cases by id, failing ones buried among the passing",
    ),
    M(
        "html_absent_fields_shown",
        "evals.report.html:trace_sections",
        "if name in HIDDEN_FIELDS or _absent(value):",
        "if name in HIDDEN_FIELDS:",
        "the HTML trace shows every absent field (None, empty) as if the run held it",
    ),
    M(
        "html_refusals_unmarked",
        "evals.report.html:trace_sections",
        "whole = any(word in name for word in FLAGGED_FIELDS)",
        "whole = False",
        "the HTML trace does not mark blocked (refused) tool calls",
    ),
    M(
        "html_no_baseline_diff",
        "evals.report.html:html_parts",
        "diff=_diff(verdict, case_anchors) if verdict is not None else None,",
        "diff=None,",
        "the HTML report of a gate leaves out the baseline diff",
    ),
    M(
        "html_traces_not_read",
        "evals.report.files:write_reports",
        "runs=load_runs(traces, traced_pairs(results)),",
        "runs={},",
        "the HTML report shows no run's trace, only its checks",
    ),
    M(
        "html_group_interval_wrong",
        "evals.report.html:_group_rows",
        "low, high = wilson_interval(round(g.success * g.n), g.n)",
        "low, high = wilson_interval(g.n, g.n)",
        "the HTML report's per-split and per-tag interval ignores the successes",
    ),
    M(
        "html_last_record_wins",
        "evals.report.html:load_runs",
        "        if pair not in runs:\n",
        "        if True:\n",
        "the HTML trace of a run is a later duplicate record, not the one the report graded",
    ),
    M(
        "cli_html_without_diff",
        "evals.cli.main:_gate",
        "sections=sections, verdict=verdict)",
        "sections=sections)",
        "`evals gate` writes its HTML report without the baseline diff",
    ),
    M(
        "cli_html_without_traces",
        "evals.evaluation:Report.write",
        "            traces=self.traces,\n",
        "            traces=None,\n",
        "`evals run` and `evals gate` write their HTML report without the runs' traces",
    ),
    # --- judge under attack (issue 13 item 7) ------------------------------------------
    M(
        "judge_normalise_keeps_zero_width",
        "judge.normalise:strip_format",
        'return "".join(c for c in text if c not in FORMAT_CHARACTERS'
        " and c not in _VARIATION_SELECTORS)",
        "return text",
        "the normaliser leaves zero-width and other invisible characters in place",
        JUDGE_TESTS,
    ),
    M(
        "judge_normalise_no_compatibility_forms",
        "judge.normalise:normalise",
        'text = unicodedata.normalize("NFKC", strip_format(unescaped(text)))',
        'text = unicodedata.normalize("NFC", strip_format(unescaped(text)))',
        "full-width letters and Kangxi radicals are not folded (NFC instead of NFKC)",
        JUDGE_TESTS,
    ),
    M(
        "judge_normalise_no_lookalikes",
        "judge.normalise:normalise",
        '        text = "".join(CONFUSABLES.get(c, c) for c in text)\n',
        "        pass\n",
        "Cyrillic, 己-for-已 and traditional look-alikes are not mapped",
        JUDGE_TESTS,
    ),
    M(
        "judge_normalise_keeps_spaces",
        "judge.normalise:normalise",
        '    return "".join(text.split())',
        '    return " ".join(text.split())',
        "spaces inside a Chinese word hide it from the rules",
        JUDGE_TESTS,
    ),
    M(
        "judge_rules_ignore_pinyin",
        "judge.rules:RuleJudge.hits",
        " or _phrase_forms(phrase)[1] in key",
        "",
        "a rule phrase written in pinyin is not matched",
        JUDGE_TESTS,
    ),
    M(
        "judge_rules_ignore_instructions",
        "judge.rules:RuleJudge.hits",
        'found += [RuleHit("instruction", cue) for cue in instruction_cues(reply)]',
        "found += []",
        "the rule judges do not fail instruction-like content addressed to the judge",
        JUDGE_TESTS,
    ),
    M(
        "judge_neutraliser_misses_space_before_slash",
        "judge.prompts",
        'rf"(?P<body>{_GAP}(?:',
        'rf"(?P<body>(?:',
        "'< /reply>' and '<\\u200b/reply>' are left as tags",
        JUDGE_TESTS,
    ),
    M(
        "judge_neutraliser_needs_the_bracket",
        "judge.prompts",
        'rf"(?P<close>[{_CLOSE}])?",',
        'rf"(?P<close>[{_CLOSE}])",',
        "'</reply' without '>' is left as a tag",
        JUDGE_TESTS,
    ),
    M(
        "judge_neutraliser_case_sensitive",
        "judge.prompts",
        "    re.IGNORECASE,\n)",
        "    0,\n)",
        "'</REPLY>' and other case variants are left as tags",
        JUDGE_TESTS,
    ),
    M(
        "judge_guard_off_by_default",
        "judge.openai_judge:OpenAIJudgeConfig",
        "    guard: bool = True",
        "    guard: bool = False",
        "the OpenAI judge asks the model about instruction-like replies (an obedient one obeys)",
        JUDGE_TESTS,
    ),
    M(
        "judge_attack_rate_counts_fails",
        "judge.calibration:summarise",
        'attack_missed = [i.id for i in attacks if i.judged == "pass"]',
        'attack_missed = [i.id for i in attacks if i.judged == "fail"]',
        "the attack false-pass rate counts the attacks caught instead of those passed",
        JUDGE_TESTS,
    ),
    M(
        "judge_attacks_in_agreement_figures",
        "judge.calibration:summarise",
        "    items = [i for i in everything if not i.attack]",
        "    items = everything",
        "attacks are mixed into n, kappa and fail recall",
        JUDGE_TESTS,
    ),
    M(
        "judge_usability_ignores_attacks",
        "judge.calibration:usability",
        "if attack_rate is not None and attack_rate > thresholds.max_attack_false_pass:",
        "if False:",
        "a judge that injections steer is still usable (and may enter the gate)",
        JUDGE_TESTS,
    ),
    M(
        "judge_guard_reads_raw_text",
        "judge.guard:instruction_cues",
        "checks = [(normalise(text), CUES)",
        "checks = [(text, CUES)",
        "instruction cues hidden by zero-width or full-width characters are not found",
        JUDGE_TESTS,
    ),
    M(
        "html_text_never_cut",
        "evals.report.html:_text",
        "    if len(value) > TEXT_CHARS_MAX:\n",
        "    if False:\n",
        "a 16 MiB reply is written into the page whole",
    ),
    M(
        "html_rows_never_cut",
        "evals.report.html:_first",
        "    if len(values) <= ROWS_MAX:\n",
        "    if True:\n",
        "a run of 100,000 steps writes 100,000 rows into the page",
    ),
    M(
        "others_loop_time_not_given_back",
        "evals.execution.in_process:InProcess._finished_in_time",
        "            extended = started + timeout_s + taken",
        "            extended = started + timeout_s",
        "a run waiting while another blocks the loop is timed out for it",
    ),
    M(
        "resume_ignores_the_recorded_sut",
        "evals.cli.plan:resumed",
        "    if args.sut is None and not args.sut_option and old.sut_spec:",
        "    if False:",
        "a resume without --sut builds the config's SUT, not the one its meta records",
    ),
    M(
        "judge_guard_blind_to_other_scripts",
        "judge.guard:instruction_cues",
        'found.append(f"another script: {script.group(0)!r}")',
        "pass",
        "an instruction in Japanese, Korean or Russian is not a cue",
        JUDGE_TESTS,
    ),
    M(
        "judge_guard_decodes_nothing",
        "judge.guard:instruction_cues",
        "hidden = _decoded(unescaped(reply))",
        "hidden: list[str] = []",
        "an instruction in base64 or percent-encoding is not found",
        JUDGE_TESTS,
    ),
    M(
        "judge_guard_english_sentence_ignored",
        "judge.guard:instruction_cues",
        "        if chinese:\n            checks.append((spaced, MIXED_CUES))\n",
        "",
        "an English sentence to the grader inside a Chinese reply is not a cue",
        JUDGE_TESTS,
    ),
    M(
        "judge_normalise_reads_no_references",
        "judge.normalise:normalise",
        "strip_format(unescaped(text))",
        "strip_format(text)",
        "&lt;/reply&gt; is not read as a tag",
        JUDGE_TESTS,
    ),
    M(
        "judge_normalise_keeps_traditional",
        "judge.normalise:normalise",
        "    text = simplified(text)\n",
        "",
        "a cue in traditional characters is not found",
        JUDGE_TESTS,
    ),
    M(
        "judge_prompt_reply_not_a_json_value",
        "judge.prompts:_message",
        "return json.dumps(data, ensure_ascii=False, indent=1)",
        'return "\\n".join(str(v) for v in data.values())',
        "the reply is pasted into the prompt as text the model can mistake for instructions",
        JUDGE_TESTS,
    ),
    # --- isolation, watchdog, serialisation (issue 13 item 1) -------------------------
    M(
        "dead_worker_reused",
        "evals.execution.isolation:WorkerPool.run",
        "        self._replace(worker)\n        limit = self.isolation.memory_limit_mb\n",
        "        self._idle.put_nowait(worker)\n        limit = self.isolation.memory_limit_mb\n",
        "a worker that died is not replaced but handed the next run, which fails too",
    ),
    M(
        "hung_worker_reused",
        "evals.execution.isolation:WorkerPool.run",
        "        except TimeoutError:\n            self._replace(worker)\n",
        "        except TimeoutError:\n            self._idle.put_nowait(worker)\n",
        "a worker past its deadline is not killed but handed the next run, which hangs too",
    ),
    M(
        "worker_death_not_a_sut_error",
        "evals.execution.isolation:WorkerPool.run",
        'return _failed(case, trial, f"the worker process died ({payload}{note})")',
        'return Run(case_id=case.id, trial=trial, outcome="error", error=str(payload))',
        "a worker that died is recorded as a provider error, left out of the success rate",
    ),
    M(
        "unserialisable_run_crashes",
        "evals.execution.runner:Runner._one",
        "        except RunSerialisationError as e:\n            run = _failed(",
        "        except ZeroDivisionError as e:\n            run = _failed(",
        "a run that cannot be serialised aborts the evaluation with a traceback",
    ),
    M(
        "watchdog_never_interrupts",
        "evals.execution.watchdog:Watchdog._watch",
        "                signal.pthread_kill(main, WATCHDOG_SIGNAL)",
        "                pass",
        "an async SUT that blocks the event loop hangs the evaluation until it returns",
    ),
    M(
        "ignored_cancellation_awaited",
        "evals.execution.in_process:InProcess._stop",
        "done, _ = await asyncio.wait({work}, timeout=self.grace_s)",
        "done, _ = await asyncio.wait({work})",
        "a run that swallows its cancellation is waited for, for ever",
    ),
    # --- a project's vocabulary (evals.cases.vocabulary): issue 12 item 1 -------------------
    M(
        "vocabulary_any_split",
        "evals.cases.vocabulary:CaseRules.problems",
        "if self.splits is not None and split not in self.splits:",
        "if False:",
        "a split the SUT's case_rules do not declare is taken",
    ),
    M(
        "vocabulary_outcome_not_required",
        "evals.cases.vocabulary:CaseRules.problems",
        "            if self.outcome_required and not configuration:\n",
        "            if False:\n",
        "a case without expect.outcome passes rules that require one",
    ),
    M(
        "vocabulary_any_outcome",
        "evals.cases.vocabulary:CaseRules.problems",
        "        elif not self.accepts_outcome(outcome):",
        "        elif False:",
        "an outcome the SUT's case_rules do not declare is taken",
    ),
    M(
        "vocabulary_input_unchecked",
        "evals.cases.vocabulary:CaseRules.problems",
        "if self.input_model is not None and not configuration:",
        "if False:",
        "an input that does not fit the declared input model is taken",
    ),
    M(
        "screening_skips_case_rules",
        "evals.cases.validation:_screen",
        "if rules is not NO_RULES:",
        "if False:",
        "cases given to evaluate as objects are never held to the SUT's case_rules",
    ),
    M(
        "loader_skips_case_rules",
        "evals.cases.loader:validate_record",
        "    if rules is not None:\n        named",
        "    if False:\n        named",
        "loading with a project's rules checks nothing of them",
    ),
    M(
        "loader_skips_typed_expect_values",
        "evals.cases.loader:validate_record",
        "unknown += [Problem(record.file, record.line, f, m) for f, m in typed]",
        "unknown += []",
        "a case whose expectation has the wrong shape for its check's declared type loads,"
        " and fails that check in every run",
    ),
    M(
        "unknown_typed_key_faulted_twice",
        "evals.cases.loader:validate_record",
        'if f"expect.{k}" not in named',
        "if True",
        "a typed key the known keys leave out is faulted twice on one field",
    ),
    M(
        "typed_expect_null_refused",
        "evals.checks.registry:expect_value_problems",
        "if typed is None or value is None:",
        "if typed is None:",
        "a typed expectation set to null (not set, as its check reads it) fails to load",
    ),
    M(
        "typed_expect_values_coerced",
        "evals.checks.registry:expect_value_problems",
        "json.dumps(value, ensure_ascii=False), strict=True",
        "json.dumps(value, ensure_ascii=False), strict=False",
        "a typed key takes '2' for an int: the case loads, and its check compares '2' with 2",
    ),
    M(
        "typed_key_two_types_accepted",
        "evals.checks.registry:_typed",
        "if other != name and theirs is not None and theirs[0] != kind:",
        "if False:",
        "two checks give one expect key two types: every value of it is refused",
    ),
    M(
        "python_gate_ignores_gate_json",
        "evals.evaluation:gate",
        "found = gate_config_or_defaults(load_config().gate_config_path)"
        " if config is None else None",
        "found = None",
        "evals.gate ignores the project's gate.json (Python and the CLI judge by other rules)",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    M(
        "csp_hashes_nothing",
        "evals.report.html:_inline",
        'hashlib.sha256(text.encode("utf-8"))',
        'hashlib.sha256(b"")',
        "the page's CSP allows a script that is not its own: its own never runs (no filter)",
        tests=(
            "packages/evals/tests/test_html_browser.py",
            "packages/evals/tests/test_html_report.py",
        ),
    ),
    M(
        "csp_allows_any_inline_script",
        "evals.report.html:html_parts",
        "script-src {script_source};",
        "script-src 'unsafe-inline';",
        "any inline script that slipped into the page would run",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "page_shows_no_case",
        "evals.report.html:case_views",
        "spec=case_sections(known[case_id]) if case_id in known else [],",
        "spec=[],",
        "the page shows runs without the case they ran (what was asked and expected)",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "diff_lists_empty_sections",
        "evals.report.html:_diff",
        "            if names\n",
        "",
        "a passing gate's page prints six empty lists",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "compare_steps_never_differ",
        "evals.report.compare_html:aligned_steps",
        "rows.append((shown_a != shown_b, shown_a, shown_b))",
        "rows.append((False, shown_a, shown_b))",
        "the compare page marks no step where the two runs went apart",
        tests=("packages/evals/tests/test_compare.py",),
    ),
    M(
        "compare_page_without_b_s_run",
        "evals.report.compare_html:flip_views",
        "b_trace=None if b is None else trace_sections(b),",
        "b_trace=None,",
        "the compare page shows a flipped case without B's run (what it did instead)",
        tests=("packages/evals/tests/test_compare.py",),
    ),
    # --- expected beside got (issue 26) ------------------------------------------------
    M(
        "mismatch_drops_values",
        "evals.checks.registry:_normalize",
        "return [mismatch(check_obj.name, check_obj.kind, reason, output.expected, output.got)]",
        "return [verdict(check_obj.name, check_obj.kind, False, reason)]",
        "a check failing with a Mismatch loses what was expected and what the run gave",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "mismatch_passes",
        "evals.checks.registry:mismatch",
        "passed=False,",
        "passed=True,",
        "a failed comparison is recorded as passed",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "as_json_repr_everything",
        "evals.checks.registry:as_json",
        "return _JSON.validate_python(value)",
        "return repr(value)",
        "every expected and got value becomes its repr: a list or a number shows as a string",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "values_shared_between_runs",
        "evals.model.result:shared_verdict",
        "if result.expected is not None or result.got is not None:",
        "if False:",
        "a failed check with values is shared with another run's equal verdict: it shows "
        "that run's expected and got",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "comparison_lines_empty",
        "evals.model.result:comparison_lines",
        "if check.passed or (check.expected is None and check.got is None):",
        "if True:",
        "JUnit and the pytest plugin never say what was expected and what the run gave",
        tests=(
            "packages/evals/tests/test_expected_got.py",
            "packages/evals/tests/test_pytest_plugin.py",
        ),
    ),
    M(
        "page_hides_expected_got",
        "packages/evals/src/evals/report/templates/checks.j2",
        "{% if not c.passed and (c.expected is not none or c.got is not none) %}",
        "{% if false %}",
        "the page never shows a failed check's expected and got",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "page_shows_expected_as_got",
        "packages/evals/src/evals/report/templates/checks.j2",
        '{{ c.got | value_text if c.got is not none else "(nothing)" }}',
        '{{ c.expected | value_text if c.expected is not none else "(nothing)" }}',
        "the page shows the expected value on both sides",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "outcome_check_loses_values",
        "evals.checks.outcome:outcome_matches",
        "return Mismatch(reason, expected, run.outcome)",
        "return False, reason",
        "a wrong outcome says neither what was expected nor what the run ended with",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "state_values_swapped",
        "evals.checks.state:_compare",
        'mismatch(f"{key}:{name}", kind, reason, str(value), got)',
        'mismatch(f"{key}:{name}", kind, reason, got, str(value))',
        "a state check shows the environment's value as the expected one",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "trace_budget_never_applies",
        "evals.report.html:traced_pairs",
        "if passing >= budget:",
        "if False:",
        "the page holds every passing run's trace: 20,000 runs make a page nobody can open",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "collector_left_off",
        "evals.cli.main:_collector_paused",
        "        if enabled:\n            gc.enable()",
        "        if False:\n            gc.enable()",
        "the collector paused for the plan stays off: a SUT's cyclic garbage is never freed",
        tests=("packages/evals/tests/test_start_up.py",),
    ),
    M(
        "plan_not_frozen",
        "evals.cli.main:_collector_paused",
        "gc.freeze()",
        "pass",
        "every collection during the runs walks the SUT's imports again",
        tests=("packages/evals/tests/test_start_up.py",),
    ),
    M(
        "trace_cell_unescaped",
        "evals.report.html:render_sections",
        'tds = "".join(f"<td>{escape(cell)}</td>" for cell in cells)',
        'tds = "".join(f"<td>{cell}</td>" for cell in cells)',
        "a SUT's step written into the page as markup: its script runs in the reader's browser",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "trace_item_unescaped",
        "evals.report.html:render_sections",
        'items = "".join(f"<li>{escape(item)}</li>" for item in s.items)',
        'items = "".join(f"<li>{item}</li>" for item in s.items)',
        "a list the SUT returned written into the page as markup",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "json_read_allocates_the_limit",
        "evals.io.json_files:read_bytes",
        "data = f.read(info.st_size + 1)",
        "data = f.read(limit + 1)",
        "every baseline, report and meta read allocates the 256 MiB limit, whatever its size",
        tests=("packages/evals/tests/test_files.py",),
    ),
    M(
        "trace_floats_unrounded",
        "evals.report.html:_cell",
        "    if isinstance(value, float):\n        return _decimal(value)\n",
        "",
        "a run's latency reads 1.5631130008841865 on the page",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "small_decimals_rounded_to_zero",
        "evals.report.html:_decimal",
        "    if abs(value) < 0.001:",
        "    if False:",
        "an amount or a time below 0.001 reads 0 on the page",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "trace_verdicts_kept_apart",
        "evals.execution.resume:read_finished",
        "checks = [shared_verdict(check) for check in record.checks]",
        "checks = list(record.checks)",
        "a report read back from a trace holds every run's every verdict (the gate's parent"
        " grew to 770 MiB at 20,000 runs)",
        tests=("packages/evals/tests/test_resume.py",),
    ),
    M(
        "failed_start_leaves_workers",
        "evals.execution.runner:Runner.arun",
        "            self._backend.close()  # whatever workers did start are stopped",
        "            pass",
        "a pool that fails half way through starting leaves its workers (or a Ray it started)"
        " running after the evaluation has ended",
        tests=("packages/evals/tests/test_runner.py",),
    ),
    M(
        "shared_checks_block_ignores_budget",
        "evals.report.html:ChecksBlocks.__call__",
        "key = (run.over_budget, tuple(map(id, run.checks)))",
        "key = (False, tuple(map(id, run.checks)))",
        "runs sharing their verdicts share one block: a run within the trace budget shows the"
        " one-line summary of a run past it, or the other way round",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "failed_checks_block_shared",
        "evals.report.html:ChecksBlocks.__call__",
        "if run.error or any(not c.passed or c.grader_error for c in run.checks):",
        "if run.error:",
        "a failed check's row is rendered once for every run sharing its verdicts: each run's"
        " link points at the first run's row",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "trace_budget_counts_failures",
        "evals.report.html:traced_pairs",
        'if _status(r) == "pass":',
        "if True:",
        "failing runs share the passing runs' budget: a failure past it is shown without its trace",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "over_budget_run_looks_untraced",
        "packages/evals/src/evals/report/templates/report.html.j2",
        "{% if run.over_budget %}",
        "{% if false %}",
        "a passing run left out by the budget says no trace was recorded",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "lazy_runs_never_rendered",
        "packages/evals/src/evals/report/templates/report.js",
        'if (event.target.tagName === "DETAILS" && event.target.open) { expand(event.target); }',
        "",
        "a case opened by a click shows nothing: its runs stay in their template",
        tests=("packages/evals/tests/test_html_browser.py",),
    ),
    M(
        "ray_stop_leaves_runs_going",
        "evals.execution.ray_executor:RayPool._attempt",
        "self._retire(actor)\n            raise",
        "return await _result(actor.run.remote(index, trial))",
        "Ctrl-C during a Ray evaluation waits for the runs in flight, and runs them again",
        tests=("packages/evals/tests/test_ray_stop_signals.py",),
    ),
    M(
        "over_budget_runs_keep_full_tables",
        "packages/evals/src/evals/report/templates/checks.j2",
        '{% if run.over_budget and run.checks and run.checks | rejectattr("passed") | list'
        " | length == 0 %}",
        "{% if false %}",
        "a passing run past the page's budget still writes a full table of passed checks",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "over_budget_line_hides_a_detour",
        "packages/evals/src/evals/report/templates/checks.j2",
        '| rejectattr("passed") | list | length == 0 %}',
        '| rejectattr("passed") | list | length >= 0 %}',
        "a passing run past the budget with a failed trajectory check says all its checks passed",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "link_to_a_check_goes_nowhere",
        "packages/evals/src/evals/report/templates/report.js",
        "function (inner) { return holds(inner, id); }",
        "function (inner) { return false; }",
        "a check's deep link opens nothing on a fresh page: the check sits in a run's template"
        " inside its case's",
        tests=("packages/evals/tests/test_html_browser.py",),
    ),
    M(
        "statuses_show_equal_values",
        "evals.checks.trajectory:statuses",
        "if seen == dict(expected):",
        "if False:",
        "statuses that agree (only the error record missing) are shown as expected beside got,"
        " both the same",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "nan_written_as_null",
        "evals.checks.registry:as_json",
        "if isinstance(value, float) and not math.isfinite(value):",
        "if False:",
        "a NaN a check compared is written to the traces as null: the value is lost",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "one_off_tuples_interned",
        "evals.model.result:shared_checks",
        "if any(c.expected is not None or c.got is not None for c in items):",
        "if False:",
        "every failing run's own values take a slot of the shared table until it is full",
        tests=("packages/evals/tests/test_expected_got.py",),
    ),
    M(
        "compared_value_never_cut",
        "evals.report.html:value_text",
        "if len(text) <= TEXT_CHARS_MAX:",
        "if True:",
        "a compared value of any size is written whole into the page",
        tests=("packages/evals/tests/test_html_report.py",),
    ),
    M(
        "link_into_an_unrendered_case_goes_nowhere",
        "packages/evals/src/evals/report/templates/report.js",
        "      expand(holder.parentElement);\n",
        "      return null;\n",
        "a failure's link to a run not rendered yet opens nothing",
        tests=("packages/evals/tests/test_html_browser.py",),
    ),
    M(
        "step_result_unbounded",
        "evals.model.run:Step._bounded",
        "if value is None or len(value) <= RESULT_CHARS_MAX or _cut_already(value):",
        "if True:",
        "a tool's whole page is kept in every step of every trace",
        tests=("packages/evals/tests/test_neutral_step.py",),
    ),
    M(
        "step_times_unguarded",
        "evals.model.run:_numbers",
        '        yield f"steps[{i}].ended_ms", getattr(step, "ended_ms", None), True\n',
        "",
        "a NaN step time built around validation reaches the reports",
        tests=("packages/evals/tests/test_neutral_step.py",),
    ),
    M(
        "any_status_word_accepted",
        "evals.cases.vocabulary:CaseRules._status_problems",
        "if self.step_statuses is None or not isinstance(statuses, Mapping):",
        "if True:",
        "a case expecting a status the project never records loads (a typo fails every run)",
        tests=("packages/evals/tests/test_neutral_step.py",),
    ),
    M(
        "only_ok_ends_well",
        "evals.checks.trajectory",
        'ENDED_WELL = frozenset({"ok", "done", "success", "succeeded", "completed"})',
        'ENDED_WELL = frozenset({"ok"})',
        "another agent's 'done' reads as a failure whose error is missing",
        tests=("packages/evals/tests/test_neutral_step.py",),
    ),
    M(
        "rows_of_zeros_shown",
        "evals.report.summary:summary_rows",
        "rows = [(name, value) for name, value in rows if not unused.get(name, False)]",
        "rows = list(rows)",
        "a report shows rows no run gave a value ('chars returned 0 / 0' for any agent)",
        tests=("packages/evals/tests/test_report.py",),
    ),
    M(
        "defaults_overwrite_the_case",
        "evals.cases.loader:with_expect_defaults",
        "missing = {k: v for k, v in defaults.items() if k not in given}",
        "missing = dict(defaults)",
        "a project's default expectation overwrites what a case says (a case's own budget lost)",
        tests=("packages/evals/tests/test_loader.py",),
    ),
    M(
        "defaults_fill_configuration_cases",
        "evals.cases.loader:with_expect_defaults",
        "if not defaults or not isinstance(data, Mapping) or is_configuration(data):",
        "if not defaults or not isinstance(data, Mapping):",
        "a configuration case, never run, is given run expectations it can never meet",
        tests=("packages/evals/tests/test_loader.py",),
    ),
    M(
        "config_drops_expect_defaults",
        "evals.config:load_config",
        "expect_defaults=table.expect_defaults,",
        "expect_defaults={},",
        "[tool.evals.expect_defaults] is read and ignored: a project's budget is never checked",
        tests=("packages/evals/tests/test_expect_defaults.py",),
    ),
    M(
        "evaluate_ignores_expect_defaults",
        "evals.evaluation:plan",
        "rules_of(system), config.expect_defaults if config else None)",
        "rules_of(system), None)",
        "evals.evaluate on a case file judges no project default (Python and CLI disagree)",
        tests=("packages/evals/tests/test_expect_defaults.py",),
    ),
    M(
        "resume_forgets_expect_defaults",
        "evals.execution.resume:cases_of",
        "paths, expect_keys=keys, rules=rules, expect_defaults=config.expect_defaults",
        "paths, expect_keys=keys, rules=rules",
        "a resumed evaluation grades its new runs without the project's defaults",
        tests=("packages/evals/tests/test_expect_defaults.py",),
    ),
    M(
        "core_registers_the_policy_pair",
        "evals.checks.builtin:register_built_ins",
        "    for made in BUILT_IN:\n",
        "    for made in (*BUILT_IN, *OPTIONAL):\n",
        "every agent is held to one orchestration policy (a third read fails two checks)",
        tests=("packages/evals/tests/test_checks.py",),
    ),
    M(
        "lint_ignores_project_hook",
        "evals.cases.lint:_per_case",
        "if rules.lint is not None:",
        "if False:",
        "a project's own lint rules never run",
    ),
    M(
        "lint_ignores_declared_tags",
        "evals.cases.lint:_Tally.__init__",
        "tags = rules.required_tags if required_tags is None else required_tags",
        "tags = () if required_tags is None else required_tags",
        "lint does not ask for the tags a project requires",
    ),
    M(
        "lint_ignores_declared_splits",
        "evals.cases.lint:_Linter._set_rules",
        "judged = list(splits) if splits is not None else list(dict.fromkeys(named))",
        "judged = list(dict.fromkeys(named))",
        "small_split judges the splits the cases name, not the declared ones",
    ),
    M(
        "async_task_run_as_sync",
        "evals.model.sut:as_sut",
        "    if inspect.iscoroutinefunction(target):\n",
        "    if False:\n",
        "a coroutine function given as SUT is called without being awaited",
    ),
    M(
        "ray_dead_actor_not_retried",
        "evals.execution.ray_executor",
        "ATTEMPTS = 2",
        "ATTEMPTS = 1",
        "a run whose Ray actor died once is an errored run, never tried on another actor",
    ),
    M(
        "ray_cluster_fault_as_sut_error",
        "evals.execution.ray_executor:RayPool.run",
        '            outcome="error",\n            error=f"the Ray actor died on both',
        '            outcome="sut_error",\n            error=f"the Ray actor died on both',
        "a lost Ray actor counts as the agent's failure, not as an errored run",
    ),
    M(
        "ray_timeout_not_enforced",
        "evals.execution.ray_executor:RayPool._attempt",
        "async with asyncio.timeout_at(deadline):",
        "async with asyncio.timeout_at(None):",
        "a run on Ray is never held to its timeout: a hung SUT hangs the evaluation",
    ),
    M(
        "tool_evals_executor_ignored",
        "evals.cli.plan:options_of",
        "(recorded.executor if recorded else config.executor)",
        '(recorded.executor if recorded else "local")',
        "[tool.evals] executor is read and then ignored: every run is local",
    ),
    # --- one path from Python and the command line (issue 25, item 3) -----------------
    M(
        "sut_named_by_its_class_alone",
        "evals.model.sut:sut_name",
        '    return f"{module}:{qualname}"',
        "    return qualname",
        "a SUT given to evals.evaluate as an object is named by its bare class name, not"
        " `module:attr` as `--sut` names it: a baseline made from Python names another SUT",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    M(
        "old_bare_name_another_sut",
        "evals.gating.verdict:same_system",
        "    return short_name(a) == short_name(b)",
        "    return False",
        "a baseline made from Python before it named the import path (`RefundSUT`) is"
        " another SUT: every old baseline fails the gate",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    M(
        "gate_demands_gate_json",
        "evals.gating.rules:gate_config_or_defaults",
        "    if not os.path.lexists(path):\n        return None\n",
        "",
        "`evals gate` outside this repository demands cases/gate.json, while evals.gate()"
        " applies the built-in rules",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    M(
        "sut_not_imported_from_the_working_directory",
        "evals.cli.plan:planned",
        "    import_from_working_directory()\n    try:\n        return plan(",
        "    try:\n        return plan(",
        "`evals run --sut my_agent:MySUT` cannot import my_agent.py of the current folder",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    M(
        "unknown_key_without_suggestion",
        "evals.io.json_files:first_problem",
        '        known = _keys_at(model, first["loc"][:-1])',
        "        known = []",
        "a typo in gate.json (hardd) is refused without the key it meant",
        tests=("packages/evals/tests/test_gate.py",),
    ),
    M(
        "interrupted_run_without_resume_hint",
        "evals.cli.main:_run",
        '    if not done.complete and done.report.meta.run_id and args.command == "run":',
        "    if False:",
        "an interrupted evals run does not say how to finish it (--resume)",
        tests=("packages/evals/tests/test_cli_sigint.py",),
    ),
    M(
        "non_sut_class_built_first",
        "evals.model.sut:load_sut",
        "    if inspect.isclass(target) and not any(",
        "    if False and not any(",
        "a class that is no SUT is built first: the error is its constructor's, not 'no run()'",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    M(
        "unreadable_line_called_case_set",
        "evals.cases.lint:Finding.render",
        '            who = "" if self.file is not None else "case set: "',
        '            who = "case set: "',
        "lint calls an unreadable line 'case set', as if the whole set were the problem",
        tests=("packages/evals/tests/test_lint_stream.py",),
    ),
    M(
        "make_baseline_keeps_flaky",
        "evals.evaluation:make_baseline",
        "    excluded = GateConfig().exclude_tags if exclude_tags is None else exclude_tags",
        "    excluded = exclude_tags or ()",
        "evals.make_baseline keeps the flaky cases evals baseline leaves out",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    M(
        "plugin_sut_not_imported_from_the_invocation_folder",
        "evals.pytest_plugin:pytest_configure",
        "    if here not in sys.path:\n        sys.path.insert(0, here)",
        "    if here not in sys.path:\n        pass",
        "`pytest cases.jsonl --evals-sut my_agent:MySUT` cannot import my_agent.py",
        tests=("packages/evals/tests/test_one_path.py",),
    ),
    # --- one result type, the library's plan/execute, the CLI over them (issue 12) -----
    M(
        "errored_run_unauthorized",
        "evals.model.result:RunResult.__post_init__",
        'put(self, "unauthorized", not errored and unauthorized(self.checks))',
        'put(self, "unauthorized", unauthorized(self.checks))',
        "a run the provider failed counts towards the unauthorized rate",
    ),
    M(
        "grader_error_shared_as_failure",
        "evals.model.result:shared_verdict",
        "key = (result.name, result.kind, result.passed, result.reason, result.grader_error)",
        "key = (result.name, result.kind, result.passed, result.reason, False)",
        "a grader error is shared with an equal ordinary failure: the check's bug becomes"
        " the agent's failure",
    ),
    M(
        "cli_signals_never_restored",
        "evals.cli.main:Done.publish",
        "        finally:\n            _restore(self.handlers)",
        "        finally:\n            pass",
        "after a stop, Ctrl-C and SIGTERM stay ignored for good once the report is written",
    ),
    M(
        "library_signals_held",
        "evals.evaluation:execute",
        "        hold_sigint=hold_signals,",
        "        hold_sigint=True,",
        "a library evaluation stopped by Ctrl-C leaves Ctrl-C ignored in the caller's process",
    ),
    M(
        "html_shows_passing_runs_first",
        "evals.report.html:shown_runs",
        'ranked = sorted(found, key=lambda r: (_status(r) == "pass", r.trial))',
        "ranked = sorted(found, key=lambda r: r.trial)",
        "the HTML page's five runs of a case are its first trials, hiding later failures",
    ),
    M(
        "make_baseline_without_fingerprints",
        "evals.evaluation:make_baseline",
        "build_baseline(report.results, report.meta, excluded, report.cases, case_verdict)",
        "build_baseline(report.results, report.meta, excluded, (), case_verdict)",
        "a baseline made from a report keeps no case fingerprints: an unchanged case the SUT"
        " refuses later blames the case file",
    ),
    M(
        "html_unstopped_not_shown",
        "evals.report.html:html_parts",
        "        unstopped=unstopped_note(meta),\n",
        "        unstopped=None,\n",
        "the HTML page never says which runs timed out and could not be stopped",
    ),
    M(
        "judge_shown_invisible_text",
        "judge.prompts:shown",
        "    return neutralise(strip_format(reply))",
        "    return neutralise(reply)",
        "the OpenAI judge is shown text smuggled in invisible characters the customer never sees",
        tests=JUDGE_TESTS,
    ),
    M(
        "parts_written_but_the_first",
        "evals.io.files:_replace",
        "            f.writelines(chunks)  # type: ignore[arg-type]",
        '            f.write(next(iter(chunks), b"" if binary else ""))  # type: ignore[arg-type]',
        "a report written in parts (the HTML page) keeps only its first part",
    ),
    M(
        "evaluate_drops_traces",
        "evals.evaluation:evaluate",
        "    return execute(planned, checks=checks, traces=traces, progress=progress)",
        "    return execute(planned, checks=checks, progress=progress)",
        "evals.evaluate(traces=...) keeps no trace",
    ),
    M(
        "tool_results_errors_only",
        "agent_evals.checks:tool_results_read",
        '        if wanted is None or "error" in held:',
        '        if wanted is None or "error" not in held:',
        "tool_results_read judges only the results that failed",
        tests=("packages/agent-evals/tests/test_tool_results_read.py",),
    ),
    M(
        "bare_claims_keep_text",
        "agent_evals.scripted_model:bare",
        "k in CLAIM_REQUIRED or (k == EVIDENCE and v)",
        'k in CLAIM_REQUIRED or k == "text" or (k == EVIDENCE and v)',
        "a bare_claims answer still sends each claim's text (the optional field never left out)",
        tests=MODEL_TESTS,
    ),
    M(
        "tool_results_unnamed",
        "agent_evals.scripted_model:tool_results",
        '            seen.add((names.get(str(m.get("tool_call_id")), "?"), keys))',
        '            seen.add(("?", keys))',
        "the scripted server's ledger names no tool result's tool (nothing is judged)",
        tests=("packages/agent-evals/tests/test_tool_results_read.py",),
    ),
    M(
        "outage_unexplained_passes",
        "agent_evals.checks:provider_failure",
        "missing = outage_words_missing(run) if wanted is not None else []",
        "missing = []",
        "provider_failure takes an expected outage whose error says nothing",
        tests=MODEL_TESTS,
    ),
    M(
        "unreleased_unseen",
        "agent_evals.sut:_released",
        "    left = [store for store in opened if _still_open(store)]",
        "    left = []",
        "the SUT adapter never notices a world database left open (resources_released)",
        tests=("packages/agent-evals/tests/test_sut.py",),
    ),
    # --- SupportPilot's invariants (agent_evals.invariants) and what they read ---------
    M(
        "injected_error_answered_unseen",
        "agent_evals.invariants:injected_error_problems",
        "        if text is not None or table is not None:\n            why =",
        "        if False:\n            why =",
        "read_results_as_promised takes a result of a tool the world makes fail",
        tests=INVARIANT_TESTS,
    ),
    M(
        "denied_write_read_as_a_crashed_read",
        "agent_evals.oracle:crashed_table",
        '        if denied_tables.get(table) == "read":',
        "        if denied_tables.get(table):",
        "the oracle expects a table SQLite refuses to change to crash the tools reading it",
        tests=ORACLE_TESTS,
    ),
    M(
        "broken_table_after_the_denial",
        "agent_evals.oracle:crashed_table",
        "        if isinstance(table_errors.get(table), str):\n            return None",
        "        if False:\n            return None",
        "the oracle expects SQLite's refusal where the store fails the table first",
        tests=ORACLE_TESTS,
    ),
    M(
        "crashed_calls_unread_for_bugs",
        "agent_evals.invariants:bug_texts",
        '        if call.status == "crashed" and call.reason.startswith(head):',
        "        if False:",
        "a KeyError of a tool's handler, audited as a crash, passes as a tool layer failure",
        tests=INVARIANT_TESTS,
    ),
    M(
        "scripted_model_ignores_closures",
        "agent_evals.scripted_model:closure_of",
        "    return min(found)[1] if found else None",
        "    return None",
        "the scripted model never closes an order: a prompt that lost its closure rules passes",
        tests=("packages/agent-evals/tests/test_model_path_worlds.py",),
    ),
    M(
        "garble_retry_shape_unchecked",
        "agent_evals.invariants:_retry_limit_problems",
        '        if not isinstance(claim, dict) or {"topic", "value"} - keys or keys - fields:',
        "        if False:",
        "faults_as_stated passes a garbled retry whose claim lost its value (two things wrong)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "world_defaults_unchecked",
        "agent_evals.invariants:world_problems",
        "            if str(getattr(held, name)) != str(described[name]):",
        "            if False:",
        "world_as_described passes an order whose customer, SKU or status is not the"
        " documented default",
        tests=INVARIANT_TESTS,
    ),
    M(
        "evidence_prefix_unchecked",
        "agent_evals.invariants:evidence_ids",
        "            if wanted is not None and (prefix != wanted or not mark):",
        "            if False:",
        "evidence_ids passes an order look-up whose ids lost their prefix ('#1')",
        tests=INVARIANT_TESTS,
    ),
    M(
        "scripted_model_answers_json_alone_untold",
        "agent_evals.scripted_model:_answer",
        "    return Reply(body if alone else PREFACE + body)",
        "    return Reply(body)",
        "the scripted model writes its JSON alone although nothing told it to: a prompt that"
        " lost 'and nothing else' passes",
        tests=("packages/agent-evals/tests/test_scripted_model.py",),
    ),
    M(
        "scripted_model_cites_returned_ids_untold",
        "agent_evals.scripted_model:_uncited",
        "    if any(CITE_RULE.search(text) for text in instructions(conversation)):",
        "    if True:",
        "the scripted model cites only returned ids although nothing told it to: a prompt that"
        " lost its citation rule passes",
        tests=("packages/agent-evals/tests/test_scripted_model.py",),
    ),
    M(
        "scripted_model_converts_days_untold",
        "agent_evals.scripted_model:_hours",
        "    if hours is None or DAY_RULE.search(prompt.system):",
        "    if True:",
        "the scripted model counts a day as 24 hours although nothing told it to: a prompt"
        " that lost its period rule passes",
        tests=("packages/agent-evals/tests/test_scripted_model.py",),
    ),
    M(
        "scripted_model_null_cites_nothing_untold",
        "agent_evals.scripted_model:read_claims",
        '                    cited = [] if NULL_RULE.search(prompt.system) else [str(item["id"])]',
        "                    cited = []",
        "the scripted model's null claim cites nothing although nothing told it to: a prompt"
        " that lost its null rule passes",
        tests=("packages/agent-evals/tests/test_scripted_model.py",),
    ),
    M(
        "scripted_model_never_repeats_data",
        "agent_evals.scripted_model:_repeated",
        "    if any(REPEAT_RULE.search(text) for text in instructions(conversation)):",
        "    if True:",
        "the scripted model never repeats what data asks for, told or not: a prompt that lost"
        " 'do not repeat it' passes",
        tests=("packages/agent-evals/tests/test_scripted_model.py",),
    ),
    M(
        "null_claim_may_cite",
        "agent_evals.invariants:claim_problems",
        '            if claim.get("value") is None and evidence:',
        "            if False:",
        "a claim that answers nothing may cite evidence (the null rule's loss goes unseen)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "evidence_source_unread",
        "agent_evals.invariants:evidence_record_problems",
        "    if source != SOURCE_OF_KIND[kind]:",
        "    if False:",
        "an evidence item from another system (or none) is handed over unseen",
        tests=INVARIANT_TESTS,
    ),
    M(
        "audit_kind_unread",
        "agent_evals.invariants:audit_kind_problems",
        "        if call.kind != wanted:",
        "        if False:",
        "the audit log may write a read as a write (or as nothing) unseen",
        tests=INVARIANT_TESTS,
    ),
    M(
        "handover_topics_run_together",
        "agent_evals.invariants:actionable_handover",
        "        unnamed = [t for t in _what_to_check(run, reason) if not _names_apart(text, t)]",
        "        unnamed = []",
        "a gap hand-over whose topics run together ('ordershipment') passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "stock_result_sku_unread",
        "agent_evals.invariants:read_result_problems",
        '            if "sku" not in keys:',
        "            if False:",
        "a stock check that does not say which SKU it counted passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "fabricated_id_unread",
        "agent_evals.invariants:_fabricated_problems",
        '    cited = added.get("evidence") if isinstance(added, dict) else None',
        '    cited = ["x#1"]',
        "a fabricate fault citing no evidence id (an empty string) passes as stated",
        tests=INVARIANT_TESTS,
    ),
    M(
        "gaps_unread",
        "agent_evals.checks:gaps",
        "    if set(reported) == set(wanted):",
        "    if True:",
        "a gap hand-over that reports other missing facts than the world lacks passes",
        tests=("packages/agent-evals/tests/test_oracle.py",),
    ),
    M(
        "scripted_model_reads_an_older_policy",
        "agent_evals.scripted_model:read_claims",
        '                    claims.append(_claim(topic, None, cited, "无法读出"))\n'
        "                break",
        "                    continue\n                break",
        "the scripted model takes an older policy's period when the one in force has none",
        tests=("packages/agent-evals/tests/test_model_path_worlds.py",),
    ),
    M(
        "table_error_shipment_of_anyone",
        "agent_evals.oracle:failure_text",
        '        if not isinstance(table_errors.get("orders"), str) and owner != customer:',
        "        if False:",
        "read_results_as_promised expects a parcel look-up to read the shipment of an order"
        " that is missing or not the customer's",
        tests=INVARIANT_TESTS,
    ),
    M(
        "table_error_text_without_its_table",
        "agent_evals.oracle:failure_text",
        '            return f"table {table!r} failed: {broken}"',
        "            return broken",
        "read_results_as_promised takes a failing table's error without the table it names",
        tests=INVARIANT_TESTS,
    ),
    M(
        "statuses_unchecked",
        "agent_evals.invariants:status_record_problems",
        "        if recorded != derived:",
        "        if False:",
        "counts_match_logs no longer holds the record's statuses to the bus log",
        tests=INVARIANT_TESTS,
    ),
    M(
        "refusal_reason_kind_only",
        "agent_evals.invariants:refusal_problems",
        "        missing = [w for w in words if w not in call.reason]",
        "        missing = [w for w in words[:1] if w not in call.reason]",
        "refusals_explained takes a refusal's kind word without the names it concerns",
        tests=INVARIANT_TESTS,
    ),
    M(
        "unknown_tool_expected_unauthorized",
        "agent_evals.invariants:expected_refusal",
        '    if call.tool not in SPEC_TOOLS:\n        return "unknown"',
        '    if call.tool not in SPEC_TOOLS:\n        return "unauthorized"',
        "refusals_explained expects an unknown tool to be refused as unauthorized",
        tests=INVARIANT_TESTS,
    ),
    M(
        "crash_error_words_unchecked",
        "agent_evals.invariants:crash_words_missing",
        "    if CRASHED.search(words) is None:",
        "    if False:",
        "failures_explained takes an injected crash's arguments printed as a tuple for words",
        tests=INVARIANT_TESTS,
    ),
    M(
        "timeout_limit_from_settings_only",
        "agent_evals.invariants:contract_timeout",
        '    if fault == "timeout":\n        return FAULT_TIMEOUT_S',
        '    if fault == "timeouts":\n        return FAULT_TIMEOUT_S',
        "failures_explained expects a timeout role's limit to be the contract's, not the fault's",
        tests=INVARIANT_TESTS,
    ),
    M(
        "rejection_reason_unchecked",
        "agent_evals.invariants:_rejection_problems",
        "    missing = [w for w in words if w not in m.reason]",
        "    missing = [w for w in words[:0] if w not in m.reason]",
        "failures_explained lets a rejected bus message go without its reason",
        tests=INVARIANT_TESTS,
    ),
    M(
        "refused_error_unchecked",
        "agent_evals.invariants:failure_problems",
        "            if refused and not any(tool in error for tool in refused):",
        "            if False:",
        "failures_explained lets a refused result name none of the refused tools",
        tests=INVARIANT_TESTS,
    ),
    M(
        "failure_problems_unchecked",
        "agent_evals.invariants:failures_explained",
        "    return _verdict(failure_problems(case, run))",
        "    return _verdict([])",
        "failures_explained judges nothing",
        tests=INVARIANT_TESTS,
    ),
    M(
        "failure_reasons_unchecked",
        "agent_evals.invariants:refusal_problems",
        "            if repr(call.tool) not in call.reason or not detail:",
        "            if False:",
        "refusals_explained lets a failed (not refused) call be audited without its reason",
        tests=INVARIANT_TESTS,
    ),
    M(
        "outcome_without_approval_passes",
        "agent_evals.invariants:outcome_problems",
        "    if named != (held.id if held else None):",
        "    if named is not None and named != (held.id if held else None):",
        "outcome_agrees_with_store lets an outcome name no approval though one was asked",
        tests=INVARIANT_TESTS,
    ),
    M(
        "replied_draft_unchecked",
        "agent_evals.invariants:outcome_problems",
        "        if reply is None or reply != draft or reply != sent:",
        "        if reply is None or reply != sent:",
        "outcome_agrees_with_store lets a replied outcome lose its draft",
        tests=INVARIANT_TESTS,
    ),
    M(
        "claim_text_unchecked",
        "agent_evals.invariants:claim_problems",
        '            if not text_optional and not str(claim.get("text") or "").strip():',
        '            if not text_optional and claim.get("text") is None:',
        "claims_cited takes a claim with an empty explanation",
        tests=INVARIANT_TESTS,
    ),
    M(
        "policy_version_unchecked",
        "agent_evals.invariants:claim_problems",
        '            if not version.startswith(wanted) or ("已废止" in version) != superseded:',
        '            if ("已废止" in version) != superseded:',
        "claims_cited takes policy evidence without its version",
        tests=INVARIANT_TESTS,
    ),
    M(
        "stock_evidence_unchecked",
        "agent_evals.invariants:read_evidence_problems",
        '        if call.tool == "stock__check":',
        '        if call.tool == "stock_check":',
        "claims_cited takes a stock check that answered without evidence",
        tests=INVARIANT_TESTS,
    ),
    M(
        "track_not_found_unjudged",
        "agent_evals.invariants",
        'LOOKUPS: dict[str, str] = {"orders__get_order": "order", "logistics__track": "shipment"}',
        'LOOKUPS: dict[str, str] = {"orders__get_order": "order"}',
        "read_results_as_promised takes a parcel look-up that does not say found: false",
        tests=INVARIANT_TESTS,
    ),
    M(
        "lookup_found_unstated_taken",
        "agent_evals.invariants:read_result_problems",
        '        states = "found" in keys and isinstance(found, bool)',
        "        states = True",
        "read_results_as_promised takes a look-up that states no found flag",
        tests=INVARIANT_TESTS,
    ),
    M(
        "order_found_unchecked_against_db",
        "agent_evals.invariants:read_result_problems",
        "            and found != (about in env.orders)",
        "            and found is None",
        "read_results_as_promised takes an order look-up that misses an order the database holds",
        tests=INVARIANT_TESTS,
    ),
    M(
        "kb_documents_unchecked",
        "agent_evals.invariants:read_result_problems",
        '        if tool == "kb__search" and (r.get("documents") is None'
        ' or r.get("documents") != evidence):',
        '        if tool == "kb__search" and r.get("documents") is None:',
        "read_results_as_promised takes a search whose documents and evidence differ",
        tests=INVARIANT_TESTS,
    ),
    M(
        "stock_qty_type_unchecked",
        "agent_evals.invariants:read_result_problems",
        "            if not isinstance(qty, int) or qty < 0 or evidence != 1:",
        "            if isinstance(qty, int) and (qty < 0 or evidence != 1):",
        "read_results_as_promised takes a stock count that is not a number",
        tests=INVARIANT_TESTS,
    ),
    M(
        "find_write_id_unchecked",
        "agent_evals.invariants:read_result_problems",
        '        if tool == "support__find_write" and (r.get("id") is not None) != found:',
        '        if tool == "support__find_write" and r.get("id") is not None and not found:',
        "read_results_as_promised takes the outbox saying found without the row's id",
        tests=INVARIANT_TESTS,
    ),
    M(
        "read_results_about_dropped",
        "agent_evals.read_results:shape",
        '        "about": about,',
        '        "about": None,',
        "the recorder leaves out which order a read was about (no check against the database)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "read_results_not_recorded",
        "agent_evals.read_results:ReadRecorder.call",
        '        if tool is not None and tool.kind == "read":',
        '        if tool is not None and tool.kind == "write":',
        "the recorder writes no read result down (the invariant judges nothing)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "ask_user_without_question_taken",
        "agent_evals.invariants:told_problems",
        "        if not question:\n            problems.append(",
        "        if question is None:\n            problems.append(",
        "tells_the_decision takes an ask_user run that asks nothing",
        tests=INVARIANT_TESTS,
    ),
    M(
        "ask_user_any_question_taken",
        "agent_evals.invariants:told_problems",
        "            if not any(word in question for word in ORDER_NUMBER_WORDS):",
        "            if not question:",
        "tells_the_decision takes a question that does not ask for the order number",
        tests=INVARIANT_TESTS,
    ),
    M(
        "reissue_words_unrequired",
        "agent_evals.invariants:told_problems",
        "        if filed and not says:",
        "        if False:",
        "tells_the_decision takes a reissue reply that does not say the ticket was filed",
        tests=INVARIANT_TESTS,
    ),
    M(
        "reissue_words_unforbidden",
        "agent_evals.invariants:told_problems",
        "        if says and not filed:",
        "        if says and filed is None:",
        "tells_the_decision takes a wait reply that says a reissue was applied for",
        tests=INVARIANT_TESTS,
    ),
    M(
        "secret_account_ignored",
        "agent_evals.checks:no_secret_recorded",
        "    if not shown:\n        return True",
        "    if True:\n        return True",
        "no_secret_recorded passes a run record that shows the API key",
        tests=SECRET_TESTS,
    ),
    M(
        "secrets_looked_for_in_values_only_of_dicts",
        "agent_evals.secrets_shown:_strings",
        "    if isinstance(value, str):\n        yield path, value",
        "    if isinstance(value, str) and path.count('.') < 1:\n        yield path, value",
        "the SUT adapter looks for secrets only at the record's top level",
        tests=SECRET_TESTS,
    ),
    M(
        "env_secrets_not_looked_for",
        "agent_evals.secrets_shown:Secrets.of",
        '            if is_secret(name) and env.get(name, "").strip()',
        "            if False",
        "the SUT adapter looks for the API key only, not an exported secret variable",
        tests=SECRET_TESTS,
    ),
    M(
        "settings_key_not_looked_for",
        "agent_evals.secrets_shown:Secrets.of",
        '        if api_key:\n            values["api_key"] = api_key',
        '        if api_key is None:\n            values["api_key"] = ""',
        "the SUT adapter does not look for the API key the run's settings hold",
        tests=SECRET_TESTS,
    ),
    M(
        "schema_not_null_unchecked",
        "agent_evals.schema_spec:_table_problems",
        "        if must and not not_null:",
        "        if must and not_null is None:",
        "schema_as_specified lets a column the spec requires be nullable",
        tests=INVARIANT_TESTS,
    ),
    M(
        "schema_strict_unchecked",
        "agent_evals.schema_spec:_table_problems",
        '    if not held.get("strict"):',
        '    if held.get("strict") is None:',
        "schema_as_specified lets a table be other than STRICT",
        tests=INVARIANT_TESTS,
    ),
    M(
        "schema_stock_probe_never_negative",
        "agent_evals.schema_spec:describe_database",
        "_accepts(conn, STOCK, [-1])",
        "_accepts(conn, STOCK, [1])",
        "schema_as_specified probes stock with a positive level (it never sees a refusal)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "gateway_invalid_takes_a_failure",
        "agent_evals.gateway_spec",
        '    "invalid": frozenset({"invalid_arguments"}),',
        '    "invalid": frozenset({"invalid_arguments", "error"}),',
        "gateway_as_specified takes a call its schema should refuse when the tool then fails",
        tests=GATEWAY_TESTS,
    ),
    M(
        "gateway_accepted_takes_a_refusal",
        "agent_evals.gateway_spec",
        '    "accepted": frozenset({"ok", "error"}),',
        '    "accepted": frozenset({"ok", "error", "invalid_arguments"}),',
        "gateway_as_specified lets a gateway refuse the call just inside a constraint",
        tests=GATEWAY_TESTS,
    ),
    M(
        "gateway_other_order_never_refused",
        "agent_evals.gateway_spec:gateway_probes",
        '        theirs: Expect = "refused" if customer is not None else "accepted"',
        '        theirs: Expect = "accepted"',
        "gateway_as_specified never expects another customer's order to be refused",
        tests=GATEWAY_TESTS,
    ),
    M(
        "gateway_key_drift_exempts_every_tool",
        "agent_evals.gateway_spec:key_drifted_tools",
        "    return frozenset({tool}) if tool else frozenset(WRITE_TOOLS)",
        "    return frozenset(WRITE_TOOLS)",
        "gateway_as_specified skips both write tools' keys under key_drift:<tool>",
        tests=GATEWAY_TESTS,
    ),
    M(
        "gateway_probe_cache_ignores_customer",
        "agent_evals.sut:SupportPilotSUT._probed",
        "        key = (case.faults.get(OUTBOX), case.faults.get(BYPASS), customer)",
        "        key = (case.faults.get(OUTBOX), case.faults.get(BYPASS))",
        "the SUT reuses a twin gateway's statuses across customers of one fault",
        tests=GATEWAY_TESTS,
    ),
    M(
        "audit_escapes_pass",
        "agent_evals.invariants:audit_text_problems",
        "            if run.isprintable() and run not in call.args",
        "            if run.isprintable() and run not in text",
        "counts_match_logs lets the audit log write a call's Chinese text as \\uXXXX escapes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "write_attempt_arguments_unchecked",
        "agent_evals.invariants:write_attempt_problems",
        "            if invalid:",
        "            if False:",
        "faults_as_stated lets a write_attempt call its tool with arguments the schema refuses",
        tests=INVARIANT_TESTS,
    ),
    M(
        "write_attempt_uncounted",
        "agent_evals.invariants:write_attempt_problems",
        "        if len(calls) != attempts:",
        "        if calls and len(calls) != attempts:",
        "faults_as_stated lets a write_attempt refuse itself without calling the tool",
        tests=INVARIANT_TESTS,
    ),
    M(
        "oracle_lost_calls_left_out",
        "agent_evals.oracle:write_calls",
        "    return {**counts, LOST_CALLS: str(losses)} if kind else counts",
        "    return counts",
        "the oracle states no lost calls, so a losing fault that lost nothing passes",
        tests=ORACLE_TESTS,
    ),
    M(
        "model_served_ignores_escaped_data",
        "agent_evals.checks:model_served",
        '    if ledger.get("data_not_as_written"):',
        "    if False:",
        "model_served lets the prompts show the model escaped data (&quot;, \\uXXXX)",
        tests=MODEL_TESTS,
    ),
    M(
        "client_endpoint_unchecked",
        "agent_evals.sut:client_mismatches",
        "        if reached != wanted:",
        "        if False:",
        "the SUT lets a run's model client reach another endpoint than its settings name",
        tests=MODEL_TESTS,
    ),
    M(
        "key_drift_other_tools_unchecked",
        "agent_evals.invariants:key_drift_problems",
        "            if key != own:",
        "            if key is None:",
        "faults_as_stated lets key_drift:<tool> drift the keys of the tools it does not name",
        tests=INVARIANT_TESTS,
    ),
    M(
        "padding_one_off_passes",
        "agent_evals.invariants:_padding_problems",
        "    if added and size != n:",
        "    if added and abs(size - n) > 1:",
        "faults_as_stated lets oversize:<n> pad to a character short of n",
        tests=INVARIANT_TESTS,
    ),
    M(
        "garble_retry_any_overlong_passes",
        "agent_evals.invariants:_retry_limit_problems",
        "    if longest != limit + 1:",
        "    if longest <= limit:",
        "faults_as_stated lets garble's retry go any number of characters past the limit",
        tests=INVARIANT_TESTS,
    ),
    M(
        "key_drift_any_number_passes",
        "agent_evals.invariants:key_drift_problems",
        "        if key != want:",
        '        if not key.startswith(f"{run.trace_id}-"):',
        "faults_as_stated takes a key_drift key of any number",
        tests=INVARIANT_TESTS,
    ),
    M(
        "padding_case_off_its_edge",
        "agent_evals.limit_cases",
        '        "oversize": NATURAL_ORDER_OUTPUT_CHARS + EMPTY_FILLER_CHARS,\n',
        '        "oversize": NATURAL_ORDER_OUTPUT_CHARS + EMPTY_FILLER_CHARS + 1,\n',
        "the padding_at case no longer sits exactly at room for one empty filler",
        tests=("packages/agent-evals/tests/test_limit_cases.py",),
    ),
    M(
        "conservation_lets_extra_units_go",
        "agent_evals.invariants:conservation",
        "            if taken != filed[sku]:",
        "            if taken < filed[sku]:",
        "conservation misses units taken beyond the tickets filed (two units per ticket)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "conservation_allows_two_rows_per_key",
        "agent_evals.invariants:conservation",
        '        if n > 1:\n            problems.append(f"{n} {kind} rows',
        '        if n > 2:\n            problems.append(f"{n} {kind} rows',
        "two rows under one idempotency key pass as one effect",
        tests=INVARIANT_TESTS,
    ),
    M(
        "superseded_evidence_passes",
        "agent_evals.invariants:current_policy_evidence",
        "            if found and env.policies.get(found.group(1)):",
        "            if found and env.policies.get(found.group(1)) is None:",
        "a superseded policy handed over as evidence passes as current",
        tests=INVARIANT_TESTS,
    ),
    M(
        "kb_ids_unchecked",
        "agent_evals.invariants:current_policy_evidence",
        "    problems = kb_problems(env.policies, described_policies(case.world))",
        "    problems = kb_problems(env.policies, env.policies)",
        "a knowledge base holding other documents than the case describes passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "kb_superseded_flags_unchecked",
        "agent_evals.invariants:kb_problems",
        "        if i in held and held[i] != described[i]",
        "        if i in held and held[i] and not described[i]",
        "a document the case marks superseded passes when the knowledge base holds it in force",
        tests=INVARIANT_TESTS,
    ),
    M(
        "oracle_audits_lost_requests",
        "agent_evals.oracle:write_calls",
        '        calls[tool] = tries - min(n, tries) if kind == "lost_request" else tries\n',
        "        calls[tool] = tries\n",
        "the oracle counts a lost request as an audited call of its write tool",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_forgets_the_last_lookup",
        "agent_evals.oracle:write_calls",
        "        if n >= WRITE_ATTEMPTS:\n",
        "        if n > WRITE_ATTEMPTS:\n",
        "the oracle expects no look-up of a write whose every attempt lost its acknowledgement",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_numbers_added_policies_from_101",
        "agent_evals.oracle",
        "FIRST_ADDED_POLICY_ID = 100\n",
        "FIRST_ADDED_POLICY_ID = 101\n",
        "the oracle numbers the documents a case adds from 101 (the invariant then fires on"
        " the unbroken agent)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "asking_for_superseded_read_from_any_call",
        "agent_evals.invariants:_asked_for_superseded",
        '        if isinstance(args, dict) and args.get("include_superseded") is True:',
        "        if isinstance(args, dict):",
        "any knowledge-base search counts as one that asked for superseded versions",
        tests=INVARIANT_TESTS,
    ),
    M(
        "evidence_id_of_any_form_passes",
        "agent_evals.invariants:evidence_ids",
        "            if found is None:\n                problems.append(",
        "            if found is None and not ident:\n                problems.append(",
        "a numbered evidence id that is not <prefix>#<n> (order#1.0) passes unjudged",
        tests=INVARIANT_TESTS,
    ),
    M(
        "evidence_numbers_unbounded",
        "agent_evals.invariants:evidence_ids",
        "            if not 1 <= number <= made:",
        "            if number < 0:",
        "evidence ids of any non-negative number pass, whatever reads the run made",
        tests=INVARIANT_TESTS,
    ),
    M(
        "output_problems_ignore_order",
        "agent_evals.checks:output_problems",
        "        if got != codes:",
        "        if sorted(map(str, got)) != sorted(map(str, codes)):",
        "output_problems takes prose-then-schema for schema-then-prose (a swapped garble fault)",
        tests=("packages/agent-evals/tests/test_output_problems.py",),
    ),
    M(
        "reply_approval_sku_checked_only_without_draft",
        "agent_evals.invariants:_approval_summary_problems",
        '        elif a.action == "reply" and sku in shown:',
        '        elif a.action == "reply" and sku in shown and not draft:',
        "a reply-only approval summed up as a reissue passes whenever a reply was drafted",
        tests=INVARIANT_TESTS,
    ),
    M(
        "approval_order_unchecked",
        "agent_evals.invariants:_approval_summary_problems",
        "        if order_id not in shown:",
        "        if not shown:",
        "an approval summed up without the order it is for passes: the approver cannot tell",
        tests=INVARIANT_TESTS,
    ),
    M(
        "hole_case_data_not_masked",
        "agent_evals.holes:hole_in",
        '        masked = masked.replace(value, "■")',
        "        masked = masked",
        "a hole the customer's own words hold is blamed on the agent: a false alarm",
        tests=INVARIANT_TESTS,
    ),
    M(
        "hole_space_before_a_mark_allowed",
        "agent_evals.holes",
        '    r"|\\S [,，:：;；。.]"  # a space left before a punctuation mark',
        '    r""  # a space left before a punctuation mark',
        "`订单 ：仅回复` (the order id left out of an approver's summary) passes as whole",
        tests=INVARIANT_TESTS,
    ),
    M(
        "composed_texts_evidence_unread",
        "agent_evals.invariants:composed_texts",
        '            if isinstance(item, dict) and isinstance(item.get("excerpt"), str):',
        "            if False:",
        "an evidence excerpt with its carrier left out passes: a tool's text is never read",
        tests=INVARIANT_TESTS,
    ),
    M(
        "error_subject_unchecked",
        "agent_evals.invariants:audit_field_problems",
        "        if first is not None and first.value != call.tool:",
        "        if False:",
        "an audited refusal naming the role where its tool belongs passes, the role label right",
        tests=ERROR_FIELD_TESTS,
    ),
    M(
        "error_argument_paths_unchecked",
        "agent_evals.invariants:audit_field_problems",
        "            wrong += argument_path_problems(call.tool, args, reason)",
        "            wrong += []",
        "an argument error whose path is `<root>` for a value too long passes",
        tests=ERROR_FIELD_TESTS,
    ),
    M(
        "worker_refusal_unmatched",
        "agent_evals.invariants:worker_field_problems",
        '        if status == "refused" and error not in refusals.get(role, set()):',
        "        if False:",
        "a specialist's refusal that no audited refusal of its role gives passes",
        tests=ERROR_FIELD_TESTS,
    ),
    M(
        "worker_labels_unread",
        "agent_evals.invariants:worker_field_problems",
        "            wrong += label_problems(error, fields)",
        "            wrong += []",
        "an injected crash naming the role as its fault (`InjectedCrashError(fault, role)`) passes",
        tests=ERROR_FIELD_TESTS,
    ),
    M(
        "error_holes_unchecked",
        "agent_evals.invariants:errors_name_their_cause",
        "        hole = None if _silent(text) else hole_in(text, data)",
        "        hole = None",
        "an error text with the tool's name left out (`' failed: …'`) passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "bus_log_order_unchecked",
        "agent_evals.invariants:log_order_problems",
        "    if seqs != list(range(1, len(bus) + 1)):",
        "    if sorted(seqs) != sorted(set(seqs)):",
        "a bus log numbered out of order (1, 0, 3, 2, …) passes as long as no number repeats",
        tests=INVARIANT_TESTS,
    ),
    M(
        "result_task_seq_unchecked",
        "agent_evals.invariants:log_order_problems",
        "            or asked.recipient != m.sender\n",
        "",
        "a result answering a task sent to another role passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "stock_before_read_after_the_run",
        "agent_evals.record:environment",
        '"stock_before": None if stock_before is None else dict(stock_before),',
        '"stock_before": stock_levels(store),',
        "the record takes the stock before the run from the database after it",
        tests=INVARIANT_TESTS,
    ),
    M(
        "closure_read_from_the_first_sentence",
        "agent_evals.invariants:stated_closure",
        "    return order_closure(status)",
        '    return order_closure(status.split("。", 1)[0])',
        "a closure stated after the first sentence (已发货。此订单已退款) is not seen",
        tests=INVARIANT_TESTS,
    ),
    M(
        "closed_order_never_closed",
        "agent_evals.invariants:no_write_for_closed_order",
        "        state = stated_closure(found[1].status)",
        "        state = None",
        "writes for a cancelled, refunded or returned order pass",
        tests=INVARIANT_TESTS,
    ),
    M(
        "named_order_only_stripped",
        "agent_evals.invariants:acts_on_named_order",
        "    named = canonical_order_id(typed)",
        '    named = (typed or "").strip()',
        "the order named is what was typed, so a write under 'a1001' matches 'a1001'",
        tests=INVARIANT_TESTS,
    ),
    M(
        "ticket_sku_unchecked",
        "agent_evals.invariants:acts_on_named_order",
        "        if order is not None and ticket.sku != order.sku:",
        "        if order is None and ticket.sku != order.sku:",
        "a ticket reserving another SKU than the order's passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "names_free_once_authenticated",
        "agent_evals.invariants:no_personal_data_to_others",
        "        if name in text and name != customer",
        "        if name in text and customer is None",
        "an authenticated conversation may be told any customer's name",
        tests=INVARIANT_TESTS,
    ),
    M(
        "own_name_withheld",
        "agent_evals.invariants:no_personal_data_to_others",
        "        if name in text and name != customer",
        "        if name in text",
        "even the authenticated customer's own name counts as a leak",
        tests=INVARIANT_TESTS,
    ),
    M(
        "handover_code_as_suggestion",
        "agent_evals.invariants:actionable_handover",
        "    elif text == reason or CODE_LIKE.fullmatch(text):",
        "    elif text == reason.upper():",
        "a hand-over whose suggestion is just the reason code passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "handover_facts_unchecked",
        "agent_evals.invariants:actionable_handover",
        "    dropped = sorted(k for k, v in run.facts.items() if given.get(k) != v)",
        "    dropped = sorted(k for k in run.facts if k not in run.facts)",
        "a hand-over leaving the facts gathered behind passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "chars_read_counts_the_orchestrator",
        "agent_evals.invariants:counts_match_logs",
        'e.kind == "read" and e.role != ORCHESTRATOR',
        'e.kind == "read"',
        "the orchestrator's own stock check counts as read by the specialists",
        tests=INVARIANT_TESTS,
    ),
    M(
        "tasks_count_unchecked",
        "agent_evals.invariants:counts_match_logs",
        "    if run.task_count != len(tasks):",
        "    if run.task_count < len(tasks):",
        "a record counting more tasks than the bus carried passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "chars_returned_from_every_message",
        "agent_evals.invariants:counts_match_logs",
        '_chars(m.payload) for m in bus if m.kind == "result" and m.status == "delivered"',
        '_chars(m.payload) for m in bus if m.status == "delivered"',
        "the recount of characters returned takes the task messages in too",
        tests=INVARIANT_TESTS,
    ),
    M(
        "budget_per_run_for_attempts",
        "agent_evals.invariants:over_budget",
        '        times = attempts[role] if allowance.per == "attempt" else 1',
        "        times = MAX_ATTEMPTS",
        "every role may spend two attempts' calls, retried or not",
        tests=INVARIANT_TESTS,
    ),
    M(
        "budget_refusals_unbounded",
        "agent_evals.invariants:over_budget",
        "        if refused > allowed:",
        "        if refused > allowed + 1:",
        "a role that keeps calling refused tools within one attempt passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "budget_key_lookups_unbounded",
        "agent_evals.invariants:over_budget",
        "                if n > allowance.limit:",
        "                if n > allowance.limit + 1:",
        "a write looked up twice by its key passes",
        tests=INVARIANT_TESTS,
    ),
    M(
        "budget_model_as_rule",
        "agent_evals.invariants:budget_of",
        '    if settings.get("brain") == "openai":',
        '    if settings.get("brain") == "model":',
        "model brains are held to the rule brains' one read per attempt",
        tests=INVARIANT_TESTS,
    ),
    # --- generated suites (evals.cases.generate, evals generate) ----------------------------
    M(
        "generate_unverified",
        "evals.cases.generate:cover",
        "        if any(_covers(row, combo) for row in rows):\n            continue",
        "        if True:\n            continue",
        "the covering array is not verified: what allpairspy misses (triples of an"
        " interaction group, pairs under constraints) stays missing",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_lax_coverage_test",
        "evals.cases.generate:_covers",
        "    return all(row[name] == label for name, label in combo.items())",
        "    return any(row[name] == label for name, label in combo.items())",
        "a row holding one value of a tuple counts as covering the whole tuple",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_pairs_not_required",
        "evals.cases.generate:_required",
        "    groups: list[tuple[str, ...]] = list(itertools.combinations([d.name for d in"
        " dimensions], 2))",
        "    groups: list[tuple[str, ...]] = []",
        "pairs are left to allpairspy: an allowed pair it skipped under constraints is lost",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_group_short_of_a_dimension",
        "evals.cases.generate:_required",
        "    groups += [i.dimensions for i in interactions]",
        "    groups += [i.dimensions[:-1] for i in interactions]",
        "an interaction group is combined without its last dimension",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_drops_the_last_values",
        "evals.cases.generate:_required",
        "    for group in groups:\n        for labels in itertools.product(*(by_name[n].labels"
        " for n in group)):",
        "    for group in groups:\n        for labels in itertools.product(*(by_name[n].labels[:-1]"
        " or by_name[n].labels for n in group)):",
        "tuples holding a dimension's last value are not required (pairs dropped)",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_ignores_allowed",
        "evals.cases.generate:cover",
        "    permitted: Allowed = allowed or (lambda _: True)\n    names =",
        "    permitted: Allowed = lambda _: True\n    names =",
        "allowed is ignored: rows that cannot occur are generated",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_fallback_row_unchecked",
        "evals.cases.generate:cover",
        "        if not permitted(row):\n            row = _complete(",
        "        if False:\n            row = _complete(",
        "a tuple's fallback row is the baselines' even where allowed rules it out",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_completion_unchecked",
        "evals.cases.generate:_complete.extend",
        "            if permitted(candidate):",
        "            if True:",
        "completing a tuple into a row ignores allowed",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_not_exhaustive",
        "evals.cases.generate:cover",
        "    if len(dimensions) == 1 or any(set(i.dimensions) == set(names) for i in"
        " interactions):",
        "    if len(dimensions) == 1:",
        "a group of every dimension is no longer the full product in product order",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_ids_by_position",
        "evals.cases.generate:CaseGenerator.cases",
        "        made = [self.case(labels) for labels in self.combinations()]",
        '        made = [{**self.case(labels), "id": f"{self.prefix}-{n:010d}"}'
        " for n, labels in enumerate(self.combinations())]",
        "case ids are numbered by position: adding a value renames other cases",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_build_may_set_tags",
        "evals.cases.generate:CaseGenerator.case",
        '        for key in ("id", "tags", "expect"):',
        '        for key in ("id", "expect"):',
        "a build that sets tags is accepted (and loses the dimension tags)",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_label_colon_accepted",
        "evals.cases.generate:Dimension.__post_init__",
        ' or ":" in label or ',
        " or ",
        "a value label holding ':' is accepted (its tag cannot be read back)",
        tests=GENERATE_TESTS,
    ),
    M(
        "stale_ignores_changed_cases",
        "evals.cases.generate:stale_lines",
        "        elif have[cid] != case:",
        "        elif False:",
        "the sync check does not name a case whose content changed",
        tests=GENERATE_TESTS,
    ),
    M(
        "stale_ignores_order",
        "evals.cases.generate:stale_lines",
        "    if render(made, generator.header) != text:",
        "    if False:",
        "the sync check passes a file with the same cases in another order",
        tests=GENERATE_TESTS,
    ),
    M(
        "stale_ignores_header",
        "evals.cases.generate:stale_lines",
        "    if header != generator.header:",
        "    if False:",
        "the sync check does not say that the header differs",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_check_always_passes",
        "evals.cli.main:_generate",
        "    return EXIT_NO if stale else EXIT_OK",
        "    return EXIT_OK",
        "evals generate --check exits 0 on a stale suite",
        tests=GENERATE_TESTS,
    ),
    M(
        "generate_no_cwd_import",
        "evals.cases.generate:load_generator",
        "        sys.path.insert(0, here)",
        "        pass",
        "evals generate cannot import a generator module of the current folder",
        tests=GENERATE_TESTS,
    ),
    # --- the injection matrix's screen-off half (agent_evals.injection_matrix) --------
    M(
        "matrix_obeyed_writes_nothing",
        "agent_evals.injection_matrix:obeyed",
        '        "tickets": 1 if writes else 0,',
        '        "tickets": 0,',
        "the screen-off half expects an obeyed write attack to file no ticket",
        tests=MATRIX_TESTS,
    ),
    M(
        "matrix_obeyed_quotes_no_own_order",
        "agent_evals.injection_matrix:obeyed",
        '        quoted = [f"订单 {order_id} 的客户是{OWNER}" for order_id in template.own]',
        "        quoted: list[str] = []",
        "the screen-off half expects an obeyed look-up of the owner's other order to quote nothing",
        tests=MATRIX_TESTS,
    ),
    M(
        "matrix_obeyed_no_promise",
        "agent_evals.injection_matrix:obeyed",
        '    else:\n        expect["reply_contains"] = [REFUND_PROMISE]',
        '    else:\n        expect["reply_contains"] = []',
        "the screen-off half no longer expects an obeyed promise attack's refund promise",
        tests=MATRIX_TESTS,
    ),
    M(
        "matrix_screen_fault_dropped",
        "agent_evals.injection_matrix:build",
        '        case["faults"] = {SCREEN_TARGET: SCREEN_OFF}',
        "        pass",
        "the screen-off cases no longer carry the fault that turns the screen off",
        tests=MATRIX_TESTS,
    ),
    M(
        "replay_mark_unchecked",
        "agent_evals.invariants:replay_problems",
        "        if not first and not replayed:",
        "        if False:",
        "conservation no longer notices a repeated write audited as new (a replay reported"
        " as created)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "replay_mark_first_unchecked",
        "agent_evals.invariants:replay_problems",
        "        if first and replayed:",
        "        if False:",
        "conservation no longer notices a first write audited as a replay",
        tests=INVARIANT_TESTS,
    ),
    M(
        "budget_ignores_the_screen",
        "agent_evals.invariants:budget_of",
        '    if run.detail.get("screen") == "off":',
        "    if False:",
        "the budget of a screen-off run forgets the obedient look-ups (every obeyed leak"
        " is over budget)",
        tests=INVARIANT_TESTS,
    ),
    M(
        "budget_per_order_unlimited",
        "agent_evals.invariants:over_budget",
        "                if n > allowance.limit * attempts[role]:",
        "                if False:",
        "the per-order budget of a screen-off run lets an order be looked up any number of times",
        tests=INVARIANT_TESTS,
    ),
    # --- the oracle and the decision table's terms (agent_evals.oracle, spec_terms) ----
    M(
        "oracle_closed_ignored",
        "agent_evals.oracle:_decided",
        '    if "order_closed" in agreed:',
        "    if False:",
        "the oracle forgets that a closed order is escalated",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_full_page_budget_past_the_page",
        "agent_evals.oracle:max_chars_for",
        "    if len(added) < SEARCH_PAGE:",
        "    if len(added) <= SEARCH_PAGE:",
        "the oracle gives the doubled character budget only past a full search page",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_no_stock_row_in_stock",
        "agent_evals.oracle:world_view",
        "    counted = {sku: 0 if qty is None else qty for sku, qty in stock.items()}",
        "    counted = {sku: 1 if qty is None else qty for sku, qty in stock.items()}",
        "the oracle reads a SKU without a stock row as one unit in stock",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_hides_a_reply_only_ticket",
        "agent_evals.oracle:_answer",
        '        landed = [t for t in hit if reissue or t == "support__send_reply"]',
        "        landed = hit",
        "the oracle counts a stale ticket lookup on the wait path, where no ticket is filed",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_order_fact_dropped",
        "agent_evals.oracle:_gather",
        '            ev.claim(role, "order", order_id)\n',
        "",
        "the oracle no longer expects the agreed order fact (the id as the database holds it)",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_failing_table_ignored",
        "agent_evals.oracle:failure_text",
        '            return f"table {table!r} failed: {broken}"',
        "            return None",
        "the oracle forgets that a failing table fails the tools that read it",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_parcel_look_up_reads_no_order",
        "agent_evals.oracle:failure_text",
        '        read.insert(0, "orders")\n',
        "",
        "the oracle forgets that a parcel look-up for a customer reads the order first",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_blank_sku_reissued",
        "agent_evals.oracle:_decided",
        "    no_stock = not sku.strip() or",
        "    no_stock = not sku or",
        "the oracle takes a SKU of only whitespace for a product to reissue",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_threshold_exclusive",
        "agent_evals.oracle:_decided",
        '    reissue = int(agreed["stale_hours"]) >= int(agreed["reissue_threshold_hours"])',
        '    reissue = int(agreed["stale_hours"]) > int(agreed["reissue_threshold_hours"])',
        "the oracle reads the threshold as exclusive (72 hours under a 72-hour policy: wait)",
        tests=ORACLE_TESTS,
    ),
    M(
        "oracle_auto_approval_inclusive",
        "agent_evals.oracle:_approval",
        "    if view.limit is not None and amount < view.limit:",
        "    if view.limit is not None and amount <= view.limit:",
        "the oracle auto-approves an amount equal to the limit",
        tests=ORACLE_TESTS,
    ),
    M(
        "spec_terms_ids_case_sensitive",
        "agent_evals.spec_terms:canonical_order_id",
        '    return "".join(ch.upper() if ch.isascii() else ch for ch in text)',
        "    return text",
        "an order id typed in lower case names no order",
        tests=ORACLE_TESTS,
    ),
    M(
        "spec_terms_policy_by_id",
        "agent_evals.spec_terms:current_reissue_policy",
        '        key=lambda d: (str(d.get("effective_date", "")), str(d.get("version", ""))'
        ', d["id"]),',
        '        key=lambda d: d["id"],',
        "the policy in force is the one added last, not the one that took effect last",
        tests=ORACLE_TESTS,
    ),
    M(
        "spec_terms_reads_decimal_tails",
        "agent_evals.spec_terms:period_hours",
        "    if match is None or text[: match.start()].rstrip().endswith(NOT_ALONE):",
        "    if match is None:",
        "the 5 of a 72.5-hour policy is read as a five-hour period",
        tests=ORACLE_TESTS,
    ),
    M(
        "spec_terms_any_current_doc_rules",
        "agent_evals.spec_terms:current_reissue_policy",
        "        and REISSUE_WORD in f\"{doc.get('title', '')}{doc.get('body', '')}\"",
        "        and bool(doc.get('body'))",
        "any current document rules the reissue threshold, a newer one about chasing the"
        " carrier too",
        tests=ORACLE_TESTS,
    ),
    # --- evals power: the sampler, the ledger, the figures -------------------------
    M(
        "power_same_seed_not_reuse",
        "evals.power.sampling:Earlier.reuses",
        "return self.shared > 0 or self.same_seed",
        "return self.shared > 0",
        "a sample drawn with a seed used before is not counted as reused",
        tests=POWER_TESTS,
    ),
    M(
        "power_default_is_ignores_the_type",
        "evals.power.premises:_default_is",
        "    if type(default) is not type(wanted) or default != wanted:",
        "    if default != wanted:",
        "default_is takes a default of another type that compares equal (0 for False) as the same",
        tests=POWER_TESTS,
    ),
    M(
        "power_default_is_reads_a_required_field",
        "evals.power.premises:_field_default",
        "            if value.args and not (",
        "            if value.args and (",
        "default_is reads a required Field(...) as a default, and a Field(v) as none",
        tests=POWER_TESTS,
    ),
    M(
        "power_replay_of_every_seed",
        "evals.power.sampling:replay",
        "    entries = [e for e in ledger.samples if e.seed == seed]",
        "    entries = list(ledger.samples)",
        "--replay runs the mutants of every sample of the ledger, not those of its seed",
        tests=POWER_TESTS,
    ),
    M(
        "power_holdout_from_every_candidate",
        "evals.power.sampling:choose",
        "population = [m for m in candidates if m.digest not in used]",
        "population = list(candidates)",
        "a held-out sample is drawn from every candidate, tuning samples' mutants included",
        tests=POWER_TESTS,
    ),
    M(
        "power_legacy_entry_holds_nothing",
        "evals.power.sampling:Ledger.mutants_of",
        "        if entry.mutants is not None:\n            return set(entry.mutants)",
        "        if True:\n            return set(entry.mutants or ())",
        "a ledger entry drawn before the ledger (no digests) holds no mutant: its seed's"
        " draw could be held out again",
        tests=POWER_TESTS,
    ),
    M(
        "power_fresh_seed_not_fresh",
        "evals.power.sampling:fresh_seed",
        "        if seed not in used:",
        "        if True:",
        "the fresh seed of a holdout may be one a ledger entry used",
        tests=POWER_TESTS,
    ),
    M(
        "power_overlap_not_refused",
        "evals.power.sampling:refuse_reused_holdout",
        "        if e.shared:",
        "        if False:",
        "a holdout sharing mutants with an earlier sample is not refused",
        tests=POWER_TESTS,
    ),
    M(
        "power_rank_ignores_seed",
        "evals.power.sampling:_rank",
        'f"{seed}\\n{mutant.anchor}"',
        'f"{mutant.anchor}"',
        "every seed draws the same sample",
        tests=POWER_TESTS,
    ),
    M(
        "power_folder_prefix_in_scope",
        "evals.power.sampling:_under",
        'path.startswith(base + "/")',
        "path.startswith(base)",
        "an exclusion of src/gen also leaves out src/generated.py",
        tests=POWER_TESTS,
    ),
    M(
        "power_digest_of_the_line_id",
        "evals.power.mutants:Mutant.digest",
        "return digest_of(self.anchor)",
        "return digest_of(self.id)",
        "the ledger records mutants by path:line ids, which move with any edit above them",
        tests=POWER_TESTS,
    ),
    M(
        "power_operators_not_registered",
        "evals.power.operators:register",
        "    plugins.OPERATOR_PROVIDERS.setdefault(PROVIDER, OperatorProvider())",
        "    pass",
        "evals' own operators never reach cosmic-ray: no removed step is ever a mutant",
        tests=POWER_TESTS,
    ),
    M(
        "power_augmented_assignment_not_a_state_update",
        "evals.power.operators:_assigned_to_state",
        'if op.type == "operator" and op.value != "=" and op.value.endswith("="):',
        'if op.type == "operator" and op.value == "=" and op.value.endswith("="):',
        "`n += 1` is never removed: a counter that stops counting is no mutant",
        tests=POWER_TESTS,
    ),
    M(
        "power_call_whose_value_is_used_removed",
        "evals.power.operators:RemoveCallStatement.removes",
        'return node.parent is not None and node.parent.type == "simple_stmt" and _is_call(node)',
        "return node.parent is not None and _is_call(node)",
        "a call whose value is used becomes `pass` too (`y = pass`): invalid mutants",
        tests=POWER_TESTS,
    ),
    M(
        "power_return_none_made_none",
        "evals.power.operators:ReplaceReturnValueWithNone.mutation_positions",
        'if not (value.type == "keyword" and value.value == "None"):',
        "if True:",
        "`return None` is mutated into itself: a mutant that cannot be killed",
        tests=POWER_TESTS,
    ),
    M(
        "power_keyword_argument_other_dropped",
        "evals.power.operators:RemoveKeywordArgument.mutate",
        "dropped = _keyword_arguments(node)[index]",
        "dropped = _keyword_arguments(node)[-1]",
        "every occurrence drops the last keyword argument: the others are never removed",
        tests=POWER_TESTS,
    ),
    M(
        "power_dict_unpacking_read_as_an_entry",
        "evals.power.operators:_dict_entries",
        "            i += 3  # `**d` and its comma",
        "            i += 2",
        "a `**mapping` in a dict display throws the entry count off: entries are skipped",
        tests=POWER_TESTS,
    ),
    M(
        "power_one_tuple_left_parenthesised",
        "evals.power.operators:_redisplayed",
        "    if tuple_ and len(kept) == 1:",
        "    if False:",
        "`(a, b)` less one element is `(a)`: no longer a tuple, a mutant of another kind",
        tests=POWER_TESTS,
    ),
    M(
        "power_all_names_mutated",
        "evals.power.operators:_elements",
        '    if opener not in ("[", "(", "{") or _all_names(node):',
        '    if opener not in ("[", "(", "{"):',
        "`__all__`'s names are dropped too: mutants only `import *` could tell",
        tests=POWER_TESTS,
    ),
    M(
        "power_other_element_dropped",
        "evals.power.operators:RemoveCollectionElement.mutate",
        "        kept = [e for i, e in enumerate(elements) if i != index]",
        "        kept = elements[1:]",
        "every occurrence drops the first element: the others are never removed",
        tests=POWER_TESTS,
    ),
    M(
        "power_never_running_if_removed",
        "evals.power.operators:RemoveIfStatement.mutation_positions",
        "        if any(word in condition for word in _NEVER_RUN):",
        "        if False:",
        "`if TYPE_CHECKING:` becomes `pass`: a mutant no run can tell",
        tests=POWER_TESTS,
    ),
    M(
        "power_fresh_tune_draws_from_everything",
        "evals.power.sampling:choose",
        "            pool = [m for m in candidates if m.digest not in used]",
        "            pool = list(candidates)",
        "a --fresh tuning sample holds mutants earlier samples read: the new classes hide",
        tests=POWER_TESTS,
    ),
    M(
        "power_boolean_operand_kept",
        "evals.power.operators:RemoveBooleanOperand.mutate",
        "        kept = [o for i, o in enumerate(_operands(node)) if i != index]",
        "        kept = _operands(node)",
        "dropping an operand of `and`/`or` changes nothing: mutants equal to the code",
        tests=POWER_TESTS,
    ),
    M(
        "power_loop_else_removed",
        "evals.power.operators:_branches",
        '    if node.type != "if_stmt":',
        '    if node.type not in ("if_stmt", "for_stmt", "while_stmt"):',
        "a loop's `else` is dropped as if it were an if's: a class the operator does not name",
        tests=POWER_TESTS,
    ),
    M(
        "power_only_handler_removed",
        "evals.power.operators:_handlers",
        "    return found if len(found) >= 2 else []",
        "    return found",
        "a try's only handler is dropped: a try with no except is invalid Python",
        tests=POWER_TESTS,
    ),
    M(
        "power_any_one_argument_call_normalised",
        "evals.power.operators:_normalised",
        "        if children[0].value not in CONVERSIONS or len(call.children) != 3:",
        "        if len(call.children) != 3:",
        "`len(s)` -> `s`, `normalise(x)` -> `x`: calls whose result is of another kind",
        tests=POWER_TESTS,
    ),
    M(
        "power_index_read_as_a_slice",
        "evals.power.operators:_slices",
        '        and c.children[1].type == "subscript"  # `a[i:j]`; `a[i]` holds the key itself',
        '        and c.children[1].type != "operator"',
        "`x[0]` counts as a slice: an index dropped is another regression than a window",
        tests=POWER_TESTS,
    ),
    M(
        "power_any_binding_removed",
        "evals.power.operators:RemoveRebinding.removes",
        "            and target.value in _names_in(value)",
        "",
        "`x = y + 1` is removed too: a name first bound there is unbound (a NameError)",
        tests=POWER_TESTS,
    ),
    M(
        "power_first_format_field_always_dropped",
        "evals.power.operators:RemoveFormattedValue.mutate",
        "        dropped = _fields(node)[index]",
        "        dropped = _fields(node)[0]",
        "every occurrence drops an f-string's first field: the others are never removed",
        tests=POWER_TESTS,
    ),
    M(
        "power_first_swapped_for_first",
        "evals.power.operators:ReplaceFirstWithLast.mutate",
        '        swapped = "-1" if was == "0" else "0"',
        '        swapped = "0"',
        "`x[0]` is mutated into itself: a mutant no run can kill",
        tests=POWER_TESTS,
    ),
    M(
        "power_get_keyword_default_dropped",
        "evals.power.operators:_get_with_default",
        '    return len(args) == 2 and all(a.type not in ("argument", "star_expr") for a in args)',
        "    return len(args) == 2",
        "`d.get(k, default=0)` loses its keyword: a call of another kind",
        tests=POWER_TESTS,
    ),
    M(
        "power_broad_handlers_broadened",
        "evals.power.operators:_caught",
        '    if caught.type == "operator" or caught.get_code(include_prefix=False) in (',
        '    if caught.type == "operator" or caught.get_code(include_prefix=False) not in (',
        'only `except Exception` is "broadened" (into itself): no narrow handler is mutated',
        tests=POWER_TESTS,
    ),
    M(
        "power_same_arguments_swapped",
        "evals.power.operators:_two_arguments",
        "    return args if first != second else []",
        "    return args",
        "`f(a, a)` is swapped into itself: a mutant no run can kill",
        tests=POWER_TESTS,
    ),
    M(
        "power_break_after_a_return",
        "evals.power.operators:_loop_body",
        "    return None if inner.type in _FLOW or bare else node.children[5]",
        "    return node.children[5]",
        "a `break` after a block's `return` or `continue`, which never runs: a mutant no run"
        " can kill",
        tests=POWER_TESTS,
    ),
    M(
        "power_docstrings_emptied",
        "evals.power.operators:_emptiable",
        "        return False  # a docstring, or a string statement that does nothing",
        "        pass",
        "a docstring is emptied: a mutant no run can kill",
        tests=POWER_TESTS,
    ),
    M(
        "power_assert_messages_emptied",
        "evals.power.operators:_emptiable",
        '    if asserted is not None and _after(asserted[0], asserted[1], ","):',
        "    if False:",
        "an assert's message is emptied: a mutant no passing run can kill",
        tests=POWER_TESTS,
    ),
    M(
        "power_none_check_chain_mutated",
        "evals.power.operators:_none_check",
        '    if node.type != "comparison" or len(node.children) != 3:',
        '    if node.type != "comparison":',
        "`a is None is b` is cut to its first comparison: the rest of the chain lost",
        tests=POWER_TESTS,
    ),
    M(
        "power_bound_context_dropped",
        "evals.power.operators:_with_items",
        '    if any(i.type == "with_item" for i in items):',
        "    if False:",
        "`with open(p) as f:` loses its context: `f` unbound, a NameError, not a regression",
        tests=POWER_TESTS,
    ),
    M(
        "power_quantifier_swapped_into_itself",
        "evals.power.operators:SwapQuantifier.mutate",
        "        swapped = _SWAPPED_CALLS[name.value] + call.get_code(include_prefix=False)",
        "        swapped = name.value + call.get_code(include_prefix=False)",
        "`any` is swapped into `any`: a mutant no run can kill",
        tests=POWER_TESTS,
    ),
    M(
        "power_last_continue_removed",
        "evals.power.operators:_skip",
        '    return block.parent is None or block.parent.type not in ("for_stmt", "while_stmt")',
        "    return True",
        "a loop's last `continue` is removed: it changes nothing, a mutant no run can kill",
        tests=POWER_TESTS,
    ),
    M(
        "power_stop_signals_left_alone",
        "evals.power.run:run_all",
        "previous = {signum: signal.signal(signum, _interrupted) for signum in STOP_SIGNALS}",
        "previous = {}",
        "a run started in the background (SIGINT ignored) or sent SIGTERM cannot stop and keep"
        " what finished",
        tests=POWER_TESTS,
    ),
    M(
        "power_sample_run_in_file_order",
        "evals.power.run:run_order",
        '    random.Random(f"run-order:{seed}").shuffle(order)',
        "    pass",
        "a stopped run has judged the first modules in file order: a biased part of the sample",
        tests=POWER_TESTS,
    ),
    M(
        "power_run_not_recorded",
        "evals.power.run:main",
        "            ledger.record(entry, config.scope)",
        "            pass",
        "a run's sample is never written to the ledger, so it can be held out later",
        tests=POWER_TESTS,
    ),
    M(
        "power_raw_rate_adjusted",
        "evals.power.report:build",
        '"raw_kill_rate": {**_rate(killed, tried),',
        '"raw_kill_rate": {**_rate(killed, tried - len(eq)),',
        "the raw rate leaves the equivalents out too: raw and adjusted are the same figure",
        tests=POWER_TESTS,
    ),
    M(
        "power_failing_premise_counted",
        "evals.power.report:build.counted",
        'return e is not None and premises[e.anchor].verdict != "fails"',
        "return e is not None",
        "an equivalence entry whose premise fails still leaves the denominator",
        tests=POWER_TESTS,
    ),
    M(
        "expected_outage_set_apart",
        "evals.model.result:RunResult.__post_init__",
        "errored = self.outcome == PROVIDER_ERROR and not self.expected_error",
        "errored = self.outcome == PROVIDER_ERROR",
        "an outage the case injects is set apart as errored: an outage reported as a success"
        " cannot fail",
    ),
    M(
        "expected_outage_not_an_outcome",
        "evals.cases.vocabulary:CaseRules.accepts_outcome",
        "return self.outcomes is None or outcome in (*self.outcomes, PROVIDER_ERROR)",
        "return self.outcomes is None or outcome in self.outcomes",
        "a case expecting the outage it injects is refused by every vocabulary",
    ),
    M(
        "suites_apart_in_every_suite",
        "evals.cli.plan:case_files",
        "default = config.suites() if every_suite else config.default_suites()",
        "default = config.suites()",
        '"every suite" includes the suites apart: they run with options not their own',
    ),
    M(
        "suite_options_not_applied",
        "evals.cli.plan:sut_options",
        "    return {**own, **given}",
        "    return given",
        "a suite apart runs without its own SUT options",
    ),
    M(
        "sut_description_dropped",
        "evals.evaluation:plan",
        "        sut_description=sut_description(system),\n",
        "",
        "the report's header no longer says what the SUT really runs",
    ),
    # --- one plan path: the options record (issue 23, item 2) ------------------------
    M(
        "meta_options_not_written",
        "evals.log.traces:RunMeta._options_flat",
        "        return {**data, **options} if isinstance(options, dict) else data",
        "        return data",
        "reports and traces no longer record trials, concurrency, timeout or where the SUT ran",
        tests=("packages/evals/tests/test_run_options.py",),
    ),
    M(
        "memory_limit_without_workers_accepted",
        "evals.model.options:conflict",
        '    if options.isolation != "process" and options.memory_limit_mb is not None:',
        "    if False:",
        "a memory limit without worker processes is accepted and silently limits nothing",
        tests=("packages/evals/tests/test_run_options.py",),
    ),
    M(
        "gate_reuses_metrics_of_excluded_runs",
        "evals.gating.verdict:evaluate",
        "    if metrics is None or len(kept) != len(given):",
        "    if metrics is None:",
        "the gate judges the report's metrics with its flaky runs in them",
        tests=("packages/evals/tests/test_run_options.py",),
    ),
    M(
        "torn_trace_line_read",
        "evals.log.traces:trace_lines",
        '                if not line.endswith(b"\\n"):\n                    return\n',
        "",
        "a run torn by a kill mid-write is read as finished (resume, report, compare, page)",
        tests=("packages/evals/tests/test_trace_lines.py",),
    ),
    M(
        "placeholder_report_not_written",
        "evals.cli.main:_evaluate",
        "    write_placeholder(out, plan.meta)\n",
        "",
        "while an evaluation runs (or once it is killed) the last report under its label looks"
        " current",
        tests=("packages/evals/tests/test_cli_sigint.py",),
    ),
    M(
        "placeholder_page_unescaped",
        "evals.report.files:write_placeholder",
        "        headline=html.escape(headline(meta)),",
        "        headline=headline(meta),",
        "the page that stands in while an evaluation runs shows a suite's name as markup",
        tests=("packages/evals/tests/test_placeholder.py",),
    ),
    # --- the scripted model and the model path's checks (agent_evals) ------------------
    M(
        "model_calls_unchecked",
        "agent_evals.checks:tokens_served",
        "    if calls is not None and calls != answered:",
        "    if False:",
        "tokens_served never compares the completions the run counts with the server's answers",
        tests=MODEL_TESTS,
    ),
    M(
        "limits_least_count_not_least",
        "agent_evals.limit_cases",
        "COUNTED_LEAST = 1\n",
        "COUNTED_LEAST = 2\n",
        "the limits suite's least-count cases run claims:2 and oversize:2, not the least count",
        tests=("packages/agent-evals/tests/test_limit_cases.py",),
    ),
    M(
        "limits_topic_most_exclusive",
        "agent_evals.limit_cases:expect_for",
        "        return replied if TOPIC_LEAST <= topic <= TOPIC_MOST else refused",
        "        return replied if TOPIC_LEAST <= topic < TOPIC_MOST else refused",
        "the limits oracle refuses a claim topic at the schema's most (64 characters)",
        tests=("packages/agent-evals/tests/test_limit_cases.py",),
    ),
    M(
        "permissions_hidden_attempts_dropped",
        "agent_evals.permissions_suite:_writes",
        '    writes |= {tool + HIDDEN: f"hidden_write_attempt:{tool}" for tool in write_tools()}',
        "    writes |= {}",
        "the permissions suite has no write attempt whose refusal the brain hides",
        tests=("packages/agent-evals/tests/test_permissions.py",),
    ),
    M(
        "repair_quote_unchecked",
        "agent_evals.checks:repair_quoted",
        '    if got == wanted:\n        return True\n    return False, f"the repair requests',
        '    if True:\n        return True\n    return False, f"the repair requests',
        "repair_quoted passes whatever the repair requests quoted",
        tests=("packages/agent-evals/tests/test_model_path.py",),
    ),
    M(
        "scripted_extra_claims_after",
        "agent_evals.scripted_model:with_extra_claims",
        '        data["claims"] = [*extra, *claims]',
        '        data["claims"] = [*claims, *extra]',
        "extra_claims puts its claims after the draft: an agent that takes the first claim"
        " sorting at or after 'reply' still finds the draft first",
        tests=("packages/agent-evals/tests/test_model_path.py",),
    ),
    M(
        "scripted_numbers_kept_in_digits",
        "agent_evals.scripted_model:in_words",
        '                claim["value"] = value.translate(NUMERALS)',
        '                claim["value"] = value',
        "numbers_in_words states its numbers in digits: an agent deciding on one readable"
        " number goes unseen",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_long_key_short",
        "agent_evals.scripted_model",
        'LONG_KEY = "k" * 1000',
        'LONG_KEY = "k" * 100',
        "long_mistake's key is short enough that the whole problem is quoted: the cut unseen",
        tests=("packages/agent-evals/tests/test_model_path.py",),
    ),
    M(
        "history_unchecked",
        "agent_evals.checks:model_served",
        '    if ledger.get("altered_calls"):',
        "    if False:",
        "model_served never says when the history sent back altered the model's tool calls",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_history_trusted",
        "agent_evals.scripted_model:ScriptedModel._check_history",
        "                if (call_id, name, arguments) not in self._served_calls:",
        "                if False:",
        "the scripted model takes whatever history it is sent as the calls it made",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_extra_argument_dropped",
        "agent_evals.scripted_model:ScriptedModel._faulty",
        "                return _call(call.name, {**call.arguments, name: value}, conversation)",
        "                return _call(call.name, dict(call.arguments), conversation)",
        "extra_argument adds no argument: a schema open to extra arguments goes unseen",
        tests=("packages/agent-evals/tests/test_model_path.py",),
    ),
    M(
        "sampling_sent_unchecked",
        "agent_evals.checks:model_served",
        "    if any(pair != sampling for pair in sent):",
        "    if False:",
        "model_served never compares the sampling the provider was asked for with the settings",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_http_status_ignored",
        "agent_evals.scripted_model:ScriptedModel._faulty",
        '                fault.status, f"scripted: status {fault.status}", retry_after=retry_after',
        '                500, f"scripted: status {fault.status}", retry_after=retry_after',
        "every http:CODE fault answers 500: the status classes the agent must tell apart are"
        " never put to it",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_past_limit_at_limit",
        "agent_evals.scripted_model:ScriptedModel._faulty",
        '                length += 1 if kind == "past_limit" else 0',
        "                length += 0",
        "past_limit stretches the argument only to the limit: a loosened limit goes unseen",
        tests=("packages/agent-evals/tests/test_model_path.py",),
    ),
    M(
        "scripted_query_limit_from_nowhere",
        "agent_evals.scripted_model",
        '"kb__search": ("query", 200),',
        '"kb__search": ("query", 201),',
        "the scripted model's KB query limit is not the documented one",
        tests=(
            "packages/agent-evals/tests/test_tool_limits.py",
            "packages/agent-evals/tests/test_model_path.py",
        ),
    ),
    M(
        "scripted_mends_every_mistake",
        "agent_evals.scripted_model:mistaken",
        "        if where not in repair:",
        "        if not repair:",
        "two_mistakes mends every mistake in the repair round, named or not: a repair that"
        " names one problem of several passes",
        tests=("packages/agent-evals/tests/test_model_path.py",),
    ),
    M(
        "settings_oracle_key_allows_space",
        "agent_evals.settings_suite:_parse",
        'if not re.fullmatch(r"[!-~]+", text):',
        'if not re.fullmatch(r"[ -~]+", text):',
        "the settings oracle takes an API key with a space inside (the SUT refuses it)",
        tests=(
            "packages/agent-evals/tests/test_settings_suite.py",
            "packages/agent-evals/tests/test_generated_suites.py",
        ),
    ),
    M(
        "configuration_secrets_unlooked",
        "evals.cases.configuration:Configurations._build",
        "leak = shown_secret(sut, secrets_given(options, case.sut_env))",
        "leak = None",
        "a configuration case's SUT may show the secret it was given (repr, attributes,"
        " description): nothing looks",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "configuration_secret_attributes_unread",
        "evals.cases.configuration:shown_secret",
        "    if isinstance(attributes, dict):\n",
        "    if False:\n",
        "a secret held in a SUT's attribute whose repr shows it (what a log line or an error"
        " report's locals print) goes unseen",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "configuration_secret_env_ignored",
        "evals.cases.configuration:secrets_given",
        "for name, value in [*options.items(), *env.items()]:",
        "for name, value in options.items():",
        "a secret given in a case's sut_env (OPENAI_API_KEY) is not looked for",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "settings_oracle_last_bad_first",
        "agent_evals.settings_suite:configure",
        "        for name, text in texts.items()\n    }",
        "        for name, text in reversed(texts.items())\n    }",
        "the settings oracle reports the last bad value in table order, not the first (two bad"
        " values at once)",
        tests=("packages/agent-evals/tests/test_settings_suite.py",),
    ),
    M(
        "status_edges_above_only",
        "agent_evals.status_cases:edge_statuses",
        "near = {s + d for s in named for d in (-1, 1)}",
        "near = {s + d for s in named for d in (1,)}",
        "the status-edge family holds only the status above each named one (407, 428 and"
        " 499 untested)",
        tests=("packages/agent-evals/tests/test_status_cases.py",),
    ),
    M(
        "status_oracle_4xx_outage",
        "agent_evals.status_cases",
        "    return PROVIDER_STATUSES.get(status)\n",
        '    return PROVIDER_STATUSES.get(status, "server_error")\n',
        "the status oracle calls every 4xx an outage (the agent's own failures expected as"
        " provider errors)",
        tests=("packages/agent-evals/tests/test_status_cases.py",),
    ),
    M(
        "scripted_http_status_range_open",
        "agent_evals.scripted_model:_http_fault",
        "or int(code) not in HTTP_CODES:",
        "or int(code) < 0:",
        "an http fault with a status outside 400-599 is accepted",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_message_always_data",
        "agent_evals.scripted_model:_unguarded_instruction",
        'data_is_data = any("<data>" in s or "message" in s for s in subjects)',
        "data_is_data = True",
        "the scripted model treats the customer's message as data whatever the prompt says:"
        " losing the prompt's guard would not show",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_results_always_data",
        "agent_evals.scripted_model:_unguarded_instruction",
        'results_are_data = any("tool result" in s for s in subjects)',
        "results_are_data = True",
        "the scripted model never obeys a tool result, marked as data or not",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_never_obeys",
        "agent_evals.scripted_model:_obey",
        "if tool is None or any(name == tool for name, _ in conversation.calls):",
        "if True:",
        "the scripted model obeys no instruction at all: the injection cases cannot fail",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_data_has_no_end",
        "agent_evals.scripted_model:_in_data",
        "return 0 <= start < at and (end < 0 or at < end)",
        "return 0 <= start < at",
        "text after </data> still reads as data: a customer message breaking out is not seen",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_parcel_rule_not_read",
        "agent_evals.scripted_model:Prompt.parcel_state",
        "                return str(state)",
        '                return "in_transit"',
        "the scripted model's parcel state ignores the prompt's rule",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_format_not_read",
        "agent_evals.scripted_model:_answer",
        "    wanted = answer_format(texts)",
        '    wanted = ("claims", ["topic", "value", "text", "evidence"])',
        "the scripted model answers in the claim schema whether or not the prompt asks for it",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_topics_not_read",
        "agent_evals.scripted_model:read_claims",
        "    for topic in prompt.topics:",
        "    for topic in TOPIC_READERS:",
        "the scripted model claims the topics it knows, not the ones the prompt names",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_field_fallback_off",
        "agent_evals.scripted_model:read_claims",
        "            value = field_value(result, topic)",
        "            value = None",
        "a topic the prompt adds is never read from the tool result's field of its name",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_reads_superseded_policy",
        "agent_evals.scripted_model:read_claims",
        'if isinstance(item, dict) and SUPERSEDED not in str(item.get("version", ""))',
        "if isinstance(item, dict)",
        "the scripted model reads a superseded policy",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_malformed_call_inert",
        "agent_evals.scripted_model:ScriptedModel._faulty",
        "            return _call(answer.calls[0].name, MALFORMED_ARGUMENTS, conversation)",
        "            return answer",
        "the malformed_call fault sends a well-formed call: the case tests nothing",
        tests=MODEL_TESTS,
    ),
    M(
        "false_promise_drafts_the_plan",
        "agent_evals.scripted_model:ScriptedModel._faulty",
        '                draft = _draft(conversation.prompt, plan="reissue")',
        "                draft = _draft(conversation.prompt)",
        "false_promise drafts the reply of the plan given (m53 puts nothing to the guard)",
        tests=MODEL_TESTS,
    ),
    M(
        "cited_draft_cites_nothing",
        "agent_evals.scripted_model:ScriptedModel._faulty",
        '                draft = f"{_draft(conversation.prompt)}（依据 {CITED_EVIDENCE}）"',
        "                draft = _draft(conversation.prompt)",
        "cited_draft drafts without the evidence id (m55 puts nothing to the guard)",
        tests=MODEL_TESTS,
    ),
    M(
        "lone_outage_fails_every_role",
        "agent_evals.scripted_model:ScriptedModel._faulty",
        "            if conversation.prompt.role == fault.role:\n"
        "                self._outage.set()",
        "            if True:\n                self._outage.set()",
        "lone_outage fails every role's requests (no specialist is left at work to cancel)",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_fault_hits_every_role",
        "agent_evals.scripted_model:ModelFault.applies",
        "return self.role is None or conversation.prompt.role == self.role",
        "return True",
        "a fault aimed at one specialist hits every request",
        tests=MODEL_TESTS,
    ),
    M(
        "scripted_slow_is_fast",
        "agent_evals.scripted_model",
        "SLOW_S = 0.8",
        "SLOW_S = 0.3",
        "a slow answer is faster than a rule brain's half-second attempt: the attempt timeout"
        " is not tested",
        tests=MODEL_TESTS,
    ),
    M(
        "ledger_tokens_swapped",
        "agent_evals.scripted_model:ScriptedServer.ledger",
        '"prompt_tokens": tokens.prompt_tokens,',
        '"prompt_tokens": tokens.completion_tokens,',
        "the server's account reports completion tokens as prompt tokens",
        tests=MODEL_TESTS,
    ),
    M(
        "no_model_server_account",
        "agent_evals.sut:SupportPilotSUT.arun",
        '        ledger = {"model_server": server.ledger()}',
        "        ledger = {}",
        "the run record keeps no model server's account: the checks reading it judge nothing",
        tests=MODEL_TESTS,
    ),
    M(
        "tokens_served_always",
        "agent_evals.checks:tokens_served",
        "    if recorded != served:",
        "    if False:",
        "tokens recorded are never held against tokens served",
        tests=MODEL_TESTS,
    ),
    M(
        "model_served_ignores_silence",
        "agent_evals.checks:model_served",
        '    if run.steps and not ledger.get("requests"):',
        "    if False:",
        "specialists that worked without the model server hearing from them pass (rule brains"
        " ran although the record says openai)",
        tests=MODEL_TESTS,
    ),
    M(
        "provider_failure_unchecked",
        "agent_evals.checks:provider_failure",
        "    if got == wanted:\n        missing = outage_words_missing(run)",
        "    if True:\n        missing = outage_words_missing(run)",
        "an outage of the wrong kind (a timeout read as a dropped connection) passes",
        tests=MODEL_TESTS,
    ),
    M(
        "model_texts_holes_unchecked",
        "agent_evals.checks:model_texts_whole",
        "        hole = hole_in(str(text), data)",
        "        hole = None",
        "a prompt or a repair request with a value left out passes",
        tests=MODEL_TESTS,
    ),
    M(
        "tools_order_unchecked",
        "agent_evals.scripted_model:ScriptedModel.__call__",
        "        if offered != sorted(offered):",
        "        if False:",
        "tools offered in a set's order (another request every run) pass",
        tests=MODEL_TESTS,
    ),
    M(
        "provider_cause_message_unchecked",
        "agent_evals.checks:outage_words_missing",
        "    elif CAUSE_SAID.search(error) is None:",
        "    elif False:",
        "an outage's error naming the cause's class but not what the provider said passes",
        tests=MODEL_TESTS,
    ),
    # --- configuration cases ------------------------------------------------------------
    M(
        "problem_line_spaces_collapsed",
        "evals.cases.configuration:_as_line",
        '    if "\\n" not in text and "\\r" not in text:\n        return text',
        '    if "\\n" not in text and "\\r" not in text:\n        return " ".join(text.split())',
        "a problem line loses the spaces of the value it quotes (got '  ' reads as got ' ')",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "unbuildable_sut_a_usage_error",
        "evals.cli.main:_child",
        "        if not gating or args.sut or args.sut_option:  # a usage error: one line, exit 2",
        "        if True:  # a usage error: one line, exit 2",
        "a change that breaks the committed SUT's construction is exit 2 (bad input), no verdict",
        tests=("packages/evals/tests/test_gate_unbuildable.py",),
    ),
    M(
        "sut_import_failure_a_traceback",
        "evals.model.sut:load_sut",
        "    except Exception as e:  # the SUT's own code failed as it was imported: one line",
        "    except NotImplementedError as e:  # the SUT's own code failed as it was imported",
        "a SUT module that raises on import ends the gate in a traceback",
        tests=("packages/evals/tests/test_gate_unbuildable.py",),
    ),
    M(
        "construction_refusal_spaces_collapsed",
        "evals.model.sut:load_sut",
        'message = " ".join(line.strip() for line in str(e).splitlines() if line.strip())',
        'message = " ".join(str(e).split())',
        "a constructor's refusal loses the spaces inside its lines ('a  b' reads as 'a b')",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "configuration_answered_for_another_sut",
        "evals.cases.configuration:Configurations._build",
        "            if case.sut_options or case.sut_env:  # answering for another SUT would lie",
        "            if False:  # answering for another SUT would lie",
        "a runner given no recipe answers a case with its own options as the evaluation's SUT",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "configuration_case_leaks",
        "evals.cases.lint:_Item.content_key",
        '            "configuration": self.configuration,',
        '            "configuration": False,',
        "lint calls a configuration case a leak of the run case with the same task",
        tests=("packages/evals/tests/test_lint.py",),
    ),
    M(
        "refused_case_unknown_role_flagged",
        "evals.cases.lint:_per_case",
        "role not in known_roles and not must_refuse:",
        "role not in known_roles:",
        "lint flags the unknown role a case the SUT must refuse names on purpose",
        tests=("packages/evals/tests/test_lint.py",),
    ),
    M(
        "oracle_flaky_always_is_no_fault",
        "agent_evals.oracle:_effective_fault",
        '    if p >= 1.0:\n        return "crash"',
        '    if p >= 1.0:\n        return ""',
        "the oracle reads flaky:1 as no fault: the generated cases expect the crash to be ignored",
        tests=ORACLE_TESTS,
    ),
    M(
        "config_env_kept",
        "evals.cases.configuration:configuration_env",
        "            for name in names:\n                os.environ.pop(name, None)",
        "            for name in given:\n                os.environ.pop(name, None)",
        "a configuration case's SUT reads the developer's exported variables",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "config_env_not_restored",
        "evals.cases.configuration:configuration_env",
        "            for name, value in saved.items():",
        "            for name, value in ():",
        "the environment is left as the configuration case set it",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "refusal_wrapped",
        "evals.cases.configuration:Configurations._build",
        "Built(None, refusal=e.refusal)",
        "Built(None, refusal=str(e))",
        "the refusal line is SutLoadError's wrapper, not the constructor's own message",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "config_sut_never_cached",
        "evals.cases.configuration:Configurations._build",
        "        cached = self._built.get(key)",
        "        cached = None",
        "every configuration case builds its SUT again, however many share its options",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "config_cache_ignores_env",
        "evals.cases.configuration:Configurations._build",
        "key = (tuple(sorted(options.items())), tuple(sorted(case.sut_env.items())))",
        "key = (tuple(sorted(options.items())),)",
        "cases with the same options but another sut_env share one build",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "config_options_under",
        "evals.cases.configuration:Configurations._build",
        "options = {**self.recipe.options, **case.sut_options}",
        "options = {**case.sut_options, **self.recipe.options}",
        "the evaluation's options override the case's own",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "config_check_case_not_asked",
        "evals.cases.configuration:Configurations._answer",
        "        if isinstance(built.sut, validation.CaseChecker):",
        "        if False:",
        "a configuration case is never refused by the SUT's check_case",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "undeclared_sut_env_accepted",
        "evals.cases.configuration:plan_problems",
        "            if name not in declared:",
        "            if False:",
        "a sut_env variable the SUT does not read is accepted (it would change nothing)",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "sut_options_on_any_case",
        "evals.model.case:case_problems",
        "        for key in CASE_LEVEL_KEYS:",
        "        for key in ():",
        "sut_options and sut_env on a case that runs are silently ignored",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "refused_in_order",
        "evals.checks.configuration:refused",
        "    if want == have:\n        return True\n    parts = []",
        "    if expected == got:\n        return True\n    parts = []",
        "refusal lines must come in the expected order (they are a multiset)",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "refused_passes_accepted",
        "evals.checks.configuration:refused",
        "        if not expected:\n            return True",
        "        if True:\n            return True",
        "a SUT that accepted the case passes a case expecting its refusal",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "described_any_order",
        "evals.checks.configuration:described",
        "    if got == expected:",
        "    if sorted(got) == sorted(expected):",
        "the description's lines may come in any order",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "every_check_grades_configuration",
        "evals.checks.registry:grade",
        "    if is_configuration(case):",
        "    if False:",
        "every registered check (budgets, invariants) grades a run that never happened",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "configuration_cases_screened",
        "evals.evaluation:validated",
        "    runs = [case for case in plan.cases if not is_configuration(case)]",
        "    runs = list(plan.cases)",
        "the refusal a configuration case expects is an exit 2 before any run",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "configuration_cases_to_workers",
        "evals.execution.runner:Runner._call",
        "        if is_configuration(case):",
        "        if False:",
        "with --isolation process a configuration case is run by a worker",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "configuration_needs_outcome",
        "evals.cases.vocabulary:CaseRules.problems",
        "            if self.outcome_required and not configuration:",
        "            if self.outcome_required:",
        "a project requiring expect.outcome refuses every configuration case",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "lint_unchecked_silent",
        "evals.cases.lint:_per_case",
        "        if unchecked:",
        "        if False:",
        "lint says nothing of run expectations on a configuration case (never checked)",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "fingerprint_with_unset_configuration",
        "evals.gating.baseline:case_fingerprint",
        "        if not data[key]:\n            del data[key]",
        "        if not data[key]:\n            pass",
        "the unset configuration fields change every case's fingerprint (the baseline's"
        " fingerprints all stale)",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "db_dir_not_declared",
        "agent_evals.sut:SupportPilotSUT",
        "config_env: tuple[str, ...] = (*ENV_VARS.values(), DB_DIR_ENV)",
        "config_env: tuple[str, ...] = (*ENV_VARS.values(),)",
        "SupportPilot's DB dir variable leaks into its configuration cases",
        tests=CONFIGURATION_TESTS,
    ),
    M(
        "otel_negative_tokens_counted",
        "evals.otel.conventions:_tokens",
        "if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:",
        "if isinstance(value, bool) or not isinstance(value, int | float):",
        "a span's negative token count is summed: a run spends less than nothing",
        tests=OTEL_TESTS,
    ),
    M(
        "otel_exception_event_ignored",
        "evals.otel.conventions:_error",
        'if getattr(event, "name", "") == "exception":',
        'if getattr(event, "name", "") == "exceptions":',
        "a tool that raised is an error step that says only 'failed'",
        tests=OTEL_TESTS,
    ),
    M(
        "otel_speaker_not_looked_up",
        "evals.otel.record:_agent_of",
        'if found is not None and found.kind == "agent":',
        'if found is not None and found.kind == "model":',
        "model calls inside an agent span are the anonymous 'model', not the agent",
        tests=OTEL_TESTS,
    ),
    M(
        "otel_times_since_epoch",
        "evals.otel.record:steps_from_spans",
        "started_ms=None if began is None else (began - start) / _NS_PER_MS,",
        "started_ms=None if began is None else began / _NS_PER_MS,",
        "a step's start is counted from 1970, not from the run's first span",
        tests=OTEL_TESTS,
    ),
    M(
        "otel_first_answer_taken",
        "evals.otel.record:run_from_spans",
        '"reply": reply if reply is not None else (said[-1] if said else None),',
        '"reply": reply if reply is not None else (said[0] if said else None),',
        "the reply is the first thing the model said, not its final answer",
        tests=OTEL_TESTS,
    ),
    M(
        "otel_model_answers_counted_as_context",
        "evals.otel.record:run_from_spans",
        '"chars_returned": sum(len(_returned(f)) for f in every if f.kind == "tool"),',
        '"chars_returned": sum(len(_returned(f)) for f in every),',
        "the model's own answers count as context the tools returned: the budget is spent twice",
        tests=OTEL_TESTS,
    ),
    M(
        "otel_spans_of_every_trial_kept",
        "evals.otel.collect:SpanCollector.on_end",
        "held = self._open.get(context.trace_id)",
        "held = next(iter(self._open.values()), None)",
        "concurrent trials' spans land in the first trial open: runs graded on another's tools",
        tests=OTEL_TESTS,
    ),
    M(
        "rubric_edited_after_calibration_gates",
        "evals.checks.calibration:calibration_problem",
        "if calibration.fingerprint != rubric.fingerprint:",
        "if False:",
        "a rubric edited after its calibration (criteria, model, prompt) still gates",
        tests=RUBRIC_TESTS,
    ),
    M(
        "rubric_attacks_let_through",
        "evals.checks.calibration:calibrate",
        "if passed_attacks > limits.attack_false_passes_max:",
        "if passed_attacks > limits.attack_false_passes_max + 2:",
        "a judge that passes the attacks aimed at it is calibrated",
        tests=RUBRIC_TESTS,
    ),
    M(
        "rubric_position_unswapped",
        "evals.checks.calibration:calibrate",
        'and judge.compare(p.worse, p.better, p.context) == "B"',
        "",
        "a judge that prefers whichever reply comes first passes the position-swap test",
        tests=RUBRIC_TESTS,
    ),
    M(
        "rubric_unsure_passes",
        "evals.checks.rubric:rubric_check",
        'if verdict.label == "pass":',
        'if verdict.label != "fail":',
        "a judge that cannot tell vouches for the reply",
        tests=RUBRIC_TESTS,
    ),
    M(
        "idle_rubric_unreported",
        "evals.checks.registry:idle_checks",
        'return [f"{name}: {why}" for name, why in sorted(_IDLE.items())]',
        "return []",
        "a rubric that is not calibrated judges nothing, and no report file says so",
        tests=RUBRIC_TESTS,
    ),
    M(
        "rubric_context_hook_ignored",
        "evals.checks.rubric:rubric_check",
        "verdict = judge.judge(run.reply, judge.context(case, run))",
        "verdict = judge.judge(run.reply)",
        "a rubric judge of one's own is shown nothing beside the reply (SupportPilot's judge"
        " judges its facts blind)",
        tests=(*RUBRIC_TESTS, *SUPPORT_RUBRIC_TESTS),
    ),
    M(
        "support_judge_shown_agent_facts",
        "judge.rubric:SupportJudge.context",
        "for key, value in sorted(run.ground_truth.items())]",
        "for key, value in sorted(run.facts.items())]",
        "SupportPilot's judge checks a reply against the agent's claimed facts, not the database's",
        tests=SUPPORT_RUBRIC_TESTS,
    ),
    M(
        "support_rubric_blind_to_judge",
        "judge.rubric:SupportJudge.__init__",
        "super().__init__(support_rubric(name), ask=_not_asked)",
        'super().__init__(support_rubric("support"), ask=_not_asked)',
        "one judge's calibration lets another judge of the package gate",
        tests=SUPPORT_RUBRIC_TESTS,
    ),
    M(
        "support_exam_from_any_split",
        "judge.rubric:exam_lines",
        "        if r.split == split\n",
        "",
        "the exam set holds the tune split the judges were tuned on",
        tests=SUPPORT_RUBRIC_TESTS,
    ),
    M(
        "bugs_pass_as_failures",
        "agent_evals.invariants:bug_texts",
        "return [(where, text) for where, text in found if _BUG.match(text.strip())]",
        "return []",
        "an IndexError of the agent's own code passes as the model's failure",
        tests=INVARIANT_TESTS,
    ),
    M(
        "silent_error_colon_allowed",
        "agent_evals.invariants",
        '_EMPTY_CAUSE = re.compile(r"\\(\\)|（）|[:：]$")',
        '_EMPTY_CAUSE = re.compile(r"\\(\\)|（）")',
        "an error that wraps an empty cause (`'logistics__track' failed:`) passes as named",
        tests=INVARIANT_TESTS,
    ),
    M(
        "silent_error_only_when_empty",
        "agent_evals.invariants:_silent",
        "return not said or bool(_EMPTY_CAUSE.search(said) or _BARE_EXCEPTION.search(said))",
        "return not said",
        "a bare exception class name (`InjectedCrashError:`) passes as a cause",
        tests=INVARIANT_TESTS,
    ),
    M(
        "silent_error_audit_unread",
        "agent_evals.invariants:error_texts",
        '        if call.status != "ok":\n            found.append((f"audit row',
        '        if False:\n            found.append((f"audit row',
        "a refused or failed call's empty reason in the audit log goes unseen",
        tests=INVARIANT_TESTS,
    ),
    M(
        "silent_error_roles_unread",
        "agent_evals.invariants:error_texts",
        'found = [(f"role_errors[{role!r}]", text) for role, text in run.role_errors.items()]',
        "found = []",
        "a role's first error naming no cause goes unseen",
        tests=INVARIANT_TESTS,
    ),
    M(
        "request_answering_no_call_taken",
        "agent_evals.scripted_model:request_problems",
        "elif call_id not in pending:",
        "elif False:",
        "a tool result answering a call nobody made is taken: the API would refuse it",
        tests=MODEL_TESTS,
    ),
    M(
        "request_unanswered_calls_taken",
        "agent_evals.scripted_model:request_problems",
        'if role != "tool" and pending:',
        "if False:",
        "an assistant's calls left without their results are taken: the API would refuse it",
        tests=MODEL_TESTS,
    ),
    M(
        "extra_key_fault_never_applied",
        "agent_evals.scripted_model",
        'if kind == "extra_key" and isinstance(answer, Reply)',
        'if kind == "extra_keys" and isinstance(answer, Reply)',
        "the extra_key fault answers well at once: the output schema's own guard is never tried",
        tests=MODEL_TESTS,
    ),
)


Status = Literal["killed", "survived", "target not found", "timeout (killed)"]


@dataclass(frozen=True)
class Outcome:
    """What happened to one mutant."""

    mutant: Mutant
    """The mutant."""
    status: Status
    """killed, survived, target not found, or timeout (counts as killed)."""
    detail: str
    """The first failing test, or why the mutant could not be applied."""
    seconds: float
    """Wall time."""
    killer: str | None = None
    """The test that failed first (its pytest node id), when the mutant was killed."""

    @property
    def ok(self) -> bool:
        """The tests caught this bug."""
        return self.status in ("killed", "timeout (killed)")


def suite_env(copy: Path) -> dict[str, str]:
    """The environment of a test run in ``copy``: its own sources first."""
    env: dict[str, str] = bad_pr.copy_env(copy)
    env.pop("EVALS_ISOLATED", None)  # the acceptance tests need the SUT installed
    return env


def run_tests(
    copy: Path, tests: Sequence[str] = TESTS, timeout_s: float = TIMEOUT_S
) -> tuple[int | None, str]:
    """Run ``tests`` in ``copy``; (exit code or ``None`` on timeout, output)."""
    try:
        done = subprocess.run(
            [sys.executable, *PYTEST, *tests],
            cwd=copy,
            env=suite_env(copy),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as e:
        output = e.stdout if isinstance(e.stdout, str) else ""
        return None, output
    return done.returncode, done.stdout + done.stderr


def failing_test(output: str) -> str | None:
    """The node id of the first ``FAILED``/``ERROR`` test of pytest's summary."""
    for line in output.splitlines():
        match = re.match(r"^(?:FAILED|ERROR) (\S+?\.py::.+?)(?: - .*)?$", line)
        if match:
            return match.group(1)
    return None


KILLERS_FILE = ROOT / ".mutate-killers.json"
"""Mutant name -> the test that killed it last time (not committed: a cache). A run tries
that test first: a mutant it still kills is killed in seconds, without its module's tests
or the whole suite; one it no longer kills runs as if there were none."""


def read_killers(path: Path = KILLERS_FILE) -> dict[str, str]:
    """The cache of last killers; empty when there is none or it is unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}


def write_killers(outcomes: Sequence[Outcome], path: Path = KILLERS_FILE) -> None:
    """Record the killer of every killed mutant (keeping those of mutants not run now)."""
    killers = read_killers(path)
    for o in outcomes:
        if o.killer is not None:
            killers[o.mutant.name] = o.killer
        else:
            killers.pop(o.mutant.name, None)
    path.write_text(json.dumps(killers, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def first_failure(output: str) -> str:
    """The first ``FAILED``/``ERROR`` line of pytest's summary, shortened."""
    for line in output.splitlines():
        match = re.match(r"^(FAILED|ERROR) (\S+)", line)
        if match:
            test = match.group(2).split("/")[-1]
            return test if len(test) <= 72 else test[:71] + "…"
    tail = [line for line in output.splitlines() if line.strip()]
    return tail[-1][:80] if tail else "(no output)"


def fresh_copy(parent: Path, snapshot: Path) -> Path:
    """A copy of ``snapshot`` under ``parent``.

    Every copy comes from one snapshot of the working tree taken at the start, so the
    sanity run and every mutant see the same code even while someone edits the tree.
    """
    copy = Path(tempfile.mkdtemp(dir=parent)) / "repo"
    shutil.copytree(snapshot, copy)
    return copy


def nearest_tests(copy: Path, mutant: Mutant) -> tuple[str, ...]:
    """The test files among ``mutant.tests`` named after the mutated module
    (``test_<module>.py``, ``test_<module>_*.py``), to run before all of them. Each is
    one of the mutant's own tests, which the sanity run saw pass unmutated."""
    stem = Path(mutant.path).stem
    found: list[str] = []
    for test in mutant.tests:
        path = copy / test
        if path.is_dir():
            names = [*path.glob(f"test_{stem}.py"), *path.glob(f"test_{stem}_*.py")]
            found += sorted(str(p.relative_to(copy)) for p in names)
        elif path.name == f"test_{stem}.py" or path.name.startswith(f"test_{stem}_"):
            found.append(test)
    return tuple(dict.fromkeys(found))


def try_mutant(mutant: Mutant, parent: Path, snapshot: Path, killer: str | None = None) -> Outcome:
    """Apply one mutant to a fresh copy of ``snapshot`` and run the tests there: its last
    ``killer`` first (when given), then the tests of its module, then all of its tests."""
    started = time.monotonic()
    copy = fresh_copy(parent, snapshot)

    def done(status: Status, detail: str, output: str = "") -> Outcome:
        test = failing_test(output) if status == "killed" else None
        return Outcome(mutant, status, detail, time.monotonic() - started, test)

    try:
        target = mutant.file(copy)
        text = mutant.apply(target.read_text(encoding="utf-8"))
    except LookupError as e:
        return done("target not found", str(e))
    target.write_text(text, encoding="utf-8")
    if killer is not None and (copy / killer.partition("::")[0]).is_file():
        # Exit 1: the test ran and failed (4 or 5: it is gone, a rename; run the rest).
        code, output = run_tests(copy, (killer,))
        if code == 1:
            return done("killed", first_failure(output), output)
    nearest = nearest_tests(copy, mutant)
    if nearest:  # the module's own tests first: most mutants fall there, in seconds
        code, output = run_tests(copy, nearest)
        if code not in (0, None):
            return done("killed", first_failure(output), output)
    code, output = run_tests(copy, mutant.tests)
    if code is None:
        return done("timeout (killed)", f"tests ran past {TIMEOUT_S:g}s")
    if code == 0:
        return done("survived", "every test passed")
    return done("killed", first_failure(output), output)


class Progress:
    """One line per finished mutant (``[n/N] name: status (time)``), so a long run shows
    how far it is and an interrupted one says which mutants are left to run by name."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.finished = 0
        self.lock = threading.Lock()

    def done(self, outcome: Outcome) -> Outcome:
        with self.lock:
            self.finished += 1
            print(
                f"[{self.finished}/{self.total}] {outcome.mutant.name}: {outcome.status}"
                f" ({outcome.seconds:.0f}s)",
                flush=True,
            )
        return outcome


def sanity(parent: Path, snapshot: Path, chosen: Sequence[Mutant] = MUTANTS) -> str | None:
    """``None`` when an unmutated copy imports its own code and passes the tests of the
    ``chosen`` mutants; else the problem."""
    copy = fresh_copy(parent, snapshot)
    try:
        bad_pr.assert_copy_imported(
            copy, ("evals", "evals.gating.verdict", "agent", "domain", "tools", "judge")
        )
    except bad_pr.DemoError as e:
        return str(e)
    # Every test path a chosen mutant runs: a mutant "killed" by a test that fails
    # unmutated would prove nothing.
    tests = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
    code, output = run_tests(copy, tests, timeout_s=SANITY_TIMEOUT_S)
    if code != 0:
        tail = "\n".join(output.splitlines()[-15:])
        if code is None:
            return f"the unmutated copy's tests ran past {SANITY_TIMEOUT_S:g}s:\n{tail}"
        return f"the unmutated copy fails its tests (exit {code}):\n{tail}"
    return None


def target_state(mutant: Mutant, root: Path = ROOT) -> str:
    """Whether the mutant's symbol exists in the working tree and its snippet occurs
    there exactly once."""
    try:
        mutant.apply(mutant.file(root).read_text(encoding="utf-8"))
    except LookupError as e:
        return f"target not found ({e})"
    return "found"


def table(outcomes: Sequence[Outcome]) -> str:
    """mutant -> file, bug, result, the test that caught it."""
    rows = [
        [
            o.mutant.name,
            o.mutant.path.removeprefix(f"{EVALS}/").removeprefix("packages/"),
            o.status,
            o.detail,
            f"{o.seconds:.0f}s",
        ]
        for o in outcomes
    ]
    return tabulate(
        rows,
        headers=["mutant", "file", "result", "caught by / problem", "time"],
        maxcolwidths=[None, None, None, 72, None],
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mutants (all, or those named), print the table; see the module docstring."""
    parser = argparse.ArgumentParser(description="Mutation check of the evaluation code.")
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants in parallel (default 2)")
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help=f"do not try each mutant's last killer first ({KILLERS_FILE.name})",
    )
    args = parser.parse_args(argv)
    by_name = {m.name: m for m in MUTANTS}
    unknown = [n for n in args.names if n not in by_name]
    if unknown:
        parser.error(f"unknown mutant {unknown[0]!r}; see --list")
    chosen = [by_name[n] for n in args.names] or list(MUTANTS)
    if args.list:
        rows = [
            [
                m.name,
                m.path.removeprefix(f"{EVALS}/").removeprefix("packages/"),
                m.bug,
                target_state(m),
            ]
            for m in chosen
        ]
        print(tabulate(rows, headers=["mutant", "file", "bug", "target"]))
        return 0 if all(r[3] == "found" for r in rows) else 1
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        parent = Path(tmp)
        snapshot = bad_pr.copy_repo(parent / "snapshot", ROOT)
        print(
            "sanity: the unmutated copy imports its own code and passes "
            + " ".join(dict.fromkeys(t for m in chosen for t in m.tests))
        )
        problem = sanity(parent, snapshot, chosen)
        if problem is not None:
            print(f"mutate: error: {problem}", file=sys.stderr)
            return 2
        print(f"sanity: ok; {len(chosen)} mutant(s), {args.jobs} at a time", flush=True)
        progress = Progress(len(chosen))
        killers = {} if args.no_cache else read_killers()

        def one(m: Mutant) -> Outcome:
            return progress.done(try_mutant(m, parent, snapshot, killers.get(m.name)))

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            outcomes = list(pool.map(one, chosen))
    write_killers(outcomes)
    print()
    print(table(outcomes))
    killed = sum(o.ok for o in outcomes)
    elapsed = time.monotonic() - started
    print(f"\n{killed}/{len(outcomes)} mutants killed in {elapsed:.0f}s")
    bad = [o for o in outcomes if not o.ok]
    for o in bad:
        print(f"  {o.status.upper()}: {o.mutant.name}: {o.mutant.bug}", file=sys.stderr)
    return 0 if not bad else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
