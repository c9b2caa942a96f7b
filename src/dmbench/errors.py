"""The one hierarchy of errors a user can meet; the CLI turns each into one readable line.

Every error dmbench raises on purpose is a ``DmbenchError``; anything else reaching the command
line is a bug and keeps its traceback. ``hint`` says how to fix the problem, when dmbench knows.
"""

from __future__ import annotations


class DmbenchError(Exception):
    """Base of every error dmbench reports to a user instead of a traceback."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def one_line(self) -> str:
        """The message with the hint on its line, as the command line prints them."""
        return f"{self} (hint: {self.hint})" if self.hint else str(self)


class SourceError(DmbenchError):
    """An upstream input is missing, altered or unsafe."""


class PackageError(DmbenchError):
    """The data package cannot be built or read."""


class NotAPackageError(PackageError):
    """A command that needs a data package was pointed at a folder that holds none."""


class InputError(DmbenchError, ValueError):
    """A file the user gave (PlantUML, JSON lines) cannot be read; names the file and line."""


class MetricError(DmbenchError, ValueError):
    """A pair the metric refuses to score, with upstream's ``ValueError`` text."""


class ParseError(DmbenchError, ValueError):
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


class UnknownNameError(DmbenchError, LookupError):
    """A candidate, metric, reading, dataset, run, prompt or file name dmbench does not know."""


class MissingPrerequisiteError(DmbenchError):
    """A model or data set that a stage needs is not installed (the message says how to fix it)."""


class OutDirRefusedError(DmbenchError):
    """A command was asked to replace a folder it did not create (the package, data, ...)."""
