"""Upstream's validator and auto-repair (``plantuml_validator.validate``, spec section D).

The LLM candidates pass their raw output through it, and a rejected record keeps its repaired
diagram, so reproducing their published outputs needs this exact behaviour, quirks included.
Written from the behaviour description, not from upstream code.

Why regular expressions and not ``grammar.lark``: the validator's verdicts and its repaired text
(810/810 golden parity) follow upstream's line patterns exactly (spec D.1): whitespace is
required around an arrow, arrows are tried as a backtracking alternation in upstream's order, a
class body is taken verbatim up to a line that is only ``}``, and the grammar's wider language
(``..>``, ``<|..``, stereotypes, notes) must be *rejected*. A parse with the grammar would
accept what upstream refuses. What is shared: ``IDENT`` comes from the grammar (through
``_compat``), and the arrow list goes through ``grammar_arrows`` (every arrow is an ARROW token
of the grammar) and is a subset of compat's table, so the three readers know one set of arrows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dmbench.plantuml._compat import IDENT
from dmbench.plantuml._grammar import grammar_arrows

BLOCKLIST = frozenset(
    {"i.e", "e.g", "etc", "cf", "vs", "al", "viz", "approx", "yes", "no", "true", "false"}
)

_IDENT = re.compile(rf"{IDENT}")
_FENCE = re.compile(r"^[ \t]*```", re.M)
# Upstream's ``\{\s*([^}]+)\s*\}`` accepts the same lines (the literals are split and stripped),
# without its cubic backtracking over a run of spaces before a missing "}".
_ENUM_INLINE = re.compile(rf"^\s*enum\s+({IDENT})\s*\{{([^}}]+)\}}\s*$")
_ENUM_OPEN = re.compile(rf"^\s*enum\s+({IDENT})\s*\{{\s*$")
_CLOSE = re.compile(r"^\s*\}\s*$")
_PREFIX = r"^\s*(abstract\s+)?class\s+"
_CLASS_INLINE = re.compile(rf"{_PREFIX}({IDENT})\s*\{{([^}}]*)\}}\s*$")
_CLASS_OPEN = re.compile(rf"{_PREFIX}({IDENT})\s*\{{\s*$")
_CLASS_BARE = re.compile(rf"{_PREFIX}({IDENT})\s*$")
# Upstream's alternation order (spec D.1); the grammar must know every one of them.
_ARROWS = grammar_arrows(
    "--|>", "<|--", "-->", "<--", "*--", "o--", "-|>", "->", "<-", "..", "--", "-"
)
_REL = re.compile(
    rf'^\s*({IDENT})\s+(?:"([^"]*)"\s+)?({"|".join(re.escape(a) for a in _ARROWS)})\s+'
    rf'(?:"([^"]*)"\s+)?({IDENT})(?:\s*:\s*(.+))?\s*$'
)


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """``ok`` is upstream's verdict; ``repaired`` is emitted even when ``ok`` is false."""

    ok: bool
    repaired: str | None
    errors: list[str] = field(default_factory=list)


def valid_name(name: str) -> bool:
    """Whether upstream's validator takes ``name`` for a class: an identifier, not a stopword."""
    return bool(name) and name.lower() not in BLOCKLIST and _IDENT.fullmatch(name) is not None


@dataclass
class _Found:
    enums: list[tuple[str, list[str]]] = field(default_factory=list)
    classes: list[tuple[str, bool, list[str]]] = field(default_factory=list)
    relationships: list[str] = field(default_factory=list)
    declared: set[str] = field(default_factory=set)
    referenced: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)


def validate(text: str) -> ValidationResult:
    """Check and re-emit a diagram the way upstream's validator does."""
    if not text.strip():
        return ValidationResult(False, None, ["empty input"])
    text = _FENCE.sub("", text).strip()
    lowered = text.lower()
    if "@startuml" not in lowered:
        return ValidationResult(False, None, ["missing @startuml marker"])
    if "@enduml" not in lowered:
        return ValidationResult(False, None, ["missing @enduml marker"])
    start = lowered.index("@startuml") + len("@startuml")
    end = lowered.index("@enduml")
    head, body, tail = text[:start], text[start:end], text[end:]
    found = _scan(body.splitlines())
    if not (found.enums or found.classes or found.relationships):
        errors = [*found.errors, "empty diagram: no class, enum, or relationship lines survived"]
        return ValidationResult(False, None, errors)
    repaired = _emit(head, tail, found)
    return ValidationResult(not found.errors, repaired, found.errors)


def _scan(lines: list[str]) -> _Found:
    found = _Found()
    open_enum: tuple[str, list[str]] | None = None
    i = 0
    while i < len(lines):
        n, s = i + 1, lines[i].strip()
        i += 1
        if not s or s.startswith("@startuml") or s.startswith("@enduml"):
            continue
        if m := _ENUM_INLINE.match(s):
            if valid_name(m.group(1)):
                literals = [v.strip() for v in m.group(2).split(",")]
                found.enums.append((m.group(1), [v for v in literals if v]))
            else:
                found.errors.append(f"line {n}: enum name {m.group(1)!r} is not a valid identifier")
            continue
        if open_enum is not None:
            if _CLOSE.match(s):
                found.enums.append(open_enum)
                open_enum = None
            elif valid_name(s):
                open_enum[1].append(s)
            else:
                found.errors.append(f"line {n}: enum literal {s!r} is not a valid identifier")
            continue
        if m := _ENUM_OPEN.match(s):
            if valid_name(m.group(1)):
                open_enum = (m.group(1), [])
            else:
                found.errors.append(f"line {n}: enum name {m.group(1)!r} is not a valid identifier")
            continue
        if cls := _CLASS_OPEN.match(s) or _CLASS_INLINE.match(s) or _CLASS_BARE.match(s):
            i = _class(cls, n, lines, i, found)
            continue
        if m := _REL.match(s):
            _relationship(m, n, found)
            continue
        found.errors.append(f"line {n}: unrecognised line {s!r}")
    if open_enum is not None:
        found.errors.append(f"enum {open_enum[0]!r} opened but never closed")
    return found


def _class(m: re.Match[str], n: int, lines: list[str], i: int, found: _Found) -> int:
    """Record one class; return the index of the first line after it."""
    abstract, name = bool(m.group(1)), m.group(2)
    if not valid_name(name):
        found.errors.append(f"line {n}: class name {name!r} is not a valid identifier")
        return i
    found.declared.add(name)
    attributes: list[str] = []
    if m.re is _CLASS_OPEN:
        while i < len(lines) and lines[i].strip() != "}":
            if lines[i].strip():
                attributes.append(lines[i].strip())
            i += 1
        if i == len(lines):
            found.errors.append(f"line {n}: class {name!r} opened but never closed")
        else:
            i += 1
    elif m.re is _CLASS_INLINE:
        attributes = [a.strip() for a in m.group(3).split(";") if a.strip()]
    found.classes.append((name, abstract, attributes))
    return i


def _relationship(m: re.Match[str], n: int, found: _Found) -> None:
    source, card1, arrow, card2, target, label = m.groups()
    if not valid_name(source):
        found.errors.append(f"line {n}: relationship source {source!r} is not a valid identifier")
        return
    if not valid_name(target):
        found.errors.append(f"line {n}: relationship target {target!r} is not a valid identifier")
        return
    line = f'{source} "{card1 or ""}" {arrow} "{card2 or ""}" {target}'
    found.relationships.append(line + (f" : {label}" if label else ""))
    found.referenced.update((source, target))


def _emit(head: str, tail: str, found: _Found) -> str:
    out = [head, ""]
    for name, literals in found.enums:
        out += [f"enum {name} {{", *(f"  {v}" for v in literals), "}", ""]
    out += [f"class {name} {{ }}" for name in sorted(found.referenced - found.declared)]
    for name, abstract, attributes in found.classes:
        keyword = "abstract class" if abstract else "class"
        if attributes:
            out += [f"{keyword} {name} {{", *(f"  {a}" for a in attributes), "}"]
        else:
            out.append(f"{keyword} {name} {{ }}")
        out.append("")
    out += [*found.relationships, "", tail]
    return "\n".join(out).rstrip() + "\n"
