"""A diagram's reading, memoised by the sha256 of its text for the life of the process.

Each metric reads PlantUML its own way (metrik-1 keeps ``{static}`` attributes, the others use
the compat reading), and reading costs more than most comparisons. A run's pairs share their
references and a re-scoring meets every generation again, so each distinct text is read once
per reading. A parsed diagram is a frozen value, so sharing it is safe; a text that fails to
parse is not remembered and raises again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from dmbench.plantuml import Diagram, parse_compat, parse_standard

#: Readings kept per reader: the published runs and the metric study hold about 900 distinct
#: diagrams; the oldest reading is dropped beyond this.
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


#: The two readings of dmbench's parser, shared by every metric that uses one: metrik-4 and
#: metrik-2, -3 and -5 all read the compat way, so the main job reads each text once for them.
READINGS: dict[str, Callable[[str], Diagram]] = {
    "compat": memoised(parse_compat),
    "standard": memoised(parse_standard),
}
