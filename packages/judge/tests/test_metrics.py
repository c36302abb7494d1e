import pytest
from judge.metrics import accuracy, cohen_kappa, fail_recall

P, F, U = "pass", "fail", "unsure"


def table(both_fail: int, h_fail_j_pass: int, h_pass_j_fail: int, both_pass: int):
    """Human and judge label lists from a 2x2 contingency table."""
    human = [F] * both_fail + [F] * h_fail_j_pass + [P] * h_pass_j_fail + [P] * both_pass
    judged = [F] * both_fail + [P] * h_fail_j_pass + [F] * h_pass_j_fail + [P] * both_pass
    return human, judged


@pytest.mark.parametrize(
    ("cells", "expected_kappa"),
    [
        # p_o = 0.7, p_e = 0.5*0.6 + 0.5*0.4 = 0.5 -> 0.4
        ((20, 5, 10, 15), 0.4),
        # p_o = 0.75, p_e = 0.5*0.75 + 0.5*0.25 = 0.5 -> 0.5
        ((2, 0, 1, 1), 0.5),
        # perfect agreement on a mixed table -> 1
        ((3, 0, 0, 5), 1.0),
        # always the opposite on a balanced table: p_o = 0, p_e = 0.5 -> -1
        ((0, 2, 2, 0), -1.0),
        # a judge that always passes: p_o = 0.5, p_e = 0.5 -> 0
        ((0, 4, 0, 4), 0.0),
        # p_o = 0.8, p_e = 0.2*0.2 + 0.8*0.8 = 0.68 -> 0.12/0.32 = 0.375
        ((1, 1, 1, 7), 0.375),
    ],
)
def test_kappa_matches_hand_computed_values(
    cells: tuple[int, int, int, int], expected_kappa: float
) -> None:
    human, judged = table(*cells)
    assert cohen_kappa(human, judged) == pytest.approx(expected_kappa)


@pytest.mark.parametrize(
    ("cells", "expected_accuracy", "expected_recall"),
    [
        ((20, 5, 10, 15), 0.7, 0.8),
        ((2, 0, 1, 1), 0.75, 1.0),
        ((0, 4, 0, 4), 0.5, 0.0),
        ((1, 3, 0, 0), 0.25, 0.25),
    ],
)
def test_accuracy_and_fail_recall_match_hand_computed_values(
    cells: tuple[int, int, int, int], expected_accuracy: float, expected_recall: float
) -> None:
    human, judged = table(*cells)
    assert accuracy(human, judged) == pytest.approx(expected_accuracy)
    assert fail_recall(human, judged) == pytest.approx(expected_recall)


def test_empty_input_is_undefined_everywhere() -> None:
    assert accuracy([], []) is None
    assert cohen_kappa([], []) is None
    assert fail_recall([], []) is None


@pytest.mark.parametrize("label", [P, F])
def test_kappa_is_undefined_when_both_sides_use_one_same_label(label: str) -> None:
    assert cohen_kappa([label] * 5, [label] * 5) is None
    assert accuracy([label] * 5, [label] * 5) == 1.0


def test_kappa_is_zero_when_the_sides_use_one_different_label_each() -> None:
    # p_o = 0, p_e = 0: defined, and no better than chance.
    assert cohen_kappa([F] * 4, [P] * 4) == 0.0


def test_kappa_is_zero_when_only_the_human_labels_vary_and_the_judge_is_constant() -> None:
    assert cohen_kappa([P, P, P, F], [P, P, P, P]) == pytest.approx(0.0)


def test_fail_recall_is_undefined_without_human_fails() -> None:
    assert fail_recall([P, P], [F, P]) is None


def test_unsure_is_disagreement_and_not_a_caught_fail() -> None:
    human, judged = [F, F, P, P], [F, U, P, U]
    assert accuracy(human, judged) == 0.5
    assert fail_recall(human, judged) == 0.5
    # p_o = 0.5; p_e = 0.5*0.25 (fail) + 0.5*0.25 (pass) = 0.25 -> 0.25/0.75
    assert cohen_kappa(human, judged) == pytest.approx(1 / 3)


def test_lengths_must_match() -> None:
    with pytest.raises(ValueError, match="2 human labels but 1 judge labels"):
        cohen_kappa([P, F], [P])
