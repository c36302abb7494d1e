import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from judge.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def files(labels_path: Path, pairs_path: Path) -> list[str]:
    return ["--labels", str(labels_path), "--pairs", str(pairs_path)]


def test_all_offline_prints_every_judge_on_both_splits(
    capsys: pytest.CaptureFixture[str], labels_path: Path, pairs_path: Path
) -> None:
    code, out, _ = run(capsys, "--judge", "all-offline", *files(labels_path, pairs_path))
    assert code == 0
    for name in ("rule", "rule-v2", "lenient", "position-biased"):
        assert f"== {name} ==" in out
    assert "holdout: not usable" in out
    assert "FLAGGED (position bias)" in out
    assert "May enter the gate (usable on holdout, not flagged): none" in out


def test_one_judge_and_json_output(
    capsys: pytest.CaptureFixture[str], labels_path: Path, pairs_path: Path, tmp_path: Path
) -> None:
    target = tmp_path / "report.json"
    code, out, _ = run(
        capsys, "--judge", "rule-v2", *files(labels_path, pairs_path), "--json", str(target)
    )
    assert code == 0
    assert "== rule ==" not in out
    report = json.loads(target.read_text(encoding="utf-8"))
    assert report["version"] == 2
    [judge] = report["judges"]
    assert [s["usable"] for s in judge["splits"]] == [True, False]


def test_thresholds_are_options(
    capsys: pytest.CaptureFixture[str], labels_path: Path, pairs_path: Path
) -> None:
    args = ["--judge", "rule", *files(labels_path, pairs_path)]
    _, strict, _ = run(capsys, *args)
    _, loose, _ = run(capsys, *args, "--min-kappa", "0.3", "--min-fail-recall", "0.4")
    assert "holdout: not usable" in strict
    assert "holdout: not usable" not in loose


@pytest.mark.parametrize(
    ("which", "line", "expected"),
    [
        ("labels", '{"id": "z", "split": "tune", "label": "maybe", "reply": "x"}', "field 'label'"),
        ("pairs", '{"id": "z", "better": "x"}', "field 'worse'"),
        ("labels", "{oops", "not JSON"),
        (  # a second "label" key would flip the verdict silently: refused
            "labels",
            '{"id": "z", "split": "tune", "label": "fail", "reply": "x", "label": "pass"}',
            "key 'label' appears twice",
        ),
        ("labels", "[" * 100_000 + "]" * 100_000, "nested too deep"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    *,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    labels_path: Path,
    pairs_path: Path,
    which: str,
    line: str,
    expected: str,
) -> None:
    bad = tmp_path / f"{which}.jsonl"
    bad.write_text("# header\n" + line + "\n", encoding="utf-8")
    labels = bad if which == "labels" else labels_path
    pairs = bad if which == "pairs" else pairs_path
    code, out, err = run(capsys, *files(labels, pairs))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert f"{bad}:2: " in err
    assert expected in err
    assert "Traceback" not in err


def test_a_missing_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--labels", str(tmp_path / "none.jsonl"))
    assert code == 2
    assert "none.jsonl" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["--min-kappa", "2"],
        ["--min-fail-recall", "-0.1"],
        ["--max-inconsistent", "x"],
        ["--max-attack-false-pass", "1.5"],
    ],
)
def test_a_threshold_outside_0_to_1_exits_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_usage_names_the_program_it_was_called_as(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"], prog="evals judge")
    assert capsys.readouterr().out.startswith("usage: evals judge")


def test_an_unknown_judge_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--judge", "oracle"])
    assert caught.value.code == 2


def test_openai_without_a_key_exits_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    labels_path: Path,
    pairs_path: Path,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = run(
        capsys, "--judge", "openai", "--base-url", "http://127.0.0.1:9/v1",
        *files(labels_path, pairs_path),
    )  # fmt: skip
    assert code == 2
    assert err.startswith("judge: error: ")


def always_first_and_pass(request: Any) -> str:
    """A model that passes every reply and always prefers reply A."""
    user = request["messages"][-1]["content"]
    if "reply_a" in json.loads(user):
        return json.dumps({"choice": "A", "reason": "first"})
    return json.dumps({"pass": True, "reason": "looks fine"})


def test_openai_judge_is_calibrated_through_the_cli(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    labels_path: Path,
    pairs_path: Path,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeOpenAI(handler=always_first_and_pass) as fake:
        code, out, _ = run(
            capsys, "--judge", "openai", "--base-url", fake.base_url, "--model", "m-test",
            "--max-retries", "0", *files(labels_path, pairs_path),
        )  # fmt: skip
        models = {request.json["model"] for request in fake.chat_requests}
    assert code == 0
    assert models == {"m-test"}
    assert "== openai ==" in out
    assert "FLAGGED (position bias)" in out
    assert "holdout: not usable" in out
    assert "tokens: " in out


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "folder"])
def test_a_special_labels_file_is_refused_unread(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pairs_path: Path, special: str
) -> None:
    if special == "fifo":
        path = tmp_path / "labels.jsonl"
        os.mkfifo(path)  # opened for reading, it would block until a writer came
    elif special == "folder":
        path = tmp_path / "labels"
        path.mkdir()
    else:
        path = Path(special)
    # In a process of its own, with a deadline: a reader that opened the FIFO for reading
    # would block there forever (a hang is the failure this test exists to catch).
    code = "import sys; from judge.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, *files(path, pairs_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    out, err = done.stdout, done.stderr
    assert done.returncode == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err and ("not read" in err or "cannot read" in err)


def test_json_to_a_folder_is_refused_before_the_judges_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, labels_path: Path, pairs_path: Path
) -> None:
    code, out, err = run(capsys, *files(labels_path, pairs_path), "--json", str(tmp_path))
    assert code == 2 and out == ""  # nothing judged, nothing printed
    assert err.count("\n") == 1 and "is a folder" in err and "Traceback" not in err
