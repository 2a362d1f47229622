"""The relation model's embedding signals (round 19): directions of the pair's embeddings,
stored with the trees, computed from the vectors the graph holds and never embedded twice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.props_worlds import load_worlds
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import GraphmemError
from graphmem.props import OfflineClassifier, add_propositions, list_relations, refine
from graphmem.props.classify import Candidate
from graphmem.props.memory import RecentPropositions
from graphmem.props.model import Proposition
from graphmem.props.pairembed import PairProjection
from graphmem.props.pairmodel import TreeModel, load_model
from graphmem.services import open_props
from graphmem.store import Store

WORLDS = Path(__file__).parent / "fixtures" / "worlds.json"
ORDER = ("norel", "updates", "contradicts", "supports")


def _vectors(rng: np.random.Generator, n: int, dim: int = 12) -> np.ndarray:
    rows = rng.normal(size=(n, dim))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_directions_are_the_pairs_principal_ones_and_survive_the_file() -> None:
    rng = np.random.default_rng(11)
    u, v = _vectors(rng, 300), _vectors(rng, 300)
    projection = PairProjection.fit(u, v, 3, "some-model@int8")
    assert projection.names == (
        *(f"emb_product_{i}" for i in range(3)),
        *(f"emb_difference_{i}" for i in range(3)),
    )
    signals = projection.signals(u, v)
    assert signals.shape == (300, 6)
    # centred on the training pairs, falling variance, uncorrelated within a view
    assert np.allclose(signals.mean(axis=0), 0.0, atol=1e-9)
    spread = signals[:, :3].var(axis=0)
    assert spread[0] >= spread[1] >= spread[2] > 0
    assert abs(np.corrcoef(signals[:, 0], signals[:, 1])[0, 1]) < 1e-6
    # a pair's signals do not depend on the pairs beside it in the call (a label must not)
    for i in (0, 7, 299):
        assert np.array_equal(projection.signals(u[i], v[i])[0], signals[i])
    assert np.allclose(signals[:, :3], (u * v - (u * v).mean(axis=0)) @ _components(u * v, 3).T)
    # vectors are taken at unit length, whatever norm they come with
    assert np.allclose(projection.signals(3.0 * u[:5], v[:5]), signals[:5])
    again = PairProjection.from_json(json.loads(json.dumps(projection.to_json())))
    assert np.array_equal(again.signals(u, v), signals) and again.model == "some-model@int8"
    assert np.array_equal(PairProjection.fit(u, v, 3, "x").signals(u, v), signals)  # refit
    with pytest.raises(ValueError, match="12-dimensional"):
        projection.signals(u[:, :8], v[:, :8])
    narrow = {"mean": [0.0], "components": [[1.0]]}
    with pytest.raises(ValueError, match="dimension"):
        PairProjection.from_json({**projection.to_json(), "difference": narrow})


def _components(rows: np.ndarray, k: int) -> np.ndarray:
    """The k leading principal directions, signed as Directions.fit signs them."""
    vt = np.linalg.svd(rows - rows.mean(axis=0), full_matrices=False)[2][:k]
    return vt * np.sign(vt.sum(axis=1, keepdims=True))


def _tree(features: tuple[str, ...], split_on: int, embedding: PairProjection | None) -> TreeModel:
    """One stump: updates when signal `split_on` is above 0, else norel."""
    return TreeModel(
        labels=ORDER,
        features=features,
        baseline=np.zeros(4),
        roots=np.array([0]),
        tree_label=np.array([1]),
        feature=np.array([split_on, -1, -1]),
        threshold=np.zeros(3),
        missing_left=np.ones(3, dtype=bool),
        left=np.array([1, 0, 0]),
        right=np.array([2, 0, 0]),
        value=np.array([0.0, -3.0, 3.0]),
        embedding=embedding,
    )


def test_a_tree_model_takes_the_embedding_signals_after_the_rules_ones() -> None:
    rng = np.random.default_rng(5)
    u, v = _vectors(rng, 50), _vectors(rng, 50)
    projection = PairProjection.fit(u, v, 2, "m")
    plain = ("hedged_new_only", "b")  # every model reads the hedge (never set here)
    model = _tree((*plain, *projection.names), 2, projection)  # splits on emb_product_0
    signals = np.column_stack([np.zeros(50), rng.normal(size=50)])
    rows = model.rows(signals, u, v)
    assert rows.shape == (50, 6) and np.array_equal(rows[:, :2], signals)
    labels = [label for label, _ in model.predict(rows)]
    assert labels == ["updates" if s > 0 else "norel" for s in projection.signals(u, v)[:, 0]]
    again = TreeModel.from_json(json.loads(json.dumps(model.to_json())))
    assert np.array_equal(again.rows(signals, u, v), rows)
    assert _tree(plain, 1, None).rows(signals, u, v) is signals  # no embedding: as given
    with pytest.raises(ValueError, match="last features"):
        _tree(("hedged_new_only", *projection.names, "b"), 0, projection)


def _pairings(named, embedder: Embedder, k: int = 8):
    props = [
        Proposition(p["key"], p["text"], p["date"], i, p.get("source"))
        for i, p in enumerate(named.world.propositions)
    ]
    vectors = embedder.encode([p.text for p in props])
    pairings, news = [], []
    for i in range(1, len(props)):
        cosines = vectors[:i] @ vectors[i]
        best = np.argsort(-cosines)[:k]
        cands = [Candidate(props[j], float(cosines[j]), vectors[j]) for j in best]
        pairings.append((props[i], cands))
        news.append(vectors[i])
    return pairings, news


def test_vectors_given_and_vectors_embedded_give_the_same_judgements() -> None:
    """The service passes the vectors the graph holds; a classifier of its own (a test, a
    benchmark) embeds the texts itself with the model the trees were fitted on."""
    model = load_model()
    if model.embedding is None:
        pytest.skip("the packaged model has no embedding signals")
    embedder = Embedder(precision=model.embedding.model.partition("@")[2] or "fp32")
    given = OfflineClassifier(embedder=embedder)
    alone = OfflineClassifier(fitted=embedder)
    other = OfflineClassifier(embedder=Embedder("some/other-model"), fitted=embedder)
    assert given.wants_vectors and not alone.wants_vectors and not other.wants_vectors
    # the model is never loaded behind the service's back: the composition root builds it
    with pytest.raises(GraphmemError, match=model.embedding.model):
        OfflineClassifier(embedder=Embedder("some/other-model"))
    named = load_worlds(WORLDS, ("tuning",))[0]
    pairings, news = _pairings(named, embedder)
    judged = given.classify_many(pairings, news)
    assert judged == alone.classify_many(pairings) == other.classify_many(pairings, news)
    assert sum(j.label != "norel" for js in judged for j in js) > 20


def test_ingestion_hands_the_classifier_every_vector_without_embedding_again(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New propositions' vectors come from the batch, stored ones' from the recent cache or
    the graph: the classifier never embeds a text during ingestion."""
    if load_model().embedding is None:
        pytest.skip("the packaged model has no embedding signals")
    named = load_worlds(WORLDS, ("tuning",))[0]
    items = named.world.items()
    settings = Settings(home=tmp_path, vector_refresh_ms=0)
    ctx = open_props(settings, store, llm=None)
    assert ctx.classifier.wants_vectors

    def refuse(self, texts):
        raise AssertionError(f"embedded a text again: {texts[:1]}")

    monkeypatch.setattr(OfflineClassifier, "_encode", refuse)
    half = len(items) // 2
    first = add_propositions(ctx, items[:half], batch_size=8)
    ctx.recent = RecentPropositions()  # as after a restart: stored vectors come from the graph
    second = add_propositions(ctx, items[half:], batch_size=8)
    assert first.relations + second.relations > 20
    # re-judging stored edges reads their stored vectors too
    edges = [e.id for e in list_relations(ctx)][:30]
    report = refine(ctx, edges, classifier=ctx.classifier, force=True)
    assert report.refined == len(edges) > 20
    assert (report.changed, report.removed) == (0, 0)  # the same vectors, the same labels
    ctx.close()


def test_the_recent_cache_keeps_a_bounded_number_of_vectors() -> None:
    recent = RecentPropositions(capacity=10, vector_capacity=3)
    vectors = {f"p{i}": np.full(4, float(i), dtype=np.float32) for i in range(5)}
    recent.add_vectors(vectors)
    assert set(recent.vectors_of(vectors)) == {"p2", "p3", "p4"}  # the oldest went
    recent.vectors_of(["p2"])  # used: now the newest
    recent.add_vectors({"p5": vectors["p4"]})
    assert set(recent.vectors_of(vectors.keys() | {"p5"})) == {"p2", "p4", "p5"}
    recent.forget(["p4"])
    assert "p4" not in recent.vectors_of(["p4"])
