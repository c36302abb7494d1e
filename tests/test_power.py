"""SupportPilot's use of `evals power`: its [tool.evals.power] (the whole SUT, the model
path included), the ledger of samples drawn (seeds 1 and 11 were tuned on, so neither is
ever a holdout), the equivalents file (every premise evals can check holds; every probe
it names exists), and the nox session that runs it."""

from __future__ import annotations

import ast
import datetime
import re
import tempfile
from pathlib import Path

import pytest
from evals.config import load_config
from evals.power.config import PowerConfig, power_config
from evals.power.equivalents import Equivalent, load_equivalents
from evals.power.mutants import Mutant, PowerError
from evals.power.premises import Project, check, load_gated_cases
from evals.power.sampling import Ledger, LedgerEntry, choose, load_ledger, relate

ROOT = Path(__file__).resolve().parents[1]
CONFIG: PowerConfig = power_config(load_config(file=ROOT / "pyproject.toml"))
EQUIVALENTS: list[Equivalent] = load_equivalents(CONFIG.equivalents)
PROBES = ROOT / "packages" / "agent-evals" / "tests" / "test_power_probes.py"
A = "packages/agent/src/agent/"

# --- The scope -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "module",
    [
        A + "openai_brain.py",
        A + "provider.py",
        A + "prompts.py",
        A + "usage.py",
        A + "settings.py",
        "packages/tools/src/tools/openai_schema.py",
        A + "obedient.py",
        "packages/domain/src/domain/problems.py",
        A + "orchestrator.py",
        "packages/domain/src/domain/world.py",
    ],
)
def test_the_whole_sut_is_in_scope(module: str) -> None:
    assert (ROOT / module).is_file()
    assert CONFIG.scope.holds(module), f"{module} is left out of the figure"


def test_what_is_left_out_says_why() -> None:
    assert dict(CONFIG.scope.exclude) == {
        A + "testing.py": "a test harness around the orchestrator: tests import it, the SUT"
        " never does"
    }
    assert not CONFIG.scope.covers("packages/agent-evals/src/agent_evals/sut.py")


def test_the_test_command_is_the_gate_of_every_suite_and_of_each_suite_apart() -> None:
    shell, flag, script = CONFIG.test_command
    assert (shell, flag) == ("sh", "-c")
    gates = script.split(" && ")
    assert [g.split()[1:4] for g in gates] == [["-m", "evals", "gate"]] * 2
    assert "--suite model_path" in gates[1]
    assert CONFIG.scratch_env == ("SUPPORTPILOT_DB_DIR",)


def test_nox_power_runs_evals_power() -> None:
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    body = noxfile[noxfile.index("def power(") :].split("\n\n\n")[0]
    assert 'session.run("evals", "power", *session.posargs)' in body
    assert 'extras=("power",)' in body


# --- The ledger --------------------------------------------------------------------------

LEDGER: Ledger = load_ledger(CONFIG.ledger)


@pytest.mark.parametrize(("seed", "size"), [(1, 300), (11, 100)])
def test_the_samples_tuned_on_are_recorded(seed: int, size: int) -> None:
    found = [e for e in LEDGER.samples if e.seed == seed and e.size == size]
    assert found and all(e.purpose == "tune" for e in found)
    assert all(e.mutants is not None and len(e.mutants) == size for e in found)


@pytest.mark.parametrize("seed", sorted({e.seed for e in LEDGER.samples}))
def test_a_seed_in_the_ledger_is_refused_as_a_holdout(seed: int) -> None:
    """The positive control on the committed ledger itself."""
    with pytest.raises(PowerError, match=f"seed {seed} was used before"):
        choose([], LEDGER, purpose="holdout", size=1, seed=seed)


def test_a_mutant_of_a_tuning_sample_is_never_drawn_for_a_holdout() -> None:
    tuned = LedgerEntry.model_validate(LEDGER.samples[0].model_dump())
    assert tuned.mutants
    inside = Mutant("j", "packages/agent/src/agent/bus.py", 1, 0, 1, 1, "core/X", 0, code="c")
    # a candidate whose digest is in the seed-1 sample cannot be drawn: fake one by
    # putting its digest in a copy of the ledger
    copy = Ledger(
        Path(tempfile.gettempdir()) / "unused.json",
        [*LEDGER.samples, tuned.model_copy(update={"mutants": [inside.digest], "seed": 99})],
        dict(LEDGER.scopes),
    )
    with pytest.raises(PowerError, match="only 0 of 1 candidate"):
        choose([inside], copy, purpose="holdout", size=1, seed=None)
    (earlier,) = [e for e in relate([inside], 5, copy, [inside]) if e.entry.seed == 99]
    assert earlier.reuses


def test_every_ledger_date_is_past_and_every_scope_known() -> None:
    today = datetime.datetime.now(datetime.UTC).date()
    assert all(e.date <= today and e.scope in LEDGER.scopes for e in LEDGER.samples)


# --- The equivalents and their premises ------------------------------------------------------

PROJECT = Project(CONFIG.root, CONFIG.call_site_files(), load_gated_cases(CONFIG.cases_dir))
CHECKED = [e for e in EQUIVALENTS if e.premise.kind not in ("probe", "claim")]


def test_the_file_parses_and_states_a_premise_for_every_entry() -> None:
    assert len(EQUIVALENTS) > 50
    assert all(e.premise.kind and e.reason for e in EQUIVALENTS)
    # most rest on something a test checks; the claims are counted, not hidden
    assert len(CHECKED) + sum(e.premise.kind == "probe" for e in EQUIVALENTS) > len(EQUIVALENTS) / 2


@pytest.mark.parametrize("entry", CHECKED, ids=[f"{e.number}" for e in CHECKED])
def test_every_premise_that_can_be_checked_holds(entry: Equivalent) -> None:
    found = check(entry.premise, PROJECT)
    assert found.verdict == "holds", f"entry {entry.number} ({entry.anchor}): {found.detail}"


def _probe_names() -> set[str]:
    tree = ast.parse(PROBES.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "PROBES":
            assert isinstance(node.value, ast.Dict)
            return {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    raise AssertionError(f"no PROBES in {PROBES}")


def test_every_probe_named_is_one_the_project_s_tests_run() -> None:
    named = {e.premise.fields["name"] for e in EQUIVALENTS if e.premise.kind == "probe"}
    assert named and named <= _probe_names()


@pytest.mark.parametrize(
    "wrong",
    [
        r"numbered by the tool box",  # KB evidence ids are kb#<row id> (issue 21)
        r"never near 2,000",  # a ticket summary reached 2,000 characters (issue 21)
        r"only the model brains",  # the model path is in scope now
    ],
)
def test_no_entry_rests_on_a_premise_found_wrong(wrong: str) -> None:
    assert not [e.anchor for e in EQUIVALENTS if re.search(wrong, e.reason)]


def test_every_entry_matches_a_mutant_of_the_current_code() -> None:
    """A stale entry (its line changed) must be judged again, not kept silently."""
    pytest.importorskip("cosmic_ray")
    from cosmic_ray.work_db import use_db
    from evals.power import session

    with tempfile.TemporaryDirectory() as tmp, use_db(str(Path(tmp) / "s.sqlite")) as db:
        session.init_session(db, CONFIG.root, CONFIG.scope)
        found, _ = session.read_mutants(db, CONFIG.root)
    sources = {p: (CONFIG.root / p).read_text(encoding="utf-8") for p in {m.path for m in found}}
    from evals.power.mutants import with_anchors

    anchors = {m.anchor for m in with_anchors(found, sources)}
    stale = [e.anchor for e in EQUIVALENTS if e.anchor not in anchors]
    assert stale == []
