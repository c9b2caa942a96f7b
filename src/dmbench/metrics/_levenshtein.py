"""Unit-cost Levenshtein distance over code points, the name distance of metrik-1 and metrik-2.

RapidFuzz computes it (upstream's python-Levenshtein 0.27.5 is a wrapper around RapidFuzz 3.14):
the distance is an integer, so any correct implementation agrees, and RapidFuzz's is some fifty
times faster than a Python loop, which dominated metrik-2's run time.
"""

from __future__ import annotations

from rapidfuzz.distance import Levenshtein

levenshtein = Levenshtein.distance

#: The distance over the longer length: 0.0 for equal strings, 1.0 for nothing in common.
#: RapidFuzz divides the integer distance by the longer length in double precision, as
#: ``levenshtein(a, b) / max(len(a), len(b))`` does (``tests/metrics/test_levenshtein.py``).
normalised_levenshtein = Levenshtein.normalized_distance
