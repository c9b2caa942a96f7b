"""Calls to LLMs through Ollama: recorded, retried, cached and replayable offline."""

from dmbench.llm.cache import CACHE_DIR, ResponseCache, cache_key
from dmbench.llm.client import (
    DEFAULT_BACKOFF,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    WIRE_DEVIATIONS,
    CacheMissError,
    ChatClient,
    ChatError,
    ChatReply,
    OllamaChat,
    OllamaUnavailableError,
    Options,
    ServerInfo,
    reply_text,
    resolve_hosts,
    sha256_text,
)

__all__ = [
    "CACHE_DIR",
    "DEFAULT_BACKOFF",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "WIRE_DEVIATIONS",
    "CacheMissError",
    "ChatClient",
    "ChatError",
    "ChatReply",
    "OllamaChat",
    "OllamaUnavailableError",
    "Options",
    "ResponseCache",
    "ServerInfo",
    "cache_key",
    "reply_text",
    "resolve_hosts",
    "sha256_text",
]
