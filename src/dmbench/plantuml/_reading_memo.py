"""A diagram's reading, memoised by the sha256 of its text for the life of the process.

Reading costs more than most comparisons, and the main job reads each text many times: the
metrics (a run's pairs share their reference, and four metrics read the compat way), the errata's
attribute counts and the report. So each distinct text is read once per reading. A parsed
diagram is a frozen value, so sharing it is safe; a text that fails to parse is not remembered
and raises again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from dmbench.plantuml.model import Diagram

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
