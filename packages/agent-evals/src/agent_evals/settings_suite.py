"""The settings suite: configuration cases for how SupportPilot reads its settings.

Every setting of ``SupportPilotSUT`` (``docs/models.md``, "Settings") meets every rule
that applies to it: given as an option, set in its variable, an option beating the
variable, whitespace around the value, blank = not given, the boundaries of its
constraint, a value that is no number, a model setting under rule brains (as an option
and as a variable; the shared ``OPENAI_*`` variables left unread instead), the ``openai``
brain without a model or a key, ``screen`` and ``model_server`` (the scripted model and
what it lets through), unknown options. Each case is a configuration case
(``sut_options``, ``sut_env``, ``expect.refused`` or ``expect.described``): the SUT is
built, never run.

The expectations come from :data:`TABLE` and :func:`configure` below, a second
implementation of the documented rules written from the docs: this module imports
nothing of ``agent`` (a test enforces it), so a changed default, a dropped validation, a
wrong variable name, another refusal text or a wrong source in ``agent.settings`` makes
some case fail. Two dimensions, ``setting`` and ``rule``, in one interaction group (the
full product, less the pairs :data:`SCENARIOS` does not hold)::

    uv run evals generate agent_evals.settings_suite:GENERATOR           # (re)write it
    uv run evals generate agent_evals.settings_suite:GENERATOR --check   # exit 1: stale
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evals.cases.generate import CaseGenerator, Dimension, Interaction

PREFIX = "brain configuration: "
"""How every refusal of the SUT's configuration begins."""
SCRIPTED = "scripted"
"""The one model server the SUT starts itself (``model_server=scripted``)."""
SCRIPTED_MODEL = "scripted-competent-1"
"""The model the scripted server serves (docs/models.md)."""
SERVED_BASE_URL = "the scripted model on 127.0.0.1, one server per run"
"""How the header shows the scripted server's endpoint."""
SHARED = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
"""The variables every OpenAI client reads: unread by rule brains and by the scripted
model, never refused."""
SCREEN = {"on": True, "off": False, "true": True, "false": False}
"""What ``screen`` accepts (letter case and surrounding whitespace do not matter)."""
KEY_TEXT = "printable ASCII with no spaces"
"""What an API key must be (docs/models.md: it travels in an HTTP header)."""
HIDDEN = "<hidden>"
"""How a refusal shows an API key: never its value."""
MODEL_FAULT_LINE = (
    "faults.model: a model fault needs the scripted model"
    " (--sut-option brain=openai --sut-option model_server=scripted)"
)
"""What ``check_case`` says of a model fault without the scripted model."""


@dataclass(frozen=True)
class Setting:
    """One row of the settings table (docs/models.md)."""

    name: str
    variable: str
    kind: str
    """``choice``, ``text``, ``key`` (printable ASCII with no spaces, never shown),
    ``number`` (a finite decimal) or ``integer``."""
    default: str | None
    """What runs when nobody gives it, as the header shows it (``None``: ``-``; the
    contract timeout's default depends on the brain)."""
    model_only: bool
    """Applies to ``brain=openai`` only: refused under rule brains."""
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    choices: tuple[str, ...] = ()
    typical: str = ""
    """A valid value, and another one (the variable's, when an option beats it)."""
    other: str = ""


TABLE: tuple[Setting, ...] = (
    Setting("brain", "SUPPORTPILOT_BRAIN", "choice", "rule", False, choices=("rule", "openai")),
    Setting("model", "SUPPORTPILOT_MODEL", "text", None, True, typical="gpt-x", other="gpt-y"),
    Setting(
        "base_url",
        "OPENAI_BASE_URL",
        "text",
        None,
        True,
        typical="http://127.0.0.1:9/v1",
        other="http://127.0.0.1:8/v1",
    ),
    Setting("api_key", "OPENAI_API_KEY", "key", None, True, typical="sk-a", other="sk-b"),
    Setting(
        "temperature",
        "SUPPORTPILOT_TEMPERATURE",
        "number",
        None,
        True,
        ge=0,
        le=2,
        typical="0.7",
        other="1.2",
    ),
    Setting("seed", "SUPPORTPILOT_SEED", "integer", None, True, typical="7", other="8"),
    Setting(
        "timeout_s",
        "SUPPORTPILOT_TIMEOUT_S",
        "number",
        "30.0",
        True,
        gt=0,
        typical="9.5",
        other="12",
    ),
    Setting(
        "max_retries",
        "SUPPORTPILOT_MAX_RETRIES",
        "integer",
        "2",
        True,
        ge=0,
        typical="5",
        other="3",
    ),
    Setting(
        "max_steps",
        "SUPPORTPILOT_MAX_STEPS",
        "integer",
        "6",
        True,
        ge=1,
        typical="4",
        other="9",
    ),
    Setting(
        "contract_timeout_s",
        "SUPPORTPILOT_CONTRACT_TIMEOUT_S",
        "number",
        None,
        False,
        gt=0,
        typical="45",
        other="60",
    ),
)
"""Every setting, in the order the header lists them."""
BY_NAME = {s.name: s for s in TABLE}
CONTRACT_DEFAULT = {"rule": "0.5", "openai": "120"}
"""The contract timeout nobody gave, per brain."""
RULE_HEAD = ("brain", "contract_timeout_s")
OPENAI_HEAD = ("brain", "model", "base_url")


class RefusedError(Exception):
    """The SUT refuses to be built: the one line it must say."""

    def __init__(self, problem: str) -> None:
        super().__init__(PREFIX + problem)
        self.line = PREFIX + problem


def _blank(value: str | None) -> bool:
    return value is None or not value.strip()


def _bound(value: float) -> str:
    return f"{value:g}"


def _parse(setting: Setting, text: str, source: str) -> object:
    """``text`` as ``setting``'s value, or :class:`RefusedError` naming what is wrong."""
    where = setting.name + (f" (set in {source[4:]})" if source.startswith("env ") else "")

    def refuse(why: str) -> RefusedError:
        return RefusedError(f"{where}: Input should be {why} (got {text!r})")

    if setting.kind == "text":
        return text
    if setting.kind == "key":
        if not re.fullmatch(r"[!-~]+", text):
            raise RefusedError(f"{where}: Input should be {KEY_TEXT} (got {HIDDEN})")
        return text
    if setting.kind == "choice":
        if text not in setting.choices:
            raise refuse(" or ".join(repr(c) for c in setting.choices))
        return text
    number: float
    if setting.kind == "integer":
        if not re.fullmatch(r"[+-]?\d+", text):
            raise refuse("a valid integer, unable to parse string as an integer")
        number = int(text)
    else:
        if re.fullmatch(r"[+-]?(inf|infinity|nan)", text, re.IGNORECASE):
            raise refuse("a finite number")
        if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
            raise refuse("a valid number, unable to parse string as a number")
        number = float(text)
    if setting.gt is not None and not number > setting.gt:
        raise refuse(f"greater than {_bound(setting.gt)}")
    if setting.ge is not None and not number >= setting.ge:
        raise refuse(f"greater than or equal to {_bound(setting.ge)}")
    if setting.le is not None and not number <= setting.le:
        raise refuse(f"less than or equal to {_bound(setting.le)}")
    return number


def _source_words(source: str) -> str:
    return {"option": "an option", "default": "the default"}.get(source, f"from {source[4:]}")


def configure(options: Mapping[str, str], env: Mapping[str, str]) -> list[str]:
    """What the SUT built with ``options`` under ``env`` says of itself (its header
    lines), or :class:`RefusedError`: the documented rules, in the documented order."""
    server_text = options.get("model_server")
    server = None if _blank(server_text) else (server_text or "").strip()
    if server is not None and server != SCRIPTED:
        raise RefusedError(f"model_server must be {SCRIPTED!r}, got {server_text!r}")
    given = {k: v for k, v in options.items() if k not in ("screen", "model_server")}
    env = dict(env)

    def chosen(name: str) -> str | None:
        for value in (given.get(name), env.get(BY_NAME[name].variable)):
            if not _blank(value):
                return (value or "").strip()
        return None

    by = f"model_server={SCRIPTED}"
    served: dict[str, str] = {}
    server_unread: list[str] = []
    if server is not None:
        for name in ("base_url", "api_key"):
            if not _blank(given.get(name)):
                raise RefusedError(
                    f"{name} is given but {by} serves its own: it would not be applied"
                )
        if chosen("brain") != "openai":
            raise RefusedError(f"{by} serves model brains: it needs brain=openai")
        model = chosen("model")
        if model is not None and model != SCRIPTED_MODEL:
            raise RefusedError(
                f"model {model!r} is not the scripted model {SCRIPTED_MODEL!r}"
                f" ({by} serves only it)"
            )
        server_unread = sorted(v for v in SHARED if not _blank(env.get(v)))
        env = {k: v for k, v in env.items() if k not in SHARED}
        served = {"base_url": SERVED_BASE_URL, "api_key": "***"}
        if model is None:
            served["model"] = SCRIPTED_MODEL
    unknown = sorted(set(given) - set(BY_NAME))
    if unknown:
        raise RefusedError(f"unknown setting(s) {', '.join(map(repr, unknown))}")
    texts: dict[str, str] = {}
    sources: dict[str, str] = {}
    for setting in TABLE:
        if setting.name in served:
            texts[setting.name], sources[setting.name] = served[setting.name], by
            continue
        text, source = given.get(setting.name), "option"
        if _blank(text):
            text, source = env.get(setting.variable), f"env {setting.variable}"
        if not _blank(text):
            texts[setting.name], sources[setting.name] = (text or "").strip(), source
    # The brain first: rule brains leave the shared variables unread, unvalidated.
    brain = "rule"
    if "brain" in texts:
        brain = str(_parse(BY_NAME["brain"], texts["brain"], sources["brain"]))
    unread: list[str] = []
    if brain == "rule":
        for name in sorted(n for n in texts if BY_NAME[n].model_only):
            variable = BY_NAME[name].variable
            if sources[name] == f"env {variable}" and variable in SHARED:
                unread.append(variable)
                del texts[name], sources[name]
    values = {
        name: text if sources[name] == by else _parse(BY_NAME[name], text, sources[name])
        for name, text in texts.items()
    }
    if brain == "rule":
        for name in sorted(n for n in values if BY_NAME[n].model_only):
            variable = BY_NAME[name].variable
            given_as = "given" if sources[name] == "option" else f"set in {variable}"
            brain_from = _source_words(sources.get("brain", "default"))
            raise RefusedError(
                f"{name} is {given_as} but applies to brain=openai only, and brain is"
                f" 'rule' ({brain_from}): it would not be applied"
            )
    else:
        if "model" not in values:
            raise RefusedError(
                f"brain 'openai' needs a model: pass model=NAME or set {BY_NAME['model'].variable}"
            )
        if "api_key" not in values:
            key = BY_NAME["api_key"].variable
            raise RefusedError(f"brain 'openai' needs an API key: set {key}")
    screen_text = options.get("screen")
    screen = True
    if not _blank(screen_text):
        flag = SCREEN.get((screen_text or "").strip().lower())
        if flag is None:
            raise RefusedError(f"screen must be 'on' or 'off', got {screen_text!r}")
        screen = flag
    shown: dict[str, str] = {}
    for setting in TABLE:
        name = setting.name
        source = sources.get(name, "default")
        if name not in values:
            text = setting.default or "-"
            if name == "contract_timeout_s":
                text, source = CONTRACT_DEFAULT[brain], f"default for brain={brain}"
        elif source == by:
            text = str(values[name])
        elif name == "api_key":
            text = "***"
        else:
            value = values[name]
            text = str(float(value)) if setting.kind == "number" else str(value)  # type: ignore[arg-type]
        words = {"option": "option", "default": "default"}.get(source, source)
        shown[name] = f"{name}={text} ({words})"
    if brain == "rule":
        lines = [", ".join(shown[n] for n in RULE_HEAD)]
    else:
        rest = [s.name for s in TABLE if s.name not in OPENAI_HEAD]
        lines = [", ".join(shown[n] for n in OPENAI_HEAD), ", ".join(shown[n] for n in rest)]
    if unread:
        lines.append(f"unread (brain=rule): {', '.join(unread)}")
    lines.append(f"screen={'on' if screen else 'off'}, model_server={server or '-'}")
    if server_unread:
        lines.append(f"unread ({by}): {', '.join(server_unread)}")
    return lines


def expect_for(case: Mapping[str, Any]) -> dict[str, Any]:
    """The oracle: what the SUT must say, from the case's options and environment."""
    try:
        lines = configure(case.get("sut_options", {}), case.get("sut_env", {}))
    except RefusedError as refused:
        return {"refused": [refused.line]}
    served = (case.get("sut_options", {}).get("model_server") or "").strip() == SCRIPTED
    if "model" in case.get("faults", {}) and not served:
        return {"refused": [MODEL_FAULT_LINE]}
    return {"described": lines}


# -- the scenarios: (setting, rule) -> options, environment --------------------------


@dataclass(frozen=True)
class Scenario:
    """One configuration: the options, the environment, what it is about."""

    options: dict[str, str]
    env: dict[str, str] = field(default_factory=dict)
    faults: dict[str, str] = field(default_factory=dict)


OPENAI = {"brain": "openai", "model": "gpt-x", "api_key": "sk-a"}
"""A complete model-brain configuration, as options."""
SERVER = {"brain": "openai", "model_server": SCRIPTED}
KEY_TEXTS = {
    "inner_space": "sk-a b-secret",
    "inner_tab": "sk-a\tb-secret",
    "line_break": "sk-a\nb-secret",
    "non_ascii": "sk-密钥-secret",
    "delete_char": "sk-a\x7fb-secret",
}
"""API keys that are no printable ASCII (each keeps ``secret`` inside: a refusal showing
it fails its case)."""


BAD: dict[str, str] = {
    "brain": "gpt",
    "api_key": "sk-密钥",
    "temperature": "hot",
    "seed": "1.5",
    "timeout_s": "0",
    "max_retries": "-1",
    "max_steps": "0",
    "contract_timeout_s": "nan",
}
"""A refused value of every setting that can be refused (``model`` and ``base_url`` take
any text): two of them in one configuration show which one a refusal names."""


def _boundaries(s: Setting) -> dict[str, str]:
    """Rule label -> a value at the edge of ``s``'s constraint (valid or not)."""
    found: dict[str, str] = {}
    if s.ge is not None:
        low = _bound(s.ge)
        step = "1" if s.kind == "integer" else "0.1"
        found["at_min"] = low
        found["below_min"] = _bound(s.ge - float(step))
    if s.gt is not None:
        found["at_bound"] = _bound(s.gt)
        found["just_above_bound"] = "0.001"
        found["negative"] = "-1"
    if s.le is not None:
        found["at_max"] = _bound(s.le)
        found["above_max"] = _bound(s.le + 0.1)
    return found


def _numeric(s: Setting) -> dict[str, Scenario]:
    base = OPENAI if s.model_only else {}
    v = s.name
    out = {
        "option": Scenario({**base, v: s.typical}),
        "env": Scenario(dict(base), {s.variable: s.typical}),
        "option_over_env": Scenario({**base, v: s.typical}, {s.variable: s.other}),
        "whitespace": Scenario({**base, v: f" {s.typical} "}),
        "empty_is_default": Scenario({**base, v: ""}),
        "empty_falls_back_to_env": Scenario({**base, v: ""}, {s.variable: s.other}),
        "blank_env_is_default": Scenario(dict(base), {s.variable: "  "}),
        "not_a_number": Scenario({**base, v: "abc"}),
        "not_a_number_env": Scenario(dict(base), {s.variable: "abc"}),
    }
    for rule, value in _boundaries(s).items():
        out[rule] = Scenario({**base, v: value})
    if s.kind == "integer":
        out["fraction"] = Scenario({**base, v: "1.5"})
    else:
        out["non_finite"] = Scenario({**base, v: "inf"})
        out["nan"] = Scenario({**base, v: "nan"})
    out["under_rule_option"] = Scenario({v: s.typical})
    out["under_rule_env"] = Scenario({}, {s.variable: s.typical})
    out["invalid_under_rule"] = Scenario({v: "abc"})
    if s.name in ("temperature", "max_steps"):
        out["under_rule_brain_option"] = Scenario({"brain": "rule", v: s.typical})
        out["under_rule_brain_env"] = Scenario({v: s.typical}, {"SUPPORTPILOT_BRAIN": "rule"})
    return out


def _scenarios() -> dict[tuple[str, str], Scenario]:
    found: dict[tuple[str, str], Scenario] = {}
    for s in TABLE:
        if s.kind in ("number", "integer"):
            found.update({(s.name, rule): sc for rule, sc in _numeric(s).items()})
    brain = {
        "default": Scenario({}),
        "option": Scenario(dict(OPENAI)),
        "env": Scenario({"model": "gpt-x", "api_key": "sk-a"}, {"SUPPORTPILOT_BRAIN": "openai"}),
        "option_over_env": Scenario({"brain": "rule"}, {"SUPPORTPILOT_BRAIN": "openai"}),
        "rule_option": Scenario({"brain": "rule"}),
        "whitespace": Scenario({**OPENAI, "brain": " openai "}),
        "empty_is_default": Scenario({"brain": ""}),
        "empty_falls_back_to_env": Scenario(
            {**OPENAI, "brain": ""}, {"SUPPORTPILOT_BRAIN": "openai"}
        ),
        "invalid": Scenario({"brain": "gpt"}),
        "invalid_env": Scenario({}, {"SUPPORTPILOT_BRAIN": "gpt"}),
        "wrong_case": Scenario({**OPENAI, "brain": "OpenAI"}),
        "openai_without_model": Scenario({"brain": "openai", "api_key": "sk-a"}),
        "openai_blank_model": Scenario({"brain": "openai", "model": "  ", "api_key": "sk-a"}),
        "openai_without_key": Scenario({"brain": "openai", "model": "gpt-x"}),
        "openai_without_both": Scenario({"brain": "openai"}),
        "openai_env_all": Scenario(
            {},
            {
                "SUPPORTPILOT_BRAIN": "openai",
                "SUPPORTPILOT_MODEL": "gpt-x",
                "OPENAI_API_KEY": "sk-a",
                "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
            },
        ),
    }
    found.update({("brain", rule): sc for rule, sc in brain.items()})
    for name in ("model", "base_url", "api_key"):
        s = BY_NAME[name]
        rest = {k: v for k, v in OPENAI.items() if k != name}
        text = {
            "option": Scenario({**rest, name: s.typical}),
            "env": Scenario(dict(rest), {s.variable: s.typical}),
            "option_over_env": Scenario({**rest, name: s.typical}, {s.variable: s.other}),
            "whitespace": Scenario({**rest, name: f"  {s.typical} "}),
            "empty_falls_back_to_env": Scenario({**rest, name: ""}, {s.variable: s.other}),
            "under_rule_option": Scenario({name: s.typical}),
            "under_rule_env": Scenario({}, {s.variable: s.typical}),
            "under_rule_brain_env": Scenario({}, {"SUPPORTPILOT_BRAIN": "rule", s.variable: "x"}),
        }
        found.update({(name, rule): sc for rule, sc in text.items()})
    found[("api_key", "unread_both_under_rule")] = Scenario(
        {}, {"OPENAI_API_KEY": "sk-a", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    )
    found[("api_key", "blank_env_under_rule")] = Scenario({}, {"OPENAI_API_KEY": " "})
    # A key is printable ASCII with no spaces; a refusal never shows it, wherever it came
    # from, and rule brains leave a bad shared variable unread.
    key = {k: v for k, v in OPENAI.items() if k != "api_key"}
    for rule, bad in KEY_TEXTS.items():
        found[("api_key", rule)] = Scenario({**key, "api_key": bad})
    found[("api_key", "inner_space_env")] = Scenario(dict(key), {"OPENAI_API_KEY": "sk-a b-secret"})
    found[("api_key", "non_ascii_under_rule_option")] = Scenario({"api_key": "sk-密钥"})
    found[("api_key", "non_ascii_env_under_rule")] = Scenario({}, {"OPENAI_API_KEY": "sk-密钥"})
    found[("api_key", "non_ascii_env_under_scripted")] = Scenario(
        dict(SERVER), {"OPENAI_API_KEY": "sk-密钥"}
    )
    found[("api_key", "printable_edges")] = Scenario({**key, "api_key": "!sk-~"})
    screen = {
        "off": Scenario({"screen": "off"}),
        "on": Scenario({"screen": "on"}),
        "upper_case": Scenario({"screen": "OFF"}),
        "false": Scenario({"screen": "false"}),
        "true": Scenario({"screen": "true"}),
        "whitespace": Scenario({"screen": " off "}),
        "empty_is_default": Scenario({"screen": ""}),
        "invalid": Scenario({"screen": "maybe"}),
        "off_under_openai": Scenario({**OPENAI, "screen": "off"}),
    }
    found.update({("screen", rule): sc for rule, sc in screen.items()})
    server = {
        "scripted": Scenario(dict(SERVER)),
        "scripted_brain_env": Scenario(
            {"model_server": SCRIPTED}, {"SUPPORTPILOT_BRAIN": "openai"}
        ),
        "scripted_model_option": Scenario({**SERVER, "model": SCRIPTED_MODEL}),
        "scripted_model_env": Scenario(dict(SERVER), {"SUPPORTPILOT_MODEL": SCRIPTED_MODEL}),
        "scripted_other_model": Scenario({**SERVER, "model": "gpt-x"}),
        "scripted_other_model_env": Scenario(dict(SERVER), {"SUPPORTPILOT_MODEL": "gpt-x"}),
        "scripted_base_url": Scenario({**SERVER, "base_url": "http://127.0.0.1:9/v1"}),
        "scripted_api_key": Scenario({**SERVER, "api_key": "sk-a"}),
        "scripted_shared_env_unread": Scenario(
            dict(SERVER), {"OPENAI_API_KEY": "sk-a", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
        ),
        "scripted_with_settings": Scenario(
            {**SERVER, "timeout_s": "1.5", "max_retries": "1", "contract_timeout_s": "20"}
        ),
        "scripted_without_brain": Scenario({"model_server": SCRIPTED}),
        "scripted_brain_rule_env": Scenario(
            {"model_server": SCRIPTED}, {"SUPPORTPILOT_BRAIN": "rule"}
        ),
        "whitespace": Scenario({**SERVER, "model_server": " scripted "}),
        "empty_is_none": Scenario({"model_server": ""}),
        "invalid": Scenario({"model_server": "ollama"}),
        "wrong_case": Scenario({**SERVER, "model_server": "Scripted"}),
        "model_fault_without_server": Scenario({}, faults={"model": "server_error"}),
    }
    found.update({("model_server", rule): sc for rule, sc in server.items()})
    # Two bad values: the refusal names the first in table order, wherever the resolution
    # looks at each (the brain is read apart, first), under both brains.
    ordered = [s.name for s in TABLE if s.name in BAD]
    for i, first in enumerate(ordered):
        for second in ordered[i + 1 :]:
            found[(first, f"bad_with_{second}")] = Scenario(
                {**OPENAI, first: BAD[first], second: BAD[second]}
            )
    for second in ordered[ordered.index("api_key") + 1 :]:
        found[("api_key", f"bad_with_{second}_under_rule")] = Scenario(
            {"api_key": BAD["api_key"], second: BAD[second]}
        )
    # Two model settings under rule brains: the refusal names the first in name order
    # (docs/models.md), never the first of a set of names (whose order changes from
    # process to process: every pair at once, no process orders them all by name). From
    # the variables, a shared one is left unread first, so the other one is named.
    model = sorted(s.name for s in TABLE if s.model_only)
    for i, first in enumerate(model):
        for second in model[i + 1 :]:
            a, b = BY_NAME[first], BY_NAME[second]
            found[(first, f"under_rule_with_{second}")] = Scenario(
                {second: b.typical, first: a.typical}
            )
            if not (a.variable in SHARED and b.variable in SHARED):  # unread_both_under_rule
                found[(first, f"under_rule_env_with_{second}")] = Scenario(
                    {}, {b.variable: b.typical, a.variable: a.typical}
                )
    found[("unknown", "one")] = Scenario({"colour": "blue"})
    found[("unknown", "typo")] = Scenario({**OPENAI, "temprature": "0.2"})
    found[("unknown", "two")] = Scenario({"zeta": "1", "alpha": "2"})
    # Six, given out of order: a refusal listing them in a set's order (which changes from
    # process to process) matches the sorted list once in 720 runs, not once in two.
    found[("unknown", "six")] = Scenario(
        {"zeta": "1", "alpha": "2", "omega": "3", "kappa": "4", "beta": "5", "mu": "6"}
    )
    return found


SCENARIOS: dict[tuple[str, str], Scenario] = _scenarios()
"""Every (setting, rule) pair the suite holds."""

TITLES: dict[str, str] = {
    "default": "什么都不给：默认配置",
    "option": "作为选项给出",
    "env": "来自环境变量",
    "option_over_env": "选项优先于环境变量",
    "whitespace": "值两边有空白",
    "empty_is_default": "空字符串等于没给：默认值",
    "empty_falls_back_to_env": "空选项退回环境变量",
    "blank_env_is_default": "环境变量只有空白：默认值",
    "not_a_number": "不是数字：拒绝",
    "not_a_number_env": "环境变量里不是数字：拒绝并指明变量",
    "invalid": "非法取值：拒绝",
    "invalid_env": "环境变量取值非法：拒绝",
    "invalid_under_rule": "规则大脑下的非法值：先报非法值",
    "under_rule_option": "规则大脑下给出模型设置：拒绝",
    "under_rule_env": "规则大脑下环境变量设了模型设置：拒绝",
    "under_rule_brain_option": "显式 brain=rule 时给出模型设置：拒绝",
    "under_rule_brain_env": "环境变量 brain=rule 时给出模型设置：拒绝",
    "inner_space": "密钥中间有空格：拒绝，不显示密钥",
    "inner_tab": "密钥中间有制表符：拒绝，不显示密钥",
    "line_break": "密钥中间有换行：拒绝，不显示密钥",
    "non_ascii": "密钥含非 ASCII 字符：拒绝，不显示密钥",
    "delete_char": "密钥含控制字符：拒绝，不显示密钥",
    "inner_space_env": "环境变量里的密钥有空格：拒绝并指明变量，不显示密钥",
    "non_ascii_under_rule_option": "规则大脑下给出非法密钥：先报非法值，不显示密钥",
    "non_ascii_env_under_rule": "规则大脑下环境变量里的非法密钥：不读取",
    "non_ascii_env_under_scripted": "脚本模型下环境变量里的非法密钥：不读取",
    "printable_edges": "密钥含可打印 ASCII 的两端字符：接受",
    **{f"bad_with_{name}": f"与 {name} 同时非法：先报表中靠前的 {{setting}}" for name in BAD},
    **{
        f"bad_with_{name}_under_rule": f"规则大脑下与 {name} 同时非法：先报表中靠前的 {{setting}}"
        for name in BAD
    },
    **{
        f"under_rule_with_{s.name}": (
            f"规则大脑下与 {s.name} 一起作为选项给出：先报名称靠前的 {{setting}}"
        )
        for s in TABLE
    },
    **{
        f"under_rule_env_with_{s.name}": (
            f"规则大脑下与 {s.name} 一起来自环境变量：先报名称靠前的（共享变量不读取）"
        )
        for s in TABLE
    },
}
"""A person's title for each rule (others: a generic one)."""

DIMENSIONS = (
    Dimension(
        "setting",
        {n: n for n in dict.fromkeys(name for name, _ in SCENARIOS)},
        "the setting (or option) the case is about",
    ),
    Dimension(
        "rule",
        {r: r for r in dict.fromkeys(rule for _, rule in SCENARIOS)},
        "what is given, and where, and which rule it meets",
    ),
)

INPUT = {"goal": "包裹还没到，帮我查一下进度", "order_id": "A1001"}
"""Every case's input: never used (the SUT is built, not run), but a case needs one."""


def _allowed(row: Mapping[str, str]) -> bool:
    if "setting" in row and "rule" in row:
        return (row["setting"], row["rule"]) in SCENARIOS
    return True


def build(values: Mapping[str, Any]) -> dict[str, Any]:
    """A (setting, rule) pair -> its configuration case."""
    setting, rule = str(values["setting"]), str(values["rule"])
    scenario = SCENARIOS[(setting, rule)]
    title = TITLES.get(rule, rule.replace("_", " ")).replace("{setting}", setting)
    case: dict[str, Any] = {
        "title": f"配置 {setting}：{title}",
        "input": dict(INPUT),
        "sut_options": dict(scenario.options),
        "sut_env": dict(scenario.env),
    }
    if scenario.faults:
        case["faults"] = dict(scenario.faults)
    return case


GENERATOR = CaseGenerator(
    prefix="cfg",
    dimensions=DIMENSIONS,
    build=build,
    oracle=expect_for,
    interactions=(
        Interaction(("setting", "rule"), "every rule that applies to each setting, in full"),
    ),
    allowed=_allowed,
    tags=("configuration", "settings", "must_pass"),
    header=(
        "# Generated by agent_evals.settings_suite (every setting x every rule of"
        " docs/models.md); do not edit by hand (regenerate: uv run evals generate"
        " agent_evals.settings_suite:GENERATOR)."
    ),
    suite="settings",
    id_of=lambda labels: f"cfg-{labels['setting']}-{labels['rule']}",
)
"""The settings suite (cases/settings.jsonl)."""
