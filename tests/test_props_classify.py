"""Relation classifiers: the LLM classifier's output handling, and the offline rules."""

from __future__ import annotations

import json

import pytest
from test_props_world import ctx, llm_ctx  # noqa: F401 - fixtures

from graphmem.errors import InvalidInput, LLMError
from graphmem.props import PropsMemory, add_propositions, counts, list_relations
from graphmem.props.classify import Candidate, Judgement, parse_judgements
from graphmem.props.llmjson import Malformed
from graphmem.props.model import make_proposition
from graphmem.props.offline import OfflineClassifier

OLD = {"text": "Marta Velkova is the chief executive of Quillon Dynamics.", "date": "2015-03-02"}
NEW = {"text": "Idris Okonjo is the chief executive of Quillon Dynamics.", "date": "2019-03-18"}


def good(label: str = "updates", confidence: float = 0.8) -> dict:
    return {"content": json.dumps({"judgements": [
        {"index": 1, "label": label, "confidence": confidence}]})}  # fmt: skip


def test_malformed_output_is_retried_once(llm_server, llm_ctx: PropsMemory) -> None:  # noqa: F811
    add_propositions(llm_ctx, [OLD])  # nothing to compare with: no LLM call
    assert llm_server.requests == []
    llm_server.script({"content": "{not json"}, good())
    report = add_propositions(llm_ctx, [NEW])
    assert report.relations == 1
    first, retry = llm_server.requests
    assert first["model"] == llm_ctx.llm.model
    assert retry["messages"][-2] == {"role": "assistant", "content": "{not json"}
    assert "not valid JSON" in retry["messages"][-1]["content"]
    (edge,) = list_relations(llm_ctx)
    assert (edge.kind, edge.confidence) == ("updates", 0.8)


@pytest.mark.parametrize(
    "bad",
    [
        {"judgements": [{"index": 2, "label": "updates", "confidence": 0.5}]},  # out of range
        {"judgements": [{"index": 1, "label": "replaces", "confidence": 0.5}]},
        {"judgements": [{"index": 1, "label": "updates", "confidence": 1.5}]},
        {"judgements": [{"index": True, "label": "updates", "confidence": 0.5}]},
        {"judgements": "updates"},
        [],
    ],
)
def test_invalid_judgements_are_retried(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
    bad: object,
) -> None:
    add_propositions(llm_ctx, [OLD])
    llm_server.script({"content": json.dumps(bad)}, good("supports", 0.6))
    assert add_propositions(llm_ctx, [NEW]).relations == 1
    assert "invalid" in llm_server.requests[1]["messages"][-1]["content"]
    assert list_relations(llm_ctx)[0].kind == "supports"


def test_bad_twice_is_an_llm_error_and_nothing_is_half_written(
    llm_server,
    llm_ctx: PropsMemory,  # noqa: F811
) -> None:
    add_propositions(llm_ctx, [OLD])
    llm_server.script({"content": "nope"}, {"content": '{"judgements": [{"index": 9}]}'})
    new = make_proposition(NEW["text"], NEW["date"])
    with pytest.raises(LLMError, match=f"proposition {new.id}.*malformed output twice"):
        add_propositions(llm_ctx, [NEW, {"text": "Another statement.", "date": "2019-03-19"}])
    assert counts(llm_ctx) == {"propositions": 1, "documents": 0, "states": 0, "relations": 0}
    vec = llm_ctx.embedder.encode_one(NEW["text"])
    assert len(llm_ctx.vectors.search("Proposition", vec, 5)) == 1  # nor in the index


def test_parse_judgements_fills_norel_and_rejects_duplicates() -> None:
    out = parse_judgements({"judgements": [{"index": 2, "label": "supports",
                                            "confidence": 1}]}, 3)  # fmt: skip
    assert out == [Judgement(0, "norel", 1.0), Judgement(1, "supports", 1.0),
                   Judgement(2, "norel", 1.0)]  # fmt: skip
    twice = {"judgements": [{"index": 1, "label": "norel", "confidence": 0.1}] * 2}
    with pytest.raises(Malformed, match="judged twice"):
        parse_judgements(twice, 2)


@pytest.mark.parametrize(
    ("new", "old", "label"),
    [
        (NEW["text"], OLD["text"], "updates"),
        ("The Lumen Kettle costs 99 dollars.", "The Lumen Kettle costs 89 dollars.", "updates"),
        ("Quillon Dynamics did not acquire Brenmoor Labs.",
         "Quillon Dynamics acquired Brenmoor Labs.", "contradicts"),
        ("Port Kelvary has 47,300 residents.", "The population of Port Kelvary is 47,300.",
         "supports"),
        ("Farrowbright sold 410,000 kettles in 2018.", "Farrowbright sold 300,000 kettles in 2017.",
         "norel"),  # different periods
        ("Halvek has a population of 176,500.", "The population of Port Kelvary is 41,200.",
         "norel"),  # different subjects
        # the demo's pair: a denial of a rumoured claim (a claim cue is not a negation)
        ("Quillmere Foundry denied that it will close its Brackwater site.",
         "A rumour claims that Quillmere Foundry will close its Brackwater site.", "contradicts"),
        ("A travel blog claimed that the Serrin Glacier is growing.",
         "Glaciologists said that the Serrin Glacier is not growing.", "contradicts"),
        # confirming a claim takes the whole claim, not one shared word
        ("Tomas Rilke, chief executive of Quillmere Foundry, said the Brackwater site will "
         "stay open.", "A rumour claims that Quillmere Foundry will close its Brackwater site.",
         "norel"),
    ],
)  # fmt: skip
def test_offline_rules(new: str, old: str, label: str, ctx: PropsMemory) -> None:  # noqa: F811
    vecs = ctx.embedder.encode([new, old])
    older = make_proposition(old, "2015-01-01")
    judged = OfflineClassifier().classify(
        make_proposition(new, "2020-01-01"), [Candidate(older, float(vecs[0] @ vecs[1]))]
    )
    assert [j.label for j in judged] == [label]
    assert 0 <= judged[0].confidence <= 1


def test_a_classifier_answering_out_of_range_is_reported(ctx: PropsMemory) -> None:  # noqa: F811
    class Broken:
        name = "broken"

        def classify(self, new, candidates):
            return [Judgement(len(candidates), "updates", 1.0)]

    add_propositions(ctx, [OLD])
    ctx.classifier = Broken()
    with pytest.raises(InvalidInput, match="broken returned an invalid"):
        add_propositions(ctx, [NEW])
    assert counts(ctx)["propositions"] == 1
