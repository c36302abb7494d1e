"""Grade an order desk from its framework's own OpenTelemetry spans: no adapter beyond
the spans, the reply, and the gate.

python grade.py pydantic_ai      # or openai_agents; exit 0 PASS, 1 FAIL
"""

import importlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import desk_model
import evals
from evals.checks import Case, Run
from evals.gating.rules import GateConfig
from evals.otel import SpanCollector, run_from_spans

HERE = Path(__file__).parent
collector = SpanCollector.install()  # the global tracer provider: what the frameworks use
Ask = Callable[[str, dict[str, str], str], Awaitable[str]]


def trial_of(ask: Ask) -> Callable[[Case, int], Awaitable[Run]]:
    """One trial of one case: the desk asked the case's question over its orders."""

    async def trial(case: Case, t: int) -> Run:
        with desk_model.serve() as model, collector.run(case.id, t) as got:
            reply = await ask(case.input["question"], case.world.get("orders", {}), model.base_url)
        return run_from_spans(got.spans, case_id=case.id, trial=t, outcome="answered", reply=reply)

    return trial


def main(framework: str, ask: Ask | None = None) -> int:
    """Print the report and the verdict against the framework's committed baseline."""
    ask = ask or importlib.import_module(f"desk_{framework}").ask
    report = evals.evaluate(HERE / "cases.jsonl", trial_of(ask), progress=False)
    report.print()
    verdict = evals.gate(report, HERE / f"baseline-{framework}.json", GateConfig())
    print(verdict.render())
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "pydantic_ai"))
