"""`graphmem demo`'s propositions part on a temp store: the rendered subgraph it prints."""

from __future__ import annotations

import io
from pathlib import Path

from rendered import blocks

from graphmem.config import Settings
from graphmem.demo import propositions_demo
from graphmem.props.demo_corpus import AS_OF, DOCUMENTS
from graphmem.services import Services
from graphmem.store import Store


def test_demo_shows_the_denial_contradicting_the_rumour(store: Store, tmp_path: Path) -> None:
    services = Services(Settings(home=tmp_path), store)  # offline: no LLM in these settings
    out = io.StringIO()
    try:
        propositions_demo(services, out)
    finally:
        services.vectors().close()
    text = out.getvalue()
    assert f"as of {AS_OF}" in text
    shown = blocks(text[text.index("[P1]") :])
    rumour = "A rumour claims that Quillmere Foundry will close its Brackwater site."
    denial = "Quillmere Foundry denied that it will close its Brackwater site."
    assert {rumour, denial} <= shown.keys()
    said, denied = shown[rumour], shown[denial]
    assert said["Date"] == next(d["date"] for d in DOCUMENTS if d["text"] == rumour)
    assert f"This statement contradicts {said['label']}" in denied["Relations"]
    assert said["Status"] == f"contradicted by {denied['label']}: not current."
    assert denied["Status"] == "current." and "supports" not in denied["Relations"]
    assert "supported" not in said.get("Relations", "")
    assert denied["Source"] == "orrin-gazette"


def test_demo_corpus_relations_offline(store: Store, tmp_path: Path) -> None:
    """The whole corpus (beyond the demo's date): staying open supports the denial of a closure."""
    from graphmem.props import add_document, list_relations
    from graphmem.props.model import make_proposition

    services = Services(Settings(home=tmp_path), store)
    try:
        memory = services.props()
        for doc in DOCUMENTS:
            add_document(memory, doc["text"], doc["date"], doc["source"])
        kinds = {(e.src, e.dst): e.kind for e in list_relations(memory)}
    finally:
        services.vectors().close()

    def pid(text: str) -> str:
        date = next(d["date"] for d in DOCUMENTS if text in d["text"])
        return make_proposition(text, date).id

    open_ = (
        "Tomas Rilke, chief executive of Quillmere Foundry, said the Brackwater site will "
        "stay open."
    )
    denial = "Quillmere Foundry denied that it will close its Brackwater site."
    rumour = "A rumour claims that Quillmere Foundry will close its Brackwater site."
    assert kinds[(pid(open_), pid(denial))] == "supports"
    assert kinds[(pid(open_), pid(rumour))] == "contradicts"
    assert kinds[(pid(denial), pid(rumour))] == "contradicts"
    rilke = "Tomas Rilke replaced Mara Velsh as chief executive of Quillmere Foundry."
    velsh = "Mara Velsh was appointed chief executive of Quillmere Foundry."
    assert kinds[(pid(rilke), pid(velsh))] == "updates"
