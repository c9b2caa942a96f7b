"""A plain-text description of the accepted language, generated from ``grammar.lark``.

Generated rather than written so the LLM prompt that quotes it cannot drift from the grammar.
"""

from __future__ import annotations

import re

from dmbench.plantuml._grammar import grammar_text

_SECTION = re.compile(r"^// --- (.+?) -+$")
_ALIAS = re.compile(r"\s*->\s*\w+\s*$")
_INTRO = (
    "PlantUML class diagrams accepted by dmbench (EBNF; rules in lower case, token patterns "
    "in upper case as regular expressions; \"x\"? optional, x* repeated, a | b alternatives). "
    "A diagram is wrapped in @startuml ... @enduml; a body opened with a line ending in \"{\" "
    "is closed by a line holding only \"}\"; a note without \":\" in its first line ends at a "
    "line \"end note\"; ' starts a comment line, /' ... '/ a comment block."
)


def grammar_reference() -> str:
    """The grammar's rules and tokens by section, with lark's internals left out."""
    out = [_INTRO, "", "line kinds:"]
    for raw in grammar_text().splitlines():
        line = raw.rstrip()
        if section := _SECTION.match(line):
            out += ["", f"{section.group(1)}:"]
        elif line.startswith("%") or line.startswith("_SEP") or line.startswith("//"):
            continue
        elif line.strip():
            line = _ALIAS.sub("", line).replace(".2:", ":").replace("_SEP", '("," | ";")')
            out.append("  " + line)
    out += ["", "whitespace between tokens is ignored; members are separated by \",\" or \";\"."]
    return "\n".join(out) + "\n"
