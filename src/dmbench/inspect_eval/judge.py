"""``-T judge=MODEL``: dmbench's blind A/B judge as an inspect scorer, on any provider.

The judging is ``dmbench judge``'s own (``judge_instance``: the criteria, the blind form of
both diagrams, the order drawn from the seed and the instance, the reply checks and attempts,
S_final); only the chat is inspect's model, called from the worker thread the instance is
judged on. Two differences from ``dmbench judge``: the instance is keyed by the record id (the
run id is not known yet), so the drawn order can differ, and the reply schema is checked but not
sent as a structured-output format, which not every provider accepts.
"""

from __future__ import annotations

import math
from typing import Any

import anyio
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from dmbench.inspect_eval.scorer import generated_of
from dmbench.inspect_eval.solver import generate_from_thread
from dmbench.judge import Instance, Judge, JudgeOptions, judge_instance, load_criteria
from dmbench.llm import ChatReply, Options


class InspectChat:
    """The part of the Ollama client a :class:`Judge` uses, answered by an inspect model."""

    offline = False

    def __init__(self, model: Model) -> None:
        self.inspect_model = model
        self.model = str(model)

    def chat(
        self, system: str, user: str, options: Options, sample: int = 1, **_: Any
    ) -> ChatReply:
        config = GenerateConfig(
            temperature=options.temperature, max_tokens=options.num_predict, seed=options.seed
        )
        output = generate_from_thread(self.inspect_model, system, user, config)
        done_reason = "length" if output.stop_reason == "max_tokens" else "stop"
        call = {
            "model": output.model,
            "attempt": sample,
            "stop_reason": output.stop_reason,
            "reply": {"content": output.completion},
            "done_reason": done_reason,
        }
        return ChatReply(output.completion, call)


@scorer(metrics={"s_final": [mean(), stderr()]})
def judge_score(judge: str, seed: int = 0, both_orders: bool = True) -> Scorer:
    """S_final of the generated diagram by ``judge``; NaN (with the reason) for a failed one."""
    criteria = load_criteria()
    options = JudgeOptions(seed=seed, both_orders=both_orders)

    async def score(state: TaskState, target: Target) -> Score:
        judging = Judge(InspectChat(get_model(judge)), criteria, options)
        instance = Instance(
            str(state.sample_id),
            state.input_text,
            target.text,
            generated_of(state),
            state.metadata.get("type"),
            state.metadata.get("caption", ""),
        )
        judged = await anyio.to_thread.run_sync(judge_instance, [judging], instance)
        value = math.nan if judged.s_final is None else judged.s_final
        return Score(
            value={"s_final": value},
            explanation=judged.error,
            metadata={
                "judge": judge,
                "dimensions": judged.dimensions,
                "judgements": list(judged.judgements),
            },
        )

    return score
