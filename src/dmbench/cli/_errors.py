"""The one place where library errors become one-line CLI messages, never tracebacks.

Only ``DmbenchError`` is translated: any other exception is a bug, and keeps its traceback.
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
