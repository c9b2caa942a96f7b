"""``-T judge=MODEL``: dmbench's blind A/B judge as an inspect scorer, on any provider.

The judging is ``dmbench judge``'s own (``judge_instance``: the criteria, the blind form of
both diagrams, the order drawn from the seed and the instance, the reply checks and attempts,
S_final); only the chat is inspect's model, called from the worker thread the instance is
judged on. Two differences from ``dmbench judge``: the instance is keyed by the record id (the
run id is not known yet), so the drawn order can differ, and the reply schema is checked but not
sent as a structured-output format, which not every provider accepts. ``-T judge_view=image``
shows the judge both diagrams drawn by the pinned PlantUML (inspect image content) instead of
their text, as ``dmbench judge --view image`` does.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import (
    Content,
    ContentImage,
    ContentText,
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from dmbench.errors import InputError
from dmbench.inspect_eval.scorer import generated_of
from dmbench.inspect_eval.solver import generate_from_thread
from dmbench.judge import Instance, Judge, JudgeOptions, judge_instance, load_criteria
from dmbench.judge.views import DEFAULT_VIEW, VIEWS, Drawings
from dmbench.llm import ChatReply, Options


class InspectChat:
    """The part of the Ollama client a :class:`Judge` uses, answered by an inspect model."""

    offline = False

    def __init__(self, model: Model) -> None:
        self.inspect_model = model
        self.model = str(model)

    def chat(
        self, system: str, user: str, options: Options, sample: int = 1,
        format: dict[str, Any] | None = None,
        accept: Callable[[dict[str, Any]], bool] | None = None,
        images: Sequence[bytes] = (),
    ) -> ChatReply:  # fmt: skip
        """One call of the inspect model; ``format`` is not sent (the judge checks the reply
        against it) and nothing is cached, so ``accept`` has nothing to decide."""
        config = GenerateConfig(
            temperature=options.temperature, max_tokens=options.num_predict, seed=options.seed
        )
        content: str | list[Content] = user
        if images:
            content = [ContentText(text=user), *(
                ContentImage(image="data:image/png;base64," + base64.b64encode(png).decode())
                for png in images
            )]  # fmt: skip
        output = generate_from_thread(self.inspect_model, system, content, config)
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
def judge_score(
    judge: str, seed: int = 0, both_orders: bool = True, view: str = DEFAULT_VIEW,
    package_dir: Path | None = None,
) -> Scorer:  # fmt: skip
    """S_final of the generated diagram by ``judge``; NaN (with the reason) for a failed one.
    ``view="image"`` draws both diagrams (cached in ``package_dir``'s render cache)."""
    if view not in VIEWS:
        raise InputError(f"unknown judge_view {view!r}; choose one of {', '.join(VIEWS)}")
    criteria = load_criteria()
    options = JudgeOptions(seed=seed, both_orders=both_orders, view=view)
    drawings = Drawings(package_dir or Path.cwd()) if view == "image" else None

    async def score(state: TaskState, target: Target) -> Score:
        judging = Judge(InspectChat(get_model(judge)), criteria, options, drawings)
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
