"""Rendering with the real PlantUML jar: drawings, rejections as error cards, the cache, no Java."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from results_support import built_package

from dmbench.core.hashing import sha256_text
from dmbench.errors import MissingPrerequisiteError
from dmbench.package import load_records
from dmbench.render import PLANTUML_VERSION, cache_dir_for, render_diagrams
from dmbench.render.plantuml import JAVA_HINT, NO_JAVA, RenderError

REJECTED = '@startuml\nclass Order\nclass Item\nOrder "" --|> "" Item\n@enduml\n'
"""An empty cardinality, as many LLM outputs write it: PlantUML calls it a syntax error."""
NO_DIAGRAM = "class Order\nclass Item\n"


@pytest.fixture(scope="module")
def reference() -> str:
    return next(r.reference for r in load_records(built_package()) if r.id == "ds1-BankAccount")


@pytest.fixture(scope="module")
def batch(tmp_path_factory, reference: str):
    cache = tmp_path_factory.mktemp("render-cache")
    return cache, render_diagrams([reference, REJECTED, NO_DIAGRAM, reference], cache)


def test_one_jvm_draws_the_distinct_diagrams(batch, reference: str) -> None:
    cache, result = batch
    assert (result.drawn, result.cached, result.rejected) == (3, 0, 2)
    drawing = result.renderings[sha256_text(reference)]
    assert drawing.ok and drawing.path == cache / f"{sha256_text(reference)}.svg"
    svg = drawing.path.read_text("utf-8")
    assert svg.lstrip().startswith(("<?xml", "<svg")) and "</svg>" in svg
    assert ">Account<" in svg  # class names are drawn as text


def test_a_rejected_diagram_is_an_error_card_with_plantumls_message(batch) -> None:
    _, result = batch
    rejected = result.renderings[sha256_text(REJECTED)]
    assert rejected.error == "line 4: Syntax Error?"
    card = rejected.path.read_text("utf-8")
    assert "PlantUML rejected this diagram" in card and "Syntax Error?" in card
    assert '4| Order "" --|&gt; "" Item' in card
    assert "plantuml.com" not in card  # not PlantUML's own error screen with its upgrade nag
    missing = result.renderings[sha256_text(NO_DIAGRAM)]
    assert missing.error == "no image: no @startuml … @enduml block"


def test_the_cache_answers_without_java(batch, reference: str, monkeypatch) -> None:
    """A warm run starts no JVM: it succeeds with no Java on the machine."""
    cache, first = batch
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    again = render_diagrams([REJECTED, reference, NO_DIAGRAM], cache)
    assert (again.drawn, again.cached, again.rejected) == (0, 3, 2)
    assert again.renderings[sha256_text(REJECTED)] == first.renderings[sha256_text(REJECTED)]
    assert again.renderings[sha256_text(reference)] == first.renderings[sha256_text(reference)]


def test_cache_path_names_the_plantuml_version() -> None:
    assert cache_dir_for(Path("pkg")).name == f"plantuml-{PLANTUML_VERSION}-smetana"


def test_missing_java_is_one_line_with_the_fix(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(MissingPrerequisiteError) as raised:
        render_diagrams(["@startuml\nclass A\n@enduml\n"], tmp_path / "cache")
    assert str(raised.value) == NO_JAVA
    assert raised.value.hint == JAVA_HINT and "apt-get install default-jre-headless" in JAVA_HINT


def test_missing_java_from_the_shell(tmp_path: Path) -> None:
    """``dmbench render`` on a package with no Java: exit 1, one line, no traceback."""
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "dmbench"), "render", "--package", str(built_package())],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == f"Error: {NO_JAVA} (hint: {JAVA_HINT})"


def test_plantuml_failing_itself_is_an_error_not_a_card(tmp_path: Path, monkeypatch) -> None:
    """A Java that dies (here: a stand-in that exits 1) is reported, and nothing is cached."""
    java_home = tmp_path / "jre"
    (java_home / "bin").mkdir(parents=True)
    fake = java_home / "bin" / "java"
    fake.write_text("#!/bin/sh\necho 'Error: Unable to access jarfile' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(java_home))
    with pytest.raises(RenderError, match="exited with code 1: Error: Unable to access jarfile"):
        render_diagrams(["@startuml\nclass A\n@enduml\n"], tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.svg"))
