"""PlantUML class diagrams: two readings of one language, an emitter and upstream's validator.

``parse(text, "compat")`` reads text exactly as metrik-4 v1.0.0's strict parser does;
``parse(text, "standard")`` reads it as PlantUML means it. Both return the same ``Diagram`` model.
"""

from __future__ import annotations

from collections.abc import Callable

from dmbench.core.registry import Registry
from dmbench.errors import ParseError
from dmbench.plantuml._block import find_block
from dmbench.plantuml._compat import parse_compat
from dmbench.plantuml._emit import emit
from dmbench.plantuml._reading_memo import memoised
from dmbench.plantuml._reference import grammar_reference
from dmbench.plantuml._standard import parse_standard
from dmbench.plantuml._validator import BLOCKLIST, ValidationResult, validate
from dmbench.plantuml.model import Attribute, Class, Diagram, Enum, Note, Relationship

READERS: Registry[Callable[[str], Diagram]] = Registry("reading")
"""Each distinct text is read once per reading and process (see ``_reading_memo``)."""
READERS.add("compat", memoised(parse_compat))
READERS.add("standard", memoised(parse_standard))
READINGS = tuple(READERS)

CR_ONLY_LINE_ENDINGS = "cr_only_line_endings"
"""Named when a text's lines end in bare CR: both readings (compat as upstream) see one line."""


def cr_only_line_endings(text: str) -> bool:
    """Whether ``text`` separates lines by CR alone, so it reads as an (empty) one-line model."""
    return "\r" in text and "\n" not in text


#: The reading ``parse`` uses when none is named, here, in ``dmbench.parse`` and ``dmbench parse``:
#: PlantUML as it means it. Scoring names its reading itself (metrik-4 reads ``compat``).
DEFAULT_READING = "standard"


def parse(text: str, reading: str = DEFAULT_READING) -> Diagram:
    """Read PlantUML ``text`` into a ``Diagram``; raise ``ParseError`` when it cannot be read."""
    return READERS[reading](text)


__all__ = [
    "BLOCKLIST",
    "CR_ONLY_LINE_ENDINGS",
    "DEFAULT_READING",
    "READINGS",
    "Attribute",
    "Class",
    "Diagram",
    "Enum",
    "Note",
    "ParseError",
    "Relationship",
    "cr_only_line_endings",
    "ValidationResult",
    "emit",
    "find_block",
    "grammar_reference",
    "memoised",
    "parse",
    "parse_compat",
    "validate",
]
