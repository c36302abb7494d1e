"""What a start costs: the command line imports what a run needs, and the collector
leaves what lives for the whole command alone (docs/performance.md)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest
from evals.cli.main import _collector_paused

LEFT_FOR_LATER = (
    "jsonschema",  # only for the messages of a line the strict model refuses
    "evals.cases.lint",  # evals lint
    "evals.cases.generate",  # evals generate
    "evals.report.compare",  # evals compare
    "evals.report.compare_html",
)


def _imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_the_command_line_starts_without_what_only_other_commands_use() -> None:
    imported = _imported_after("import evals.cli.main")
    assert "evals.evaluation" in imported  # the probe sees what a start imports
    assert not imported & set(LEFT_FOR_LATER)


@pytest.mark.parametrize(
    ("line", "schema_imported"),
    [
        ('{"id": "c1", "split": "dev", "input": {"goal": "g"}, "expect": {}}', False),
        ('{"id": "c1", "split": "dev", "input": {"goal": "g"}, "expect": {}, "tags": 3}', True),
    ],
    ids=["valid", "invalid"],
)
def test_only_a_refused_line_needs_the_json_schema(
    tmp_path: Path, line: str, schema_imported: bool
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(line + "\n", encoding="utf-8")
    code = (
        "from evals.cases.loader import load_cases\n"
        "from evals.errors import CaseFileError\n"
        f"try:\n    load_cases({str(cases)!r})\nexcept CaseFileError as e:\n    print(e)\n"
    )
    assert ("jsonschema" in _imported_after(code)) is schema_imported


@pytest.mark.parametrize("enabled", [True, False])
def test_the_plan_is_made_without_collections_and_then_frozen(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        frozen_before = gc.get_freeze_count()
        with _collector_paused():
            assert not gc.isenabled()
            kept = [[n] for n in range(1000)]  # made while planning: lives on
        assert gc.isenabled() is enabled  # as it was: a paused collector never stays off
        assert gc.get_freeze_count() >= frozen_before + len(kept)
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
