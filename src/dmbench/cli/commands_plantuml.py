"""``dmbench parse``: one PlantUML file or a JSON-lines batch, through the API's light verbs."""

from __future__ import annotations

import json
from pathlib import Path

import click

from dmbench.api import READINGS, parse_many
from dmbench.api import parse as parse_text
from dmbench.cli._options import default_of
from dmbench.errors import InputError, ParseError

reading_option = click.option(
    "--reading",
    type=click.Choice(READINGS),
    default=default_of(parse_text, "reading"),
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
        for result in parse_many(jsonl, reading):
            click.echo(json.dumps(result, ensure_ascii=False))
        return
    assert file is not None
    name = "<stdin>" if str(file) == "-" else str(file)

    def warn(message: str) -> None:
        click.echo(f"warning: {name}: {message} (read as one line)", err=True)

    try:
        diagram = parse_text(file, reading, on_warning=warn)
    except ParseError as exc:
        # The position is printed once, in the file:line:column form editors understand.
        raise InputError(f"{name}:{exc.line}:{exc.column}: {exc.reason}") from None
    click.echo(json.dumps(diagram.to_dict(), indent=2, ensure_ascii=False))
