"""A system's own fields: a subclass of ``Run`` (its typed extension).

The core record holds what any agent has; a system adds its own fields by subclassing
``Run``. Those fields must survive every way a run travels (a trace line, a worker's
JSON, a report rebuilt without the subclass), be typed again on demand, and be held to
the same rules as the core's numbers; a record that is not what its system declares is
that run's failure, never a grader error.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from evals.checks import CheckOutput, FunctionCheck, grade
from evals.checks.registry import define
from evals.execution.isolation import RunSerialisationError, run_json
from evals.model.case import Case
from evals.model.run import RecordTypeError, Run, number_problem
from pydantic import BaseModel, Field


class Visit(BaseModel):
    page: str
    seconds: float = 0.0


class ShopRun(Run):
    """A shop agent's record: what only it has."""

    cache_hits: int = Field(default=0, ge=0)
    basket: list[str] = Field(default_factory=list)
    visits: list[Visit] = Field(default_factory=list)
    discount: float = 0.0  # may be negative: not declared ge=0
    rank: int | None = Field(default=None, gt=0)


CASE = Case.model_validate(
    {"id": "c1", "split": "dev", "input": {"q": "a lamp"}, "expect": {"outcome": "sold"}}
)


def _shop(**fields: Any) -> ShopRun:
    return ShopRun(case_id="c1", outcome="sold", **fields)


@define(kind="outcome", name="basket_filled")
def basket_filled(case: Case, run: Run) -> CheckOutput:
    return bool(run.as_type(ShopRun).basket), "the basket is empty"


CHECKS: list[FunctionCheck] = [basket_filled]


@pytest.mark.parametrize(
    "fields",
    [
        {"cache_hits": 3},
        {"basket": ["lamp", "bulb"], "discount": -2.5},
        {"visits": [Visit(page="/lamps", seconds=1.5)]},
    ],
)
def test_read_back_without_the_subclass_its_fields_are_kept_and_typed_again(
    fields: dict[str, Any],
) -> None:
    shop = _shop(**fields)
    back = Run.model_validate_json(run_json(shop))
    assert type(back) is Run
    assert back.model_extra == _shop(**fields).model_dump(exclude=set(Run.model_fields))
    assert back.as_type(ShopRun) == shop
    assert shop.as_type(ShopRun) is shop


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        (
            {"cache_hits": "many"},
            "cache_hits: Input should be a valid integer, unable to parse string as an integer",
        ),
        ({"cache_hits": -1}, "cache_hits: Input should be greater than or equal to 0"),
        ({"visits": [{"seconds": 1}]}, "visits.0.page: Field required"),
    ],
)
def test_extras_that_are_not_the_subclass_s_are_named(extra: dict[str, Any], where: str) -> None:
    run = Run(case_id="c1", outcome="sold", **extra)
    with pytest.raises(RecordTypeError) as wrong:
        run.as_type(ShopRun)
    assert str(wrong.value) == f"the run's record is not a valid ShopRun: {where}"


def test_a_check_meeting_a_wrong_record_fails_the_run_not_the_grader() -> None:
    """A grader error is set apart by the gate, never counted as the agent's failure: a
    system whose record is wrong must not turn its checks into grader errors."""
    (result,) = grade(CASE, Run(case_id="c1", outcome="sold", basket="lamp"), CHECKS)
    assert not result.passed and not result.grader_error
    assert "basket: Input should be a valid list" in result.reason
    (good,) = grade(CASE, _shop(basket=["lamp"]), CHECKS)
    assert good.passed


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"cache_hits": 0, "discount": -2.5}, None),  # 0 is a count; a discount may be < 0
        ({"cache_hits": -1}, "cache_hits: negative (-1); it counts or measures, at least 0"),
        ({"discount": math.nan}, "discount: not a finite number (nan)"),
        ({"cache_hits": math.inf}, "cache_hits: not a finite number (inf)"),
        # Set after validation, a string would compare as one ("9" > "10" holds).
        ({"cache_hits": "9"}, "cache_hits: not a number (str)"),
        ({"discount": True}, "discount: not a number (bool)"),
        ({"rank": None}, None),  # not recorded
        ({"rank": -2}, "rank: negative (-2); it counts or measures, at least 0"),
        ({"rank": math.nan}, "rank: not a finite number (nan)"),
    ],
)
def test_the_subclass_s_numbers_are_checked_like_the_core_s(
    fields: dict[str, Any], problem: str | None
) -> None:
    """Built without validation (``model_construct``), as a misbehaving SUT can."""
    run = ShopRun.model_construct(case_id="c1", outcome="sold", **fields)
    assert number_problem(run) == problem
    if problem is not None:
        with pytest.raises(RunSerialisationError, match="invalid"):
            run_json(run)
