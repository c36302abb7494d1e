"""The decision table on the model path (agent_evals.model_path_worlds): the committed
family is what its cover makes, it holds every value of every dimension of the generated
worlds, and the scripted model reads the prompt's rules the family puts to it (the gate
catching their loss: test_model_path's controls)."""

from __future__ import annotations

import json

import pytest

from .conftest import CASES_DIR, MODEL_PATH


def test_the_model_worlds_are_what_their_cover_makes() -> None:
    """cases/model_path.jsonl holds exactly the family agent_evals.model_path_worlds makes,
    before the status edges (regenerate: uv run python -m agent_evals.model_path_worlds)."""
    from agent_evals.model_path_worlds import rewritten

    path = CASES_DIR / f"{MODEL_PATH}.jsonl"
    text = path.read_text(encoding="utf-8")
    assert rewritten(text) == text, "run: uv run python -m agent_evals.model_path_worlds"


def test_every_value_of_every_dimension_is_decided_on_the_model_path() -> None:
    from agent_evals.generated_worlds import DIMENSIONS
    from agent_evals.model_path_worlds import TAG

    lines = (CASES_DIR / f"{MODEL_PATH}.jsonl").read_text("utf-8").splitlines()
    family = [json.loads(line) for line in lines if TAG in json.loads(line).get("tags", [])]
    held = {t for case in family for t in case["tags"]}
    wanted = {f"{d.name}:{label}" for d in DIMENSIONS for label in d.labels}
    assert wanted <= held, sorted(wanted - held)
    reasons = {case["expect"].get("outcome_reason") for case in family}
    assert {"order_closed", "out_of_stock", "tool_crashed", "write_failed"} <= reasons


PROMPT_RULES = (
    "when the status says the order is closed (已取消, 取消成功 or 交易关闭 -> cancelled;"
    " 已退款, 退款成功 or 退款完成 -> refunded; 已退货, 退货成功 or 退货完成 -> returned; a mere"
    " mention of a refund closes nothing) also order_closed (value: that English word)."
)


@pytest.mark.parametrize(
    ("status", "closed"),
    [
        ("已取消", "cancelled"),
        ("交易关闭，已退款", "cancelled"),  # the word stated first rules
        ("退款成功", "refunded"),
        ("已发货，运输中", None),
        ("客户咨询过退款", None),
    ],
)
def test_the_scripted_model_closes_an_order_as_the_prompt_says(
    status: str, closed: str | None
) -> None:
    from agent_evals.scripted_model import Prompt, closure_of

    assert closure_of(Prompt(PROMPT_RULES, ""), status) == closed
    assert closure_of(Prompt("no closure rules here", ""), status) is None


@pytest.mark.parametrize(
    ("excerpt", "hours"),
    [
        ("《补发政策》物流信息停滞满 72 小时（含）未更新的，可提交补发申请。", "72"),
        ("《补发政策》停滞满 3 天的可补发。", "72"),
        ("《补发政策》停滞满 ９６ 小时的可补发。", "96"),
        ("《补发政策 48 小时版》停滞满 3 天的可补发。", "72"),  # the body's, not the title's
        ("《补发政策》停滞满七十二小时的可补发。", ""),  # words: null
        ("《补发政策》停滞满 48-72 小时的可补发。", ""),  # a range: null
    ],
)
def test_the_scripted_model_reads_a_period_in_hours(excerpt: str, hours: str) -> None:
    from agent_evals.scripted_model import Prompt, _hours

    told = Prompt("Read the period in hours (a day is 24 hours).", "")
    assert _hours(excerpt, told) == hours


POLICY_PROMPT = (
    "Read the period in hours (a day is 24 hours). Claim topic reissue_threshold_hours, value"
    " the hours as digits. A null value means you could not find the answer; it cites no"
    " evidence."
)


def _policy(pid: int, body: str) -> dict[str, str]:
    return {"id": f"kb#{pid}", "kind": "policy", "excerpt": f"《补发政策》{body}", "version": "v2"}


@pytest.mark.parametrize(
    ("bodies", "claimed"),
    [
        (["停滞满 48 小时可补发。", "停滞满 72 小时可补发。"], ("48", ["kb#1"])),
        # The policy in force states no period a number reads: null, never the older one's.
        (["停滞满七十二小时可补发。", "停滞满 72 小时可补发。"], (None, [])),
        (["停滞满 2 天可补发。"], ("48", ["kb#1"])),
    ],
)
def test_the_scripted_model_reads_the_policy_in_force_only(
    bodies: list[str], claimed: tuple[str | None, list[str]]
) -> None:
    from agent_evals.scripted_model import Prompt, read_claims

    result = {"evidence": [_policy(i + 1, body) for i, body in enumerate(bodies)]}
    [claim] = read_claims(Prompt(POLICY_PROMPT, ""), result)
    assert (claim["topic"], claim["value"], claim["evidence"]) == (
        "reissue_threshold_hours",
        *claimed,
    )
