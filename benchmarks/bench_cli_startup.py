"""Start-up of the quick commands, to check that reaching the library through ``dmbench.api``
costs them nothing: the API loads its heavy stages only when a verb needs them.

Run: ``.venv/bin/python benchmarks/bench_cli_startup.py [RUNS]`` from the checkout. Each command
runs RUNS times (default 7) in a fresh child process; the best CPU time (user + sys, from
``os.wait4``, since the machine is shared) and the best wall time are printed, with the modules
that ``import dmbench.api`` alone loads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DMBENCH = Path(sys.executable).with_name("dmbench")
REFERENCE = "@startuml\nclass Customer {\n  name\n}\nCustomer -- Order\n@enduml\n"
GENERATED = "@startuml\nclass Client {\n  fullName\n}\n@enduml\n"


def best(command: list[str], runs: int) -> tuple[float, float]:
    """The least (CPU, wall) seconds of ``runs`` child processes; each must succeed."""
    cpu, wall = [], []
    for _ in range(runs):
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _pid, status, usage = os.wait4(process.pid, 0)
        wall.append(time.perf_counter() - started)
        error = process.stderr.read().decode() if process.stderr else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(command)} failed: {error}")
        cpu.append(usage.ru_utime + usage.ru_stime)
    return min(cpu), min(wall)


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory(prefix="dmbench-startup-") as folder:
        reference, generated = Path(folder) / "ref.puml", Path(folder) / "gen.puml"
        reference.write_text(REFERENCE, encoding="utf-8")
        generated.write_text(GENERATED, encoding="utf-8")
        commands = {
            "dmbench --help": [str(DMBENCH), "--help"],
            "dmbench parse x.puml": [str(DMBENCH), "parse", str(reference)],
            "dmbench score-pair": [str(DMBENCH), "score-pair", str(reference), str(generated)],
            "import dmbench.api": [sys.executable, "-c", "import dmbench.api"],
        }
        print(f"{'command':<24} {'CPU s':>7} {'wall s':>7}   (best of {runs})")
        for name, command in commands.items():
            cpu, wall = best(command, runs)
            print(f"{name:<24} {cpu:>7.3f} {wall:>7.3f}")
    probe = "import sys, dmbench.api; print(len([m for m in sys.modules if m.startswith('dmbench')]))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    print(f"dmbench modules loaded by `import dmbench.api`: {loaded.stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
