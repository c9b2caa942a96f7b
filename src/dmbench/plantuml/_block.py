"""Where the ``@startuml … @enduml`` block is, found in one pass over the text.

``re.search(r"@startuml.*?@enduml", re.S)`` gives the same span, but when no ``@enduml``
follows it retries the lazy scan from every later ``@startuml``: quadratic, 10 s for 100 KB of
``@startuml`` lines. Only the first ``@startuml`` can begin the first match (an ``@enduml``
after a later start is also after the first), so two forward searches find it.
"""

from __future__ import annotations

import re

_START = re.compile("@startuml")
_END = re.compile("@enduml")
_START_ANY_CASE = re.compile("@startuml", re.IGNORECASE)
_END_ANY_CASE = re.compile("@enduml", re.IGNORECASE)


def find_block(text: str, ignore_case: bool = False) -> tuple[int, int, int] | None:
    """(start of ``@startuml``, end of the marker, end of ``@enduml``) of the first block."""
    start_marker, end_marker = (_START_ANY_CASE, _END_ANY_CASE) if ignore_case else (_START, _END)
    start = start_marker.search(text)
    if start is None:
        return None
    end = end_marker.search(text, start.end())
    if end is None:
        return None
    return start.start(), start.end(), end.end()
