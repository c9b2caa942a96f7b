"""The candidate an inspect task runs, built from its spec, and the settings a run stores.

Shared by the task (which builds the candidate from ``-T`` arguments) and by ``import-inspect``
(which rebuilds it from the settings a log claims, to check them against the spec); no
inspect_ai import, so the import path checks a log before it needs more than the log reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dmbench.candidates import candidate_spec, candidate_specs
from dmbench.errors import InputError
from dmbench.llm.llm_candidate import LLMCandidate

NOT_SENT = {"timeout": "timeout_seconds", "think": "think", "repeat_penalty": "repeat_penalty"}
"""The candidates' options the inspect path does not send (inspect has its own timeouts), by
their name in a run's settings, where they are stored as unset."""

MODEL_PLACEHOLDER = "inspect"
"""The candidate's model until the log says which inspect model ran (set on import)."""


def sent_options(candidate: str) -> list[str]:
    """The options of ``candidate``'s spec the inspect task takes and sends."""
    return [option for option in candidate_spec(candidate).options if option not in NOT_SENT]


def build_candidate(
    candidate: str, package: Path, settings: dict[str, Any], variant: Path | None = None
) -> LLMCandidate:
    """The LLM candidate ``dmbench generate`` would build from its spec, with the package's
    prompt files or the prompt variant in folder ``variant`` (``generate --prompts``);
    ``settings`` may be any of the spec's options the inspect path sends."""
    spec = candidate_spec(candidate)
    if not spec.uses_llm:
        llm = [known.name for known in candidate_specs() if known.uses_llm]
        raise InputError(f"candidate {candidate!r} is not an LLM candidate; choose one of {llm}")
    sent = sent_options(candidate)
    unknown = sorted(set(settings) - set(sent))
    if unknown:
        raise InputError(
            f"task argument(s) {', '.join(unknown)} are not settings of {candidate} in the "
            "inspect task",
            hint=f"known: {', '.join(sent)}",
        )
    if variant is not None and not spec.prompt_files:
        raise InputError(f"-T prompts is for a candidate with prompt files; {candidate} has none")
    built = spec.factory(
        model=MODEL_PLACEHOLDER, prompts=package, prompt_variant=variant, **settings
    )
    assert isinstance(built, LLMCandidate)
    return built


def run_settings(candidate: LLMCandidate) -> dict[str, Any]:
    """The run's settings as ``dmbench generate`` stores them, less what is not sent."""
    return {**candidate.settings(), **dict.fromkeys(NOT_SENT.values())}
