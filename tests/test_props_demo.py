"""`graphmem demo`'s propositions part on a temp store: the rendered subgraph it prints."""

from __future__ import annotations

import io
import re
from pathlib import Path

from graphmem.config import Settings
from graphmem.demo import propositions_demo
from graphmem.props.demo_corpus import AS_OF, DOCUMENTS
from graphmem.services import Services
from graphmem.store import Store


def _blocks(text: str) -> dict[str, str]:
    """Rendered propositions by their statement text."""
    out = {}
    for block in re.split(r"\n(?=\[P\d+\])", text):
        match = re.search(r"Statement: (.*)", block)
        if match:
            out[match.group(1)] = block
    return out


def test_demo_shows_the_denial_contradicting_the_rumour(store: Store, tmp_path: Path) -> None:
    services = Services(Settings(home=tmp_path), store)  # offline: no LLM in these settings
    out = io.StringIO()
    try:
        propositions_demo(services, out)
    finally:
        services.vectors().close()
    text = out.getvalue()
    assert f"as of {AS_OF}" in text
    blocks = _blocks(text)
    rumour = "A rumour claims that Quillmere Foundry will close its Brackwater site."
    denial = "Quillmere Foundry denied that it will close its Brackwater site."
    assert {rumour, denial} <= blocks.keys()
    number = {s: re.match(r"\[(P\d+)\]", b).group(1) for s, b in blocks.items()}
    rumour_date = next(d["date"] for d in DOCUMENTS if d["text"] == rumour)
    denial_date = next(d["date"] for d in DOCUMENTS if d["text"] == denial)
    assert (
        f"This statement contradicts the following earlier propositions: "
        f"{number[rumour]} ({rumour_date})" in blocks[denial]
    )
    assert (
        f"This statement is contradicted by the following later propositions: "
        f"{number[denial]} ({denial_date})" in blocks[rumour]
    )
    assert "supports" not in blocks[denial] and "supported" not in blocks[rumour]
    assert "Status: contradicted by " in blocks[rumour] and "Status: current." in blocks[denial]
    assert "Source: orrin-gazette" in blocks[denial]


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
