"""Who can reach the HTTP service: the bound host, trusted Host headers, CORS origins, defaults."""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import Receive, Scope, Send

from api.credentials import Tokens
from api.requestid import HEADER as REQUEST_ID_HEADER
from graphmem.config import Settings
from graphmem.errors import InvalidInput

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
WILDCARD_HOSTS = ("", "0.0.0.0", "::", "[::]")
# probes and Prometheus reach these by whatever address they have (a pod's IP, say)
UNCHECKED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
_HOSTNAME = re.compile(r"(\*\.)?[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the service on this machine (names other than localhost
    are taken as reachable: what they resolve to can change)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def graphiql_enabled(settings: Settings) -> bool:
    """GRAPHMEM_GRAPHIQL; by default on when bound to a loopback host, off otherwise."""
    return is_loopback(settings.host) if settings.graphiql is None else settings.graphiql


def introspection_enabled(settings: Settings) -> bool:
    """GRAPHMEM_INTROSPECTION; by default as GraphiQL (which needs it)."""
    if settings.introspection is None:
        return graphiql_enabled(settings)
    return settings.introspection


def allowed_hosts(settings: Settings) -> list[str]:
    """The Host headers served: GRAPHMEM_ALLOWED_HOSTS, or the bound host and the loopback
    names (the machine's hostname too when bound to every interface)."""
    if settings.allowed_hosts:
        return [_host_pattern(host) for host in settings.allowed_hosts]
    hosts = list(LOOPBACK_HOSTS)
    bound = socket.gethostname() if settings.host in WILDCARD_HOSTS else settings.host
    pattern = _host_pattern(bound, check=False)
    return hosts if pattern in hosts else [*hosts, pattern]


def _host_pattern(host: str, check: bool = True) -> str:
    """A Host header pattern as Starlette matches it: lower case, IPv6 in brackets, no port."""
    name = host.strip().lower()
    try:
        if ipaddress.ip_address(name.strip("[]")).version == 6:
            return f"[{name.strip('[]')}]"
    except ValueError:
        pass
    if check and name != "*" and not _HOSTNAME.fullmatch(name):
        raise InvalidInput(
            "GRAPHMEM_ALLOWED_HOSTS",
            f"{host!r} is not a host name, an IP address, *.domain or * (and takes no port)",
        )
    return name


def cors_origins(settings: Settings) -> list[str]:
    """GRAPHMEM_CORS_ORIGINS as browsers send Origin: scheme://host[:port], or '*'."""
    return [_origin(origin) for origin in settings.cors_origins]


def _origin(text: str) -> str:
    if text == "*":
        return text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or parts.scheme.lower() not in _DEFAULT_PORTS
        or not parts.hostname
        or parts.username is not None
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise InvalidInput(
            "GRAPHMEM_CORS_ORIGINS",
            f"{text!r} is not an origin like https://app.example.com (scheme, host, optional "
            f"port; no path) or *",
        )
    scheme = parts.scheme.lower()
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{scheme}://{host}" + ("" if port in (None, _DEFAULT_PORTS[scheme]) else f":{port}")


class TrustedHosts(TrustedHostMiddleware):
    """Starlette's Host header check (against DNS rebinding), except on UNCHECKED_PATHS."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in UNCHECKED_PATHS:
            await self.app(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def middleware(settings: Settings) -> list[Middleware]:
    """The Host check, then CORS (preflights answered, refused for origins not listed).

    Tokens travel in the Authorization header, never in cookies: credentials are never
    allowed, so '*' cannot lend a browser's session to another site.
    """
    return [
        Middleware(TrustedHosts, allowed_hosts=allowed_hosts(settings), www_redirect=False),
        Middleware(
            CORSMiddleware,
            allow_origins=cors_origins(settings),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", REQUEST_ID_HEADER],
            expose_headers=["WWW-Authenticate", REQUEST_ID_HEADER],
            allow_credentials=False,
            max_age=600,
        ),
    ]


def exposure_problem(settings: Settings, tokens: Tokens) -> str | None:
    """Why serving with these settings and no token lets strangers in, or None."""
    if tokens.required:
        return None
    fix = "set GRAPHMEM_API_TOKEN or GRAPHMEM_TOKENS_FILE (docs/deploying.md)"
    if not is_loopback(settings.host):
        return (
            f"--host {settings.host or '(every interface)'} can be reached from other "
            f"machines and no token is set: anyone on the network could read and delete the "
            f"graph; {fix}"
        )
    if "*" in settings.cors_origins:
        return (
            "GRAPHMEM_CORS_ORIGINS is * and no token is set: any web page open in a browser "
            f"on this machine could read and delete the graph; {fix}"
        )
    return None


def describe(settings: Settings, tokens: Tokens) -> list[str]:
    """What `graphmem serve` prints about access at start-up (never a token)."""
    on_off = {True: "on", False: "off"}
    origins = ", ".join(cors_origins(settings)) or "none"
    return [
        f"auth: {tokens.summary()}; GraphiQL {on_off[graphiql_enabled(settings)]}, "
        f"introspection {on_off[introspection_enabled(settings)]}",
        f"Host headers served: {', '.join(allowed_hosts(settings))}; CORS origins: {origins}",
    ]
