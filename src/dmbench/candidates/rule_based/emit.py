"""PlantUML from the extracted relations: upstream's raw layout (A.9), then its clean-up (A.10).

Both are reproduced byte for byte, including the trailing space of inheritance lines and the
three empty lines between class declarations and relationships, because the published outputs
are compared with ours line by line.
"""

from __future__ import annotations

import logging
import random
import re
import string
from collections.abc import Callable

from dmbench.candidates.rule_based.pipeline import Relations
from dmbench.plantuml import BLOCKLIST

log = logging.getLogger(__name__)

Cardinality = Callable[[str], str]

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_CARD_REL = re.compile(
    rf'^(?P<left>{_IDENT})\s+"[^"]*"\s+(?:--|\*--|o--|<\\?--|-->)\s+"[^"]*"\s+(?P<right>{_IDENT})'
)
_INHERIT = re.compile(rf"^(?P<left>{_IDENT})\s+<\|--\s+(?P<right>{_IDENT})\s*$")
_DECLARED = re.compile(rf"^\s*(?:abstract\s+)?class\s+({_IDENT})\s*\{{", re.MULTILINE)
_ARROWS = ("--", "*--", "o--", "<--", "<\\--", "-->", "<|--")
_START = re.compile("@startuml", re.IGNORECASE)
_END = re.compile("@enduml", re.IGNORECASE)


def _fallback_line(seed: str) -> str:
    """Upstream's two random names for an empty result; seeded here so reruns agree.

    The line never survives post-processing (it has no cardinalities); only ``raw`` shows it.
    """
    rng = random.Random(seed)
    left, right = ("".join(rng.choices(string.ascii_lowercase, k=8)).capitalize() for _ in "ab")
    return f"{left} -- {right}\n"


def raw_plantuml(relations: Relations, card: Cardinality, seed: str = "") -> str:
    """A.9: one line per relation, grouped by extractor; cardinalities from ``card``."""
    raw = "@startuml\n\n"
    if relations.is_empty():
        raw += _fallback_line(seed)
    for left, phrase, right in relations.associations:
        raw += f'{left} "{card(left)}" -- "{card(right)}" {right} : {phrase}\n'
    for left, _, right in relations.aggregations:
        raw += f'{left} "{card(left)}" o-- "{card(right)}" {right}\n'
    for whole, _, part in relations.compositions + relations.includes:
        raw += f'{whole} "{card(whole)}" *-- "{card(part)}" {part}\n'
    for parent, child in relations.generalisations:
        raw += f"{parent} <|-- {child} \n"
    return raw + "\n@enduml\n"


def _endpoints(match: re.Match[str]) -> tuple[str, str]:
    return match["left"], match["right"]


def _keep(line: str) -> bool:
    stripped = line.strip()
    if (
        not stripped
        or stripped.startswith(("@", "class ", "abstract class "))
        or not any(arrow in stripped for arrow in _ARROWS)
    ):
        return True
    match = _CARD_REL.match(stripped) or _INHERIT.match(stripped)
    if match is not None and not any(end.lower() in BLOCKLIST for end in _endpoints(match)):
        return True
    log.info("rule_based: dropping malformed line: %r", line)
    return False


def postprocess(text: str) -> str:
    """A.10: drop malformed relationship lines, declare every class a cardinality line uses."""
    start, end = _START.search(text), _END.search(text)
    if not text or start is None or end is None:
        return text
    head, body, tail = text[: start.end()], text[start.end() : end.start()], text[end.start() :]
    lines = [line for line in body.splitlines() if _keep(line)]
    body = "\n".join(lines)
    declared = set(_DECLARED.findall(body))
    referenced = {
        name
        for line in lines
        if (match := _CARD_REL.match(line.strip())) is not None
        for name in _endpoints(match)
    }
    missing = sorted(referenced - declared)
    if missing:
        body = "\n".join(f"class {name} {{ }}" for name in missing) + "\n\n" + body
    return head + "\n\n" + body.strip("\n") + "\n\n" + tail
