"""What dmbench refuses to hand PlantUML, whoever wrote the diagram (an LLM, an archive).

PlantUML's preprocessor can read the environment (``%getenv``), files and URLs (``!include``,
``!import``, ``!theme ... from``, ``%load_json``, ``<img:...>``) and a drawing can link anywhere
(``[[http://...]]``). A report publishes what is drawn, so a diagram using any of these is a
failure of that diagram, said in words, and is never drawn; the JVM also runs with an empty
environment, so nothing would leak even past these checks.

The checks read the text PlantUML's preprocessor reads: a line ending in ``\\`` continues on
the next, so ``%get\\`` + ``env("java.home")`` is a call of ``%getenv`` and is refused like one.
A drawing that still shows an absolute path of this machine (home, the JVM's or the jar's
folder, the working, temporary or cache folder) that its source did not hold is not kept.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

MAX_SOURCE_BYTES = 256 * 1024
"""Larger than any reference or output by two orders of magnitude."""

_PREPROCESSOR_CALL = re.compile(r"%[A-Za-z_]\w*\s*\(")
_DIRECTIVE = re.compile(
    r"^[ \t]*!(?P<name>include\w*|import|theme[^\n]*\bfrom\b)", re.MULTILINE | re.IGNORECASE
)
_LINK = re.compile(r"\[\[(?!\s*#)")
_IMAGE = re.compile(r"<\s*img\b", re.IGNORECASE)
_START = re.compile(r"^[ \t]*@start(?P<type>\w+)", re.MULTILINE)
_CONTINUATION = re.compile(r"\\[ \t]*\r?\n")
_CONTINUATION_INDENT = re.compile(r"\\[ \t]*\r?\n[ \t]*")


def preprocessed(source: str) -> tuple[str, ...]:
    """``source`` as the preprocessor may read it: as written, and with every ``\\`` line
    continuation joined (keeping or dropping the next line's indent)."""
    return (source, _CONTINUATION.sub("", source), _CONTINUATION_INDENT.sub("", source))


def refusal(source: str) -> str | None:
    """Why dmbench does not draw ``source``, or None when it may go to PlantUML."""
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        return f"larger than {MAX_SOURCE_BYTES // 1024} KiB"
    for text in preprocessed(source):
        if reason := _refusal(text):
            return reason
    return None


def _refusal(text: str) -> str | None:
    start = _START.search(text)
    if start is not None and start["type"].lower() != "uml":
        return f"a @start{start['type']} diagram, not a class diagram"
    if match := _PREPROCESSOR_CALL.search(text):
        return f"calls the preprocessor function {match.group(0).rstrip('( ')}, which could read the environment"
    if match := _DIRECTIVE.search(text):
        return f"uses !{match['name'].split()[0]}, which reads files or URLs"
    if _LINK.search(text):
        return "links outside the diagram ([[...]]), which the report does not publish"
    if _IMAGE.search(text):
        return "embeds an image (<img ...>), which reads files or URLs"
    return None


def machine_paths(java: str, jar: Path, cache_dir: Path) -> tuple[str, ...]:
    """The absolute paths of this machine a drawing must not show (of two parts or more, so
    that ``/tmp`` or ``/usr`` in a diagram's own text is no alarm)."""
    found = {
        Path.home(), Path.cwd(), Path(tempfile.gettempdir()), Path(sys.prefix), jar.parent,
        Path(os.path.realpath(java)).parent.parent, Path(cache_dir).resolve(),
    }  # fmt: skip
    found |= {path.resolve() for path in found}
    return tuple(sorted({str(p) for p in found if len(p.parts) > 2}, key=len, reverse=True))


def leaked_path(svg: bytes, source: str, paths: Iterable[str]) -> str | None:
    """Why a drawing of ``source`` is not kept: it shows one of ``paths`` the source lacks."""
    text = svg.decode("utf-8", "replace")
    for path in paths:
        if path in text and path not in source:
            return "shows an absolute path of this machine, which the report does not publish"
    return None
