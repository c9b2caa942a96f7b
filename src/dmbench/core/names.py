"""Names that enter the package from outside (model names, run names): checked where they enter.

A model name lands in run ids, file names, tables, the report and the deposit's description;
one that holds only the characters model names use (letters, digits and ``. _ : / @ -``, as in
``glm-5.1:cloud`` or ``openai/gpt-4o``) and is at most ``MAX_NAME_LENGTH`` long can break none
of them. Anything else is refused with one line that shows the name escaped and cut short.
"""

from __future__ import annotations

import re

from dmbench.core.escape import one_line
from dmbench.errors import InputError

MAX_NAME_LENGTH = 200
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@-]*")
_SHOWN = 60


def shown(text: object, limit: int = _SHOWN) -> str:
    """``text`` for an error message: its repr (one line), cut to about ``limit`` characters."""
    if not isinstance(text, str):
        return one_line(repr(text))[:limit]
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text)} chars)"


def check_name(name: object, what: str = "model name") -> str:
    """``name`` when it is a safe name; otherwise an ``InputError`` in one short line."""
    if not isinstance(name, str):
        raise InputError(f"{what} {shown(name)} is not a string")
    if len(name) > MAX_NAME_LENGTH:
        raise InputError(f"{what} {shown(name)} is longer than {MAX_NAME_LENGTH} characters")
    if not SAFE_NAME.fullmatch(name):
        raise InputError(
            f"{what} {shown(name)} holds characters outside letters, digits and . _ : / @ -",
            hint="model names look like glm-5.1:cloud or openai/gpt-4o",
        )
    return name
