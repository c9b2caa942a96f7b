"""What several commands share (options, elapsed time), defined once so they read alike.

Light to import (click only): every command loads it, ``dmbench parse`` included."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

package_option = click.option(
    "--package",
    "package_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Package directory (default: the current directory).",
)

sources_option = click.option(
    "--sources",
    "sources_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory with the upstream layout (default: $DMBENCH_SOURCES, ../shared/upstream, "
    "or the fetch cache).",
)


def elapsed(started: float) -> str:
    """Seconds since ``started`` (a ``time.perf_counter()``) as every command reports them."""
    return f"{time.perf_counter() - started:.1f} s"


def split_ids(values: tuple[str, ...]) -> list[str]:
    """Run ids as a repeatable option gives them, each value comma- or space-separated."""
    return [item for value in values for item in value.replace(",", " ").split()]


def default_of(verb: Callable[..., Any], parameter: str) -> Any:
    """The default the API verb gives ``parameter``: an option's default is stated once, there."""
    return inspect.signature(verb).parameters[parameter].default
