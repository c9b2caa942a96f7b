"""A judge that answers every call with a huge reply: the size of the judge run and the memory.

Run: ``.venv/bin/python benchmarks/bench_judge_replies.py [PACKAGE]`` (default: the tests'
built package, copied). ``dmbench judge --runs`` over one 8-record DS-2 run, both orders,
against the scripted Ollama server of the tests answering every call with a 15 MiB reply that
is not JSON (under the client's 16 MiB cap, rejected and asked again up to 3 times): 48
replies, 720 MiB in all. Prints the size of ``judgements.jsonl`` and the judge process's peak
RSS (issue 37: 503 MB and 2.0 GB before replies were stored bounded), and the same with 1 MiB
replies: the memory does not grow with the reply size. Each size runs in a process of its own
that reports its own peak.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from fake_ollama import MODEL, FakeOllama, Reply  # noqa: E402

REPLY_MIB = (1, 15)
RUN = "calamo__glm-5.1_cloud__ds2__run1"


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        one(Path(sys.argv[3]), int(sys.argv[2]))
        return
    if len(sys.argv) > 1:
        source = Path(sys.argv[1])
    else:
        import results_support

        source = results_support.built_package()
    for mib in REPLY_MIB:
        subprocess.run([sys.executable, __file__, "--one", str(mib), str(source)], check=True)


def one(source: Path, mib: int) -> None:
    """One judge run against replies of ``mib`` MiB, in this process's child."""
    huge = "x" * (mib * 2**20)
    server = FakeOllama().start()
    server.responder = lambda body: Reply(huge)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-judge-replies-") as tmp:
            package = Path(tmp) / "package"
            shutil.copytree(source, package)
            started = time.perf_counter()
            result = subprocess.run(
                [str(Path(sys.executable).parent / "dmbench"), "judge", "--runs", RUN,
                 "--model", MODEL, "--host", server.url, "--package", str(package), "--quiet"],
                capture_output=True, text=True, check=False,
                env={"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(Path(tmp) / "cache"),
                     "HOME": tmp},
            )  # fmt: skip
            seconds = time.perf_counter() - started
            peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            stored = sum(p.stat().st_size for p in package.glob("runs/judge__*/*.jsonl"))
    finally:
        server.stop()
    print(f"{mib} MiB replies: exit {result.returncode}; {seconds:.1f} s; "
          f"{len(server.chats())} calls")
    print(f"judge run files (*.jsonl): {stored / 2**20:.2f} MiB")
    print(f"peak RSS of dmbench judge: {peak_mib:.0f} MiB")
    if result.returncode:
        print(result.stderr[-500:])


if __name__ == "__main__":
    main()
