"""``swap_in`` killed after each of its steps, then ``finish_interrupted_swap``: the package is
wholly the old one before the commit point and wholly the new one after it, and nothing else is
left. A forked child runs the swap over a small package and SIGKILLs itself from a hook on
``os.replace``, so every step is covered without a build or an interpreter start per case;
``test_adversarial_package.py`` keeps an end-to-end kill of a real build per command."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest
from kill_support import COMPLETED, in_child_killed_after

from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.swap import (
    PACKAGE_FOLDERS,
    STAGING_PREFIX,
    finish_interrupted_swap,
    swap_in,
)

#: Moves of a full swap: each folder aside and in, the descriptor aside and in (the commit
#: point), then the retired folder renamed for deletion.
MOVES = 2 * len(PACKAGE_FOLDERS) + 3
COMMITTED_AFTER = 2 * len(PACKAGE_FOLDERS) + 2


def _write_package(folder: Path, label: str, missing: tuple[str, ...] = ()) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in PACKAGE_FOLDERS:
        if name not in missing:
            (folder / name / "nested").mkdir(parents=True)
            (folder / name / "nested" / "which.txt").write_text(f"{label} {name}\n")
    (folder / DESCRIPTOR).write_text(f'{{"label": "{label}"}}\n')


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): path.read_text()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def packages(tmp_path):
    """(package, staging, old tree, new tree): a built package and the next build staged in it."""

    def make(missing: tuple[str, ...] = ()):
        package = tmp_path / "package"
        _write_package(package, "old", missing)
        staging = package / f"{STAGING_PREFIX}test"
        _write_package(staging, "new")
        old = {k: v for k, v in _tree(package).items() if not k.startswith(".dmbench-")}
        return package, staging, old, _tree(staging)

    return make


def _settled(package: Path) -> dict[str, str]:
    assert not list(package.glob(".dmbench-*")), "a leftover survived"
    return _tree(package)


@pytest.mark.parametrize("moves", range(MOVES + 1))
def test_a_swap_killed_at_each_step_is_settled_by_the_next_command(packages, moves):
    package, staging, old, new = packages()
    code = in_child_killed_after(moves, lambda: swap_in(staging, package))
    assert code == (COMPLETED if moves == MOVES else -signal.SIGKILL)
    finish_interrupted_swap(package)
    assert _settled(package) == (new if moves >= COMMITTED_AFTER else old)


def test_a_swap_killed_while_deleting_the_replaced_package_is_finished(packages):
    """Past the commit point the retired folder is renamed, then deleted: killed while
    deleting, the next command deletes the rest."""
    package, staging, _old, new = packages()

    def killed_while_deleting():
        def rmtree(path, *args, **kwargs):
            os.kill(os.getpid(), signal.SIGKILL)

        shutil.rmtree = rmtree
        swap_in(staging, package)

    assert in_child_killed_after(MOVES + 1, killed_while_deleting) == -signal.SIGKILL
    assert list(package.glob(".dmbench-discard-*"))
    finish_interrupted_swap(package)
    assert _settled(package) == new


@pytest.mark.parametrize("moves", range(0, MOVES, 2))
def test_a_rebuild_writing_the_same_descriptor_is_settled_by_identity(packages, moves):
    """The rebuild's descriptor has the old one's bytes, so only the recorded identity tells a
    committed swap: once, a kill with the old runs/ aside lost every generated run."""
    package, staging, old, new = packages()
    (staging / DESCRIPTOR).write_bytes((package / DESCRIPTOR).read_bytes())
    new = _tree(staging)
    in_child_killed_after(moves, lambda: swap_in(staging, package))
    finish_interrupted_swap(package)
    assert _settled(package) == (new if moves >= COMMITTED_AFTER else old)


@pytest.mark.parametrize("moves", range(0, MOVES, 3))
def test_a_first_build_killed_at_a_step_keeps_what_there_was(packages, moves):
    """A package without runs/ yet (nothing to move aside for it) settles the same way."""
    package, staging, old, new = packages(missing=("runs",))
    in_child_killed_after(moves, lambda: swap_in(staging, package))
    finish_interrupted_swap(package)
    committed = moves >= COMMITTED_AFTER - 1  # one move fewer: no old runs/ to move aside
    assert _settled(package) == (new if committed else old)


@pytest.mark.parametrize("rollback_moves", range(4))
def test_a_rollback_killed_in_turn_is_finished_by_the_command_after(packages, rollback_moves):
    """Killed mid-swap, then killed again while rolling back: the third command still puts
    the old package back whole."""
    package, staging, old, _new = packages()
    assert in_child_killed_after(7, lambda: swap_in(staging, package)) == -signal.SIGKILL
    in_child_killed_after(rollback_moves, lambda: finish_interrupted_swap(package))
    finish_interrupted_swap(package)
    assert _settled(package) == old


def test_a_failing_move_rolls_back_in_the_same_call(packages, monkeypatch):
    """Not a kill but an error (a full disk): swap_in itself restores the old package."""
    package, staging, old, _new = packages()
    real_replace, made = os.replace, []

    def replace(source, target):
        made.append(target)
        if len(made) == 6:  # the sixth move fails, the rollback's moves work
            raise OSError(28, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        swap_in(staging, package)
    monkeypatch.undo()
    assert {k: v for k, v in _tree(package).items() if not k.startswith(".dmbench-")} == old
    assert not list(package.glob(".dmbench-retired-*"))
