"""The name distances of metrik-1 and metrik-2 are the integer edit distance and its ratio."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dmbench.metrics._levenshtein import levenshtein, normalised_levenshtein

names = st.text(alphabet="abAB_1é ", max_size=80)


@settings(max_examples=1000, deadline=None)
@given(names, names)
def test_the_normalised_distance_is_the_distance_over_the_longer_length(a: str, b: str) -> None:
    """Bit for bit what upstream computes: 0.0 for equal strings, else an exact division."""
    expected = 0.0 if a == b else levenshtein(a, b) / max(len(a), len(b))
    assert normalised_levenshtein(a, b) == expected
    assert type(normalised_levenshtein(a, b)) is float


def test_known_distances() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert normalised_levenshtein("kitten", "sitting") == 3 / 7
    assert normalised_levenshtein("", "") == 0.0
    assert normalised_levenshtein("abc", "") == 1.0
