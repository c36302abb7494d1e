from collections.abc import Sequence
from pathlib import Path

import pytest
from judge.errors import JudgeCallError
from judge.labels import LabelledPair, load_pairs
from judge.position import PairCheck, check_position_bias
from judge.registry import make_judge
from judge.verdict import PairVerdict, Verdict


def test_position_biased_judge_is_inconsistent_on_every_pair_and_flagged(
    pairs_path: Path,
) -> None:
    pairs = load_pairs(pairs_path)
    result = check_position_bias(make_judge("position-biased"), pairs)
    assert result.n == len(pairs) >= 8
    assert result.inconsistent == result.n
    assert result.inconsistent_ids == [pair.id for pair in pairs]
    assert result.flagged


def test_rule_judge_is_consistent_and_prefers_the_better_reply(pairs_path: Path) -> None:
    result = check_position_bias(make_judge("rule"), load_pairs(pairs_path))
    assert (result.inconsistent, result.flagged) == (0, False)
    assert result.prefers_better == result.n


@pytest.mark.parametrize(
    ("original", "swapped", "consistent", "prefers_better"),
    [
        ("A", "B", True, True),
        ("B", "A", True, False),
        ("TIE", "TIE", True, False),
        ("A", "A", False, False),
        ("B", "B", False, False),
        ("A", "TIE", False, False),
        (None, None, False, False),
    ],
)
def test_consistency_means_the_same_reply_both_ways(
    original: str | None, swapped: str | None, consistent: bool, prefers_better: bool
) -> None:
    check = PairCheck(id="p", original=original, swapped=swapped)  # type: ignore[arg-type]
    assert (check.consistent, check.prefers_better) == (consistent, prefers_better)


class Flaky:
    """Consistent on every pair but the ones whose better reply it cannot judge."""

    name = "flaky"

    def __init__(self, broken: set[str]) -> None:
        self.broken = broken

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        raise NotImplementedError

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        if a in self.broken or b in self.broken:
            raise JudgeCallError("boom")
        return PairVerdict(choice="A" if a.startswith("good") else "B")


def pairs(count: int) -> list[LabelledPair]:
    return [LabelledPair(id=f"p{i}", better=f"good{i}", worse=f"bad{i}") for i in range(count)]


@pytest.mark.parametrize(("broken", "flagged"), [(1, False), (2, False), (3, True)])
def test_flag_is_above_the_threshold_and_errors_count_as_inconsistent(
    broken: int, flagged: bool
) -> None:
    result = check_position_bias(Flaky({f"good{i}" for i in range(broken)}), pairs(10))
    assert result.inconsistent == broken
    assert result.error_ids == [f"p{i}" for i in range(broken)]
    assert result.flagged is flagged  # 20% of 10 is not above 20%; 30% is


def test_no_pairs_is_not_flagged() -> None:
    result = check_position_bias(Flaky(set()), [])
    assert (result.n, result.inconsistent_rate, result.flagged) == (0, None, False)
