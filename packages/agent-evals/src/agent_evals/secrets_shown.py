"""Where a run record shows a secret the SUT was configured with.

A secret is the API key the run's settings hold (given as the ``api_key`` option, read
from ``OPENAI_API_KEY``, or supplied by the scripted model) and the value of every
environment variable the SUT declares (``config_env``) whose name is a secret's
(:func:`evals.model.sut.is_secret`: ``OPENAI_API_KEY``), set or not read. None of them may
appear in anything recorded: the run record is what the traces (``runs.jsonl``), the
reports and the baselines are written from.

The SUT adapter (:class:`agent_evals.sut.SupportPilotSUT`) looks for its secrets in the
whole record of every run it returns (:func:`shown_in`) and writes down where it found
them, never their values, under ``detail.secrets_shown``; the check
``no_secret_recorded`` (:mod:`agent_evals.checks`) fails a run whose list is not empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from evals.cases.configuration import MIN_SECRET_CHARS
from evals.model.sut import is_secret

SECRETS_SHOWN = "secrets_shown"
"""The run record's ``detail`` key: where the record shows a secret (``[]``: nowhere)."""


class Secrets:
    """Secret values by name; its ``repr`` names them and never shows a value (the
    configuration cases look for secrets in the ``repr`` of every attribute of the SUT)."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = {
            name: value for name, value in values.items() if len(value) >= MIN_SECRET_CHARS
        }
        """Name -> value; a value shorter than ``MIN_SECRET_CHARS`` would be found by chance."""

    @classmethod
    def of(cls, api_key: str | None, env: Mapping[str, str], declared: Iterable[str]) -> Secrets:
        """The settings' ``api_key`` and every declared secret variable set in ``env``."""
        values = {
            name: env[name].strip()
            for name in declared
            if is_secret(name) and env.get(name, "").strip()
        }
        if api_key:
            values["api_key"] = api_key
        return cls(values)

    def __repr__(self) -> str:
        return f"Secrets({', '.join(sorted(self._values))})"

    def __bool__(self) -> bool:
        return bool(self._values)

    def shown_in(self, record: object) -> list[str]:
        """Where ``record`` (JSON data: a run record's ``model_dump(mode="json")``) shows
        a secret, one line per secret and place (``api_key in detail.brain.api_key``),
        values never quoted."""
        found: set[str] = set()
        for path, text in _strings(record, ""):
            for name, value in self._values.items():
                if value in text:
                    found.add(f"{name} in {path or '(the record)'}")
        return sorted(found)


def _strings(value: object, path: str) -> Iterator[tuple[str, str]]:
    """Every string of JSON data with its dotted path (a key is a string too)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            yield f"{inner} (the key)", str(key)
            yield from _strings(item, inner)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")
