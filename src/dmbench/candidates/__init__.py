"""Candidates: the systems under test, each a spec in its own module, found by name.

Adding a candidate is one module that defines it and registers its ``CandidateSpec``: a module
imported below, or a plug-in distribution's entry point in the group ``dmbench.candidates``
(``plugins``), loaded last. ``dmbench.candidates()`` (this package, called) returns the specs
in table order.
"""

import sys
import types

from dmbench.candidates import calamo as _calamo  # noqa: F401  (registers)
from dmbench.candidates import chen as _chen  # noqa: F401  (registers)
from dmbench.candidates import rule_based as _rule_based  # noqa: F401  (registers)
from dmbench.candidates.base import (
    Candidate,
    CandidateOutput,
    CandidateSpec,
    OptionDoc,
    Record,
    candidate_spec,
    candidate_specs,
    generate_many,
    get_candidate,
    register,
    upstream_names,
)
from dmbench.candidates.calamo import Calamo
from dmbench.candidates.chen import Chen
from dmbench.candidates.plugins import load_plugins

load_plugins()  # after the names above: a plug-in imports them from this package

CANDIDATES: dict[str, CandidateSpec] = {spec.name: spec for spec in candidate_specs()}
"""The specs by name, in the order the paper's tables list them."""


class _Registry(types.ModuleType):
    """The package is the registry: calling it lists the specs, as ``dmbench.candidates()``."""

    def __call__(self) -> tuple[CandidateSpec, ...]:
        return candidate_specs()


sys.modules[__name__].__class__ = _Registry

__all__ = [
    "CANDIDATES",
    "Calamo",
    "Candidate",
    "CandidateOutput",
    "CandidateSpec",
    "Chen",
    "OptionDoc",
    "Record",
    "candidate_spec",
    "candidate_specs",
    "generate_many",
    "get_candidate",
    "register",
    "upstream_names",
]
