"""Which folder is a data package: checked before a command reads or writes anything there."""

from __future__ import annotations

from pathlib import Path

from dmbench.errors import NotAPackageError
from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.lock import package_lock
from dmbench.package.refresh import PENDING
from dmbench.package.swap import RETIRED_PREFIX
from dmbench.sources.records import RECORDS_PATH

NOT_A_PACKAGE_HINT = "cd into the package or pass --package DIR; `dmbench build` makes one"


def require_package(package_dir: Path, *, built: bool = True) -> Path:
    """``package_dir`` when it holds a built package (or, with ``built=False``, its records).

    A folder that holds neither is refused with nothing written there, not even the lock file.
    A swap that a killed build left half done is settled first.
    """
    package_dir = Path(package_dir)
    settle_interrupted_swap(package_dir)
    needed = DESCRIPTOR if built else RECORDS_PATH
    if not (package_dir / needed).is_file():
        raise NotAPackageError(
            f"{package_dir}: not a dmbench data package (no {needed})", hint=NOT_A_PACKAGE_HINT
        )
    return package_dir


def settle_interrupted_swap(package_dir: Path) -> None:
    """Finish or roll back a swap a killed command left half done, and re-derive tables it left
    stale, so that no command reads a package that lacks folders (``tables`` once wrote an empty
    Table 2 from one) or lists runs it does not hold."""
    if any(Path(package_dir).glob(f"{RETIRED_PREFIX}*")) or (Path(package_dir) / PENDING).exists():
        with package_lock(package_dir):  # taking the lock settles the swap
            pass
