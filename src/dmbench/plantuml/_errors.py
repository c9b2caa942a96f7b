"""The one error a reading raises (defined with every other error in ``dmbench.errors``)."""

from __future__ import annotations

from dmbench.errors import ParseError

NO_BLOCK = "No UML blocks found in input (missing @startuml/@enduml markers)"

__all__ = ["NO_BLOCK", "ParseError"]
