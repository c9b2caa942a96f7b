"""Which class a name means, as PlantUML decides it: packages are namespaces.

PlantUML keys a class by its full name (``p.A``): two classes of one short name in two packages
are two classes. A declaration makes its name in the package it is written in (unless that full
name exists); a name in a link or a member line means the class of that name in the current
package, else the only class of that short name anywhere, else a new one in the current package.
A dotted name is taken from the top when its first part is a known package or class, else from
the current package. The model names a class by its short name, and by its full name only where
two classes share the short one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Namespaces:
    """Which class a name means where it is written: PlantUML's packages are namespaces."""

    separator: str = "."
    """What separates a package from a name (``set namespaceSeparator``); empty for none."""
    stack: list[list[str]] = field(default_factory=list)
    """The open package blocks, each as the full path of parts it opens (``together`` repeats
    the enclosing one)."""
    known: dict[str, None] = field(default_factory=dict)
    """Every full name met so far, in order."""
    by_short: dict[str, list[str]] = field(default_factory=dict)
    """The full names of the classes and packages of each short name."""
    packages: set[str] = field(default_factory=set)
    """Full names of the packages opened so far (and of the dotted names' prefixes)."""

    def split(self, name: str) -> list[str]:
        if not self.separator:
            return [name]
        return [part for part in name.split(self.separator) if part] or [name]

    def open(self, name: str | None) -> None:
        """A package-like block opens; ``None`` for one that is no namespace (``together``)."""
        parts = self.split(name) if name else []
        # a dotted name is read from the top when its first part is known, as a class's is
        path = self.split(self._absolute(name)) if name else self._current()
        self.stack.append(path)
        for depth in range(max(len(path) - len(parts), 0), len(path)):
            self._package(self._join(path[: depth + 1]))

    def current(self) -> str:
        """The full name of the package the reading is in; empty at the top level."""
        return self._join(self._current())

    def close(self) -> None:
        """A ``}`` at the top level: the innermost package ends (PlantUML passes over a stray one)."""
        if self.stack:
            self.stack.pop()

    def declare(self, name: str) -> str:
        """The full name a declaration of ``name`` makes or reopens."""
        return self._remember(self._absolute(name))

    def resolve(self, name: str) -> str:
        """The full name ``name`` means in a link or a member line (a package's, if it names
        a package and no class)."""
        parts = self.split(name)
        if len(parts) > 1 or self._from_top(name):
            return self._remember(self._absolute(name))
        here = self._join([*self._current(), name])
        if here in self.known:
            return here
        if here in self.packages:
            return here
        around = {self._join(self._current()[:depth]) for depth in range(1, len(self._current()) + 1)}
        found = [f for f in self.by_short.get(name, []) if f not in around]
        if len(found) == 1:  # the only class or package of that name, not one the name is in
            return found[0]
        return self._remember(here)

    def knows(self, name: str) -> bool:
        """Whether ``name`` means a class or package met so far."""
        name = name.strip('"')
        if self.split(name)[-1] in self.by_short:
            return True
        return name in self.known or name in self.packages

    def display(self, names: set[str]) -> dict[str, str]:
        """Each full name's name in the model: short, unless another class has the same one."""
        shorts: dict[str, list[str]] = {}
        for name in names:
            shorts.setdefault(self.short(name), []).append(name)
        return {name: self.short(name) if len(shorts[self.short(name)]) == 1 else name
                for name in names}

    def short(self, name: str) -> str:
        return self.split(name)[-1]

    def _from_top(self, name: str) -> bool:
        """``.A``: the name is taken from the top, whatever package it is written in."""
        return bool(self.separator) and name.startswith(self.separator)

    def _absolute(self, name: str) -> str:
        parts = self.split(name)
        top = parts[0]
        if self._from_top(name) or len(parts) > 1 and self._is_known(top):
            return self._join(parts)
        return self._join([*self._current(), *parts])

    def _remember(self, name: str) -> str:
        if name not in self.known:
            self.known[name] = None
            self.by_short.setdefault(self.short(name), []).append(name)
            parts = self.split(name)
            for depth in range(1, len(parts)):
                self._package(self._join(parts[:depth]))
        return name

    def _package(self, path: str) -> None:
        if path not in self.packages:
            self.packages.add(path)
            self.by_short.setdefault(self.short(path), []).append(path)

    def _current(self) -> list[str]:
        """The current package's parts; none when ``set separator none`` left no namespaces."""
        if not self.separator or not self.stack:
            return []
        return list(self.stack[-1])

    def _is_known(self, name: str) -> bool:
        return name in self.packages or name in self.known

    def _join(self, parts: list[str]) -> str:
        return (self.separator or "").join(parts)


def separator_setting(line: str) -> str | None:
    """The separator a ``set namespaceSeparator X`` line sets (empty for ``none``), else None."""
    found = re.match(r"^set\s+(?:namespace)?separator\s+(\S+)\s*$", line, re.I)
    if found is None:
        return None
    return "" if found.group(1).lower() == "none" else found.group(1)
