"""One error family in one module: what can go wrong is read in ``dmbench.errors`` alone."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import dmbench
from dmbench import errors
from dmbench.errors import ChatError, DmbenchError, ReplyTooLargeError, UnknownNameError
from dmbench.judge.runs import select_judged_runs
from dmbench.runs.rescoring import select_runs


def _library_modules() -> list[str]:
    found = pkgutil.walk_packages(dmbench.__path__, prefix="dmbench.")
    return sorted(name for _, name, _ in found if not name.endswith("__main__"))


def test_every_exception_class_is_a_dmbench_error_defined_in_errors():
    """An exception class defined anywhere else, or outside the family, is listed here."""
    strays = []
    for name in _library_modules():
        for _, cls in inspect.getmembers(importlib.import_module(name), inspect.isclass):
            if not issubclass(cls, BaseException) or not cls.__module__.startswith("dmbench"):
                continue
            if cls.__module__ != "dmbench.errors" or not issubclass(cls, DmbenchError):
                strays.append(f"{cls.__module__}.{cls.__qualname__}")
    assert sorted(set(strays)) == []


def test_each_error_is_reachable_from_dmbench_errors_and_refines_its_builtin():
    defined = {
        n for n, c in vars(errors).items() if isinstance(c, type) and issubclass(c, DmbenchError)
    }
    assert {
        "ChatError",
        "ReplyTooLargeError",
        "CacheMissError",
        "RenderError",
        "ZenodoError",
    } <= defined
    assert issubclass(UnknownNameError, LookupError)
    assert issubclass(ReplyTooLargeError, ValueError)
    chat = ChatError("ReadTimeout", "no reply within 1 s", {"host": "h"})
    assert str(chat) == "ReadTimeout: no reply within 1 s" and chat.one_line() == str(chat)


def test_an_unknown_run_id_is_the_same_error_for_scoring_and_judging(tmp_path):
    (tmp_path / "runs").mkdir()
    with pytest.raises(UnknownNameError, match="nope") as scoring:
        select_runs(tmp_path, ["nope"])
    with pytest.raises(UnknownNameError, match="nope") as judging:
        select_judged_runs(tmp_path, ["nope"], canonical=False)
    assert judging.value.one_line() == scoring.value.one_line()
