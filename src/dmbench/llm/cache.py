"""Content-addressed store of LLM replies, so a rerun replays instead of paying again.

A reply is filed under the sha256 of what determines it: the model digest, the messages, the
generation options (with ``think``), the structured-output schema when one is asked for, and
the sample number. The sample number keeps runs 1-3 of a matrix independent draws instead of
replays of one another. Failed calls are never stored, nor replies their caller rejects.
Files are written atomically, so a kill leaves either no entry or a whole one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.hashing import sha256_bytes, sha256_text

CACHE_DIR = ".dmbench-cache/llm"
log = logging.getLogger(__name__)


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def cache_key(
    model_digest: str,
    messages: Sequence[Mapping[str, str]],
    options: Mapping[str, Any],
    think: bool,
    sample: int,
    format: Mapping[str, Any] | None = None,
) -> str:
    """``format`` (structured output) joins the key only when set, so older keys stay valid."""
    material: dict[str, Any] = {
        "model_digest": model_digest,
        "messages": [dict(message) for message in messages],
        "options": {**options, "think": think},
        "sample": sample,
    }
    if format is not None:
        material["format"] = dict(format)
    return sha256_bytes(_canonical(material))


class ResponseCache:
    """``<root>/replies/<k[:2]>/<k>.json`` per reply; ``<root>/models/`` remembers digests."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _reply_path(self, key: str) -> Path:
        return self.root / "replies" / key[:2] / f"{key}.json"

    def _model_path(self, model: str) -> Path:
        return self.root / "models" / f"{sha256_text(model)[:16]}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry, or ``None`` when there is none or it is damaged (not JSON, another key,
        no response): a damaged entry is discarded, so the call is made again and re-stored,
        instead of the record failing for good."""
        path = self._reply_path(key)
        if not path.is_file():
            return None
        entry = _read_object(path)
        if entry is not None and entry.get("key") == key and _is_chat_reply(entry.get("response")):
            return entry
        log.warning("discarding the damaged reply-cache entry %s", path)
        path.unlink(missing_ok=True)
        return None

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        atomic.write_json(self._reply_path(key), {"key": key, **entry})

    def model_info(self, model: str) -> dict[str, Any] | None:
        """What the server last said about ``model``: offline replay needs its digest."""
        path = self._model_path(model)
        if not path.is_file():
            return None
        info = _read_object(path)
        if info is None or not isinstance(info.get("model_digest"), str):
            log.warning("ignoring the damaged model record %s", path)
            return None
        return info

    def remember_model(self, model: str, info: Mapping[str, Any]) -> None:
        atomic.write_json(self._model_path(model), {"model": model, **info})


def _read_object(path: Path) -> dict[str, Any] | None:
    """The JSON object stored at ``path``, or ``None`` when it is not one (damaged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _is_chat_reply(response: Any) -> bool:
    """Whether a stored body reads as a chat reply: an object whose message, if any, is an
    object whose content and thinking are text or absent."""
    message = response.get("message") or {} if isinstance(response, dict) else None
    if not isinstance(message, dict):
        return False
    return all(isinstance(message.get(name), str | None) for name in ("content", "thinking"))
