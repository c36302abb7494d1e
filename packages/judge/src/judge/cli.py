"""The ``judge`` command: print the calibration report of one or more judges.

Exit 0 after printing (a judge being unusable is a finding, not a failure of the
command); exit 2 on bad input, with one line naming the file, line and field.
``evals judge ARGS`` delegates here with ``main(ARGS)``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from judge.calibration import Thresholds
from judge.errors import JudgeConfigError, LabelFileError
from judge.labels import load_labels, load_pairs
from judge.openai_judge import OpenAIJudgeConfig
from judge.registry import ALL_OFFLINE, JUDGE_NAMES, select_judges
from judge.report import build_report, render

DEFAULT_LABELS = Path("cases/judge/labels.jsonl")
DEFAULT_PAIRS = Path("cases/judge/pairs.jsonl")


def _unit_interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text!r}")
    return value


def _parser(prog: str) -> argparse.ArgumentParser:
    defaults = Thresholds()
    parser = argparse.ArgumentParser(
        prog=prog, description="Calibrate judges against human labels (tune and holdout)."
    )
    parser.add_argument(
        "--judge",
        default=ALL_OFFLINE,
        choices=[*JUDGE_NAMES, ALL_OFFLINE],
        help=f"which judge to calibrate (default: {ALL_OFFLINE})",
    )
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS, help="labels JSONL")
    parser.add_argument("--pairs", type=Path, default=DEFAULT_PAIRS, help="pairs JSONL")
    parser.add_argument("--model", help="model for --judge openai (default: $JUDGE_MODEL)")
    parser.add_argument("--base-url", help="endpoint for --judge openai ($OPENAI_BASE_URL)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    parser.add_argument("--max-retries", type=int, default=2, help="client retries")
    parser.add_argument("--concurrency", type=int, default=4, help="parallel judge calls")
    parser.add_argument(
        "--no-guard", action="store_true",
        help="--judge openai: ask the model about instruction-like replies too"
        " (measures the model alone; the guard fails them without a call by default)",
    )  # fmt: skip
    parser.add_argument(
        "--min-kappa", type=_unit_interval, default=defaults.min_kappa,
        help=f"usable only at this Cohen's kappa or above (default: {defaults.min_kappa})",
    )  # fmt: skip
    parser.add_argument(
        "--min-fail-recall", type=_unit_interval, default=defaults.min_fail_recall,
        help="usable only if it catches this share of bad replies"
        f" (default: {defaults.min_fail_recall})",
    )  # fmt: skip
    parser.add_argument(
        "--min-n", type=int, default=defaults.min_n,
        help=f"usable only on at least this many labelled replies (default: {defaults.min_n})",
    )  # fmt: skip
    parser.add_argument(
        "--max-inconsistent", type=_unit_interval, default=defaults.max_inconsistent,
        help="flag position bias above this share of inconsistent swapped pairs"
        f" (default: {defaults.max_inconsistent})",
    )  # fmt: skip
    parser.add_argument(
        "--max-attack-false-pass", type=_unit_interval, default=defaults.max_attack_false_pass,
        help="usable only if at most this share of the attacks labelled fail pass"
        f" (default: {defaults.max_attack_false_pass})",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "judge") -> int:
    """Run the ``judge`` command with ``argv`` (default: ``sys.argv[1:]``); ``prog`` names
    the command in usage lines (``evals judge`` when evals delegates here)."""
    args = _parser(prog).parse_args(list(argv) if argv is not None else None)
    thresholds = Thresholds(
        min_kappa=args.min_kappa,
        min_fail_recall=args.min_fail_recall,
        min_n=args.min_n,
        max_inconsistent=args.max_inconsistent,
        max_attack_false_pass=args.max_attack_false_pass,
    )
    if args.json is not None and args.json.is_dir():  # before the judges run, not after
        print(f"judge: error: --json {args.json}: is a folder, not a file", file=sys.stderr)
        return 2
    try:
        labels = load_labels(args.labels)
        pairs = load_pairs(args.pairs)
        names = select_judges(args.judge)
        config = None
        if "openai" in names:
            overrides = {
                "timeout": args.timeout,
                "max_retries": args.max_retries,
                "guard": not args.no_guard,
            }
            if args.base_url:
                overrides["base_url"] = args.base_url
            config = OpenAIJudgeConfig.from_env(args.model, **overrides)
        report = build_report(
            names,
            labels,
            pairs,
            thresholds=thresholds,
            openai_config=config,
            concurrency=args.concurrency,
        )
    except (LabelFileError, JudgeConfigError) as e:
        print(f"judge: error: {e}", file=sys.stderr)
        return 2
    print(render(report))
    if args.json is not None:
        try:
            args.json.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            print(f"judge: error: --json {args.json}: {e.strerror or e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
