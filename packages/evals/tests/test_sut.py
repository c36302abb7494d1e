"""Loading a SUT from an import path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import fake_suts
from evals.errors import EvalsError
from evals.model.sut import SUT, AsyncSUT, SutLoadError, describe, load_sut, parse_option


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("fake_suts:EchoSUT", fake_suts.EchoSUT),  # a class: instantiated
        ("fake_suts:make_sut", fake_suts.EchoSUT),  # a factory: called
        ("fake_suts:AsyncSUT", fake_suts.AsyncSUT),
        ("fake_suts:AsyncHangingSUT", fake_suts.AsyncHangingSUT),  # arun only
    ],
)
def test_load_sut_accepts_classes_factories_and_async(spec: str, kind: type) -> None:
    sut = load_sut(spec)
    assert isinstance(sut, kind)
    assert isinstance(sut, SUT | AsyncSUT)


def test_load_sut_uses_an_instance_as_it_is() -> None:
    assert load_sut("fake_suts:ECHO_INSTANCE") is fake_suts.ECHO_INSTANCE


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("fake_suts.EchoSUT", "expected 'package.module:attr'"),
        (":EchoSUT", "expected 'package.module:attr'"),
        ("fake_suts:", "expected 'package.module:attr'"),
        ("no_such_module_xyz:Thing", "cannot import 'no_such_module_xyz'"),
        ("fake_suts:Missing", "has no attribute 'Missing'"),
        ("fake_suts:BrokenInit", "creating it failed: OSError: database missing"),
        ("fake_suts:NoRun", "NoRun has no run(case, trial) method"),
    ],
)
def test_bad_sut_paths_give_one_line_errors(spec: str, fragment: str) -> None:
    with pytest.raises(SutLoadError) as info:
        load_sut(spec)
    message = str(info.value)
    assert fragment in message
    assert repr(spec) in message
    assert "\n" not in message
    assert isinstance(info.value, EvalsError)


@pytest.mark.parametrize(
    ("spec", "options", "expected"),
    [
        ("fake_suts:OptionsSUT", {}, {}),
        ("fake_suts:OptionsSUT", {"brain": "x", "model": "m"}, {"brain": "x", "model": "m"}),
        ("fake_suts:make_options_sut", {"flavour": "spicy"}, {"flavour": "spicy"}),
        ("fake_suts:make_options_sut", {}, {"flavour": "plain"}),
    ],
)
def test_options_are_keyword_arguments_of_the_class_or_factory(
    spec: str, options: dict[str, str], expected: dict[str, str]
) -> None:
    sut = load_sut(spec, options)
    assert isinstance(sut, fake_suts.OptionsSUT)
    assert sut.options == expected


@pytest.mark.parametrize(
    ("spec", "options", "fragment"),
    [
        ("fake_suts:EchoSUT", {"brain": "x"}, "creating it failed: TypeError:"),
        ("fake_suts:make_options_sut", {"colour": "red"}, "unexpected keyword argument 'colour'"),
        ("fake_suts:ECHO_INSTANCE", {"brain": "x"}, "options given (brain) but it is an instance"),
    ],
)
def test_options_a_sut_cannot_take_are_one_line_load_errors(
    spec: str, options: dict[str, str], fragment: str
) -> None:
    with pytest.raises(SutLoadError) as info:
        load_sut(spec, options)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("brain=openai", ("brain", "openai")),
        ("base_url=http://127.0.0.1:8000/v1?a=b", ("base_url", "http://127.0.0.1:8000/v1?a=b")),
        (" seed =7", ("seed", "7")),
        ("empty=", ("empty", "")),
    ],
)
def test_sut_options_parse_as_key_value(text: str, expected: tuple[str, str]) -> None:
    assert parse_option(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("brain", "expected KEY=VALUE"), ("=x", "must be an identifier"), ("a-b=1", "'a-b'")],
)
def test_bad_sut_options_say_why(text: str, fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_option(text)
    assert fragment in str(info.value)


def test_reports_name_the_options_with_secrets_hidden() -> None:
    assert describe("m:SUT") == "m:SUT"
    text = describe(
        "m:SUT", {"model": "gpt", "api_key": "sk-1", "auth_token": "t", "max_tokens": "9"}
    )
    assert text == "m:SUT (model=gpt, api_key=***, auth_token=***, max_tokens=9)"
