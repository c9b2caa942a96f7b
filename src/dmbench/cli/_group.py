"""The command group: commands loaded on first use, and library errors as one-line messages.

``DmbenchError`` is translated, and so is ``OSError`` (a read-only or missing folder, a full
disk: a property of the machine, not a bug); any other exception keeps its traceback.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import click

from dmbench.errors import DmbenchError


class LazyCommand(NamedTuple):
    """A command by name: the ``dmbench.cli`` module defining it and its help's first paragraph.

    The module's attribute is the name with ``-`` as ``_`` (``score-pair``: ``score_pair``)."""

    name: str
    module: str
    summary: str


class DmbenchGroup(click.Group):
    """Lists commands from their summaries and imports a command's module only to run it."""

    def __init__(self, *args: Any, lazy_commands: Sequence[LazyCommand] = (), **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy_commands = {command.name: command for command in lazy_commands}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = self.lazy_commands.get(cmd_name)
        if cmd_name in self.commands or lazy is None:
            return super().get_command(ctx, cmd_name)
        module = importlib.import_module(f"dmbench.cli.{lazy.module}")
        command: click.Command = getattr(module, cmd_name.replace("-", "_"))
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click's, from the summaries: listing the commands imports none of them."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.lazy_commands and name not in self.commands:
                stand_in = click.Command(name, help=self.lazy_commands[name].summary)
                rows.append((name, stand_in.get_short_help_str(limit)))
            else:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except DmbenchError as exc:
            raise click.ClickException(exc.one_line()) from exc
        except OSError as exc:
            # A folder that is read-only, missing or a file: the system's own words, one line.
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(
                f"{where}{exc.strerror or exc} (hint: check that the path exists and is writable)"
            ) from exc
