"""The learned relation model of the offline classifier: what it was trained on, fitting,
boosted trees walked as scikit-learn walks them, and the hedge invariant either
kind keeps whatever it learned."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphmem.config import Settings
from graphmem.errors import GraphmemError
from graphmem.props.model import LABELS
from graphmem.props.offline import FEATURES, OPEN, SIGNALS, batch_features, pair_features
from graphmem.props.pairmodel import PairModel, TreeModel, fit, load_model, norel_weighted
from graphmem.props.reading import read
from graphmem.services import Services
from graphmem.store import Store

INDEX = Path(__file__).parent / "fixtures" / "worlds.json"
ORDER = ("norel", "updates", "contradicts", "supports")
RULE_VERDICT = ("rule_updates", "rule_contradicts", "rule_supports")


def test_the_packaged_model_weighs_the_signals_and_never_saw_the_held_back_worlds() -> None:
    model = load_model()
    assert isinstance(model, TreeModel)  # round 11 (docs/quality.md)
    embedded = model.embedding.names if model.embedding else ()
    assert model.features == (*FEATURES, *embedded) and set(model.labels) == set(LABELS)
    assert set(model.feature[model.feature >= 0]) <= set(range(len(model.features)))
    listed = json.loads(INDEX.read_text(encoding="utf-8"))
    trained = model.about["trained_on"]
    # trained on tuning worlds (round 5 moved two in without retraining: docs/quality.md)
    assert set(trained) <= {name.removesuffix(".json") for name in listed["tuning"]}
    assert not {name.removesuffix(".json") for name in listed["held_out"]} & set(trained)
    assert 0.0 < model.about["lowo_macro_f1_pooled"] <= 1.0


def test_rows_marked_unrelated_neither_update_nor_contradict() -> None:
    model = load_model()
    width = len(model.features)
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, size=(400, width)).astype(float)  # most signals are 0 / 1
    x[:, model.features.index("hedged_new_only")] = 0.0
    free = [label for label, _ in model.predict(x)]
    assert {"updates", "contradicts"} & set(free), "the premise: some rows change something"
    unrelated = np.array([label in ("updates", "contradicts") for label in free])
    barred = [label for label, _ in model.predict(x, unrelated)]
    assert not {"updates", "contradicts"} & set(barred)
    assert [b for b, u in zip(barred, unrelated, strict=True) if not u] == [
        f for f, u in zip(free, unrelated, strict=True) if not u
    ]
    with pytest.raises(ValueError, match="unrelated"):
        model.predict(x, unrelated.astype(int))
    with pytest.raises(ValueError, match="unrelated"):
        model.predict(x, unrelated[:1])


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


def test_a_pair_has_the_same_signals_alone_and_in_any_batch() -> None:
    """A bulk import judges a statement with its 20 candidates; a backfill judges a stored
    newer one against the 1-3 new ones: a pair's signals may not depend on which."""
    new = read("Pellam Ferries withdrew evening sailings between Arbury and Tosk.")
    same = read("Pellam Ferries runs evening sailings between Arbury and Tosk.")
    other = read("Pellam Ferries added sailings to Corve Island.")
    more = read("Pellam Ferries cut winter sailings to Lusk.")
    rows = batch_features(new, [(same, 0.8, 30), (other, 0.6, 30), (more, 0.6, 30)])
    alone = batch_features(new, [(other, 0.6, 30)])[0]
    assert rows[1] == pair_features(new, other, 0.6, days=30) == alone
    shared, absent = FEATURES.index("attribute_overlap"), FEATURES.index("object_absent")
    assert rows[0][shared] > rows[1][shared] > 0
    assert (rows[0][absent], rows[1][absent]) == (0.0, 1.0)


def test_a_role_given_another_figure_is_a_change_whatever_the_verb() -> None:
    changed, kept = FEATURES.index("slot_changed"), FEATURES.index("slot_kept")
    release = read("Tessel 5.2 is the current release of Dunmore Labs' mapping tool.")
    shipped = read("Dunmore Labs shipped Tessel 6.0.")
    still = read("Tessel 6.0 is still the newest Dunmore Labs release.")
    assert pair_features(shipped, release, 0.6)[changed] == 1.0
    assert (
        pair_features(still, shipped, 0.6)[kept],
        pair_features(still, shipped, 0.6)[changed],
    ) == (1.0, 0.0)
    vans = read("Halvick Bakery runs 12 delivery vans.")
    more_vans = read("Halvick Bakery now sends out 15 delivery vans.")
    bakers = read("Halvick Bakery employs 40 bakers.")
    assert pair_features(more_vans, vans, 0.6)[changed] == 1.0
    assert pair_features(vans, bakers, 0.6)[changed] == 0.0  # another role: vans, not bakers
    assert pair_features(read("Halvick Bakery had 12 vans in 2019."), vans, 0.6)[changed] == 0.0


def test_the_rules_verdict_without_their_topic_test_is_a_separate_signal() -> None:
    """ "voted X in as treasurer in place of Y" shares too few words with "Y keeps the
    accounts as treasurer" for the rules' topic test; without it the rules see a successor."""
    new = read(
        "Club members voted Petra Lusk in as treasurer of the Fenwold Rowing Club in place of "
        "Arno Beck."
    )
    old = read("Arno Beck keeps the accounts of the Fenwold Rowing Club as its treasurer.")
    x = pair_features(new, old, 0.6)
    assert x[FEATURES.index("rule_updates")] == 0.0
    assert x[FEATURES.index("ungated_updates")] == 1.0


def test_the_open_signals_repeat_closeness_only_where_the_rules_see_no_relation() -> None:
    """Round 6: where the rules' verdict is norel, the model gets the pair's closeness again
    (open_*), so it can weigh it apart from the pairs a rule explains."""
    price = read("A jar of Tollan Vale honey sells for 6 pounds at the farm gate.")
    dearer = read("Tollan Vale honey now costs 8 pounds a jar.")
    dropped = read("The Tollan Vale honey farm was sold to Ardel Foods.")
    for new, old in ((dearer, price), (dropped, price), (price, price)):
        x = pair_features(new, old, 0.7)
        norel = not any(x[FEATURES.index(f)] for f in RULE_VERDICT)
        for name in OPEN:
            expected = x[FEATURES.index(name)] if norel else 0.0
            assert x[FEATURES.index(f"open_{name}")] == expected
    same = pair_features(price, price, 0.99)
    assert same[FEATURES.index("rule_supports")] == 1.0
    assert not any(same[FEATURES.index(f"open_{name}")] for name in OPEN)


def test_sample_weights_decide_which_rows_the_fit_follows() -> None:
    """Weighing worlds alike (bench/train_props_model.py): rows of weight zero are ignored."""
    x = np.array([[0.0], [1.0]] * 20 + [[0.0], [1.0]] * 20)
    y = np.array([0, 1] * 20 + [1, 0] * 20)  # the second half says the opposite
    first = np.array([1.0] * 40 + [0.0] * 40)
    probe = np.array([[0.0], [1.0]])
    model = fit(x, y, ORDER, ("a",), l2=0.001, balance=0.0, sample_weight=first)
    assert list(model.probabilities(probe).argmax(axis=1)) == [0, 1]
    model = fit(x, y, ORDER, ("a",), l2=0.001, balance=0.0, sample_weight=1.0 - first)
    assert list(model.probabilities(probe).argmax(axis=1)) == [1, 0]


def test_a_statement_joining_two_facts_is_also_read_by_its_closest_clause() -> None:
    """Round 7: "raises the mooring fee to 40; the slipway charge stays at 15" changes one
    figure and keeps another; against the slipway statement its closest clause keeps the
    figure, though the whole statement gives a new one too."""
    both = read("Kelby marina raises its mooring fee to 40 euros; the slipway charge stays at 15.")
    slipway = read("The slipway charge at Kelby marina is 15 euros.")
    mooring = read("Mooring at Kelby marina costs 32 euros a night.")
    assert len(both.parts) == 2 and slipway.parts == ()
    x = pair_features(both, slipway, 0.6)
    assert x[FEATURES.index("split")] == 1.0
    # the whole statement gives the euro a new figure (40) and adds one; its clause neither
    assert x[FEATURES.index("slot_changed")] == x[FEATURES.index("adds")] == 1.0
    assert x[FEATURES.index("clause_slot_changed")] == x[FEATURES.index("clause_adds")] == 0.0
    # against the mooring statement the closest clause is the fee's, which keeps nothing
    # ("stays" is the slipway's)
    y = pair_features(both, mooring, 0.6)
    assert y[FEATURES.index("new_remains")] == 1.0 and y[FEATURES.index("clause_new_remains")] == 0
    # a statement of one fact: the clause signals are its own
    z = pair_features(mooring, slipway, 0.5)
    n = len(SIGNALS)
    assert z[FEATURES.index("split")] == 0.0 and z[:n] == z[n : 2 * n]


def test_how_long_apart_two_statements_were_made_is_a_signal() -> None:
    """Round 7: a restatement within weeks and a change years later read alike otherwise."""
    fee = read("A day ticket for the Orrin Valley railway costs 9 pounds.")
    dearer = read("A day ticket for the Orrin Valley railway now costs 11 pounds.")
    at = {name: FEATURES.index(name) for name in ("months_apart", "within_month", "years_apart")}
    soon, later = (
        pair_features(dearer, fee, 0.8, days=10),
        pair_features(dearer, fee, 0.8, days=2000),
    )
    assert (soon[at["within_month"]], soon[at["years_apart"]]) == (1.0, 0.0)
    assert (later[at["within_month"]], later[at["years_apart"]]) == (0.0, 1.0)
    assert 0 < soon[at["months_apart"]] < later[at["months_apart"]]
    unknown = pair_features(dearer, fee, 0.8)
    assert [unknown[i] for i in at.values()] == [0.0, 0.0, 0.0]
    # nothing else depends on the dates
    assert (
        soon[: at["months_apart"]] == later[: at["months_apart"]] == unknown[: at["months_apart"]]
    )


def _stumps(missing_left: bool = True) -> TreeModel:
    """Two one-split trees: updates gains 2 when signal 0 > 0.5, supports gains 1 when
    signal 1 <= 0 (a NaN goes where `missing_left` says)."""
    return TreeModel(
        labels=ORDER,
        features=("a", "b"),
        baseline=np.array([0.5, 0.0, -1.0, 0.0]),
        roots=np.array([0, 3]),
        tree_label=np.array([1, 3]),
        feature=np.array([0, -1, -1, 1, -1, -1]),
        threshold=np.array([0.5, 0.0, 0.0, 0.0, 0.0, 0.0]),
        missing_left=np.array([missing_left] * 6),
        left=np.array([1, 0, 0, 4, 0, 0]),
        right=np.array([2, 0, 0, 5, 0, 0]),
        value=np.array([0.0, -1.0, 2.0, 0.0, 1.0, 0.0]),
    )


def test_trees_add_each_leaf_reached_to_its_label_score() -> None:
    model = _stumps()
    x = np.array([[0.0, 1.0], [1.0, -1.0], [np.nan, np.nan]])
    scores = np.array([[0.5, -1.0, -1.0, 0.0], [0.5, 2.0, -1.0, 1.0], [0.5, -1.0, -1.0, 1.0]])
    expected = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    assert np.allclose(model.probabilities(x), expected)
    right = _stumps(missing_left=False).probabilities(x[2:])
    assert right.argmax() == ORDER.index("updates")  # a NaN signal sent right: 0.5 < 2
    again = TreeModel.from_json(json.loads(json.dumps(model.to_json())))
    assert np.allclose(again.probabilities(x), model.probabilities(x))


def test_a_norel_weight_lets_a_relation_win_where_norel_led_by_little() -> None:
    """Round 13: the model's "no relation" is weighed before the labels compete (chosen on
    authors left out of the fit); either kind, the hedge rule untouched."""
    x = np.array([[0.0, 1.0], [1.0, -1.0]])
    trees = _stumps()
    logistic = fit(np.array([[0.0], [1.0]] * 20), np.array([0, 1] * 20), ORDER, ("a",), 1.0, 0.5)
    for model, rows in ((trees, x), (logistic, np.array([[0.45]]))):
        before = model.probabilities(rows)
        assert before[0].argmax() == ORDER.index("norel")
        assert np.allclose(norel_weighted(model, 1.0).probabilities(rows), before)
        after = norel_weighted(model, 0.1).probabilities(rows)
        assert after[0].argmax() != ORDER.index("norel")
        odds = after[:, 0] / after[:, 1]
        assert np.allclose(odds, 0.1 * before[:, 0] / before[:, 1])  # only norel moved
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="norel weight"):
            norel_weighted(trees, bad)


def test_trees_from_scikit_learn_give_its_probabilities() -> None:
    """The shipped trees are fitted by scikit-learn (bench/train_props_model.py) and walked
    by graphmem's own loop: the two must agree, through the JSON file too."""
    sklearn = pytest.importorskip("sklearn.ensemble")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3000, 5))
    x[rng.random(x.shape) < 0.02] = np.nan
    y = np.where(
        x[:, 0] > 0.8, 1, np.where(x[:, 1] * x[:, 2] > 0.5, 2, np.where(x[:, 3] > 1, 3, 0))
    )
    fitted = sklearn.HistGradientBoostingClassifier(max_iter=40, max_leaf_nodes=9).fit(x, y)
    model = TreeModel.from_sklearn(fitted, ORDER, tuple("abcde"))
    probe = rng.normal(size=(500, 5))
    probe[::7, 2] = np.nan
    assert np.allclose(model.probabilities(probe), fitted.predict_proba(probe), atol=1e-9)
    again = TreeModel.from_json(json.loads(json.dumps(model.to_json())))
    assert np.allclose(again.probabilities(probe), fitted.predict_proba(probe), atol=1e-6)
    with pytest.raises(ValueError, match="every label"):
        TreeModel.from_sklearn(fitted, ORDER[:3], tuple("abcde"))


def test_trees_keep_the_hedge_rule_too() -> None:
    rumour = read("A forum post says the Linmouth ferry now costs 40 euros.", "ferry-forum")
    fact = read("The Linmouth ferry costs 25 euros.", "linmouth-council")
    hedged = FEATURES.index("hedged_new_only")
    model = TreeModel(  # one tree that calls every pair an update
        labels=ORDER,
        features=FEATURES,
        baseline=np.zeros(4),
        roots=np.array([0]),
        tree_label=np.array([1]),
        feature=np.array([-1]),
        threshold=np.zeros(1),
        missing_left=np.ones(1, dtype=bool),
        left=np.zeros(1, dtype=int),
        right=np.zeros(1, dtype=int),
        value=np.array([5.0]),
    )
    x = np.asarray(pair_features(rumour, fact, 0.9))
    assert x[hedged] == 1.0
    assert model.predict(x)[0][0] in ("supports", "norel")
    assert model.predict(np.asarray(pair_features(fact, rumour, 0.9)))[0][0] == "updates"


def test_a_model_file_of_an_unknown_kind_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text('{"kind": "forest", "labels": ["norel"]}', encoding="utf-8")
    with pytest.raises(GraphmemError, match="unknown model kind 'forest'"):
        load_model(path)


def test_a_malformed_tree_file_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    """The compiled walk trusts every index, so a model is checked when it is built: a child
    pointing back (a cycle), out of range, a label or signal that does not exist, a short
    node row."""
    good = _stumps().to_json()
    broken = {
        "cycle": {"nodes": [[0, 0.5, 1, 0, 2, 0.0], *good["nodes"][1:]]},
        "child out of range": {"nodes": [[0, 0.5, 1, 1, 99, 0.0], *good["nodes"][1:]]},
        "label out of range": {"tree_label": [1, 4]},
        "signal out of range": {"nodes": [[7, 0.5, 1, 1, 2, 0.0], *good["nodes"][1:]]},
        "short node row": {"nodes": [[0, 0.5, 1, 1, 2], *good["nodes"][1:]]},
        "a baseline short": {"baseline": [0.0, 0.0]},
    }
    for what, change in broken.items():
        path = tmp_path / f"{what}.json"
        path.write_text(json.dumps({**good, **change}), encoding="utf-8")
        with pytest.raises(GraphmemError, match="cannot load the relation model"):
            load_model(path)
    with pytest.raises(ValueError, match="rows of 2 signals"):
        _stumps().probabilities(np.zeros((3, 5)))


def test_a_logistic_model_file_still_loads(tmp_path: Path) -> None:
    """Files of rounds 3-10 have no "kind": they are logistic models."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(200, 2))
    model = fit(x, (x[:, 0] > 0).astype(int) * 3, ORDER, ("a", "b"), l2=0.01, balance=0.0)
    path = tmp_path / "logistic.json"
    path.write_text(json.dumps(model.to_json()), encoding="utf-8")
    loaded = load_model(path)
    assert isinstance(loaded, PairModel) and "kind" not in model.to_json()
    assert np.allclose(loaded.probabilities(x), model.probabilities(x), atol=1e-3)


def test_the_service_warm_up_runs_the_relation_model_once(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first ingestion must not wait for the trees' walk to compile: the warm-up (/readyz,
    `graphmem serve`) runs the offline classifier's model before any request."""
    runs: list[tuple[int, ...]] = []
    original = TreeModel.predict

    def counted(self: TreeModel, x: np.ndarray) -> list[tuple[str, float]]:
        runs.append(np.shape(x))
        return original(self, x)

    monkeypatch.setattr(TreeModel, "predict", counted)
    services = Services(Settings(home=tmp_path), store)  # offline: no LLM in these settings
    try:
        services.warm_up()
    finally:
        services.vectors().close()
    assert runs == [(1, len(load_model().features))]
