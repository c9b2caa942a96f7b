"""What every candidate is: a named thing that turns one record's text into PlantUML.

Per-record failures are data (``failed`` and ``error``), never exceptions that stop a run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from dmbench.errors import UnknownNameError


@dataclass(frozen=True, slots=True)
class Record:
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class CandidateOutput:
    generated: str
    failed: bool
    error: str | None = None
    raw: str = ""
    elapsed_seconds: float = 0.0
    calls: tuple[Mapping[str, Any], ...] = ()
    """One entry per LLM call (model, digest, options, durations, raw reply); empty for no-LLM."""


class Candidate(Protocol):
    name: str

    def generate(self, record: Record) -> CandidateOutput: ...

    def describe(self) -> dict[str, Any]:
        """Settings and provenance a run records so that it can be rebuilt exactly."""
        ...


def generate_many(candidate: Candidate, records: Iterable[Record]) -> Iterator[CandidateOutput]:
    """Batch generation: a candidate may define ``generate_many`` to share work across records."""
    batch = getattr(candidate, "generate_many", None)
    if batch is not None:
        yield from batch(records)
    else:
        for record in records:
            yield candidate.generate(record)


CandidateFactory = Callable[..., Candidate]
_REGISTRY: dict[str, CandidateFactory] = {}


def register(name: str) -> Callable[[CandidateFactory], CandidateFactory]:
    def decorate(factory: CandidateFactory) -> CandidateFactory:
        _REGISTRY[name] = factory
        return factory

    return decorate


@dataclass(frozen=True, slots=True)
class CandidateInfo:
    name: str
    uses_llm: bool
    description: str = field(default="")


CANDIDATES: dict[str, CandidateInfo] = {
    "rule_based": CandidateInfo(
        "rule_based", False, "spaCy heuristics after Abdelnabi et al. 2020"
    ),
    "chen": CandidateInfo("chen", True, "two-stage zero-shot after Chen et al. 2023"),
    "calamo": CandidateInfo("calamo", True, "single-stage zero-shot after Calamo et al."),
}
"""In the order the paper's tables list them (``dmbench.sources.published`` maps upstream's)."""


def get_candidate(name: str, **settings: Any) -> Candidate:
    """Build a registered candidate by name (``dmbench.candidates`` registers them all)."""
    if name not in _REGISTRY:
        raise UnknownNameError(
            f"unknown candidate {name!r}; choose one of: {', '.join(sorted(_REGISTRY))}"
        )
    return _REGISTRY[name](**settings)
