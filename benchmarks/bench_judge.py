"""The judge's own cost: overhead per judgement, and wall time of 200 judgements in parallel.

Run: ``.venv/bin/python benchmarks/bench_judge.py``. Both use the scripted Ollama server of the
tests on 127.0.0.1 (every criterion A=8, B=4), a fresh reply cache and diagrams of 12 classes
(8 distinct references, 200 distinct outputs).

1. Against a server that answers at once: the time per judgement through dmbench (canonical
   form of both diagrams, prompt, HTTP through the ollama client, schema validation, scoring,
   cache write), and the time of a bare ``ollama`` client call to the same server; their
   difference is dmbench's overhead. A replay from the cache (``--offline``) is timed too.
2. 200 judgements with 8 workers against a server that takes 200 ms per reply (the floor is
   200 / 8 × 0.2 s = 5 s).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import ollama

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from fake_ollama import MODEL, FakeOllama, Reply, judge_reply  # noqa: E402

from dmbench.judge import Instance, Judge, JudgeOptions, judge_in_order, load_criteria  # noqa: E402
from dmbench.llm import OllamaChat, ResponseCache  # noqa: E402

N = 200


def diagram(n_classes: int, typed: bool, tag: str = "") -> str:
    lines = ["@startuml"]
    for i in range(n_classes):
        kind = " : String" if typed else ""
        lines += [f"class Concept{i}{tag} {{", f"  name{kind}", f"  code{kind}", "}"]
        if i:
            lines.append(f'Concept{i - 1}{tag} "1" -- "0..*" Concept{i}{tag} : has')
    return "\n".join(lines + ["@enduml"]) + "\n"


def instances() -> list[Instance]:
    text = "A domain of twelve related concepts, each with a name and a code. " * 8
    return [
        Instance(f"bench-{i}", text, diagram(12, False, f"R{i % 8}"), diagram(12, True, f"G{i}"),
                 "ds1", f"b{i}")  # 8 references, as a record's over runs; every output its own
        for i in range(N)
    ]


def judges(server: FakeOllama, cache: Path, offline: bool = False) -> list[Judge]:
    chat = OllamaChat(MODEL, hosts=[] if offline else [server.url], cache=ResponseCache(cache),
                      offline=offline)  # fmt: skip
    return [Judge(chat, load_criteria(), JudgeOptions())]


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> int:
    server = FakeOllama().start()
    answer = judge_reply(8, 4)
    try:
        work = instances()
        with tempfile.TemporaryDirectory() as tmp:
            server.responder = answer
            panel = judges(server, Path(tmp) / "cache")
            panel[0].chat.server_info()
            through = timed(lambda: list(judge_in_order(panel, work)))
            replay = judges(server, Path(tmp) / "cache", offline=True)
            replayed = timed(lambda: list(judge_in_order(replay, work)))
        body = server.chats()[0]
        client = ollama.Client(host=server.url)
        bare = timed(
            lambda: [
                client.chat(model=body["model"], messages=body["messages"], stream=False,
                            format=body["format"], options=body["options"])  # fmt: skip
                for _ in range(N)
            ]
        )
        print(f"instant server, {N} judgements, 1 worker:")
        print(f"  through dmbench      {1000 * through / N:7.2f} ms per judgement")
        print(f"  bare ollama client   {1000 * bare / N:7.2f} ms per call")
        print(f"  dmbench overhead     {1000 * (through - bare) / N:7.2f} ms per judgement")
        print(f"  offline cache replay {1000 * replayed / N:7.2f} ms per judgement")

        with tempfile.TemporaryDirectory() as tmp:
            server.responder = lambda b: Reply(answer(b).content, delay=0.2)
            panel = judges(server, Path(tmp) / "cache")
            panel[0].chat.server_info()
            wall = timed(lambda: list(judge_in_order(panel, work, workers=8)))
        print(f"200 ms server, {N} judgements, 8 workers: {wall:.2f} s wall "
              f"(floor {N / 8 * 0.2:.1f} s)")  # fmt: skip
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
