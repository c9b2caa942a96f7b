"""A real HTTP server on 127.0.0.1 that speaks the part of Zenodo's deposit API dmbench uses.

Depositions with a pre-reserved DOI, metadata updates, file uploads into a bucket (answering
with the md5 it computed, as Zenodo does), new versions with the previous files copied in, and
per-route failures for error tests. Every request is logged in order.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = "test-token"


@dataclass
class Deposition:
    id: int
    bucket: str
    metadata: dict[str, Any] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)


class FakeZenodo:
    def __init__(self) -> None:
        self.depositions: dict[int, Deposition] = {}
        self.requests: list[tuple[str, str]] = []
        self.failures: dict[tuple[str, str], int] = {}
        """(method, path regex) -> HTTP status to answer instead."""
        self.corrupt_checksums = False
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(  # stop() waits up to one poll: 0.5 s by default
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    @property
    def api(self) -> str:
        return f"{self.url}/api"

    def start(self) -> FakeZenodo:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def publish(self, metadata: dict[str, Any], files: dict[str, bytes]) -> int:
        """A published record to make new versions of."""
        with self._lock:
            record = self._new(metadata)
            record.files.update(files)
        return record.id

    def _new(self, metadata: dict[str, Any]) -> Deposition:
        self._next_id += 1
        record = Deposition(self._next_id, f"{self.api}/files/bucket-{self._next_id}")
        record.metadata = dict(metadata)
        if record.metadata.pop("prereserve_doi", False):
            record.metadata["prereserve_doi"] = {
                "doi": f"10.5072/zenodo.{record.id}",
                "recid": record.id,
            }
        self.depositions[record.id] = record
        return record

    def _json(self, record: Deposition) -> dict[str, Any]:
        return {
            "id": record.id,
            "metadata": record.metadata,
            "links": {
                "bucket": record.bucket,
                "html": f"{self.url}/deposit/{record.id}",
                "self": f"{self.api}/deposit/depositions/{record.id}",
            },
        }

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any = None) -> None:
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _route(self, method: str) -> None:
                body = self._body()
                path = self.path.split("?", 1)[0]
                with fake._lock:
                    fake.requests.append((method, path))
                    if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                        return self._send(401, {"status": 401, "message": "The server could not verify that you are authorized to access the URL requested."})
                    for (fail_method, pattern), status in fake.failures.items():
                        if fail_method == method and re.fullmatch(pattern, path):
                            return self._send(status, {"status": status, "message": "Simulated failure."})
                    return self._dispatch(method, path, body)

            def _dispatch(self, method: str, path: str, body: bytes) -> None:
                deps = fake.depositions
                if method == "POST" and path == "/api/deposit/depositions":
                    record = fake._new(json.loads(body or b"{}").get("metadata", {}))
                    return self._send(201, fake._json(record))
                match = re.fullmatch(r"/api/deposit/depositions/(\d+)(/.*)?", path)
                if match and int(match.group(1)) in deps:
                    record, rest = deps[int(match.group(1))], match.group(2) or ""
                    if method == "GET" and not rest:
                        return self._send(200, fake._json(record))
                    if method == "PUT" and not rest:
                        metadata = json.loads(body)["metadata"]
                        reserved = record.metadata.get("prereserve_doi")
                        if metadata.pop("prereserve_doi", False) and not reserved:
                            reserved = {"doi": f"10.5072/zenodo.{record.id}", "recid": record.id}
                        record.metadata = {**metadata, **({"prereserve_doi": reserved} if reserved else {})}
                        return self._send(200, fake._json(record))
                    if method == "POST" and rest == "/actions/newversion":
                        draft = fake._new({**record.metadata, "prereserve_doi": True})
                        draft.files = dict(record.files)
                        answer = fake._json(record)
                        answer["links"]["latest_draft"] = f"{fake.api}/deposit/depositions/{draft.id}"
                        return self._send(201, answer)
                    if method == "GET" and rest == "/files":
                        return self._send(200, [{"id": f"f-{name}", "filename": name} for name in record.files])
                    file_match = re.fullmatch(r"/files/f-(.+)", rest)
                    if method == "DELETE" and file_match and file_match.group(1) in record.files:
                        del record.files[file_match.group(1)]
                        return self._send(204)
                bucket = re.fullmatch(r"/api/files/bucket-(\d+)/(.+)", path)
                if method == "PUT" and bucket and int(bucket.group(1)) in deps:
                    name = bucket.group(2)
                    deps[int(bucket.group(1))].files[name] = body
                    digest = hashlib.md5(b"x" + body if fake.corrupt_checksums else body).hexdigest()
                    return self._send(201, {"key": name, "size": len(body), "checksum": f"md5:{digest}"})
                return self._send(404, {"status": 404, "message": "The requested URL was not found on the server."})

            def do_GET(self) -> None:  # noqa: N802
                self._route("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._route("POST")

            def do_PUT(self) -> None:  # noqa: N802
                self._route("PUT")

            def do_DELETE(self) -> None:  # noqa: N802
                self._route("DELETE")

        return Handler
