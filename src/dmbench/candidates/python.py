"""A Python function as a candidate: ``fn(text) -> PlantUML``, for a notebook or a quick try.

An exception or a result that is not a string is that record's failed output, never the end of
the run. The run records the function's module and name and the sha256 of its source, so that a
changed function makes another run id.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

from dmbench.candidates.base import CandidateOutput, Record
from dmbench.core.hashing import sha256_text
from dmbench.core.registry import check_safe_name


class CallableCandidate:
    """A Python function (text in, PlantUML out) entered as a candidate; its qualified name and
    source hash are the run's provenance."""
    def __init__(self, function: Callable[[str], str], name: str, workers: int = 1) -> None:
        self.name = check_safe_name("candidate", name)
        self.function = function
        self.workers = workers
        self.qualified = f"{function.__module__}.{getattr(function, '__qualname__', function)}"
        try:
            self.source_sha256: str | None = sha256_text(inspect.getsource(function))
        except (OSError, TypeError):  # defined at a prompt, or a builtin: no source to hash
            self.source_sha256 = None

    def describe(self) -> dict[str, Any]:
        facts = {"function": self.qualified, "source_sha256": self.source_sha256}
        return {
            "settings": {"uses_llm": False, "model": None, **facts},
            "provenance": {"candidate": {"kind": "python", **facts}},
        }

    def generate(self, record: Record) -> CandidateOutput:
        started = time.perf_counter()
        try:
            generated = self.function(record.text)
        except Exception as exc:  # the candidate's own failure: this record's, as data
            return _failed(f"{type(exc).__name__}: {exc}", started)
        if not isinstance(generated, str):
            return _failed(f"returned {type(generated).__name__}, not str", started)
        elapsed = round(time.perf_counter() - started, 3)
        return CandidateOutput(generated, False, None, "", elapsed)


def _failed(error: str, started: float) -> CandidateOutput:
    return CandidateOutput("", True, error[:500], "", round(time.perf_counter() - started, 3))
