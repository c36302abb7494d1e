"""The baseline: the committed metrics and verdicts the gate compares with.

``reports/baseline.json`` holds what the gate needs (success rate, step accuracy,
returned-characters p95, latency p95, unauthorized rate …), the success of every case
not excluded from the gate (flaky cases are excluded), per case, the verdict of every
check as ``"passed/judged"`` runs (``"1/1"``, ``"3/5"``), with each check's kind, and
each case's fingerprint (a hash of the case as loaded): a case the SUT refuses though
its fingerprint is unchanged was broken by the SUT, not by the case file. Only
``evals baseline`` (``nox -s baseline``) writes it; every other command only reads it.
The file is validated strictly (known keys, rates in [0, 1], finite numbers, verdicts of
the right shape): a damaged baseline is refused, never read as a weaker gate.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    field_validator,
    model_validator,
)

from evals.errors import BaselineError
from evals.gating.case_verdict import CaseVerdict, case_verdicts
from evals.io.files import write_atomic
from evals.io.json_files import read_model
from evals.log.traces import RunMeta
from evals.metrics.summary import Metrics, compute
from evals.model.case import CASE_LEVEL_KEYS, CONFIGURATION_KEYS, Case
from evals.model.result import CheckKind, RunResult

BASELINE_SCHEMA_VERSION = 3
"""2: per-check verdicts (``case_checks``, ``check_kinds``); 3: ``case_fingerprints``."""

Rate = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Amount = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]
Count = Annotated[StrictInt, Field(ge=0)]

Fingerprint = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]
"""A case's fingerprint: 16 hex digits (:func:`case_fingerprint`)."""

VERDICT = re.compile(r"(0|[1-9][0-9]{0,8})/([1-9][0-9]{0,8})")
"""A per-check verdict: runs that passed / runs that judged it."""


FORMER_EXPECT_FIELDS: tuple[str, ...] = ("conflicts",)
"""``expect`` keys that were fields of the core's model and are now a plug-in's own
(``conflicts``: SupportPilot's check since the run record was made neutral)."""


def case_fingerprint(case: Case) -> str:
    """A hash of everything in ``case`` as loaded (id, input, world, faults, expect …):
    equal fingerprints mean the SUT was asked about the very same case."""
    data = case.model_dump(mode="json")
    # A configuration case's fields, left out while unset: a case that sets none keeps
    # the fingerprint it had before they existed (and baselines stay valid).
    for key in CASE_LEVEL_KEYS:
        if not data[key]:
            del data[key]
    for key in CONFIGURATION_KEYS:
        if data["expect"][key] is None:
            del data["expect"][key]
    # Keys the core's Expect had before they became a plug-in's own (then an extra key,
    # absent while unset): an unset one weighs in as it did, so baselines stay valid.
    for key in FORMER_EXPECT_FIELDS:
        data["expect"].setdefault(key, None)
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class CheckTally(BaseModel):
    """How one check judged one case's runs."""

    model_config = ConfigDict(frozen=True)

    kind: CheckKind
    """The check's kind."""
    passed: int
    """Runs that passed it."""
    judged: int
    """Runs it judged (it may not apply to every trial)."""

    @property
    def all_passed(self) -> bool:
        """Whether every run it judged passed."""
        return self.passed == self.judged

    @property
    def verdict(self) -> str:
        """``passed/judged`` as stored in the baseline."""
        return f"{self.passed}/{self.judged}"


def check_tallies(results: Iterable[RunResult]) -> dict[str, dict[str, CheckTally]]:
    """Per case, per check name: how many graded runs it judged and how many passed.
    Errored runs (provider failures) are left out, as in every rate."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(dict)
    kinds: dict[str, CheckKind] = {}
    for r in results:
        if r.errored:
            continue
        for c in r.checks:
            if c.grader_error:  # it judged nothing
                continue
            tally = counts[r.case_id].setdefault(c.name, [0, 0])
            tally[0] += c.passed
            tally[1] += 1
            kinds[c.name] = c.kind
    return {
        case: {
            name: CheckTally(kind=kinds[name], passed=p, judged=n)
            for name, (p, n) in sorted(checks.items())
        }
        for case, checks in sorted(counts.items())
    }


class Baseline(BaseModel):
    """What the gate compares with: summary metrics, per-case success, per-check verdicts."""

    model_config = ConfigDict(extra="forbid", strict=True)

    schema_version: StrictInt = BASELINE_SCHEMA_VERSION
    """Version of this file's layout; a different version is refused, not guessed at."""

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value != BASELINE_SCHEMA_VERSION:
            raise ValueError(
                f"{value!r} is not {BASELINE_SCHEMA_VERSION!r}; regenerate the baseline"
                " with `evals baseline`"
            )
        return value

    suites: list[str] = Field(default_factory=list)
    """The suites the baseline was made from."""
    sut: str = ""
    """The SUT import path."""
    trials: Annotated[StrictInt, Field(ge=1)] = 1
    """Trials per case."""
    git_revision: str = "unknown"
    """The code revision the baseline was made at."""
    exclude_tags: list[str] = Field(default_factory=list)
    """Tags left out (flaky)."""
    case_verdict: CaseVerdict = "all"
    """How ``case_success`` judged a case with k trials (the gate config's rule)."""
    runs: Count
    """Runs counted."""
    cases: Count
    """Cases counted."""
    success_rate: Rate
    """Share of runs that succeeded (0..1)."""
    step_accuracy: Rate
    """Share of trajectory checks passed (0..1)."""
    unauthorized_rate: Rate
    """Share of runs with an unauthorized write (0..1)."""
    returned_chars_p95: Amount
    """Characters returned by workers, 95th percentile."""
    latency_ms_p95: Amount
    """Run wall time, 95th percentile, in milliseconds."""
    case_success: dict[str, StrictBool] = Field(min_length=1)
    """Every gated case -> whether it passed."""
    check_kinds: dict[str, CheckKind]
    """Every check name in ``case_checks`` -> its kind."""
    case_checks: dict[str, dict[str, str]]
    """Every gated case -> check name -> ``"passed/judged"`` runs."""
    case_fingerprints: dict[str, Fingerprint] = Field(default_factory=dict)
    """Gated cases -> the fingerprint of the case the baseline ran (:func:`case_fingerprint`)."""

    @field_validator("case_checks")
    @classmethod
    def _verdicts(cls, value: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for case, checks in value.items():
            for name, verdict in checks.items():
                match = VERDICT.fullmatch(verdict)
                if match is None or int(match[1]) > int(match[2]):
                    raise ValueError(
                        f"{case}.{name}: verdict {verdict!r} is not 'passed/judged'"
                        " with passed <= judged"
                    )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Baseline:
        cases = set(self.case_checks) ^ set(self.case_success)
        if cases:
            raise ValueError(
                f"case_checks and case_success name different cases ({sorted(cases)[0]!r})"
            )
        unnamed = {n for checks in self.case_checks.values() for n in checks}
        unnamed -= set(self.check_kinds)
        if unnamed:
            raise ValueError(f"check_kinds names no kind for check {sorted(unnamed)[0]!r}")
        strangers = set(self.case_fingerprints) - set(self.case_success)
        if strangers:
            raise ValueError(
                f"case_fingerprints names a case not in case_success ({sorted(strangers)[0]!r})"
            )
        return self

    def unchanged(self, case: Case) -> bool:
        """Whether the baseline ran ``case`` exactly as it is now (same fingerprint)."""
        known = self.case_fingerprints.get(case.id)
        return known is not None and known == case_fingerprint(case)

    def tallies(self) -> dict[str, dict[str, CheckTally]]:
        """``case_checks`` as tallies (the kinds from ``check_kinds``)."""
        out: dict[str, dict[str, CheckTally]] = {}
        for case, checks in self.case_checks.items():
            row: dict[str, CheckTally] = {}
            for name, verdict in checks.items():
                passed, judged = verdict.split("/")
                kind = self.check_kinds[name]
                row[name] = CheckTally(kind=kind, passed=int(passed), judged=int(judged))
            out[case] = row
        return out


def excluding(results: Iterable[RunResult], exclude_tags: Iterable[str]) -> list[RunResult]:
    """The results whose case carries none of ``exclude_tags``."""
    excluded = set(exclude_tags)
    return [r for r in results if not excluded.intersection(r.tags)]


def from_metrics(
    metrics: Metrics,
    meta: RunMeta,
    exclude_tags: Iterable[str],
    tallies: Mapping[str, Mapping[str, CheckTally]],
    *,
    cases: Iterable[Case] = (),
    case_verdict: CaseVerdict = "all",
) -> Baseline:
    """A baseline from metrics and check tallies already computed without the excluded
    cases; ``cases`` gives the fingerprints of the gated ones, ``case_verdict`` how a
    case with k trials passes."""
    fingerprints = {c.id: case_fingerprint(c) for c in cases if c.id in metrics.case_success}
    return Baseline.model_validate(
        dict(
            suites=list(meta.suites),
            sut=meta.sut,
            trials=meta.trials,
            git_revision=meta.git_revision,
            exclude_tags=sorted(set(exclude_tags)),
            case_verdict=case_verdict,
            runs=metrics.runs,
            cases=metrics.cases,
            success_rate=metrics.success_rate,
            step_accuracy=metrics.step_accuracy,
            unauthorized_rate=metrics.unauthorized_rate,
            returned_chars_p95=metrics.returned_chars_p95,
            latency_ms_p95=metrics.latency_ms_p95,
            case_success=_case_success(metrics, case_verdict),
            check_kinds={n: t.kind for checks in tallies.values() for n, t in checks.items()},
            case_checks={
                case: {n: t.verdict for n, t in checks.items()} for case, checks in tallies.items()
            },
            case_fingerprints=dict(sorted(fingerprints.items())),
        ),
        strict=False,
    )


def _case_success(metrics: Metrics, rule: CaseVerdict) -> dict[str, bool]:
    if not metrics.case_passes:  # metrics read from an older report
        return dict(sorted(metrics.case_success.items()))
    return case_verdicts(metrics.case_passes, rule)


def build_baseline(
    results: Iterable[RunResult],
    meta: RunMeta,
    exclude_tags: Iterable[str],
    cases: Iterable[Case] = (),
    case_verdict: CaseVerdict = "all",
) -> Baseline:
    """A baseline from graded runs, leaving out cases with an excluded tag; ``cases`` (the
    cases that were run) give the gated cases' fingerprints; ``case_verdict`` says how a
    case with k trials passes."""
    tags = list(exclude_tags)
    kept = excluding(results, tags)
    tallies = check_tallies(kept)
    return from_metrics(compute(kept), meta, tags, tallies, cases=cases, case_verdict=case_verdict)


def write_baseline(path: str | PathLike[str], baseline: Baseline) -> None:
    """Write the baseline atomically, stable key order, for a readable git diff."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, baseline.model_dump_json(indent=2) + "\n")


def load_baseline(path: Path) -> Baseline:
    """Read a baseline; :class:`BaselineError` (one line) when missing or malformed."""
    baseline = read_model(
        path, Baseline, BaselineError, "no baseline; create it with `evals baseline`"
    )
    return baseline
