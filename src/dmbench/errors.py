"""The one hierarchy of errors a user can meet; the CLI turns each into one readable line.

Every error dmbench raises on purpose is a ``DmbenchError`` defined here, whatever stage raises
it, so that one module answers "what can go wrong" and ``except dmbench.errors.X`` needs no
import of the stage; anything else reaching the command line is a bug and keeps its traceback.
``hint`` says how to fix the problem, when dmbench knows. One condition has one error class
everywhere (e.g. an unknown run id is an ``UnknownNameError`` for scoring and judging alike).
"""

from __future__ import annotations

from typing import Any


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


class OptionError(DmbenchError, ValueError):
    """A setting the chosen candidate does not take (an LLM option for rule_based, ...)."""


class DuplicateNameError(DmbenchError, ValueError):
    """A second candidate, metric or reading registered under a name that is taken."""


class UnsafeNameError(DmbenchError, ValueError):
    """A candidate name that would be unsafe in a run folder's name (``../x``, ``a__b``, ...)."""


class MissingPrerequisiteError(DmbenchError):
    """A model or data set that a stage needs is not installed (the message says how to fix it)."""


class RecordsFileError(InputError):
    """A ``--records`` file line is not a JSON object with string ``id`` and ``text``."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}, line {line}: {problem}")
        self.source = source
        self.line = line


class PairsFileError(InputError):
    """A ``--pairs`` line that is not a pair."""


class CriteriaError(InputError):
    """A criteria file that does not say what a judge run needs."""


class ContractViolation(MetricError):
    """A model failed a metric's precondition (upstream: icontract ``ViolationError``)."""

    def __init__(self, condition: str, diagram: str) -> None:
        super().__init__(
            f"{condition} was False "
            f"(a class or enum name is declared twice in the {diagram} diagram)"
        )
        self.condition = condition


class BudgetExceeded(MetricError):
    """metrik-3's common-subgraph search needed more steps than its budget allows."""

    def __init__(self, message: str, budget: int) -> None:
        super().__init__(message)
        self.budget = budget


class CacheMissError(DmbenchError):
    """Offline mode needed a reply (or a model digest) that the cache does not hold."""


class OllamaUnavailableError(DmbenchError):
    """No host could say which model digest and server version a run would use."""


class ReplyTooLargeError(DmbenchError, ValueError):
    """A server sent more than a call may read (an endless or runaway reply)."""


class ChatError(DmbenchError):
    """An LLM call that failed for good; ``str()`` is ``<ReportedClass>: <message>``.

    Candidates and the judge record it as the record's failure; only one that escapes them
    reaches the user."""

    def __init__(self, reported: str, message: str, call: dict[str, Any]) -> None:
        super().__init__(f"{reported}: {message}")
        self.reported = reported
        self.message = message
        self.call = call


class RenderError(DmbenchError):
    """PlantUML could not be run at all (not one diagram failing, which is that diagram's)."""


class JvmFailedError(RenderError):
    """One PlantUML process died or overran: a failure of the diagrams it held, found by
    splitting the batch until the culprit is alone."""


class OutDirRefusedError(DmbenchError):
    """A command was asked to replace a folder it did not create (the package, data, ...)."""


class ZenodoError(DmbenchError):
    """A Zenodo API call failed or answered something a release cannot use."""
