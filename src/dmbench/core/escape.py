"""The one rule for text a user or a log controls (model, candidate and run names, labels).

Such text is shown, never interpreted: a line break or other control character becomes its
visible escape (``\\n``, ``\\u2028``), so it can open no new line, heading or table row; in
Markdown every character that could start markup is backslash-escaped (``<``, ``>`` and ``&``
become entities, which CommonMark and HTML both show as the character); in HTML the text is
entity-escaped. Names a benchmark legitimately uses (``glm-5.1:cloud``, ``rule_based``,
``org/model``) come out unchanged.
"""

from __future__ import annotations

import html
import re
import unicodedata

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*\[\]()#!|~{}+])")
_UNDERSCORES = re.compile(r"_+")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _visible(char: str) -> str:
    if char == "\n":
        return "\\n"
    if char == "\r":
        return "\\r"
    if char == "\t":
        return "\\t"
    return f"\\u{ord(char):04x}"


def one_line(text: str) -> str:
    """``text`` with every control, format and line/paragraph separator character shown as its
    escape: what is left is one line of printable characters."""
    return "".join(
        _visible(char) if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") else char
        for char in text
    )


def markdown_text(text: str) -> str:
    """``text`` as literal Markdown: one line, markup characters escaped (safe in table cells,
    headings, lists and prose alike)."""
    escaped = _MARKDOWN_PUNCTUATION.sub(r"\\\1", one_line(text))
    escaped = _UNDERSCORES.sub(lambda run: _underscores(escaped, run), escaped)
    return re.sub(r"[&<>]", lambda match: _ENTITIES[match.group()], escaped)


def _underscores(text: str, run: re.Match[str]) -> str:
    """A run of ``_`` inside a word (``rule_based``, ``chen__kimi``) is literal in CommonMark;
    one at a word's edge could open or close emphasis and is escaped."""
    start, end = run.span()
    inside = 0 < start and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return run.group() if inside else run.group().replace("_", "\\_")


def html_text(text: str) -> str:
    """``text`` as literal HTML: one line, ``& < > " '`` as entities."""
    return html.escape(one_line(text), quote=True)
