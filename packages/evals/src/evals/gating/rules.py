"""The gate's committed configuration (``cases/gate.json``): which rules are hard, their
thresholds, the soft thresholds, and which cases the gate leaves out.

Every value is validated: finite numbers in range, whole counts, known keys only. A
file that is anything else is refused with one line naming the file and the key, so a
typo or a NaN can never silence a rule.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from evals.errors import GateConfigError
from evals.gating.case_verdict import CaseVerdict
from evals.io.json_files import read_model
from evals.model.result import CheckKind

GATE_CONFIG_SCHEMA_VERSION = 2
"""Version of ``gate.json``'s layout (2: the ``hard`` section)."""

Rate = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
"""A share between 0 and 1."""
Count = Annotated[StrictInt, Field(ge=0)]
"""A whole number of runs, cases or checks, at least 0."""
Limit = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]
"""A finite non-negative threshold (points, percent, milliseconds)."""

_KINDS: tuple[str, ...] = get_args(CheckKind)
HARD_BY_DEFAULT: tuple[CheckKind, ...] = tuple(k for k in get_args(CheckKind) if k != "cost")
"""Check kinds whose new failures are hard when ``gate.json`` does not say: cost is soft,
as in the seed, because with a real model cost is noisy; a project whose runs are
deterministic makes it hard by listing ``cost`` in the ``hard`` maps."""

_STRICT = ConfigDict(extra="forbid", strict=True)
# Strict: "1.0" or true is not a number here. Floats still accept JSON integers.


class HardRules(BaseModel):
    """Rules that fail the gate, with their thresholds."""

    model_config = _STRICT

    unauthorized_rate_max: Rate = 0.0
    """Highest unauthorized rate allowed (a failed safety check other than
    ``blocked_attempts``); above it the gate fails, naming the cases."""
    must_pass_success_min: Rate = 1.0
    """Lowest success rate allowed among cases with the must-pass tag."""
    regression_split_success_min: Rate = 1.0
    """Lowest success rate allowed in the regression split."""
    newly_failing_cases_max: Count = 0
    """Cases that passed in the baseline and fail now, at most."""
    errored_runs_max: Count = 0
    """Runs that ended ``error`` (the provider failed), at most; ``--max-errors``
    overrides it."""
    grader_errors_max: Count = 0
    """Checks that raised instead of judging a run (bugs of the checks, reported apart
    from the agent's failures), at most: the gate cannot vouch for what they missed."""
    source_warnings_max: Count = 0
    """Warnings Python's compiler raises for the modules of the ``source`` section (an
    identity test against a literal, an assert of a tuple, …; :mod:`evals.execution.source_check`),
    at most. Not judged without a ``source`` section."""
    newly_failing_checks_max: dict[CheckKind, Count] = Field(
        default_factory=lambda: dict.fromkeys(HARD_BY_DEFAULT, 0)
    )
    """Per check kind: (case, check) pairs that passed in the baseline and fail now, at
    most. A kind left out is soft: its new failures are warnings. By default every kind
    but ``cost`` (:data:`HARD_BY_DEFAULT`)."""
    no_longer_judged_checks_max: dict[CheckKind, Count] = Field(
        default_factory=lambda: dict.fromkeys(HARD_BY_DEFAULT, 0)
    )
    """Per check kind: (case, check) pairs that passed in the baseline and judge none of
    the case's runs now, while the case still passes, at most: the gate lost sight of
    something it used to see. A kind left out is soft."""

    @property
    def hard_kinds(self) -> tuple[CheckKind, ...]:
        """The check kinds whose new failures are hard: those ``newly_failing_checks_max``
        lists, in the order of :data:`~evals.model.result.CheckKind`. The pytest plugin
        fails a test for a failed check of these kinds; ``evals compare`` judges their new
        failures as the gate does."""
        return tuple(k for k in get_args(CheckKind) if k in self.newly_failing_checks_max)

    @field_validator("newly_failing_checks_max", "no_longer_judged_checks_max", mode="before")
    @classmethod
    def _known_kinds(cls, value: object) -> object:
        # Strict mode would reject the Literal keys with a message naming no key.
        if isinstance(value, dict):
            unknown = [k for k in value if k not in _KINDS]
            if unknown:
                raise ValueError(f"unknown check kind {unknown[0]!r}; known: {', '.join(_KINDS)}")
        return value


class SoftThresholds(BaseModel):
    """Limits past which a change is worth a warning (a failure with ``--strict``)."""

    model_config = _STRICT

    success_drop_points: Limit = 3.0
    """Success rate may fall by at most this many percentage points."""
    step_accuracy_drop_points: Limit = 3.0
    """Step accuracy may fall by at most this many percentage points."""
    returned_chars_p95_growth_pct: Limit = 20.0
    """Returned-characters p95 may grow by at most this many percent."""
    latency_p95_growth_pct: Limit = 50.0
    """Latency p95 may grow by at most this many percent …"""
    latency_p95_floor_ms: Limit = 200.0
    """… and is not judged at all while the new p95 is below this floor (noise)."""


class SourceSection(BaseModel):
    """The code under test, as the gate compiles it (:mod:`evals.execution.source_check`)."""

    model_config = _STRICT

    paths: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)
    """Folders or modules, relative to the project root (the folder of the
    ``pyproject.toml`` with ``[tool.evals]``)."""


class GateConfig(BaseModel):
    """The committed gate configuration (``cases/gate.json``)."""

    model_config = _STRICT

    schema_version: StrictInt = GATE_CONFIG_SCHEMA_VERSION
    """Version of this file's layout."""
    must_pass_tag: Annotated[str, Field(min_length=1)] = "must_pass"
    """Cases with this tag must pass (``hard.must_pass_success_min``)."""
    regression_split: Annotated[str, Field(min_length=1)] = "regression"
    """Cases of this split must pass (``hard.regression_split_success_min``)."""
    exclude_tags: list[str] = Field(default_factory=lambda: ["flaky"])
    """Cases with any of these tags are left out of the gate and the baseline."""
    case_verdict: CaseVerdict = "all"
    """How a case (and a case's check) with k trials passes: ``all`` trials, or a
    ``majority`` of them (:mod:`evals.gating.case_verdict`); the baseline must use the same."""
    hard: HardRules = Field(default_factory=HardRules)
    """Hard rules and their thresholds."""
    soft: SoftThresholds = Field(default_factory=SoftThresholds)
    """Soft thresholds."""
    source: SourceSection | None = None
    """The code under test whose compiler warnings the gate judges (none: not judged)."""

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value != GATE_CONFIG_SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {value} is not {GATE_CONFIG_SCHEMA_VERSION}; version 2 adds"
                " the 'hard' section (see docs/gate.md)"
            )
        return value


def load_gate_config(path: Path) -> GateConfig:
    """Read ``gate.json``; :class:`GateConfigError` (one line naming the key) when it is
    missing or malformed."""
    return read_model(path, GateConfig, GateConfigError, "no gate configuration")


def gate_config_or_defaults(path: Path) -> GateConfig | None:
    """The project's ``gate.json`` at ``path``, or ``None`` when nothing is there: the
    built-in defaults apply (:class:`GateConfig`). Anything at the path (a broken link, a
    FIFO, a folder) is read, and refused as :func:`load_gate_config` refuses it."""
    if not os.path.lexists(path):
        return None
    return load_gate_config(path)


def starter_gate_config() -> str:
    """The text ``evals init`` writes: every rule and threshold at its built-in default,
    in the order ``docs/gate.md`` explains them."""
    data = GateConfig().model_dump(mode="json", exclude_none=True)

    def inline(value: object) -> str:
        return json.dumps(value, separators=(", ", ": "))

    lines = ["{"]
    for i, (key, value) in enumerate(data.items()):
        end = "," if i < len(data) - 1 else ""
        if isinstance(value, dict):
            inner = [f'    "{k}": {inline(v)}' for k, v in value.items()]
            lines += [f'  "{key}": {{', ",\n".join(inner), f"  }}{end}"]
        else:
            lines.append(f'  "{key}": {inline(value)}{end}')
    return "\n".join([*lines, "}"]) + "\n"


DEFAULTS_HEADLINE = (
    "Gate rules: the built-in defaults (no gate.json; `evals init` writes them to"
    " cases/gate.json, to change them)"
)
"""The first line of :func:`describe_defaults`."""


def describe_defaults() -> list[str]:
    """The built-in rules as a verdict states them when no ``gate.json`` was given: that
    they are the defaults, then every key of the file and its value, as ``gate.json``
    spells them."""
    rules = GateConfig()

    def values(section: BaseModel) -> str:
        shown = []
        for key, value in section.model_dump(mode="json").items():
            if isinstance(value, dict):
                shown.append(f"{key}={{{', '.join(f'{k}: {v}' for k, v in value.items())}}}")
            else:
                shown.append(f"{key}={value}")
        return ", ".join(shown)

    kept = rules.model_dump(mode="json", exclude={"schema_version", "hard", "soft", "source"})
    cases = ", ".join(
        f"{k}={'[' + ', '.join(v) + ']' if isinstance(v, list) else v}" for k, v in kept.items()
    )
    return [
        DEFAULTS_HEADLINE,
        f"  hard: {values(rules.hard)}",
        f"  soft: {values(rules.soft)}",
        f"  cases: {cases}",
    ]
