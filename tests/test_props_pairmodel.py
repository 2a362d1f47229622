"""The learned relation model of the offline classifier: what it was trained on, fitting,
and the hedge invariant it keeps whatever its weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphmem.errors import GraphmemError
from graphmem.props.model import LABELS
from graphmem.props.offline import FEATURES, batch_features, pair_features
from graphmem.props.pairmodel import PairModel, fit, load_model
from graphmem.props.reading import read

INDEX = Path(__file__).parent / "fixtures" / "worlds.json"
ORDER = ("norel", "updates", "contradicts", "supports")


def test_the_packaged_model_weighs_the_signals_and_never_saw_the_held_back_worlds() -> None:
    model = load_model()
    assert model.features == FEATURES and set(model.labels) == set(LABELS)
    assert model.weights.shape == (len(LABELS), len(FEATURES))
    listed = json.loads(INDEX.read_text(encoding="utf-8"))
    trained = model.about["trained_on"]
    assert trained == [name.removesuffix(".json") for name in listed["tuning"]]
    assert not {name.removesuffix(".json") for name in listed["held_out"]} & set(trained)
    assert 0.0 < model.about["lowo_macro_f1_pooled"] <= 1.0


def test_fit_learns_which_signal_decides() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 3))
    y = np.where(x[:, 0] > 0.5, 1, np.where(x[:, 1] > 0.5, 3, 0))
    model = fit(x, y, ORDER, ("a", "b", "c"), l2=0.001, balance=0.5)
    probs = model.probabilities(x)
    assert probs.shape == (400, 4) and np.allclose(probs.sum(axis=1), 1.0)
    assert (probs.argmax(axis=1) == y).mean() >= 0.95
    again = PairModel.from_json(json.loads(json.dumps(model.to_json())))
    assert np.allclose(again.probabilities(x), probs, atol=1e-3)


def test_a_hedged_statement_never_updates_a_plain_one_whatever_the_weights() -> None:
    rumour = read("A forum post says the Linmouth ferry now costs 40 euros.", "ferry-forum")
    fact = read("The Linmouth ferry costs 25 euros.", "linmouth-council")
    x = np.asarray(pair_features(rumour, fact, 0.9))
    assert x[FEATURES.index("hedged_new_only")] == 1.0
    weights = np.zeros((len(ORDER), len(FEATURES)))
    weights[ORDER.index("updates")] = 5.0  # a model that would call everything an update
    weights[ORDER.index("contradicts")] = 4.0
    model = PairModel(
        ORDER,
        FEATURES,
        np.zeros(len(FEATURES)),
        np.ones(len(FEATURES)),
        weights,
        np.zeros(len(ORDER)),
    )
    ((label, _),) = model.predict(x)
    assert label in ("supports", "norel")
    plain = np.asarray(pair_features(fact, rumour, 0.9))  # the other way round is allowed
    assert model.predict(plain)[0][0] == "updates"


def test_a_broken_model_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text('{"labels": ["norel"]', encoding="utf-8")
    with pytest.raises(GraphmemError, match="cannot load the relation model"):
        load_model(path)


def test_attribute_words_shared_by_the_whole_batch_weigh_less() -> None:
    """Among a ferry line's statements "sailings" says little; "evening" says which ones."""
    new = read("Pellam Ferries withdrew evening sailings between Arbury and Tosk.")
    same = read("Pellam Ferries runs evening sailings between Arbury and Tosk.")
    other = read("Pellam Ferries added sailings to Corve Island.")
    more = read("Pellam Ferries cut winter sailings to Lusk.")
    rows = batch_features(new, [(same, 0.8), (other, 0.6), (more, 0.6)])
    shared, absent = FEATURES.index("attribute_overlap"), FEATURES.index("object_absent")
    assert rows[0][shared] > 2 * rows[1][shared] > 0
    assert (rows[0][absent], rows[1][absent]) == (0.0, 1.0)
    alone = pair_features(new, other, 0.6)  # outside a batch every word weighs the same
    assert alone[shared] > rows[1][shared]
