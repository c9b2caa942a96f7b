"""``dmbench judge --pairs``: a user's own pairs in, one JSON line per pair out, in input order.

No package is needed; the reply cache goes where ``--package`` says, as for ``generate
--records``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

from dmbench.core.inputs import json_line
from dmbench.errors import PairsFileError
from dmbench.judge.judging import Instance, Judge, Judged, judge_in_order, raw_reply
from dmbench.judge.prompt import SCORE

_REQUIRED = ("id", "text", "reference", "generated")
_OPTIONAL = ("type", "caption")
PAIR_JUDGEMENT_FIELDS = (
    "judge",
    "reference_shown_as",
    "s_generated",
    "s_reference",
    "s_final",
    "dimensions",
    "attempts",
    "failed",
    "error",
)
DETECT_FIELDS = ("person", "correct")
"""A detectability judgement's answer: which diagram a person drew, and whether it is so."""


def read_pairs(handle: IO[bytes] | IO[str], source: str = "<pairs>") -> list[Instance]:
    """Instances from JSON lines ``{"id", "text", "reference", "generated"}`` (+ type, caption).

    A binary handle is split on ``\n`` only and decoded line by line (see ``json_line``).
    The judge's caption is the pair's ``caption``, or none."""
    instances: list[Instance] = []
    seen: set[str] = set()
    lines: Iterable[bytes | str] = handle
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source}, line {number}"
        data: Any = json_line(line, where)
        if not isinstance(data, dict):
            raise PairsFileError(f'{where}: expected {{"id", "text", "reference", "generated"}}')
        missing = [key for key in _REQUIRED if not isinstance(data.get(key), str)]
        wrong = [key for key in _OPTIONAL if data.get(key) is not None and not isinstance(data[key], str)]
        if missing or wrong:
            raise PairsFileError(
                f"{where}: {', '.join(missing + wrong)} must be "
                f"{'a string' if len(missing + wrong) == 1 else 'strings'}"
            )
        if data["id"] in seen:
            raise PairsFileError(f"{where}: id {data['id']!r} repeats an earlier line")
        seen.add(data["id"])
        instances.append(
            Instance(
                data["id"], data["text"], data["reference"], data["generated"], data.get("type"),
                data.get("caption") or "",
            )
        )  # the id is the user's bookkeeping: never shown to the judge, nor the type
    return instances


def pair_line(judged: Judged) -> dict[str, Any]:
    """One ``--pairs`` result line: the scores and each judgement's fields, nothing stored."""
    return {
        "id": judged.instance.id,
        "failed": judged.failed,
        "error": judged.error,
        "s_final": judged.s_final,
        "unreadable": judged.unreadable,
        "judgements": [
            {name: judgement[name] for name in PAIR_JUDGEMENT_FIELDS}
            | {name: judgement[name] for name in DETECT_FIELDS if name in judgement}
            | {"raw": raw_reply(judgement)}
            for judgement in judged.judgements
        ],
    }


def judge_pairs(
    judges: Sequence[Judge], instances: Sequence[Instance], workers: int = 1,
    question: str = SCORE,
) -> Iterator[dict[str, Any]]:
    """Judge the user's own pairs, one result per pair in input order, for ``--pairs``."""
    for judged in judge_in_order(judges, instances, workers, question):
        yield pair_line(judged)
