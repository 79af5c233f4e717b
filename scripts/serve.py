#!/usr/bin/env python3
"""Run the web app from a fresh checkout with nothing but Python 3.11+: ``python3 scripts/serve.py``.

It makes a virtual environment ``.venv`` in the checkout (a system Python such
as Debian's refuses ``pip install`` outside one: PEP 668), installs tessera
with its server extras into it at the versions CI tested (``requirements/server.txt``,
hash-checked), compiles every game's kernels and its AI's into numba's on-disk cache
(``python -m tessera.server.ai.warmup``: about half a minute on a fresh checkout, a few seconds later;
so the first game waits for no compilation once the address is printed), and starts
``tessera serve`` there; any
arguments go to ``tessera serve`` (``--port 8080``, ``--db …``).  Later runs
reuse the environment and reinstall only when ``pyproject.toml`` or the lock changed.

Debian's ``python3`` without the ``python3-venv`` package has no ``ensurepip``:
the environment is then made without pip, and pip is installed from a pip wheel
already on the machine (Debian's ``/usr/share/python-wheels``, or pip's
``PIP_FIND_LINKS`` folders), else with the official ``get-pip.py``
(https://bootstrap.pypa.io/get-pip.py).  Only the standard library is used here.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import urllib.request
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GET_PIP = "https://bootstrap.pypa.io/get-pip.py"
STAMP = "tessera-install.sha256"


def venv_python(env: Path) -> Path:
    """The interpreter of the environment ``env`` (POSIX or Windows layout)."""
    win = env / "Scripts" / "python.exe"
    return win if os.name == "nt" else env / "bin" / "python"


def works(python: Path, code: str = "import sys") -> bool:
    """Whether ``python`` runs ``code`` without an error."""
    try:
        return subprocess.run([str(python), "-c", code], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def local_pip_wheel() -> Path | None:
    """A pip wheel already on this machine (Debian's python3-pip-whl, pip's find-links folders), newest first."""
    folders = [Path("/usr/share/python-wheels")]
    folders += [Path(d) for d in os.environ.get("PIP_FIND_LINKS", "").split() if "://" not in d]
    found = [w for d in folders if d.is_dir() for w in d.glob("pip-*-py3-none-any.whl")]
    return max(found, key=lambda w: w.name, default=None)


def make_venv(env: Path) -> Path:
    """Create ``env`` with pip (bootstrapping pip when this Python has no ``ensurepip``); its interpreter."""
    py = venv_python(env)
    if py.exists() and works(py, "import pip"):
        return py
    print(f"== making the virtual environment {env}", flush=True)
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(env)
        if works(py, "import pip"):
            return py
    except (subprocess.CalledProcessError, ImportError, OSError) as e:
        print(f"   (this Python cannot put pip into a virtual environment: {e}; pip comes another way)", flush=True)
    venv.EnvBuilder(with_pip=False, clear=True).create(env)
    wheel = local_pip_wheel()
    if wheel is not None:
        print(f"== installing pip from {wheel}", flush=True)
        # a pip wheel runs pip itself: python pip-X.whl/pip install pip-X.whl
        subprocess.run([str(py), f"{wheel}/pip", "install", "--quiet", "--no-index", str(wheel)], check=True)
        if works(py, "import pip"):
            return py
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "get-pip.py"
        print(f"== downloading {GET_PIP}", flush=True)
        with urllib.request.urlopen(GET_PIP, timeout=120) as r:
            script.write_bytes(r.read())
        subprocess.run([str(py), str(script), "--quiet", "--disable-pip-version-check"], check=True)
    if not works(py, "import pip"):
        raise SystemExit(f"serve.py: could not install pip into {env}")
    return py


def install(py: Path, env: Path) -> None:
    """The server's locked dependencies (``requirements/server.txt``, each checked against its hash), then
    ``pip install --no-deps -e .``; unless done for this very pyproject.toml and lock file."""
    lock = ROOT / "requirements" / "server.txt"
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + lock.read_bytes()).hexdigest()
    stamp = env / STAMP
    ready = "import tessera.server.http.app, uvicorn"
    if stamp.exists() and stamp.read_text().strip() == digest and works(py, ready):
        return
    pip = [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    print("== pip install -r requirements/server.txt (the versions CI tested)", flush=True)
    subprocess.run([*pip, "--require-hashes", "-r", str(lock)], check=True)
    print("== pip install --no-deps -e .", flush=True)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True)
    if not works(py, ready):
        raise SystemExit("serve.py: the install finished but tessera's server does not import; see pip's output above")
    stamp.write_text(digest + "\n")


def prepare(py: Path) -> None:
    """Compile the games' and the AI's kernels into numba's cache before the server starts (its
    address is printed once they are ready: the first game does not wait for them)."""
    print("== preparing the games (compiled once per install; later runs load them)", flush=True)
    if subprocess.run([str(py), "-m", "tessera.server.ai.warmup"]).returncode != 0:
        print("   (the preparation failed; the server compiles what it needs as it goes)", flush=True)


def main(argv: list[str]) -> int:
    """Make or reuse ``.venv``, install, prepare the kernels, then replace this process with ``tessera serve``."""
    if sys.version_info < (3, 11):  # noqa: UP036 - this script may be run by any python3
        print(f"serve.py: tessera needs Python 3.11 or newer; this is {sys.version.split()[0]}", file=sys.stderr)
        return 2
    env = Path(os.environ.get("TESSERA_VENV", ROOT / ".venv"))
    try:
        py = make_venv(env)
        install(py, env)
        if "--help" not in argv and "-h" not in argv:
            prepare(py)
    except (subprocess.CalledProcessError, OSError) as e:
        print(f"serve.py: setting up {env} failed: {e}", file=sys.stderr)
        return 1
    cmd = [str(py), "-m", "tessera", "serve", *argv]
    if os.name == "nt":
        return subprocess.call(cmd)
    os.execv(str(py), cmd)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
