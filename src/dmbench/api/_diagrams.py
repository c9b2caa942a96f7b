"""The PlantUML verbs: light to import, so ``dmbench parse`` starts without the package API."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dmbench.errors import ParseError
from dmbench.plantuml import CR_ONLY_LINE_ENDINGS, DEFAULT_READING, Diagram, cr_only_line_endings
from dmbench.plantuml import parse as parse_reading


def parse(
    text: str, reading: str = DEFAULT_READING, on_warning: Callable[[str], None] | None = None
) -> Diagram:
    """Read PlantUML as it means it (``standard``); ``compat`` reads it as metrik-4 scored it.

    ``on_warning`` hears ``cr_only_line_endings`` when the text ends its lines with a bare CR,
    which PlantUML reads as one line."""
    if on_warning is not None and cr_only_line_endings(text):
        on_warning(CR_ONLY_LINE_ENDINGS)
    return parse_reading(text, reading)


def parse_many(
    items: Iterable[tuple[Any, str]], reading: str = DEFAULT_READING
) -> Iterator[dict[str, Any]]:
    """One result per ``(id, text)``, in order: a diagram that fails to parse is a result
    (``ok`` false, its error), not a stop, so one bad line costs a batch nothing else."""
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
