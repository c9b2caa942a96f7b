"""Candidates from other distributions: entry points in the group ``dmbench.candidates``.

A plug-in distribution declares ``NAME = "module:SPEC"`` under that group, where ``SPEC`` is a
``CandidateSpec`` named ``NAME`` (the module does not register it itself). Each is registered
as the built-in ones are, with the distribution's name and version as its origin, which its
runs record. A plug-in that cannot be loaded is named in one warning and left out, so that one
broken distribution does not stop dmbench.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from importlib.metadata import EntryPoint, entry_points

from dmbench.candidates.base import CANDIDATE_REGISTRY, CandidateSpec, register

GROUP = "dmbench.candidates"


def load_plugins() -> None:
    """Register every installed plug-in candidate not registered yet."""
    for entry_point in entry_points(group=GROUP):
        if entry_point.name in CANDIDATE_REGISTRY:
            known = CANDIDATE_REGISTRY[entry_point.name].origin or {}
            if known.get("entry_point") != entry_point.value:
                _skip(entry_point, "a candidate of that name is already registered")
            continue
        try:
            spec = entry_point.load()
        except Exception as exc:  # a third party's import error: named, not fatal
            _skip(entry_point, f"{type(exc).__name__}: {exc}")
            continue
        if not isinstance(spec, CandidateSpec) or spec.name != entry_point.name:
            _skip(entry_point, f"it is not a CandidateSpec named {entry_point.name!r}")
            continue
        try:
            register(replace(spec, origin=_origin(entry_point)))
        except ValueError as exc:  # an unsafe name
            _skip(entry_point, str(exc))


def _origin(entry_point: EntryPoint) -> dict[str, str | None]:
    dist = entry_point.dist
    return {
        "kind": "plugin",
        "entry_point": entry_point.value,
        "distribution": dist.name if dist else None,
        "version": dist.version if dist else None,
    }


def _skip(entry_point: EntryPoint, why: str) -> None:
    warnings.warn(
        f"dmbench: plug-in candidate {entry_point.name!r} ({entry_point.value}) not loaded: {why}",
        stacklevel=2,
    )
