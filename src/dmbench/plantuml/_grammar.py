"""Loads ``grammar.lark`` once; both readings and the validator take their tokens from it.

``standard`` parses with the grammar itself. ``compat`` and the validator are regular
expressions (see LANGUAGE.md, "One grammar, three readers") that take ``IDENT`` from here and
pass their arrow tables through :func:`grammar_arrows`, so neither can use an arrow the grammar
does not know.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from lark import Lark


def grammar_text() -> str:
    """The grammar's source, read from the package so that installed copies carry it."""
    return resources.files("dmbench.plantuml").joinpath("grammar.lark").read_text("utf-8")


@cache
def parser() -> Lark:
    """The one LALR parser of every start rule, built once: building it is the costly part."""
    return Lark(
        grammar_text(),
        parser="lalr",
        start=["top_line", "member_line", "free_member", "enum_line"],
        propagate_positions=True,
    )


def terminal(name: str) -> str:
    """The regular expression of one of the grammar's tokens, a ``NAME: /pattern/`` line.

    Read from the grammar's text rather than from the built parser: building it takes some 40
    ms, which a process that only reads the ``compat`` way would pay at import for nothing
    (``tests/plantuml/test_plantuml_standard.py`` checks the two agree).
    """
    found = re.search(rf"^{re.escape(name)}(?:\.\d+)?:[ \t]*/(.+)/[ \t]*$", grammar_text(), re.M)
    if found is None:
        raise KeyError(f"no one-pattern terminal {name!r} in grammar.lark")
    return found.group(1)


def grammar_arrows(*arrows: str) -> tuple[str, ...]:
    """``arrows`` unchanged, after checking that each is a whole ARROW token of the grammar."""
    pattern = re.compile(terminal("ARROW"))
    unknown = [arrow for arrow in arrows if not pattern.fullmatch(arrow)]
    if unknown:
        raise RuntimeError(f"arrows outside grammar.lark's ARROW token: {unknown}")
    return arrows
