"""``calamo``: upstream's single-stage zero-shot candidate ``kaiser_zero_shot`` (spec C).

One call asks for the PlantUML diagram directly; upstream's validator then repairs or rejects
it. The diagram is taken from the whole reply; only the stored excerpt of a reply without a
diagram is cut to 2000 characters, always (it decides no output, so ``--no-truncate`` is chen's).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dmbench.candidates.base import CandidateOutput, CandidateSpec, Record, register
from dmbench.candidates.llm_options import LLM_OPTION_DOCS
from dmbench.llm.client import ChatError
from dmbench.llm.llm_candidate import CUT, UPSTREAM_OPTIONS, LLMCandidate, Outcome, extract_plantuml
from dmbench.plantuml import validate

USER_TEMPLATE = "Transform into plant uml this specification text: {nlt}"
NO_PLANTUML = "kaiser_zero_shot_no_plantuml"
INVALID = "plantuml_validator: "


def user_message(text: str) -> str:
    """Plain replacement, so braces in the text are safe (upstream does the same)."""
    return USER_TEMPLATE.replace("{nlt}", text)


class Calamo(LLMCandidate):
    """The single-stage zero-shot candidate (upstream ``kaiser_zero_shot``): one call, PlantUML
    straight from the text."""
    name = "calamo"
    upstream = "kaiser_zero_shot"

    prompt_names = ("calamo_system.txt",)

    def __init__(self, model: str, prompts: Path | None = None, **settings: Any) -> None:
        for unused in ("temperature_translate", "truncate"):  # upstream ignores such settings
            settings.pop(unused, None)
        super().__init__(model, prompts, **settings)

    @classmethod
    def settings_with(cls, model: str | None, values: Mapping[str, Any]) -> dict[str, Any]:
        """No reply is cut before extraction, so truncation is not a setting of calamo."""
        return {**super().settings_with(model, values), "truncate": None}

    def _outcome(self, text: str, calls: list[dict[str, Any]]) -> Outcome:
        system = self.prompts["calamo_system.txt"]
        try:
            reply = self.ask(system, user_message(text), self.temperature)
        except ChatError as exc:
            calls.append(exc.call)
            return "", True, f"exception: {exc}", ""
        calls.append(reply.call)
        block = extract_plantuml(reply.text)
        if block is None:
            return "", True, NO_PLANTUML, reply.text[:CUT]
        result = validate(block)
        if result.ok and result.repaired:
            return result.repaired, False, None, reply.text
        return result.repaired or "", True, INVALID + " | ".join(result.errors)[:500], reply.text

    def generate(self, record: Record) -> CandidateOutput:
        return CandidateOutput(*self.run(record.text))


SPEC = register(
    CandidateSpec(
        name=Calamo.name,
        order=3,
        upstream_name=Calamo.upstream,
        uses_llm=True,
        description="single-stage zero-shot after Calamo et al.",
        factory=Calamo,
        prompt_files=Calamo.prompt_names,
        options=dict(UPSTREAM_OPTIONS),
        option_docs=LLM_OPTION_DOCS,
    )
)
