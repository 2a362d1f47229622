"""The operation time limit: a deadline stops the store's statements (undone) and the LLM."""

from __future__ import annotations

from contextvars import copy_context
from pathlib import Path
from threading import Thread

import neo4j.exceptions as ne
import pytest

from graphmem import deadline
from graphmem.cypher import load_dir
from graphmem.errors import OperationTimeout, StoreError
from graphmem.llm import LLM
from graphmem.store import Store
from graphmem.store.neo4j_engine import translate

Q = load_dir(Path(__file__).parent / "cypher")
SLOW = 20_000  # MERGEs in slow_write: seconds of work, far past the deadlines here


def slow_nodes(store: Store) -> int:
    return store.read(Q["limits_test.count_slow"])[0]["n"]


def test_a_write_running_past_the_deadline_is_stopped_and_undone(store: Store) -> None:
    with deadline.limited(0.2, "TEST_LIMIT"), pytest.raises(OperationTimeout) as caught:
        store.write(Q["limits_test.slow_write"], n=SLOW)
    assert caught.value.code == "TIMEOUT"
    assert "0.2 s (TEST_LIMIT)" in str(caught.value)
    assert slow_nodes(store) == 0
    assert store.write(Q["limits_test.slow_write"], n=3)[0]["n"] == 3  # the store carries on


def test_a_read_running_past_the_deadline_is_stopped(store: Store) -> None:
    with deadline.limited(0.2, "TEST_LIMIT"), pytest.raises(OperationTimeout):
        store.read(Q["limits_test.slow_read"], n=5_000)


def test_nothing_is_sent_once_the_deadline_has_passed(store: Store) -> None:
    with deadline.limited(0, "TEST_LIMIT"), pytest.raises(OperationTimeout):
        store.write(Q["limits_test.slow_write"], n=1)
    assert slow_nodes(store) == 0


def test_without_a_deadline_nothing_is_limited(store: Store) -> None:
    assert deadline.remaining() is None and deadline.statement_ms("x") is None
    assert store.write(Q["limits_test.slow_write"], n=2_000)[0]["n"] == 2_000


def test_opening_runs_without_the_deadline() -> None:
    with deadline.limited(0, "TEST_LIMIT"):
        with deadline.lifted():
            deadline.check("opening")  # does not raise
        with pytest.raises(OperationTimeout):
            deadline.check("after opening")


def test_the_deadline_follows_the_operation_into_worker_threads() -> None:
    seen: list[float | None] = []
    with deadline.limited(30, "TEST_LIMIT"):
        look = lambda: seen.append(deadline.remaining())  # noqa: E731
        worker = Thread(target=copy_context().run, args=(look,))
        worker.start()
        worker.join()
    assert seen[0] is not None and 0 < seen[0] <= 30


@pytest.mark.parametrize(
    "code",
    [
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
        "Neo.ClientError.Transaction.TransactionTimedOut",
    ],
)
def test_neo4j_transaction_timeouts_are_timeouts(code: str) -> None:
    error = ne.Neo4jError._hydrate_neo4j(code=code, message="the transaction timed out")
    assert isinstance(translate(error, "series.get"), OperationTimeout)


def test_a_neo4j_transaction_stopped_by_the_server_is_a_timeout_only_past_the_deadline() -> None:
    stopped = ne.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Transaction.LockClientStopped", message="stopped"
    )
    assert type(translate(stopped, "series.get")) is StoreError  # e.g. an admin killed it
    with deadline.limited(0, "TEST_LIMIT"):
        assert isinstance(translate(stopped, "series.get"), OperationTimeout)


def test_an_llm_call_is_cut_at_the_deadline(llm_server, llm_settings) -> None:
    llm_server.script({"delay": 3, "content": "too late"})
    llm = LLM(llm_settings)  # its own timeout is 5 s, with a retry
    with deadline.limited(0.3, "TEST_LIMIT"), pytest.raises(OperationTimeout) as caught:
        llm.chat([{"role": "user", "content": "hello"}])
    assert "TEST_LIMIT" in str(caught.value)
    assert len(llm_server.requests) == 1  # no retry past the deadline


def test_no_llm_call_starts_after_the_deadline(llm_server, llm_settings) -> None:
    with deadline.limited(0, "TEST_LIMIT"), pytest.raises(OperationTimeout):
        LLM(llm_settings).chat([{"role": "user", "content": "hello"}])
    assert llm_server.requests == []
