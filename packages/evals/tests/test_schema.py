"""The committed case JSON Schema: up to date, and it agrees with the models."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped,unused-ignore]
import pytest
from evals.model import schema
from evals.model.case import Case


def test_committed_schema_is_up_to_date() -> None:
    committed = schema.schema_path().read_text(encoding="utf-8")
    assert committed == schema.render_schema(), "stale: run `python -m evals.model.schema`"


def test_installed_schema_is_the_generated_one() -> None:
    assert schema.load_schema() == schema.build_schema()


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(schema.build_schema())


def test_reference_cases_validate_against_the_schema(suite_files: list[Path]) -> None:
    validator = jsonschema.Draft202012Validator(schema.load_schema())
    lines = [
        line
        for path in suite_files
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]
    assert len(lines) == 26
    for text in lines:
        errors = list(validator.iter_errors(json.loads(text)))
        assert errors == [], text


def _base(**changes: object) -> dict[str, object]:
    case: dict[str, object] = {
        "id": "x",
        "split": "dev",
        "input": {"goal": "g"},
        "expect": {"outcome": "replied"},
    }
    return {**case, **changes}


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        (
            {"id": "x", "split": "dev", "input": {"goal": "g"}, "expect": {"outcome": "replied"}},
            True,
        ),
        # The core takes any split and no outcome (a project's vocabulary may not).
        (
            {"id": "x", "split": "prod", "input": {"goal": "g"}, "expect": {"outcome": "replied"}},
            True,
        ),
        ({"id": "x", "split": "dev", "input": {"goal": "g"}, "expect": {}}, True),
        ({"id": "x", "split": "", "input": {"goal": "g"}, "expect": {}}, False),
        ({"id": "x", "split": "dev", "input": {"goal": "g"}, "expect": {"outcome": ""}}, False),
        ({"id": "x", "split": "dev", "input": ["g"], "expect": {}}, False),
        (
            {
                "id": "x",
                "split": "dev",
                "input": {"goal": "g"},
                "expect": {"outcome": "replied"},
                "faults": {"a": "flaky:0.25"},
            },
            True,
        ),
        (
            {
                "id": "x",
                "split": "dev",
                "input": {"goal": "g"},
                "expect": {"outcome": "replied"},
                "faults": {"a": "Melt"},
            },
            False,
        ),
    ],
)
def test_schema_and_model_agree(data: dict[str, object], valid: bool) -> None:
    validator = jsonschema.Draft202012Validator(schema.load_schema())
    assert validator.is_valid(data) is valid
    try:
        Case.model_validate(data)
        model_valid = True
    except ValueError:
        model_valid = False
    assert model_valid is valid


def test_main_check_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "case.schema.json"
    stale.write_text("{}\n", encoding="utf-8")
    monkeypatch.setattr(schema, "schema_path", lambda: stale)
    assert schema.main(["--check"]) == 1
    assert schema.main([]) == 0
    assert stale.read_text(encoding="utf-8") == schema.render_schema()
    assert schema.main(["--check"]) == 0


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        (_base(expect={"outcome": "replied", "tickets": "1"}), False),
        (_base(expect={"outcome": "replied", "tickets": 1.5}), False),
        (_base(expect={"outcome": "replied", "tickets": -1}), False),
        (_base(tags="happy"), False),
        (_base(colour="red"), False),
        (_base(input={"goal": "g", "order_id": 1001}), True),  # input: a free mapping
        (_base(input="g"), False),
        (_base(split=7), False),
        (_base(input={"goal": "g", "order_id": None, "channel": "chat"}), True),
        (_base(expect={"outcome": "replied", "custom_key": [1]}), True),
        (_base(world={"orders": {"A1": {"paid": 59.0}}}), True),
    ],
)
def test_strict_model_accepts_exactly_what_the_schema_accepts(
    data: dict[str, object], valid: bool
) -> None:
    """The loader's fast path validates with the strict model and consults the schema only
    on failure, so the strict model must never accept a case the schema refuses."""
    validator = jsonschema.Draft202012Validator(schema.load_schema())
    assert validator.is_valid(data) is valid
    try:
        Case.model_validate(data, strict=True)
        strict_valid = True
    except ValueError:
        strict_valid = False
    assert strict_valid is valid
