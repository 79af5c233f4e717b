#!/usr/bin/env bash
# Install or upgrade tessera on a Debian or Ubuntu machine as deploy/ lays it out (docs/deploy.md):
#
#   sudo bash deploy/install.sh          # from a checkout of the version to run
#
# - Debian's packages: python3-venv, nginx, postgresql (skipped when DESTDIR is set)
# - a system user `tessera` (skipped when DESTDIR is set)
# - /opt/tessera/venv: the server's locked dependencies (requirements/server.txt, every file checked
#   against its hash: the versions CI tested) and tessera itself from this checkout
# - /etc/tessera/tessera.env from deploy/tessera.env, the nginx site from deploy/nginx/tessera.conf
#   (both only when absent: an upgrade keeps the operator's settings), the systemd units
#
# It starts nothing: docs/deploy.md says what to edit, then `systemctl enable --now tessera.target`.
# DESTDIR=/some/folder installs every file under that folder instead of / (a dry run, or a package).
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${DESTDIR:-}"
VENV="$DEST/opt/tessera/venv"

if [ -z "$DEST" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "install.sh: run it as root (sudo), or set DESTDIR" >&2; exit 2; }
  echo "== apt-get install python3-venv nginx postgresql"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv nginx postgresql >/dev/null
  id tessera >/dev/null 2>&1 || useradd --system --home-dir /var/lib/tessera --shell /usr/sbin/nologin tessera
fi

echo "== $VENV: requirements/server.txt (hash-checked), then tessera"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes -r "$SRC/requirements/server.txt"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "$SRC"
"$VENV/bin/python" -c "import tessera.server.http.app, uvicorn"  # fail here if the install failed

install -d "$DEST/etc/tessera" "$DEST/etc/systemd/system" "$DEST/etc/nginx/conf.d"
if [ ! -e "$DEST/etc/tessera/tessera.env" ]; then
  install -m 640 "$SRC/deploy/tessera.env" "$DEST/etc/tessera/tessera.env"
  [ -n "$DEST" ] || chgrp tessera /etc/tessera/tessera.env
  echo "== wrote /etc/tessera/tessera.env: set the database password in it"
fi
[ -e "$DEST/etc/nginx/conf.d/tessera.conf" ] || install -m 644 "$SRC/deploy/nginx/tessera.conf" "$DEST/etc/nginx/conf.d/"
install -m 644 "$SRC/deploy/systemd/tessera@.service" "$SRC/deploy/systemd/tessera.target" "$DEST/etc/systemd/system/"
[ -n "$DEST" ] || systemctl daemon-reload 2>/dev/null || true
echo "== installed $("$VENV/bin/python" -c 'import importlib.metadata as m; print("tessera", m.version("tessera"))')"
