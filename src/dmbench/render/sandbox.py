"""What dmbench refuses to hand PlantUML, whoever wrote the diagram (an LLM, an archive).

PlantUML's preprocessor can read the environment (``%getenv``), files and URLs (``!include``,
``!import``, ``!theme ... from``, ``%load_json``, ``<img:...>``) and a drawing can link anywhere
(``[[http://...]]``). A report publishes what is drawn, so a diagram using any of these is a
failure of that diagram, said in words, and is never drawn; the JVM also runs with an empty
environment, so nothing would leak even past these checks.
"""

from __future__ import annotations

import re

MAX_SOURCE_BYTES = 256 * 1024
"""Larger than any reference or output by two orders of magnitude."""

_PREPROCESSOR_CALL = re.compile(r"%[A-Za-z_]\w*\s*\(")
_DIRECTIVE = re.compile(
    r"^[ \t]*!(?P<name>include\w*|import|theme[^\n]*\bfrom\b)", re.MULTILINE | re.IGNORECASE
)
_LINK = re.compile(r"\[\[(?!\s*#)")
_IMAGE = re.compile(r"<\s*img\b", re.IGNORECASE)
_START = re.compile(r"^[ \t]*@start(?P<type>\w+)", re.MULTILINE)


def refusal(source: str) -> str | None:
    """Why dmbench does not draw ``source``, or None when it may go to PlantUML."""
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        return f"larger than {MAX_SOURCE_BYTES // 1024} KiB"
    start = _START.search(source)
    if start is not None and start["type"].lower() != "uml":
        return f"a @start{start['type']} diagram, not a class diagram"
    if match := _PREPROCESSOR_CALL.search(source):
        return f"calls the preprocessor function {match.group(0).rstrip('( ')}, which could read the environment"
    if match := _DIRECTIVE.search(source):
        return f"uses !{match['name'].split()[0]}, which reads files or URLs"
    if _LINK.search(source):
        return "links outside the diagram ([[...]]), which the report does not publish"
    if _IMAGE.search(source):
        return "embeds an image (<img ...>), which reads files or URLs"
    return None
