"""Loading a SUT from an import path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import fake_suts
from evals.errors import EvalsError
from evals.sut import SUT, AsyncSUT, SutLoadError, load_sut


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
