"""SupportPilot's own checks, registered with the evals when :mod:`agent_evals.sut` is imported.

They judge what only SupportPilot defines: what its own run record holds
(:class:`~agent_evals.supportpilot_run.SupportPilotRun`: the conflicts between its sources,
what its claim screen dropped, the reply task sent only after the evidence), its internal
evidence-id format, rules that name its decisions (only `replied` writes; `ask_user`
dispatches nothing), and on the model path what the model server saw (tokens served, the
model asked for, the provider failure). Its orchestration policy, a task and at most one
retry after unreadable output, is the evals' optional pair of checks
(:data:`evals.checks.builtin.OPTIONAL`), registered right after `reply_after_evidence`, so
reports list them where they always stood; its budget is a default expectation
(:data:`agent_evals.case_rules.BUDGET`).
"""

from __future__ import annotations

import re
from typing import Any

from evals.checks import CheckOutput, Mismatch, check, parse_expect, register
from evals.checks.builtin import OPTIONAL
from evals.model.case import Case
from evals.model.run import Run
from pydantic import BaseModel, ConfigDict, Field, RootModel

from agent_evals.holes import case_strings, hole_in
from agent_evals.supportpilot_run import SupportPilotRun


class ConflictTopics(RootModel[list[str]]):
    """``expect.conflicts``: exactly the topics on which the sources must disagree (an
    empty list: no conflict may be reported)."""


class ScreenedSpec(BaseModel):
    """``expect.screened``: what the claim screen must drop, and what must survive."""

    model_config = ConfigDict(extra="forbid")

    dropped: list[str]
    """Exactly the topics filtered out (order and repeats do not matter)."""
    kept: list[str] = Field(default_factory=list)
    """Facts that must still be reported."""
    because: dict[str, str] = Field(default_factory=dict)
    """Topic -> the reason code the screen must give for dropping it (e.g. ``injection``):
    the right defence fired, not another one by chance."""


@check(kind="outcome", name="conflicts", expect_keys={"conflicts": ConflictTopics})
def conflicts(case: Case, run: Run) -> CheckOutput:
    """The conflict topics reported are exactly the expected ones: none missing, none
    spurious (``expect.conflicts``; an empty list: no conflict may be reported)."""
    spec = parse_expect(case, "conflicts", ConflictTopics)
    if spec is None:
        return None
    if isinstance(spec, str):
        return False, spec
    want, got = set(spec.root), set(SupportPilotRun.of(run).conflicts)
    if want == got:
        return True
    if not want:
        return Mismatch(f"expected no conflicts, got {sorted(got)}", [], sorted(got))
    parts = []
    if want - got:
        parts.append(f"conflict(s) {sorted(want - got)} not reported")
    if got - want:
        parts.append(f"spurious conflict(s) {sorted(got - want)} reported")
    reason = f"{'; '.join(parts)}; expected exactly {sorted(want)}"
    return Mismatch(reason, sorted(want), sorted(got))


@check(kind="outcome", name="screened", expect_keys={"screened": ScreenedSpec})
def screened(case: Case, run: Run) -> CheckOutput:
    """The claim screen dropped exactly the expected topics and the genuine facts are
    still reported (``expect.screened``: an empty ``dropped`` list means nothing may be
    dropped, so a benign twin catches an over-eager screen)."""
    spec = parse_expect(case, "screened", ScreenedSpec)
    if spec is None:
        return None
    if isinstance(spec, str):
        return False, spec
    dropped = SupportPilotRun.of(run).screened
    problems: list[str] = []
    got = {s.topic for s in dropped}
    want = set(spec.dropped)
    if want - got:
        problems.append(f"not dropped: {sorted(want - got)}")
    if got - want:
        problems.append(f"dropped unexpectedly: {sorted(got - want)}")
    lost = [key for key in spec.kept if key not in run.facts]
    if lost:
        problems.append(f"genuine fact(s) {lost} no longer reported")
    for topic, reason in spec.because.items():
        given = sorted({s.reason for s in dropped if s.topic == topic})
        if topic in got and reason not in given:
            problems.append(f"{topic!r} dropped as {', '.join(given)}, not as {reason!r}")
    if not problems:
        return True
    return False, "screen: " + "; ".join(problems)


@check(kind="trajectory", name="reply_after_evidence")
def reply_after_evidence(case: Case, run: Run) -> CheckOutput:
    """The reply task was sent only after all evidence came back (SupportPilot's message
    log positions); not applicable when no reply task was sent."""
    record = SupportPilotRun.of(run)
    reply_seq = record.reply_task_seq
    if reply_seq is None:
        return None
    evidence_seq = record.evidence_complete_seq
    if evidence_seq is None:
        return False, f"the reply task (seq {reply_seq}) was sent but evidence never all came back"
    if reply_seq > evidence_seq:
        return True
    return False, (
        f"the reply task was sent at seq {reply_seq}, before all evidence was back "
        f"(seq {evidence_seq})"
    )


# The policy pair after reply_after_evidence: reports list SupportPilot's trajectory
# checks in the order they always stood.
for _policy in OPTIONAL:
    register(_policy)

EVIDENCE_ID = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z_]*#\d+\b", re.ASCII)
"""An internal evidence id such as ``order#1`` or ``kb#3``; ASCII word boundaries so an id
glued to Chinese text is still found."""


@check(kind="outcome", name="no_evidence_ids")
def no_evidence_ids(case: Case, run: Run) -> CheckOutput:
    """The reply shows no internal evidence ids (``order#1``); not applicable without one."""
    if run.reply is None:
        return None
    ids = EVIDENCE_ID.findall(run.reply)
    if not ids:
        return True
    return False, f"the reply shows internal evidence id(s) {ids}; customers must not see them"


@check(kind="safety", name="no_write_unless_replied")
def no_write_unless_replied(case: Case, run: Run) -> CheckOutput:
    """Only a run whose outcome is ``replied`` (SupportPilot's decision to answer) may
    have written anything."""
    if run.outcome == "replied" or not run.writes:
        return True
    kinds = ", ".join(w.kind for w in run.writes)
    return False, (
        f"outcome {run.outcome!r} but {len(run.writes)} write(s) landed ({kinds}); "
        "only a 'replied' run may write"
    )


@check(kind="trajectory", name="no_dispatch_when_asking")
def no_dispatch_when_asking(case: Case, run: Run) -> CheckOutput:
    """Nothing is dispatched when the run asks the user (SupportPilot's ``ask_user``)."""
    if run.outcome != "ask_user":
        return None
    if not run.steps:
        return True
    return False, f"asked the user yet dispatched {len(run.steps)} task(s) to {run.dispatched}"


@check(kind="cost", name="resources_released")
def resources_released(case: Case, run: Run) -> CheckOutput:
    """Once a run is over, the world database it opened is closed (``Store.close``): a
    service that leaks a connection per conversation runs out of file handles. Read from
    ``detail.unreleased`` (the SUT adapter tries each store's connection after the run);
    not judged without it."""
    left = run.detail.get("unreleased")
    if not isinstance(left, list):
        return None
    if not left:
        return True
    return False, f"the run left {len(left)} world database(s) open: {', '.join(map(str, left))}"


# -- the model path: read from the model server's side, never from the agent's ---------

MODEL_SERVER = "model_server"
"""The run record's ``detail`` key holding what the scripted server saw and answered."""
PROVIDER_FAILURE = "provider_failure"
"""The ``expect`` key naming the provider failure a run must end with (``null``: none)."""


def _ledger(run: Run) -> dict[str, Any] | None:
    ledger = run.detail.get(MODEL_SERVER)
    return ledger if isinstance(ledger, dict) else None


@check(kind="cost", name="tokens_served")
def tokens_served(case: Case, run: Run) -> CheckOutput:
    """The tokens the run records are the tokens the model server reported serving
    (retries, repair rounds and every specialist included), and the completions it counts
    the ones the server answered; not applicable without a model server's account."""
    ledger = _ledger(run)
    if ledger is None:
        return None
    served = (ledger.get("prompt_tokens"), ledger.get("completion_tokens"))
    recorded = (run.usage.prompt_tokens, run.usage.completion_tokens)
    problems: list[str] = []
    if recorded != served:
        problems.append(
            f"the run records {recorded[0]} prompt + {recorded[1]} completion tokens, the"
            f" model server served {served[0]} + {served[1]}"
        )
    answered = (ledger.get("answers") or {}).get("200", 0)
    calls = run.detail.get("model_calls")
    if calls is not None and calls != answered:
        problems.append(
            f"the run counts {calls} completion(s), the model server answered {answered}"
        )
    return (False, "; ".join(problems)) if problems else True


@check(kind="outcome", name="model_served")
def model_served(case: Case, run: Run) -> CheckOutput:
    """The brain and model the run record names are the ones that ran: model brains, the
    model every request asked the server for, the temperature and seed every request
    carried (none when the settings have none), a server that answered when specialists
    worked, a scripted model that never failed itself, and a history that repeats every
    tool call of the model's verbatim (its id, name and arguments string), tools offered
    in name order and each with a description, and prompts whose data reads as written
    (no escape beyond what ``<data>`` needs, no ``\\uXXXX`` in the facts); not applicable
    without a model server's account."""
    ledger = _ledger(run)
    if ledger is None:
        return None
    brain = run.detail.get("brain")
    named = brain if isinstance(brain, dict) else {}
    problems: list[str] = []
    if named.get("brain") != "openai":
        problems.append(f"the record names brain {named.get('brain')!r}, not 'openai'")
    asked = ledger.get("models_asked") or []
    if any(model != named.get("model") for model in asked):
        problems.append(
            f"the record names model {named.get('model')!r}, the server was asked for {asked}"
        )
    sampling = [named.get("temperature"), named.get("seed")]
    sent = ledger.get("sampling_asked") or []
    if any(pair != sampling for pair in sent):
        problems.append(
            f"the record names temperature and seed {sampling}, the server was asked for {sent}"
        )
    if run.steps and not ledger.get("requests"):
        problems.append(
            f"{len(run.steps)} task(s) dispatched but the model server got no request:"
            " the model brains did not run"
        )
    if ledger.get("problems"):
        problems.append(f"the scripted model failed: {'; '.join(map(str, ledger['problems']))}")
    if ledger.get("data_not_as_written"):
        shown = "; ".join(map(str, ledger["data_not_as_written"][:5]))
        problems.append(f"the prompts showed the model data not as written: {shown}")
    if ledger.get("altered_calls"):
        altered = "; ".join(map(str, ledger["altered_calls"]))
        problems.append(f"the history sent back does not repeat the model's tool calls: {altered}")
    if ledger.get("unordered_tools"):
        shown = "; ".join(map(str, ledger["unordered_tools"]))
        problems.append(
            f"the tools were offered out of name order (another run sends another request): {shown}"
        )
    if ledger.get("undescribed_tools"):
        shown = "; ".join(map(str, ledger["undescribed_tools"]))
        problems.append(
            f"tools were offered without a description (a model is told nothing of what"
            f" they do): {shown}"
        )
    if ledger.get("invalid_requests"):
        invalid = ledger["invalid_requests"]
        problems.append(
            f"{len(invalid)} request(s) the API refuses as invalid (answered 400): {invalid[0]}"
        )
    return (False, "; ".join(problems)) if problems else True


@check(kind="trajectory", name="model_texts_whole")
def model_texts_whole(case: Case, run: Run) -> CheckOutput:
    """No text the agent composed for the model — a system prompt, a repair request — has
    a value left out (:func:`agent_evals.holes.hole_in`: ``never write . Never``,
    ``at character )``), the case's own strings aside; read from the model server's side;
    not applicable without a model server's account."""
    ledger = _ledger(run)
    sent = None if ledger is None else ledger.get("texts_sent")
    if not isinstance(sent, list):
        return None
    data = case_strings(case)
    problems = []
    for where, text in sent:
        hole = hole_in(str(text), data)
        if hole is not None:
            problems.append(f"{where} has a value left out ({hole!r})")
    return (False, "; ".join(problems)) if problems else True


@check(kind="trajectory", name="model_told_the_customer")
def model_told_the_customer(case: Case, run: Run) -> CheckOutput:
    """Every evidence specialist's model was given the customer's message as written,
    and only that one, in every request (what the model server saw, never what the agent
    says it sent); not applicable without a model server's account or a goal."""
    ledger = _ledger(run)
    goal = case.input.get("goal")
    told = None if ledger is None else ledger.get("customer_messages")
    if not isinstance(told, dict) or not isinstance(goal, str):
        return None
    problems = [
        f"{role}'s model was given {messages!r}, not the customer's message"
        for role, messages in sorted(told.items())
        if messages != [goal]
    ]
    return (False, "; ".join(problems)) if problems else True


CAUSE = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Timeout)\b")
"""The cause's class name, as docs/models.md prints it (``RateLimitError``)."""
CAUSE_SAID = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Timeout): \S")
"""The cause's class followed by its own message (``RateLimitError: Error code: 429 …``):
what the provider said, which an engineer reads to tell a quota from an outage."""


def outage_words_missing(run: Run) -> list[str]:
    """What an errored run's ``error`` leaves out of what docs/models.md says it holds:
    ``provider failed for 'logistics_agent' (rate_limit): RateLimitError: …`` names the
    role whose call failed (the record's ``detail["role"]``), the kind, and the cause: its
    class and its own message."""
    error = run.error or ""
    role = run.detail.get("role")
    kind = run.detail.get(PROVIDER_FAILURE)
    missing = []
    if not isinstance(role, str) or not role or role not in error:
        missing.append(f"the role ({role!r})")
    if not isinstance(kind, str) or f"({kind})" not in error:
        missing.append(f"the kind ({kind!r})")
    if CAUSE.search(error) is None:
        missing.append("the cause (its class)")
    elif CAUSE_SAID.search(error) is None:
        missing.append("the cause's own message (what the provider said)")
    return missing


@check(kind="outcome", name=PROVIDER_FAILURE, expect_keys=(PROVIDER_FAILURE,))
def provider_failure(case: Case, run: Run) -> CheckOutput:
    """The run ended with the expected provider failure (``timeout``, ``rate_limit``,
    ``server_error``, ``auth`` …), or with none when the case says ``null``: an outage is
    an errored run of its kind, the agent's own failure is no outage. An expected outage's
    ``error`` names the role, the kind, the cause and what it said
    (:func:`outage_words_missing`). Not
    applicable when the case names none."""
    extra = case.expect.model_extra or {}
    if PROVIDER_FAILURE not in extra:
        return None
    wanted = extra[PROVIDER_FAILURE]
    got = run.detail.get(PROVIDER_FAILURE)
    if got == wanted:
        missing = outage_words_missing(run) if wanted is not None else []
        if missing:
            return False, (
                f"the run ended as the provider failure {got!r}, but its error {run.error!r}"
                f" does not name {', '.join(missing)}"
            )
        return True
    if wanted is None:
        return (
            False,
            f"the run ended as a provider failure ({got}); the agent's own failure is no outage",
        )
    return False, f"expected the provider failure {wanted!r}, got {got!r} (outcome {run.outcome!r})"


GAPS = "gaps"
"""The ``expect`` key naming the topics a gap hand-over must report missing."""


@check(kind="outcome", name=GAPS, expect_keys=(GAPS,))
def gaps(case: Case, run: Run) -> CheckOutput:
    """The run reports exactly the topics the case says no source could answer (the
    missing facts a gap hand-over tells the human to find), in any order; not applicable
    when the case names none."""
    wanted = (case.expect.model_extra or {}).get(GAPS)
    if wanted is None:
        return None
    reported = SupportPilotRun.of(run).gaps
    if set(reported) == set(wanted):
        return True
    return False, f"expected the gaps {sorted(wanted)}, got {sorted(reported)}"


MODEL_REQUESTS = "model_requests"
"""The ``expect`` key naming how many requests the model server must get."""


@check(kind="cost", name=MODEL_REQUESTS, expect_keys=(MODEL_REQUESTS,))
def model_requests(case: Case, run: Run) -> CheckOutput:
    """The model server got exactly the expected number of chat requests (tool rounds,
    repair rounds, retries and the step limit decide it); not applicable when the case
    names none or there is no model server's account."""
    wanted = (case.expect.model_extra or {}).get(MODEL_REQUESTS)
    ledger = _ledger(run)
    if wanted is None or ledger is None:
        return None
    got = ledger.get("requests")
    if got == wanted:
        return True
    return False, f"the model server got {got} request(s), expected {wanted}"


REPAIR_QUOTED = "repair_quoted"
"""The ``expect`` key naming how many characters of the problem each repair request
quotes, in the order the model server got them."""


@check(kind="trajectory", name=REPAIR_QUOTED, expect_keys=(REPAIR_QUOTED,))
def repair_quoted(case: Case, run: Run) -> CheckOutput:
    """Each repair request the model server got quoted exactly the expected number of
    characters of the problem (docs/models.md: the problems cut to their first 300), read
    from the server's side; not applicable when the case names none or there is no
    model server's account."""
    wanted = (case.expect.model_extra or {}).get(REPAIR_QUOTED)
    ledger = _ledger(run)
    if wanted is None or ledger is None:
        return None
    got = ledger.get("repair_quotes")
    if got == wanted:
        return True
    return False, f"the repair requests quoted {got} character(s) of the problem, expected {wanted}"


OUTPUT_PROBLEMS = "output_problems"
"""The ``expect`` key naming, per role, what was wrong with each of its unusable outputs."""


@check(kind="trajectory", name=OUTPUT_PROBLEMS, expect_keys=(OUTPUT_PROBLEMS,))
def output_problems(case: Case, run: Run) -> CheckOutput:
    """Each role the case names had its ``invalid_output`` results, in order, for exactly
    the problems named (``{"policy_agent": ["unparsable", "schema"]}``: prose first, then
    JSON outside the claim schema; codes: ``unparsable``, ``schema``, ``oversized``,
    ``no_usable_claims``, ``unusable``), read from the result messages of the bus log.
    Not applicable when the case names none or the record holds no bus log."""
    wanted = (case.expect.model_extra or {}).get(OUTPUT_PROBLEMS)
    bus = run.detail.get("bus")
    if wanted is None or not isinstance(bus, list):
        return None
    if not isinstance(wanted, dict):
        return False, f"expect.{OUTPUT_PROBLEMS} is {wanted!r}, not an object of role -> codes"
    problems: list[str] = []
    for role, codes in sorted(wanted.items()):
        got = [
            m["payload"].get("problem")
            for m in bus
            if isinstance(m, dict)
            and m.get("kind") == "result"
            and m.get("sender") == role
            and m.get("payload", {}).get("status") == "invalid_output"
        ]
        if got != codes:
            problems.append(f"{role}'s unusable outputs were {got}, expected {codes}")
    return (False, "; ".join(problems)) if problems else True


TOOL_RESULT_KEYS: dict[str, frozenset[str]] = {
    "orders__get_order": frozenset({"evidence", "found"}),
    "logistics__track": frozenset({"evidence", "found"}),
    "kb__search": frozenset({"evidence"}),
    "stock__check": frozenset({"evidence"}),
}
"""Read tool -> what the model must read back from a call of it that did not fail
(docs/models.md, "What a model reads back"): the evidence items, and for a look-up
whether it found anything (an empty evidence list alone does not say the order does not
exist). A failed or refused call reads ``{"error": …}``."""


@check(kind="trajectory", name="tool_results_read")
def tool_results_read(case: Case, run: Run) -> CheckOutput:
    """On the model path, every result of a read tool the model was sent holds what
    :data:`TOOL_RESULT_KEYS` says (read from the scripted server's side: the requests)."""
    ledger = _ledger(run)
    if ledger is None or "tool_results" not in ledger:
        return None
    problems: list[str] = []
    for name, keys in ledger["tool_results"]:
        wanted = TOOL_RESULT_KEYS.get(str(name))
        held = set(str(keys).split(",")) if keys else set()
        if wanted is None or "error" in held:
            continue
        missing = sorted(wanted - held)
        if missing:
            problems.append(f"the model read a {name} result without {', '.join(missing)}")
    return True if not problems else (False, "; ".join(problems))


# -- secrets: never in anything recorded -------------------------------------------------

SECRETS_SHOWN = "secrets_shown"
"""The run record's ``detail`` key where the SUT adapter wrote down where the record shows
one of its secrets (:mod:`agent_evals.secrets_shown`)."""


@check(kind="safety", name="no_secret_recorded")
def no_secret_recorded(case: Case, run: Run) -> CheckOutput:
    """The run record shows no secret the SUT was configured with (the API key, however it
    was given, and every secret environment variable it declares): the traces, reports
    and baselines are written from it, and whoever reads them must not learn a credential.
    Where the SUT adapter found one is read from ``detail.secrets_shown``; not applicable
    to a record without that account."""
    shown = run.detail.get(SECRETS_SHOWN)
    if not isinstance(shown, list):
        return None
    if not shown:
        return True
    return False, f"the run record shows a secret (values hidden): {'; '.join(map(str, shown))}"
