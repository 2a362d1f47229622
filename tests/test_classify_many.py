"""The offline classifier judges many pairings at once exactly as it judges them one by one."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.props_worlds import load_worlds, offline_classifier
from graphmem.embed import Embedder
from graphmem.props.classify import Candidate
from graphmem.props.model import Proposition

WORLDS = Path(__file__).parent / "fixtures" / "worlds.json"
K = 10  # candidates per new statement, as ingestion takes them


def test_classify_many_gives_the_labels_of_classify_on_every_world() -> None:
    embedder = Embedder()
    classifier = offline_classifier()
    judged = related = 0
    for named in load_worlds(WORLDS):
        props = [
            Proposition(p["key"], p["text"], p["date"], i, p.get("source"))
            for i, p in enumerate(named.world.propositions)
        ]
        vectors = embedder.encode([p.text for p in props])
        pairings = []
        for i in range(1, len(props)):  # each statement against its most similar earlier ones
            cosines = vectors[:i] @ vectors[i]
            best = np.argsort(-cosines)[:K]
            pairings.append((props[i], [Candidate(props[j], float(cosines[j])) for j in best]))
        at_once = classifier.classify_many(pairings)
        assert at_once == [classifier.classify(new, cands) for new, cands in pairings], named.name
        judged += sum(len(cands) for _, cands in pairings)
        related += sum(j.label != "norel" for js in at_once for j in js)
    assert judged > 3000 and related > 300  # every world, and many pairs that relate
