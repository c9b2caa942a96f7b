#!/usr/bin/env bash
# The main job: install, build the package from the pinned sources, re-score the published
# runs, verify them against the published values, rebuild the tables, validate the package.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/dmbench reproduce "$@"
