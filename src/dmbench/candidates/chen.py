"""``chen``: upstream's two-stage zero-shot candidate ``zenodo_zero_shot`` (spec B).

Stage 1 asks for the domain model in a small text DSL; stage 2 translates that text into
PlantUML; upstream's validator then repairs or rejects the diagram. Both replies are cut to
2000 characters as upstream did (``truncate=False`` is a recorded deviation).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dmbench.candidates.base import CandidateOutput, CandidateSpec, OptionDoc, Record, register
from dmbench.candidates.llm_options import LLM_OPTION_DOCS, TRUNCATE_DOC
from dmbench.llm.client import ChatError, check_option
from dmbench.llm.llm_candidate import UPSTREAM_OPTIONS, LLMCandidate, Outcome, extract_plantuml
from dmbench.plantuml import validate

NO_PUML = "zenodo_zero_shot_stage2_no_puml"
INVALID = "zenodo_zero_shot_invalid: "
#: Stage 2 (translation) samples at 0.0 upstream.
UPSTREAM_TRANSLATE_TEMPERATURE = 0.0


def stage1_user(task: str, text: str) -> str:
    """Upstream flattens the user turns [task, text] into one message with ``USER:`` labels."""
    return f"USER:\n{task}\n\nUSER:\n{text}"


class Chen(LLMCandidate):
    """The two-stage zero-shot candidate (upstream ``zenodo_zero_shot``): the text to a small DSL,
    then the DSL to PlantUML with the parser's grammar in the prompt."""
    name = "chen"
    upstream = "zenodo_zero_shot"
    prompt_names = ("chen_system.txt", "chen_task.txt", "chen_translate.txt")

    def __init__(
        self,
        model: str,
        temperature_translate: float | None = UPSTREAM_TRANSLATE_TEMPERATURE,
        prompts: Path | None = None,
        **settings: Any,
    ) -> None:
        check_option("temperature", temperature_translate, "--temperature-translate")
        super().__init__(model, prompts, **settings)
        self.temperature_translate = temperature_translate

    @classmethod
    def settings_with(cls, model: str | None, values: Mapping[str, Any]) -> dict[str, Any]:
        return {
            **super().settings_with(model, values),
            "temperature_translate": values["temperature_translate"],
            "enable_translation": True,
        }

    def _outcome(self, text: str, calls: list[dict[str, Any]]) -> Outcome:
        user = stage1_user(self.prompts["chen_task.txt"], text)
        try:
            extracted = self.ask(self.prompts["chen_system.txt"], user, self.temperature)
        except ChatError as exc:
            calls.append({**exc.call, "stage": "extract"})
            return "", True, f"exception: {exc}", ""
        calls.append({**extracted.call, "stage": "extract"})
        dsl = self.cut(extracted.text)
        try:
            translated = self.ask(
                self.prompts["chen_translate.txt"], dsl, self.temperature_translate
            )
        except ChatError as exc:
            calls.append({**exc.call, "stage": "translate"})
            return "", True, f"exception: {exc}", ""
        calls.append({**translated.call, "stage": "translate"})
        out = self.cut(translated.text)
        block = extract_plantuml(out)
        if block is None:
            return "", True, NO_PUML, out
        result = validate(block)
        if result.ok and result.repaired:
            return result.repaired, False, None, out
        return result.repaired or "", True, INVALID + " | ".join(result.errors)[:500], out

    def generate(self, record: Record) -> CandidateOutput:
        return CandidateOutput(*self.run(record.text))


SPEC = register(
    CandidateSpec(
        name=Chen.name,
        order=2,
        upstream_name=Chen.upstream,
        uses_llm=True,
        description="two-stage zero-shot after Chen et al. 2023",
        factory=Chen,
        prompt_files=Chen.prompt_names,
        options={
            **UPSTREAM_OPTIONS,
            "temperature_translate": UPSTREAM_TRANSLATE_TEMPERATURE,
            "truncate": True,
        },
        option_docs={
            **LLM_OPTION_DOCS,
            "temperature_translate": OptionDoc("chen's stage-2 (translation) temperature", float),
            "truncate": TRUNCATE_DOC,
        },
    )
)
