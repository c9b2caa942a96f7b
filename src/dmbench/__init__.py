"""dmbench: a reproducible benchmark for automated domain modelling.

The public API (see the README's "Python API")::

    import dmbench
    package = dmbench.Package(".")      # records(), runs(), outputs(), scores(), validate(), ...
    dmbench.parse(text)                 # PlantUML -> Diagram (standard reading by default)
    dmbench.score_pair(reference, generated)
    dmbench.candidates()                # the candidates' specs: name, upstream name, options ...

``Package``, ``parse`` and ``score_pair`` are loaded on first use (PEP 562), so that importing
one stage (``import dmbench.plantuml``) does not also load pandas, frictionless, the LLM client
and spaCy, which the package API needs.
"""

from __future__ import annotations

import importlib
from typing import Any

from dmbench._version import __version__
from dmbench.errors import DmbenchError, ParseError, UnknownNameError

_API = ("Package", "parse", "score_pair")

__all__ = [
    "DmbenchError",
    "Package",
    "ParseError",
    "UnknownNameError",
    "__version__",
    "candidates",
    "parse",
    "score_pair",
]


def __getattr__(name: str) -> Any:
    if name == "candidates":
        return importlib.import_module("dmbench.candidates")
    if name in _API:
        return getattr(importlib.import_module("dmbench.api"), name)
    raise AttributeError(f"module 'dmbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
