"""The judge's criteria, read from a versioned data file and checked before any call.

The file (``criteria-v1.json`` is dmbench's) lists dimensions, their criteria with the text the
judge reads and intra-dimension weights w_c, and dimension weights W_{d,τ} per diagram type τ.
Its JSON Schema is shipped in the package's ``schemas/``; the sums to 1, which a schema cannot
state, are checked here. A run records the file's sha256, so a changed text is a changed run.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from dmbench.core.hashing import sha256_bytes
from dmbench.errors import CriteriaError

DEFAULT_CRITERIA = "criteria-v1.json"
CRITERIA_SCHEMA = "judge-criteria.schema.json"
DEFAULT_TYPE = "default"
_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Criterion:
    """One scored criterion with its weight: the judge rates it 1-10 for each diagram."""
    id: str
    name: str
    weight: float
    description: str
    dimension: str


@dataclass(frozen=True, slots=True)
class Dimension:
    """A group of criteria whose weighted sums make one part of S_final."""
    id: str
    name: str
    criteria: tuple[Criterion, ...]


@dataclass(frozen=True, slots=True)
class Criteria:
    """A criteria file as read and checked: its dimensions, per-type weights and the bytes a
    judge run keeps, so the run can be re-read with the criteria it used."""
    id: str
    version: str
    type_column: str
    dimensions: tuple[Dimension, ...]
    type_weights: dict[str, dict[str, float]]
    text: bytes
    """The file's bytes: what its sha256 is of, and what a judge run keeps a copy of."""

    @property
    def sha256(self) -> str:
        return sha256_bytes(self.text)

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        return tuple(c for d in self.dimensions for c in d.criteria)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.criteria)

    def weights_for(self, diagram_type: str | None) -> dict[str, float]:
        """W_{d,τ}: the type's own weights, else the default ones."""
        return self.type_weights.get(diagram_type or DEFAULT_TYPE, self.type_weights[DEFAULT_TYPE])


def schema() -> dict[str, Any]:
    """The JSON schema a criteria file is checked against before any judge sees it."""
    text = resources.files("dmbench.judge").joinpath("schemas", CRITERIA_SCHEMA).read_text("utf-8")
    return json.loads(text)


def load_criteria(path: Path | None = None) -> Criteria:
    """dmbench's criteria, or the file at ``path``; errors name the file and the place."""
    if path is None:
        text = resources.files("dmbench.judge").joinpath(DEFAULT_CRITERIA).read_bytes()
        source = f"dmbench/judge/{DEFAULT_CRITERIA}"
    else:
        try:
            text = Path(path).read_bytes()
        except OSError as exc:
            raise CriteriaError(f"{path}: cannot read criteria file ({exc.strerror})") from exc
        source = str(path)
    return parse_criteria(text, source)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a weight can be")


def parse_criteria(text: bytes, source: str = "<criteria>") -> Criteria:
    """The criteria in ``text``; NaN and Infinity are refused (JSON has neither, Python's
    reader takes both, and a NaN weight would make every score NaN)."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CriteriaError(f"{source}: not JSON ({exc})") from exc
    except RecursionError:
        raise CriteriaError(f"{source}: not JSON (nested too deeply)") from None
    except ValueError as exc:
        raise CriteriaError(f"{source}: {exc}") from None
    errors = sorted(jsonschema.Draft202012Validator(schema()).iter_errors(data), key=str)
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(top)"
        raise CriteriaError(f"{source}: {where}: {errors[0].message}")
    dimensions = tuple(
        Dimension(
            d["id"],
            d["name"],
            tuple(
                Criterion(c["id"], c["name"], float(c["weight"]), c["description"], d["id"])
                for c in d["criteria"]
            ),
        )
        for d in data["dimensions"]
    )
    criteria = Criteria(
        data["id"], data["version"], data["type_column"], dimensions, data["type_weights"], text
    )
    _check_sums(criteria, source)
    return criteria


def _check_sums(criteria: Criteria, source: str) -> None:
    seen: set[str] = set()
    for dimension in criteria.dimensions:
        for criterion in dimension.criteria:
            if criterion.id in seen:
                raise CriteriaError(f"{source}: criterion id {criterion.id!r} appears twice")
            seen.add(criterion.id)
        total = math.fsum(c.weight for c in dimension.criteria)
        if abs(total - 1) > _TOLERANCE:
            raise CriteriaError(
                f"{source}: the criteria weights of dimension {dimension.id!r} sum to {total:g}, "
                "not 1"
            )
    dimension_ids = {d.id for d in criteria.dimensions}
    if len(dimension_ids) != len(criteria.dimensions):
        raise CriteriaError(f"{source}: a dimension id appears twice")
    for diagram_type, weights in criteria.type_weights.items():
        if set(weights) != dimension_ids:
            raise CriteriaError(
                f"{source}: type_weights/{diagram_type} must weigh exactly the dimensions "
                f"{', '.join(sorted(dimension_ids))}"
            )
        total = math.fsum(weights.values())
        if abs(total - 1) > _TOLERANCE:
            raise CriteriaError(
                f"{source}: type_weights/{diagram_type} sum to {total:g}, not 1"
            )
