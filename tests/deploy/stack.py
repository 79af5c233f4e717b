"""The pieces of the deployment in ``deploy/``, run on this machine for the tests: a local certificate
authority, ``tessera serve`` processes started as ``deploy/systemd/tessera@.service`` starts them, and
nginx with ``deploy/nginx/tessera.conf`` on loopback ports."""

from __future__ import annotations

import datetime
import ipaddress
import os
import re
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "systemd" / "tessera@.service"
TARGET = DEPLOY / "systemd" / "tessera.target"
ENV_FILE = DEPLOY / "tessera.env"
NGINX_SITE = DEPLOY / "nginx" / "tessera.conf"
INSTALLED_TESSERA = "/opt/tessera/venv/bin/tessera"


def nginx_binary() -> str | None:
    """nginx's path, or None when it is not installed (``apt-get install nginx-light``)."""
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)


@dataclass(frozen=True)
class Certificates:
    """A certificate authority made for one test and a server certificate it signed."""

    ca: Path
    """The authority's certificate (PEM): what the clients trust."""
    chain: Path
    """The server's certificate followed by the authority's (PEM)."""
    key: Path
    """The server's private key (PEM, unencrypted)."""


def make_certificates(folder: Path, host: str = "127.0.0.1") -> Certificates:
    """A local certificate authority and a certificate for ``host`` (an IP address) signed by it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tessera test authority")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    found = Certificates(folder / "ca.pem", folder / "fullchain.pem", folder / "privkey.pem")
    found.ca.write_bytes(ca.public_bytes(pem))
    found.chain.write_bytes(cert.public_bytes(pem) + ca.public_bytes(pem))
    found.key.write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return found


def client_tls(certs: Certificates) -> ssl.SSLContext:
    """A client's TLS settings trusting only the test's authority."""
    return ssl.create_default_context(cafile=str(certs.ca))


def unit_ports() -> list[int]:
    """The ports of the processes ``tessera.target`` starts (``Wants=tessera@PORT.service``)."""
    return [int(p) for p in re.findall(r"tessera@(\d+)\.service", TARGET.read_text())]


def upstream_ports() -> list[int]:
    """The ports of the ``server`` lines of the nginx site's ``upstream tessera``."""
    block = re.search(r"upstream tessera \{(.*?)\}", NGINX_SITE.read_text(), re.S)
    assert block, f"{NGINX_SITE} has no 'upstream tessera' block"
    return [int(p) for p in re.findall(r"server 127\.0\.0\.1:(\d+)", block.group(1))]


def environment_file() -> dict[str, str]:
    """The variables of ``deploy/tessera.env`` (``NAME=value`` lines; comments and blank lines skipped)."""
    found: dict[str, str] = {}
    for line in ENV_FILE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, sep, value = line.partition("=")
            assert sep, f"{ENV_FILE}: not NAME=value: {line!r}"
            found[name.strip()] = value.strip()
    return found


def exec_start(port: int) -> list[str]:
    """The unit's ``ExecStart`` for the instance ``port``, with this checkout's Python as the installed script."""
    line = next(x for x in UNIT.read_text().splitlines() if x.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart=").replace("%i", str(port)))
    assert words[0] == INSTALLED_TESSERA, f"ExecStart runs {words[0]}, not {INSTALLED_TESSERA}"
    return [sys.executable, "-m", "tessera", *words[1:]]


@dataclass
class Process:
    """A started ``tessera serve``: its port, the process, and the file its log lines go to."""

    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    def lines(self) -> list[dict[str, object]]:
        """The JSON log lines written so far."""
        import json

        found = []
        for raw in self.log.read_text(errors="replace").splitlines():
            if raw.startswith("{"):
                try:
                    found.append(json.loads(raw))
                except ValueError:
                    continue
        return found


@contextmanager
def tessera_processes(db_url: str, folder: Path, count: int, extra_env: dict[str, str]) -> Iterator[list[Process]]:
    """``count`` processes started as the unit starts them, with the environment file's variables."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **environment_file(), **extra_env}
    env["TESSERA_DATABASE_URL"] = db_url
    started: list[Process] = []
    try:
        for _ in range(count):
            port = free_port()
            log = folder / f"tessera-{port}.log"
            with open(log, "wb") as out:
                proc = subprocess.Popen(exec_start(port), env=env, stdout=out, stderr=subprocess.STDOUT)
            started.append(Process(port, proc, log))
        for p in started:
            deadline = time.time() + 300
            while True:
                if p.proc.poll() is not None:
                    raise RuntimeError(f"tessera on port {p.port} exited: {p.log.read_text()[-3000:]}")
                try:  # ready, and every game's kernels loaded (a fresh checkout compiles them first)
                    status = httpx.get(f"http://127.0.0.1:{p.port}/api/status", timeout=2)
                    if status.status_code == 200 and status.json().get("ready"):
                        break
                except httpx.HTTPError:
                    pass
                assert time.time() < deadline, f"tessera on port {p.port} did not become ready"
                time.sleep(0.2)
        yield started
    finally:
        for p in started:
            if p.proc.poll() is None:
                p.proc.send_signal(signal.SIGTERM)
        for p in started:
            try:
                p.proc.wait(20)
            except subprocess.TimeoutExpired:
                p.proc.kill()


def site_config(upstreams: dict[int, int], https_port: int, http_port: int, certs: Certificates) -> str:
    """``deploy/nginx/tessera.conf`` with this run's ports and certificate; every replaced text must be there."""
    text = NGINX_SITE.read_text()
    swaps = {
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen [::]:80;": "",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{https_port} ssl http2;",
        "listen [::]:443 ssl http2;": "",
        "/etc/tessera/tls/fullchain.pem": str(certs.chain),
        "/etc/tessera/tls/privkey.pem": str(certs.key),
    }
    swaps.update({f"server 127.0.0.1:{a};": f"server 127.0.0.1:{b};" for a, b in upstreams.items()})
    for old, new in swaps.items():
        assert old in text, f"{NGINX_SITE} no longer has {old!r}: update tests/deploy/stack.py"
        text = text.replace(old, new)
    return text


@contextmanager
def nginx(site: str, folder: Path) -> Iterator[subprocess.Popen[bytes]]:
    """nginx in the foreground with ``site`` inside its ``http`` block, every file of it in ``folder``."""
    exe = nginx_binary()
    assert exe, "nginx is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o777)  # nginx's workers (user nobody when started by root) write its temp files
    (folder / "site.conf").write_text(site)
    temp = "\n".join(f"    {k}_temp_path {folder / k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (folder / "nginx.conf").write_text(
        f"""daemon off;
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} info;
events {{ worker_connections 256; }}
http {{
    access_log {folder / "access.log"};
{temp}
    include {folder / "site.conf"};
}}
"""
    )
    # -e: the start-up's own error log in the folder too (a user other than root cannot open /var/log/nginx)
    cmd = [exe, "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(folder / "nginx.conf")]
    check = subprocess.run([*cmd, "-t"], capture_output=True, text=True)
    assert check.returncode == 0, f"nginx refuses the configuration:\n{check.stderr}"
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGQUIT)  # finish the open requests, then stop
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@contextmanager
def running_stack(
    db_url: str, folder: Path, extra_env: dict[str, str] | None = None
) -> Iterator[tuple[str, str, list[Process], Certificates]]:
    """The whole stack: the processes of ``tessera.target`` on ``db_url`` behind nginx with TLS.

    Yields the HTTPS base URL, the plain-HTTP base URL (redirects), the processes and the certificates."""
    ports = unit_ports()
    assert sorted(ports) == sorted(upstream_ports()), "tessera.target and nginx's upstream name other ports"
    certs = make_certificates(folder)
    with ExitStack() as stack:
        procs = stack.enter_context(tessera_processes(db_url, folder, len(ports), extra_env or {}))
        https_port, http_port = free_port(), free_port()
        site = site_config(dict(zip(ports, (p.port for p in procs), strict=True)), https_port, http_port, certs)
        stack.enter_context(nginx(site, folder / "nginx"))
        base = f"https://127.0.0.1:{https_port}"
        deadline = time.time() + 20
        while True:
            try:
                httpx.get(base + "/healthz", verify=client_tls(certs), timeout=2)
                break
            except httpx.ConnectError:
                assert time.time() < deadline, "nginx did not start: " + (folder / "nginx" / "error.log").read_text()
                time.sleep(0.1)
        yield base, f"http://127.0.0.1:{http_port}", procs, certs
