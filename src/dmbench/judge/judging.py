"""One judge model asked about one instance: both orders, bounded attempts, failures as data.

An instance is judged in both orders (the reference once as Diagram A, once as B), the first
drawn from (seed, instance id); with ``both_orders=False`` only in the drawn order. Every reply is
validated against the schema sent as ``format``; one that is cut off (``done_reason ==
"length"``), empty, not JSON or off the schema is asked again, at most :data:`MAX_ATTEMPTS` times
in all, and then recorded as a failed judgement with its reason. Such replies are never cached,
so a later run asks again instead of replaying the failure. Each call is kept once, with its
attempt number, what it was rejected for and its raw reply; the messages sent are kept by their
sha256 (:attr:`Judged.messages`), once however many judgements send them. A reply is checked
whole but stored bounded: at most :data:`STORED_REPLY_CHARS` of its content and of its thinking
(with the full length and sha256 when cut) and :data:`STORED_REASON_CHARS` of each reason, so a
judge that answers 15 MiB cannot make a run 500 MB or hold it all in memory; a judge run stores
reply text only until its judgements reach ``runs.RUN_REPLY_BYTES``.

An empty generated diagram is not sent at all: S_final 0, ``empty_generated_model``; nor is one
the standard reading cannot read: S_final 0, ``unreadable_generated_model`` (pasting it raw would
let it speak to the judge). An instance whose reference cannot be read fails unsent.
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
from typing import Any, Generic, TypeVar

import jsonschema

from dmbench.core.hashing import sha256_bytes, sha256_text
from dmbench.judge.blind import BlindForm, blind_form
from dmbench.judge.criteria import Criteria
from dmbench.judge.prompt import (
    DETECT,
    SCORE,
    detect_schema,
    reply_schema,
    templates,
    user_message,
)
from dmbench.judge.protocol_scores import score
from dmbench.judge.views import DEFAULT_VIEW, VIEWS, Drawings
from dmbench.llm import CacheMissError, ChatClient, ChatError, Options

MAX_ATTEMPTS = 3
STORED_REPLY_CHARS = 16 * 1024
"""The characters of a reply's content (and of its thinking) a judgement keeps; a valid
judge reply is a few kB."""
STORED_REASON_CHARS = 1000
Messages = dict[str, list[dict[str, Any]]]
EMPTY_GENERATED = "empty_generated_model"
UNREADABLE_GENERATED = "unreadable_generated_model"
NOT_SENT = (EMPTY_GENERATED, UNREADABLE_GENERATED)
"""The errors of instances judged 0 without a call: the output is not a diagram to show."""
DEFAULT_NUM_PREDICT = 2048
DEFAULT_NUM_CTX = 8192
_CTX_STEP = 4096
_CHARS_PER_TOKEN = 3  # a safe under-estimate for English and PlantUML, so num_ctx is ample
_TOKENS_PER_IMAGE = 1024  # vision models spend a few hundred to a thousand tokens on an image


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
    both_orders: bool = True
    temperature: float = 0.0
    num_predict: int = DEFAULT_NUM_PREDICT
    num_ctx: int = DEFAULT_NUM_CTX
    think: bool = False
    view: str = DEFAULT_VIEW
    """``text`` (the blind forms in the prompt) or ``image`` (their drawings as images); a
    run's settings name it apart from these options, so that text runs keep their ids."""

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
    """(the reply's JSON, None) for a valid reply body, else (None, why it is not)."""
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
    return data, None


def _num_ctx(options: JudgeOptions, system: str, user: str, images: int = 0) -> int:
    """The context the call needs (prompt estimate, images, reply), at least the configured one."""
    needed = ((len(system) + len(user)) // _CHARS_PER_TOKEN + images * _TOKENS_PER_IMAGE
              + options.num_predict)  # fmt: skip
    return max(options.num_ctx, math.ceil(needed / _CTX_STEP) * _CTX_STEP)


Chat = TypeVar("Chat", bound=ChatClient)


class Judge(Generic[Chat]):
    """One judge model over the ``llm`` layer (hosts, retries, cache, offline), or over any
    other :class:`ChatClient` (inspect's model).

    ``drawings`` draws the blind forms for the image view (``options.view == "image"``)."""

    def __init__(
        self, chat: Chat, criteria: Criteria, options: JudgeOptions,
        drawings: Drawings | None = None,
    ) -> None:  # fmt: skip
        if options.view not in VIEWS:
            raise ValueError(f"view {options.view!r} is none of {', '.join(VIEWS)}")
        if options.view == "image" and drawings is None:
            raise ValueError("the image view needs drawings")
        self.chat = chat
        self.criteria = criteria
        self.options = options
        self.drawings = drawings
        self.schema = reply_schema(criteria)

    @property
    def model(self) -> str:
        return self.chat.model

    def judge(
        self, instance: Instance, reference_as: str, question: str = SCORE
    ) -> tuple[dict[str, Any], Messages]:
        """One judgement row (scores, or with ``question="detect"`` which diagram a person
        drew; or a failure with its reason; every call with its attempt number and raw reply)
        and the messages it sent, by their sha256."""
        reference = blind_form(instance.reference, reference=True).text
        generated = _generated_form(instance).text
        if reference is None or generated is None:
            raise ValueError("an unreadable diagram is never shown to the judge")
        shown = (reference, generated) if reference_as == "A" else (generated, reference)
        view = self.options.view
        row: dict[str, Any] = {"judge": self.model, "reference_shown_as": reference_as}
        images: list[bytes] = []
        if view == "image":
            assert self.drawings is not None
            drawn = [self.drawings.png(text) for text in shown]
            if any(png is None for png in drawn):
                return _failed(row, "PlantUML draws nothing from a diagram's blind form", []), {}
            images = [png for png in drawn if png is not None]
        system = templates(question, view)[0]
        user = user_message(instance.text, instance.caption, *shown, self.criteria, question, view)
        schema = self.schema if question == SCORE else detect_schema()
        sent_user: dict[str, Any] = {"role": "user", "content": user}
        if images:
            sent_user["images"] = [sha256_bytes(png) for png in images]
        messages = [{"role": "system", "content": system}, sent_user]
        messages_sha256 = sha256_text(json.dumps(messages, sort_keys=True, ensure_ascii=False))
        num_ctx = _num_ctx(self.options, system, user, len(images))
        options = Options(
            temperature=self.options.temperature,
            num_predict=self.options.num_predict,
            seed=self.options.seed,
            num_ctx=num_ctx,
        )
        row |= {"messages_sha256": messages_sha256, "num_ctx": num_ctx}
        calls: list[dict[str, Any]] = []
        missed: CacheMissError | None = None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                reply = self.chat.chat(
                    system,
                    user,
                    options,
                    sample=attempt,
                    format=schema,
                    accept=lambda body: check_reply(body, schema)[1] is None,
                    **({"images": images} if images else {}),
                )
            except CacheMissError as exc:
                if not self.chat.offline:
                    raise
                missed = exc  # offline: a rejected reply was never cached; try the next one
                continue
            except ChatError as exc:
                calls.append({"attempt": attempt, "rejected": str(exc), **stored_call(exc.call)})
                break  # the llm layer already retried what a retry can fix
            body = {"message": reply.call.get("reply") or {}, "done_reason": reply.call.get(
                "done_reason"
            )}
            data, error = check_reply(body, schema)
            calls.append({"attempt": attempt, "rejected": error, **stored_call(reply.call)})
            del reply, body  # the whole reply is not kept past its check
            if data is not None:
                if question == DETECT:
                    answer = {"person": data["person"], "correct": data["person"] == reference_as}
                    judgement = {**_failed(row, None, calls), "failed": False, **answer}
                    return judgement, {messages_sha256: messages}
                scores = {cid: {**given, "reason": str(given["reason"])[:STORED_REASON_CHARS]}
                          for cid, given in data["scores"].items()}  # fmt: skip
                scored = score(self.criteria, scores, reference_as, instance.type)
                judgement = {
                    **row,
                    "failed": False,
                    "error": None,
                    "attempts": attempt,
                    "s_generated": scored.s_generated,
                    "s_reference": scored.s_reference,
                    "s_final": scored.s_final,
                    "dimensions": scored.dimensions,
                    "scores": scores,
                    "calls": calls,
                }
                return judgement, {messages_sha256: messages}
        if not calls and missed is not None:
            raise missed
        return _failed(row, calls[-1]["rejected"], calls), {messages_sha256: messages}


def _failed(row: dict[str, Any], error: str | None, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A judgement without scores: failed (with ``error``), or a detectability answer's base."""
    return {
        **row,
        "failed": True,
        "error": error,
        "attempts": len(calls),
        "s_generated": None,
        "s_reference": None,
        "s_final": None,
        "dimensions": None,
        "scores": None,
        "calls": calls,
    }


def stored_call(call: dict[str, Any], limit: int = STORED_REPLY_CHARS) -> dict[str, Any]:
    """``call`` as a judgement stores it: its reply's content and thinking cut to ``limit``
    characters, with the length and sha256 of each text that was cut."""
    reply = call.get("reply")
    if not isinstance(reply, dict):
        return call
    kept, cut = dict(reply), {}
    for part in ("content", "thinking"):
        text = reply.get(part)
        if isinstance(text, str) and len(text) > limit:
            kept[part] = text[:limit]
            cut[part] = {"chars": len(text), "sha256": sha256_text(text)}
    return {**call, "reply": kept, "reply_cut": cut} if cut else call


def without_reply_text(row: dict[str, Any]) -> dict[str, Any]:
    """A judge-run row with no reply text in its calls (lengths and sha256 kept): what a run
    stores once its reply text has reached its bound."""
    judgements = [
        {**j, "calls": [stored_call(c, 0) for c in j.get("calls") or ()]}
        for j in row.get("judgements") or ()
    ]
    return {**row, "judgements": judgements} if judgements else row


def _generated_form(instance: Instance) -> BlindForm:
    """The output's blind form; the reference's own text (the identity control) reads as the
    reference does."""
    return blind_form(instance.generated, reference=instance.generated == instance.reference)


def prepare_drawings(judges: Sequence[Judge], instances: Sequence[Instance]) -> None:
    """In the image view, draw every diagram the instances will show, in one batch."""
    drawings = {id(j.drawings): j.drawings for j in judges if j.drawings is not None}
    if not drawings:
        return
    forms = [blind_form(i.reference, reference=True) for i in instances if i.generated.strip()]
    forms += [_generated_form(i) for i in instances if i.generated.strip()]
    texts = [form.text for form in forms if form.text is not None]
    for drawing in drawings.values():
        drawing.prepare(texts)


def raw_reply(judgement: dict[str, Any]) -> str | None:
    """The content of the judgement's last reply (None when no reply came)."""
    calls = judgement.get("calls") or []
    return ((calls[-1].get("reply") or {}).get("content")) if calls else None


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
    unreadable: dict[str, str] | None = None
    """Why the standard reading could not read the reference or the output, by which."""
    messages: Messages = field(default_factory=dict)
    """The messages the judgements sent, by the ``messages_sha256`` they record."""


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


def judge_instance(judges: Sequence[Judge], instance: Instance, question: str = SCORE) -> Judged:
    """Every judge of the panel, in both orders (or the drawn one only).

    The instance's S_final is the mean over its judgements; if any of them failed the instance
    is failed (a mean over what remains would bring back the bias the design removes). A
    diagram against itself (the identity control) is asked in one order: the other order is
    the same question, and a replayed reply would only pretend to be a second judgement. With
    ``question="detect"`` each judgement says which diagram a person drew (no S_final)."""
    criteria = judges[0].criteria
    zero = ({d.id: 0.0 for d in criteria.dimensions}, {cid: 0.0 for cid in criteria.ids})
    if not instance.generated.strip():
        return Judged(instance, (), False, EMPTY_GENERATED, 0.0, *zero)
    unreadable = {
        side: form.error
        for side, form in (("reference", blind_form(instance.reference, reference=True)),
                           ("generated", _generated_form(instance)))
        if form.error is not None
    }  # fmt: skip
    if "reference" in unreadable:
        error = f"the reference cannot be read: {unreadable['reference']}"
        return Judged(instance, (), True, error, None, unreadable=unreadable)
    if unreadable:
        return Judged(instance, (), False, UNREADABLE_GENERATED, 0.0, *zero, unreadable)
    options = judges[0].options
    first = reference_position(options.seed, instance.id)
    both = options.both_orders and instance.generated != instance.reference
    orders = (first, "B" if first == "A" else "A") if both else (first,)
    judgements, messages = [], {}
    for judge in judges:
        for order in orders:
            judgement, sent = judge.judge(instance, order, question)
            judgements.append(judgement)
            messages.update(sent)
    failures = [j for j in judgements if j["failed"]]
    if failures:
        j = failures[0]
        error = f"{j['judge']} (reference as {j['reference_shown_as']}): {j['error']}"
        return Judged(instance, tuple(judgements), True, error, None, messages=messages)
    if question == DETECT:
        return Judged(instance, tuple(judgements), False, None, None, messages=messages)
    dimensions, criteria_ratios = _mean_parts(judgements)
    s_final = fmean(j["s_final"] for j in judgements)
    return Judged(instance, tuple(judgements), False, None, s_final, dimensions,
                  criteria_ratios, messages=messages)  # fmt: skip


def judge_all(
    judges: Sequence[Judge], instances: Sequence[Instance], workers: int = 1,
    question: str = SCORE,
) -> Iterator[tuple[int, Judged]]:
    """(index, result) per instance as each finishes, on ``workers`` threads."""
    if workers <= 1:
        for index, instance in enumerate(instances):
            yield index, judge_instance(judges, instance, question)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(judge_instance, judges, inst, question): i
                   for i, inst in enumerate(instances)}  # fmt: skip
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()


def judge_in_order(
    judges: Sequence[Judge], instances: Sequence[Instance], workers: int = 1,
    question: str = SCORE,
) -> Iterator[Judged]:
    """Results in input order, each given out as soon as it and all before it are done."""
    waiting: dict[int, Judged] = {}
    following = 0
    for index, judged in judge_all(judges, instances, workers, question):
        waiting[index] = judged
        while following in waiting:
            yield waiting.pop(following)
            following += 1
