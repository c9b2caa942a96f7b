"""Loads ``grammar.lark`` once; both readings and the validator take their tokens from it."""

from __future__ import annotations

from functools import cache
from importlib import resources

from lark import Lark


def grammar_text() -> str:
    return resources.files("dmbench.plantuml").joinpath("grammar.lark").read_text("utf-8")


@cache
def parser() -> Lark:
    return Lark(
        grammar_text(),
        parser="lalr",
        start=["top_line", "member_line", "enum_line"],
        propagate_positions=True,
    )


def terminal(name: str) -> str:
    """The regular expression of one of the grammar's tokens."""
    return parser().get_terminal(name).pattern.to_regexp()
