"""Hostile PlantUML: inputs that once made a reading hang now read in time linear in their size.

Two kinds of test. The hang guards feed each shape at a size that took 10 s to minutes before
(issue 15) and stop the test with an alarm far above what it takes now (milliseconds), so they
fail on a regression and never on a slow machine. The property test bounds the work itself:
it counts the Python lines executed (the readers, lark and the validator are all Python) for
an input and for the same input eight times larger, and requires at most linear growth.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from work_count import python_lines

from dmbench.llm.llm_candidate import extract_plantuml
from dmbench.plantuml import Attribute, ParseError, parse, validate

GUARD_SECONDS = 20


@contextmanager
def must_finish_within(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: the reading is not linear")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def read(reading: str, text: str) -> object:
    try:
        return validate(text) if reading == "validate" else parse(text, reading)
    except ParseError as exc:
        return exc


def wrap(body: str) -> str:
    return f"@startuml\n{body}@enduml\n"


HANGS = {
    # shape: (input, the readings it made take 20 s to minutes before issue 15)
    "3 KB attribute line": (wrap("class A {\n a :" + " " * 3000 + "!\n}\n"), ["compat"]),
    "300 KB of @startuml lines": ("@startuml\n" * 30_000, ["compat", "standard"]),
    "30,000 unclosed /' comments": (wrap("/' x\n" * 30_000), ["standard"]),
    "30,000 notes holding ':'": (wrap("note left : x\n" * 30_000), ["compat"]),
    "inline enum, 5,000 spaces, no '}'": (
        wrap("enum A {" + " " * 5000 + "!\n"),
        ["compat", "validate"],
    ),
    "open cardinality quote, 20,000 spaces": (wrap('A "' + " " * 20_000 + "!\n"), ["compat"]),
    "open cardinality quote, 50,000 letters": (wrap('A -- "' + "o" * 50_000 + "!\n"), ["compat"]),
    "one-line comment, 60,000 openings": (wrap("A" + "/' x" * 60_000 + "\n"), ["compat"]),
    "300 KB of @startuml lines, validated": ("@startuml\n" * 30_000, ["validate"]),
    "170,000 'A : x' lines (1 MB)": (wrap("A : x\n" * 170_000), ["compat"]),
    "a class declared 100,000 times (2 MB)": (wrap("class A {\n x : int\n}\n" * 100_000), ["compat"]),
}


@pytest.mark.parametrize(
    ("text", "reading"),
    [pytest.param(text, r, id=f"{shape}-{r}") for shape, (text, rs) in HANGS.items() for r in rs],
)
def test_hostile_shape_reads_quickly(text: str, reading: str) -> None:
    with must_finish_within(GUARD_SECONDS):
        read(reading, text)


def test_candidates_find_the_block_of_a_megabyte_reply_quickly() -> None:
    with must_finish_within(GUARD_SECONDS):
        assert extract_plantuml("@startuml\n" * 100_000) is None
        assert extract_plantuml("x @STARTUML\nA -- B\n@EndUml y") == "@STARTUML\nA -- B\n@EndUml"


def test_the_3kb_attribute_line_is_read_as_upstream_reads_it() -> None:
    """Type characters up to the '!' are not an attribute type: upstream drops the line."""
    text = wrap("class A {\n a :" + " " * 3000 + "int = 5\n b :" + " " * 3000 + "!\n}\n")
    assert parse(text, "compat").classes[0].attributes == (Attribute("a", "int", "5"),)


def test_many_member_lines_keep_their_order() -> None:
    text = wrap("class B\n" + "".join(f"A : x{i}\n" for i in range(2000)) + "class A\n")
    for reading in ("compat", "standard"):
        first_a = next(c for c in parse(text, reading).classes if c.name == "A")
        assert [a.name for a in first_a.attributes] == [f"x{i}" for i in range(2000)]


LINES = st.sampled_from(
    [
        "A : x",
        "note left : x",
        "class A {",
        "class A",
        "}",
        "x : int",
        "/' x",
        "'/",
        'A "1" -- "*" B : r',
        'A "',
        "enum E {",
        "enum E { a, b }",
        "a",
        "note top",
        "end note",
        "A -- B",
        "@startuml",
        "A o-- B",
        "skinparam x {",
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(["note left : x"], "compat")
@example(["A : x"], "standard")  # the shapes issue 15 found quadratic, each reading
@example(["A : x"], "compat")
@example(["class A {", "x : int", "}"], "standard")
@example(["class A {", "x : int", "}"], "compat")
@example(["class A {", "x : int", "}"], "validate")
@example(["/' x"], "standard")
@example(["@startuml"], "validate")
@given(st.lists(LINES, min_size=1, max_size=6), st.sampled_from(["compat", "standard", "validate"]))
def test_work_grows_at_most_linearly(block: list[str], reading: str) -> None:
    """Eight copies of any mix of lines cost at most about eight times one copy."""
    body = "\n".join(block) + "\n"
    small = python_lines(lambda: read(reading, wrap(body * 20)))
    large = python_lines(lambda: read(reading, wrap(body * 160)))
    assert large <= 8 * small * 1.25 + 2000, (small, large)
