"""evals power end to end, on a small project of its own (not SupportPilot): cosmic-ray
mutates its module, its own gate script judges each mutant in a copy, the report counts
kills, survivors, crashes and equivalents, and the ledger keeps a later holdout honest.
Also: the test command's wrapper, the missing extra, bad configuration, and a project
whose unmutated copy fails."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray", reason="cosmic-ray is not installed (supportpilot-evals[power])")

from cosmic_ray.testing import run_tests
from evals.config import load_config
from evals.power.config import PowerConfig, power_config
from evals.power.mutants import classify
from evals.power.run import INJECTED, Worker

CALC = """\
from __future__ import annotations


def add(a: int, b: int) -> int:
    return a + b


def is_big(n: int) -> bool:
    return n > 10


def same(a: int, b: int) -> bool:
    return a == b


def parse(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None
"""

GATE = """\
import os
import sys

import calc

assert os.path.isdir(os.environ["SCRATCH"])
ok = calc.add(2, 3) == 5 and calc.is_big(11) and not calc.is_big(10)
ok = ok and calc.parse("7") == 7 and calc.parse("x") is None
ok = ok and calc.same(1, 1) and not calc.same(1, 2) and not calc.same(2, 1)
print("Gate: PASS (0 hard, 0 soft)" if ok else "Gate: FAIL (1 hard, 0 soft)")
sys.exit(0 if ok else 1)
"""

PYPROJECT = """\
[tool.evals]
reports_dir = "reports"

[tool.evals.power]
paths = ["src"]
test_command = ["{python}", "gate.py"]
pythonpath = ["src"]
scratch_env = ["SCRATCH"]
timeout_s = 30

[tool.evals.power.exclude]
"src/harness.py" = "a test helper the product never imports"
"""

EQUIVALENTS = """\
[[mutant]]
path = "src/calc.py"
operator = "core/ReplaceComparisonOperator_Gt_NotEq"
code = "return n > 10"
class = "unreachable"
reason = "the gate only asks about 10 and 11"
premise = { kind = "source_has", file = "gate.py", pattern = "is_big\\\\(11\\\\)" }

[[mutant]]
path = "src/calc.py"
operator = "core/ReplaceComparisonOperator_Eq_Is"
code = "return a == b"
class = "equivalent"
reason = "a premise that does not hold: counted as a survivor"
premise = { kind = "source_has", file = "src/calc.py", pattern = "no such text" }
"""


def make(tmp_path: Path, *, gate: str = GATE, pyproject: str = PYPROJECT) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text(CALC, encoding="utf-8")
    (root / "src" / "harness.py").write_text("def helper() -> int:\n    return 1 + 1\n")
    (root / "gate.py").write_text(gate, encoding="utf-8")
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (root / "power").mkdir()
    (root / "power" / "equivalent.toml").write_text(EQUIVALENTS, encoding="utf-8")
    return root


def evals(
    root: Path, *args: str, block_cosmic_ray: bool = False
) -> subprocess.CompletedProcess[str]:
    code = "import sys\n"
    if block_cosmic_ray:
        code += "sys.modules['cosmic_ray'] = None\n"
    code += "from evals.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    # The caller's PYTHONPATH is kept: under devtools.mutate it names the mutated copy,
    # whose evals is the one under test.
    return subprocess.run(
        [sys.executable, "-c", code, "power", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_whole_population_then_no_holdout_is_left(tmp_path: Path) -> None:
    root = make(tmp_path)
    done = evals(root, "--all", "--jobs", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((root / "reports" / "power.json").read_text(encoding="utf-8"))
    counts = report["counts"]
    survivors = {m["operator"] for m in report["mutants"] if m["status"] == "survived"}
    # `n != 10` agrees with `n > 10` on 10 and 11, `a is b` with `a == b` on small ints;
    # `except Exception` with `except ValueError`, all `int()` of a str raises
    assert survivors == {
        "core/ReplaceComparisonOperator_Gt_NotEq",
        "core/ReplaceComparisonOperator_Eq_Is",
        "evals/BroadenExceptHandler",
    }
    # the handler no longer catching ValueError: a traceback, not a verdict
    crashes = [m for m in report["mutants"] if m["status"] == "crash"]
    assert [m["operator"] for m in crashes] == ["core/ExceptionReplacer"]
    assert counts["killed"] == report["tried"] - 4
    assert report["tried"] == report["candidates"] == report["sample"]["sampled"]
    # raw counts every survivor; adjusted leaves out the one whose premise holds
    assert report["raw_kill_rate"]["denominator"] == report["tried"]
    assert report["kill_rate"]["denominator"] == report["tried"] - 1
    assert report["equivalent_classes"] == {"equivalent": 0, "unreachable": 1}
    assert [p["id"].split(":")[2] for p in report["premise_fails"]] == [
        "core/ReplaceComparisonOperator_Eq_Is"
    ]
    # out of scope: the harness, counted and named with its reason
    assert report["scope"]["out_of_scope"] == {
        "src/harness.py": report["scope"]["out_of_scope_total"]
    }
    assert report["scope"]["out_of_scope_total"] > 0
    assert report["annotation_only_dropped"] > 0  # the annotations of add, is_big, parse
    assert report["sample"]["purpose"] == "all"
    assert "WHOLE POPULATION" in (root / "reports" / "power.md").read_text(encoding="utf-8")
    assert (root / "reports" / "power.sqlite").is_file()
    ledger = json.loads((root / "power" / "samples.json").read_text(encoding="utf-8"))
    (entry,) = ledger["samples"]
    assert entry["purpose"] == "all" and len(entry["mutants"]) == report["tried"]
    # every mutant is used now: a held-out sample cannot be drawn (the positive control)
    again = evals(root, "--sample", "1", "--purpose", "holdout")
    assert again.returncode == 2
    assert "a held-out sample of 1 cannot be drawn" in again.stderr
    assert len(json.loads((root / "power" / "samples.json").read_text())["samples"]) == 1


def test_a_sample_runs_in_an_order_its_seed_shuffles() -> None:
    from evals.power.mutants import Mutant
    from evals.power.run import run_order

    sample = [Mutant(f"j{i}", f"m{i // 10}.py", i, 0, i, 1, "core/AddNot", 0) for i in range(40)]
    once, again, other = run_order(sample, 7), run_order(sample, 7), run_order(sample, 8)
    assert once == again  # the same every time for one seed
    assert sorted(once, key=lambda m: m.line) == sample  # every mutant, once
    assert once not in (sample, other)  # not file order; another seed, another order
    first_half = {m.path for m in once[:20]}
    assert len(first_half) > 2  # a stopped run's first half spans the modules


def _ignore_sigint() -> None:
    """What a shell does to a job it starts in the background (``nohup evals power … &``):
    SIGINT ignored from the start."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_keeps_what_finished_even_in_the_background(
    tmp_path: Path, signum: signal.Signals
) -> None:
    root = make(tmp_path, gate="import time\ntime.sleep(0.5)\n" + GATE)
    code = "import sys\nfrom evals.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    args = ["power", "--sample", "8", "--jobs", "1"]
    with subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ignore_sigint,  # noqa: PLW1509 (a test of exactly that)
    ) as proc:
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("[1/8]"):
                break
        proc.send_signal(signum)
        _, rest = proc.communicate(timeout=300)
    err = "".join(seen) + rest
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted; waiting for the running mutants" in err
    report = json.loads((root / "reports" / "power.json").read_text(encoding="utf-8"))
    assert report["complete"] is False
    assert 1 <= report["tried"] < 8
    md = (root / "reports" / "power.md").read_text(encoding="utf-8")
    assert "INCOMPLETE" in md and "those that ran are a random part of it" in md


def test_a_holdout_gets_a_fresh_seed_and_a_reused_seed_is_refused(tmp_path: Path) -> None:
    root = make(tmp_path)
    ledger = root / "power" / "samples.json"
    tuned = evals(root, "--sample", "4", "--seed", "3")
    assert tuned.returncode == 0, tuned.stderr[-2000:]
    assert "TUNING sample (seed 3)" in tuned.stderr
    held = evals(root, "--sample", "4", "--purpose", "holdout", "--label", "held")
    assert held.returncode == 0, held.stderr[-2000:]
    report = json.loads((root / "reports" / "held.json").read_text(encoding="utf-8"))
    assert report["sample"]["held_out"] is True
    assert report["sample"]["seed"] != 3 and not report["sample"]["seed_given"]
    tuned_ids = {
        m["anchor"] for m in json.loads((root / "reports" / "power.json").read_text())["mutants"]
    }
    assert not tuned_ids & {m["anchor"] for m in report["mutants"]}
    seeds = [e["seed"] for e in json.loads(ledger.read_text())["samples"]]
    assert seeds == [3, report["sample"]["seed"]]
    for seed in seeds:  # the positive control: either seed again is refused as a holdout
        refused = evals(root, "--sample", "2", "--purpose", "holdout", "--seed", str(seed))
        assert refused.returncode == 2
        assert f"seed {seed} was used before" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert len(json.loads(ledger.read_text())["samples"]) == 2


def test_a_dry_run_records_nothing(tmp_path: Path) -> None:
    root = make(tmp_path)
    done = evals(root, "--sample", "3", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 3
    assert not (root / "power" / "samples.json").exists()


def test_an_unmutated_copy_that_fails_is_refused_and_not_recorded(tmp_path: Path) -> None:
    root = make(tmp_path, gate=GATE.replace("calc.add(2, 3) == 5", "calc.add(2, 3) == 6"))
    done = evals(root, "--sample", "2")
    assert done.returncode == 2
    assert "the unmutated copy does not pass its test command" in done.stderr
    assert not (root / "power" / "samples.json").exists()


@pytest.mark.parametrize(
    ("pyproject", "problem"),
    [
        ("[tool.evals]\n", "no [tool.evals.power] table"),
        (PYPROJECT.replace('paths = ["src"]', 'paths = ["lib"]'), "paths: no 'lib'"),
        (PYPROJECT.replace('paths = ["src"]', "paths = []"), "paths: List should have at least 1"),
        (
            PYPROJECT.replace('"src/harness.py"', '"other/x.py"'),
            "exclude: 'other/x.py' is under none",
        ),
        (
            PYPROJECT.replace('= "a test helper the product never imports"', '= ""'),
            "the reason must be",
        ),
        (PYPROJECT.replace('"gate.py"]', '"gate.py", "{label}"]'), "unknown placeholder '{label}'"),
        (PYPROJECT.replace("timeout_s = 30", "timeout_s = 0"), "timeout_s"),
        (PYPROJECT.replace("timeout_s = 30", "mutate = true"), "mutate: Extra inputs"),
        (
            PYPROJECT.replace('pythonpath = ["src"]', "pythonpath = []"),
            "under none of the pythonpath",
        ),
    ],
)
def test_bad_configuration_is_one_line_exit_2(tmp_path: Path, pyproject: str, problem: str) -> None:
    root = make(tmp_path, pyproject=pyproject)
    done = evals(root, "--sample", "1")
    assert done.returncode == 2
    assert problem in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()[-1]) > 0


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ([], "one of the arguments --sample --all --replay is required"),
        (["--sample", "3", "--replay", "1"], "not allowed with argument"),
        (["--replay", "1", "--purpose", "holdout"], "its figure is a tuning one"),
        (["--replay", "1", "--seed", "2"], "names the sample by its seed"),
        (["--replay", "7"], "no sample of"),
        (["--sample", "0"], "must be at least 1"),
        (["--all", "--purpose", "holdout"], "--all is a purpose of its own"),
        (["--sample", "1", "--purpose", "final"], "invalid choice"),
        (["--sample", "1", "--purpose", "holdout", "--fresh"], "--fresh draws a tuning"),
        (["--all", "--fresh"], "--fresh draws a tuning"),
        (["--replay", "1", "--fresh"], "--fresh draws a tuning"),
    ],
)
def test_bad_arguments(tmp_path: Path, args: list[str], problem: str) -> None:
    done = evals(make(tmp_path), *args)
    assert done.returncode == 2
    assert problem in done.stderr


def test_without_the_extra_one_line_and_exit_2(tmp_path: Path) -> None:
    done = evals(make(tmp_path), "--sample", "1", block_cosmic_ray=True)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "evals: error: evals power needs cosmic-ray, which is not installed: install the extra"
        " supportpilot-evals[power]"
    )


# --- The test command's wrapper -------------------------------------------------------------


def worker_for(tmp_path: Path, body: str) -> Worker:
    """A worker whose copy's test command is a stand-in gate running ``body``."""
    root = make(tmp_path, gate=textwrap.dedent(body))
    config: PowerConfig = power_config(load_config(file=root / "pyproject.toml"))
    scratch, inject = tmp_path / "scratch", tmp_path / "inject"
    scratch.mkdir()
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(INJECTED)
    return Worker(root, scratch, inject, config)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("import sys\nprint('Gate: FAIL (1 hard, 0 soft)')\nsys.exit(1)\n", "killed", 1),
        ("print('Gate: PASS (0 hard, 0 soft)')\n", "survived", 0),
        ("raise TypeError('boom')\n", "crash", 1),  # traceback on stderr, exit 1
        ("import sys\nprint('bad', file=sys.stderr)\nsys.exit(2)\n", "crash", 2),
        ("import time\ntime.sleep(60)\n", "timeout", None),
        # the cwd is the copy, the scratch variable is set, the copy's code is imported
        (
            "import os, sys, calc\n"
            "ok = os.path.isfile('gate.py') and os.path.isdir(os.environ['SCRATCH'])\n"
            "ok = ok and calc.__file__.startswith(os.getcwd())\n"
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
    worker = worker_for(tmp_path, body)
    _, output = run_tests(worker.command("x"), 1.0 if status == "timeout" else 60.0)
    assert classify(output) == (status, code), output


def test_the_scratch_folder_is_emptied(tmp_path: Path) -> None:
    worker = worker_for(tmp_path, "print('Gate: PASS')\n")
    (worker.scratch / "world.sqlite").write_text("x")
    (worker.scratch / "sub").mkdir()
    worker.clean()
    assert list(worker.scratch.iterdir()) == []


def test_the_sanity_check_proves_the_copy_is_what_runs(tmp_path: Path) -> None:
    worker = worker_for(tmp_path, GATE)
    assert worker.module_names() == ["calc", "harness"]
    assert worker.sanity(60.0) is None
    # a pythonpath entry pointing elsewhere: the copy's module is not what is imported
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "calc.py").write_text(CALC)
    (elsewhere / "harness.py").write_text("")
    worker.inject_dir = elsewhere  # first on PYTHONPATH
    problem = worker.sanity(60.0)
    assert problem is not None and "not what gets imported" in problem
