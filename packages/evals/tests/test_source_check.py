"""The gate's source check: what Python's compiler says of the code under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evals.cli.main import main
from evals.errors import GateConfigError
from evals.execution.source_check import SourceWarning, check_sources, compile_warnings
from evals.gating.baseline import build_baseline
from evals.gating.rules import GateConfig, HardRules, SourceSection, load_gate_config
from evals.gating.verdict import evaluate
from evals.log.traces import RunMeta
from helpers import REPO_GATE_CONFIG, result

SNIPPETS = [
    # (module text, (category, fragment of the message) or None: clean)
    ('def f(s):\n    return s == "ok"\n', None),
    ('def f(s):\n    return s is "ok"\n', ("SyntaxWarning", '"is" with a literal')),
    ('def f(s):\n    return s is not "ok"\n', ("SyntaxWarning", '"is not" with a literal')),
    ('def f(c):\n    return "a" is not c <= "z"\n', ("SyntaxWarning", '"is not" with a literal')),
    ("def f(n):\n    return n is 300\n", ("SyntaxWarning", '"is" with a literal')),
    ("def f(n):\n    return n is None\n", None),
    ('def f(x):\n    assert (x, "must hold")\n', ("SyntaxWarning", "assertion is always true")),
    ('def f():\n    return "text"()\n', ("SyntaxWarning", "'str' object is not callable")),
    ('PATTERN = "\\d+"\n', ("DeprecationWarning", "invalid escape sequence")),
    ('PATTERN = r"\\d+"\n', None),
    ("def f(:\n", ("SyntaxError", "")),
]


@pytest.mark.parametrize(("text", "expected"), SNIPPETS)
def test_each_class_of_compiler_warning_is_found_on_its_line(
    tmp_path: Path, text: str, expected: tuple[str, str] | None
) -> None:
    module = tmp_path / "pkg" / "mod.py"
    module.parent.mkdir()
    module.write_text(text, encoding="utf-8")
    found = compile_warnings([module], tmp_path)
    if expected is None:
        assert found == []
        return
    category, fragment = expected
    assert [(w.path, w.category) for w in found] == [("pkg/mod.py", category)]
    assert fragment in found[0].message
    assert found[0].line == (1 if text.startswith(("PATTERN", "def f(:")) else 2)
    assert found[0].render().startswith(f"pkg/mod.py:{found[0].line}: {category}: ")


def test_every_module_under_a_folder_is_compiled_not_imported(tmp_path: Path) -> None:
    src = tmp_path / "src" / "bot"
    (src / "sub").mkdir(parents=True)
    # Importing would raise; compiling does not run it.
    (src / "__init__.py").write_text('raise SystemExit("imported!")\n', encoding="utf-8")
    (src / "sub" / "deep.py").write_text('x = 1\nok = x is "y"\n', encoding="utf-8")
    (src / "notes.txt").write_text('x is "y"\n', encoding="utf-8")
    found = check_sources(["src"], tmp_path, tmp_path / "gate.json")
    assert [w.render().split(": ")[0] for w in found] == ["src/bot/sub/deep.py:2"]


@pytest.mark.parametrize(
    ("paths", "fragment"),
    [
        (["src", "scr"], "source.paths[1]: 'scr' is no Python module or folder of them"),
        (["src/notes.txt"], "source.paths[0]: 'src/notes.txt'"),
        (["empty"], "source.paths[0]: 'empty'"),
    ],
)
def test_a_source_path_that_holds_no_module_is_one_line(
    tmp_path: Path, paths: list[str], fragment: str
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "src" / "notes.txt").write_text("x\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    with pytest.raises(GateConfigError) as info:
        check_sources(paths, tmp_path, tmp_path / "cases" / "gate.json")
    assert fragment in str(info.value)
    assert "gate.json" in str(info.value)
    assert "\n" not in str(info.value)


WARNING = SourceWarning("src/bot.py", 3, "SyntaxWarning", '"is" with a literal. Did you mean "=="?')


@pytest.mark.parametrize(
    ("warnings", "allowed", "passes"),
    [
        (None, 0, True),  # no source section: not judged
        ([], 0, True),
        ([WARNING], 0, False),
        ([WARNING], 1, True),
        ([WARNING, WARNING], 1, False),
    ],
)
def test_compiler_warnings_are_a_hard_finding_past_the_threshold(
    warnings: list[SourceWarning] | None, allowed: int, passes: bool
) -> None:
    results = [result("t01"), result("t02")]
    baseline = build_baseline(results, RunMeta(suites=["all"]), [])
    config = GateConfig(hard=HardRules(source_warnings_max=allowed))
    verdict = evaluate(results, baseline, config, source_warnings=warnings)
    assert verdict.passed is passes
    rules = [f.rule for f in verdict.hard]
    assert rules == ([] if passes else ["source_warnings"])
    if not passes:
        message = verdict.hard[0].message
        assert f"compiler warning{'s' if len(warnings or []) > 1 else ''} in the code" in message
        assert "src/bot.py:3: SyntaxWarning" in message
        assert f"at most {allowed} allowed" in message


def test_the_committed_gate_checks_the_code_of_supportpilot() -> None:
    config = load_gate_config(REPO_GATE_CONFIG)
    assert config.hard.source_warnings_max == 0
    assert config.source == SourceSection(
        paths=["packages/domain/src", "packages/tools/src", "packages/agent/src"]
    )
    root = REPO_GATE_CONFIG.parents[1]
    assert check_sources(config.source.paths, root, REPO_GATE_CONFIG) == []


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"source": {}}', "source.paths"),
        ('{"source": {"paths": []}}', "source.paths"),
        ('{"source": {"paths": [""]}}', "source.paths.0"),
        ('{"source": {"paths": "src"}}', "source.paths"),
        ('{"source": {"path": ["src"]}}', "source.path"),
        ('{"hard": {"source_warnings_max": -1}}', "hard.source_warnings_max"),
    ],
)
def test_a_bad_source_section_is_one_line(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "gate.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GateConfigError) as info:
        load_gate_config(path)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def _with_source(project: Path, paths: list[str]) -> None:
    gate = project / "cases" / "gate.json"
    rules = json.loads(gate.read_text(encoding="utf-8"))
    rules["source"] = {"paths": paths}
    gate.write_text(json.dumps(rules), encoding="utf-8")


def test_the_gate_fails_a_change_that_adds_a_compiler_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Positive control end to end: the same project passes, then one `==` turned `is`
    # against a literal fails it, naming the line, although every case still passes.
    bot = project / "src" / "bot.py"
    bot.parent.mkdir()
    bot.write_text('def plan(kind):\n    return kind == "reissue"\n', encoding="utf-8")
    _with_source(project, ["src"])
    assert main(["baseline"]) == 0
    capsys.readouterr()
    assert main(["gate"]) == 0
    assert "Gate: PASS (0 hard, 0 soft)" in capsys.readouterr().out
    bot.write_text('def plan(kind):\n    return kind is "reissue"\n', encoding="utf-8")
    assert main(["gate"]) == 1
    out = capsys.readouterr().out
    assert "Gate: FAIL (1 hard, 0 soft)" in out
    assert "1 compiler warning in the code under test (at most 0 allowed)" in out
    assert 'src/bot.py:2: SyntaxWarning: "is" with a literal' in out
    assert "Pass -> fail: (none)" in out


def test_a_missing_source_folder_stops_the_gate_before_any_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baseline"]) == 0
    _with_source(project, ["src"])
    capsys.readouterr()
    assert main(["gate"]) == 2
    err = capsys.readouterr().err
    assert "source.paths[0]: 'src' is no Python module or folder of them" in err
    assert len(err.strip().splitlines()) == 1
