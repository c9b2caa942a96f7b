"""One registry shape for candidates, metrics and readings: ordered, no overwrites, helpful misses."""

from __future__ import annotations

import pytest

import dmbench
from dmbench.candidates import CandidateSpec, register
from dmbench.core.registry import Registry
from dmbench.errors import DuplicateNameError, UnknownNameError, UnsafeNameError
from dmbench.metrics import METRICS
from dmbench.metrics.scoring import register_metric
from dmbench.plantuml import READERS, parse


def test_a_registry_keeps_the_order_things_were_added_in():
    registry: Registry[int] = Registry("thing")
    for number, name in enumerate(["zeta", "alpha", "mid"]):
        registry.add(name, number)
    assert list(registry) == ["zeta", "alpha", "mid"] and registry["alpha"] == 1


def test_an_unknown_name_is_answered_with_the_choices():
    registry: Registry[int] = Registry("thing")
    registry.add("one", 1)
    registry.add("two", 2)
    with pytest.raises(UnknownNameError, match=r"unknown thing 'three'; choose one of: one, two"):
        registry["three"]
    assert registry.get("three") is None and "three" not in registry


def test_registering_a_duplicate_metric_raises_and_keeps_the_first():
    first = METRICS["metrik-4"]
    with pytest.raises(DuplicateNameError, match="a metric named 'metrik-4' is already registered"):
        register_metric(first)
    assert METRICS["metrik-4"] is first and list(METRICS).count("metrik-4") == 1


def test_registering_a_duplicate_reading_raises():
    with pytest.raises(DuplicateNameError, match="a reading named 'compat'"):
        READERS.add("compat", READERS["compat"])
    with pytest.raises(UnknownNameError, match="unknown reading 'loose'; choose one of: compat"):
        parse("@startuml\n@enduml", "loose")


@pytest.mark.parametrize(
    "name", ["../../tmp/x", "a__b", "", "A", "x" * 33, "tab\tname", "dot.name", "-lead"]
)
def test_a_candidate_name_unsafe_in_a_folder_name_is_refused_in_one_line(name):
    spec = CandidateSpec(name, 9, "x", False, "", factory=dict)
    with pytest.raises(UnsafeNameError) as raised:
        register(spec)
    assert "\n" not in str(raised.value) and "is not allowed" in str(raised.value)
    assert name not in [s.name for s in dmbench.candidates()]


def test_unknown_metric_names_the_choices():
    with pytest.raises(UnknownNameError, match="choose one of: metrik-4, metrik-4-standard"):
        METRICS["metrik-9"]
