"""GraphQL and CLI: events, recall ranked by recall probability, reinforcement, timeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.cli import main
from graphmem.store import Store

ADD = "mutation($t: String!, $d: Date!) { addEvent(text: $t, date: $d) { id date } }"
RECALL = """query($q: String!, $now: DateTime!) {
  recall(query: $q, now: $now, k: 5) { label id text r t n g p recalled } }"""
REINFORCE = """mutation($ids: [ID!]!, $now: DateTime!) {
  reinforce(ids: $ids, now: $now) { id recallCount g changed lastRecalledAt } }"""

MEMORIES = [
    ("A report said crowds at the Halloween street party were dangerously heavy.", "2024-10-31"),
    ("Organisers forecast a record crowd for last year's Halloween street party.", "2025-10-28"),
    ("The ward asked people not to visit the district on Halloween night.", "2026-03-03"),
]


def test_events_recall_reinforce_timeline(gql) -> None:
    ids = [gql(ADD, t=text, d=date)["data"]["addEvent"]["id"] for text, date in MEMORIES]
    again = gql(ADD, t=MEMORIES[0][0], d=MEMORIES[0][1])["data"]["addEvent"]["id"]
    assert again == ids[0], "same text and date: the same memory"
    ward = ids[2]
    # recalled every month or two since: with t in months each recall slows its decay markedly
    for day in ("2026-04-04", "2026-05-10", "2026-07-20", "2026-10-29"):
        stats = gql(REINFORCE, ids=[ward], now=day)["data"]["reinforce"][0]
        assert stats["changed"]
    repeat = gql(REINFORCE, ids=[ward], now="2026-10-29")["data"]["reinforce"][0]
    assert not repeat["changed"] and repeat["recallCount"] == 4, "once per (id, now)"
    ranked = gql(RECALL, q="Is it a good idea to go to the Halloween party?", now="2026-10-30")
    ranked = ranked["data"]["recall"]
    assert ranked[0]["id"] == ward and ranked[0]["n"] == 4 and ranked[0]["label"] == "EVENT"
    assert ranked[0]["p"] > ranked[1]["p"]
    fields = "items { id date importance recallCount lastRecalledAt } total"
    timeline = gql('{ timeline(now: "2026-10-30") { ' + fields + " } }")
    items = timeline["data"]["timeline"]["items"]
    assert timeline["data"]["timeline"]["total"] == len(items) == 3
    assert [i["date"] for i in items] == sorted(i["date"] for i in items)
    top = max(items, key=lambda i: i["importance"])
    assert top["id"] == ward and top["lastRecalledAt"] == "2026-10-29T00:00:00Z"
    page = gql(
        '{ timeline(now: "2026-10-30", limit: 1, offset: 1, labels: [EVENT]) '
        "{ items { id } total limit offset } }"
    )["data"]["timeline"]
    assert page == {"items": [{"id": items[1]["id"]}], "total": 3, "limit": 1, "offset": 1}
    none = gql('{ timeline(now: "2026-10-30", labels: [PROPOSITION]) { items { id } total } }')
    assert none["data"]["timeline"] == {"items": [], "total": 0}


def test_bad_input_is_an_error_and_changes_nothing(gql) -> None:
    ev = gql(ADD, t=MEMORIES[2][0], d=MEMORIES[2][1])["data"]["addEvent"]["id"]
    early = gql(REINFORCE, ids=[ev], now="2020-01-01")["errors"][0]
    assert early["extensions"] == {"code": "BAD_INPUT", "field": "now"}
    unknown = gql(REINFORCE, ids=[ev, "ev_nope"], now="2026-12-01")["errors"][0]
    assert unknown["extensions"]["code"] == "NOT_FOUND" and "ev_nope" in unknown["message"]
    bad_date = gql(ADD, t="x", d="next tuesday")["errors"][0]
    assert bad_date["extensions"] == {"code": "BAD_INPUT", "field": "$d"}
    stats = gql(REINFORCE, ids=[ev], now="2026-12-01")["data"]["reinforce"][0]
    assert stats["recallCount"] == 1, "the failed calls changed nothing"


def test_cli_recall_and_plot_timeline(
    monkeypatch: pytest.MonkeyPatch,
    store_url: str,
    store: Store,
    short_tmp: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GRAPHMEM_STORE", store_url)
    monkeypatch.setenv("GRAPHMEM_HOME", str(short_tmp / "cli-timeline"))
    for text, date in MEMORIES:
        assert main(["add-event", text, "--date", date]) == 0
    capsys.readouterr()
    assert main(["recall", "Halloween crowds", "--now", "2026-10-30", "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert "Halloween" in out and out.splitlines()[0].split()[:2] == ["p", "recalled"]
    png = tmp_path / "timeline.png"
    assert main(["plot-timeline", "-o", str(png), "--now", "2026-10-30"]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["recall", "x", "--now", "not-a-date"]) == 1
    assert "now" in capsys.readouterr().err
