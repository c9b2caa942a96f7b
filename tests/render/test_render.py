"""Rendering with the real PlantUML jar and Graphviz: verdicts, repairs, crash retries, the
sandbox, per-diagram isolation, the cache, a killed render, no Java."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from results_support import built_package

from dmbench.core.hashing import sha256_text
from dmbench.errors import MissingPrerequisiteError
from dmbench.package import load_records
from dmbench.plantuml.repairs import EMPTY_MULTIPLICITY
from dmbench.render import LAYOUT, PLANTUML_VERSION, cache_dir_for, plantuml, render_diagrams
from dmbench.render.plantuml import JAVA_HINT, NO_JAVA, RenderError

REJECTED = '@startuml\nclass Order\nclass Item\nOrder "" --|> "" Item\n@enduml\n'
"""An empty cardinality, as many LLM outputs write it: PlantUML calls it a syntax error."""
NO_DIAGRAM = "class Order\nclass Item\n"
PROBE = "s3cret-probe-value"
HOSTILE = [
    '@startuml\nclass A {\n  x : %getenv("DMBENCH_PROBE")\n}\n@enduml\n',
    '@startuml\n!$v = %getenv("DMBENCH_PROBE")\nclass A\nnote "$v" as N\n@enduml\n',
    '@startuml\nclass A {\n  x : %call_user_func("getenv", "DMBENCH_PROBE")\n}\n@enduml\n',
    "@startuml\n!include /etc/passwd\nclass A\n@enduml\n",
    "@startuml\n!theme spacelab from http://127.0.0.1:9/themes\nclass A\n@enduml\n",
    "@startuml\nclass A [[http://example.org/leak]]\n@enduml\n",
    "@startuml\nclass A {\n  x : <img:/etc/hostname>\n}\n@enduml\n",
    "@startditaa\n+--+\n|A |\n+--+\n@endditaa\n",
]


@pytest.fixture(scope="module")
def reference() -> str:
    return next(r.reference for r in load_records(built_package()) if r.id == "ds1-BankAccount")


@pytest.fixture(scope="module")
def batch(tmp_path_factory, reference: str):
    cache = tmp_path_factory.mktemp("render-cache")
    return cache, render_diagrams([reference, REJECTED, NO_DIAGRAM, reference], cache)


def test_one_jvm_draws_the_distinct_diagrams(batch, reference: str) -> None:
    cache, result = batch
    assert (result.drawn, result.cached, result.rejected, result.failed) == (3, 0, 1, 1)
    drawing = result.renderings[sha256_text(reference)]
    assert drawing.ok and drawing.verdict == "accepted" and drawing.layout == LAYOUT
    assert drawing.path == cache / f"{sha256_text(reference)}.svg" and drawing.badge is None
    svg = drawing.path.read_text("utf-8")
    assert svg.startswith("<svg") and "contentStyleType" in svg and "</svg>" in svg
    assert ">Account<" in svg  # class names are drawn as text


def test_a_rejected_diagram_is_drawn_repaired_with_plantumls_message(batch) -> None:
    _, result = batch
    rejected = result.renderings[sha256_text(REJECTED)]
    assert (rejected.verdict, rejected.ok, rejected.repairs) == (
        "rejected",
        True,
        (EMPTY_MULTIPLICITY,),
    )
    assert rejected.message == "line 4: Syntax Error?"
    assert rejected.badge == (
        'PlantUML rejects line 4: Syntax Error?; drawn after the repair: empty multiplicity "" '
        "dropped"
    )
    svg = rejected.path.read_text("utf-8")
    assert ">Order<" in svg and ">Item<" in svg and "error has occur" not in svg


def test_no_diagram_is_not_drawn_and_says_why(batch) -> None:
    _, result = batch
    missing = result.renderings[sha256_text(NO_DIAGRAM)]
    assert (missing.ok, missing.path, missing.verdict) == (False, None, "failed")
    assert missing.error == "PlantUML drew nothing (no @startuml … @enduml block)"
    assert missing.badge == f"Not drawn: {missing.error}"


def test_the_cache_answers_without_java(batch, reference: str, monkeypatch) -> None:
    """A warm run starts no JVM: it succeeds with no Java or Graphviz on the machine."""
    cache, first = batch
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    again = render_diagrams([REJECTED, reference, NO_DIAGRAM], cache)
    assert (again.drawn, again.cached, again.rejected, again.failed) == (0, 3, 1, 1)
    for source in (REJECTED, reference, NO_DIAGRAM):
        assert again.renderings[sha256_text(source)] == first.renderings[sha256_text(source)]


def test_cache_path_names_the_plantuml_version_and_layout() -> None:
    assert cache_dir_for(Path("pkg")).name == f"plantuml-{PLANTUML_VERSION}-dot-v2"


def test_a_crash_dump_is_retried_with_the_other_layout(tmp_path: Path, monkeypatch) -> None:
    """ds2-CelO's reference crashes PlantUML 1.2022.6's smetana (its exception screen, written
    as if it were the drawing); with smetana first, dot draws it and the badge says so."""
    celo = next(r.reference for r in load_records(built_package()) if r.id == "ds2-CelO")
    monkeypatch.setattr(plantuml, "LAYOUT", "smetana")
    monkeypatch.setattr(plantuml, "FALLBACK_LAYOUT", "dot")
    rendering = render_diagrams([celo], tmp_path).renderings[sha256_text(celo)]
    assert (rendering.verdict, rendering.ok, rendering.layout) == ("crashed", True, "dot")
    assert rendering.badge == "PlantUML's smetana layout crashed; drawn with the dot layout instead"
    assert "error has occur" not in rendering.path.read_text("utf-8")


def test_hostile_sources_leak_no_environment(tmp_path: Path, monkeypatch, reference: str) -> None:
    """Planted secrets reach no SVG; each hostile diagram is refused with a reason, the rest drawn."""
    monkeypatch.setenv("DMBENCH_PROBE", PROBE)
    result = render_diagrams([*HOSTILE, reference], tmp_path)
    for source in HOSTILE:
        rendering = result.renderings[sha256_text(source)]
        assert not rendering.ok and rendering.error, source
    assert result.renderings[sha256_text(reference)].ok
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert PROBE not in path.read_text("utf-8", errors="replace"), path
    reasons = [result.renderings[sha256_text(s)].error for s in HOSTILE]
    assert reasons[0] == "calls the preprocessor function %getenv, which could read the environment"
    assert reasons[3] == "uses !include, which reads files or URLs"
    assert reasons[-1] == "a @startditaa diagram, not a class diagram"


def test_the_jvm_gets_no_environment(tmp_path: Path, monkeypatch) -> None:
    """Even past the sandbox's checks, PlantUML could not read a planted variable: here the check
    is bypassed and the variable is asked for by name."""
    monkeypatch.setenv("DMBENCH_PROBE", PROBE)
    monkeypatch.setattr(plantuml, "refusal", lambda source: None)
    source = '@startuml\nclass A {\n  x : %getenv("DMBENCH_PROBE")\n}\n@enduml\n'
    rendering = render_diagrams([source], tmp_path).renderings[sha256_text(source)]
    assert rendering.ok
    assert PROBE not in rendering.path.read_text("utf-8")


def _java_breaking_on(tmp_path: Path, marker: str) -> Path:
    """A java that dies (exit 1) when any diagram it is given holds ``marker``, else the real one."""
    java_home = tmp_path / "jre"
    (java_home / "bin").mkdir(parents=True)
    real = plantuml.find_java()
    wrapper = java_home / "bin" / "java"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'for a in "$@"; do case "$a" in *.puml) grep -q {marker} "$a" && exit 1;; esac; done\n'
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    return java_home


def test_a_diagram_that_kills_the_jvm_fails_alone(tmp_path: Path, monkeypatch, reference) -> None:
    """The batch is split until the culprit is alone: the others are drawn and cached."""
    monkeypatch.setenv("JAVA_HOME", str(_java_breaking_on(tmp_path, "KillsTheJvm")))
    culprit = "@startuml\nclass KillsTheJvm\n@enduml\n"
    result = render_diagrams([reference, culprit, REJECTED], tmp_path / "cache")
    failed = result.renderings[sha256_text(culprit)]
    assert (failed.ok, failed.verdict) == (False, "failed")
    assert failed.error.startswith("PlantUML exited with code 1")
    assert result.renderings[sha256_text(reference)].ok
    assert result.renderings[sha256_text(REJECTED)].repaired
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setenv("PATH", "/nonexistent")
    again = render_diagrams([reference, culprit, REJECTED], tmp_path / "cache")
    assert again.cached == 3


def test_plantuml_failing_itself_is_an_error(tmp_path: Path, monkeypatch) -> None:
    """A Java that always dies is PlantUML's failure, not each diagram's; nothing is cached."""
    monkeypatch.setenv("JAVA_HOME", str(_java_breaking_on(tmp_path, "class")))
    with pytest.raises(RenderError, match="exited with code 1"):
        render_diagrams(["@startuml\nclass A\n@enduml\n", "@startuml\nclass B\n@enduml\n"], tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.json"))


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


KILLED_RENDER = """
import sys
from dmbench.render import render_diagrams
sources = ["@startuml\\nclass C%d\\nC%d --> D%d\\n@enduml\\n" % (i, i, i) for i in range(400)]
render_diagrams(sources, sys.argv[1])
"""


def _jvms_under(folder: Path) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if proc.name.isdigit() and str(folder).encode() in command and b"plantuml" in command:
            found.append(int(proc.name))
    return found


def test_a_killed_render_leaves_no_jvm_and_its_folder_is_swept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    render = subprocess.Popen([sys.executable, "-c", KILLED_RENDER, str(cache)])
    deadline = time.monotonic() + 120
    while not _jvms_under(cache) and time.monotonic() < deadline and render.poll() is None:
        time.sleep(0.2)
    assert _jvms_under(cache), "the render never started its JVM"
    render.send_signal(signal.SIGKILL)
    render.wait()
    deadline = time.monotonic() + 30
    while _jvms_under(cache) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _jvms_under(cache) == []
    assert list(cache.glob(".drawing-*"))  # the killed process could not clean up ...
    render_diagrams(["@startuml\nclass After\n@enduml\n"], cache)
    assert list(cache.glob(".drawing-*")) == []  # ... the next render does
