"""The Ollama layer against a real HTTP server: bodies, fallback, retries, cache, hosts."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import pytest
from fake_ollama import DIGEST, MODEL, VERSION, FakeOllama, Reply, wire_string

from dmbench.errors import InputError
from dmbench.llm import (
    CacheMissError,
    ChatError,
    OllamaChat,
    OllamaUnavailableError,
    Options,
    ResponseCache,
    resolve_hosts,
    sha256_text,
)


def make_chat(server: FakeOllama, tmp_path: Path, **kwargs) -> OllamaChat:
    settings = {"retries": 2, "backoff": 0.0, "cache": ResponseCache(tmp_path / "cache")}
    settings.update(kwargs)
    return OllamaChat(MODEL, hosts=[server.url], **settings)


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class TestRequestBody:
    def test_body_has_think_false_and_only_the_options_set(self, fake_ollama, tmp_path):
        """The server receives upstream's payload: stream off, think false, set options only."""
        fake_ollama.script.append(Reply("hello"))
        chat = make_chat(fake_ollama, tmp_path)
        chat.chat("SYS", "USER TEXT é", Options(temperature=0.7, num_predict=1024))
        assert fake_ollama.chat_bodies() == [
            b'{"model":"test-model:latest","stream":false,'
            b'"options":{"temperature":0.7,"num_predict":1024},'
            b'"messages":[{"role":"system","content":"SYS"},'
            b'{"role":"user","content":"USER TEXT \xc3\xa9"}],"tools":[],"think":false}'
        ]

    def test_no_options_and_no_system_are_omitted(self, fake_ollama, tmp_path):
        """An empty system prompt sends no system turn; no options sends no ``options`` key."""
        fake_ollama.script.append(Reply("hi"))
        make_chat(fake_ollama, tmp_path).chat("", "only user", Options())
        assert fake_ollama.chat_bodies() == [
            b'{"model":"test-model:latest","stream":false,'
            b'"messages":[{"role":"user","content":' + wire_string("only user") + b"}],"
            b'"tools":[],"think":false}'
        ]

    def test_all_options_are_typed(self, fake_ollama, tmp_path):
        """Integers stay integers and floats floats, whatever the caller passed."""
        fake_ollama.script.append(Reply("x"))
        options = Options(temperature=0, num_predict=5, seed=3, top_p=1, top_k=40, repeat_penalty=1)
        make_chat(fake_ollama, tmp_path).chat("s", "u", options)
        sent = fake_ollama.chat_bodies()[0]
        assert b'"options":{"temperature":0.0,"num_predict":5,"seed":3,"top_p":1.0,' in sent
        assert b'"top_k":40,"repeat_penalty":1.0}' in sent

    def test_non_ascii_text_arrives_unchanged(self, fake_ollama, tmp_path):
        """Message text reaches the server byte for byte, accents and symbols included."""
        fake_ollama.script.append(Reply("ok"))
        text = "Kunde § café → ∑\n\ttabs  "
        make_chat(fake_ollama, tmp_path).chat("s", text, Options())
        assert fake_ollama.chats()[0]["messages"][1]["content"] == text
        assert wire_string(text) in fake_ollama.chat_bodies()[0]

    def test_one_log_line_per_call(self, fake_ollama, tmp_path, caplog):
        """Like upstream, each call logs the model and the user prompt's length."""
        fake_ollama.script.append(Reply("ok"))
        with caplog.at_level("INFO", logger="dmbench.llm.client"):
            make_chat(fake_ollama, tmp_path).chat("s", "USER TEXT", Options())
        assert caplog.messages == [f"ollama POST /api/chat model={MODEL} prompt=9 chars"]


class TestReply:
    def test_content_is_stripped(self, fake_ollama, tmp_path):
        """The reply text is the stripped content."""
        fake_ollama.script.append(Reply("  \n@startuml\n@enduml\n\n", thinking="ignored"))
        reply = make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        assert reply.text == "@startuml\n@enduml"
        assert reply.call["used_thinking"] is False

    def test_thinking_only_reply_falls_back_to_thinking(self, fake_ollama, tmp_path):
        """Empty content: the stripped thinking is returned instead (spec B.2)."""
        fake_ollama.script.append(Reply("   ", thinking="\n because @startuml\n@enduml \n"))
        reply = make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        assert reply.text == "because @startuml\n@enduml"
        assert reply.call["used_thinking"] is True

    def test_empty_reply_is_not_an_error(self, fake_ollama, tmp_path):
        """Neither content nor thinking: the empty string, as upstream."""
        fake_ollama.script.append(Reply(""))
        assert make_chat(fake_ollama, tmp_path).chat("s", "u", Options()).text == ""

    def test_call_record(self, fake_ollama, tmp_path):
        """Each call records model, digest, server version, options, hashes, counts, reply."""
        fake_ollama.script.append(Reply("out"))
        call = make_chat(fake_ollama, tmp_path).chat("S", "U", Options(temperature=0.5)).call
        assert call["model"] == MODEL
        assert call["model_digest"] == DIGEST
        assert call["server_version"] == VERSION
        assert call["options"] == {"temperature": 0.5}
        assert call["think"] is False
        assert call["prompt_sha256"] == {"system": sha256_text("S"), "user": sha256_text("U")}
        assert call["host"] == fake_ollama.url
        assert (call["eval_count"], call["prompt_eval_count"], call["total_duration"]) == (
            11,
            7,
            1000,
        )
        assert call["reply"] == {"content": "out", "thinking": None}
        assert call["cached"] is False and call["attempts"] == 1
        json.dumps(call)  # a call record must be storable as JSON


class TestFailures:
    def test_http_500_is_retried(self, fake_ollama, tmp_path):
        """A 5xx is transient: the next attempt's reply is used."""
        fake_ollama.script.extend([Reply(status=500), Reply("second")])
        reply = make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        assert reply.text == "second"
        assert reply.call["attempts"] == 2
        assert len(fake_ollama.chats()) == 2

    def test_http_500_every_time_gives_requests_style_http_error(self, fake_ollama, tmp_path):
        """After the last retry the failure reads as upstream's ``requests`` HTTPError."""
        fake_ollama.script.extend([Reply(status=500)] * 3)
        with pytest.raises(ChatError) as caught:
            make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        url = f"{fake_ollama.url}/api/chat"
        assert str(caught.value) == (
            f"HTTPError: 500 Server Error: Internal Server Error for url: {url}"
        )
        assert caught.value.call["attempts"] == 3
        assert caught.value.call["raised"] == "ResponseError"

    def test_http_4xx_is_not_retried(self, fake_ollama, tmp_path):
        """A 4xx will not get better: one request, then the failure."""
        fake_ollama.script.append(Reply(status=400))
        with pytest.raises(ChatError, match=r"^HTTPError: 400 Client Error: Bad Request"):
            make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        assert len(fake_ollama.chats()) == 1

    def test_reply_slower_than_the_timeout(self, fake_ollama, tmp_path):
        """A reply later than the timeout is a ReadTimeout; the call's deadline is spent, so
        it is not retried."""
        fake_ollama.script.extend([Reply("late", delay=1.0)] * 2)
        chat = make_chat(fake_ollama, tmp_path, timeout=0.25, retries=1)
        with pytest.raises(ChatError, match=r"^ReadTimeout: .*no reply within 0.25 s") as caught:
            chat.chat("s", "u", Options())
        assert len(fake_ollama.chats()) == 1
        assert caught.value.call["attempts"] == 1

    def test_a_trickling_reply_ends_the_call_at_the_timeout(self, fake_ollama, tmp_path):
        """A byte every 0.4 s keeps every read inside the timeout; the call, retries included
        (the defaults: 2 retries, 2 s backoff), still ends at the timeout."""
        fake_ollama.script.extend([Reply("slow " * 20, trickle=0.4)] * 3)
        chat = OllamaChat(MODEL, hosts=[fake_ollama.url], timeout=1.0)
        started = time.monotonic()
        with pytest.raises(ChatError, match=r"^ReadTimeout: .*no reply within 1 s") as caught:
            chat.chat("s", "u", Options())
        elapsed = time.monotonic() - started
        assert 1.0 <= elapsed < 2.0  # the reply alone would take 40 s, three attempts 3 s
        assert caught.value.call["attempts"] == 1
        assert caught.value.call["error"]["reported"] == "ReadTimeout"

    def test_a_body_trickling_after_quick_headers_ends_the_call_at_the_timeout(
        self, fake_ollama, tmp_path
    ):
        """Headers at once, then a byte of the body every 0.2 s (the issue's case): the read
        of the body itself ends at the timeout, not only a flag beside it."""
        fake_ollama.script.extend([Reply("slow " * 200, trickle=0.2, trickle_body_only=True)] * 3)
        chat = OllamaChat(MODEL, hosts=[fake_ollama.url], timeout=1.0)
        started = time.monotonic()
        with pytest.raises(ChatError, match=r"^ReadTimeout: .*no reply within 1 s") as caught:
            chat.chat("s", "u", Options())
        assert time.monotonic() - started < 30.0  # the body alone would take 200 s
        assert caught.value.call["attempts"] == 1

    def test_a_transient_failure_is_retried_while_the_deadline_leaves_room(
        self, fake_ollama, tmp_path
    ):
        fake_ollama.script.extend([Reply(status=500), Reply("second")])
        reply = make_chat(fake_ollama, tmp_path, timeout=5.0, backoff=0.1).chat("s", "u", Options())
        assert reply.text == "second" and reply.call["attempts"] == 2

    def test_a_retry_cut_short_by_the_deadline_reports_the_servers_failure(
        self, fake_ollama, tmp_path
    ):
        """A 500 after 0.8 s, then a retry the 1.5 s deadline ends: the failure is the 500."""
        fake_ollama.script.extend([Reply(status=500, delay=0.8), Reply("late", delay=5.0)])
        chat = make_chat(fake_ollama, tmp_path, timeout=1.5, backoff=0.3)
        with pytest.raises(ChatError, match=r"^HTTPError: 500 Server Error") as caught:
            chat.chat("s", "u", Options())
        assert caught.value.call["attempts"] == 2
        assert caught.value.call["raised"] == "ResponseError"

    def test_no_retry_whose_wait_would_pass_the_deadline(self, fake_ollama, tmp_path):
        """A 5xx with a 10 s backoff and a 1 s timeout: reported at once, not slept on."""
        fake_ollama.script.extend([Reply(status=500), Reply("too late")])
        chat = make_chat(fake_ollama, tmp_path, timeout=1.0, backoff=10.0)
        started = time.monotonic()
        with pytest.raises(ChatError, match=r"^HTTPError: 500 ") as caught:
            chat.chat("s", "u", Options())
        assert time.monotonic() - started < 1.0
        assert caught.value.call["attempts"] == 1 and len(fake_ollama.chats()) == 1

    def test_an_endless_reply_stops_at_the_size_limit(self, fake_ollama, tmp_path):
        fake_ollama.script.append(Reply(endless=True))
        chat = make_chat(fake_ollama, tmp_path, retries=2, max_reply_bytes=2**20)
        with pytest.raises(ChatError, match=r"^ReplyTooLarge: .*exceeds 1,048,576 bytes"):
            chat.chat("s", "u", Options())
        assert len(fake_ollama.chats()) == 1  # not retried: the same request, the same reply

    def test_connection_refused(self, fake_ollama, tmp_path):
        """The server went away after the run started: ConnectionError, after the retries."""
        chat = OllamaChat(MODEL, hosts=[fake_ollama.url], retries=1, backoff=0.0)
        chat.server_info()
        fake_ollama.stop()
        with pytest.raises(ChatError, match=r"^ConnectionError: ") as caught:
            chat.chat("s", "u", Options())
        assert caught.value.call["attempts"] == 2

    def test_nobody_listening_at_the_start(self):
        """A host refusing connections when first asked is not retried: a ConnectionError."""
        chat = OllamaChat(MODEL, hosts=[closed_port_url()], retries=3, backoff=5.0)
        with pytest.raises(ChatError, match=r"^ConnectionError: ") as caught:
            chat.chat("s", "u", Options())
        assert caught.value.call["attempts"] == 1

    def test_unknown_model_fails_clearly(self, fake_ollama, tmp_path):
        """A model the server lacks stops the run with a sentence that says what to do."""
        chat = OllamaChat("missing-model", hosts=[fake_ollama.url], backoff=0.0)
        with pytest.raises(OllamaUnavailableError, match="ollama pull"):
            chat.server_info()


class TestCache:
    def test_repeat_is_replayed_without_the_server(self, fake_ollama, tmp_path):
        """The same request again comes from the cache; offline works with the server gone."""
        fake_ollama.script.append(Reply("first"))
        make_chat(fake_ollama, tmp_path).chat("s", "u", Options(temperature=0.7))
        again = make_chat(fake_ollama, tmp_path).chat("s", "u", Options(temperature=0.7))
        assert again.text == "first" and again.call["cached"] is True
        assert len(fake_ollama.chats()) == 1
        fake_ollama.stop()
        offline = make_chat(fake_ollama, tmp_path, offline=True)
        replay = offline.chat("s", "u", Options(temperature=0.7))
        assert replay.text == "first"
        assert replay.call["model_digest"] == DIGEST

    @pytest.mark.parametrize("damage", [b'{"key": "x", "respo', b"\xff\xfe", b"[]", b"{}"])
    def test_a_damaged_entry_is_discarded_and_asked_again(self, fake_ollama, tmp_path, damage):
        fake_ollama.script.extend([Reply("first"), Reply("second")])
        make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        (entry,) = (tmp_path / "cache" / "replies").rglob("*.json")
        entry.write_bytes(damage)
        again = make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        assert again.text == "second" and again.call["cached"] is False
        assert json.loads(entry.read_text("utf-8"))["response"]["message"]["content"] == "second"

    @pytest.mark.parametrize("message", [5, {"content": 5}, {"content": "x", "thinking": []}])
    def test_an_entry_whose_message_is_no_text_is_asked_again(self, fake_ollama, tmp_path, message):
        """Once `'int' object has no attribute 'strip'` when replayed."""
        fake_ollama.script.extend([Reply("first"), Reply("second")])
        make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        (entry,) = (tmp_path / "cache" / "replies").rglob("*.json")
        stored = json.loads(entry.read_text("utf-8"))
        stored["response"]["message"] = message
        entry.write_text(json.dumps(stored), encoding="utf-8")
        again = make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        assert again.text == "second" and again.call["cached"] is False

    @pytest.mark.parametrize("damage", [b'{"model": "m", "model_di', b"[]", b'{"model": "m"}'])
    def test_offline_with_a_damaged_model_record_says_what_to_do(
        self, fake_ollama, tmp_path, damage
    ):
        """Once a JSONDecodeError or KeyError traceback in offline mode."""
        fake_ollama.script.append(Reply("first"))
        make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        (record,) = (tmp_path / "cache" / "models").glob("*.json")
        record.write_bytes(damage)
        offline = make_chat(fake_ollama, tmp_path, offline=True)
        with pytest.raises(CacheMissError, match="never seen model .* run once without --offline"):
            offline.chat("s", "u", Options())

    def test_key_covers_messages_options_and_sample(self, fake_ollama, tmp_path):
        """Another message, option or sample number is another request."""
        fake_ollama.responder = lambda body: Reply(json.dumps(body["messages"]))
        chat = make_chat(fake_ollama, tmp_path)
        chat.chat("s", "u", Options(temperature=0.7))
        chat.chat("s", "u2", Options(temperature=0.7))
        chat.chat("s", "u", Options(temperature=0.0))
        chat.chat("s", "u", Options(temperature=0.7), sample=2)
        assert len(fake_ollama.chats()) == 4

    def test_offline_miss_fails_clearly(self, fake_ollama, tmp_path):
        """Offline, a request never seen is an error naming the fix, not a silent call."""
        fake_ollama.script.append(Reply("x"))
        make_chat(fake_ollama, tmp_path).chat("s", "u", Options())
        offline = make_chat(fake_ollama, tmp_path, offline=True)
        with pytest.raises(CacheMissError, match="run without --offline"):
            offline.chat("s", "other", Options())
        assert len(fake_ollama.chats()) == 1

    def test_offline_without_any_record_of_the_model(self, tmp_path):
        """Offline with an empty cache cannot even know the model digest."""
        chat = OllamaChat(MODEL, cache=ResponseCache(tmp_path), offline=True)
        with pytest.raises(CacheMissError, match="never seen model"):
            chat.chat("s", "u", Options())

    def test_failures_are_not_cached(self, fake_ollama, tmp_path):
        """A failed call is asked again next time."""
        fake_ollama.script.extend([Reply(status=400), Reply("now")])
        chat = make_chat(fake_ollama, tmp_path)
        with pytest.raises(ChatError):
            chat.chat("s", "u", Options())
        assert chat.chat("s", "u", Options()).text == "now"


class TestHosts:
    def test_hosts_from_arguments_env_or_default(self, monkeypatch):
        """``--host`` wins, then ``OLLAMA_HOST``, then upstream's localhost default."""
        monkeypatch.setenv("OLLAMA_HOST", "http://env:1/")
        assert resolve_hosts(["http://a:1/", "http://b:2"]) == ("http://a:1", "http://b:2")
        assert resolve_hosts() == ("http://env:1",)
        monkeypatch.delenv("OLLAMA_HOST")
        assert resolve_hosts() == ("http://localhost:11434",)

    @pytest.mark.parametrize(
        ("given", "kept", "dropped"),
        [
            ("http://h:1/?api_key=K", "http://h:1", "query"),
            ("https://u:K@h:1/ollama/#K", "https://h:1/ollama", "user name and password, fragment"),
            ("h:1/api?K", "h:1/api", "query"),
            ("http://h:1/x", "http://h:1/x", None),
        ],
    )
    def test_a_host_is_kept_without_user_query_and_fragment(self, given, kept, dropped, capsys):
        """What the ollama client never sends (and a token may hide in) is dropped, with a
        warning that does not repeat it; a path (a proxy's prefix) is kept."""
        assert resolve_hosts([given]) == (kept,)
        warning = capsys.readouterr().err
        assert "K" not in warning.replace(kept, "")
        if dropped is None:
            assert warning == ""
        else:
            assert f"--host {kept}: dropped the {dropped} of the URL given" in warning

    def test_calls_spread_over_hosts(self, tmp_path):
        """Concurrent calls use every host."""
        from concurrent.futures import ThreadPoolExecutor

        servers = [FakeOllama().start() for _ in range(2)]
        try:
            for server in servers:
                server.responder = lambda body: Reply("ok", delay=0.1)
            chat = OllamaChat(MODEL, hosts=[s.url for s in servers], backoff=0.0)
            with ThreadPoolExecutor(4) as pool:
                list(pool.map(lambda i: chat.chat("s", f"u{i}", Options()), range(8)))
            assert all(len(server.chats()) >= 2 for server in servers)
            assert sum(len(server.chats()) for server in servers) == 8
        finally:
            for server in servers:
                server.stop()

    def test_a_host_that_does_not_answer_is_dropped_with_a_warning(self, fake_ollama, capsys):
        """One refused port among the hosts: asked once at the start, dropped with a warning on
        stderr; every call goes to the host that answered, none fails."""
        dead = closed_port_url()
        fake_ollama.responder = lambda body: Reply("ok")
        chat = OllamaChat(MODEL, hosts=[dead, fake_ollama.url], retries=1, backoff=0.0)
        info = chat.server_info()
        assert info.hosts == (fake_ollama.url,)
        assert list(info.dropped_hosts) == [dead]
        assert info.dropped_hosts[dead].startswith("ConnectionError: ")
        assert f"warning: dropping Ollama host {dead}" in capsys.readouterr().err
        replies = [chat.chat("s", f"u{i}", Options()) for i in range(4)]
        assert {reply.call["host"] for reply in replies} == {fake_ollama.url}
        assert len(fake_ollama.chats()) == 4
        asked = [path for _, path, _ in fake_ollama.requests if path == "/api/version"]
        assert asked == ["/api/version"]  # model info is asked once, not per call

    def test_no_host_answers(self):
        """Only when no host answers is it an error, naming every host and why."""
        dead = [closed_port_url(), closed_port_url()]
        chat = OllamaChat(MODEL, hosts=dead, retries=0)
        with pytest.raises(OllamaUnavailableError, match="no Ollama host could tell") as caught:
            chat.server_info()
        assert all(host in str(caught.value) for host in dead)

    def test_hosts_must_serve_the_same_model_version(self, fake_ollama):
        """Two hosts with different digests for the model would mix models in one run."""
        other = FakeOllama(models={MODEL: "sha256:" + "cd" * 32}).start()
        try:
            chat = OllamaChat(MODEL, hosts=[fake_ollama.url, other.url])
            with pytest.raises(OllamaUnavailableError, match="disagree"):
                chat.server_info()
            with pytest.raises(OllamaUnavailableError, match="disagree"):
                chat.chat("s", "u", Options())  # stops the run: not one record's failure
        finally:
            other.stop()


@pytest.mark.parametrize(
    ("options", "flag"),
    [
        ({"temperature": float("nan")}, "--temperature nan"),
        ({"temperature": -5.0}, "--temperature -5.0"),
        ({"top_p": 1.5}, "--top-p 1.5"),
        ({"repeat_penalty": float("inf")}, "--repeat-penalty inf"),
        ({"num_predict": -3}, "--num-predict -3"),
        ({"top_k": -1}, "--top-k -1"),
    ],
)
def test_generation_options_outside_ollamas_range_are_refused(options, flag):
    with pytest.raises(InputError, match=f"^{re.escape(flag)} is out of range"):
        Options(**options)


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0.0, -1.0])
def test_a_timeout_must_be_a_positive_finite_number(timeout):
    with pytest.raises(InputError, match="--timeout"):
        OllamaChat(MODEL, hosts=["http://127.0.0.1:9"], timeout=timeout)


def test_the_command_line_refuses_nan_before_any_run(tmp_path, monkeypatch):
    """`--temperature nan` once went into run.json as NaN: an invalid, unresumable package.
    It is refused before anything is read: here no sources exist to read the prompts from."""
    from click.testing import CliRunner

    from dmbench.cli import main

    monkeypatch.setenv("DMBENCH_SOURCES", str(tmp_path / "no-sources"))
    result = CliRunner().invoke(
        main,
        [
            "generate", "--candidate", "chen", "--model", "m", "--dataset", "ds2",
            "--temperature-translate", "nan", "--package", str(tmp_path),
        ],  # fmt: skip
    )
    assert result.exit_code == 1
    assert "--temperature-translate nan is out of range" in result.output
    assert list(tmp_path.iterdir()) == []
