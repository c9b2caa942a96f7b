"""What the two LLM candidates share: settings, the chat client, provenance, the reply's diagram.

The generation settings (model, options, timeout, think, truncation) decide the outputs and go
into a run's ``settings``, hence its id; how the calls were made (hosts, retries, cache, sample)
does not change a faithful reply and goes into ``provenance``.
"""

from __future__ import annotations

import copy
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from dmbench.core import paths
from dmbench.errors import DmbenchError
from dmbench.llm.cache import CACHE_DIR, ResponseCache
from dmbench.llm.client import (
    DEFAULT_BACKOFF,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    WIRE_DEVIATIONS,
    ChatReply,
    OllamaChat,
    Options,
)
from dmbench.plantuml import find_block
from dmbench.sources.prompts import load_prompts, load_variant

CUT = 2000

#: Upstream's generation settings of both LLM candidates (spec B.1, C.1), the one place they are
#: written: the constructor's defaults, the candidates' specs and the published runs' effective
#: settings read them. ``None`` is not sent to the server.
UPSTREAM_OPTIONS: dict[str, Any] = {
    "temperature": 0.7,
    "num_predict": 1024,
    "seed": None,
    "top_p": None,
    "top_k": None,
    "repeat_penalty": None,
    "timeout": DEFAULT_TIMEOUT,
    "think": False,
}

Ask = Callable[[str, str, float | None], ChatReply]
"""One call: (system, user, temperature) -> the reply, as :meth:`LLMCandidate.ask` makes it."""

Outcome = tuple[str, bool, str | None, str]
"""(generated, failed, error, raw excerpt), upstream's four per-record fields."""


class Result(NamedTuple):
    """The fields of ``CandidateOutput`` in its order (this package sits below ``candidates``)."""

    generated: str
    failed: bool
    error: str | None
    raw: str
    elapsed_seconds: float
    calls: tuple[dict[str, Any], ...]


def extract_plantuml(text: str) -> str | None:
    """The first ``@startuml…@enduml`` block, stripped; as upstream (fences are not removed)."""
    block = find_block(text, ignore_case=True)
    return text[block[0] : block[2]].strip() if block else None


class LLMCandidate(ABC):
    """Base of ``chen`` and ``calamo``: they name their prompts and add ``_outcome``.

    ``prompts`` is the folder the prompts are read from (``None``: the sources)."""

    name: str
    upstream: str

    prompt_names: tuple[str, ...]
    _answer: Ask | None = None
    """Who answers the calls instead of the Ollama client (see :meth:`answered_by`)."""

    def __init__(
        self,
        model: str,
        prompts: Path | None = None,
        temperature: float | None = UPSTREAM_OPTIONS["temperature"],
        num_predict: int | None = UPSTREAM_OPTIONS["num_predict"],
        seed: int | None = UPSTREAM_OPTIONS["seed"],
        top_p: float | None = UPSTREAM_OPTIONS["top_p"],
        top_k: int | None = UPSTREAM_OPTIONS["top_k"],
        repeat_penalty: float | None = UPSTREAM_OPTIONS["repeat_penalty"],
        timeout: float = UPSTREAM_OPTIONS["timeout"],
        think: bool = UPSTREAM_OPTIONS["think"],
        truncate: bool = True,
        hosts: Sequence[str] = (),
        offline: bool = False,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        cache_dir: Path | None = None,
        sample: int = 1,
        workers: int = 1,
        prompt_variant: Path | None = None,
    ) -> None:
        if not model:
            raise DmbenchError(f"candidate {self.name!r} needs a model: pass --model NAME")
        Options(temperature, num_predict, seed, top_p, top_k, repeat_penalty)  # range-checked
        self.model = model
        self.temperature = temperature
        self.num_predict = num_predict
        self.seed = seed
        self.top_p = top_p
        self.top_k = top_k
        self.repeat_penalty = repeat_penalty
        # 600.0 from the command line is the same setting (and run id) as the default 600
        self.timeout = int(timeout) if float(timeout).is_integer() else float(timeout)
        self.think = think
        self.truncate = truncate
        cache = ResponseCache(
            Path(cache_dir) if cache_dir is not None else paths.package_dir() / CACHE_DIR
        )
        self.chat = OllamaChat(
            model,
            hosts=hosts,
            timeout=timeout,
            think=think,
            retries=retries,
            backoff=backoff,
            cache=cache,
            offline=offline,
        )
        self.sample = sample
        self.workers = max(1, workers)
        # read last: a bad option or host is refused before anything is read from the sources
        if prompt_variant is None:
            self.variant = None
            self.prompts, self.prompts_sha256 = load_prompts(prompts, self.prompt_names)
        else:
            self.variant = Path(prompt_variant).resolve().name
            self.prompts, self.prompts_sha256 = load_variant(prompt_variant, self.prompt_names)

    def for_run(self, run_index: int) -> LLMCandidate:
        """The same candidate drawing run ``run_index``'s samples (its own cache entries)."""
        other = copy.copy(self)
        other.sample = run_index
        return other

    def answered_by(self, ask: Ask) -> LLMCandidate:
        """The same candidate with every call answered by ``ask`` (inspect's model, in
        ``dmbench.inspect_eval``) instead of its Ollama client."""
        other = copy.copy(self)
        other._answer = ask
        return other

    def ask(self, system: str, user: str, temperature: float | None) -> ChatReply:
        """One call with this candidate's options at ``temperature``, for this run's sample."""
        if self._answer is not None:
            return self._answer(system, user, temperature)
        options = Options(
            temperature, self.num_predict, self.seed, self.top_p, self.top_k, self.repeat_penalty
        )
        return self.chat.chat(system, user, options, self.sample)

    def cut(self, text: str) -> str:
        """Upstream's ``CUT``-character cut, unless ``--no-truncate`` asked for the whole text."""
        return text[:CUT] if self.truncate else text

    @classmethod
    def settings_with(cls, model: str | None, values: Mapping[str, Any]) -> dict[str, Any]:
        """A run's settings from its model and option values (an instance's own, or its spec's
        upstream defaults for the published runs): the published runs' keys, so both kinds
        compare directly."""
        return {
            "uses_llm": True,
            "model": model,
            "temperature": values["temperature"],
            "temperature_translate": None,
            "num_predict": values["num_predict"],
            "seed": values["seed"],
            "top_p": values["top_p"],
            "top_k": values["top_k"],
            "repeat_penalty": values["repeat_penalty"],
            "timeout_seconds": values["timeout"],
            "enable_translation": None,
            "think": values["think"],
            "truncate": values.get("truncate", True),
        }

    def settings(self) -> dict[str, Any]:
        """:meth:`settings_with` this candidate's values; a prompt variant adds its name and the
        sha256 of each of its files."""
        settings = self.settings_with(self.model, vars(self))
        if self.variant is not None:  # the pinned prompts' runs keep their settings and ids
            settings["prompts"] = {"variant": self.variant, "sha256": dict(self.prompts_sha256)}
        return settings

    def check(self) -> str | None:
        """Ask every host about the model once, before any record: a run with no host that
        answers stops here (:class:`OllamaUnavailableError`); hosts that do not answer are
        dropped with a warning. Offline, the cache must know the model."""
        self.chat.server_info()
        return None

    def describe(self) -> dict[str, Any]:
        """Asks the server (or, offline, the cache) for the model digest and server version."""
        info = self.chat.server_info()
        deviations = list(WIRE_DEVIATIONS)
        if not self.truncate:
            deviations.append(f"no-truncate: replies are not cut to {CUT} characters")
        if self.chat.retries:
            deviations.append(
                f"retries: transient failures retried up to {self.chat.retries} times "
                "(upstream: none)"
            )
        return {
            "settings": self.settings(),
            "provenance": {
                "upstream_candidate": self.upstream,
                "prompts_sha256": self.prompts_sha256,
                "model_digest": info.model_digest,
                "server_version": info.server_version,
                "model_details": info.details,
                "hosts": list(info.hosts),
                "hosts_dropped": dict(info.dropped_hosts),
                "offline": self.chat.offline,
                "retries": self.chat.retries,
                "backoff_seconds": self.chat.backoff,
                "cache_sample": self.sample,
                "workers": self.workers,
                "failure_names": "requests-compatible, see dmbench.llm.client",
                "deviations": deviations,
            },
        }

    @abstractmethod
    def _outcome(self, text: str, calls: list[dict[str, Any]]) -> Outcome:
        """Upstream's per-record logic; appends every call it makes to ``calls``."""

    def run(self, text: str) -> Result:
        """One record; failures are data, except dmbench errors (e.g. an offline cache miss)."""
        started = time.monotonic()
        calls: list[dict[str, Any]] = []
        try:
            generated, failed, error, raw = self._outcome(text, calls)
        except DmbenchError:
            raise
        except Exception as exc:  # upstream's generate step turns any escape into a failure
            generated, failed, error, raw = "", True, f"exception: {type(exc).__name__}: {exc}", ""
        elapsed = round(time.monotonic() - started, 3)
        return Result(generated, failed, error, raw, elapsed, tuple(calls))
