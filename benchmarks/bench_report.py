"""Render every distinct diagram of the report cold and warm, and build the whole site.

Run after the main job, from the checkout: ``.venv/bin/python benchmarks/bench_report.py
[PACKAGE_DIR]``. The cold pass draws into a fresh cache (one JVM for the whole batch); the warm
pass asks the same cache again; the site build uses the warm cache and writes to a temporary
folder, whose size is printed (all files, and the HTML alone); the warm rebuild builds into the
same folder again from unchanged inputs, which keeps the site. The machine's load average is
printed beside, since PlantUML's time moves with it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from dmbench.render import LAYOUT, PLANTUML_VERSION, render_diagrams
from dmbench.report import build_site
from dmbench.report.data import record_views


def main() -> int:
    package = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    views = record_views(package)
    sources = [v.record.reference for v in views] + [
        o.generated for v in views for _, runs in v.outputs for o in runs if o.has_diagram
    ]
    with tempfile.TemporaryDirectory(prefix="dmbench-bench-report-") as tmp:
        cache = Path(tmp) / "cache"
        cold = render_diagrams(sources, cache)
        print(
            f"PlantUML {PLANTUML_VERSION} ({LAYOUT}), {len(sources)} diagrams shown, "
            f"{len(cold.renderings)} distinct, {cold.rejected} rejected; load {os.getloadavg()[0]:.1f}"
        )
        print(f"cold render: {cold.seconds:7.2f} s ({cold.drawn} drawn in one JVM)")
        warm = render_diagrams(sources, cache)
        print(f"warm render: {warm.seconds:7.2f} s ({warm.cached} from the cache)")
        started = time.perf_counter()
        site = build_site(package, Path(tmp) / "site", cache_dir=cache)
        print(f"site build:  {time.perf_counter() - started:7.2f} s (warm cache; {site.summary()})")
        files = [p for p in site.out_dir.rglob("*") if p.is_file()]
        html = [p for p in files if p.suffix == ".html"]
        print(
            f"site size:   {_mb(files)} in {len(files)} files; HTML {_mb(html)} in {len(html)} "
            f"pages (largest {max(p.stat().st_size for p in html) / 1e6:.2f} MB)"
        )
        started = time.perf_counter()
        build_site(package, Path(tmp) / "site", cache_dir=cache)
        print(f"warm rebuild: {time.perf_counter() - started:6.2f} s (unchanged inputs: site kept)")
    return 0


def _mb(paths: list[Path]) -> str:
    return f"{sum(p.stat().st_size for p in paths) / 1e6:.1f} MB"


if __name__ == "__main__":
    sys.exit(main())
