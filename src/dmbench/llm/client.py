"""A thin, recorded layer over the official ``ollama`` client: one system + one user turn.

It keeps the upstream call contract (spec B.2): ``stream`` off, ``think`` sent as a boolean,
options sent only when set, the reply's content stripped and, when that is empty, the stripped
thinking instead. What it adds, each recorded per call: an explicit timeout, bounded retries,
several hosts, a reply cache, and the model digest and server version the reply came from.

Failure names. Upstream called Ollama through ``requests``, so its failure strings read
``exception: <requests class>: <message>``. dmbench talks through ``ollama``/``httpx``, whose
exceptions differ; to keep failure strings comparable with the published runs, a failed call is
reported under the ``requests`` class upstream would have raised for the same condition, and the
class actually raised is kept in the call record (``error.raised``):

=================================================  ==================  =========
raised by ollama / httpx                           reported as         retried
=================================================  ==================  =========
``ollama.ResponseError`` with status 5xx            ``HTTPError``       yes
``ollama.ResponseError`` with status 4xx            ``HTTPError``       no
``httpx.ConnectTimeout``                            ``ConnectTimeout``  yes
other ``httpx.TimeoutException`` (read, write...)   ``ReadTimeout``     yes
``ConnectionError``, other ``httpx.TransportError``  ``ConnectionError`` yes
``ValueError`` (body not JSON / not a chat reply)   ``JSONDecodeError`` no
more than ``MAX_REPLY_BYTES`` read (dmbench's own)  ``ReplyTooLarge``   no
=================================================  ==================  =========

The timeout is the call's deadline: it bounds the whole call, every attempt from connecting
to the reply's last byte and the waits between them, not each read (httpx's timeout alone lets
a server sending a byte a second hold a call forever). A retry is made only while the deadline
leaves room for its wait, so a timed-out call is not retried, and a retry the deadline cuts
short reports the failure that caused it (the server's 500, say), not the timeout. Upstream made one attempt with
``requests``' per-read timeout; the retries and the deadline are dmbench's. Each attempt reads
at most ``MAX_REPLY_BYTES``, so an endless reply cannot exhaust memory.

The ``HTTPError`` message follows the ``requests`` form (``500 Server Error: Internal Server
Error for url: <url>``); the other messages are dmbench's own.

Request bodies. The message strings (system and user ``content``), the model name, ``stream``,
``think`` and the option values are byte-identical to upstream's once decoded. The bytes on the
wire are not, because upstream sent ``requests.post(url, json=payload)`` and dmbench sends what
the ``ollama`` client (over ``httpx``) serialises; :data:`WIRE_DEVIATIONS` lists every
difference and each run records it among its deviations. The client offers no public way to
send an empty ``content``: it drops every empty field of a message, so an empty chen stage-1
reply reaches stage 2 as ``{"role":"user"}`` (Ollama reads a missing content as empty).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import httpcore
import httpx

from dmbench.core.clock import now_utc
from dmbench.core.hashing import sha256_bytes, sha256_text
from dmbench.core.names import check_name
from dmbench.core.urls import public_url
from dmbench.errors import (
    CacheMissError,
    ChatError,
    DmbenchError,
    InputError,
    OllamaUnavailableError,
    ReplyTooLargeError,
)
from dmbench.llm.cache import ResponseCache, cache_key

if TYPE_CHECKING:
    import ollama


DEFAULT_TIMEOUT = 600
DEFAULT_HOST = "http://localhost:11434"
DEFAULT_RETRIES = 2
DEFAULT_BACKOFF = 2.0
MAX_REPLY_BYTES = 16 * 2**20
"""What one call may read from a server (headers and body); a reply of 1024 tokens is a few KB."""
WIRE_DEVIATIONS = (
    "wire: request bodies are serialised by the ollama client over httpx, not by "
    "requests.post(json=...): separators ',' and ':' without spaces (upstream ', ' and ': '), "
    "non-ASCII characters as raw UTF-8 (upstream \\uXXXX escapes), keys in the order model, "
    "stream, options, messages, tools, think (upstream model, messages, stream, think, "
    "options); the decoded message strings and values are the same",
    'wire: every chat body carries "tools": [] (upstream sent no tools key)',
    "wire: a message whose content is empty is sent without its content key, as "
    '{"role":"user"} (upstream sent "content": ""); the ollama client drops empty fields and '
    "has no public way to keep them; only an empty chen stage-1 reply leads to such a message",
    "wire: HTTP headers are the ollama client's (User-Agent ollama-python/..., Accept "
    "application/json), not python-requests'",
)
"""How dmbench's /api/chat requests differ on the wire from upstream's; see the module doc."""
_OPTION_TYPES = {
    "temperature": float,
    "num_predict": int,
    "seed": int,
    "top_p": float,
    "top_k": int,
    "repeat_penalty": float,
    "num_ctx": int,
}
_OPTION_BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "temperature": (0.0, None),
    "num_predict": (-2, None),  # Ollama: -1 no limit, -2 fill the context
    "seed": (None, None),
    "top_p": (0.0, 1.0),
    "top_k": (0, None),
    "repeat_penalty": (0.0, None),
    "num_ctx": (1, None),
}
"""The values Ollama accepts for each option, both ends included (None: unbounded)."""
T = TypeVar("T")
log = logging.getLogger(__name__)
_REPLY_FIELDS = (
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
    "done_reason",
)


@dataclass(slots=True)
class _Budget:
    deadline: float
    bytes_left: int


_budget = threading.local()


def _within_deadline(timeout: float | None) -> float | None:
    """``timeout`` cut to what the calling thread's deadline leaves."""
    budget: _Budget | None = getattr(_budget, "current", None)
    if budget is None:
        return timeout
    remaining = budget.deadline - time.monotonic()
    if remaining <= 0:
        raise httpcore.ReadTimeout("the call's deadline has passed")
    return remaining if timeout is None else min(timeout, remaining)


class _BoundedStream(httpcore.NetworkStream):
    """A socket whose reads and writes stop at the calling thread's budget: the call's deadline
    (httpx's own timeout bounds each read, so one byte a second would never end) and its size."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = self._inner.read(max_bytes, _within_deadline(timeout))
        budget: _Budget | None = getattr(_budget, "current", None)
        if budget is not None:
            budget.bytes_left -= len(data)
            if budget.bytes_left < 0:
                raise ReplyTooLargeError("the reply exceeds the bytes a call may read")
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _within_deadline(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, _within_deadline(timeout))
        return _BoundedStream(inner)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
"""A socket option as httpcore takes it (its own alias lives in a private module)."""


class _BoundedBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.connect_tcp(
            host, port, _within_deadline(timeout), local_address, socket_options
        )
        return _BoundedStream(inner)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.connect_unix_socket(path, _within_deadline(timeout), socket_options)
        return _BoundedStream(inner)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _BoundedTransport(httpx.HTTPTransport):
    """httpx's transport over sockets that honour the calling thread's budget.

    httpx has no public way to give its connection pool a network backend, so the pool is
    replaced by an equal one (httpx's default limits) built with the public httpcore API.
    """

    def __init__(self) -> None:
        super().__init__()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=_BoundedBackend(),
        )


def resolve_hosts(hosts: Sequence[str] = ()) -> tuple[str, ...]:
    """``--host`` values in order, else ``$OLLAMA_HOST``, else upstream's default host.

    Each is checked and cut to scheme, host, port and path: a host's URL lands in ``run.json``
    and every call record, that is in the published package, and the ``ollama`` client sends
    neither user info nor query nor fragment anyway (a token in ``?api_key=`` is not stored).
    """
    chosen = [host for host in hosts if host] or [os.environ.get("OLLAMA_HOST") or DEFAULT_HOST]
    return tuple(_public_host(host) for host in chosen)


def _public_host(host: str) -> str:
    try:
        public, dropped = public_url(host)
    except ValueError as exc:
        raise InputError(
            f"--host {host!r} is not a server URL ({exc})", hint="e.g. http://localhost:11434"
        ) from None
    if dropped:
        print(
            f"dmbench: warning: --host {public}: dropped the {', '.join(dropped)} of the URL "
            "given (the ollama client never sends them; they are not stored)",
            file=sys.stderr,
        )
    return public


def check_option(name: str, value: float | None, flag: str | None = None) -> None:
    """Refuse a generation option Ollama would not take: NaN, infinite or out of its range
    would be written into run.json, make the package invalid and the run unresumable."""
    if value is None:
        return
    low, high = _OPTION_BOUNDS[name]
    flag = flag or f"--{name.replace('_', '-')}"
    below = low is not None and value < low
    if not math.isfinite(value) or below or (high is not None and value > high):
        bounds = "a finite number" + (f" from {low:g}" if low is not None else "")
        bounds += f" to {high:g}" if high is not None else ""
        raise InputError(f"{flag} {value!r} is out of range", hint=f"give {bounds}")


@dataclass(frozen=True, slots=True)
class Options:
    """Generation options; only those that are set reach the server."""

    temperature: float | None = None
    num_predict: int | None = None
    seed: int | None = None
    top_p: float | None = None
    top_k: int | None = None
    repeat_penalty: float | None = None
    num_ctx: int | None = None

    def __post_init__(self) -> None:
        for name in _OPTION_TYPES:
            check_option(name, getattr(self, name))

    def payload(self) -> dict[str, float | int]:
        return {
            name: cast(getattr(self, name))
            for name, cast in _OPTION_TYPES.items()
            if getattr(self, name) is not None
        }


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What the Ollama server said of the model at the start of a run (digest, version, hosts): the
    run records it as provenance."""
    model_digest: str
    server_version: str | None
    hosts: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)
    dropped_hosts: dict[str, str] = field(default_factory=dict)
    """Hosts that did not answer at the start, with why; the run does without them."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "model_digest": self.model_digest,
            "server_version": self.server_version,
            "hosts": list(self.hosts),
            "details": self.details,
        }


@dataclass(frozen=True, slots=True)
class ChatReply:
    """One chat reply's text and the call record (model, options, durations) a run keeps beside it."""
    text: str
    call: dict[str, Any]


def reply_text(content: str | None, thinking: str | None) -> str:
    """Upstream's reply: stripped content, or the stripped thinking when content is empty."""
    text = (content or "").strip()
    return text if text else (thinking or "").strip()


def _status_error(code: int, url: str) -> tuple[str, str, bool]:
    try:
        phrase = HTTPStatus(code).phrase
    except ValueError:
        phrase = "Unknown"
    side = "Client" if 400 <= code < 500 else "Server"
    return "HTTPError", f"{code} {side} Error: {phrase} for url: {url}", code >= 500


def _classify(
    exc: BaseException, url: str, timeout: float, limit: int = MAX_REPLY_BYTES
) -> tuple[str, str, bool]:
    """(reported class, message, retry?) for an exception of the ollama/httpx stack."""
    from ollama import ResponseError

    if isinstance(exc, ResponseError):
        return _status_error(exc.status_code, url)
    if isinstance(exc, httpx.HTTPStatusError):
        return _status_error(exc.response.status_code, url)
    if isinstance(exc, httpx.ConnectTimeout):
        return "ConnectTimeout", f"{url}: no connection within {timeout:g} s", True
    if isinstance(exc, httpx.TimeoutException):
        return "ReadTimeout", f"{url}: no reply within {timeout:g} s", True
    if isinstance(exc, ConnectionError | httpx.TransportError):
        return "ConnectionError", f"{url}: cannot connect ({exc})", True
    if isinstance(exc, ReplyTooLargeError):
        return "ReplyTooLarge", f"{url}: the reply exceeds {limit:,} bytes; stopped reading", False
    if isinstance(exc, ValueError):
        return "JSONDecodeError", f"{url}: reply is not a chat response ({exc})", False
    return type(exc).__name__, str(exc), False


class ChatClient(Protocol):
    """What a judge asks of a chat client: :class:`OllamaChat`, or inspect's model behind the
    same calls (``dmbench.inspect_eval``)."""

    model: str
    offline: bool

    def chat(
        self,
        system: str,
        user: str,
        options: Options,
        sample: int = 1,
        format: dict[str, Any] | None = None,
        accept: Callable[[dict[str, Any]], bool] | None = None,
        images: Sequence[bytes] = (),
    ) -> ChatReply: ...


class OllamaChat:
    """One model on one or more hosts, shared by all worker threads of a run."""

    def __init__(
        self,
        model: str,
        hosts: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
        think: bool = False,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        cache: ResponseCache | None = None,
        offline: bool = False,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        if offline and cache is None:
            raise DmbenchError("offline mode needs a reply cache to replay from")
        if not math.isfinite(timeout) or timeout <= 0:
            raise InputError(f"--timeout {timeout!r} is out of range", hint="give seconds above 0")
        self.model = check_name(model, "--model")  # lands in run ids, tables and the report
        self.hosts = resolve_hosts(hosts)
        self.timeout = float(timeout)
        self.think = think
        self.retries = retries
        self.backoff = backoff
        self.cache = cache
        self.offline = offline
        self.max_reply_bytes = max_reply_bytes
        import ollama  # its pydantic models cost 0.5 s: only a run that asks a model pays

        self._clients = {
            host: ollama.Client(host=host, timeout=self.timeout, transport=_BoundedTransport())
            for host in self.hosts
        }
        self._lock = threading.Lock()
        self._in_flight = dict.fromkeys(self.hosts, 0)
        self._turn = 0
        self._info_lock = threading.Lock()
        self._info: ServerInfo | None = None

    # -- hosts ---------------------------------------------------------------------------------

    def _acquire(self, host: str | None) -> str:
        """The least busy host, ties taken in turn, so workers spread over all hosts."""
        with self._lock:
            if host is None:
                self._turn = (self._turn + 1) % len(self.hosts)
                order = self.hosts[self._turn :] + self.hosts[: self._turn]
                host = min(order, key=lambda h: self._in_flight[h])
            self._in_flight[host] += 1
            return host

    def _release(self, host: str) -> None:
        with self._lock:
            self._in_flight[host] -= 1

    def _with_retries(
        self,
        path: str,
        request: Callable[[ollama.Client], T],
        host: str | None = None,
        retry_refused: bool = True,
    ) -> tuple[T, str, int]:
        """Run ``request`` on ``host`` (or the least busy one); retry transient failures while
        the call's deadline leaves room.

        ``retry_refused=False`` gives up at once when nobody listens (used at a run's start,
        where such a host is dropped rather than waited for)."""
        deadline = time.monotonic() + self.timeout
        attempt = 0
        earlier: tuple[str, str, BaseException] | None = None
        while True:
            attempt += 1
            chosen = self._acquire(host)
            _budget.current = _Budget(deadline, self.max_reply_bytes)
            try:
                return request(self._clients[chosen]), chosen, attempt
            except Exception as exc:  # every failure is classified and reported, none is lost
                reported, message, retry = _classify(
                    exc, f"{chosen}{path}", self.timeout, self.max_reply_bytes
                )
                if not retry_refused and isinstance(exc, ConnectionError | httpx.ConnectError):
                    retry = False
                cause: BaseException = exc
                if earlier is not None and isinstance(exc, httpx.TimeoutException):
                    # a retry that ran out of the call's deadline: what the server did is the news
                    reported, message, cause = earlier
                    retry = False
                earlier = reported, message, cause
                wait = self.backoff * 2 ** (attempt - 1)
                if not retry or attempt > self.retries or time.monotonic() + wait >= deadline:
                    raise ChatError(
                        reported,
                        message,
                        {"host": chosen, "attempts": attempt, "raised": type(cause).__name__},
                    ) from cause
            finally:
                _budget.current = None
                self._release(chosen)
            time.sleep(wait)

    # -- what runs on the server ---------------------------------------------------------------

    def _ask_host(self, client: ollama.Client) -> tuple[str, str | None, dict[str, Any]]:
        # The ollama client has no call for /api/version; its own httpx client keeps host,
        # headers and timeout identical to the chat calls.
        version = client._client.get("/api/version")
        version.raise_for_status()
        listed = {m.model: m.digest for m in client.list().models}
        shown = client.show(self.model)
        digest = listed.get(self.model) or listed.get(f"{self.model}:latest")
        if not digest:
            shown_json = shown.model_dump_json(exclude_none=True).encode("utf-8")
            digest = "show-sha256:" + sha256_bytes(shown_json)
        details = shown.details.model_dump(exclude_none=True) if shown.details else {}
        return digest, version.json().get("version"), details

    def server_info(self) -> ServerInfo:
        """Model digest and server version, asked once; offline, remembered by the cache.

        Every host is asked once; hosts that do not answer are dropped for the rest of this
        client's life (with a warning on stderr), and only when none answers is it an error.
        """
        with self._info_lock:
            if self._info is None:
                self._info = self._fetch_info()
            return self._info

    def _fetch_info(self) -> ServerInfo:
        if self.offline:
            assert self.cache is not None
            known = self.cache.model_info(self.model)
            if known is None:
                raise CacheMissError(
                    f"offline: the reply cache {self.cache.root} has never seen model "
                    f"{self.model!r}; run once without --offline"
                )
            return ServerInfo(
                known["model_digest"], known.get("server_version"), (), known.get("details", {})
            )
        answers, dropped, last = {}, {}, None
        for host in self.hosts:
            try:
                answers[host], _, _ = self._with_retries(
                    "/api/version", self._ask_host, host, retry_refused=False
                )
            except ChatError as exc:
                dropped[host], last = str(exc), exc
        if not answers:
            assert last is not None
            reasons = "; ".join(f"{host}: {reason}" for host, reason in dropped.items())
            raise OllamaUnavailableError(
                f"no Ollama host could tell about model {self.model!r} ({reasons}); "
                "start `ollama serve`, `ollama pull` the model, or pass --host URL"
            ) from last
        for host, reason in dropped.items():
            print(
                f"dmbench: warning: dropping Ollama host {host} for this run ({reason}); "
                f"using {', '.join(answers)}",
                file=sys.stderr,
            )
        with self._lock:
            self.hosts = tuple(answers)
        digests = {digest for digest, _, _ in answers.values()}
        if len(digests) > 1:
            raise OllamaUnavailableError(
                f"hosts disagree on model {self.model!r} ({', '.join(sorted(digests))}); "
                "a run must use one model version: pass --host only for hosts that agree"
            )
        digest, version, details = next(iter(answers.values()))
        info = ServerInfo(digest, version, self.hosts, details, dropped)
        if self.cache is not None:
            self.cache.remember_model(self.model, info.to_dict())
        return info

    def chat(
        self,
        system: str,
        user: str,
        options: Options,
        sample: int = 1,
        format: dict[str, Any] | None = None,
        accept: Callable[[dict[str, Any]], bool] | None = None,
        images: Sequence[bytes] = (),
    ) -> ChatReply:
        """One call: cache, else the server (with retries); raises :class:`ChatError`.

        ``sample`` numbers independent draws of the same request (a matrix's run index), so
        that runs 1-3 are not replays of one another. ``format`` (a JSON Schema) asks for
        structured output; ``accept`` decides whether a reply body may be cached, so that a
        reply its caller rejects (e.g. one that breaks the schema) is asked again next time
        instead of replayed for good. ``images`` (PNG bytes) go with the user message as
        Ollama's ``images``; the cache key and entry name them by sha256, not by content.
        """
        user_message: dict[str, Any] = {"role": "user", "content": user}
        if images:
            user_message["images"] = [sha256_bytes(image) for image in images]
        messages = ([{"role": "system", "content": system}] if system else []) + [user_message]
        sent_options = options.payload()
        call: dict[str, Any] = {
            "model": self.model,
            "think": self.think,
            "options": sent_options,
            "sample": sample,
            "prompt_sha256": {"system": sha256_text(system), "user": sha256_text(user)},
            "started_utc": now_utc(),
        }
        started = time.monotonic()
        try:
            info = self.server_info()
            key = cache_key(info.model_digest, messages, sent_options, self.think, sample, format)
            call.update(
                model_digest=info.model_digest, server_version=info.server_version, cache_key=key
            )
            response, host, attempts, cached = self._reply(
                key, info, messages, sent_options, sample, format, accept, images
            )
        except ChatError as exc:
            call.update(exc.call, wall_seconds=round(time.monotonic() - started, 3))
            call["error"] = {"reported": exc.reported, "message": exc.message}
            raise ChatError(exc.reported, exc.message, call) from exc
        except OllamaUnavailableError as exc:
            if not isinstance(exc.__cause__, ChatError):
                raise  # a configuration problem (hosts disagree), not this record's failure
            cause = exc.__cause__
            call.update(cause.call, error={"reported": cause.reported, "message": cause.message})
            raise ChatError(cause.reported, cause.message, call) from exc
        message = response.get("message") or {}
        content, thinking = message.get("content"), message.get("thinking")
        call.update(
            host=host,
            cached=cached,
            attempts=attempts,
            wall_seconds=round(time.monotonic() - started, 3),
            **{name: response.get(name) for name in _REPLY_FIELDS},
            reply={"content": content, "thinking": thinking},
            used_thinking=not (content or "").strip() and bool((thinking or "").strip()),
        )
        return ChatReply(reply_text(content, thinking), call)

    def _reply(
        self,
        key: str,
        info: ServerInfo,
        messages: list[dict[str, str]],
        options: dict[str, float | int],
        sample: int,
        format: dict[str, Any] | None = None,
        accept: Callable[[dict[str, Any]], bool] | None = None,
        images: Sequence[bytes] = (),
    ) -> tuple[dict[str, Any], str | None, int, bool]:
        """(response body, host, attempts, from cache?): the cache first, then the server."""
        cached = self.cache.get(key) if self.cache is not None else None
        if cached is not None:
            return cached["response"], cached.get("host"), 0, True
        if self.offline:
            raise CacheMissError(
                f"offline: no cached reply for model {self.model!r} (key {key[:12]}…) in "
                f"{self.cache.root if self.cache else '-'}; run without --offline to ask the server"
            )
        prompt_chars = len(messages[-1]["content"])
        log.info("ollama POST /api/chat model=%s prompt=%d chars", self.model, prompt_chars)
        reply, host, attempts = self._with_retries(
            "/api/chat",
            lambda client: client.chat(
                model=self.model,
                messages=[*messages[:-1], {**messages[-1], "images": list(images)}]
                if images else messages,
                stream=False,
                think=self.think,
                options=options or None,
                format=format,
            ),
        )
        response = reply.model_dump(mode="json", exclude_none=True)
        if self.cache is not None and (accept is None or accept(response)):
            self.cache.put(
                key,
                {
                    "model": self.model,
                    "model_digest": info.model_digest,
                    "server_version": info.server_version,
                    "host": host,
                    "messages": messages,
                    "options": options,
                    "think": self.think,
                    "sample": sample,
                    **({"format": format} if format is not None else {}),
                    "response": response,
                    "stored_utc": now_utc(),
                },
            )
        return response, host, attempts, False
