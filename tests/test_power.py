"""scripts/power.py: what a gate run means, which mutants are annotation-only, the seeded
sample, the equivalents file, and the report's figures."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
sys.path.insert(0, str(SCRIPTS))

import power_mutants as pm  # noqa: E402
import power_report  # noqa: E402
import power_session as ps  # noqa: E402
from cosmic_ray.commands import init as cr_init  # noqa: E402
from cosmic_ray.testing import run_tests  # noqa: E402
from cosmic_ray.work_db import use_db  # noqa: E402

import power  # noqa: E402

# --- What a gate run means ---------------------------------------------------------------

PASS = "report …\nGate: PASS (0 hard, 0 soft)\nPass -> fail: (none)\n"
FAIL = "report …\nGate: FAIL (1 hard, 0 soft)\n  HARD  must_pass success 88% < 100%\n"
TRACEBACK = 'Traceback (most recent call last):\n  File "x.py"\nTypeError: boom\n'


@pytest.mark.parametrize(
    ("output", "status", "code"),
    [
        (f"{FAIL}power: exit 1\n", "killed", 1),
        (f"{PASS}power: exit 0\n", "survived", 0),
        (f"{TRACEBACK}power: exit 1\n", "crash", 1),  # exit 1 without a verdict
        ("evals: error: bad case file\npower: exit 2\n", "crash", 2),  # refusal
        (f"{FAIL}power: exit 2\n", "crash", 2),  # a verdict but not the gate's exit code
        (f"{PASS}power: exit 1\n", "crash", 1),  # PASS printed, yet exit 1
        (f"{FAIL}power: exit 0\n", "crash", 0),  # FAIL printed, yet exit 0
        ("Gate: not judged (INCOMPLETE: interrupted)\npower: exit 130\n", "crash", 130),
        (FAIL, "crash", None),  # no exit marker: the wrapper did not finish
        ("timeout", "timeout", None),
        (None, "error", None),
        (f"{PASS}power: exit 0\nGate: FAIL (1 hard, 0 soft)\npower: exit 1\n", "killed", 1),
    ],
)
def test_classify(output: str | None, status: str, code: int | None) -> None:
    assert pm.classify(output) == (status, code)


def fake_copy(tmp_path: Path, body: str) -> power.Worker:
    """A 'copy' whose ``evals`` package is a stand-in gate running ``body``."""
    package = tmp_path / "repo" / "packages" / "evals" / "src" / "evals"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(textwrap.dedent(body))
    db_dir, inject = tmp_path / "db", tmp_path / "inject"
    db_dir.mkdir()
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(power.INJECTED)
    return power.Worker(tmp_path / "repo", db_dir, inject)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("import sys\nprint('Gate: FAIL (1 hard, 0 soft)')\nsys.exit(1)\n", "killed", 1),
        ("print('Gate: PASS (0 hard, 0 soft)')\n", "survived", 0),
        ("raise TypeError('boom')\n", "crash", 1),  # traceback on stderr, exit 1
        ("import sys\nprint('bad', file=sys.stderr)\nsys.exit(2)\n", "crash", 2),
        ("import time\ntime.sleep(60)\n", "timeout", None),
        # the test command's cwd is the copy, and the label reaches the gate
        (
            "import os, sys\nok = os.path.isdir('packages') and sys.argv[-1] == 'power-x'\n"
            "print('Gate: PASS' if ok else 'Gate: FAIL')\nsys.exit(0 if ok else 1)\n",
            "survived",
            0,
        ),
        # cosmic-ray's ExceptionReplacer writes this name: it must be a real class
        (
            "try:\n    raise CosmicRayTestingException()\n"
            "except CosmicRayTestingException:\n    print('Gate: PASS')\n",
            "survived",
            0,
        ),
    ],
)
def test_the_test_command_reports_what_the_gate_did(
    tmp_path: Path, body: str, status: str, code: int | None
) -> None:
    worker = fake_copy(tmp_path, body)
    # Only the sleeping stand-in should reach the timeout; the others get ample time.
    _, output = run_tests(worker.command("power-x"), 1.0 if status == "timeout" else 60.0)
    assert pm.classify(output) == (status, code), output


# --- Annotation-only mutants ------------------------------------------------------------

MODULE = """\
from __future__ import annotations


def f(x: int | None = 1, *rest: int | str) -> int | None:
    y: int | None = x
    return (x or 0) | 2


def g(note: str = "中文说明", b: int | None = None) -> None:
    pass


def h(
    a: int | str = 3,
) -> int:
    return (x) | 4
"""


def mutants_of(tmp_path: Path, source: str) -> tuple[list[pm.Mutant], set[str]]:
    """cosmic-ray's mutants of one module, and which of them are annotation-only."""
    module = tmp_path / "m.py"
    module.write_text(source, encoding="utf-8")
    with use_db(str(tmp_path / "s.sqlite")) as db:
        cr_init([module], db, {})
        mutants = ps.read_mutants(db)
    return mutants, pm.annotation_only(mutants, {m.path: source for m in mutants})


@pytest.mark.parametrize(
    ("line", "snippet", "annotation_only"),
    [
        (4, "x: int | None", True),  # parameter annotation
        (4, "*rest: int | str", True),
        (4, "-> int | None", True),  # return annotation
        (4, "= 1", False),  # a default value runs
        (6, "(x or 0) | 2", False),  # code
        (9, "b: int | None", True),  # after Chinese text: columns are characters, not bytes
        (16, "(x) | 4", False),  # code after a multi-line signature
        (14, "a: int | str", True),  # annotation on a continuation line
        (14, "= 3", False),
    ],
)
def test_annotation_only(tmp_path: Path, line: int, snippet: str, annotation_only: bool) -> None:
    mutants, dropped = mutants_of(tmp_path, MODULE)
    text = MODULE.splitlines()[line - 1]
    start = text.index(snippet)
    within = [m for m in mutants if m.line == line and start <= m.column < start + len(snippet)]
    assert within, f"cosmic-ray found no mutant in {snippet!r}"
    assert {m.job_id in dropped for m in within} == {annotation_only}, [m.id for m in within]


# --- The sample -------------------------------------------------------------------------


def mutant(n: int, path: str = "a.py", line: int | None = None) -> pm.Mutant:
    at = n if line is None else line
    return pm.Mutant(f"job{n}", path, at, 0, at, 1, "core/NumberReplacer", n, code=f"x = {n}")


POOL = [mutant(n, path) for n in range(40) for path in ("a.py", "b.py")]


@pytest.mark.parametrize(
    ("size", "seed", "expected"),
    [
        (5, 1, 5),
        (80, 1, 80),  # all of them
        (500, 1, 80),  # more than there are: all of them
        (None, 1, 80),  # no sample: all
    ],
)
def test_sample_size(size: int | None, seed: int, expected: int) -> None:
    chosen = pm.sample(POOL, size, seed)
    assert len(chosen) == expected
    assert len({m.id for m in chosen}) == expected
    assert chosen == sorted(chosen, key=lambda m: (m.path, m.line))


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_sample_is_determined_by_seed_not_by_storage_order(seed: int) -> None:
    shuffled = sorted(POOL, key=lambda m: hash(m.job_id) % 17)
    assert pm.sample(POOL, 10, seed) == pm.sample(shuffled, 10, seed)
    assert pm.sample(POOL, 10, seed) != pm.sample(POOL, 10, seed + 100)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_sample_carries_over_when_code_moves_or_grows(seed: int) -> None:
    before = pm.sample(POOL, 20, seed)
    # Ten lines added at the top of a.py: every line number there moves.
    moved = [mutant(m.occurrence, m.path, m.line + 10) if m.path == "a.py" else m for m in POOL]
    assert {m.anchor for m in pm.sample(moved, 20, seed)} == {m.anchor for m in before}
    # One new mutant: at most one of the twenty is displaced.
    grown = pm.sample([*POOL, mutant(500, "c.py")], 20, seed)
    assert len({m.anchor for m in grown} & {m.anchor for m in before}) >= 19


def test_anchors_tell_apart_equal_lines_in_file_order() -> None:
    source = "a = 1\nb = 2\n\na = 1\n"
    found = [
        pm.Mutant(f"j{i}", "m.py", line, 4, line, 5, "core/NumberReplacer", i)
        for i, line in enumerate([4, 1, 2])
    ]
    anchored = {m.line: m.anchor for m in pm.with_anchors(found, {"m.py": source})}
    assert anchored == {
        1: "m.py core/NumberReplacer #0: a = 1",
        2: "m.py core/NumberReplacer #0: b = 2",
        4: "m.py core/NumberReplacer #1: a = 1",
    }


# --- The equivalents file ---------------------------------------------------------------

WHERE = 'path = "packages/agent/src/agent/bus.py"\noperator = "core/NumberReplacer"\n'
CODE = 'code = "LIMIT = 64000"\n'
ANCHOR = "packages/agent/src/agent/bus.py core/NumberReplacer #0: LIMIT = 64000"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (f'[[mutant]]\n{WHERE}{CODE}reason = "dead branch"\n', None),
        ("# nothing judged yet\n", None),
        (f"[[mutant]]\n{WHERE}{CODE}", "'reason' must be a non-empty string"),
        (f'[[mutant]]\n{WHERE}{CODE}reason = "  "\n', "'reason' must be a non-empty string"),
        (f'[[mutant]]\n{WHERE}reason = "x"\n', "'code' must be a non-empty string"),
        (f'[[mutant]]\n{CODE}reason = "x"\n', "'path' must be a non-empty string"),
        (f'[[mutant]]\n{WHERE}{CODE}reason = "x"\nwhy = "y"\n', "unknown key 'why'"),
        (f'[[mutant]]\n{WHERE}{CODE}reason = "x"\nid = "a:1"\n', "unknown key 'id'"),
        (f'[[mutant]]\n{WHERE}{CODE}nth = -1\nreason = "x"\n', "'nth' must be a whole number"),
        (f'[[mutant]]\n{WHERE}{CODE}nth = true\nreason = "x"\n', "'nth' must be a whole number"),
        (
            f'[[mutant]]\n{WHERE}{CODE}reason = "x"\n[[mutant]]\n{WHERE}{CODE}reason = "y"\n',
            "entry 2: duplicate mutant",
        ),
        (f'[[mutant]]\n{WHERE}{CODE}reason = """a\nb"""\n', "must be one line"),
        ('mutant = "x"\n', "array of tables"),
        ("[equivalent]\n", "unknown table 'equivalent'"),
        ("[[mutant]\n", "not valid TOML"),
    ],
)
def test_parse_equivalents(text: str, problem: str | None) -> None:
    if problem is None:
        found = pm.parse_equivalents(text, "eq.toml")
        assert all(e.anchor == ANCHOR and e.reason for e in found)
        return
    with pytest.raises(pm.PowerError, match=problem) as raised:
        pm.parse_equivalents(text, "eq.toml")
    assert str(raised.value).startswith("eq.toml")
    assert "\n" not in str(raised.value)


def test_the_committed_equivalents_file_parses() -> None:
    power_file = SCRIPTS.parent / "power" / "equivalent.toml"
    assert power_file.is_file()
    pm.load_equivalents(power_file)


# --- The report -------------------------------------------------------------------------


GONE = "x.py op #0: y = 1"


def report_of(statuses: list[str], equivalent: dict[int, str]) -> dict[str, Any]:
    sampled = [mutant(n) for n in range(len(statuses))]
    results = [
        power_report.Result(m, s, None, 1.0, "", "diff", None)  # type: ignore[arg-type]
        for m, s in zip(sampled, statuses, strict=True)
    ]
    selection = ps.Selection(
        mutants=[*sampled, mutant(99)],
        annotation_only={"job99"},
        invalid={},
        candidates=sampled,
        sample=sampled,
        specs={},
    )
    equivalents = [
        pm.Equivalent(sampled[n].anchor if n >= 0 else GONE, r) for n, r in equivalent.items()
    ]
    return power_report.build(
        results=results,
        selection=selection,
        equivalents=equivalents,
        excluded={},
        settings={"sample": None, "seed": 0, "jobs": 2, "timeout_s": 60.0, "test_command": "t"},
        complete=True,
        wall_s=1.0,
    )


@pytest.mark.parametrize(
    ("statuses", "equivalent", "figures", "flags"),
    [
        # figures: killed, kill-rate denominator, judged-rate denominator
        (["killed", "killed", "survived", "crash"], {}, (2, 4, 3), ([], [])),
        (["killed", "survived", "timeout", "error"], {1: "dead"}, (1, 3, 1), ([], [])),
        (["killed", "survived"], {0: "wrong"}, (1, 1, 1), ([], ["a.py:0:core/NumberReplacer:0"])),
        (["killed"], {-1: "gone"}, (1, 1, 1), ([GONE], [])),
        (["crash", "crash"], {}, (0, 2, 0), ([], [])),
    ],
)
def test_kill_rate_and_equivalents(
    statuses: list[str],
    equivalent: dict[int, str],
    figures: tuple[int, int, int],
    flags: tuple[list[str], list[str]],
) -> None:
    killed, denominator, judged = figures
    report = report_of(statuses, equivalent)
    assert report["kill_rate"]["killed"] == killed
    assert report["kill_rate"]["denominator"] == denominator
    assert report["judged_kill_rate"]["denominator"] == judged
    assert (report["stale_equivalents"], report["equivalent_but_killed"]) == flags
    text = power_report.render(report)
    assert f"{killed} / {denominator}" in text
    for flagged in flags[0] + flags[1]:
        assert flagged in text
