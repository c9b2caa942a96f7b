"""The one timestamp format of run files and LLM call records: UTC, microseconds, a ``Z``."""

from __future__ import annotations

from datetime import UTC, datetime


def now_utc() -> str:
    """The time stamps runs and judge runs record: UTC to the microsecond, one format everywhere."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
