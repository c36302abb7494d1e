"""The JUnit XML report, ``<label>.junit.xml``: one test case per case-trial, so CI
systems show an evaluation's results natively.

A failed run is a ``<failure>`` listing its failed checks; a run the provider failed is
an ``<error>``. An incomplete evaluation adds one more test case, ``evaluation
incomplete``, in error, so CI shows it red. Test cases are serialised one at a time (a
long evaluation never builds one element tree of every run), and every character XML 1.0
forbids becomes an escape, whatever a case id or a reason holds.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from evals._text import printable, xml_chars
from evals.log.traces import RunMeta
from evals.model.result import RunResult
from evals.report.summary import runs_finished, why_incomplete

INCOMPLETE_TESTCASE = "evaluation incomplete"
"""The name of the JUnit test case that marks an interrupted evaluation."""


def render_junit(results: Sequence[RunResult], meta: RunMeta) -> str:
    """JUnit XML: one test case per case-trial; a failure lists the failed checks, a
    provider error is an ``<error>``. An incomplete evaluation adds one test case,
    ``evaluation incomplete``, with an ``<error>`` saying how many runs finished."""
    failures = errors = 0
    total_ms = 0.0
    cases: list[str] = []
    for r in results:
        failures += not r.errored and not r.success
        errors += r.errored
        total_ms += r.latency_ms
        case = ET.Element(
            "testcase",
            {
                "classname": f"evals.{r.split}",
                "name": printable(r.label),  # one line, whatever the case id holds
                "time": f"{r.latency_ms / 1000:.3f}",
            },
        )
        if r.errored:
            error = ET.SubElement(case, "error", {"message": r.error or "provider error"})
            error.text = r.error or ""
        elif not r.success:
            failed = [f"{c.name}: {c.reason}" for c in r.failed_checks]
            failure = ET.SubElement(
                case, "failure", {"message": "; ".join(failed), "type": "checks"}
            )
            failure.text = "\n".join(failed)
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
