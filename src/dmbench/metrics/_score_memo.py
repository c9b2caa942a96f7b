"""One memo of scored pairs for the life of the process: (metric, reference, generated) -> result.

The main job scores the same pairs in several stages: verification and the score stage re-score
every run with metrik-4, the errata score the metric study's pairs, the report explains every
output. Every metric is a pure function of the two texts, so each distinct pair is computed
once per metric and process, whichever stage asks first. An error the metric raises for a pair
(an unreadable diagram, an invalid model) is a property of the pair and is remembered too; a
missing prerequisite (NLTK data) is not, and is never stored. Keys are the texts' sha256, so the
memo does not hold the texts themselves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar, cast

from dmbench.errors import MissingPrerequisiteError

#: Pairs kept per process; the oldest entry goes beyond this (the main job needs about 5,000).
CAPACITY = 1 << 16

T = TypeVar("T")

_entries: dict[tuple[str, str, str], object] = {}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def remembered(metric: str, reference: str, generated: str, compute: Callable[[], T]) -> T:
    """``compute()``'s result (or the error it raised) for this pair, computed once."""
    key = (metric, _digest(reference), _digest(generated))
    entry = _entries.get(key)
    if entry is None:
        try:
            entry = compute()
        except MissingPrerequisiteError:
            raise
        except Exception as exc:  # noqa: BLE001 - the metric's verdict on the pair, kept as one
            entry = exc
        if len(_entries) >= CAPACITY:
            del _entries[next(iter(_entries))]
        _entries[key] = entry
    if isinstance(entry, Exception):
        raise entry.with_traceback(None)
    return cast(T, entry)
