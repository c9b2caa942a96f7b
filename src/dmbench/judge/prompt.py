"""What the judge reads: the text, a caption and two diagrams, blind and in one canonical form.

Blinding: the two diagrams are "Diagram A" and "Diagram B"; nothing says which one an expert
drew or that the other came out of a program. Style would still tell them apart (references
often have untyped attributes and no comments, LLM outputs carry ``' Enumerations`` headers),
so both pass through the same canonical form: read with the standard reading and written by
dmbench's emitter. A diagram that does not parse is shown verbatim, and that is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from dmbench.core.hashing import sha256_text
from dmbench.judge.criteria import Criteria
from dmbench.plantuml import ParseError, emit, parse

PROMPT_VERSION = "1"

SYSTEM = (
    "You assess UML class diagrams written in PlantUML. You compare two diagrams of the same "
    "domain against its description and score both by the same standard, fairly and "
    "strictly. The order in which the diagrams are shown says nothing about their quality."
)

USER = """Domain description:
<<<
{text}
>>>

Caption: {caption}

Diagram A:
<<<
{diagram_a}
>>>

Diagram B:
<<<
{diagram_b}
>>>

Score each diagram on each criterion below with an integer from 1 (very poor) to 10 \
(excellent), judging how well it models the domain description.

{criteria}

Answer with JSON only, in this shape, with every criterion id:
{{"scores": {{"<criterion id>": {{"A": <1-10>, "B": <1-10>, "reason": "<one sentence>"}}, ...}}}}"""

FORBIDDEN = (
    "reference",
    "generated",
    "generator",
    "ground truth",
    "gold",
    "human",
    "expert",
    "model-generated",
    "machine",
    "automatic",
    "llm",
    "baseline",
    "original",
    "candidate",
    "correct answer",
    "solution",
    "produced by",
    "written by",
    "created by",
)
"""Words that would tell the judge which diagram is which; none may be in the template."""


@dataclass(frozen=True, slots=True)
class Canonical:
    text: str
    parsed: bool
    error: str | None


@lru_cache(maxsize=1024)
def canonical_form(plantuml: str) -> Canonical:
    """The diagram as dmbench's emitter writes its standard reading; verbatim if unreadable.

    Kept per text: a record's reference is shown with each of its outputs, in both orders."""
    try:
        return Canonical(emit(parse(plantuml, "standard")).strip(), True, None)
    except ParseError as exc:
        return Canonical(plantuml.strip(), False, str(exc))


def criteria_block(criteria: Criteria) -> str:
    return "\n".join(
        f"- {c.id} ({c.name}): {c.description}" for c in criteria.criteria
    )


def template_sha256() -> str:
    """The hash of what every judge call shares: system text, user template, version."""
    return sha256_text("\x00".join((PROMPT_VERSION, SYSTEM, USER)))


def user_message(text: str, caption: str, diagram_a: str, diagram_b: str, criteria: Criteria) -> str:
    return USER.format(
        text=text.strip(),
        caption=caption,
        diagram_a=diagram_a,
        diagram_b=diagram_b,
        criteria=criteria_block(criteria),
    )


def reply_schema(criteria: Criteria) -> dict[str, Any]:
    """The ``format`` sent to Ollama, and the schema every reply is validated against."""
    entry = {
        "type": "object",
        "properties": {
            "A": {"type": "integer", "minimum": 1, "maximum": 10},
            "B": {"type": "integer", "minimum": 1, "maximum": 10},
            "reason": {"type": "string"},
        },
        "required": ["A", "B", "reason"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "scores": {
                "type": "object",
                "properties": {cid: entry for cid in criteria.ids},
                "required": list(criteria.ids),
                "additionalProperties": False,
            }
        },
        "required": ["scores"],
        "additionalProperties": False,
    }
