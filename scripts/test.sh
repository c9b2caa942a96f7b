#!/usr/bin/env bash
# The test suite: install (same environment as the main job), then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
