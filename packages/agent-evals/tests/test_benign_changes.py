"""No false alarms: changes a customer and the business accept pass every gated case of
every suite (the generated worlds and the invariants included). A case or a check that
fails one of these is a defect of the suites, not of the change."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from agent_evals.sut import SupportPilotSUT
from evals.checks import grade, success

from .conftest import default_suites, load_cases

orchestrator = importlib.import_module("agent.orchestrator")
replies = importlib.import_module("agent.replies")
rule_brains = importlib.import_module("agent.rule_brains")

GATED = [
    c
    for c in load_cases(default_suites())
    # Configuration cases are built, never run (the settings suite has its own tests).
    if "flaky" not in c.tags and c.expect.refused is None and c.expect.described is None
]


def _reissue_reply(facts: dict[str, str]) -> str:
    return (
        f"您好！我们查到您的包裹物流已连续 {facts.get('stale_hours', '?')} 小时没有更新，"
        f"按规定停滞满 {facts.get('reissue_threshold_hours', '?')} 小时即可补发，"
        f"现已为您{replies.REISSUE_PHRASE}。新包裹发出后我们会第一时间通知您，抱歉让您久等了。"
    )


def _wait_reply(facts: dict[str, str]) -> str:
    return (
        f"您好！您的包裹还在路上，物流 {facts.get('stale_hours', '?')} 小时前刚更新过，"
        f"目前{replies.WAIT_PHRASE}（停滞满 {facts.get('reissue_threshold_hours', '?')} 小时"
        "方可补发）。我们会持续关注，有问题请随时联系我们。"
    )


BENIGN: dict[str, list[tuple[Any, str, Any]]] = {
    "other reply wording": [
        (rule_brains, "reissue_reply", _reissue_reply),
        (rule_brains, "wait_reply", _wait_reply),
    ],
    "evidence dispatched in another order": [
        (orchestrator, "EVIDENCE_ROLES", ("policy_agent", "logistics_agent", "order_agent")),
    ],
    "an equivalent KB query": [(rule_brains, "POLICY_QUERY", "物流 停滞 补发 未到")],
}
"""Name -> the patches that make the benign change."""


def _failures() -> list[str]:
    sut = SupportPilotSUT()
    return [c.id for c in GATED if not success(grade(c, sut.run(c, 0)))]


@pytest.mark.parametrize("name", sorted(BENIGN))
def test_a_benign_change_passes_every_gated_case(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for target, attr, value in BENIGN[name]:
        monkeypatch.setattr(target, attr, value)
    assert _failures() == []


def test_the_benign_patches_take_effect(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above could pass because a patch missed its target: it does not."""
    patched: Callable[[dict[str, str]], str] = _reissue_reply
    monkeypatch.setattr(rule_brains, "reissue_reply", patched)
    case = next(c for c in GATED if c.expect.tickets == 1)
    run = SupportPilotSUT().run(case, 0)
    assert run.reply is not None and run.reply.startswith("您好！我们查到")
