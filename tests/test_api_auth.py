"""API tokens: 401 without a known one, FORBIDDEN for a read-only token's mutation (nothing
changed), the tokens file and its checks, and the GraphiQL and introspection switches."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from api.app import create_app
from api.credentials import Tokens
from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.series.catalog import list_series
from graphmem.store import Store

WRITE = "write-token-" + "w" * 24
READ = "read-token-" + "r" * 24
LOCAL = "http://localhost"
SERIES = "{ series { items { name } } }"
CREATE = 'mutation { createSeries(name: "made") { id } }'

Client = Callable[..., TestClient]


@pytest.fixture
def client(store: Store, store_url: str, short_tmp: Path) -> Iterator[Client]:
    """Apps on the (empty) store under test, with the settings given."""
    with contextlib.ExitStack() as stack:

        def make(**changes: object) -> TestClient:
            settings = Settings(store_url=store_url, home=short_tmp / "auth", **changes)
            return stack.enter_context(TestClient(create_app(settings), base_url=LOCAL))

        yield make


def post(client: TestClient, query: str, token: str | None = None, **body: object):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post("/graphql", json={"query": query, **body}, headers=headers)


def names(store: Store) -> list[str]:
    return [s.name for s in list_series(store, limit=100)]


def test_without_tokens_configured_anyone_may_read_and_write(client, store: Store) -> None:
    app = client()
    assert post(app, CREATE, token="whatever-they-send").json()["data"]["createSeries"]["id"]
    assert post(app, SERIES).json()["data"]["series"]["items"] == [{"name": "made"}]
    assert names(store) == ["made"]


def test_a_missing_token_is_401_with_a_challenge(client, store: Store) -> None:
    response = post(client(api_token=WRITE), CREATE)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="graphmem"'
    error = response.json()["errors"][0]
    assert error["extensions"] == {"code": "UNAUTHENTICATED"} and "Bearer" in error["message"]
    assert response.json()["data"] is None and names(store) == []


@pytest.mark.parametrize(
    "authorization",
    [f"Bearer {WRITE}x", f"Bearer {WRITE[:-1]}", f"Basic {WRITE}", "Bearer", "Bearer  ", WRITE],
)
def test_a_wrong_token_is_401_invalid_token(client, store: Store, authorization: str) -> None:
    app = client(api_token=WRITE)
    response = app.post(
        "/graphql", json={"query": CREATE}, headers={"Authorization": authorization}
    )
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="graphmem", error="invalid_token"'
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert WRITE not in response.text and names(store) == []


def test_the_scheme_is_case_insensitive(client) -> None:
    app = client(api_token=WRITE)
    response = app.post(
        "/graphql", json={"query": SERIES}, headers={"Authorization": f"bearer {WRITE}"}
    )
    assert response.status_code == 200 and response.json()["data"]["series"]["items"] == []


def test_a_read_token_may_query_by_post_and_get(client) -> None:
    app = client(api_token=WRITE, read_token=READ)
    assert post(app, SERIES, token=READ).json()["data"] == {"series": {"items": []}}
    got = app.get("/graphql", params={"query": SERIES}, headers={"Authorization": f"Bearer {READ}"})
    assert got.status_code == 200 and got.json()["data"] == {"series": {"items": []}}
    assert app.get("/graphql", params={"query": SERIES}).status_code == 401


def test_a_read_token_on_a_mutation_is_forbidden_and_changes_nothing(client, store) -> None:
    app = client(api_token=WRITE, read_token=READ)
    assert post(app, CREATE, token=WRITE).status_code == 200  # one series to delete
    (made,) = list_series(store, limit=10)
    delete = f'mutation {{ deleteSeries(id: "{made.id}") {{ id }} }}'
    for query in (CREATE, delete):
        body = post(app, query, token=READ).json()
        assert body["data"] is None
        (error,) = body["errors"]
        assert error["extensions"] == {"code": "FORBIDDEN"}
        assert "needs a read-write token" in error["message"]
    assert names(store) == ["made"]


@pytest.mark.parametrize(
    ("document", "operation"),
    [
        (
            'query A { series { items { name } } } mutation B { createSeries(name: "x") { id } }',
            "A",
        ),
        (
            'query A { series { items { name } } } mutation B { createSeries(name: "x") { id } }',
            "B",
        ),
        (
            'mutation B { createSeries(name: "x") { id } } query A { series { items { name } } }',
            "A",
        ),
        (
            'query A { series { items { name } } } mutation A { createSeries(name: "x") { id } }',
            "A",
        ),
        ('mutation { createSeries(name: "x") { id } } query A { series { items { name } } }', None),
    ],
)
def test_no_mutation_slips_past_a_read_token_beside_a_query(
    client, store: Store, document: str, operation: str | None
) -> None:
    """Whichever operation operationName picks, a document holding a mutation is refused."""
    app = client(api_token=WRITE, read_token=READ)
    body = post(app, document, token=READ, operationName=operation).json()
    codes = {error["extensions"]["code"] for error in body["errors"]}
    assert "FORBIDDEN" in codes and body["data"] is None
    assert names(store) == []


def test_a_mutation_by_get_is_refused_whatever_the_token(client, store: Store) -> None:
    app = client(api_token=WRITE)
    got = app.get(
        "/graphql", params={"query": CREATE}, headers={"Authorization": f"Bearer {WRITE}"}
    )
    assert got.status_code >= 400 and names(store) == []


def test_a_write_token_may_mutate(client, store: Store) -> None:
    app = client(api_token=WRITE, read_token=READ)
    body = post(app, CREATE, token=WRITE).json()
    assert body["data"]["createSeries"]["id"] and names(store) == ["made"]


def test_only_a_read_token_makes_the_api_read_only(client, store: Store) -> None:
    app = client(read_token=READ)
    assert post(app, SERIES, token=READ).json()["data"] == {"series": {"items": []}}
    assert post(app, CREATE, token=READ).json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert post(app, CREATE).status_code == 401 and names(store) == []


def test_healthz_and_the_graphiql_page_need_no_token(client) -> None:
    app = client(api_token=WRITE)
    assert app.get("/healthz").status_code == 200
    page = app.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql/static/start.js" in page.text
    assert app.get("/graphiql/static/start.js").status_code == 200


def tokens_file(directory: Path, text: str, mode: int = 0o600) -> Path:
    path = directory / "tokens.toml"
    path.write_text(text)
    path.chmod(mode)
    return path


GOOD_FILE = f"""
# who may call graphmem
[[tokens]]
name = "ingest"
token = "{WRITE}"
access = "write"

[[tokens]]
name = "dashboard"
sha256 = "{hashlib.sha256(READ.encode()).hexdigest()}"
access = "read"
"""


def test_tokens_from_a_file(client, store: Store, tmp_path: Path) -> None:
    app = client(tokens_file=tokens_file(tmp_path, GOOD_FILE))
    assert post(app, SERIES, token=READ).json()["data"] == {"series": {"items": []}}
    assert post(app, CREATE, token=READ).json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert post(app, CREATE, token=WRITE).json()["data"]["createSeries"]["id"]
    assert post(app, SERIES).status_code == 401
    assert names(store) == ["made"]


def test_the_file_adds_to_the_environment_tokens(tmp_path: Path) -> None:
    other = "another-token-" + "z" * 20
    path = tokens_file(tmp_path, GOOD_FILE)
    tokens = Tokens.from_settings(Settings(api_token=other, tokens_file=path))
    assert [tokens.grant_for(t).name for t in (other, WRITE, READ)] == [
        "GRAPHMEM_API_TOKEN",
        "ingest",
        "dashboard",
    ]
    assert tokens.grant_for("not-a-known-token-at-all") is None
    assert tokens.summary() == "3 tokens (2 read-write, 1 read-only)"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[tokens]\nname = 1", "is not valid TOML"),
        ("[server]\nport = 1", "expected only a list of tokens under 'tokens'"),
        ("# nothing yet\n", "holds no [[tokens]]"),
        (f'[[tokens]]\ntoken = "{WRITE}"\naccess = "write"', "needs a name"),
        (f'[[tokens]]\nname = "a"\ntoken = "{WRITE}"\naccess = "admin"', "access must be"),
        (
            f'[[tokens]]\nname = "a"\ntoken = "{WRITE}"\naccess = "write"\nacess = "read"',
            "unknown keys ['acess']",
        ),
        ('[[tokens]]\nname = "a"\ntoken = "short-secret"\naccess = "read"', "at least 16"),
        (
            '[[tokens]]\nname = "a"\ntoken = "has a space in it, long"\naccess = "read"',
            "visible ASCII",
        ),
        ('[[tokens]]\nname = "a"\naccess = "read"', "exactly one of token and sha256"),
        ('[[tokens]]\nname = "a"\nsha256 = "abc"\naccess = "read"', "64 hex digits"),
        (
            f'[[tokens]]\nname = "a"\ntoken = "{WRITE}"\naccess = "read"\nspaces = ["Sales"]',
            "is not a space name",
        ),
        (
            f'[[tokens]]\nname = "a"\ntoken = "{WRITE}"\naccess = "read"\nspaces = []',
            'spaces must be "*"',
        ),
        (
            f'[[tokens]]\nname = "a"\ntoken = "{WRITE}"\naccess = "read"\n'
            f'[[tokens]]\nname = "b"\ntoken = "{WRITE}"\naccess = "write"',
            "repeats the token",
        ),
    ],
)
def test_a_bad_tokens_file_is_refused_with_where_and_why(
    tmp_path: Path, text: str, problem: str
) -> None:
    settings = Settings(tokens_file=tokens_file(tmp_path, text))
    with pytest.raises(InvalidInput) as raised:
        create_app(settings)
    assert raised.value.field == "GRAPHMEM_TOKENS_FILE" and problem in raised.value.problem
    assert WRITE not in str(raised.value) and "short-secret" not in str(raised.value)


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o666])
def test_a_tokens_file_others_can_read_is_refused(tmp_path: Path, mode: int) -> None:
    path = tokens_file(tmp_path, GOOD_FILE, mode)
    with pytest.raises(InvalidInput) as raised:
        Tokens.from_settings(Settings(tokens_file=path))
    assert "can be read by every user" in raised.value.problem and "chmod 600" in str(raised.value)


def test_a_missing_tokens_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as raised:
        Tokens.from_settings(Settings(tokens_file=tmp_path / "absent.toml"))
    assert raised.value.field == "GRAPHMEM_TOKENS_FILE" and "cannot read" in raised.value.problem


@pytest.mark.parametrize(
    ("changes", "field", "problem"),
    [
        ({"api_token": "short"}, "GRAPHMEM_API_TOKEN", "at least 16 characters"),
        ({"read_token": "with space " * 3}, "GRAPHMEM_READ_TOKEN", "visible ASCII"),
        ({"api_token": WRITE, "read_token": WRITE}, "GRAPHMEM_READ_TOKEN", "repeats the token"),
    ],
)
def test_bad_environment_tokens_are_refused(changes: dict, field: str, problem: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        Tokens.from_settings(Settings(**changes))
    assert raised.value.field == field and problem in raised.value.problem
    assert WRITE not in str(raised.value) and "short" not in raised.value.problem.split(";")[0]


def test_tokens_stay_out_of_the_settings_repr() -> None:
    env = {"GRAPHMEM_API_TOKEN": WRITE, "GRAPHMEM_READ_TOKEN": READ}
    settings = Settings.from_env(env)
    assert (settings.api_token, settings.read_token) == (WRITE, READ)
    assert WRITE not in repr(settings) and READ not in repr(settings)


INTROSPECT = "{ __schema { queryType { name } } }"


def test_graphiql_and_introspection_are_on_locally(client) -> None:
    app = client()
    assert app.get("/graphql", headers={"Accept": "text/html"}).status_code == 200
    assert post(app, INTROSPECT).json()["data"] == {"__schema": {"queryType": {"name": "Query"}}}


def test_bound_elsewhere_graphiql_and_introspection_are_off(client) -> None:
    app = client(host="192.0.2.10", api_token=WRITE, allowed_hosts=("localhost",))
    assert app.get("/graphql", headers={"Accept": "text/html"}).status_code == 404
    assert app.get("/graphiql/static/start.js").status_code == 404
    body = post(app, INTROSPECT, token=WRITE).json()
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION"
    assert "introspection" in body["errors"][0]["message"].lower()
    assert post(app, SERIES, token=WRITE).json()["data"] == {"series": {"items": []}}


def test_the_switches_override_the_defaults(client) -> None:
    remote = client(host="192.0.2.10", api_token=WRITE, allowed_hosts=("localhost",), graphiql=True)
    assert remote.get("/graphql", headers={"Accept": "text/html"}).status_code == 200
    assert "data" in post(remote, INTROSPECT, token=WRITE).json()  # follows GraphiQL
    local = client(introspection=False)
    assert local.get("/graphql", headers={"Accept": "text/html"}).status_code == 200
    assert post(local, INTROSPECT).json()["errors"][0]["extensions"]["code"] == (
        "GRAPHQL_VALIDATION"
    )


@pytest.mark.parametrize(
    ("value", "expected"), [("1", True), ("on", True), ("False", False), ("no", False), ("", None)]
)
def test_on_off_variables(value: str, expected: bool | None) -> None:
    settings = Settings.from_env({"GRAPHMEM_GRAPHIQL": value, "GRAPHMEM_INTROSPECTION": value})
    assert settings.graphiql is expected and settings.introspection is expected


def test_a_bad_on_off_value_names_the_variable() -> None:
    with pytest.raises(InvalidInput) as raised:
        Settings.from_env({"GRAPHMEM_INTROSPECTION": "maybe"})
    assert raised.value.field == "GRAPHMEM_INTROSPECTION"
