#!/usr/bin/env bash
# Create .venv (if needed) and install dmbench with everything its tests need, at the versions
# they were tested with (constraints.txt; regenerate it with
# `.venv/bin/python -m pip freeze --exclude-editable > constraints.txt` after a dependency change).
# System packages, each installed with apt-get only when missing (as root; otherwise a one-line
# hint): python3-venv, a Java runtime and compiler and Graphviz (PlantUML draws the report's diagrams with dot), Chromium (the
# report's browser tests) and wordnet-base (the WordNet licence `dmbench deposit` ships).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
apt_updated=
apt_install() {  # apt_install PACKAGE: install, or say how when not root
  if [ "$(id -u)" != 0 ]; then
    echo "setup: $1 is missing; install it with: sudo apt-get install $1" >&2
    return 0
  fi
  [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$1"
}
if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
  apt_install python3-venv
fi
command -v java >/dev/null || [ -x "${JAVA_HOME:-/nonexistent}/bin/java" ] || apt_install default-jre-headless
# javac: tests/plantuml/test_plantuml_oracle.py compiles a small helper against the PlantUML jar
command -v javac >/dev/null || [ -x "${JAVA_HOME:-/nonexistent}/bin/javac" ] || apt_install default-jdk-headless
command -v chromium >/dev/null || apt_install chromium
command -v dot >/dev/null || apt_install graphviz
[ -f /usr/share/doc/wordnet-base/copyright ] || apt_install wordnet-base
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# pip takes ~12 s to find everything already installed: skip it while the two files it reads, the
# Python and the installed distributions are those of the last install (the install is editable,
# so changed code needs no reinstall; a package upgraded or removed by hand makes pip run again).
install_state() {
  { cat pyproject.toml constraints.txt
    .venv/bin/python -VV
    ls .venv/lib/python*/site-packages | grep -E '\.dist-info$' || true
  } | sha256sum | cut -d' ' -f1
}
if [ "$(cat .venv/.dmbench-installed 2>/dev/null)" != "$(install_state)" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[test]"
  install_state > .venv/.dmbench-installed
fi
