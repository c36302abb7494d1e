"""The ``no_secret_recorded`` check (agent_evals.checks) and the SUT adapter's account it
reads (``detail.secrets_shown``, agent_evals.secrets_shown): no run record shows the API
key the run was configured with (the scripted model's own on the model path) or the value
of a secret environment variable the SUT declares. Its positive controls are agents that
record the key (the settings recorded with it, a reply quoting an exported key); the
unbroken agent passes on the model path and on rule brains with a key exported."""

from __future__ import annotations

from typing import Any

import agent.orchestrator
import agent.settings
import pytest
from agent_evals.scripted_model import SCRIPTED_KEY
from agent_evals.secrets_shown import SECRETS_SHOWN, Secrets
from agent_evals.sut import SupportPilotSUT
from evals.checks import grade
from evals.model.case import Case

from .conftest import scripted_sut

EXPORTED = "sk-exported-不可外传-0123"
"""A key a developer exported (``OPENAI_API_KEY``): rule brains leave it unread."""


def _case(order_id: str | None) -> Case:
    given: dict[str, Any] = {"goal": "包裹一直没到，要求马上补发"}
    if order_id is not None:
        given["order_id"] = order_id
    return Case.model_validate(
        {"id": "sec", "split": "dev", "input": given, "expect": {"outcome": "replied"}}
    )


def _verdict(sut: SupportPilotSUT, order_id: str | None = "A1001") -> tuple[bool | None, str]:
    case = _case(order_id)
    run = sut.run(case, 0)
    result = [r for r in grade(case, run) if r.name == "no_secret_recorded"]
    if not result:
        return None, ""
    return result[0].passed, result[0].reason


@pytest.mark.parametrize("order_id", ["A1001", None], ids=["replied", "ask_user"])
def test_the_model_path_records_no_key(order_id: str | None) -> None:
    sut = scripted_sut()
    assert repr(sut.secrets) == "Secrets(api_key)"
    assert _verdict(sut, order_id) == (True, "")


def test_rule_brains_record_no_exported_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", EXPORTED)
    sut = SupportPilotSUT()
    assert repr(sut.secrets) == "Secrets(OPENAI_API_KEY)"
    assert EXPORTED not in repr(sut.__dict__)  # what the configuration cases look at
    assert _verdict(sut) == (True, "")


def test_settings_recorded_with_the_key_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    # The positive control of the surviving mutant settings_94: public() keeps the key.
    monkeypatch.setattr(agent.settings.BrainSettings, "public", lambda self: self.model_dump())
    passed, reason = _verdict(scripted_sut())
    assert passed is False
    assert "api_key in detail.brain.api_key" in reason
    assert SCRIPTED_KEY not in reason


def test_an_exported_key_quoted_to_the_customer_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # An unread variable is a secret too: a question to the customer that quotes it.
    monkeypatch.setenv("OPENAI_API_KEY", EXPORTED)
    monkeypatch.setattr(agent.orchestrator, "ASK_ORDER_ID", f"请提供订单号（{EXPORTED}）")
    passed, reason = _verdict(SupportPilotSUT(), None)
    assert passed is False
    assert reason.endswith("OPENAI_API_KEY in draft")
    assert EXPORTED not in reason


def test_secrets_are_found_anywhere_in_a_record_and_never_quoted() -> None:
    secrets = Secrets({"api_key": "sk-abcdef", "short": "abc"})
    record = {
        "reply": "key sk-abcdef!",
        "detail": {"x": [{"sk-abcdef": 1}], "y": "none"},
        "short": "abc",  # shorter than MIN_SECRET_CHARS: never looked for
    }
    assert secrets.shown_in(record) == [
        "api_key in detail.x[0].sk-abcdef (the key)",
        "api_key in reply",
    ]
    assert repr(secrets) == "Secrets(api_key)"
    assert Secrets.of(None, {"OPENAI_API_KEY": "  ", "SUPPORTPILOT_MODEL": "gpt-x"}, [
        "OPENAI_API_KEY", "SUPPORTPILOT_MODEL"
    ]).shown_in({"a": "gpt-x"}) == []  # fmt: skip


def test_a_record_without_the_account_is_not_judged() -> None:
    from agent_evals.checks import no_secret_recorded
    from evals.model.run import Run

    run = Run(case_id="x", trial=0, outcome="replied")
    assert no_secret_recorded(_case("A1001"), run) is None
    shown = run.model_copy(update={"detail": {SECRETS_SHOWN: []}})
    assert no_secret_recorded(_case("A1001"), shown) is True
