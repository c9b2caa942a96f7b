"""The one place where library errors become one-line CLI messages, never tracebacks.

``DmbenchError`` is translated, and so is ``OSError`` (a read-only or missing folder, a full
disk: a property of the machine, not a bug); any other exception keeps its traceback.
"""

from __future__ import annotations

import click

from dmbench.errors import DmbenchError


class DmbenchGroup(click.Group):
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
