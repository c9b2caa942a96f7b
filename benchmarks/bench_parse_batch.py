"""``dmbench parse --jsonl`` over every PlantUML string upstream published, per reading.

Run: ``.venv/bin/python benchmarks/bench_parse_batch.py [--sources DIR]``. The batch holds the
references and every published output (what the parity tests read); the command runs in this
process, as the test runs it, so the numbers leave out interpreter start-up.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from click.testing import CliRunner

from dmbench.cli import main as dmbench
from dmbench.core import paths
from dmbench.plantuml import READINGS
from dmbench.sources.published import output_rows, reference_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, default=None)
    sources = parser.parse_args().sources or paths.default_sources_dir()
    rows = [*reference_rows(sources), *output_rows(sources)]
    with tempfile.TemporaryDirectory() as folder:
        batch = Path(folder) / "in.jsonl"
        batch.write_text("".join(json.dumps({"id": r.id, "text": r.text}) + "\n" for r in rows))
        for reading in READINGS:
            started = time.perf_counter()
            result = CliRunner().invoke(
                dmbench, ["parse", "--jsonl", str(batch), "--reading", reading]
            )
            seconds = time.perf_counter() - started
            assert result.exit_code == 0, result.output
            print(f"{reading:<8} {len(rows)} strings {seconds:6.2f} s")


if __name__ == "__main__":
    main()
