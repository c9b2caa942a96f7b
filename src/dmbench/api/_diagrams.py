"""The PlantUML verbs: light to import, so ``dmbench parse`` starts without the package API."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dmbench.core.inputs import json_objects, read_text
from dmbench.errors import ParseError
from dmbench.plantuml import CR_ONLY_LINE_ENDINGS, DEFAULT_READING, Diagram, cr_only_line_endings
from dmbench.plantuml import parse as parse_reading


def parse(
    text: str | os.PathLike[str],
    reading: str = DEFAULT_READING,
    on_warning: Callable[[str], None] | None = None,
) -> Diagram:
    """Read PlantUML as it means it (``standard``); ``compat`` reads it as metrik-4 scored it.

    ``text`` is the PlantUML itself, or a path (a ``pathlib.Path``; ``-`` is stdin) to a UTF-8
    file, read here so that a file that is not UTF-8 is the same one-line error everywhere.
    ``on_warning`` hears ``cr_only_line_endings`` when the text ends its lines with a bare CR,
    which PlantUML reads as one line."""
    if isinstance(text, os.PathLike):
        text = read_text(text)
    if on_warning is not None and cr_only_line_endings(text):
        on_warning(CR_ONLY_LINE_ENDINGS)
    return parse_reading(text, reading)


def parse_many(
    items: Iterable[tuple[Any, str]] | os.PathLike[str], reading: str = DEFAULT_READING
) -> Iterator[dict[str, Any]]:
    """One result per ``(id, text)``, in order: a diagram that fails to parse is a result
    (``ok`` false, its error), not a stop, so one bad line costs a batch nothing else.

    ``items`` may be a path to JSON lines of ``{"id", "text"}`` (``-`` is stdin); a line that
    is not such an object is an error naming the file and line."""
    if isinstance(items, os.PathLike):
        fields = {"id": object, "text": str}
        items = ((row["id"], row["text"]) for _number, row in json_objects(items, fields))
    for item_id, text in items:
        result: dict[str, Any]
        try:
            diagram = parse_reading(text, reading)
        except ParseError as exc:
            result = {"id": item_id, "ok": False, "error": str(exc), "valid": False}
        else:
            model = diagram.to_dict()
            result = {"id": item_id, "ok": True, "model": model, "valid": diagram.is_valid()}
            if cr_only_line_endings(text):
                result["warning"] = CR_ONLY_LINE_ENDINGS
        yield result
