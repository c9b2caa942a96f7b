"""``calamo`` (upstream ``kaiser_zero_shot``) against a real HTTP server speaking the Ollama API.

Expected bodies come from the real upstream prompt file and DS-1 records (spec C.2); failure
strings are those of spec C.3.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_ollama import DIGEST, MODEL, Reply, wire_string

from dmbench.candidates import Record, get_candidate
from dmbench.plantuml import validate
from dmbench.sources.prompts import PROMPTS, load_prompt

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream"
DS1 = UPSTREAM / "Automated-DomainModel-Benchmark/Data/data-source-1/kaiser_clean.json"
PREFIX = "Transform into plant uml this specification text: "
DIAGRAM = "@startuml\nclass Book{ String Title, String Author }\nclass Page{ String Content}\n\n" \
    'Book "1..1" -- "1..*" Page\n@enduml'


@pytest.fixture(scope="module")
def records() -> dict[str, Record]:
    data = json.loads(DS1.read_text(encoding="utf-8"))
    return {item["id"]: Record(item["id"], item["nlt"]) for item in data}


def calamo(server, tmp_path, **settings):
    return get_candidate(
        "calamo",
        model=MODEL,
        hosts=[server.url],
        prompts=UPSTREAM,
        cache_dir=tmp_path / "cache",
        backoff=0.0,
        **settings,
    )


class TestRequest:
    def test_bytes_on_the_wire(self, fake_ollama, tmp_path, records):
        """The exact bytes the server receives for AirTravel: upstream's message strings in the
        ollama client's framing (the recorded wire deviations)."""
        fake_ollama.script.append(Reply(DIAGRAM))
        calamo(fake_ollama, tmp_path).generate(records["AirTravel"])
        (body,) = fake_ollama.chat_bodies()
        system = load_prompt(UPSTREAM, "calamo_system.txt")
        assert body == (
            b'{"model":"test-model:latest","stream":false,'
            b'"options":{"temperature":0.7,"num_predict":1024},'
            b'"messages":[{"role":"system","content":' + wire_string(system)
            + b'},{"role":"user","content":' + wire_string(PREFIX + records["AirTravel"].text)
            + b'}],"tools":[],"think":false}'
        )  # fmt: skip

    def test_body_for_airtravel(self, fake_ollama, tmp_path, records):
        """One call: the prompt file as system, the template with the text as user."""
        fake_ollama.script.append(Reply(DIAGRAM))
        calamo(fake_ollama, tmp_path).generate(records["AirTravel"])
        (body,) = fake_ollama.chats()
        system = load_prompt(UPSTREAM, "calamo_system.txt")
        assert len(system) == 1309
        assert body["messages"] == [
            {"role": "system", "content": system},
            {"role": "user", "content": PREFIX + records["AirTravel"].text},
        ]
        assert len(body["messages"][1]["content"]) == 50 + len(records["AirTravel"].text)
        assert body["options"] == {"temperature": 0.7, "num_predict": 1024}
        assert body["think"] is False and body["stream"] is False

    def test_braces_in_the_text_are_safe(self, fake_ollama, tmp_path):
        """The text is put in by plain replacement: ``{nlt}`` or ``{x}`` in it stays as is."""
        fake_ollama.script.append(Reply(DIAGRAM))
        text = "A {nlt} and {0} and {{braces}}."
        calamo(fake_ollama, tmp_path).generate(Record("r", text))
        assert fake_ollama.chats()[0]["messages"][1]["content"] == PREFIX + text

    def test_options_when_set(self, fake_ollama, tmp_path):
        """Seed and sampling options are sent only when given."""
        fake_ollama.script.append(Reply(DIAGRAM))
        candidate = calamo(fake_ollama, tmp_path, seed=7, top_k=20, temperature=0.2)
        candidate.generate(Record("r", "text"))
        assert fake_ollama.chats()[0]["options"] == {
            "temperature": 0.2,
            "num_predict": 1024,
            "seed": 7,
            "top_k": 20,
        }


class TestOutcomes:
    def test_valid_diagram(self, fake_ollama, tmp_path, records):
        """Success: the repaired diagram; the whole reply is the raw excerpt."""
        reply = "Sure!\n" + DIAGRAM
        fake_ollama.script.append(Reply(reply))
        output = calamo(fake_ollama, tmp_path).generate(records["AirTravel"])
        assert (output.failed, output.error) == (False, None)
        assert output.generated == validate(DIAGRAM).repaired
        assert "  String Title, String Author" in output.generated
        assert output.raw == reply
        assert output.calls[0]["model_digest"] == DIGEST

    def test_fenced_output(self, fake_ollama, tmp_path):
        """A fenced diagram is found inside the fence."""
        fake_ollama.script.append(Reply("```plantuml\n" + DIAGRAM + "\n```"))
        output = calamo(fake_ollama, tmp_path).generate(Record("r", "t"))
        assert output.failed is False
        assert output.generated == validate(DIAGRAM).repaired

    def test_thinking_only_reply(self, fake_ollama, tmp_path):
        """Empty content: the diagram is taken from ``thinking``."""
        fake_ollama.script.append(Reply("", thinking=DIAGRAM))
        output = calamo(fake_ollama, tmp_path).generate(Record("r", "t"))
        assert output.failed is False and output.raw == DIAGRAM

    def test_reply_without_startuml(self, fake_ollama, tmp_path):
        """``kaiser_zero_shot_no_plantuml``, raw = the first 2000 characters."""
        reply = "I cannot do that. " * 200
        fake_ollama.script.append(Reply(reply))
        output = calamo(fake_ollama, tmp_path).generate(Record("r", "t"))
        assert (output.generated, output.failed, output.error) == (
            "",
            True,
            "kaiser_zero_shot_no_plantuml",
        )
        assert output.raw == reply.strip()[:2000]

    def test_diagram_longer_than_2000_is_kept_whole(self, fake_ollama, tmp_path):
        """Calamo extracts from the whole reply: no cut before extraction."""
        line = "class LongClassName{:03d}{{ String a, String b }}"
        classes = "\n".join(line.format(i) for i in range(60))
        diagram = "@startuml\n" + classes + "\n@enduml"
        assert len(diagram) > 2000
        fake_ollama.script.append(Reply(diagram))
        output = calamo(fake_ollama, tmp_path).generate(Record("r", "t"))
        assert output.failed is False
        assert output.generated == validate(diagram).repaired
        assert output.raw == diagram

    def test_invalid_diagram(self, fake_ollama, tmp_path):
        """Validator errors: ``plantuml_validator: …``, repaired diagram kept."""
        bad = "@startuml\nclass E-Home-2020{}\nclass A\n@enduml"
        fake_ollama.script.append(Reply(bad))
        output = calamo(fake_ollama, tmp_path).generate(Record("r", "t"))
        result = validate(bad)
        assert output.failed is True
        assert output.error == "plantuml_validator: " + " | ".join(result.errors)[:500]
        assert output.generated == (result.repaired or "")
        assert output.raw == bad


class TestCallFailures:
    def test_http_500_then_success(self, fake_ollama, tmp_path):
        """A transient 500 is retried and the record succeeds."""
        fake_ollama.script.extend([Reply(status=500), Reply(DIAGRAM)])
        output = calamo(fake_ollama, tmp_path).generate(Record("r", "t"))
        assert output.failed is False and output.calls[0]["attempts"] == 2

    def test_timeout(self, fake_ollama, tmp_path):
        """A reply slower than the timeout fails the record with ``exception: ReadTimeout``."""
        fake_ollama.script.append(Reply(DIAGRAM, delay=1.0))
        output = calamo(fake_ollama, tmp_path, timeout=0.25, retries=0).generate(Record("r", "t"))
        assert (output.generated, output.failed, output.raw) == ("", True, "")
        assert output.error.startswith("exception: ReadTimeout: ")
        assert output.calls[0]["error"]["reported"] == "ReadTimeout"


class TestDescribe:
    def test_effective_settings(self, fake_ollama, tmp_path):
        """Timeout 600 (not the recorded 1800), think off, the prompt's sha256 recorded."""
        described = calamo(fake_ollama, tmp_path).describe()
        settings = described["settings"]
        assert settings["timeout_seconds"] == 600
        assert settings["think"] is False
        assert (settings["temperature"], settings["num_predict"]) == (0.7, 1024)
        assert settings["temperature_translate"] is None and settings["enable_translation"] is None
        assert described["provenance"]["prompts_sha256"] == {
            "calamo_system.txt": PROMPTS["calamo_system.txt"].sha256
        }
        assert described["provenance"]["upstream_candidate"] == "kaiser_zero_shot"

    def test_other_settings_are_ignored(self, fake_ollama, tmp_path):
        """Like upstream, settings meant for chen are accepted and have no effect."""
        candidate = calamo(fake_ollama, tmp_path, temperature_translate=0.3, truncate=False)
        settings = candidate.describe()["settings"]
        assert settings["temperature_translate"] is None and settings["truncate"] is None

    def test_settings_are_keyed_like_the_published_runs(self, fake_ollama, tmp_path):
        """A default run records what the imported published runs record as effective."""
        candidate = get_candidate("calamo", model="glm-5.1:cloud", prompts=UPSTREAM)
        assert candidate.settings() == {
            "uses_llm": True,
            "model": "glm-5.1:cloud",
            "temperature": 0.7,
            "temperature_translate": None,
            "num_predict": 1024,
            "seed": None,
            "top_p": None,
            "top_k": None,
            "repeat_penalty": None,
            "timeout_seconds": 600,
            "enable_translation": None,
            "think": False,
            "truncate": None,
        }
