"""The model precondition of the study's metrics, and the error it raises.

Upstream guards metrik-1, -2 and -3 with an icontract precondition, ``isValidModel``: class
names unique, enum names (standalone and nested) unique. A failed one is an icontract
``ViolationError``, whose message names the condition that was false; here it is a
:class:`ContractViolation` whose message starts with that same line
(``isValidModel(student_model) was False``), so a recorded error reads as upstream's did, and
then says what is wrong in the reader's terms.
"""

from __future__ import annotations

from dmbench.errors import ContractViolation
from dmbench.plantuml.model import Diagram

INSTRUCTOR = "isValidModel(instructor_model)"
STUDENT = "isValidModel(student_model)"


def has_unique_names(diagram: Diagram) -> bool:
    """Upstream's ``isValidModel``: no class name and no enum name declared twice."""
    classes = [c.name for c in diagram.classes]
    enums = [e.name for e in diagram.enums] + [
        e.name for c in diagram.classes for e in c.nested_enums
    ]
    return len(classes) == len(set(classes)) and len(enums) == len(set(enums))


def require_valid(reference: Diagram, generated: Diagram) -> None:
    """Both preconditions, the reference (upstream's instructor model) first."""
    if not has_unique_names(reference):
        raise ContractViolation(INSTRUCTOR, "reference")
    if not has_unique_names(generated):
        raise ContractViolation(STUDENT, "generated")
