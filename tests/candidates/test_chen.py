"""``chen`` (upstream ``zenodo_zero_shot``) against a real HTTP server speaking the Ollama API.

The expected request bodies are built from the real upstream prompt files and DS-1 records in
``../shared/upstream`` (spec B.3, B.5); failure strings are those of spec B.8.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from fake_ollama import DIGEST, MODEL, VERSION, Reply, wire_string

from dmbench.candidates import Record, get_candidate
from dmbench.plantuml import validate
from dmbench.sources.prompts import PROMPTS, load_prompt

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream"
DS1 = UPSTREAM / "Automated-DomainModel-Benchmark/Data/data-source-1/kaiser_clean.json"

DSL = "Enumerations:\n\nClasses:\nFlight(string number)\nAirport(string code)\n\n" \
    "Relationships:\n1..* Flight associate 1 Airport"
DIAGRAM = "@startuml\nclass Flight {\n  number : String\n}\nclass Airport\n" \
    'Flight "1..*" -- "1" Airport : departs from\n@enduml'


def long_diagram(n_classes: int = 80) -> str:
    lines = ["@startuml"] + [f"class VeryLongClassName{i:03d} {{ }}" for i in range(n_classes)]
    return "\n".join(lines + ["@enduml"])


@pytest.fixture(scope="module")
def records() -> dict[str, Record]:
    data = json.loads(DS1.read_text(encoding="utf-8"))
    return {item["id"]: Record(item["id"], item["nlt"]) for item in data}


@pytest.fixture(scope="module")
def prompt():
    return lambda name: load_prompt(UPSTREAM, name)


def chen(server, tmp_path, **settings):
    return get_candidate(
        "chen",
        model=MODEL.removesuffix(":latest"),
        hosts=[server.url],
        prompts=UPSTREAM,
        cache_dir=tmp_path / "cache",
        backoff=0.0,
        **settings,
    )


class TestRequests:
    def test_stage1_and_stage2_bytes_on_the_wire(self, fake_ollama, tmp_path, records, prompt):
        """The exact bytes the server receives for AirTravel's two calls. Message strings are
        upstream's; the framing is the ollama client's (compact separators, UTF-8 "§" in the
        translate prompt, its key order, ``"tools":[]``), the recorded wire deviations."""
        fake_ollama.script.extend([Reply(DSL), Reply(DIAGRAM)])
        chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        stage1, stage2 = fake_ollama.chat_bodies()
        user = "USER:\n" + prompt("chen_task.txt") + "\n\nUSER:\n" + records["AirTravel"].text
        assert stage1 == (
            b'{"model":"test-model","stream":false,'
            b'"options":{"temperature":0.7,"num_predict":1024},'
            b'"messages":[{"role":"system","content":' + wire_string(prompt("chen_system.txt"))
            + b'},{"role":"user","content":' + wire_string(user)
            + b'}],"tools":[],"think":false}'
        )  # fmt: skip
        translate = prompt("chen_translate.txt")
        assert "\u00a7" in translate and "\u00a7".encode() in wire_string(translate)
        assert stage2 == (
            b'{"model":"test-model","stream":false,'
            b'"options":{"temperature":0.0,"num_predict":1024},'
            b'"messages":[{"role":"system","content":' + wire_string(translate)
            + b'},{"role":"user","content":' + wire_string(DSL)
            + b'}],"tools":[],"think":false}'
        )  # fmt: skip

    def test_wire_deviations_are_recorded(self, fake_ollama, tmp_path):
        """Each run's provenance lists how its requests differ on the wire from upstream's."""
        deviations = chen(fake_ollama, tmp_path).describe()["provenance"]["deviations"]
        assert sum(d.startswith("wire: ") for d in deviations) == 4
        assert any('"tools": []' in d for d in deviations)
        assert any("without its content key" in d for d in deviations)

    def test_stage1_body_for_airtravel(self, fake_ollama, tmp_path, records, prompt):
        """Stage 1: system prompt, then the task and the text flattened with ``USER:`` labels."""
        fake_ollama.script.extend([Reply(DSL), Reply(DIAGRAM)])
        chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        stage1 = fake_ollama.chats()[0]
        system, user = stage1["messages"]
        assert system == {"role": "system", "content": prompt("chen_system.txt")}
        assert len(system["content"]) == 78
        expected = "USER:\n" + prompt("chen_task.txt") + "\n\nUSER:\n" + records["AirTravel"].text
        assert user == {"role": "user", "content": expected}
        assert len(user["content"]) == 2274
        assert stage1["options"] == {"temperature": 0.7, "num_predict": 1024}
        assert stage1["think"] is False and stage1["stream"] is False
        assert stage1["model"] == "test-model"

    def test_stage2_body_is_the_raw_dsl(self, fake_ollama, tmp_path, records, prompt):
        """Stage 2: the translator prompt as system, the stage-1 text as plain user turn."""
        fake_ollama.script.extend([Reply("\n  " + DSL + "  \n"), Reply(DIAGRAM)])
        chen(fake_ollama, tmp_path).generate(records["BankAccount"])
        stage2 = fake_ollama.chats()[1]
        assert stage2["messages"] == [
            {"role": "system", "content": prompt("chen_translate.txt")},
            {"role": "user", "content": DSL},
        ]
        assert len(stage2["messages"][0]["content"]) == 4834
        assert stage2["options"] == {"temperature": 0.0, "num_predict": 1024}

    def test_every_record_matches_the_published_prompt_length(self, fake_ollama, tmp_path, records):
        """Stage-1 user length = 6 + 784 + 8 + len(text) for every DS-1 record (spec B.3)."""
        fake_ollama.responder = lambda body: Reply("no diagram here")
        candidate = chen(fake_ollama, tmp_path)
        for record in records.values():
            candidate.generate(record)
        stage1 = [body for body in fake_ollama.chats() if body["options"]["temperature"] == 0.7]
        lengths = [len(body["messages"][1]["content"]) for body in stage1]
        assert lengths == [6 + 784 + 8 + len(r.text) for r in records.values()]

    def test_stage1_output_is_cut_to_2000(self, fake_ollama, tmp_path, records):
        """Stage 2 receives only the first 2000 characters of a longer stage-1 reply."""
        long_dsl = DSL + "\n" + "x" * 3000
        fake_ollama.script.extend([Reply(long_dsl), Reply(DIAGRAM)])
        chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert fake_ollama.chats()[1]["messages"][1]["content"] == long_dsl[:2000]

    def test_no_truncate_sends_the_whole_stage1_output(self, fake_ollama, tmp_path, records):
        """``truncate=False`` is the recorded deviation: nothing is cut."""
        long_dsl = DSL + "\n" + "x" * 3000
        fake_ollama.script.extend([Reply(long_dsl), Reply(DIAGRAM)])
        candidate = chen(fake_ollama, tmp_path, truncate=False)
        candidate.generate(records["AirTravel"])
        assert fake_ollama.chats()[1]["messages"][1]["content"] == long_dsl
        assert candidate.describe()["settings"]["truncate"] is False
        assert any("no-truncate" in d for d in candidate.describe()["provenance"]["deviations"])


class TestOutcomes:
    def test_valid_dsl_then_valid_diagram(self, fake_ollama, tmp_path, records):
        """Success: the validator's repaired diagram, the stage-2 reply as raw excerpt."""
        fake_ollama.script.extend([Reply(DSL), Reply("Here:\n" + DIAGRAM + "\nDone.")])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert output.failed is False and output.error is None
        assert output.generated == validate(DIAGRAM).repaired
        assert output.raw == "Here:\n" + DIAGRAM + "\nDone."
        assert [call["stage"] for call in output.calls] == ["extract", "translate"]
        assert output.calls[0]["model_digest"] == DIGEST

    def test_fenced_output(self, fake_ollama, tmp_path, records):
        """A fenced diagram is found inside the fence."""
        fenced = "```plantuml\n" + DIAGRAM + "\n```"
        fake_ollama.script.extend([Reply(DSL), Reply(fenced)])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert output.failed is False
        assert output.generated == validate(DIAGRAM).repaired
        assert output.raw == fenced

    def test_thinking_only_reply(self, fake_ollama, tmp_path, records):
        """A reply with empty content and the diagram in ``thinking`` still succeeds (B.2)."""
        fake_ollama.script.extend([Reply("", thinking=DSL), Reply("", thinking=DIAGRAM)])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert fake_ollama.chats()[1]["messages"][1]["content"] == DSL
        assert output.failed is False and output.raw == DIAGRAM

    def test_empty_stage1_reply_still_goes_to_stage2(self, fake_ollama, tmp_path, records):
        """An empty stage-1 reply is not an error; the ollama client omits the empty content
        (a recorded wire deviation: upstream sent ``"content": ""``)."""
        fake_ollama.script.extend([Reply(""), Reply("nothing")])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert b'},{"role":"user"}],"tools":[]' in fake_ollama.chat_bodies()[1]
        assert output.error == "zenodo_zero_shot_stage2_no_puml"

    def test_reply_without_startuml(self, fake_ollama, tmp_path, records):
        """No diagram in stage 2: ``zenodo_zero_shot_stage2_no_puml``, raw = the reply."""
        fake_ollama.script.extend([Reply(DSL), Reply("class A\nA -- B\n@enduml")])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert (output.generated, output.failed, output.error) == (
            "",
            True,
            "zenodo_zero_shot_stage2_no_puml",
        )
        assert output.raw == "class A\nA -- B\n@enduml"

    def test_diagram_longer_than_2000_loses_its_end(self, fake_ollama, tmp_path, records):
        """The stage-2 reply is cut before extraction, so a long diagram has no ``@enduml``."""
        diagram = long_diagram()
        assert len(diagram) > 2000
        fake_ollama.script.extend([Reply(DSL), Reply(diagram)])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert output.error == "zenodo_zero_shot_stage2_no_puml"
        assert output.raw == diagram[:2000]

    def test_long_diagram_with_no_truncate(self, fake_ollama, tmp_path, records):
        """Without the cut the same long diagram is kept."""
        diagram = long_diagram()
        fake_ollama.script.extend([Reply(DSL), Reply(diagram)])
        output = chen(fake_ollama, tmp_path, truncate=False).generate(records["AirTravel"])
        assert output.failed is False
        assert output.generated == validate(diagram).repaired

    def test_invalid_diagram_keeps_the_repair(self, fake_ollama, tmp_path, records):
        """Validator errors fail the record but the repaired diagram is kept (B.6)."""
        bad = "@startuml\nskinparam monochrome true\nclass A\nA -- B\n@enduml"
        fake_ollama.script.extend([Reply(DSL), Reply(bad)])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        result = validate(bad)
        assert output.failed is True
        assert output.error == "zenodo_zero_shot_invalid: " + " | ".join(result.errors)
        assert output.error == (
            "zenodo_zero_shot_invalid: line 2: unrecognised line 'skinparam monochrome true'"
        )
        assert output.generated == result.repaired and output.generated

    def test_validator_errors_are_cut_to_500(self, fake_ollama, tmp_path, records):
        """The joined error list is cut to 500 characters; the prefix is not counted."""
        bad = "@startuml\n" + "\n".join(f"note {i} here" for i in range(40)) + "\nclass A\n@enduml"
        fake_ollama.script.extend([Reply(DSL), Reply(bad)])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        joined = " | ".join(validate(bad).errors)
        assert len(joined) > 500
        assert output.error == "zenodo_zero_shot_invalid: " + joined[:500]


class TestCallFailures:
    def test_http_500_then_success(self, fake_ollama, tmp_path, records):
        """A transient 500 is retried; the record succeeds and records two attempts."""
        fake_ollama.script.extend([Reply(status=500), Reply(DSL), Reply(DIAGRAM)])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert output.failed is False
        assert output.calls[0]["attempts"] == 2
        assert len(fake_ollama.chats()) == 3

    def test_stage1_timeout_stops_before_stage2(self, fake_ollama, tmp_path, records):
        """A reply slower than the timeout: ``exception: ReadTimeout: …``, no stage 2."""
        fake_ollama.script.append(Reply(DSL, delay=1.0))
        candidate = chen(fake_ollama, tmp_path, timeout=0.25, retries=0)
        output = candidate.generate(records["AirTravel"])
        assert output.failed is True and output.generated == "" and output.raw == ""
        assert output.error.startswith("exception: ReadTimeout: ")
        assert len(fake_ollama.chats()) == 1

    def test_stage2_http_error(self, fake_ollama, tmp_path, records):
        """A failing stage 2 reads like upstream's requests HTTPError."""
        fake_ollama.script.extend([Reply(DSL), Reply(status=404)])
        output = chen(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert output.error == (
            f"exception: HTTPError: 404 Client Error: Not Found for url: {fake_ollama.url}/api/chat"
        )
        assert [call["stage"] for call in output.calls] == ["extract", "translate"]

    def test_connection_refused(self, tmp_path, records):
        """Nobody listening: the record fails with ``exception: ConnectionError: …``."""
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        candidate = get_candidate(
            "chen", model="m", hosts=[url], prompts=UPSTREAM, cache_dir=tmp_path, retries=0
        )
        output = candidate.generate(records["AirTravel"])
        assert output.failed is True and output.generated == ""
        assert output.error.startswith("exception: ConnectionError: ")


class TestDescribe:
    def test_effective_settings_and_provenance(self, fake_ollama, tmp_path):
        """Settings are the effective ones (timeout 600, think off), keyed like the imported
        published runs' settings; provenance pins the rest."""
        described = chen(fake_ollama, tmp_path).describe()
        assert described["settings"] == {
            "uses_llm": True,
            "model": "test-model",
            "temperature": 0.7,
            "temperature_translate": 0.0,
            "num_predict": 1024,
            "seed": None,
            "top_p": None,
            "top_k": None,
            "repeat_penalty": None,
            "timeout_seconds": 600,
            "think": False,
            "truncate": True,
            "enable_translation": True,
        }
        provenance = described["provenance"]
        assert provenance["upstream_candidate"] == "zenodo_zero_shot"
        assert provenance["prompts_sha256"] == {
            name: PROMPTS[name].sha256
            for name in ("chen_system.txt", "chen_task.txt", "chen_translate.txt")
        }
        assert provenance["model_digest"] == DIGEST
        assert provenance["server_version"] == VERSION
        assert provenance["hosts"] == [fake_ollama.url]
