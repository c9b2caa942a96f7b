"""The few exceptions a user can meet; the CLI turns each into one readable sentence."""


class DmbenchError(Exception):
    """Base of every error dmbench reports to a user instead of a traceback."""


class SourceError(DmbenchError):
    """An upstream input is missing, altered or unsafe."""


class PackageError(DmbenchError):
    """The data package cannot be built or read."""


class MissingPrerequisiteError(DmbenchError):
    """A model or data set that a stage needs is not installed (the message says how to fix it)."""
