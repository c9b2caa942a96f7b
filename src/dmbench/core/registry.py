"""Things found by name (candidates, metrics, readings): one registry shape for all of them.

A registry keeps the order things were added in (the order tables and ``--help`` list them),
refuses a second thing under a name that is taken instead of silently replacing the first, and
answers an unknown name with the names it knows. A registry given a ``name_rule`` also refuses
names that are unsafe where they end up: a candidate's name becomes part of a run folder's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

from dmbench.errors import DuplicateNameError, UnknownNameError, UnsafeNameError

Item = TypeVar("Item")

SAFE_NAME = re.compile(r"[a-z0-9](?:[a-z0-9_-]{0,31})")
"""A name that is safe in a file name on every file system: lower case, digits, ``_`` and ``-``,
at most 32 characters; ``__`` is refused separately (it separates the parts of a run id)."""


def check_safe_name(kind: str, name: object) -> str:
    """``name`` if it is a safe name for a ``kind``; otherwise one line saying what is allowed."""
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name) or "__" in name:
        raise UnsafeNameError(
            f"{kind} name {name!r} is not allowed: use 1 to 32 lower-case letters, digits, "
            "'_' or '-', starting with a letter or digit, without '__'"
        )
    return name


class Registry(Mapping[str, Item], Generic[Item]):
    """An ordered, read-mostly mapping of names to things; ``add`` is the only way in."""

    def __init__(self, kind: str, safe_names: bool = False) -> None:
        self.kind = kind
        self._safe_names = safe_names
        self._items: dict[str, Item] = {}

    def add(self, name: str, item: Item) -> Item:
        """Make ``item`` known as ``name``; a taken name is refused, never overwritten."""
        if self._safe_names:
            check_safe_name(self.kind, name)
        if name in self._items:
            raise DuplicateNameError(f"a {self.kind} named {name!r} is already registered")
        self._items[name] = item
        return item

    def __getitem__(self, name: str) -> Item:
        try:
            return self._items[name]
        except (KeyError, TypeError):
            choices = ", ".join(self._items) or "none registered"
            raise UnknownNameError(
                f"unknown {self.kind} {name!r}; choose one of: {choices}"
            ) from None

    def get(self, name: str, default: Item | None = None) -> Item | None:  # type: ignore[override]
        return self._items.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._items)})"
