"""Every figure of the speed issue (#25) in one run, in CPU seconds (user + sys), beside the
figure the issue measured before the work.

Run: ``.venv/bin/python benchmarks/bench_speed.py [--reproduce]`` from the checkout, with
``../shared`` beside it. Each command runs in a fresh child process, whose CPU time is read
from the kernel (``os.wait4``), so imports and start-up count as a user sees them. CPU time is
the figure because this machine is shared: wall time is printed beside it. A cold
``score-pair`` is timed twice: first with an empty user cache (what a process derives from the
NLTK data is then derived and kept), then as any later process starts. ``--reproduce``
adds a second ``dmbench reproduce`` in the current package (run one first: the first draws
every diagram and takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DMBENCH = Path(sys.executable).with_name("dmbench")
STUDY = SHARED / "upstream" / "domainModel-Metrics-Comparison" / "data" / "combined-data.json"

#: figure -> (CPU seconds the issue measured before, or None where it measured none; target)
BEFORE = {
    "score-pair, empty cache": (None, "first ever: derives the NLTK files"),
    "score-pair, cold": (5.4, "<= 1.0"),
    "one pair, library": (None, "metric side of score-pair"),
    "--help": (1.8, "<= 0.5"),
    "parse x.puml": (1.9, "<= 0.5"),
    "reproduce, warm": (34.0, "<= 12"),
}
#: Upstream's published per-840-pair times of the metric study, CPU taken as wall.
UPSTREAM_840 = {"metrik-1": 17.0, "metrik-2": 16.6}


def run(command: list[str], cwd: Path = ROOT, env: dict | None = None) -> tuple[float, float]:
    """(CPU, wall) seconds of one child process; it must succeed."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()}")
    process.stderr.close()
    return usage.ru_utime + usage.ru_stime, wall


def example_pair(folder: Path) -> tuple[Path, Path]:
    """A reference and a generation of the metric study, as two PlantUML files."""
    model = json.loads(STUDY.read_text(encoding="utf-8"))["models"]["LabTracker"]
    reference, generated = folder / "ref.puml", folder / "gen.puml"
    reference.write_text(model["reference_plantuml"], encoding="utf-8")
    generated.write_text(next(iter(model["generated_plantuml"].values())), encoding="utf-8")
    return reference, generated


def study_metric(metric: str) -> dict:
    """bench_study_metrics' child: import, cold and warm passes over the 840 study pairs."""
    output = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_study_metrics.py"), "--child", metric],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return json.loads(output.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reproduce", action="store_true", help="also time a warm reproduce")
    args = parser.parse_args()
    rows: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        reference, generated = example_pair(Path(folder))
        score_pair = [str(DMBENCH), "score-pair", str(reference), str(generated)]
        # A cache of this run's own: empty for the first row, then as that row left it.
        bench_cache = {**os.environ, "XDG_CACHE_HOME": str(Path(folder) / "cache")}
        rows.append(("score-pair, empty cache", *run(score_pair, env=bench_cache)))
        rows.append(("score-pair, cold", *run(score_pair, env=bench_cache)))
        library = (
            "import sys; from pathlib import Path; from dmbench.metrics import explain; "
            "explain(*(Path(p).read_text() for p in sys.argv[1:]), 'metrik-4')"
        )
        one_pair = [sys.executable, "-c", library, str(reference), str(generated)]
        rows.append(("one pair, library", *run(one_pair, env=bench_cache)))
        rows.append(("--help", *run([str(DMBENCH), "--help"], env=bench_cache)))
        rows.append(("parse x.puml", *run([str(DMBENCH), "parse", str(reference)], env=bench_cache)))
    if args.reproduce:
        rows.append(("reproduce, warm", *run([str(DMBENCH), "reproduce"])))
    print("CPU seconds (user + sys) of a fresh process; the machine may be loaded")
    print(f"{'figure':<22}{'before':>9}{'now':>9}{'wall':>9}  target")
    for name, cpu, wall in rows:
        before, target = BEFORE[name]
        shown = "-" if before is None else f"{before:.2f}"
        print(f"{name:<22}{shown:>9}{cpu:>9.2f}{wall:>9.2f}  {target}")
    print()
    print("metrik-1/-2 over the metric study's 840 pairs in one process, CPU seconds: cold is")
    print("the first pass (every text read, every pair compared), warm the same pairs again")
    print("(answered by the per-process scoring memo); x = upstream's time over ours")
    print(f"{'metric':<10}{'upstream':>10}{'cold':>8}{'warm':>8}{'cold x':>8}{'warm x':>8}  target")
    for metric, upstream in UPSTREAM_840.items():
        result = study_metric(metric)
        cold, warm = result["cold"][1], result["warm"][1]
        print(
            f"{metric:<10}{upstream:>10.2f}{cold:>8.3f}{warm:>8.3f}{upstream / cold:>8.0f}"
            f"{upstream / warm:>8.0f}  >= 100x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
