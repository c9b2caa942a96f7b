"""A candidate in any language: a command run once per record, text on stdin, PlantUML on stdout.

The command line is split as a shell would (``shlex``) but run without a shell; for a pipeline,
run ``sh -c '...'``. The record's id is in ``$DMBENCH_RECORD_ID``. A non-zero exit, a timeout or
output that is not UTF-8 is a failed output whose error holds the end of stderr: failures are
data, as for the LLM candidates. The run records the command line and the sha256 of every file
it names, as settings: change the script and the run id changes with it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

from dmbench.candidates.base import CandidateOutput, Record
from dmbench.core.hashing import file_sha256
from dmbench.core.registry import check_safe_name
from dmbench.errors import OptionError

DEFAULT_TIMEOUT = 600.0
RECORD_ID_VARIABLE = "DMBENCH_RECORD_ID"
STDERR_TAIL = 500
"""Characters of stderr kept in a failed output's error."""


class CommandCandidate:
    """``command`` as a candidate named ``name``; ``workers`` records at once."""

    def __init__(
        self, command: str, name: str, timeout: float = DEFAULT_TIMEOUT, workers: int = 1
    ) -> None:
        self.name = check_safe_name("candidate", name)
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise OptionError(f"--command {command!r}: {exc}") from None
        if not self.argv:
            raise OptionError("--command is empty")
        if timeout <= 0:
            raise OptionError("--timeout must be more than 0 seconds")
        self.command = command
        self.timeout = float(timeout)
        self.workers = workers
        self.files = {arg: file_sha256(Path(arg)) for arg in self.argv if Path(arg).is_file()}

    def describe(self) -> dict[str, Any]:
        settings = {
            "uses_llm": False,
            "model": None,
            "command": self.command,
            "files_sha256": dict(self.files),
            "timeout_seconds": self.timeout,
        }
        provenance = {"candidate": {"kind": "command", "command": self.command,
                                    "files_sha256": dict(self.files)}}  # fmt: skip
        return {"settings": settings, "provenance": provenance}

    def generate(self, record: Record) -> CandidateOutput:
        started = time.perf_counter()
        environment = {**os.environ, RECORD_ID_VARIABLE: record.id}
        try:
            done = subprocess.run(
                self.argv, input=record.text.encode("utf-8"), capture_output=True,
                timeout=self.timeout, env=environment, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            return self._failed(f"timeout after {self.timeout:g} s", exc.stderr, started)
        except OSError as exc:
            return self._failed(f"cannot run {self.argv[0]!r}: {exc.strerror}", b"", started)
        if done.returncode != 0:
            return self._failed(f"exit status {done.returncode}", done.stderr, started)
        try:
            generated = done.stdout.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self._failed(f"output is not UTF-8 (byte {exc.start})", done.stderr, started)
        return CandidateOutput(
            generated, False, None, "", round(time.perf_counter() - started, 3)
        )

    def _failed(self, why: str, stderr: bytes | None, started: float) -> CandidateOutput:
        tail = (stderr or b"").decode("utf-8", "replace").strip()[-STDERR_TAIL:]
        error = f"command: {why}" + (f": {tail}" if tail else "")
        return CandidateOutput("", True, error, "", round(time.perf_counter() - started, 3))
