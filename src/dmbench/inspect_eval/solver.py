"""A dmbench LLM candidate as an inspect solver: its own prompts, stages and extraction.

The candidate's per-record logic (``LLMCandidate.run``) is synchronous and asks its model
through ``ask``; here ``ask`` is answered by the inspect model, called back on the event loop
from the worker thread the record runs on. So chen's two stages are two ``generate`` calls and
calamo's one, with the very prompt texts, cuts, extraction and repairs ``dmbench generate``
uses, and the outcome (diagram, failure, error, reply) is stored in the sample's store.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentReasoning,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from dmbench.inspect_eval.logs import OUTPUT_KEY
from dmbench.llm.client import ChatReply, reply_text
from dmbench.llm.llm_candidate import LLMCandidate


def generate_config(candidate: LLMCandidate, temperature: float | None) -> GenerateConfig:
    """The candidate's generation settings in inspect's terms, at one stage's temperature."""
    return GenerateConfig(
        temperature=temperature,
        max_tokens=candidate.num_predict,
        seed=candidate.seed,
        top_p=candidate.top_p,
        top_k=candidate.top_k,
    )


def generate_from_thread(
    model: Model, system: str, user: str | list[Content], config: GenerateConfig
) -> ModelOutput:
    """One system + user call of ``model`` from a worker thread: it runs on the event loop
    (the user's content may hold images besides text)."""
    messages: list[ChatMessage] = [ChatMessageSystem(content=system), ChatMessageUser(content=user)]
    return anyio.from_thread.run(partial(model.generate, messages, config=config))


def _ask(
    model: Model, candidate: LLMCandidate, system: str, user: str, temperature: float | None
) -> ChatReply:
    """``LLMCandidate.ask`` answered by ``model``: the reply text as the Ollama client makes it
    (stripped content, else the stripped reasoning)."""
    output = generate_from_thread(model, system, user, generate_config(candidate, temperature))
    content = output.message.content if output.choices else ""
    thinking = (
        "".join(part.reasoning for part in content if isinstance(part, ContentReasoning))
        if isinstance(content, list)
        else None
    )
    call = {
        "model": output.model,
        "temperature": temperature,
        "stop_reason": output.stop_reason,
        "usage": output.usage.model_dump(exclude_none=True) if output.usage else None,
        "error": output.error,
    }
    return ChatReply(reply_text(output.completion, thinking), call)


@solver
def candidate_solver(candidate: LLMCandidate) -> Solver:
    """Run ``candidate``'s per-record logic on the sample's text with the task's model."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        bridged = candidate.answered_by(partial(_ask, model, candidate))
        result = await anyio.to_thread.run_sync(bridged.run, state.input_text)
        outcome: dict[str, Any] = result._asdict()
        outcome["calls"] = [dict(call) for call in result.calls]
        state.store.set(OUTPUT_KEY, outcome)
        state.output = ModelOutput.from_content(model=str(model), content=result.generated)
        state.messages.append(state.output.message)
        return state

    return solve

