"""The one error a reading raises: where the text stops making sense, in the user's terms."""

from __future__ import annotations

NO_BLOCK = "No UML blocks found in input (missing @startuml/@enduml markers)"


class ParseError(ValueError):
    """PlantUML text that a reading cannot turn into a diagram.

    ``str(exc)`` is the message alone (for ``compat``, upstream's exact ``ValueError`` text);
    ``line`` and ``column`` are 1-based positions in the text given to ``parse``. ``reason`` is
    the message without a leading position (``standard`` messages start with ``line N, column
    M:``), for callers that print the position themselves.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int,
        column: int,
        line_text: str,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.line_text = line_text
        self.reason = message if reason is None else reason
