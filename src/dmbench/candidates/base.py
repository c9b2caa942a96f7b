"""What every candidate is: a named thing that turns one record's text into PlantUML.

Per-record failures are data (``failed`` and ``error``), never exceptions that stop a run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from dmbench.core.registry import Registry


@dataclass(frozen=True, slots=True)
class Record:
    """One benchmark record as a candidate sees it: its id and its text, nothing of the reference."""
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class CandidateOutput:
    """What a candidate made of one record; a failure is data (``failed``, ``error``), not an
    exception, so one bad record never stops a run."""
    generated: str
    failed: bool
    error: str | None = None
    raw: str = ""
    elapsed_seconds: float = 0.0
    calls: tuple[Mapping[str, Any], ...] = ()
    """One entry per LLM call (model, digest, options, durations, raw reply); empty for no-LLM."""


class Candidate(Protocol):
    """What the run store asks of any candidate, built in, plug-in, command or callable: an output
    per record and the settings that rebuild it."""
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


@dataclass(frozen=True, slots=True)
class OptionDoc:
    """How the command line offers one of a candidate's options: its help text and value type
    (the spec holds it, so a new candidate's options need no change to the command line)."""

    help: str
    kind: type | None = None
    """``int``, ``float``, ``str`` or ``bool`` (a ``--NAME/--no-NAME`` flag); None: the type
    of the option's default."""
    minimum: float | None = None
    minimum_open: bool = False


@dataclass(frozen=True, slots=True)
class CandidateSpec:
    """Everything dmbench knows of a candidate before building it, defined in its own module.

    ``options`` are the generation settings it takes (constructor keywords) with upstream's
    defaults; the command line offers them, the API checks against them, the published runs'
    effective settings are read from them. ``order`` is its place in the paper's tables."""

    name: str
    order: int
    upstream_name: str
    uses_llm: bool
    description: str
    factory: CandidateFactory
    prompt_files: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    origin: Mapping[str, Any] | None = None
    """Where a candidate not built into dmbench comes from (a plug-in's distribution and
    version); recorded in its runs' provenance."""
    option_docs: Mapping[str, OptionDoc] = field(default_factory=dict)
    """How the command line offers ``options``; an option without one gets a plain help."""

    def option_doc(self, option: str) -> OptionDoc:
        """The command line's help and type of ``option``."""
        return self.option_docs.get(option) or OptionDoc(f"{self.name}'s option {option}")

    def upstream_settings(self, model: str | None) -> dict[str, Any]:
        """The settings a run with upstream's options records (the published runs' effective
        settings, spec B.1, C.1): the factory's ``settings_with`` of the spec's options when it
        has one (the LLM candidates), else only whether it uses an LLM."""
        settings_with = getattr(self.factory, "settings_with", None)
        if settings_with is None:
            return {"uses_llm": self.uses_llm}
        return dict(settings_with(model, self.options))

    def provenance(self) -> dict[str, Any] | None:
        """What a run records of where this candidate came from; None for a built-in one."""
        if self.origin is not None:
            return dict(self.origin)
        module = getattr(self.factory, "__module__", "") or ""
        if module.startswith("dmbench."):
            return None
        return {"kind": "python", "factory": f"{module}.{self.factory.__qualname__}"}


CANDIDATE_REGISTRY: Registry[CandidateSpec] = Registry("candidate", safe_names=True)
"""Every known candidate: the built-in ones, plug-ins and any registered at run time."""


def register(spec: CandidateSpec) -> CandidateSpec:
    """Make ``spec`` known by its name; a name taken or unsafe in a file name is refused."""
    return CANDIDATE_REGISTRY.add(spec.name, spec)


def candidate_specs() -> tuple[CandidateSpec, ...]:
    """Every registered candidate, in the order the paper's tables list them."""
    return tuple(sorted(CANDIDATE_REGISTRY.values(), key=lambda spec: spec.order))


def upstream_names() -> dict[str, str]:
    """Upstream's name of each candidate -> dmbench's, as the specs say (the one place both
    names meet)."""
    return {spec.upstream_name: spec.name for spec in candidate_specs()}


def candidate_spec(name: str) -> CandidateSpec:
    """The registered spec of ``name``; an unknown name is an error that lists the choices."""
    return CANDIDATE_REGISTRY[name]


def candidate_provenance(name: str) -> dict[str, Any] | None:
    """Where registered candidate ``name`` came from, for its runs; None when built in."""
    spec = CANDIDATE_REGISTRY.get(name)
    return None if spec is None else spec.provenance()


def get_candidate(name: str, **settings: Any) -> Candidate:
    """Build a registered candidate by name (``dmbench.candidates`` registers them all)."""
    return candidate_spec(name).factory(**settings)
