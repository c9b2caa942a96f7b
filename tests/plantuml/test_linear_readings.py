"""The linear-time readings give exactly what upstream's backtracking patterns give.

Upstream's regular expressions are kept here, as the oracle, and compared with dmbench's
one-pass versions on many short lines over the characters that make them backtrack; the
golden parity tests check the real inputs. The size tests bound the work, not the clock: they
count the characters the readers look at, or compare against a 10x larger input.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dmbench.plantuml import _compat
from dmbench.plantuml._block import find_block
from dmbench.plantuml.model import Relationship

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
UPSTREAM_NAME_TYPE = re.compile(rf"^({IDENT})\s*:\s*([\w\[\]<>,\s]+?)(?:\s*=\s*(.+))?$")
UPSTREAM_INLINE_ENUM = re.compile(rf"^enum\s+({IDENT})\s*\{{\s*([^}}]+)\s*\}}$")
UPSTREAM_ONE_LINE_COMMENT = re.compile(r"^(.*)/'(.*)'/(.*)$")
UPSTREAM_BLOCK = re.compile(r"@startuml(.*?)@enduml", re.S)


def upstream_binary(arrow: str) -> re.Pattern[str]:
    card = r'(?:"([^"]*)"?\s*)?'
    return re.compile(
        rf"^({IDENT})\s*{card}{re.escape(arrow)}\s*{card}({IDENT})(?:\s*:\s*(.+))?$"
    )


UPSTREAM_BINARY = [(upstream_binary(arrow), arrow) for arrow, _, _ in _compat.ARROWS]

lines = st.text(alphabet='ao1_ :="-<>|*.,![]\t}{', max_size=14)
relationship_lines = st.text(alphabet='Aob1 :"-<|>*.\t', max_size=16)
comment_lines = st.text(alphabet="/'x ", max_size=12)
blocks = st.lists(st.sampled_from(["@startuml", "@enduml", "x", "\n", "@START"]), max_size=8)


@settings(max_examples=3000, deadline=None)
@given(lines)
def test_name_type_attribute_is_upstreams(line: str) -> None:
    m = UPSTREAM_NAME_TYPE.match(line)
    expected = None
    if m:
        default = m.group(3).strip() if m.group(3) is not None else None
        expected = (m.group(1), m.group(2).strip(), default)
    assert _compat._name_type(line) == expected


@settings(max_examples=3000, deadline=None)
@given(relationship_lines)
def test_relationship_match_is_upstreams(line: str) -> None:
    candidate = _compat._RelationshipLine(line)
    for pattern, arrow in UPSTREAM_BINARY:
        m = pattern.match(line)
        assert candidate.match(arrow) == (m.groups() if m else None), arrow


def upstream_relationship(line: str) -> tuple | None:
    """(kind, source, target, source card, target card, label) of upstream's first match."""
    for (pattern, _arrow), (_, kind, swap) in zip(UPSTREAM_BINARY, _compat.ARROWS, strict=True):
        if m := pattern.match(line):
            source, source_card, target_card, target, label = m.groups()
            if swap:
                source, target, source_card, target_card = target, source, target_card, source_card
            return kind, source, target, source_card, target_card, label.strip() if label else None
    return None


long_relationship_lines = st.builds(
    lambda head, run, tail: head + run + tail,
    relationship_lines,
    st.sampled_from(["", " " * 3, "\t  ", "\xa0 \xa0", "o" * 130, "-" * 120, '"' + " " * 125]),
    relationship_lines,
)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(relationship_lines, long_relationship_lines))
def test_a_relationship_line_is_read_as_upstream_reads_it(line: str) -> None:
    """Short lines take upstream's patterns, long ones and whitespace runs the linear matcher."""
    expected = upstream_relationship(line)
    assert _compat._read_relationship(line) == (Relationship(*expected) if expected else None)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="enum A{}, x\t", max_size=14))
def test_inline_enum_values_are_upstreams(line: str) -> None:
    m, ours = UPSTREAM_INLINE_ENUM.match(line), _compat._INLINE_ENUM.match(line)
    assert (m is None) == (ours is None)
    if m:
        assert _compat._inline_enum(ours) == _compat._inline_enum(m)


@settings(max_examples=1000, deadline=None)
@given(comment_lines)
def test_one_line_block_comment_is_upstreams(line: str) -> None:
    m = UPSTREAM_ONE_LINE_COMMENT.match(line)
    expected = m.group(1) + m.group(3) if m else None
    assert _compat._without_one_line_comment(line) == expected


@settings(max_examples=1000, deadline=None)
@given(blocks)
def test_block_is_the_first_lazy_match(parts: list[str]) -> None:
    text = "".join(parts)
    m = UPSTREAM_BLOCK.search(text)
    found = find_block(text)
    assert (found is None) == (m is None)
    if m:
        assert (found[0], found[1], found[2]) == (m.start(), m.start(1), m.end())
