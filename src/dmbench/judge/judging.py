"""One judge model asked about one instance: blind order, bounded attempts, failures as data.

An instance is judged once, in an order drawn from (seed, instance id), or in both orders. Every
reply is validated against the schema sent as ``format``; one that is cut off
(``done_reason == "length"``), empty, not JSON or off the schema is asked again, at most
:data:`MAX_ATTEMPTS` times in all, and then recorded as a failed judgement with its raw reply
and reason. Such replies are never cached, so a later run asks again instead of replaying the
failure. An empty generated diagram is not sent at all: S_final 0, ``empty_generated_model``.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

import jsonschema

from dmbench.judge.criteria import Criteria
from dmbench.judge.prompt import SYSTEM, canonical_form, reply_schema, user_message
from dmbench.judge.protocol_scores import score
from dmbench.llm import CacheMissError, ChatError, OllamaChat, Options

MAX_ATTEMPTS = 3
EMPTY_GENERATED = "empty_generated_model"
DEFAULT_NUM_PREDICT = 2048
DEFAULT_NUM_CTX = 8192
_CTX_STEP = 4096
_CHARS_PER_TOKEN = 3  # a safe under-estimate for English and PlantUML, so num_ctx is ample


@dataclass(frozen=True, slots=True)
class Instance:
    """What one judgement compares: the text, the two diagrams, the type τ and a caption."""

    id: str
    text: str
    reference: str
    generated: str
    type: str | None = None
    caption: str = ""


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    """What decides a reply besides the model and the messages; all of it goes in a run's id."""

    seed: int = 0
    both_orders: bool = False
    temperature: float = 0.0
    num_predict: int = DEFAULT_NUM_PREDICT
    num_ctx: int = DEFAULT_NUM_CTX
    think: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "both_orders": self.both_orders,
            "temperature": self.temperature,
            "num_predict": self.num_predict,
            "num_ctx": self.num_ctx,
            "think": self.think,
            "max_attempts": MAX_ATTEMPTS,
        }


def reference_position(seed: int, instance_id: str) -> str:
    """Where the reference is shown ("A" or "B"): drawn from an RNG keyed by (seed, instance).

    The key is hashed with sha256, so the draw is the same on every machine and Python."""
    key = hashlib.sha256(f"{seed}\x00{instance_id}".encode()).digest()
    return random.Random(int.from_bytes(key[:8], "big")).choice(("A", "B"))


def model_family(model: str) -> str:
    """The leading letters of a model name (``glm-5.1:cloud`` -> ``glm``), for self-preference."""
    name = model.rsplit("/", 1)[-1].lower()
    match = re.match(r"[a-z]+", name)
    return match.group(0) if match else name


def check_reply(response: dict[str, Any], schema: dict[str, Any]) -> tuple[dict | None, str | None]:
    """(scores, None) for a valid reply body, else (None, why it is not)."""
    message = response.get("message") or {}
    content = (message.get("content") or "").strip()
    if response.get("done_reason") == "length":
        return None, "reply cut off at num_predict (done_reason is length)"
    if not content:
        has_thinking = bool((message.get("thinking") or "").strip())
        return None, "empty content" + (" (the reply holds only thinking)" if has_thinking else "")
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc})"
    except RecursionError:
        return None, "not JSON (nested too deeply)"
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data), key=str)
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(top)"
        return None, f"does not match the schema: {where}: {errors[0].message}"
    return data["scores"], None


def _num_ctx(options: JudgeOptions, user: str) -> int:
    """The context the call needs (prompt estimate + reply), at least the configured one."""
    needed = (len(SYSTEM) + len(user)) // _CHARS_PER_TOKEN + options.num_predict
    return max(options.num_ctx, math.ceil(needed / _CTX_STEP) * _CTX_STEP)


class Judge:
    """One judge model over the ``llm`` layer (hosts, retries, cache, offline)."""

    def __init__(self, chat: OllamaChat, criteria: Criteria, options: JudgeOptions) -> None:
        self.chat = chat
        self.criteria = criteria
        self.options = options
        self.schema = reply_schema(criteria)

    @property
    def model(self) -> str:
        return self.chat.model

    def judge(self, instance: Instance, reference_as: str) -> dict[str, Any]:
        """One judgement row: scores, or a failure with its reason, raw reply and attempts."""
        reference = canonical_form(instance.reference)
        generated = canonical_form(instance.generated)
        shown = (reference, generated) if reference_as == "A" else (generated, reference)
        user = user_message(
            instance.text, instance.caption, shown[0].text, shown[1].text, self.criteria
        )
        num_ctx = _num_ctx(self.options, user)
        options = Options(
            temperature=self.options.temperature,
            num_predict=self.options.num_predict,
            seed=self.options.seed,
            num_ctx=num_ctx,
        )
        row: dict[str, Any] = {
            "judge": self.model,
            "reference_shown_as": reference_as,
            "canonical": {
                "reference_parsed": reference.parsed,
                "generated_parsed": generated.parsed,
                "reference_error": reference.error,
                "generated_error": generated.error,
            },
            "num_ctx": num_ctx,
        }
        tries: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        missed: CacheMissError | None = None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                reply = self.chat.chat(
                    SYSTEM,
                    user,
                    options,
                    sample=attempt,
                    format=self.schema,
                    accept=lambda body: check_reply(body, self.schema)[1] is None,
                )
            except CacheMissError as exc:
                if not self.chat.offline:
                    raise
                missed = exc  # offline: a rejected reply was never cached; try the next one
                continue
            except ChatError as exc:
                calls.append(exc.call)
                tries.append({"attempt": attempt, "error": str(exc), "raw": None})
                break  # the llm layer already retried what a retry can fix
            calls.append(reply.call)
            body = {"message": reply.call.get("reply") or {}, "done_reason": reply.call.get(
                "done_reason"
            )}
            scores, error = check_reply(body, self.schema)
            raw = (reply.call.get("reply") or {}).get("content")
            if error is None:
                scored = score(self.criteria, scores, reference_as, instance.type)
                return {
                    **row,
                    "failed": False,
                    "error": None,
                    "attempts": attempt,
                    "s_generated": scored.s_generated,
                    "s_reference": scored.s_reference,
                    "s_final": scored.s_final,
                    "dimensions": scored.dimensions,
                    "scores": scores,
                    "raw": raw,
                    "tries": tries,
                    "calls": calls,
                }
            tries.append({"attempt": attempt, "error": error, "raw": raw})
        if not tries and missed is not None:
            raise missed
        last = tries[-1]
        return {
            **row,
            "failed": True,
            "error": last["error"],
            "attempts": len(tries),
            "s_generated": None,
            "s_reference": None,
            "s_final": None,
            "dimensions": None,
            "scores": None,
            "raw": last["raw"],
            "tries": tries,
            "calls": calls,
        }


@dataclass(frozen=True, slots=True)
class Judged:
    """An instance's judgements (panel × orders) and what they amount to."""

    instance: Instance
    judgements: tuple[dict[str, Any], ...]
    failed: bool
    error: str | None
    s_final: float | None
    dimensions: dict[str, float] | None = None
    criteria: dict[str, float] | None = None
    warnings: tuple[str, ...] = field(default=())


def _mean_parts(judgements: Sequence[dict[str, Any]]) -> tuple[dict, dict]:
    dimensions: dict[str, list[float]] = {}
    criteria: dict[str, list[float]] = {}
    for judgement in judgements:
        for dim_id, part in judgement["dimensions"].items():
            dimensions.setdefault(dim_id, []).append(part["ratio"])
            for cid, value in part["criteria"].items():
                criteria.setdefault(cid, []).append(value["ratio"])
    return (
        {k: fmean(v) for k, v in dimensions.items()},
        {k: fmean(v) for k, v in criteria.items()},
    )


def judge_instance(judges: Sequence[Judge], instance: Instance) -> Judged:
    """Every judge of the panel, in the drawn order (and the other one with both orders).

    The instance's S_final is the mean over its judgements; if any of them failed the instance
    is failed (a mean over what remains would bring back the bias the design removes)."""
    if not instance.generated.strip():
        criteria = judges[0].criteria
        return Judged(
            instance,
            (),
            False,
            EMPTY_GENERATED,
            0.0,
            {d.id: 0.0 for d in criteria.dimensions},
            {cid: 0.0 for cid in criteria.ids},
        )
    options = judges[0].options
    first = reference_position(options.seed, instance.id)
    orders = (first, "B" if first == "A" else "A") if options.both_orders else (first,)
    judgements = tuple(judge.judge(instance, order) for judge in judges for order in orders)
    failures = [j for j in judgements if j["failed"]]
    if failures:
        j = failures[0]
        error = f"{j['judge']} (reference as {j['reference_shown_as']}): {j['error']}"
        return Judged(instance, judgements, True, error, None)
    dimensions, criteria = _mean_parts(judgements)
    s_final = fmean(j["s_final"] for j in judgements)
    return Judged(instance, judgements, False, None, s_final, dimensions, criteria)


def judge_all(
    judges: Sequence[Judge], instances: Sequence[Instance], workers: int = 1
) -> Iterator[tuple[int, Judged]]:
    """(index, result) per instance as each finishes, on ``workers`` threads."""
    if workers <= 1:
        for index, instance in enumerate(instances):
            yield index, judge_instance(judges, instance)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(judge_instance, judges, inst): i for i, inst in enumerate(instances)}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()


def judge_in_order(
    judges: Sequence[Judge], instances: Sequence[Instance], workers: int = 1
) -> Iterator[Judged]:
    """Results in input order, each given out as soon as it and all before it are done."""
    waiting: dict[int, Judged] = {}
    following = 0
    for index, judged in judge_all(judges, instances, workers):
        waiting[index] = judged
        while following in waiting:
            yield waiting.pop(following)
            following += 1
