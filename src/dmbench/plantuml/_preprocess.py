"""PlantUML's preprocessor, as far as class diagrams written by people use it: ``!define`` and
variables set to a literal (``!$name = "text"``).

A macro or variable replaces its name, as a word, on the lines below it; the lines keep their
numbers (a ``!define`` line becomes blank), so every line and column the reading reports is the
source's.
"""

from __future__ import annotations

import re
from functools import partial

from dmbench.errors import ParseError

_DEFINE = re.compile(r"^\s*!define\s+(\w+)(?:\(([^)]*)\))?(?:\s+(.*?))?\s*$")
_VARIABLE = re.compile(r'^\s*!(?:\$(\w+))\s*(\?)?=\s*(?:"([^"]*)"|\'([^\']*)\'|(-?\d+))\s*$')
_PREPROCESSOR = re.compile(
    r"^\s*!(?:definelong|undef|include|import|procedure|function|unquoted|if|ifdef|ifndef"
    r"|while|foreach|\$)", re.I)


def expand_macros(lines: list[str], first_line: int) -> list[str]:
    """PlantUML's preprocessor as far as class diagrams use it: ``!define NAME text`` and
    ``!define NAME(a, b) text`` replace the name, as a word, on the lines below, and so does
    ``$name`` after ``!$name = "text"`` (or a number; ``?=`` sets it only once). Its other
    directives (``!include``, ``!if``, expressions, procedures) are refused: what they make
    is not in the text."""
    macros: list[tuple[re.Pattern[str], list[str], str]] = []
    variables: dict[str, str] = {}
    out = []
    for i, line in enumerate(lines):
        if variable := _VARIABLE.match(line):
            name, only_once, *values = variable.groups()
            if not (only_once and name in variables):
                variables[name] = next(v for v in values if v is not None)
            out.append("")
            continue
        if defined := _DEFINE.match(line):
            name, params, text = defined.groups()
            pattern = re.compile(rf"\b{name}\b" + (r"\(([^()]*)\)" if params is not None else ""))
            arguments = [a.strip() for a in params.split(",")] if params else []
            macros.append((pattern, arguments, text or ""))
            out.append("")
            continue
        if _PREPROCESSOR.match(line):
            reason = "a preprocessor directive dmbench does not expand (only !define and !$name = literal)"
            raise ParseError(f"line {first_line + i}: {reason}", line=first_line + i,
                             column=1, line_text=line, reason=reason)
        for pattern, arguments, text in macros:
            line = pattern.sub(partial(_expanded, arguments, text), line)
        for name, value in variables.items():
            line = re.sub(rf"\${name}\b", partial(_literal, value), line)
        out.append(line)
    return out


def _expanded(arguments: list[str], text: str, found: re.Match[str]) -> str:
    """A macro's text for one use, each argument replaced by its value, taken as written."""
    if not arguments:
        return text
    values = [v.strip() for v in found.group(1).split(",")]
    for argument, value in zip(arguments, values):
        text = re.sub(rf"\b{re.escape(argument)}\b", partial(_literal, value), text)
    return text


def _literal(value: str, _found: re.Match[str]) -> str:
    return value
