"""LLM-as-judge for support replies, with calibration against human labels."""

from judge.base import Judge
from judge.broken import LenientJudge, PositionBiasedJudge
from judge.calibration import SplitCalibration, Thresholds, calibrate
from judge.errors import (
    JudgeCallError,
    JudgeConfigError,
    JudgeError,
    JudgeOutputError,
    LabelFileError,
    UnknownJudgeError,
)
from judge.labels import LabelledPair, LabelledReply, load_labels, load_pairs
from judge.metrics import accuracy, cohen_kappa, fail_recall
from judge.openai_judge import OpenAIJudge, OpenAIJudgeConfig
from judge.position import PairConsistency, check_position_bias
from judge.registry import make_judge, select_judges
from judge.report import CalibrationReport, build_report, render
from judge.rules import RuleJudge
from judge.rules_v2 import RuleJudgeV2
from judge.verdict import PairVerdict, Verdict

__all__ = [
    "CalibrationReport",
    "Judge",
    "JudgeCallError",
    "JudgeConfigError",
    "JudgeError",
    "JudgeOutputError",
    "LabelFileError",
    "LabelledPair",
    "LabelledReply",
    "LenientJudge",
    "OpenAIJudge",
    "OpenAIJudgeConfig",
    "PairConsistency",
    "PairVerdict",
    "PositionBiasedJudge",
    "RuleJudge",
    "RuleJudgeV2",
    "SplitCalibration",
    "Thresholds",
    "UnknownJudgeError",
    "Verdict",
    "accuracy",
    "build_report",
    "calibrate",
    "check_position_bias",
    "cohen_kappa",
    "fail_recall",
    "load_labels",
    "load_pairs",
    "make_judge",
    "render",
    "select_judges",
]
