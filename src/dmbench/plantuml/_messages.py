"""The message both readings give for text without a ``@startuml``/``@enduml`` block (upstream's words)."""

from __future__ import annotations

NO_BLOCK = "No UML blocks found in input (missing @startuml/@enduml markers)"
