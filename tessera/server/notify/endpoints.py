"""Where a push may go: a push subscription's endpoint is a URL the browser hands us, so the server
must not be made to send requests to itself or to its own network (server-side request forgery).

An endpoint is accepted only when

* it is ``https://`` (``http://`` only with ``TESSERA_PUSH_INSECURE=1``, for development), with a
  host and no user name or password in it;
* its host is on the allow-list ``TESSERA_PUSH_HOSTS`` when that is set (comma-separated host
  names; ``.example.org`` or ``*.example.org`` also admits every name under it), e.g.
  ``fcm.googleapis.com,.push.services.mozilla.com,.notify.windows.com,.push.apple.com``;
* every address its host resolves to is a global one: never loopback, private, link-local (which
  holds the cloud metadata address 169.254.169.254), shared (100.64/10), multicast, unspecified or
  reserved, IPv4-mapped IPv6 included.  ``TESSERA_PUSH_INSECURE=1`` admits local addresses too (a
  push service on this machine, in tests).

This is checked when a subscription is stored and again when a push is sent: :func:`session` is
a ``requests`` session whose connections resolve the host themselves, check each address and
connect to the address checked (a name that changes its answer between the two — DNS rebinding —
gains nothing), never follow a redirect, and ignore the environment's proxy settings.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from tessera.server.http.errors import ServiceError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

getaddrinfo = socket.getaddrinfo
"""The resolver (the system's; a test puts a fake DNS here)."""


EndpointRefused = ServiceError
"""A push endpoint the server will not contact: 422, the message says why."""


def insecure_allowed() -> bool:
    """``TESSERA_PUSH_INSECURE=1``: accept ``http://`` endpoints and local addresses (local tests and
    development only; a real browser's push service is always ``https://`` on the internet)."""
    return os.environ.get("TESSERA_PUSH_INSECURE", "").lower() in ("1", "true", "yes")


def allowed_hosts() -> tuple[str, ...] | None:
    """The allow-list ``TESSERA_PUSH_HOSTS`` (lower case), or None when every public host is allowed."""
    text = os.environ.get("TESSERA_PUSH_HOSTS", "")
    hosts = tuple(h.strip().lower().removeprefix("*") for h in text.split(",") if h.strip())
    return hosts or None


def host_allowed(host: str, hosts: tuple[str, ...] | None) -> bool:
    """Whether ``host`` is on the allow-list (``.example.org`` admits the names under it)."""
    if hosts is None:
        return True
    host = host.lower().rstrip(".")
    return any(host.endswith(h) if h.startswith(".") else host == h for h in hosts)


def public_address(ip: Address) -> bool:
    """Whether ``ip`` is a global internet address (an IPv4-mapped IPv6 address is judged as IPv4)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return bool(ip.is_global) and not ip.is_multicast and not ip.is_unspecified and not ip.is_reserved


def split_endpoint(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an acceptable endpoint URL (``EndpointRefused`` otherwise);
    nothing is resolved."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ServiceError(
            422, "subscription.endpoint: not a valid URL", key="refusal.notify.push_endpoint_url"
        ) from None
    secure = parts.scheme == "https"
    if not (secure or (parts.scheme == "http" and insecure_allowed())):
        raise ServiceError(
            422, "subscription.endpoint: a push service's https:// address", key="refusal.notify.push_endpoint"
        )
    host = parts.hostname
    if not host:
        raise ServiceError(
            422, "subscription.endpoint: the address names no host", key="refusal.notify.push_endpoint_host"
        )
    if parts.username is not None or parts.password is not None:
        raise ServiceError(
            422,
            "subscription.endpoint: a user name or password in the address is not accepted",
            key="refusal.notify.push_endpoint_userinfo",
        )
    if not host_allowed(host, allowed_hosts()):
        raise ServiceError(
            422,
            f"subscription.endpoint: the host {host[:100]!r} is not a push service this server uses",
            key="refusal.notify.push_endpoint_not_listed",
            args={"host": host[:100]},
        )
    return parts.scheme, host, port if port is not None else (443 if secure else 80)


def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
    """The addresses to connect to for ``host`` (``getaddrinfo``'s entries), each checked: one that is
    not public refuses the whole host (``EndpointRefused``), unless local addresses are allowed."""
    try:
        infos = getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise ServiceError(
            422,
            f"subscription.endpoint: the host {host[:100]!r} does not resolve",
            key="refusal.notify.push_endpoint_unresolved",
            args={"host": host[:100]},
        ) from None
    if not infos:
        raise ServiceError(
            422,
            f"subscription.endpoint: the host {host[:100]!r} does not resolve",
            key="refusal.notify.push_endpoint_unresolved",
            args={"host": host[:100]},
        )
    local_ok = insecure_allowed()
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if not local_ok and not public_address(ip):
            raise ServiceError(
                422,
                f"subscription.endpoint: the host {host[:100]!r} resolves to a local or private address",
                key="refusal.notify.push_endpoint_local",
                args={"host": host[:100]},
            )
    return infos


def check_endpoint(url: str) -> None:
    """Refuse (``EndpointRefused``) an endpoint the server must not contact: its form, the allow-list,
    and every address its host resolves to now."""
    _, host, port = split_endpoint(url)
    resolve(host, port)


def _connect_checked(host: str, port: int, timeout: Any, source_address: Any) -> socket.socket:
    """A connection to one of the checked addresses of ``host`` (the same addresses that were checked)."""
    last: OSError | None = None
    for family, kind, proto, _, address in resolve(host, port):
        sock = socket.socket(family, kind, proto)
        try:
            if isinstance(timeout, int | float):  # else urllib3's "default" sentinel: no timeout of ours
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(address)
            return sock
        except OSError as e:
            last = e
            sock.close()
    raise last if last is not None else OSError(f"no address of {host!r} could be reached")


class _CheckedHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _connect_checked(self._dns_host, self.port, self.timeout, self.source_address)


class _CheckedHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        return _connect_checked(self._dns_host, self.port, self.timeout, self.source_address)


class _CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _CheckedHTTPConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


class _CheckedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _CheckedHTTPPool, "https": _CheckedHTTPSPool}


class _PushSession(requests.Session):
    """Redirects are never followed (a push service answers 201; anything else is a failure)."""

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs["allow_redirects"] = False
        return super().request(method, url, *args, **kwargs)


def session() -> requests.Session:
    """A ``requests`` session for pushes: checked, pinned connections, no redirects, no proxy from
    the environment."""
    s = _PushSession()
    s.trust_env = False
    s.max_redirects = 0
    adapter = _CheckedAdapter()
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    return s
