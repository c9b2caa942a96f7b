#!/usr/bin/env bash
# Create .venv (if needed) and install dmbench with everything its tests need.
# System packages: none beyond Python >= 3.11 with venv; apt-get installs python3-venv if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq python3-venv
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
