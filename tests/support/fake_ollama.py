"""A real HTTP server on 127.0.0.1 that speaks the part of the Ollama API dmbench uses.

Chat replies come from a script (one entry per ``/api/chat`` request, in order) or, when the
script is empty, from a responder function of the request body. Every request body is kept as
the exact bytes received, so tests can assert what the ``ollama`` client really sent (a
structured-output request carries its JSON Schema as ``format``, which :func:`judge_reply`
answers). A reply can end with any ``done_reason`` (``"length"``: cut off by ``num_predict``).

Started on its own it serves one canned reply to every chat, so that a newcomer can try
``dmbench generate`` without a model::

    python tests/support/fake_ollama.py --port 11500 --reply reply.txt [--model test-model]
    dmbench generate --candidate calamo --model test-model --host http://127.0.0.1:11500 ...
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

try:
    import pytest
except ImportError:  # started on its own, where the test dependencies need not be installed
    pytest = None  # type: ignore[assignment]

MODEL = "test-model:latest"
DIGEST = "sha256:" + "ab" * 32
VERSION = "0.6.3-fake"


@dataclass(frozen=True)
class Reply:
    content: str = ""
    thinking: str | None = None
    status: int = 200
    delay: float = 0.0
    done_reason: str = "stop"
    trickle: float = 0.0
    """Seconds between the bytes of the reply (headers included), when set."""
    trickle_body_only: bool = False
    """Send the status line and headers at once, and trickle only the body."""
    endless: bool = False
    """A chunked reply that never ends (until the client hangs up)."""


def wire_string(text: str) -> bytes:
    """``text`` as a JSON string the way the ollama client (httpx) puts it on the wire: quoted,
    escaped, non-ASCII characters left as UTF-8. Tests build whole expected bodies from it."""
    return json.dumps(text, ensure_ascii=False).encode("utf-8")


def diagram_reply(body: dict[str, Any]) -> Reply:
    """A deterministic valid diagram named after a hash of the user message."""
    user = body["messages"][-1].get("content", "")
    name = "C" + hashlib.sha256(user.encode()).hexdigest()[:8]
    return Reply(f"@startuml\nclass {name} {{\n  name : String\n}}\n{name} -- Other\n@enduml")


def criterion_ids(body: dict[str, Any]) -> list[str]:
    """The criterion ids a judge request's ``format`` schema requires, in its order."""
    return list(body["format"]["properties"]["scores"]["required"])


def judge_reply(a: int, b: int, reason: str = "scripted") -> Callable[[dict[str, Any]], Reply]:
    """A responder giving every criterion of the request's schema the scores ``a`` and ``b``."""

    def respond(body: dict[str, Any]) -> Reply:
        scores = {cid: {"A": a, "B": b, "reason": reason} for cid in criterion_ids(body)}
        return Reply(json.dumps({"scores": scores}))

    return respond


class FakeOllama:
    def __init__(
        self, models: dict[str, str] | None = None, version: str = VERSION, port: int = 0
    ) -> None:
        self.models = models if models is not None else {MODEL: DIGEST}
        self.version = version
        self.script: deque[Reply] = deque()
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.requests: list[tuple[str, str, bytes]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeOllama:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def chat_bodies(self) -> list[bytes]:
        with self._lock:
            return [body for method, path, body in self.requests if path == "/api/chat"]

    def chats(self) -> list[dict[str, Any]]:
        return [json.loads(body) for body in self.chat_bodies()]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.script:
                return self.script.popleft()
        if self.responder is None:
            raise AssertionError("the fake Ollama server got an unscripted chat request")
        return self.responder(body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                return

            def _send(
                self, status: int, data: dict[str, Any], trickle: float = 0.0, body_only=False
            ) -> None:
                payload = json.dumps(data).encode("utf-8")
                try:
                    if trickle:
                        head = (
                            f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
                            f"Content-Length: {len(payload)}\r\n\r\n"
                        ).encode()
                        if body_only:
                            self.wfile.write(head)
                        for byte in payload if body_only else head + payload:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(trickle)
                        return
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing left to answer

            def _send_endless(self) -> None:
                chunk = b"a" * 65536
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    start = b'{"message": {"role": "assistant", "content": "'
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(start), start))
                    while True:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading, as it should

            def _record(self) -> bytes | None:
                """The request body, kept; None when the client died before sending all of it
                (a SIGKILLed generate), which is then neither kept nor answered."""
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if len(body) < length:
                    return None
                with fake._lock:
                    fake.requests.append((self.command, self.path, body))
                return body

            def do_GET(self) -> None:
                if self._record() is None:
                    return
                if self.path == "/api/version":
                    self._send(200, {"version": fake.version})
                elif self.path == "/api/tags":
                    models = [{"name": m, "model": m, "digest": d} for m, d in fake.models.items()]
                    self._send(200, {"models": models})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                raw = self._record()
                if raw is None:
                    return
                body = json.loads(raw or b"{}")
                if self.path == "/api/show":
                    name = body.get("model", "")
                    if name not in fake.models and f"{name}:latest" not in fake.models:
                        self._send(404, {"error": f"model '{body.get('model')}' not found"})
                    else:
                        self._send(
                            200,
                            {
                                "details": {"family": "fake", "parameter_size": "1B"},
                                "model_info": {},
                            },
                        )
                elif self.path == "/api/chat":
                    reply = fake._next_reply(body)
                    time.sleep(reply.delay)
                    if reply.endless:
                        self._send_endless()
                        return
                    if reply.status != 200:
                        self._send(reply.status, {"error": "scripted failure"})
                        return
                    message = {"role": "assistant", "content": reply.content}
                    if reply.thinking is not None:
                        message["thinking"] = reply.thinking
                    self._send(
                        200,
                        {
                            "model": body.get("model"),
                            "created_at": "2026-11-29T00:00:00Z",
                            "message": message,
                            "done": True,
                            "done_reason": reply.done_reason,
                            "total_duration": 1000,
                            "load_duration": 10,
                            "prompt_eval_count": 7,
                            "prompt_eval_duration": 100,
                            "eval_count": 11,
                            "eval_duration": 800,
                        },
                        reply.trickle,
                        reply.trickle_body_only,
                    )
                else:
                    self._send(404, {"error": "not found"})

        return Handler


if pytest is not None:

    @pytest.fixture
    def fake_ollama():
        """A started fake server, stopped after the test."""
        server = FakeOllama().start()
        yield server
        server.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve ``--reply``'s text as the reply to every chat until interrupted."""
    parser = argparse.ArgumentParser(description="A fake Ollama server with one canned reply.")
    parser.add_argument("--port", type=int, default=11500, help="port on 127.0.0.1 (0: any)")
    parser.add_argument("--reply", type=Path, required=True, help="file holding the reply text")
    parser.add_argument("--model", default="test-model", help="the one model it serves")
    args = parser.parse_args(argv)
    try:
        reply = Reply(args.reply.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        parser.exit(1, f"fake_ollama: cannot read --reply {args.reply}: {exc}\n")
    model = args.model if ":" in args.model else f"{args.model}:latest"
    try:
        server = FakeOllama({model: DIGEST}, port=args.port)
    except OSError as exc:
        parser.exit(1, f"fake_ollama: cannot listen on port {args.port}: {exc.strerror}\n")
    server.responder = lambda body: reply
    print(f"fake Ollama serving {model} at {server.url} (Ctrl-C stops it)", flush=True)
    server._thread.run()  # serve in this thread until interrupted
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
