"""The least change that makes PlantUML accept a diagram it rejects, with its name.

The published outputs fail PlantUML on a few habits of writing (an empty multiplicity ``""``,
above all); the benchmark's readings accept them, so the report draws what they mean rather
than an error. A repair only touches what PlantUML names: the empty multiplicities everywhere
(they mean nothing), the others only on the line PlantUML rejected.
"""

from __future__ import annotations

import re

EMPTY_MULTIPLICITY = 'empty multiplicity "" dropped'
GLUED_MULTIPLICITY = "space put between an arrow and its multiplicity"
SLASH_COMMENT = "// comment written as a ' comment"
INLINE_BODY = "one-line body written over several lines"

_EMPTY = re.compile(r'[ \t]*""(?=[ \t])')
_GLUED_BEFORE = re.compile(r'("[^"\n]*")(?=(?:o|\*|<\|?|\+|#)?[-.]+)')
_GLUED_AFTER = re.compile(r'((?:-|\.)(?:o|\*|\|?>|\+|#)?)(?="[^"\n]*"[ \t]+\S)')
_SLASH = re.compile(r"^([ \t]*)//")
_INLINE = re.compile(r"^([ \t]*)([^{}\n]*\S)[ \t]*\{([^{}\n]*\S[^{}\n]*)\}[ \t]*$")


def repair(source: str, line: int | None) -> tuple[str, tuple[str, ...]]:
    """``source`` with the repairs that apply, and their names (empty when none does)."""
    applied = []
    repaired = _EMPTY.sub("", source)
    if repaired != source:
        applied.append(EMPTY_MULTIPLICITY)
    lines = repaired.split("\n")
    if line is not None and 0 < line <= len(lines):
        text = lines[line - 1]
        if _SLASH.match(text):
            lines[line - 1] = _SLASH.sub(r"\1'", text)
            applied.append(SLASH_COMMENT)
        elif inline := _INLINE.match(text):
            indent, head, members = inline.groups()
            lines[line - 1] = f"{indent}{head} {{\n{indent}  {members.strip()}\n{indent}}}"
            applied.append(INLINE_BODY)
        elif text.count('"') >= 2:
            spaced = _GLUED_AFTER.sub(r"\1 ", _GLUED_BEFORE.sub(r"\1 ", text))
            if spaced != text:
                lines[line - 1] = spaced
                applied.append(GLUED_MULTIPLICITY)
    return "\n".join(lines), tuple(applied)
