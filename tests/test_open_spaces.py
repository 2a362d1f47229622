"""Bounded open spaces: at most GRAPHMEM_MAX_OPEN_SPACES spaces keep their indexes and memories
open in a process; the least recently used idle one is closed first and reopened by its next
use with everything stored still there, once; a space an operation holds is never closed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from test_observe import parsed, value

from api.app import create_app
from graphmem import timeline as tl
from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.services import Services
from graphmem.store import Store

EVENT = "Event"
NOW = "2030-01-01"


@pytest.fixture
def owner(store: Store, store_url: str, tmp_path: Path) -> Iterator[Services]:
    """Services of the store under test keeping at most 3 spaces open (its own among them)."""
    settings = Settings(home=tmp_path, vector_refresh_ms=0, max_open_spaces=3)
    with Services.open(settings, store_url) as services:
        yield services


def add(services: Services, name: str, n: int = 1) -> None:
    """`n` events naming `name` in its space, each with its own text."""
    for i in range(n):
        tl.add_event(services.timeline(), f"The {name} crew planted row {i}.", "2024-04-02")


def texts(services: Services) -> list[str]:
    """The texts of the space's events, from the graph."""
    return sorted(item.text for item in tl.timeline(services.timeline(), limit=1000))


def indexed(services: Services) -> int:
    """Events in the space's open vector index (opening it from files and the graph if shut)."""
    return len(services.vectors().index(EVENT))


def test_open_spaces_stay_bounded_and_a_closed_space_keeps_what_it_stored(
    owner: Services,
) -> None:
    names = [f"tenant-{i}" for i in range(8)]
    for name in names:
        add(owner.in_space(name), name, 2)
        assert owner.open_spaces() <= 3
    assert set(owner.opened_spaces()) == {"default", "tenant-6", "tenant-7"}, "the most recent"
    assert owner.closed_spaces() == 6
    for name in names:  # each reopened in turn, closing another
        services = owner.in_space(name)
        assert indexed(services) == 2, "nothing lost, nothing doubled by a close and reopen"
        recalled = tl.recall(services.timeline(), f"The {name} crew planted row 1.", NOW, 1, 0.01)
        assert [r.text for r in recalled] == [f"The {name} crew planted row 1."]
        assert owner.open_spaces() <= 3


def test_a_closed_space_held_by_an_old_reference_answers_with_the_reopened_one(
    owner: Services,
) -> None:
    old = owner.in_space("kept")
    add(old, "kept")
    for i in range(3):
        owner.in_space(f"other-{i}").vectors()
    assert "kept" not in owner.opened_spaces()
    add(old, "kept-again")  # through the closed services: answered by the space's new ones
    assert owner.in_space("kept") is not old
    assert indexed(owner.in_space("kept")) == 2
    assert texts(owner.in_space("kept")) == [
        "The kept crew planted row 0.",
        "The kept-again crew planted row 0.",
    ]
    assert old.opened().vectors is None, "the closed ones open nothing again"


def test_a_space_in_use_is_never_closed(owner: Services) -> None:
    with owner.using("busy") as busy:
        add(busy, "busy")
        vectors = busy.vectors()
        for i in range(5):
            add(owner.in_space(f"passer-{i}"), f"passer-{i}")
        assert "busy" in owner.opened_spaces()
        assert busy.vectors() is vectors, "still the same open indexes"
        assert owner.open_spaces() == 3  # busy, the most recent passer and default
    owner.in_space("after").vectors()
    assert "busy" not in owner.opened_spaces(), "closed once nothing holds it"
    assert indexed(owner.in_space("busy")) == 1


def test_more_spaces_in_use_than_the_limit_are_all_kept_until_released(owner: Services) -> None:
    with owner.using("a") as a, owner.using("b") as b, owner.using("c") as c:
        for services in (a, b, c):
            services.vectors()
        assert owner.open_spaces() == 4, "over the limit rather than close one in use"
    assert owner.open_spaces() == 3, "back to the limit as they are released"


def test_threads_using_many_spaces_lose_and_double_nothing(owner: Services) -> None:
    spaces, rounds = [f"crowd-{i}" for i in range(9)], 4
    errors: list[BaseException] = []
    lock = threading.Lock()

    def work(worker: int) -> None:
        try:
            for r in range(rounds):
                for space in spaces[worker % 3 :: 1 + worker % 2]:
                    with owner.using(space) as services:
                        text = f"Worker {worker} round {r} visited {space}."
                        tl.add_event(services.timeline(), text, "2024-04-02")
                        assert text in texts(services)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            with lock:
                errors.append(error)

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(work, range(6)))
    assert errors == []
    for space in spaces:
        expected = {
            f"Worker {w} round {r} visited {space}."
            for w in range(6)
            for r in range(rounds)
            if space in spaces[w % 3 :: 1 + w % 2]
        }
        services = owner.in_space(space)
        assert texts(services) == sorted(expected)
        assert indexed(services) == len(expected)
    assert owner.open_spaces() <= 3


def test_graphql_requests_over_many_spaces_keep_the_count_bounded_on_metrics(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    settings = Settings(store_url=store_url, home=tmp_path, max_open_spaces=2)
    add_event = 'mutation { addEvent(text: "Rain at the %s site.", date: "2024-05-01") { id } }'
    recall = '{ recall(query: "Rain at the %s site.", now: "2030-01-01", k: 1) { text } }'
    with TestClient(create_app(settings), base_url="http://localhost") as client:

        def post(query: str, space: str) -> dict:
            response = client.post(
                "/graphql", json={"query": query}, headers={"X-Graphmem-Space": space}
            )
            assert response.status_code == 200, response.text
            assert "errors" not in response.json(), response.json()
            return response.json()["data"]

        sites = [f"site-{i}" for i in range(5)]
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda s: post(add_event % s, s), sites))
        for site in sites:
            found = post(recall % site, site)["recall"]
            assert [r["text"] for r in found] == [f"Rain at the {site} site."]
        metrics = parsed(client.get("/metrics").text)
        assert value(metrics, "graphmem_open_spaces") == 2
        assert value(metrics, "graphmem_spaces_closed_total") >= 4


def test_max_open_spaces_setting() -> None:
    assert Settings.from_env({}).max_open_spaces == 32
    assert Settings.from_env({"GRAPHMEM_MAX_OPEN_SPACES": "4"}).max_open_spaces == 4
    with pytest.raises(InvalidInput) as refused:
        Settings.from_env({"GRAPHMEM_MAX_OPEN_SPACES": "0"})
    assert refused.value.field == "GRAPHMEM_MAX_OPEN_SPACES"
