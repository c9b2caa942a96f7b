"""inspect_ai for ``test_inspect_eval.py``: mock models that answer as the tests script them.

A module of its own, imported by that file's ``harness`` fixture when its first test runs:
inspect_ai takes 1.5 s to import, which every test worker paid at collection.
"""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelAPI, ModelOutput, ModelUsage, get_model, modelapi
from inspect_ai.solver import generate

from dmbench.inspect_eval.task import domain_modelling
from dmbench.judge import load_criteria
from dmbench.llm import ChatReply

__all__ = [
    "PrerequisiteError",
    "Recorder",
    "ReplayChat",
    "Sample",
    "ScriptedJudge",
    "Task",
    "domain_modelling",
    "eval",
    "generate",
    "get_model",
    "reply",
    "run_task",
]


def reply(content: str) -> ModelOutput:
    """A mock reply with its usage set, so inspect does not count tokens (tiktoken would
    download its encoding)."""
    output = ModelOutput.from_content(model="mockllm", content=content)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


class Recorder:
    """A callable mock: answers each request from ``answer`` and keeps the messages sent."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.requests: list[tuple[str, str]] = []

    def __call__(self, messages, tools, tool_choice, config) -> ModelOutput:
        system, user = (message.text for message in messages)
        self.requests.append((system, user))
        return reply(self.answer(system, user))


def run_task(
    package: Path, log_dir: Path, answer, eval_args=None, **task_args
) -> tuple[Recorder, Path]:
    recorder = Recorder(answer)
    model = get_model("mockllm/model", custom_outputs=recorder)
    (log,) = eval(
        domain_modelling(package=str(package), **task_args),
        model=model,
        log_dir=str(log_dir),
        display="none",
        **(eval_args or {}),
    )
    assert log.status == "success", log.error
    return recorder, Path(log.location)


def scripted_judge_reply() -> str:
    """Every criterion 8 for Diagram A and 4 for Diagram B."""
    criteria = load_criteria()
    return json.dumps({"scores": {cid: {"A": 8, "B": 4, "reason": "scripted"}
                                  for cid in criteria.ids}})


class ScriptedJudge(ModelAPI):
    """A judge provider for the tests: the same valid reply to every request, and a note of the
    system prompts it got."""

    systems: list[str] = []
    users: list = []
    """The user messages' content: a string, or text and images."""

    async def generate(self, input, tools, tool_choice, config):
        ScriptedJudge.systems.append(input[0].text)
        ScriptedJudge.users.append(input[1].content)
        return reply(scripted_judge_reply())


@modelapi(name="scriptedjudge")
def scripted_judge():
    return ScriptedJudge


class ReplayChat:
    """What `dmbench judge` would have got from its Ollama client: the same reply."""

    offline = False
    model = "replay"

    def chat(self, system, user, options, sample=1, **_):
        text = scripted_judge_reply()
        return ChatReply(text, {"reply": {"content": text}, "done_reason": "stop"})
