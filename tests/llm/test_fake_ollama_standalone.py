"""``python tests/support/fake_ollama.py --port P --reply FILE`` on its own: a newcomer's way to try
``dmbench generate`` without a model, here driven as a newcomer would, through two processes."""

from __future__ import annotations

import json
import subprocess
import sys

import fake_ollama

SERVER = fake_ollama.__file__
"""The server's own file, wherever the tests keep it."""


def test_the_fake_server_started_alone_answers_generate_with_the_canned_reply(tmp_path):
    reply = tmp_path / "reply.txt"
    reply.write_text("Here it is:\n@startuml\nclass Canned\n@enduml\n", "utf-8")
    server = subprocess.Popen(
        [sys.executable, SERVER, "--port", "0", "--reply",
         str(reply), "--model", "tiny"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        banner = server.stdout.readline()
        assert banner.startswith("fake Ollama serving tiny:latest at http://127.0.0.1:")
        url = banner.split(" at ")[1].split()[0]
        records = '{"id": "r1", "text": "A library lends books."}\n'
        done = subprocess.run(
            [sys.executable, "-m", "dmbench", "generate", "--candidate", "calamo", "--model",
             "tiny", "--host", url, "--records", "-"],
            input=records, capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        (line,) = done.stdout.splitlines()
        row = json.loads(line)
        assert (row["id"], row["failed"]) == ("r1", False) and "class Canned" in row["generated"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_missing_reply_file_is_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, SERVER, "--reply", str(tmp_path / "no")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and done.stderr.startswith("fake_ollama: cannot read --reply")
    assert len(done.stderr.splitlines()) == 1
