"""The HTML report: self-contained, escaped, failures first, any run's fields shown
generically (absent ones skipped), the baseline diff when gating."""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.cli.main import main
from evals.log.traces import RunMeta
from evals.metrics.summary import compute
from evals.model.result import CheckResult, RunResult
from evals.model.run import Run
from evals.report.html import (
    ROWS_MAX,
    TEXT_CHARS_MAX,
    VALUE_CHARS_MAX,
    case_views,
    load_runs,
    render_html,
    trace_sections,
    traced_pairs,
    value_text,
)
from helpers import result
from html_reports import (
    FAILING_ID,
    HOSTILE_GOAL,
    HOSTILE_ID,
    HOSTILE_KEY,
    HOSTILE_REASON,
    HOSTILE_REPLY,
    PASSING_ID,
    write_hostile_report,
)

META = RunMeta(run_id="20260101T000000Z-x-abcdef", label="x", sut="s:S", complete=True)
MARKUP = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&"
MARKUP_TAGS = "<script>alert(1)</script><img src=x onerror=alert(2)>"
"""The part of :data:`MARKUP` a JSON rendering leaves as it is."""


class _Tags(HTMLParser):
    """Every start tag and its attributes, as a browser's tokenizer would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def _result(case_id: str = "c1", *, ok: bool = True, reason: str = "", **kw: Any) -> RunResult:
    checks = [CheckResult(name="outcome", kind="outcome", passed=ok, reason=reason)]
    fields: dict[str, Any] = {"split": "dev", "outcome": "replied", **kw}
    return RunResult(case_id=case_id, trial=0, checks=checks, **fields)


def _page(results: list[RunResult], runs: dict[tuple[str, int], Any] | None = None) -> str:
    return render_html(compute(results), META, results, runs=runs)


def _run(**fields: Any) -> dict[str, Any]:
    return Run(case_id="c1", outcome="replied", **fields).model_dump(mode="json")


@pytest.mark.parametrize(
    ("where", "page"),
    [
        ("case id", lambda: _page([_result(MARKUP)])),
        ("check reason", lambda: _page([_result(ok=False, reason=MARKUP)])),
        ("split", lambda: _page([_result(split=MARKUP)])),
        ("tag", lambda: _page([_result(tags=[MARKUP])])),
        ("run error", lambda: _page([_result(error=MARKUP)])),
        ("reply", lambda: _page([_result()], {("c1", 0): _run(reply=MARKUP)})),
        ("detail key", lambda: _page([_result()], {("c1", 0): _run(detail={MARKUP: 1})})),
        ("detail value", lambda: _page([_result()], {("c1", 0): _run(detail={"k": [MARKUP]})})),
        ("fact key", lambda: _page([_result()], {("c1", 0): _run(facts={MARKUP: "v"})})),
        ("multi-line text", lambda: _page([_result()], {("c1", 0): _run(draft=MARKUP + "\n")})),
        ("list item", lambda: _page([_result()], {("c1", 0): _run(gaps=["ok", MARKUP])})),
        ("table cell", lambda: _page([_result()], {("c1", 0): _run(steps=[{"role": MARKUP}])})),
    ],
)
def test_markup_from_cases_and_runs_is_text(where: str, page: Any) -> None:
    text = page()
    assert MARKUP_TAGS not in text, where
    assert str(escape(MARKUP_TAGS)) in text, where
    if where != "detail value":  # JSON spells the quotes \" there
        assert str(escape(MARKUP)) in text, where
    # Only the report's own script element, and no image at all.
    assert [t for t, _ in _tags(text) if t in ("script", "img")] == ["script"], where


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page
    for tag, attrs in _tags(page):
        assert tag != "link", attrs
        assert "src" not in attrs or tag == "img", (tag, attrs)  # no script or frame source
        # No event handler attribute anywhere: the page's script binds its own.
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
    assert "Content-Security-Policy" in page


def test_a_hostile_report_shows_every_hostile_string_escaped(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    for hostile in (HOSTILE_ID, HOSTILE_REPLY, HOSTILE_REASON, HOSTILE_KEY, "<i>tag</i>"):
        assert hostile not in page
        assert str(escape(hostile)) in page
    assert [t for t, _ in _tags(page) if t in ("script", "img", "svg", "b", "i")] == ["script"]


def test_failures_come_first_then_every_case_failing_first(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    failures, cases = page.index('id="failures"'), page.index('id="cases"')
    assert page.index('id="summary"') < failures < cases
    listed = page[failures:cases]
    assert FAILING_ID in listed and str(escape(HOSTILE_ID)) in listed
    assert PASSING_ID not in listed
    every = page[cases:]
    # Failing cases first (by id), the passing one last although its id sorts first.
    positions = [every.index(x) for x in (FAILING_ID, str(escape(HOSTILE_ID)), PASSING_ID)]
    assert positions[2] > max(positions[:2])
    assert every.index('class="case fail"') < every.index('class="case pass"')


def test_a_failure_links_to_its_run_whose_checks_give_the_reason(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    links = [a["href"] for t, a in _tags(page) if t == "a" and "jump" in (a.get("class") or "")]
    failures = page[page.index('id="failures"') : page.index('id="cases"')]
    to_runs = [a["href"] for t, a in _tags(failures) if t == "a"]
    assert to_runs and all(href and href.startswith("#run-") for href in to_runs)
    # The gate's lists link each name to its case.
    # Each check row links to itself (a deep link to a check).
    to_checks = {href for href in links if re.fullmatch(r"#run-\d+-check-\d+", href or "")}
    assert to_checks
    others = {href for href in links if href not in to_runs and href not in to_checks}
    assert others <= {f"#case-{n}" for n in (1, 2, 3)}
    ids = {a.get("id") for _, a in _tags(page)}
    assert {href[1:] for href in links if href} <= ids  # every link has its target
    assert "expected outcome &#39;replied&#39;, got &#39;escalate&#39;" in page
    assert "FAILED" in page and "passed" in page


def test_the_trace_shows_what_the_run_holds_and_marks_refusals(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    for title in ("steps", "blocked attempts", "approvals", "screened", "role errors", "writes"):
        assert f"<h4>{title}</h4>" in page, title
    assert "create_ticket" in page and "human" in page and "stale_hours" in page


@pytest.mark.parametrize(
    ("run", "titles"),
    [
        ({"outcome": "replied"}, ["run"]),
        ({"outcome": "replied", "reply": None, "writes": [], "facts": {}}, ["run"]),
        ({"messages": [{"from": "a", "text": "hi"}]}, ["messages"]),
        ({"effects": ["sent mail"], "outcome": "done"}, ["run", "effects"]),
        ({"detail": {"log": "x", "empty": None}}, ["detail"]),
        ({"note": "two\nlines"}, ["note"]),
        ({"case_id": "c1", "trial": 0}, []),
        ({}, []),
    ],
)
def test_any_run_is_shown_by_the_shape_of_its_fields(
    run: dict[str, Any], titles: list[str]
) -> None:
    sections = trace_sections(run)
    assert [s.title for s in sections] == titles
    shown = {cell for s in sections for _, row in s.rows for cell in row}
    assert "None" not in shown and "null" not in shown  # absent values are skipped


@pytest.mark.parametrize(
    ("field", "value", "marked"),
    [
        ("steps", [{"role": "a", "status": "ok"}, {"role": "b", "status": "refused"}], [0, 1]),
        ("steps", [{"role": "a", "status": "timeout"}], [1]),
        ("blocked_attempts", [{"role": "a", "tool": "t"}], [1]),
        ("dropped_claims", [{"topic": "x"}], [1]),
        ("writes", [{"kind": "ticket"}], [0]),
        ("statuses", {"a": "ok", "b": "invalid_output"}, [0, 1]),
        ("outcome", "sut_error", [1]),
        ("outcome", "replied", [0]),
    ],
)
def test_refused_and_filtered_rows_are_marked(field: str, value: Any, marked: list[int]) -> None:
    (section,) = trace_sections({field: value})
    assert [int(m) for m, _ in section.rows] == marked
    assert section.flagged == any(marked)


def test_a_long_nested_value_is_cut_and_says_where_the_rest_is() -> None:
    (section,) = trace_sections({"detail": {"log": ["x" * 50] * 500}})
    ((_, (key, value)),) = section.rows
    assert key == "log"
    assert len(value) < VALUE_CHARS_MAX + 200
    assert "characters; the rest in runs.jsonl" in value


@pytest.mark.parametrize(
    ("run", "bound"),
    [
        ({"reply": "长" * 1_000_000}, TEXT_CHARS_MAX + 200),  # one line of text
        ({"reply": "长\n" * 500_000}, TEXT_CHARS_MAX + 200),  # a text block
        ({"steps": [{"role": "r", "status": "ok"}] * 100_000}, ROWS_MAX * 40),
        ({"tools": ["t"] * 100_000}, ROWS_MAX * 10),
    ],
)
def test_no_run_grows_the_page_past_a_bound(run: dict[str, Any], bound: int) -> None:
    """Issue 24: a 16 MiB run record (the most a run may hold) is one run's part of the
    page, cut, with where the rest is."""
    (section,) = trace_sections(run)
    shown = [*section.items, *(cell for _, cells in section.rows for cell in cells)]
    assert sum(len(text) for text in shown) < bound
    assert any("the rest in runs.jsonl" in text or "more of" in text for text in shown)


def test_zero_runs_render_a_page_that_says_so() -> None:
    page = render_html(compute([]), META, [])
    assert "Cases (0)" in page and "Failures (0)" in page
    assert "n/a (no graded runs)" in page
    assert "baseline-diff" not in page  # no gate, no diff


def test_a_run_without_a_trace_shows_its_checks_only() -> None:
    page = _page([_result(ok=False, reason="wrong")])
    assert "No trace recorded for this run." in page and "wrong" in page


def test_errored_runs_and_grader_errors_are_listed_apart() -> None:
    broken = CheckResult(name="c", kind="outcome", passed=False, reason="boom", grader_error=True)
    results = [
        result("e1", errored=True),
        RunResult(case_id="g1", trial=0, split="dev", outcome="replied", checks=[broken]),
    ]
    page = _page(results)
    assert "Errored runs (1, excluded from rates)" in page and "provider down" in page
    assert "Grader errors (1)" in page and "boom" in page and "grader error" in page


def test_success_per_split_and_tag_has_its_wilson_interval() -> None:
    results = [_result("a", tags=["t"]), _result("b", ok=False, reason="r", tags=["t"])]
    page = _page(results)
    assert "95% CI (Wilson)" in page
    # 1 of 2: Wilson 95% interval 9.5% - 90.5%, for the split and for the tag.
    assert page.count("<td>9.5% - 90.5%</td>") == 2


def test_gating_adds_the_baseline_diff(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    diff = page[page.index('id="baseline-diff"') : page.index('id="failures"')]
    assert "FAIL" in diff
    assert "Newly failing cases (2)" in diff and "Newly passing cases (1)" in diff
    assert f"{FAILING_ID}: outcome" in diff and f"{PASSING_ID}: dispatched" in diff
    plain = write_hostile_report(tmp_path / "plain", with_verdict=False)
    assert "baseline-diff" not in plain.read_text(encoding="utf-8")


def test_load_runs_skips_a_torn_line_and_keeps_the_first_record(tmp_path: Path) -> None:
    write_hostile_report(tmp_path)
    (folder,) = (tmp_path / "traces").iterdir()
    runs_file = folder / "runs.jsonl"
    lines = runs_file.read_text(encoding="utf-8").splitlines(keepends=True)
    again = lines[0].replace("您好，已为您补发。", "second record")
    runs_file.write_text("".join([*lines, "not json\n", again, lines[1][:20]]), "utf-8")
    runs = load_runs(folder)
    assert set(runs) == {(PASSING_ID, 0), (FAILING_ID, 0), (HOSTILE_ID, 0)}
    assert runs[(PASSING_ID, 0)]["reply"] == "您好，已为您补发。"
    assert load_runs(tmp_path / "nowhere") == {} and load_runs(None) == {}


def test_evals_gate_writes_the_page_with_the_diff_and_each_runs_trace(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baseline"]) == 0
    monkeypatch.setenv("FAKE_SUT_FAIL", "r01")  # the SUT broken on one case
    assert main(["gate"]) == 1
    capsys.readouterr()
    page = (project / "reports" / "gate.html").read_text(encoding="utf-8")
    diff = page[page.index('id="baseline-diff"') : page.index('id="failures"')]
    assert "Newly failing cases (1)" in diff and "<code>r01</code>" in diff
    assert "<code>r01: outcome</code>" in diff
    cases = page[page.index('id="cases"') :]
    first = cases[cases.index('<details class="case') :]
    assert first.startswith('<details class="case fail"')
    assert first.index("r01") < first.index("</details>")
    assert "No trace recorded" not in page  # every run's trace read from traces/<run-id>
    assert "<h4>steps</h4>" in page


def test_k_trials_show_the_pass_curves_and_the_unstable_cases() -> None:
    outcomes = {"a": [True, True, True], "b": [True, False, True]}
    results = [
        result(case, trial=t, ok=ok) for case, runs in outcomes.items() for t, ok in enumerate(runs)
    ]
    page = _page(results)
    assert 'id="pass-curve"' in page and 'id="unstable-cases"' in page
    # b passed 2 of 3: pass^k = C(2,k)/C(3,k) = 66.7%, 33.3%, 0.0%.
    assert "<td>66.7% 33.3% 0.0%</td>" in page
    assert "pass-curve" not in _page(results[:1])  # one trial: no curve


@pytest.mark.parametrize(
    ("failing", "errored", "shown", "note"),
    [
        ((), (), [0, 1, 2, 3, 4], "7 more runs not shown: 7 passed"),
        ((9, 3), (), [0, 1, 2, 3, 9], "7 more runs not shown: 7 passed"),
        ((11,), (6,), [0, 1, 2, 6, 11], "7 more runs not shown: 7 passed"),
        (tuple(range(8)), (), [0, 1, 2, 3, 4], "7 more runs not shown: 4 passed, 3 failed"),
    ],
)
def test_a_case_shows_five_runs_failing_first_and_counts_the_rest(
    failing: tuple[int, ...], errored: tuple[int, ...], shown: list[int], note: str
) -> None:
    results = [result("c1", trial=t, ok=t not in failing, errored=t in errored) for t in range(12)]
    page = render_html(compute(results), META, results)
    labels = re.findall(r'<span class="run-label">c1#(\d+)</span>', page)
    assert [int(t) for t in labels] == sorted(shown)
    assert note in page and "12 runs" in page
    # Every failure links somewhere on the page: its run, or its case when not shown.
    ids = {attrs.get("id") for _, attrs in _tags(page)}
    links = re.findall(r'<a class="jump" href="#([^"]+)">c1#(\d+)</a>', page)
    assert sorted(int(t) for _, t in links) == sorted(set(failing) - set(errored))
    assert all(anchor in ids for anchor, _ in links)


def test_a_page_of_many_runs_reads_only_the_traces_it_shows(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    results = [result(f"c{c}", trial=t) for c in range(3) for t in range(40)]
    lines = []
    for r in results:
        run = Run(case_id=r.case_id, trial=r.trial, outcome="replied").model_dump()
        record = {"case_id": r.case_id, "trial": r.trial, "success": True, "checks": []}
        lines.append(json.dumps({**record, "run": run}))
    runs.write_text("\n".join(lines) + "\n")
    loaded = load_runs(tmp_path, traced_pairs(results))
    assert sorted(loaded) == [(f"c{c}", t) for c in range(3) for t in range(5)]
    assert len(load_runs(tmp_path)) == 120


@pytest.mark.parametrize(("passing", "budget"), [(3, 5), (5, 5), (8, 5), (8, 0)])
def test_the_page_holds_every_failing_trace_and_a_budget_of_passing_ones(
    passing: int, budget: int
) -> None:
    # The two failing cases come first on the page (although their ids sort last), so
    # their traces are always held; passing cases get the budget in page order (by id).
    results = [result(f"p{n:02d}") for n in range(passing)]
    results += [result(f"z{n}", ok=False) for n in range(2)]
    pairs = traced_pairs(results, budget)
    assert {("z0", 0), ("z1", 0)} <= pairs
    held = sorted(c for c, _ in pairs if c.startswith("p"))
    assert held == [f"p{n:02d}" for n in range(min(passing, budget))]
    views = case_views(results, {(r.case_id, 0): _run() for r in results}, budget=budget)
    left_out = [v.label for c in views for v in c.runs if v.over_budget]
    assert left_out == [f"p{n:02d}#0" for n in range(min(passing, budget), passing)]
    assert all((v.trace is None) == v.over_budget for c in views for v in c.runs)


def test_the_budget_counts_passing_runs_of_failing_cases_first() -> None:
    # A failing case with two passing trials and one failing: its failing run is always
    # held, its passing runs take the budget before any passing case's.
    results = [result("a1", trial=t) for t in range(2)] + [result("z1", trial=0, ok=False)]
    results += [result("z1", trial=t) for t in (1, 2)]
    assert traced_pairs(results, 1) == {("z1", 0), ("z1", 1)}
    assert traced_pairs(results, 0) == {("z1", 0)}
    assert traced_pairs(results, 4) == {("z1", 0), ("z1", 1), ("z1", 2), ("a1", 0), ("a1", 1)}


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("天" * 5, "天" * 5),
        (["a"], '[\n "a"\n]'),
        ("x" * 20_003, "x" * 20_000 + "… (3 more characters: in the traces)"),
    ],
)
def test_a_compared_value_is_shown_whole_up_to_the_text_limit(value: object, shown: str) -> None:
    assert value_text(value) == shown


def test_a_passing_run_past_the_budget_with_a_detour_keeps_its_table(monkeypatch: Any) -> None:
    monkeypatch.setattr("evals.report.html.PASSING_TRACES_SHOWN", 0)
    detour = result("a1", trajectory_ok=False)  # a success, with a trajectory check failed
    page = _page([detour], {("a1", 0): _run()})
    assert "checks passed:" not in page and '<table class="checks">' in page
    assert "unexpected [&#39;detour_agent&#39;]" in page


def test_a_passing_run_past_the_budget_says_where_its_trace_is(monkeypatch: Any) -> None:
    monkeypatch.setattr("evals.report.html.PASSING_TRACES_SHOWN", 1)
    results = [_result("a1"), _result("a2")]
    page = _page(results, {(r.case_id, 0): _run(reply="已补发") for r in results})
    assert page.count("Trace not on the page (a budget of 1 passing runs' traces)") == 1
    # Past the budget, a run whose every check passed says so in one line, not a table.
    assert page.count("1 checks passed: outcome") == 1
    assert page.count('<table class="checks">') == 1


@pytest.mark.parametrize("unstopped", [[], ["c1#0"], [f"c{n}#0" for n in range(12)]])
def test_runs_that_could_not_be_stopped_are_named_on_the_page(unstopped: list[str]) -> None:
    meta = META.model_copy(update={"unstopped_runs": unstopped})
    page = render_html(compute([_result()]), meta, [_result()])
    assert ("could not be stopped" in page) is bool(unstopped)
    assert all(label in page for label in unstopped[:10])
    if len(unstopped) > 10:
        assert "and 2 more" in page


def test_the_csp_allows_exactly_the_page_s_own_style_and_script(tmp_path: Path) -> None:
    """No 'unsafe-inline': the page's one stylesheet and one script are allowed by their
    SHA-256, so markup that slipped into the page could run nothing."""
    import base64
    import hashlib
    import re

    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    policy = csp.group(1).replace("&#39;", "'")
    assert "unsafe" not in policy
    for tag, directive in (("style", "style-src"), ("script", "script-src")):
        body = page.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0]
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in policy, tag


def test_each_case_is_shown_beside_its_runs_and_its_text_is_escaped(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    spec = page[page.index('<div class="case-spec">') :]
    spec = spec[: spec.index("</div>")]
    for title in ("input", "world", "faults", "expect"):
        assert f"<h4>{title}</h4>" in spec
    assert str(escape(HOSTILE_GOAL)) in spec and HOSTILE_GOAL not in page
    assert "timeout" in spec and "state_kept" in spec and "replied" in spec
    # A case whose input is all it has shows no empty world, faults or expect.
    assert page.count('<div class="case-spec">') == 2  # the hostile id is no valid case


def test_the_gate_s_part_lists_nothing_empty(tmp_path: Path) -> None:
    page = write_hostile_report(tmp_path).read_text(encoding="utf-8")
    diff = page[page.index('id="baseline-diff"') : page.index('id="failures"')]
    assert "(0)" not in diff and "none" not in diff
    assert "Not in the baseline" not in diff and "Baseline cases not run" not in diff


def test_a_count_nothing_added_to_is_left_out_of_the_trace() -> None:
    from evals.report.html import trace_sections

    (head,) = trace_sections({"outcome": "x", "rejected_messages": 0, "tasks": 2, "x_ms": 0.0})
    shown = [cells[0] for _, cells in head.rows]
    assert shown == ["outcome", "tasks", "x ms"]  # a measured 0.0 stays: it was measured


def _sharing(case_ids: list[str], verdicts: list[CheckResult]) -> list[RunResult]:
    """Runs that share one list of verdicts, as the runner's equal verdicts are shared."""
    return [
        RunResult(case_id=c, trial=0, checks=verdicts, split="dev", outcome="replied")
        for c in case_ids
    ]


@pytest.mark.parametrize("budget", [0, 1, 2, 5])
@pytest.mark.parametrize(
    "verdicts",
    [
        [CheckResult(name="outcome", kind="outcome", passed=True)],
        [
            CheckResult(name="outcome", kind="outcome", passed=True),
            CheckResult(name="dispatched", kind="trajectory", passed=False, reason="detour"),
        ],
        [CheckResult(name="outcome", kind="outcome", passed=False, reason="wrong <b>")],
    ],
    ids=["all passed", "a detour", "failed"],
)
def test_runs_sharing_verdicts_show_the_page_of_runs_that_do_not(
    monkeypatch: Any, budget: int, verdicts: list[CheckResult]
) -> None:
    # A passing run's checks are rendered once per shared list of verdicts: the page must
    # be the one each run's own copy gives, within the budget of traces and past it.
    monkeypatch.setattr("evals.report.html.PASSING_TRACES_SHOWN", budget)
    ids = ["a1", "a2", "a3"]
    runs = {(c, 0): _run(reply="已补发") for c in ids}
    shared = _sharing(ids, verdicts)
    own = [
        RunResult(
            case_id=c,
            trial=0,
            checks=[v.model_copy() for v in verdicts],
            split="dev",
            outcome="replied",
        )
        for c in ids
    ]
    page = _page(shared, runs)
    assert page == _page(own, runs)
    assert page.count("Trace not on the page") == (3 - min(budget, 3) if shared[0].success else 0)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1.5631130008841865, "1.563"),  # a latency as the clock gives it
        (59.0, "59"),
        (12345.678, "12345.678"),
        (-2.5, "-2.5"),
        (0.0, "0"),
        (0.00012345, "0.000123"),  # not rounded away to 0
        (3, "3"),
    ],
)
def test_a_trace_shows_numbers_as_people_read_them(value: float, shown: str) -> None:
    from evals.report.html import trace_sections

    (head,) = trace_sections({"latency_ms": value})
    assert [cells for _, cells in head.rows] == [["latency ms", shown]]
