"""Who can reach the service: trusted Host headers (DNS rebinding), CORS, and `graphmem serve`
refusing a non-loopback host without a token."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from api import security
from api.app import create_app
from api.credentials import Tokens
from graphmem import cli
from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.series.catalog import list_series
from graphmem.store import Store

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "a-token-for-the-tests-" + "t" * 16
CREATE = 'mutation { createSeries(name: "made") { id } }'
APP_ORIGIN = "https://app.example.com"


@pytest.fixture
def client(store: Store, store_url: str, short_tmp: Path) -> Iterator:
    """Apps on the (empty) store under test with the settings given; base URL localhost."""
    with contextlib.ExitStack() as stack:

        def make(**changes: object) -> TestClient:
            settings = Settings(store_url=store_url, home=short_tmp / "sec", **changes)
            app = TestClient(create_app(settings), base_url="http://localhost")
            return stack.enter_context(app)

        yield make


def test_a_foreign_host_header_is_refused_and_nothing_runs(client, store: Store) -> None:
    """DNS rebinding: a page on attacker.example resolving to 127.0.0.1 posts to the API."""
    app = client()
    response = app.post("/graphql", json={"query": CREATE}, headers={"Host": "attacker.example"})
    assert response.status_code == 400 and response.text == "Invalid host header"
    assert list_series(store, limit=10) == []


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000"])
def test_the_loopback_names_are_served(client, host: str) -> None:
    response = client().post(
        "/graphql", json={"query": "{ series { items { name } } }"}, headers={"Host": host}
    )
    assert response.status_code == 200 and response.json()["data"] == {"series": {"items": []}}


def test_healthz_answers_whatever_the_host(client) -> None:
    """Probes reach it by the address they have (a pod IP, a container name)."""
    assert client().get("/healthz", headers={"Host": "10.1.2.3:8000"}).status_code == 200


def test_the_bound_host_is_served_and_allowed_hosts_replace_the_defaults(client) -> None:
    bound = client(host="192.0.2.10", api_token=TOKEN)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for host in ("192.0.2.10:8000", "localhost"):
        assert (
            bound.post(
                "/graphql",
                json={"query": "{ series { items { name } } }"},
                headers={**auth, "Host": host},
            ).status_code
            == 200
        )
    listed = client(allowed_hosts=("graphmem.internal", "*.example.org"))
    for host, status in [
        ("graphmem.internal", 200),
        ("a.example.org:443", 200),
        ("localhost", 400),
        ("example.net", 400),
    ]:
        response = listed.post(
            "/graphql", json={"query": "{ series { items { name } } }"}, headers={"Host": host}
        )
        assert response.status_code == status, host


def test_default_allowed_hosts() -> None:
    assert security.allowed_hosts(Settings()) == ["localhost", "127.0.0.1", "[::1]"]
    assert security.allowed_hosts(Settings(host="::1")) == ["localhost", "127.0.0.1", "[::1]"]
    assert security.allowed_hosts(Settings(host="Box.LAN"))[-1] == "box.lan"
    everywhere = security.allowed_hosts(Settings(host="0.0.0.0"))
    assert everywhere == ["localhost", "127.0.0.1", "[::1]", socket.gethostname().lower()]
    assert security.allowed_hosts(Settings(allowed_hosts=("fe80::1", "A.example"))) == [
        "[fe80::1]",
        "a.example",
    ]


@pytest.mark.parametrize("bad", ["example.com:8000", "http://example.com", "a*.example", "a b"])
def test_a_bad_allowed_host_names_the_variable(bad: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        create_app(Settings(allowed_hosts=(bad,)))
    assert raised.value.field == "GRAPHMEM_ALLOWED_HOSTS" and repr(bad) in raised.value.problem


def preflight(app: TestClient, origin: str):
    return app.options(
        "/graphql",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )


def test_cors_preflight_and_request_from_an_allowed_origin(client) -> None:
    app = client(cors_origins=(APP_ORIGIN, "http://localhost:5173"))
    answer = preflight(app, APP_ORIGIN)
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
    allowed = answer.headers["Access-Control-Allow-Headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed
    assert "POST" in answer.headers["Access-Control-Allow-Methods"]
    assert "Access-Control-Allow-Credentials" not in answer.headers
    response = app.post(
        "/graphql", json={"query": "{ series { items { name } } }"}, headers={"Origin": APP_ORIGIN}
    )
    assert response.headers["Access-Control-Allow-Origin"] == APP_ORIGIN
    assert "WWW-Authenticate" in response.headers["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_no_cors_headers_for_a_foreign_origin(client) -> None:
    app = client(cors_origins=(APP_ORIGIN,))
    answer = preflight(app, "https://evil.example")
    assert answer.status_code == 400 and "Access-Control-Allow-Origin" not in answer.headers
    response = app.post(
        "/graphql",
        json={"query": "{ series { items { name } } }"},
        headers={"Origin": "https://evil.example"},
    )
    assert "Access-Control-Allow-Origin" not in response.headers


def test_no_origin_is_allowed_by_default(client) -> None:
    answer = preflight(client(), APP_ORIGIN)  # answered (it was 405), and refused
    assert answer.status_code == 400 and "Access-Control-Allow-Origin" not in answer.headers


def test_any_origin_never_with_credentials(client) -> None:
    app = client(cors_origins=("*",), api_token=TOKEN)
    answer = preflight(app, "https://anywhere.example")
    assert answer.status_code == 200 and answer.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in answer.headers


def test_origins_are_read_as_browsers_send_them() -> None:
    settings = Settings.from_env(
        {
            "GRAPHMEM_CORS_ORIGINS": "HTTPS://App.example.com:443/, "
            "http://[::1]:5173 ,http://x.example:80"
        }
    )
    assert security.cors_origins(settings) == [
        "https://app.example.com",
        "http://[::1]:5173",
        "http://x.example",
    ]


@pytest.mark.parametrize(
    "bad",
    [
        "app.example.com",
        "ftp://a.example",
        "https://a.example/path",
        "https://u@a.example",
        "https://a.example:99999",
        "https://",
    ],
)
def test_a_bad_origin_names_the_variable(bad: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        create_app(Settings(cors_origins=(bad,)))
    assert raised.value.field == "GRAPHMEM_CORS_ORIGINS" and repr(bad) in raised.value.problem


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.0.2.10", False),
        ("myhost", False),
        ("localhost.example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert security.is_loopback(host) is loopback


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "192.0.2.10", "box.lan"])
def test_serving_elsewhere_without_a_token_is_a_problem(host: str) -> None:
    settings = Settings(host=host)
    problem = security.exposure_problem(settings, Tokens.from_settings(settings))
    assert "anyone on the network could read and delete the graph" in problem
    with_token = Settings(host=host, api_token=TOKEN)
    assert security.exposure_problem(with_token, Tokens.from_settings(with_token)) is None


def test_any_origin_without_a_token_is_a_problem_even_locally() -> None:
    settings = Settings(cors_origins=("*",))
    assert "any web page" in security.exposure_problem(settings, Tokens.from_settings(settings))
    assert security.exposure_problem(Settings(), Tokens()) is None


@pytest.fixture
def no_tokens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in (
        "GRAPHMEM_API_TOKEN",
        "GRAPHMEM_READ_TOKEN",
        "GRAPHMEM_TOKENS_FILE",
        "GRAPHMEM_CORS_ORIGINS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("host", ["203.0.113.7", "graphmem-test.invalid"])
def test_serve_refuses_a_non_loopback_host_without_a_token(no_tokens, capsys, host) -> None:
    """Refused before anything is bound (the address is not this machine's: binding it fails)."""
    assert cli.main(["serve", "--host", host, "--port", "8000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"refused: --host {host} can be reached from other machines")
    assert "anyone on the network could read and delete the graph" in err
    assert "GRAPHMEM_API_TOKEN" in err and "--insecure" in err


def test_serve_refuses_any_origin_without_a_token(no_tokens, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GRAPHMEM_CORS_ORIGINS", "*")
    assert cli.main(["serve", "--port", "8000"]) == 2
    assert "any web page" in capsys.readouterr().err


def test_serve_refuses_a_bad_tokens_file_before_binding(no_tokens, monkeypatch, tmp_path, capsys):
    path = tmp_path / "tokens.toml"
    path.write_text('[[tokens]]\nname = "a"\ntoken = "short"\naccess = "read"\n')
    path.chmod(0o600)
    monkeypatch.setenv("GRAPHMEM_TOKENS_FILE", str(path))
    assert cli.main(["serve", "--host", "203.0.113.7", "--port", "8000"]) == 1
    assert "error: GRAPHMEM_TOKENS_FILE" in capsys.readouterr().err


def outward_address() -> str | None:
    """This machine's address on its default route (no packet is sent), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("198.51.100.1", 9))  # TEST-NET-2: routed, never reached
        except OSError:
            return None
        address = sock.getsockname()[0]
    return None if security.is_loopback(address) or address == "0.0.0.0" else address


@contextlib.contextmanager
def serving(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen]:
    command = [sys.executable, "-m", "graphmem.cli", "serve", *args]
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    process = subprocess.Popen(
        command, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_up(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve exited: {process.stdout.read()}")
        with contextlib.suppress(httpx.TransportError):
            httpx.get(f"{url}/healthz", timeout=5)
            return
        time.sleep(0.2)
    raise AssertionError("serve did not start")


@pytest.mark.parametrize(
    ("flags", "token"), [(["--insecure"], None), ([], TOKEN)], ids=["insecure", "token"]
)
def test_serve_on_a_non_loopback_address(tmp_path: Path, flags, token) -> None:
    """With --insecure, or with a token, serve binds this machine's own outward address (not
    0.0.0.0) and answers there, Host header and all."""
    address = outward_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    with socket.socket() as sock:
        sock.bind((address, 0))
        port = sock.getsockname()[1]
    env = {
        "GRAPHMEM_HOME": str(tmp_path / "home"),
        "GRAPHMEM_API_TOKEN": token or "",
        "GRAPHMEM_STORE": f"falkordb+embedded://{tmp_path / 'db'}",
    }
    url = f"http://{address}:{port}"
    with serving(["--host", address, "--port", str(port), *flags], env) as process:
        wait_up(url, process)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = httpx.post(
            f"{url}/graphql",
            json={"query": "{ series { items { name } } }"},
            headers=headers,
            timeout=60,
        )
        assert response.status_code == 200 and response.json()["data"] == {"series": {"items": []}}
        if token:
            assert (
                httpx.post(
                    f"{url}/graphql", json={"query": "{ series { items { name } } }"}
                ).status_code
                == 401
            )
    output = process.stdout.read()
    if flags:
        assert "warning (--insecure)" in output and "anyone on the network" in output
    else:
        assert "auth: 1 token (1 read-write, 0 read-only)" in output
    assert TOKEN not in output
