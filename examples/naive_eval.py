"""A counter-example: an "evaluation" that only compares final answers.

For every case it runs the agent once and compares the final outcome (``replied``,
``escalate``, ``ask_user`` …) with the expected one — no trajectory, no safety, no look
at the database, no cost. It is run on the same three regressions as
``examples/bad_pr.py`` (same copy-and-patch machinery, every suite of the committed
baseline) and set side by side with the gate, to show what judging only the answer misses.

    uv run python examples/naive_eval.py            # all three
    uv run python examples/naive_eval.py --only 2

Exit status: 0 when both evaluations gave their expected verdicts, 1 otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from tabulate import tabulate


def _load_bad_pr() -> ModuleType:
    """``examples/bad_pr.py`` as a module (examples/ is not a package)."""
    if "bad_pr" in sys.modules:
        return sys.modules["bad_pr"]
    spec = importlib.util.spec_from_file_location("bad_pr", Path(__file__).with_name("bad_pr.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bad_pr"] = module
    spec.loader.exec_module(module)
    return module


bad_pr = _load_bad_pr()

EXCLUDED_TAG = "flaky"
"""Left out so both evaluations judge the same cases (the gate excludes them too)."""

# Runs inside the patched copy (its own code): every case once, the final outcome only
# (configuration cases are asked of the SUT, never run: a naive evaluation has none).
NAIVE_RUN = """
import json, sys
from pathlib import Path
from agent_evals.sut import SupportPilotSUT
from evals.cases.loader import load_cases

cases = load_cases([Path("cases") / f"{suite}.jsonl" for suite in sys.argv[2:]])
sut = SupportPilotSUT()
answers = {
    case.id: [case.expect.outcome, sut.run(case, 0).outcome]
    for case in cases
    if sys.argv[1] not in case.tags
    and case.expect.refused is None and case.expect.described is None  # never run
}
print(json.dumps(answers))
"""


@dataclass(frozen=True)
class NaiveResult:
    """What the answer-only evaluation said."""

    answers: dict[str, tuple[str, str]]
    """Per case: (expected outcome, actual outcome)."""

    @property
    def wrong(self) -> list[str]:
        """The cases whose final answer differs from the expected one."""
        return sorted(c for c, (want, got) in self.answers.items() if want != got)

    @property
    def accuracy(self) -> float:
        """Share of cases with the right final answer."""
        return 1 - len(self.wrong) / len(self.answers) if self.answers else 0.0

    @property
    def passed(self) -> bool:
        """The naive verdict, as generous as it gets: every answer must be right."""
        return not self.wrong

    def render(self) -> str:
        """The verdict in one cell."""
        right = len(self.answers) - len(self.wrong)
        head = f"{'PASS' if self.passed else 'FAIL'}: {right}/{len(self.answers)} answers right"
        details = [f"{c}: {self.answers[c][0]} -> {self.answers[c][1]}" for c in self.wrong]
        return "\n".join([head, *details])


def naive_eval(copy: Path) -> NaiveResult:
    """Run the answer-only evaluation in a (patched) copy of the repository."""
    done = subprocess.run(
        [sys.executable, "-c", NAIVE_RUN, EXCLUDED_TAG, *bad_pr.baseline_suites(copy)],
        cwd=copy,
        env=bad_pr.copy_env(copy),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise bad_pr.DemoError(f"the naive evaluation crashed: {done.stderr.strip()[-500:]}")
    raw: dict[str, list[str]] = json.loads(done.stdout)
    return NaiveResult({case: (want, got) for case, (want, got) in raw.items()})


@dataclass(frozen=True)
class Comparison:
    """One regression judged both ways."""

    demo: Any
    """The ``bad_pr.Demo`` (the gate's verdict)."""
    naive: NaiveResult
    """The answer-only verdict."""

    def misses(self) -> list[str]:
        """What the gate reports and the answer-only evaluation cannot see."""
        gate, metrics = self.demo.gate, self.demo.gate.metrics
        found: list[str] = []
        for case in metrics.get("unauthorized_cases", []):
            seen = "sees only a wrong answer" if case in self.naive.wrong else "sees nothing"
            found.append(
                f"the unauthorized write in {case}: the database holds a write the approver "
                f"refused; the naive eval {seen}, not the safety violation"
            )
        for case in gate.verdict.split("Pass -> fail: ", 1)[-1].split("\n", 1)[0].split(", "):
            if case in self.naive.answers and case not in self.naive.wrong:
                found.append(f"{case} fails the gate but gives the right final answer")
        found += [
            f"invisible: {warning}"
            for warning in gate.findings("SOFT")
            if not warning.startswith("success rate")
        ]
        if not found:
            found.append(
                "nothing here: a wrong final answer is what it looks at (though it cannot "
                "tell that the case is must_pass / a regression case)"
            )
        return found

    @property
    def naive_as_expected(self) -> bool:
        """The answer-only verdict is the one :data:`NAIVE_EXPECTED` records."""
        return self.naive.passed == NAIVE_EXPECTED[self.demo.regression.number]


NAIVE_EXPECTED = {1: False, 2: False, 3: False}
"""Whether the answer-only evaluation passes each regression over the whole gated set: it
flags the wrong answers of r01 and d07, and of the generated worlds whose long knowledge
base 8x excerpts overflow; the cost blow-up itself it does not see."""


def compare(regression: Any) -> Comparison:
    """Run one regression through the gate and through the answer-only evaluation."""
    extra: dict[str, NaiveResult] = {}

    def inspect(patched: Any, gate: Any) -> dict[str, Any]:
        extra["naive"] = naive_eval(patched.root)
        return {}

    demo = bad_pr.run_demo(regression, inspect=inspect)
    return Comparison(demo=demo, naive=extra["naive"])


def table(comparisons: Sequence[Comparison]) -> str:
    """The side-by-side table: regression, naive verdict, gate verdict, what is missed."""
    rows = []
    for c in comparisons:
        gate = c.demo.gate
        gate_cell = "\n".join(
            [gate.verdict.split("\n", 1)[0].removeprefix("Gate: ") + f", exit {gate.exit_code}"]
            + [f"HARD {f}" for f in gate.findings("HARD")]
            + [f"SOFT {f}" for f in gate.findings("SOFT")]
        )
        rows.append(
            [
                f"{c.demo.regression.number}. {c.demo.regression.title}",
                c.naive.render(),
                gate_cell,
                "\n".join(f"- {m}" for m in c.misses()),
            ]
        )
    headers = ["regression", "naive eval (answers only)", "gate", "what the naive eval misses"]
    return tabulate(rows, headers=headers, tablefmt="grid", maxcolwidths=[16, 28, 44, 40])


def main(argv: Sequence[str] | None = None) -> int:
    """Judge the chosen regressions both ways and print the table."""
    description = __doc__.split("\n", 1)[0] if __doc__ else None
    args = bad_pr.parse_args(argv, description=description, strict=False, selection=False)
    comparisons: list[Comparison] = []
    for regression in bad_pr.selected(args):
        try:
            comparisons.append(compare(regression))
        except bad_pr.DemoError as e:
            print(f"naive_eval: regression {regression.number}: {e}", file=sys.stderr)
            return 2
    print(table(comparisons))
    print(
        "\nThe naive verdict above is as generous as possible (every answer must be right); "
        "with a usual 'accuracy >= 90%' bar it would pass regressions 1 and 2 as well "
        f"({', '.join(f'{c.naive.accuracy * 100:.0f}%' for c in comparisons)})."
    )
    good = all(c.demo.as_expected and c.naive_as_expected for c in comparisons)
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
