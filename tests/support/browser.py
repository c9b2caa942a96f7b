"""Headless Chromium driven over the DevTools protocol: load a page, collect what went wrong.

Chromium is started with a fresh profile and ``--remote-debugging-port=0``; it writes the port
it chose to ``DevToolsActivePort`` in the profile, so nothing races for a fixed port. Every
console message, uncaught exception, log entry and failed or non-local request of a page load is
collected from the protocol's events, and every ``<img>`` is asked whether it decoded.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import websocket

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
)


def find_chromium() -> str | None:
    return next((p for n in ("chromium", "chromium-browser") if (p := shutil.which(n))), None)


@dataclass
class PageLoad:
    url: str
    console: list[str] = field(default_factory=list)
    """Console messages of level error or warning, exceptions and error log entries."""
    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    title: str = ""


class Chromium:
    def __init__(self, width: int = 1366, height: int = 900) -> None:
        binary = find_chromium()
        if binary is None:
            raise RuntimeError("chromium is not installed (bash scripts/setup.sh installs it)")
        self._profile = Path(tempfile.mkdtemp(prefix="dmbench-chromium-"))
        self._process = subprocess.Popen(
            [
                binary,
                *FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port = self._wait_for_port()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as reply:
            pages = [t for t in json.load(reply) if t["type"] == "page"]
        self._socket = websocket.create_connection(
            pages[0]["webSocketDebuggerUrl"], timeout=30, suppress_origin=True
        )
        self._next_id = 0
        self._events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def _wait_for_port(self) -> int:
        marker = self._profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if marker.exists() and (lines := marker.read_text().splitlines()):
                return int(lines[0])
            if self._process.poll() is not None:
                raise RuntimeError(f"chromium exited with code {self._process.returncode}")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its DevTools port in 30 s")

    def call(self, method: str, **params) -> dict:
        self._next_id += 1
        self._socket.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv())
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._events.append(message)

    def _wait_for(self, event: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self._events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {event} in {timeout} s")
            self._events.append(json.loads(self._socket.recv()))

    def load(self, url: str) -> PageLoad:
        self._events.clear()
        self.call("Page.navigate", url=url)
        self._wait_for("Page.loadEventFired")
        self.call("Runtime.evaluate", expression="1", awaitPromise=True)  # flush pending events
        load = PageLoad(url)
        for event in self._events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "warning"):
                load.console.append(" ".join(str(a.get("value", a)) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                load.console.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                load.console.append(params["entry"]["text"])
            elif method == "Network.requestWillBeSent":
                load.requests.append(params["request"]["url"])
            elif method == "Network.loadingFailed":
                load.failed.append(params.get("errorText", "failed"))
        load.broken_images = self.evaluate(
            "Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
            ".map(i => i.src)"
        )
        load.title = self.evaluate("document.title")
        return load

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def set_viewport(self, width: int | None, height: int | None = None) -> None:
        """Lay pages out in a ``width`` x ``height`` viewport; None gives back the window's."""
        if width is None:
            self.call("Emulation.clearDeviceMetricsOverride")
            return
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def wheel(self, x: float, y: float, delta_y: float) -> None:
        """Turn the mouse wheel at (x, y) of the viewport (negative: away from the user)."""
        self.call("Input.dispatchMouseEvent", type="mouseWheel", x=x, y=y, deltaX=0, deltaY=delta_y)

    def drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 5) -> None:
        """Press the left button at ``start``, move to ``end`` in ``steps`` and let go."""
        (x0, y0), (x1, y1) = start, end
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x0, y=y0)
        self.call(
            "Input.dispatchMouseEvent", type="mousePressed", x=x0, y=y0, button="left",
            buttons=1, clickCount=1,
        )  # fmt: skip
        for step in range(1, steps + 1):
            x, y = x0 + (x1 - x0) * step / steps, y0 + (y1 - y0) * step / steps
            self.call(
                "Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y, button="left", buttons=1
            )
        self.call(
            "Input.dispatchMouseEvent", type="mouseReleased", x=x1, y=y1, button="left",
            buttons=0, clickCount=1,
        )  # fmt: skip

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": size["height"],
                "scale": 1,
            }
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self._socket.close()
        finally:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
