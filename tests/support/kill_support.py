"""A kill at an exact rename: a forked child runs an action and SIGKILLs itself at move N."""

from __future__ import annotations

import os
import signal

COMPLETED = 3


def in_child_killed_after(moves: int, action) -> int:
    """Run ``action`` in a forked child that SIGKILLs itself when it is about to make move
    number ``moves`` (counted from 0) with ``os.replace``; its exit code, -9 when killed."""
    pid = os.fork()
    if pid == 0:  # the child never returns into pytest
        try:
            made = 0
            real_replace = os.replace

            def replace(source, target):
                nonlocal made
                if made == moves:
                    os.kill(os.getpid(), signal.SIGKILL)
                real_replace(source, target)
                made += 1

            os.replace = replace
            action()
        finally:
            os._exit(COMPLETED)
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
