"""Work measured as Python lines executed: a count no machine load or CPU cache can change.

Used by the linear-work property test and by ``benchmarks/bench_scaling.py --work``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def python_lines(action: Callable[[], object]) -> int:
    """How many Python lines ``action`` executes (a regular expression's own steps are C)."""
    count = 0

    def trace(frame: object, event: str, arg: object) -> Callable[..., object]:
        nonlocal count
        count += event == "line"
        return trace

    sys.settrace(trace)
    try:
        action()
    finally:
        sys.settrace(None)
    return count
