#!/usr/bin/env bash
# Refresh the locked versions to the newest releases pyproject.toml allows, then install them and run
# the whole suite (scripts/test.sh): commit requirements/*.txt only when it passes.
#   requirements/test.txt    the test and server extras (scripts/test.sh installs it)
#   requirements/server.txt  the server extra at the same versions (scripts/serve.py, deploy/install.sh)
# Every line carries its files' hashes (pip --require-hashes); the lock holds for every platform and
# Python 3.11+ (uv's universal resolution).  Arguments go to uv (e.g. --upgrade-package fastapi
# instead of the default --upgrade of everything).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check uv
uv=(.venv/bin/python -m uv pip compile -q --generate-hashes --universal --python-version 3.11 --no-annotate
    --custom-compile-command "bash scripts/lock.sh")
upgrade=(--upgrade)
[ $# -eq 0 ] || upgrade=("$@")
echo "== uv pip compile: requirements/test.txt, requirements/server.txt"
"${uv[@]}" pyproject.toml --extra test --extra server "${upgrade[@]}" -o requirements/test.txt
"${uv[@]}" pyproject.toml --extra server -c requirements/test.txt -o requirements/server.txt
exec bash scripts/test.sh
