"""Readings memoised for the life of the process: a diagram's by its text's sha256, a line's
by the line.

Reading costs more than most comparisons, and the main job reads each text many times: the
metrics (a run's pairs share their reference, and four metrics read the compat way), the errata's
attribute counts and the report. So each distinct text is read once per reading. A parsed
diagram is a frozen value, so sharing it is safe; a text that fails to parse is not remembered
and raises again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from dmbench.plantuml.model import Diagram

T = TypeVar("T")

#: Readings kept per reader: a package and the metric study hold about 2,000 distinct texts;
#: the oldest reading is dropped beyond this.
CAPACITY = 8192


def memoised(read: Callable[[str], Diagram]) -> Callable[[str], Diagram]:
    """``read`` with a memo keyed by the text's sha256."""
    readings: dict[str, Diagram] = {}

    def memoised_read(text: str) -> Diagram:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        diagram = readings.get(key)
        if diagram is None:
            diagram = read(text)
            if len(readings) >= CAPACITY:
                del readings[next(iter(readings))]
            readings[key] = diagram
        return diagram

    memoised_read.__doc__ = read.__doc__
    return memoised_read


#: Lines up to this length are memoised by both readings: they recur across the diagrams of a
#: record and a study (the published outputs' 28k lines are 11k distinct ones); longer lines
#: rarely do, and the bound keeps each memo small whatever the input.
SHORT_LINE = 128
#: Lines kept per memo; the least recently used goes beyond this.
MEMOISED_LINES = 1 << 14


def memoised_short_lines(read: Callable[[str], T]) -> Callable[[str], T]:
    """``read`` of one line, memoised for lines of at most ``SHORT_LINE`` characters. What it
    returns is shared by every diagram holding the line, so it must not be changed."""
    remembered = lru_cache(maxsize=MEMOISED_LINES)(read)

    def read_line(line: str) -> T:
        return remembered(line) if len(line) <= SHORT_LINE else read(line)

    return read_line
