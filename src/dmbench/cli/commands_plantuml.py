"""Commands over the PlantUML layer: ``parse`` (one file or a JSON-lines batch) and ``quirks``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from dmbench import core
from dmbench.errors import InputError
from dmbench.plantuml import (
    CR_ONLY_LINE_ENDINGS,
    DEFAULT_READING,
    READINGS,
    ParseError,
    cr_only_line_endings,
)
from dmbench.plantuml import parse as parse_text

reading_option = click.option(
    "--reading",
    type=click.Choice(READINGS),
    default=DEFAULT_READING,
    show_default=True,
    help="compat = exactly as metrik-4's parser reads it; standard = as PlantUML means it.",
)


@click.command("parse")
@click.argument(
    "file", required=False, type=click.Path(dir_okay=False, allow_dash=True, path_type=Path)
)
@click.option(
    "--jsonl",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help='Batch mode: read {"id", "text"} lines ("-" for stdin), write one result line per '
    "input to stdout.",
)
@reading_option
def parse(file: Path | None, jsonl: Path | None, reading: str) -> None:
    """Print the model of a PlantUML class diagram as JSON (parsed.jsonl's model shape).

    FILE (or "-" for stdin) must be UTF-8 text.
    """
    if (file is None) == (jsonl is None):
        raise click.UsageError("give either FILE or --jsonl IN.jsonl")
    if jsonl is not None:
        for line in _batch(jsonl, reading):
            click.echo(line)
        return
    assert file is not None
    text = core.read_text(file)
    if cr_only_line_endings(text):
        name = core.display_name(file)
        click.echo(f"warning: {name}: {CR_ONLY_LINE_ENDINGS} (read as one line)", err=True)
    try:
        diagram = parse_text(text, reading)
    except ParseError as exc:
        # The position is printed once, in the file:line:column form editors understand.
        where = f"{core.display_name(file)}:{exc.line}:{exc.column}"
        raise InputError(f"{where}: {exc.reason}") from None
    click.echo(json.dumps(diagram.to_dict(), indent=2, ensure_ascii=False))


def _batch(jsonl: Path, reading: str):
    """One output line per input line; a diagram that fails to parse is a result, not a stop."""
    for _number, record in core.json_objects(jsonl, {"id": object, "text": str}):
        item_id = record["id"]
        try:
            diagram = parse_text(record["text"], reading)
        except ParseError as exc:
            result = {"id": item_id, "ok": False, "error": str(exc), "valid": False}
        else:
            model = diagram.to_dict()
            result = {"id": item_id, "ok": True, "model": model, "valid": diagram.is_valid()}
            if cr_only_line_endings(record["text"]):
                result["warning"] = CR_ONLY_LINE_ENDINGS
        yield json.dumps(result, ensure_ascii=False)
