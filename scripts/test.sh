#!/usr/bin/env bash
# The test suite: install (same environment as the main job), type-check, then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Bytecode for the suite's Python processes (the workers and the dmbench and python commands
# the tests start) is kept in .venv/pycache, not in the checkout: where PYTHONDONTWRITEBYTECODE is
# set, every process would otherwise compile dmbench and rewrite the test modules again (about
# 5 s of each worker's collection and a few tenths of a second of each command).
export PYTHONPYCACHEPREFIX="$PWD/.venv/pycache"
unset PYTHONDONTWRITEBYTECODE
# The type checker and the linter first (both configured in pyproject.toml): a type error, an
# unused import or an unsorted import block fails before the tests run.
.venv/bin/python -m mypy
.venv/bin/python -m ruff check --quiet src tests benchmarks
# Two workers, a test module each at a time (module fixtures stay in one process), handed out in
# collection order (tests/conftest.py puts the slowest files first); set DMBENCH_TEST_WORKERS=0 to
# run in this process.
exec .venv/bin/python -m pytest -n "${DMBENCH_TEST_WORKERS:-2}" --dist loadfile \
  --no-loadscope-reorder "$@"
