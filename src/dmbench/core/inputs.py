"""Files a user hands to a command (PlantUML, JSON lines): read exactly, refused clearly.

Every problem is an ``InputError`` (a ``ValueError``) naming the file and, for JSON lines, the
line, or an ``UnknownNameError`` for a file that is not there, so that the command line prints
one line instead of a traceback.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import sys
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from dmbench.errors import InputError, UnknownNameError

T = TypeVar("T")

STDIN = "-"
BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some editors write first; JSON forbids it, and it is easy to miss."""


def display_name(path: str | os.PathLike[str]) -> str:
    """The name an error gives a user's file: ``<stdin>`` for ``-``, else the path given."""
    return "<stdin>" if str(path) == STDIN else str(path)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes (``-`` reads stdin)."""
    if str(path) == STDIN:
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise UnknownNameError(f"cannot read {path}: no such file") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def decode(data: bytes, name: str, line: int | None = None) -> str:
    """UTF-8 text with no newline translation, so a diagram is read as stored."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = name if line is None else f"{name}:{line}"
        raise InputError(
            f"{where}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def json_line(raw: bytes | str, where: str) -> Any:
    """One line of a JSON-lines file, parsed; any way it is not storable JSON is an
    ``InputError`` starting with ``where`` (the file and line)."""
    line = decode(raw, where) if isinstance(raw, bytes) else raw
    if line.startswith("\ufeff"):
        raise InputError(
            f"{where}: the line starts with a byte-order mark (BOM)",
            hint="save the file as UTF-8 without a BOM",
        )
    try:
        return parse_json(line)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


def parse_json(text: str) -> Any:
    """``text`` as JSON that can be stored again; a ``ValueError`` saying why it is not."""
    try:
        item = json.loads(text)
        json.dumps(item, ensure_ascii=False).encode("utf-8")
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except UnicodeEncodeError as exc:
        bad = f"\\u{ord(exc.object[exc.start]):04x}"
        raise ValueError(f"a string holds a lone surrogate ({bad})") from None
    return item


_JSON_NAMES = {
    str: "a string",
    bool: "true or false",
    int: "an integer",
    float: "a finite number",
    dict: "an object",
    tuple: "a list",
    list: "a list",
    type(None): "null",
}


def dataclass_from_json(cls: type[T], data: Any) -> T:
    """``cls`` built from a JSON object whose every value has its field's type, else a
    ``TypeError`` naming the first field that does not: a number where a diagram belongs would
    otherwise fail far from its file, as a traceback. A list becomes a tuple where the field is
    a tuple."""
    if not isinstance(data, dict):
        raise TypeError(f"{_json_repr(data)} where an object belongs")
    fields = _fields(typing.cast(type, cls))  # a class is hashable; mypy's type[T] is not
    unknown = sorted(set(data) - fields.hints.keys())
    if unknown:
        raise TypeError(f'unknown field "{unknown[0]}"')
    for name in fields.required:
        if name not in data:
            raise TypeError(f'"{name}" is missing')
    values = {}
    for name, value in data.items():
        misfit = _misfit(value, fields.hints[name])
        if misfit:
            raise TypeError(f'"{name}" {misfit}')
        values[name] = tuple(value) if name in fields.tuples and isinstance(value, list) else value
    return cls(**values)


class _Fields(NamedTuple):
    hints: dict[str, Any]
    required: tuple[str, ...]
    tuples: frozenset[str]


@functools.cache
def _fields(cls: type) -> _Fields:
    """What checking a row of ``cls`` needs, worked out once per class (a run's score file has
    thousands of rows)."""
    hints = typing.get_type_hints(cls)
    required = tuple(
        field.name
        for field in dataclasses.fields(cls)  # type: ignore[arg-type]
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    )
    tuples = frozenset(name for name, hint in hints.items() if typing.get_origin(hint) is tuple)
    return _Fields(hints, required, tuples)


def _misfit(value: Any, hint: Any) -> str | None:
    """How a JSON value fails a field's type (``bool`` is no ``int``, an ``int`` is a ``float``,
    NaN and infinities are no ``float``), or ``None`` when it fits."""
    shape = _shape(hint)
    if shape.any:
        return None
    if shape.alternatives:
        misfits = [_misfit(value, alternative) for alternative in shape.alternatives]
        if None in misfits:
            return None
        wanted = dict.fromkeys(map(_json_name, shape.alternatives))
        return f"is {_json_repr(value)}, not {' or '.join(wanted)}"
    kind = shape.kind
    fits = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        fits = math.isfinite(value) if isinstance(value, float) else abs(value) < 2**1023
    elif kind in (tuple, list):
        fits = isinstance(value, list | tuple)
        for item in value if fits and shape.item is not None else ():
            if _misfit(item, shape.item):
                return f"holds {_json_repr(item)}, not {_json_name(shape.item)}"
    return None if fits else f"is {_json_repr(value)}, not {_json_name(kind)}"


class _Shape(NamedTuple):
    any: bool
    alternatives: tuple[Any, ...]
    kind: Any
    item: Any


@functools.cache
def _shape(hint: Any) -> _Shape:
    """A type hint taken apart once: ``typing``'s introspection cost more than the checks."""
    if hint is Any:
        return _Shape(True, (), None, None)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return _Shape(False, typing.get_args(hint), None, None)
    kind = typing.get_origin(hint) or hint
    items = [arg for arg in typing.get_args(hint) if arg is not Ellipsis]
    return _Shape(False, (), kind, items[0] if kind in (tuple, list) and items else None)


def _json_name(hint: Any) -> str:
    return _JSON_NAMES[typing.get_origin(hint) or hint]


def _json_repr(value: Any) -> str:
    """A value as its JSON, cut short: an error line names it, whatever its size."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def read_text(path: str | os.PathLike[str]) -> str:
    """A user's file (``-``: stdin) as text; bytes that are not UTF-8 are a one-line error
    naming the file, not a traceback."""
    return decode(read_bytes(path), display_name(path))


def json_objects(path: str | os.PathLike[str], fields: dict[str, type]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-blank line, each holding ``fields`` of those types.

    ``object`` as a type only asks that the field be there (ids may be numbers or strings).
    """
    name = display_name(path)
    wanted = " and ".join(", ".join(f'"{f}"' for f in fields).rsplit(", ", 1))
    data = read_bytes(path)
    if data.startswith(BOM):
        raise InputError(
            f"{name}:1: the file starts with a byte-order mark (BOM)",
            hint="save it as UTF-8 without a BOM",
        )
    for number, raw in enumerate(data.split(b"\n"), start=1):  # \n only: U+2028
        if not raw.strip():
            continue
        item = json_line(raw, f"{name}:{number}")
        if not isinstance(item, dict) or not all(
            field in item and isinstance(item[field], kind) for field, kind in fields.items()
        ):
            raise InputError(f"{name}:{number}: expected a JSON object with {wanted}")
        yield number, item
