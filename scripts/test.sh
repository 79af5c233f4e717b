#!/usr/bin/env bash
# Install everything the tests need, then run the whole suite (lint, format, types, tests).
# This is the README's second set-up command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: Chromium for the browser tests (with CJK fonts), PostgreSQL for the database tests,
# nginx for the deployment test.
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/lib/postgresql/15/bin/initdb ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
# nginx: tests/deploy runs deploy/nginx/tessera.conf in front of the server
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
# CJK fonts: the Korean pages' screenshots show their words, not empty boxes
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "== apt-get install ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# Python packages go into a virtual environment of the checkout (.venv), so the
# tests never touch, or depend on, what else is installed on the machine.
if [ ! -x .venv/bin/python ]; then
  echo "== python3 -m venv .venv"
  python3 -m venv .venv
fi
PY=.venv/bin/python
# The versions CI last tested, each checked against its hash (requirements/test.txt, made by
# scripts/lock.sh from pyproject.toml's test and server extras), then tessera itself without them.
# A failed install (a file whose hash differs, say) stops the script here.
pip_install() { "$PY" -m pip install -q --disable-pip-version-check "$@" 2> >(grep -v -e "^WARNING: Location" >&2); }
echo "== pip install -r requirements/test.txt; pip install --no-deps -e ."
pip_install --require-hashes -r requirements/test.txt
pip_install --no-deps -e .
$PY -c "import tessera, fastapi, sqlalchemy, playwright, hypothesis"  # fail here if the install failed

# The games' numba kernels and the AI levels' first moves compiled once into numba's on-disk cache
# (about 40 s on a fresh checkout), on the second core while ruff and mypy use the first: the test
# workers and the servers the tests start then load them (about 1.5 s) instead of each compiling
# them in the middle of a test.
WARM_LOG="$(mktemp)"
$PY -m tessera.server.ai.warmup > "$WARM_LOG" 2>&1 &
WARM_PID=$!

echo "== ruff"
$PY -m ruff check .
$PY -m ruff format --check .
echo "== mypy"
$PY -m mypy
echo "== kernels compiled"
if wait "$WARM_PID"; then
  tail -1 "$WARM_LOG"
else
  echo "the warm-up failed (the tests compile the kernels as they need them):"
  tail -20 "$WARM_LOG"
fi
echo "== pytest"
# pytest exits 5 when it collects no test: with set -e that fails this script too.
# Two workers (pytest-xdist): CI has 2 cores; the suite takes about half as long.  --dist worksteal:
# a worker whose queue is empty takes tests queued for the other (the suite's tests last from
# milliseconds to 35 s), so neither should idle at the end while the other still has a queue.
if [ $# -gt 0 ]; then
  $PY -m pytest -q -p no:cacheprovider -n 2 --dist worksteal "$@"
  exit 0
fi
# --durations: the slowest tests are named in every run, so a test that grows is seen at once
$PY -m pytest -q -p no:cacheprovider -n 2 --dist worksteal -m "not attack" --durations=40
# The attack tests time a bystander's AI replies while another client floods the server: they run
# alone, after the rest, so that no other test shares the two cores with the measured server.
echo "== pytest (attacks, alone)"
$PY -m pytest -q -p no:cacheprovider -m attack
