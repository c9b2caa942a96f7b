"""A local stand-in for GitHub's codeload: the pinned archives served from 127.0.0.1."""

from __future__ import annotations

import http.server
import io
import tarfile
import threading
import time
from pathlib import Path

from dmbench.sources import repositories


def make_archive(upstream: Path, repo, tamper: str | None = None, extra=()) -> bytes:
    """A codeload-style tar.gz of the repository's pinned files under ``<name>-<commit>/``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for pin in repo.files:
            data = (upstream / pin.relpath).read_bytes()
            if pin.path == tamper:
                data = data[:-1] + bytes([data[-1] ^ 1])
            info = tarfile.TarInfo(f"{repo.name}-{repo.commit}/{pin.path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info, data in extra:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


class ArchiveServer:
    """Serves ``/<owner>/<repo>/tar.gz/<commit>`` from a dict on 127.0.0.1."""

    def __init__(
        self,
        archives: dict[str, bytes],
        truncate_to: int | None = None,
        endless: bool = False,
        trickle: float = 0.0,
        trickle_body: float = 0.0,
    ) -> None:
        """``truncate_to``: send only that many bytes of each body (after the full
        Content-Length); ``endless``: a chunked body of zeros that never ends; ``trickle``:
        seconds between the bytes of the reply, from its status line on; ``trickle_body``:
        the same once the status line and headers are sent at once."""
        archives_ = archives
        self.requests: list[str] = []
        requests = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                requests.append(self.path)
                body = archives_.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                if trickle or trickle_body:
                    pad = "x" * 100  # headers that alone take 100 * trickle seconds
                    head = f"HTTP/1.1 200 OK\r\nX-Pad: {pad}\r\nContent-Length: {len(body)}\r\n\r\n"
                    try:
                        if trickle_body:
                            self.wfile.write(head.encode())
                        for byte in body if trickle_body else head.encode() + body:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(trickle or trickle_body)
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client gave up, as it should
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-gzip")
                try:
                    if endless:
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        chunk = bytes(65536)
                        while True:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[:truncate_to])
                    if truncate_to is not None:
                        self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading, as it should

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(  # shutdown waits up to one poll: 0.5 s by default
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> ArchiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def served(upstream: Path, tamper: str | None = None) -> dict[str, bytes]:
    return {
        f"/{repo.owner}/{repo.name}/tar.gz/{repo.commit}": make_archive(upstream, repo, tamper)
        for repo in repositories()
    }
