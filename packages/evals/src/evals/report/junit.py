"""The JUnit XML report, ``<label>.junit.xml``, so CI systems show an evaluation's
results natively, every failure where people look.

Each run is one test case, named ``<case id>#<trial>``, that stands for the run and the
checks it passed. Each (run, check) that failed is a test case of its own, of every
kind (outcome, safety, trajectory, cost): ``classname`` the case id, so a CI page groups
a case's test cases; ``name`` ``<case id>#<trial>: <check>``; a ``<failure>`` whose
``message`` is the check's reason and whose ``type`` is its kind. So a run whose outcome
is right but whose trajectory, safety or cost check failed is red too. A check that
raised (a grader error) is an ``<error>`` test case the same way, and a run the provider
failed stays one ``<error>`` (docs/models.md: errors are not failures). Written by
``evals gate``, the file holds one more test case, ``gate verdict``, failing with the
HARD and SOFT findings when the gate says FAIL. An incomplete evaluation adds one test
case, ``evaluation incomplete``, in error, so CI shows it red. Test cases are serialised
one at a time (a long evaluation never builds one element tree of every run), and every
character XML 1.0 forbids becomes an escape, whatever a case id or a reason holds.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from evals._text import printable, xml_chars
from evals.log.traces import RunMeta
from evals.model.result import CheckResult, RunResult, comparison_lines
from evals.report.summary import runs_finished, why_incomplete

if TYPE_CHECKING:
    from evals.gating.verdict import Verdict

INCOMPLETE_TESTCASE = "evaluation incomplete"
"""The name of the JUnit test case that marks an interrupted evaluation."""
GATE_TESTCASE = "gate verdict"
"""The name of the JUnit test case holding the gate's verdict (``evals gate`` only)."""


def check_testcase_name(result: RunResult, check: str) -> str:
    """The name of the test case of one (run, check): ``<case id>#<trial>: <check>``."""
    return printable(f"{result.label}: {check}")


def render_junit(
    results: Sequence[RunResult], meta: RunMeta, verdict: Verdict | None = None
) -> str:
    """JUnit XML: one test case per run (the run and its passed checks), one more per
    failed check of the run (a ``<failure>`` with the check's reason) and per check that
    raised (an ``<error>``); a run the provider failed is one ``<error>``. With
    ``verdict`` (the gate's), one test case ``gate verdict``, failing when the gate
    failed. An incomplete evaluation adds one test case, ``evaluation incomplete``, with
    an ``<error>`` saying how many runs finished."""
    failures = errors = 0
    total_ms = 0.0
    cases: list[str] = []
    for r in results:
        total_ms += r.latency_ms
        for case, outcome in _run_testcases(r):
            failures += outcome == "failure"
            errors += outcome == "error"
            cases.append(_testcase_xml(case))
    if verdict is not None:
        case = _gate_testcase(verdict)
        failures += not verdict.passed
        cases.append(_testcase_xml(case))
    if not meta.complete:  # else CI shows an interrupted evaluation green
        errors += 1
        case = ET.Element("testcase", {"classname": "evals", "name": INCOMPLETE_TESTCASE})
        message = f"{why_incomplete(meta)}: {runs_finished(meta)}"
        ET.SubElement(case, "error", {"message": message, "type": "incomplete"})
        cases.append(_testcase_xml(case))
    counts = {
        "tests": str(len(cases)),
        "failures": str(failures),
        "errors": str(errors),
        "skipped": "0",
        "time": f"{total_ms / 1000.0:.3f}",
    }
    root = ET.Element("testsuites", {"name": "evals", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": meta.label or "evals", **counts})
    if meta.started:
        suite.set("timestamp", meta.started)
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("suites", ", ".join(meta.suites)),
        ("case_files", ", ".join(meta.case_files)),
        ("sut", meta.sut),
        ("trials", str(meta.trials)),
        ("git_revision", meta.git_revision),
        ("complete", str(meta.complete).lower()),
        ("planned_runs", str(meta.planned_runs)),
        ("finished_runs", str(meta.finished_runs)),
    ):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    ET.SubElement(suite, "cases-here")
    _xml_safe(root)
    ET.indent(root)
    head, tail = ET.tostring(root, encoding="unicode", xml_declaration=True).split("<cases-here />")
    if cases:
        cases[-1] = cases[-1][: -len("\n    ")]
    else:
        head = head.rstrip(" ").removesuffix("\n")
    return head + "".join(cases) + tail + "\n"


def _run_testcases(r: RunResult) -> Iterator[tuple[ET.Element, str]]:
    """The test cases of one run, each with what it is: ``passed``, ``failure`` or
    ``error``. First the run itself (an ``<error>`` when the provider failed, and then
    nothing else: an errored run was not graded), then one per failed or raising check."""
    classname = printable(r.case_id)
    run = ET.Element(
        "testcase",
        {
            "classname": classname,
            "name": printable(r.label),  # one line, whatever the case id holds
            "time": f"{r.latency_ms / 1000:.3f}",
        },
    )
    if r.errored:
        error = ET.SubElement(run, "error", {"message": r.error or "provider error"})
        error.text = r.error or ""
        yield run, "error"
        return
    yield run, "passed"
    for check in r.checks:
        if check.passed and not check.grader_error:
            continue
        case = ET.Element(
            "testcase",
            {"classname": classname, "name": check_testcase_name(r, check.name), "time": "0"},
        )
        what = "error" if check.grader_error else "failure"
        ET.SubElement(case, what, _check_attributes(check)).text = _check_text(check)
        yield case, what


def _check_attributes(check: CheckResult) -> dict[str, str]:
    """A failed check's ``message`` (its reason) and ``type`` (its kind, or
    ``grader_error``)."""
    message = check.reason or f"{check.name} failed"
    return {"message": message, "type": "grader_error" if check.grader_error else check.kind}


def _check_text(check: CheckResult) -> str:
    said = "raised" if check.grader_error else "failed"
    lines = [f"{check.kind} check {check.name} {said}: {check.reason}"]
    return "\n".join(lines + comparison_lines(check))


def _gate_testcase(verdict: Verdict) -> ET.Element:
    """The gate's verdict as a test case: a ``<failure>`` whose message lists the HARD and
    SOFT findings when the gate failed; passing, with any soft warning in
    ``<system-out>``, when it passed."""
    case = ET.Element("testcase", {"classname": "evals", "name": GATE_TESTCASE, "time": "0"})
    findings = [f"HARD {f.message}" for f in verdict.hard]
    findings += [f"SOFT {f.message}" for f in verdict.soft]
    shown = verdict.render()
    if not verdict.passed:
        message = "; ".join(findings) or shown.splitlines()[0]
        ET.SubElement(case, "failure", {"message": message, "type": "gate"}).text = shown
    elif findings:
        ET.SubElement(case, "system-out").text = shown
    return case


def _xml_safe(element: ET.Element) -> ET.Element:
    """``element`` with every attribute and text XML 1.0 can hold: characters it forbids
    (controls but tab and newline, lone surrogates, U+FFFE/U+FFFF) become escapes, so the
    file stays well-formed whatever a case id or a reply holds."""
    for node in element.iter():
        node.attrib = {k: xml_chars(v) for k, v in node.attrib.items()}
        if node.text:
            node.text = xml_chars(node.text)
    return element


def _testcase_xml(case: ET.Element) -> str:
    _xml_safe(case)
    ET.indent(case, space="  ", level=2)
    case.tail = "\n    "
    return ET.tostring(case, encoding="unicode")
