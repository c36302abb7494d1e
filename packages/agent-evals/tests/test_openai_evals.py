"""The evals CLI end to end with model brains (``--sut-option``) against the fake server:
the same outcomes as the rule brains, tokens in the report, and provider failures
recorded as errored runs that the gate refuses unless ``--max-errors`` allows them."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from evals.cli.main import main
from fake_openai import FakeOpenAI, Hang, HttpError, ResponseSpec

from .conftest import CASES_DIR, load_cases
from .fake_model import competent, when_order

CASE_IDS = ("d01", "t03", "d02", "d03")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose one suite holds d01, t03, d02 and d03, with the repo's gate config."""
    root = tmp_path / "proj"
    (root / "cases").mkdir(parents=True)
    by_id = {c.id: c for c in load_cases()}
    lines = [by_id[i].model_dump_json(exclude_defaults=True) for i in CASE_IDS]
    (root / "cases" / "mixed.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # The repo's rules, less its `source` section (SupportPilot's folders, not in here).
    rules = json.loads((CASES_DIR / "gate.json").read_text(encoding="utf-8"))
    rules.pop("source", None)
    (root / "cases" / "gate.json").write_text(json.dumps(rules), encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "p"\n\n[tool.evals]\nsut = "agent_evals.sut:SupportPilotSUT"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(root)
    monkeypatch.delenv("SUPPORTPILOT_DB_DIR", raising=False)
    return root


def model_options(base_url: str, **extra: str) -> list[str]:
    """``--sut-option`` flags selecting the model brains on ``base_url``."""
    options = {
        "brain": "openai",
        "model": "fake-model",
        "base_url": base_url,
        "api_key": "test-key",
        "max_retries": "1",
        "timeout_s": "0.5",
        **extra,
    }
    return [arg for k, v in options.items() for arg in ("--sut-option", f"{k}={v}")]


def report(root: Path, label: str) -> dict[str, Any]:
    return json.loads((root / "reports" / f"{label}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_model_brains_match_the_rule_brains_and_report_tokens(
    project: Path, fake: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--label", "rule"]) == 0
    rule_out = capsys.readouterr().out
    assert "tokens" not in rule_out  # nothing spent, nothing shown
    fake.handler = competent
    assert main(["run", "--label", "model", *model_options(fake.base_url)]) == 0
    out = capsys.readouterr().out
    rule, model = report(project, "rule"), report(project, "model")
    assert model["case_success"] == rule["case_success"] == dict.fromkeys(sorted(CASE_IDS), True)
    assert model["blocked_attempts"] == rule["blocked_attempts"] == 1
    # d01: 7 calls, t03: 4 (the policy model is never asked), d02: 7, d03: 6 (escalates
    # before the reply) -> 24 calls of 15 tokens over 4 runs.
    assert model["tokens_mean"] == 24 * 15 / 4 and model["tokens_p95"] == 105
    assert re.search(r"tokens mean / p95 +90\.0 / 105\n", out)
    assert "brain=openai" in out and "api_key=***" in out and "test-key" not in out
    markdown = (project / "reports" / "model.md").read_text(encoding="utf-8")
    assert "| tokens mean / p95" in markdown and "90.0 / 105" in markdown


def test_the_traces_show_the_same_decisions_as_the_rule_brains(
    project: Path, fake: FakeOpenAI
) -> None:
    fake.handler = competent
    assert main(["run", "--label", "model", *model_options(fake.base_url)]) == 0
    [folder] = [p for p in (project / "traces").iterdir() if p.is_dir()]
    runs = {}
    for line in (folder / "runs.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        runs[record["run"]["case_id"]] = record["run"]
    d01, t03 = runs["d01"], runs["t03"]
    assert d01["outcome"] == "replied"
    assert [w["kind"] for w in d01["writes"]].count("ticket") == 1
    assert (t03["outcome"], t03["writes"], len(t03["blocked_attempts"])) == ("escalate", [], 1)
    assert d01["detail"]["brain"]["model"] == "fake-model"
    assert "api_key" not in d01["detail"]["brain"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    "failure",
    [HttpError(500), HttpError(429, retry_after=0.001), Hang(seconds=30)],
    ids=["500", "429", "hang"],
)
def test_errored_runs_are_reported_apart_and_fail_the_gate_unless_allowed(
    project: Path, fake: FakeOpenAI, capsys: pytest.CaptureFixture[str], failure: ResponseSpec
) -> None:
    assert main(["baseline"]) == 0  # the offline baseline: every case passes
    capsys.readouterr()
    fake.handler = when_order("A2001", lambda request: failure)  # d02's order
    options = model_options(fake.base_url)
    assert main(["gate", *options]) == 1
    out = capsys.readouterr().out
    assert "HARD  results incomplete: 1 run errored (at most 0 allowed)" in out
    assert "1 runs errored" in out and "d02#0: provider failed" in out
    assert "3/3 = 100.0%" in out  # the success rate is over the other runs
    assert "In the baseline, not run: d02" in out
    data = report(project, "gate")
    assert (data["runs"], data["graded_runs"], data["errors"]) == (4, 3, 1)
    assert data["error_runs"][0]["case"] == "d02"
    assert main(["gate", "--max-errors", "1", *options]) == 0
    assert "Gate: PASS" in capsys.readouterr().out


def test_a_provider_that_is_down_errors_every_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baseline"]) == 0
    capsys.readouterr()
    options = model_options(f"http://127.0.0.1:{_closed_port()}/v1", max_retries="0")
    assert main(["gate", *options]) == 1
    out = capsys.readouterr().out
    assert "results incomplete: 4 runs errored" in out
    assert "APIConnectionError" in out
    data = report(project, "gate")
    assert (data["errors"], data["graded_runs"], data["failures"]) == (4, 0, [])


@pytest.mark.parametrize(
    ("option", "fragment"),
    [
        ("brain=neural", "brain: Input should be 'rule' or 'openai'"),
        ("temperature=hot", "temperature: Input should be a valid number"),
        ("colour=blue", "unknown setting(s) 'colour'"),
    ],
)
def test_bad_sut_options_are_usage_errors(
    project: Path, capsys: pytest.CaptureFixture[str], option: str, fragment: str
) -> None:
    assert main(["run", "--sut-option", option]) == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert "Traceback" not in err
